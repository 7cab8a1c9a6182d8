// placeholder: the fib family is being written.
#include "memcomp/codecs/families.hpp"

namespace memcomp {
void add_fib_presets(std::vector<Preset>&) {}
}  // namespace memcomp
