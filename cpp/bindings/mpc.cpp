// placeholder: mpc bindings are being written.
#include "common.hpp"

namespace memcomp::bindings {
void register_mpc(py::module_&) {}
}  // namespace memcomp::bindings
