// memcomp bindings: codecs and the preset registry.
#include "memcomp/codecs/registry.hpp"
#include "memcomp/pipelines/compare_totals.hpp"

#include "common.hpp"

namespace memcomp::bindings {

namespace {

/// The optional per-block approximable mask: None, or a 1-D bool/uint8 array of n entries.
const std::uint8_t* approximable_of(const py::object& mask, std::size_t n) {
  if (mask.is_none()) return nullptr;
  if (!py::isinstance<py::array>(mask)) throw py::type_error("approximable must be None or a bool array");
  const auto a = py::reinterpret_borrow<py::array>(mask);
  static_assert(sizeof(bool) == 1, "bool masks are read as bytes");
  if (has_dtype<bool>(a)) return reinterpret_cast<const std::uint8_t*>(column<bool>(a, "approximable", n));
  return column<std::uint8_t>(a, "approximable", n);
}

py::dict measure(const Codec& c, const py::array& blocks, const py::object& threads, Session* session,
                 const py::object& approximable) {
  BlockView v = block_view(blocks);
  v.approximable = approximable_of(approximable, v.n_blocks);
  const int t = thread_count(threads);
  const auto n = static_cast<py::ssize_t>(v.n_blocks);
  auto bits = output_array<std::uint32_t>({n}), payload = output_array<std::uint32_t>({n}),
       meta = output_array<std::uint32_t>({n}), header = output_array<std::uint32_t>({n}),
       tag = output_array<std::uint32_t>({n});
  auto mode = output_array<std::int16_t>({n});
  SizeColumns cols{bits.mutable_data(),   payload.mutable_data(), meta.mutable_data(),
                   header.mutable_data(), tag.mutable_data(),     mode.mutable_data()};
  {
    py::gil_scoped_release nogil;
    c.measure_batch(v, cols, t, session);
  }
  py::dict out;
  out["size_bits"] = bits;
  out["payload_bits"] = payload;
  out["meta_bits"] = meta;
  out["header_bits"] = header;
  out["tag_bits"] = tag;
  out["mode"] = mode;
  return out;
}

py::tuple encode(const Codec& c, const py::array& blocks, const py::object& threads, Session* session,
                 const py::object& approximable) {
  BlockView v = block_view(blocks);
  v.approximable = approximable_of(approximable, v.n_blocks);
  const int t = thread_count(threads);
  EncodedBlocks e;
  {
    py::gil_scoped_release nogil;
    e = c.encode_batch(v, t, session);
  }
  py::object state = py::none();
  if (c.stateful()) state = to_numpy(std::move(e.entry_state));
  return py::make_tuple(to_numpy(std::move(e.data)), to_numpy(std::move(e.bit_offsets)),
                        to_numpy(std::move(e.bit_lengths)), to_numpy(std::move(e.tags)), state);
}

py::array_t<std::uint8_t> decode(const Codec& c, const py::array& data, const py::array& offsets,
                                 const py::array& lengths, const py::array& tags, std::size_t block_bytes,
                                 const py::object& entry_state, const py::object& threads) {
  const int t = thread_count(threads);
  EncodedView e;
  e.data = column<std::uint8_t>(data, "data");
  e.data_bytes = static_cast<std::size_t>(data.shape(0));
  e.bit_offsets = column<std::uint64_t>(offsets, "bit_offsets");
  e.n_blocks = static_cast<std::size_t>(offsets.shape(0));
  e.bit_lengths = column<std::uint32_t>(lengths, "bit_lengths", e.n_blocks);
  e.tags = column<std::uint32_t>(tags, "tags", e.n_blocks);
  e.block_bytes = block_bytes;
  if (!entry_state.is_none()) {
    if (!py::isinstance<py::array>(entry_state))
      throw py::type_error("entry_state must be a uint8 NumPy array or None");
    static const std::uint8_t none = 0;
    const auto st = py::reinterpret_borrow<py::array>(entry_state);
    const std::uint8_t* p = column<std::uint8_t>(st, "entry_state");
    e.entry_state_bytes = static_cast<std::size_t>(st.shape(0));
    e.entry_state = p ? p : &none;
  } else if (c.stateful()) {
    throw invalid_argument(c.preset() + " is stateful: decoding needs the entry state its encode recorded");
  }
  c.check_block_bytes(block_bytes);
  auto out = output_array<std::uint8_t>({static_cast<py::ssize_t>(e.n_blocks), static_cast<py::ssize_t>(block_bytes)});
  std::uint8_t* dst = out.mutable_data();
  {
    py::gil_scoped_release nogil;
    c.decode_batch(e, dst, t);
  }
  return out;
}

py::dict preset_dict(const Preset& p) {
  py::dict d;
  d["name"] = p.name;
  d["family"] = p.family;
  d["description"] = p.description;
  d["policy"] = p.policy;
  d["is_default"] = p.is_default;
  d["exact"] = make_codec(p.name)->exact();
  d["options"] = from_options(p.options);
  return d;
}

}  // namespace

void register_codecs(py::module_& m) {
  // Both types first, so each one's signatures name the other.
  py::class_<Codec, std::shared_ptr<Codec>> codec(m, "Codec", "A block codec built from a preset (immutable).");
  py::class_<Session> session(m, "Session",
                              "A stream of batches through one codec: where a stateful codec's state stands between "
                              "batches (fresh: the initial state).");
  codec.def_property_readonly("family", &Codec::family)
      .def_property_readonly("preset", &Codec::preset)
      .def_property_readonly("policy", &Codec::policy)
      .def_property_readonly("exact", &Codec::exact)
      .def_property_readonly("stateful", &Codec::stateful)
      .def_property_readonly("lossy", &Codec::lossy)
      .def_property_readonly("needs_model", &Codec::needs_model)
      .def_property_readonly("has_model", &Codec::has_model)
      .def(
          "fit",
          [](const Codec& c, const py::array& blocks, const py::object& threads) {
            const BlockView v = block_view(blocks);
            const int t = thread_count(threads);
            py::gil_scoped_release nogil;
            return c.fit(v, t);
          },
          py::arg("blocks").noconvert(), py::arg("threads") = py::none(),
          "Fits a model on the blocks; returns it as JSON text (the 'model' option).")
      .def(
          "fitted",
          [](const Codec& c, const py::array& blocks, const py::object& threads) {
            const BlockView v = block_view(blocks);
            const int t = thread_count(threads);
            py::gil_scoped_release nogil;
            return std::shared_ptr<Codec>(c.fitted(v, t));
          },
          py::arg("blocks").noconvert(), py::arg("threads") = py::none(),
          "A copy of the codec fitted on the blocks (hybrids fit their data-driven members).")
      .def_property_readonly(
          "count_plan",
          [](const Codec& c) -> py::object {
            const CountPlan p = c.capabilities().counts;
            if (p.symbol_bits == 0) return py::none();
            return py::dict(py::arg("symbol_bits") = p.symbol_bits, py::arg("per_position") = p.per_position,
                            py::arg("endian") = p.endian == Endian::big ? "big" : "little", py::arg("top") = p.top);
          },
          "The symbol counts fit_counts fits the model from (symbol_bits, per_position, endian, top: SL 32's "
          "most frequent values), or None where the fit needs the blocks.")
      .def(
          "fit_counts",
          [](const Codec& c, unsigned symbol_bits, const py::object& dense, const py::object& values,
             const py::object& counts, std::uint64_t uncounted) {
            SymbolCounts sc;
            sc.symbol_bits = symbol_bits;
            sc.uncounted = uncounted;
            if (!dense.is_none()) {
              const auto a = dense.cast<py::array>();
              if (a.ndim() != 2) throw py::value_error("dense counts must be a (positions, 2^SL) array");
              sc.positions = static_cast<std::size_t>(a.shape(0));
              const std::size_t n = sc.positions * static_cast<std::size_t>(a.shape(1));
              const std::uint64_t* p = column<std::uint64_t>(a.attr("reshape")(-1).cast<py::array>(), "dense", n);
              sc.dense.assign(p, p + n);
            }
            if (!values.is_none()) {
              const auto v = values.cast<py::array>();
              const auto n = static_cast<std::size_t>(v.shape(0));
              const std::uint64_t* pv = column<std::uint64_t>(v, "values", n);
              const std::uint64_t* pc = column<std::uint64_t>(counts.cast<py::array>(), "counts", n);
              for (std::size_t i = 0; i < n; ++i) sc.values.emplace_back(pv[i], pc[i]);
            }
            py::gil_scoped_release nogil;
            return c.fit_counts(sc);
          },
          py::arg("symbol_bits"), py::arg("dense") = py::none(), py::arg("values") = py::none(),
          py::arg("counts") = py::none(), py::arg("uncounted") = 0,
          "The model fitted from symbol counts (dense: SL <= 16, one row per position; values/counts: SL 32, "
          "with `uncounted` symbols not listed), as JSON text.")
      .def("options", [](const Codec& c) { return from_options(c.options()); })
      .def("modes",
           [](const Codec& c) {
             py::dict d;
             for (const auto& mn : c.modes()) d[py::int_(mn.mode)] = mn.name;
             return d;
           })
      .def("check_block_bytes", &Codec::check_block_bytes, py::arg("block_bytes"))
      .def("max_compressed_bits", &Codec::max_compressed_bits, py::arg("block_bytes"))
      .def("measure", &measure, py::arg("blocks").noconvert(), py::arg("threads") = py::none(),
           py::arg("session") = nullptr, py::arg("approximable") = py::none())
      .def("encode", &encode, py::arg("blocks").noconvert(), py::arg("threads") = py::none(),
           py::arg("session") = nullptr, py::arg("approximable") = py::none())
      .def("decode", &decode, py::arg("data").noconvert(), py::arg("bit_offsets").noconvert(),
           py::arg("bit_lengths").noconvert(), py::arg("tags").noconvert(), py::arg("block_bytes"),
           py::arg("entry_state") = py::none(), py::arg("threads") = py::none());

  session.def(py::init<const Codec&>(), py::arg("codec"), py::keep_alive<1, 2>())
      .def_property_readonly(
          "state",
          [](const Session& s) -> py::object {
            std::vector<std::uint8_t> st = s.save();
            if (!s.codec().stateful()) return py::none();
            return to_numpy(std::move(st));
          },
          "The state as bytes (a fresh session: the initial state; None for a stateless codec).")
      .def(
          "load",
          [](Session& s, const py::array& state) {
            const std::uint8_t* p = column<std::uint8_t>(state, "state");
            static const std::uint8_t none = 0;
            s.load(p ? p : &none, static_cast<std::size_t>(state.shape(0)));
          },
          py::arg("state").noconvert(), "Sets the state from bytes that .state returned.");

  m.def(
      "compare_totals",
      [](const std::vector<const Codec*>& codecs, const std::vector<Session*>& sessions, const py::array& blocks,
         const std::vector<std::size_t>& hist_lens, const std::vector<std::size_t>& oracle_members,
         std::size_t oracle_hist_len, const py::object& threads) {
        const BlockView v = block_view(blocks);
        const int t = thread_count(threads);
        CompareTotals c;
        {
          py::gil_scoped_release nogil;
          c = compare_totals(codecs, sessions, v, hist_lens, oracle_members, oracle_hist_len, t);
        }
        py::list per_codec;
        for (SizeTotals& s : c.codecs) per_codec.append(totals_tuple(std::move(s)));
        return py::make_tuple(per_codec,
                              py::make_tuple(to_numpy(std::move(c.oracle.hist)), to_numpy(std::move(c.oracle.wins))));
      },
      py::arg("codecs"), py::arg("sessions"), py::arg("blocks").noconvert(), py::arg("hist_lens"),
      py::arg("oracle_members"), py::arg("oracle_hist_len"), py::arg("threads") = py::none(),
      "Compare's one pass: every codec measures each cache-sized piece of blocks in turn, the sizes reduced to "
      "totals as they come: ([size_totals' (hist, modes, tag bits) per codec], (oracle hist, wins per member)). "
      "sessions: one per codec (None: none); oracle_members: indices of the codecs the per-block best takes.");
  m.def(
      "make_codec",
      [](const std::string& name, const py::dict& options) {
        return std::shared_ptr<Codec>(make_codec(name, to_options(options)));
      },
      py::arg("name"), py::arg("options") = py::dict());
  m.def(
      "option_space", [](const std::string& name) { return option_space_dict(option_space(name)); }, py::arg("name"),
      "Every option the preset's codec reads, with its kind, default, accepted values and help, from the codec's "
      "option table.");
  m.def("list_presets", [] {
    py::list l;
    for (const Preset& p : presets()) l.append(preset_dict(p));
    return l;
  });
}

}  // namespace memcomp::bindings
