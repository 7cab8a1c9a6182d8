// memcomp bindings: report policies of the metrics layer.
#include "memcomp/stats/policy.hpp"
#include "memcomp/stats/size_totals.hpp"

#include "common.hpp"

namespace memcomp::bindings {

py::tuple totals_tuple(SizeTotals&& s) {
  py::array_t<std::int64_t> modes({static_cast<py::ssize_t>(s.modes.size()), py::ssize_t{6}});
  auto rows = modes.mutable_unchecked<2>();
  for (std::size_t i = 0; i < s.modes.size(); ++i)
    for (std::size_t f = 0; f < 6; ++f) rows(static_cast<py::ssize_t>(i), static_cast<py::ssize_t>(f)) = s.modes[i][f];
  return py::make_tuple(to_numpy(std::move(s.hist)), modes, s.tag_bits);
}

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
  m.def(
      "size_totals",
      [](const py::dict& cols, std::size_t hist_len, const py::object& threads) {
        const py::array bits = cols["size_bits"];
        const auto n = static_cast<std::size_t>(bits.ndim() == 1 ? bits.shape(0) : 0);
        auto col = [&](const char* name) { return column<std::uint32_t>(cols[name], name, n); };
        const std::uint32_t *b = col("size_bits"), *payload = col("payload_bits"), *meta = col("meta_bits"),
                            *header = col("header_bits"), *tag = col("tag_bits");
        const std::int16_t* mode = column<std::int16_t>(cols["mode"], "mode", n);
        const int t = thread_count(threads);
        SizeTotals s;
        {
          py::gil_scoped_release nogil;
          s = size_totals(b, payload, meta, header, tag, mode, n, hist_len, t);
        }
        return totals_tuple(std::move(s));
      },
      py::arg("columns"), py::arg("hist_len"), py::arg("threads") = py::none(),
      "A measure's columns (size_bits, payload_bits, meta_bits, header_bits, tag_bits: uint32; mode: int16) "
      "reduced in one pass: (hist of in-band bits with hist_len bins, rows of (mode, blocks, payload, meta, "
      "header, tag bits) per mode present, tag bits).");
  m.def(
      "oracle_totals",
      [](const std::vector<py::array>& sizes, std::size_t n, std::size_t hist_len, const py::object& threads) {
        std::vector<const std::uint32_t*> cols;
        cols.reserve(sizes.size());
        for (const auto& a : sizes) cols.push_back(column<std::uint32_t>(a, "size_bits", n));
        const int t = thread_count(threads);
        OracleTotals o;
        {
          py::gil_scoped_release nogil;
          o = oracle_totals(cols, n, hist_len, t);
        }
        return py::make_tuple(to_numpy(std::move(o.hist)), to_numpy(std::move(o.wins)));
      },
      py::arg("sizes"), py::arg("n"), py::arg("hist_len"), py::arg("threads") = py::none(),
      "The per-block smallest of several codecs' size_bits (uint32, n each): (hist of the minimum, "
      "hist_len bins; blocks each codec is the first smallest for).");
}

}  // namespace memcomp::bindings
