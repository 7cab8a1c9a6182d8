// memcomp bindings: symbol statistics and entropy (SPEC 3).
#include <algorithm>
#include <tuple>
#include <type_traits>

#include "memcomp/analysis/entropy.hpp"
#include "memcomp/codecs/huffman.hpp"

#include "common.hpp"
#include "memcomp/core/parallel.hpp"

namespace memcomp::bindings {

namespace {

Endian endian_of(const std::string& e) {
  if (e == "little") return Endian::little;
  if (e == "big") return Endian::big;
  throw py::value_error("endian must be 'little' or 'big', got '" + e + "'");
}

py::dict histogram(const py::array& blocks, unsigned sl, bool per_position, const std::string& endian,
                   const py::object& threads) {
  const BlockView v = block_view(blocks);
  const int t = thread_count(threads);
  SymbolHistogram h(sl, per_position, endian_of(endian));
  {
    py::gil_scoped_release nogil;
    h.add(v, t);
  }
  py::dict out;
  out["total"] = h.total();
  if (sl <= 16) {
    py::array_t<std::uint64_t> counts({static_cast<py::ssize_t>(h.positions()), static_cast<py::ssize_t>(1) << sl});
    std::copy(h.dense().begin(), h.dense().end(), counts.mutable_data());
    out["counts"] = counts;
  } else {
    const auto& items = h.table().view();
    const auto n = static_cast<py::ssize_t>(items.size());
    auto values = output_array<std::uint32_t>({n});
    auto counts = output_array<std::uint64_t>({n});
    std::uint32_t* vd = values.mutable_data();
    std::uint64_t* cd = counts.mutable_data();
    {
      py::gil_scoped_release nogil;
      parallel_for(items.size(), t, std::size_t{1} << 18, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
          vd[i] = items[i].first;
          cd[i] = items[i].second;
        }
      });
    }
    out["values"] = values;
    out["counts"] = counts;
  }
  return out;
}

py::tuple entries(const SpaceSaving32& s) {
  const auto e = s.entries();
  py::array_t<std::uint32_t> values(static_cast<py::ssize_t>(e.size()));
  py::array_t<std::uint64_t> counts(static_cast<py::ssize_t>(e.size())), errors(static_cast<py::ssize_t>(e.size()));
  for (std::size_t i = 0; i < e.size(); ++i) {
    values.mutable_data()[i] = e[i].value;
    counts.mutable_data()[i] = e[i].count;
    errors.mutable_data()[i] = e[i].error;
  }
  return py::make_tuple(values, counts, errors);
}

}  // namespace

void register_entropy(py::module_& m) {
  m.def("symbol_histogram", &histogram, py::arg("blocks").noconvert(), py::arg("symbol_bits"),
        py::arg("per_position") = false, py::arg("endian") = "little", py::arg("threads") = py::none(),
        "Exact SL-bit symbol counts: {'total', 'counts'[positions, 2^SL]} or, for SL 32, {'values', 'counts'}.");
  m.def(
      "block_entropy",
      [](const py::array& blocks, unsigned sl, const std::string& endian, const py::object& threads) {
        const BlockView v = block_view(blocks);
        const int t = thread_count(threads);
        const Endian e = endian_of(endian);
        check_symbol_bits(sl, v.block_bytes);
        py::array_t<double> out(static_cast<py::ssize_t>(v.n_blocks));
        double* dst = out.mutable_data();
        {
          py::gil_scoped_release nogil;
          block_entropy(v, sl, e, dst, t);
        }
        return out;
      },
      py::arg("blocks").noconvert(), py::arg("symbol_bits"), py::arg("endian") = "little",
      py::arg("threads") = py::none());

  m.def(
      "block_entropy_4_8",
      [](const py::array& blocks, const py::object& threads) {
        const BlockView v = block_view(blocks);
        const int t = thread_count(threads);
        py::array_t<double> out4(static_cast<py::ssize_t>(v.n_blocks)), out8(static_cast<py::ssize_t>(v.n_blocks));
        double* d4 = out4.mutable_data();
        double* d8 = out8.mutable_data();
        {
          py::gil_scoped_release nogil;
          block_entropy_4_8(v, d4, d8, t);
        }
        return py::make_tuple(out4, out8);
      },
      py::arg("blocks").noconvert(), py::arg("threads") = py::none(),
      "(block_entropy at SL 4, at SL 8) in one pass over the blocks, the same values.");
  m.def(
      "byte_position_counts",
      [](const py::array& blocks, const py::object& threads) {
        const BlockView v = block_view(blocks);
        const int t = thread_count(threads);
        py::array_t<std::uint64_t> out({static_cast<py::ssize_t>(v.block_bytes), py::ssize_t{256}});
        std::uint64_t* dst = out.mutable_data();
        std::fill(dst, dst + v.block_bytes * 256, std::uint64_t{0});
        {
          py::gil_scoped_release nogil;
          byte_position_counts(v, dst, t);
        }
        return out;
      },
      py::arg("blocks").noconvert(), py::arg("threads") = py::none(),
      "(B, 256) uint64: the blocks whose byte j is v, per position j and value v.");
  m.def(
      "count_word_keys",
      [](const py::array& blocks, const std::string& endian, const py::object& threads) -> py::tuple {
        const BlockView v = block_view(blocks);
        const int t = thread_count(threads);
        const Endian e = endian_of(endian);
        ValueCounts32::Table items;
        {
          py::gil_scoped_release nogil;
          items = count_word_keys(v, e, t);
        }
        const auto n = static_cast<py::ssize_t>(items.size());
        auto keys = output_array<std::uint32_t>({n});
        std::uint32_t* kd = keys.mutable_data();
        auto split = [&](auto counts) {
          auto* cd = counts.mutable_data();
          py::gil_scoped_release nogil;
          parallel_for(items.size(), t, std::size_t{1} << 18, [&](std::size_t lo, std::size_t hi) {
            for (std::size_t i = lo; i < hi; ++i) {
              kd[i] = items[i].first;
              cd[i] = static_cast<std::remove_reference_t<decltype(*cd)>>(items[i].second);
            }
          });
          return counts;
        };
        py::array counts;  // no count exceeds the words counted
        if (v.n_blocks * v.block_bytes / 4 <= 0xFFFFFFFFu) {
          counts = split(output_array<std::uint32_t>({n}));
        } else {
          counts = split(output_array<std::uint64_t>({n}));
        }
        return py::make_tuple(keys, counts);
      },
      py::arg("blocks").noconvert(), py::arg("endian") = "little", py::arg("threads") = py::none(),
      "Every 32-bit word counted as (keys, counts) sorted by key, key = word * 0x9E3779B1 mod 2^32 (its top "
      "bits are the shard): counts are uint32 when every count fits, else uint64.");
  m.def(
      "summarize_key_runs",
      [](const std::vector<std::pair<py::array, py::array>>& runs, std::size_t k) {
        std::vector<KeyRunView> views;
        views.reserve(runs.size());
        for (const auto& [keys, counts] : runs) {
          const auto n = static_cast<std::size_t>(keys.ndim() == 1 ? keys.shape(0) : 0);
          KeyRunView r{column<std::uint32_t>(keys, "keys", n), nullptr, nullptr, n};
          if (has_dtype<std::uint32_t>(counts)) {
            r.counts32 = column<std::uint32_t>(counts, "counts", n);
          } else {
            r.counts64 = column<std::uint64_t>(counts, "counts", n);
          }
          views.push_back(r);
        }
        KeyRunSummary s;
        const char* bad = nullptr;
        {
          py::gil_scoped_release nogil;  // checked without the GIL: summaries run side by side
          for (const KeyRunView& r : views)
            for (std::size_t i = 0; i < r.n && !bad; ++i) {
              if (i && r.keys[i] <= r.keys[i - 1])
                bad = "summarize_key_runs: the keys of a run must be strictly increasing";
              if (r.count(i) == 0) bad = "summarize_key_runs: a count is 0";
            }
          if (!bad) s = summarize_key_runs(views, k);
        }
        if (bad) throw py::value_error(bad);
        std::vector<std::uint64_t> cc(s.count_counts.size()), cm(s.count_counts.size()), tc(s.top.size());
        std::vector<std::uint32_t> tv(s.top.size());
        for (std::size_t i = 0; i < cc.size(); ++i) std::tie(cc[i], cm[i]) = s.count_counts[i];
        for (std::size_t i = 0; i < tv.size(); ++i) std::tie(tv[i], tc[i]) = s.top[i];
        py::dict out;
        out["total"] = s.total;
        out["distinct"] = s.distinct;
        out["count_values"] = to_numpy(std::move(cc));
        out["count_multiplicity"] = to_numpy(std::move(cm));
        out["top_values"] = to_numpy(std::move(tv));
        out["top_counts"] = to_numpy(std::move(tc));
        return out;
      },
      py::arg("runs"), py::arg("k"),
      "The sum of runs of (keys: uint32, strictly increasing; counts: uint32 or uint64, nonzero) without merging "
      "them: {'total', 'distinct', 'count_values', 'count_multiplicity' (how many values have each count), "
      "'top_values', 'top_counts' (the k most frequent values, count descending, ties to the smaller value)}.");
  m.def(
      "merge_count_runs",
      [](const std::vector<std::pair<py::array, py::array>>& runs) {
        std::vector<CountRunView> views;
        views.reserve(runs.size());
        for (const auto& [values, counts] : runs) {
          const auto n = static_cast<std::size_t>(values.ndim() == 1 ? values.shape(0) : 0);
          views.push_back({column<std::uint32_t>(values, "values", n), column<std::uint64_t>(counts, "counts", n), n});
        }
        CountRun r;
        {
          py::gil_scoped_release nogil;
          r = merge_count_runs(views);
        }
        return py::make_tuple(to_numpy(std::move(r.values)), to_numpy(std::move(r.counts)));
      },
      py::arg("runs"),
      "Runs of (values: uint32, counts: uint64) merged into one sorted by value with each value once, the "
      "counts of equal values added (runs sorted with each value once merge in linear passes).");
  m.def(
      "length_limited_bits",
      [](const py::array& values, const py::array& counts, unsigned sl, std::size_t k, unsigned max_len,
         std::uint64_t escaped) {
        const auto* v = column<std::uint32_t>(values, "values");
        const auto n = static_cast<std::size_t>(values.shape(0));
        const auto* c = column<std::uint64_t>(counts, "counts", n);
        std::vector<std::pair<std::uint64_t, std::uint64_t>> items(n);
        for (std::size_t i = 0; i < n; ++i) items[i] = {v[i], c[i]};
        if (escaped != 0 && sl <= 8)
          throw py::value_error("length_limited_bits: escaped symbols need SL >= 9 (SL <= 8 codes every value)");
        py::gil_scoped_release nogil;
        // The optimal length-limited code over the K-MFV alphabet (SPEC 1.8), mean bits per
        // symbol with escapes costing ESC + SL (SPEC 3's L*). `escaped` counts symbols known only
        // to be outside the K given (a summary's rest): they weigh on ESC.
        huffman::Alphabet a = huffman::make_alphabet(sl, items, k);
        std::vector<huffman::Leaf> leaves;
        leaves.reserve(items.size() + 1);
        for (const auto& [value, count] : items) leaves.push_back({value, count});
        if (escaped != 0) {
          std::uint64_t rest = escaped;  // ESC's weight: max(1, the counts left out)
          for (const auto& [value, count] : items) rest += count;
          for (const huffman::Leaf& l : a.leaves)
            if (l.key != a.esc_key()) rest -= l.weight;
          a.leaves.back().weight = std::max<std::uint64_t>(1, rest);
          leaves.push_back({a.esc_key(), escaped});
        }
        const huffman::CanonicalCode code = huffman::build_code(a, max_len, huffman::LimitMethod::package_merge);
        return code.mean_length(leaves, sl);
      },
      py::arg("values").noconvert(), py::arg("counts").noconvert(), py::arg("symbol_bits"), py::arg("k"),
      py::arg("max_len"), py::arg("escaped") = 0,
      "SPEC 3's L*: mean bits per symbol of the optimal length-limited MFV code.");

  py::class_<SpaceSaving32>(m, "SpaceSaving", "Bounded-memory heavy hitters of 32-bit values (Space-Saving).")
      .def(py::init<std::size_t>(), py::arg("capacity"))
      .def_property_readonly("capacity", &SpaceSaving32::capacity)
      .def_property_readonly("total", &SpaceSaving32::total)
      .def(
          "add_words",
          [](SpaceSaving32& s, const py::array& blocks, const std::string& endian) {
            const BlockView v = block_view(blocks);
            const Endian e = endian_of(endian);
            py::gil_scoped_release nogil;
            s.add_words(v, e);
          },
          py::arg("blocks").noconvert(), py::arg("endian") = "little")
      .def("merge", &SpaceSaving32::merge, py::arg("other"))
      .def("entries", &entries, "(values, counts, errors), by count descending")
      .def(py::pickle([](const SpaceSaving32& s) { return py::make_tuple(s.capacity(), s.total(), entries(s)); },
                      [](const py::tuple& t) {
                        const auto e = t[2].cast<py::tuple>();
                        const auto v = e[0].cast<py::array_t<std::uint32_t>>();
                        const auto c = e[1].cast<py::array_t<std::uint64_t>>(),
                                   r = e[2].cast<py::array_t<std::uint64_t>>();
                        std::vector<SpaceSaving32::Entry> list;
                        for (py::ssize_t i = 0; i < v.shape(0); ++i) list.push_back({v.at(i), c.at(i), r.at(i)});
                        return SpaceSaving32::restore(t[0].cast<std::size_t>(), t[1].cast<std::uint64_t>(), list);
                      }));
}

}  // namespace memcomp::bindings
