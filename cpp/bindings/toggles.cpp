// placeholder: toggles bindings are being written.
#include "common.hpp"

namespace memcomp::bindings {
void register_toggles(py::module_&) {}
}  // namespace memcomp::bindings
