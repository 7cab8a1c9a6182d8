// placeholder: the cpack family is being written.
#include "memcomp/codecs/families.hpp"

namespace memcomp {
void add_cpack_presets(std::vector<Preset>&) {}
}  // namespace memcomp
