// placeholder: the lzss family is being written.
#include "memcomp/codecs/families.hpp"

namespace memcomp {
void add_lzss_presets(std::vector<Preset>&) {}
}  // namespace memcomp
