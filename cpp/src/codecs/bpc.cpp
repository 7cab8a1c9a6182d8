// placeholder: the bpc family is being written.
#include "memcomp/codecs/families.hpp"

namespace memcomp {
void add_bpc_presets(std::vector<Preset>&) {}
}  // namespace memcomp
