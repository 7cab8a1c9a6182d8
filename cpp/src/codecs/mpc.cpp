// placeholder: the mpc family is being written.
#include "memcomp/codecs/families.hpp"

namespace memcomp {
void add_mpc_presets(std::vector<Preset>&) {}
}  // namespace memcomp
