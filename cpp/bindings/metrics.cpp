// memcomp bindings: report policies of the metrics layer.
#include "memcomp/stats/policy.hpp"

#include "common.hpp"

namespace memcomp::bindings {

void register_metrics(py::module_& m) {
  m.def(
      "policy_str", [](const std::string& spec) { return Policy::parse(spec).str(); }, py::arg("spec"),
      "Canonical spelling of a policy; raises ValueError for a malformed one.");
  m.def(
      "policy_extra_tag_bits", [](const std::string& spec) { return Policy::parse(spec).extra_tag_bits(); },
      py::arg("spec"));
  m.def(
      "charge",
      [](const py::array& bits, std::size_t block_bytes, const std::string& spec) {
        const Policy p = Policy::parse(spec);
        check_block_bytes(block_bytes);
        const std::uint32_t* src = column<std::uint32_t>(bits, "bits");
        const auto n = static_cast<std::size_t>(bits.shape(0));
        py::array_t<std::uint64_t> out(static_cast<py::ssize_t>(n));
        std::uint64_t* dst = out.mutable_data();
        {
          py::gil_scoped_release nogil;
          charge_all(p, src, n, block_bytes, dst);
        }
        return out;
      },
      py::arg("bits").noconvert(), py::arg("block_bytes"), py::arg("policy"),
      "Bits charged per block under a policy (in-band bits in, tags excluded).");
}

}  // namespace memcomp::bindings
