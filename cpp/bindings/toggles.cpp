// memcomp bindings: bus energy (toggles, DRAM zeros and DBI) and Energy Control (SPEC 2).
#include "memcomp/analysis/toggles.hpp"
#include "memcomp/codecs/codec.hpp"
#include "memcomp/pipelines/encode_energy_control.hpp"

#include <limits>

#include "common.hpp"

namespace memcomp::bindings {

namespace {

BusConfig config_of(const py::dict& bus) { return bus_config(to_options(bus)); }

WireState state_of(const BusConfig& c, const py::object& state) {
  if (state.is_none()) return initial_state(c);
  if (!py::isinstance<WireState>(state))
    throw py::type_error("state must be None or a WireState returned by an earlier call");
  WireState s = state.cast<WireState>();
  if (s.bus != c)
    throw py::value_error("state belongs to another bus configuration (an option such as channel, width, idle "
                          "level, DBI, burst length, pad or mode differs); continue a state only with the options of "
                          "the call that returned it");
  return s;
}

/// The state a call hands back, marked with the bus that made it.
WireState state_out(WireState s, const BusConfig& c) {
  s.bus = c;
  return s;
}

/// Fresh per-block columns for n blocks, and the BusColumns that points into them.
struct OutColumns {
  py::dict arrays;
  BusColumns cols;
  explicit OutColumns(std::size_t n) {
#define X(f)                                                   \
  {                                                            \
    py::array_t<std::uint32_t> a(static_cast<py::ssize_t>(n)); \
    cols.f = a.mutable_data();                                 \
    arrays[#f] = a;                                            \
  }
    MEMCOMP_BUS_FIELDS(X)
#undef X
  }
};

py::dict totals(const BusTotals& t) {
  py::dict d;
#define X(f) d[#f] = t.f;
  MEMCOMP_BUS_FIELDS(X)
#undef X
  return d;
}

py::dict counts(const BusCounts& t) {
  py::dict d;
#define X(f) d[#f] = t.f;
  MEMCOMP_BUS_FIELDS(X)
#undef X
  return d;
}

StreamsView streams_of(const py::array& data, const py::array& offsets, const py::array& lengths) {
  StreamsView s;
  s.data = column<std::uint8_t>(data, "data");
  s.data_bytes = static_cast<std::size_t>(data.shape(0));
  s.bit_offsets = column<std::uint64_t>(offsets, "bit_offsets");
  s.n_blocks = static_cast<std::size_t>(offsets.shape(0));
  s.bit_lengths = column<std::uint32_t>(lengths, "bit_lengths", s.n_blocks);
  return s;
}

py::tuple count_raw(const py::array& blocks, const py::dict& bus, const py::object& state, bool close, bool per_block) {
  const BlockView v = block_view(blocks);
  const BusConfig c = config_of(bus);
  WireState s = state_of(c, state);
  OutColumns out(per_block ? v.n_blocks : 0);
  BusTotals t;
  {
    py::gil_scoped_release nogil;
    t = bus_count_raw(c, v, s, per_block ? &out.cols : nullptr, close);
  }
  return py::make_tuple(out.arrays, totals(t), state_out(s, c));
}

py::tuple count_streams(const py::array& data, const py::array& offsets, const py::array& lengths, const py::dict& bus,
                        const py::object& state, bool close, bool per_block) {
  const StreamsView sv = streams_of(data, offsets, lengths);
  const BusConfig c = config_of(bus);
  WireState s = state_of(c, state);
  OutColumns out(per_block ? sv.n_blocks : 0);
  BusTotals t;
  {
    py::gil_scoped_release nogil;
    t = bus_count_streams(c, sv, s, per_block ? &out.cols : nullptr, close);
  }
  return py::make_tuple(out.arrays, totals(t), state_out(s, c));
}

/// Energy Control's arguments and results around run(c, ec, bu, bu_count, s, out), which returns
/// the totals (called without the GIL).
template <class Run>
py::tuple ec_call(const BlockView& v, const py::dict& bus, const std::string& kind, double alpha, const py::object& bu,
                  const py::object& state, bool per_block, const std::string& ratio, Run&& run) {
  const BusConfig c = config_of(bus);
  WireState s = state_of(c, state);
  const EcConfig ec = ec_config({{"kind", kind}, {"alpha", alpha}, {"ratio", ratio}});
  double scalar = 0;
  const double* bup = &scalar;
  std::size_t bun = 1;
  if (py::isinstance<py::array>(bu)) {
    const auto a = bu.cast<py::array>();
    bup = column<double>(a, "bu", v.n_blocks);
    bun = v.n_blocks;
  } else if (py::isinstance<py::float_>(bu) || py::isinstance<py::int_>(bu)) {
    if (py::isinstance<py::bool_>(bu)) throw py::type_error("bu must be a number or a float64 array");
    scalar = bu.cast<double>();
  } else {
    throw py::type_error("bu must be a number or a float64 array with one entry per block");
  }
  const auto n = static_cast<py::ssize_t>(v.n_blocks);
  py::array_t<bool> flag(n);  // the decisions always; per-block counts only if asked
  EcColumns out;
  static_assert(sizeof(bool) == 1, "bool flags are written as bytes");
  out.compressed = reinterpret_cast<std::uint8_t*>(flag.mutable_data());
  py::dict cols, sent_arrays;
  cols["compressed"] = flag;
  if (per_block) {
    py::array_t<double> cr(n);
    py::array_t<std::uint32_t> t0(n), t1(n), units0(n), units1(n), bits1(n);
    OutColumns sent(static_cast<std::size_t>(n));
    out.cr = cr.mutable_data();
    out.t0 = t0.mutable_data();
    out.t1 = t1.mutable_data();
    out.units_raw = units0.mutable_data();
    out.units_comp = units1.mutable_data();
    out.bits_comp = bits1.mutable_data();
    out.sent = sent.cols;
    cols["cr"] = cr;
    cols["t0"] = t0;
    cols["t1"] = t1;
    cols["units_raw"] = units0;
    cols["units_comp"] = units1;
    cols["bits_comp"] = bits1;
    sent_arrays = sent.arrays;
  }
  EcTotals t;
  {
    py::gil_scoped_release nogil;
    t = run(c, ec, bup, bun, s, out);
  }
  py::dict tot;
  tot["blocks"] = t.blocks;
  tot["compressed"] = t.compressed;
  tot["raw_bits"] = t.raw_bits;
  tot["sent_bits"] = t.sent_bits;
  tot["raw_units"] = t.raw_units;
  tot["sent_units"] = t.sent_units;
  tot["sent"] = totals(t.sent);
  return py::make_tuple(cols, sent_arrays, tot, state_out(s, c));
}

py::tuple run_ec(const py::array& blocks, const py::array& data, const py::array& offsets, const py::array& lengths,
                 const py::dict& bus, const std::string& kind, double alpha, const py::object& bu,
                 const py::object& state, bool close, bool per_block, const std::string& ratio) {
  const BlockView v = block_view(blocks);
  const StreamsView sv = streams_of(data, offsets, lengths);
  return ec_call(v, bus, kind, alpha, bu, state, per_block, ratio,
                 [&](const BusConfig& c, const EcConfig& ec, const double* bup, std::size_t bun, WireState& s,
                     const EcColumns& out) { return energy_control(c, ec, v, sv, bup, bun, s, &out, close); });
}

py::tuple run_encode_ec(const Codec& codec, const py::array& blocks, const py::dict& bus, const std::string& kind,
                        double alpha, const py::object& bu, const py::object& state, bool close, bool per_block,
                        const std::string& ratio, const py::object& threads, Session* session,
                        std::size_t chunk_blocks) {
  const BlockView v = block_view(blocks);
  const int t = thread_count(threads);
  return ec_call(v, bus, kind, alpha, bu, state, per_block, ratio,
                 [&](const BusConfig& c, const EcConfig& ec, const double* bup, std::size_t bun, WireState& s,
                     const EcColumns& out) {
                   return encode_energy_control(codec, c, ec, v, bup, bun, s, &out, close, t, session, chunk_blocks);
                 });
}

py::tuple drive(const py::array& stream, std::uint64_t nbits, const py::dict& bus, const py::object& state) {
  const std::uint8_t* p = column<std::uint8_t>(stream, "stream");
  const auto bytes = static_cast<std::uint64_t>(stream.shape(0));
  if (nbits / 8 + (nbits % 8 != 0) > bytes)  // no (nbits + 7) / 8: it wraps for nbits near 2^64
    throw py::value_error("nbits (" + std::to_string(nbits) + ") exceeds the " + std::to_string(8 * bytes) +
                          " bits of the stream");
  if (nbits > 0xFFFFFFFFu) throw py::value_error("one transfer carries fewer than 2^32 bits");
  const BusConfig c = config_of(bus);
  WireState s = state_of(c, state);
  Bus b(c);
  b.keep_driven = true;
  const BusCounts r = b.transfer(s, p, nbits, false);
  std::vector<std::uint8_t> d = b.driven(), pins = b.pin_levels();
  return py::make_tuple(to_numpy(std::move(d)), to_numpy(std::move(pins)), counts(r), state_out(s, c));
}

}  // namespace

void register_toggles(py::module_& m) {
  py::class_<WireState>(m, "WireState", "Wire levels carried from one chunk of transfers to the next.")
      .def("copy", [](const WireState& s) { return s; })
      .def_property_readonly("idle", [](const WireState& s) { return s.idle; })
      .def(
          "__eq__",
          [](const WireState& a, const py::object& o) {
            if (!py::isinstance<WireState>(o)) return false;
            const WireState& b = o.cast<const WireState&>();
            return a.wires == b.wires && a.pins == b.pins && a.idle == b.idle && a.bus == b.bus;
          },
          py::arg("other"))
      .def(py::pickle(  // (wires and pins as bytes, idle, bus options): states travel to Dask workers
          [](const WireState& s) {
            return py::make_tuple(py::bytes(reinterpret_cast<const char*>(s.wires.data()), s.wires.size()),
                                  py::bytes(reinterpret_cast<const char*>(s.pins.data()), s.pins.size()), s.idle,
                                  from_options(bus_options(s.bus)));
          },
          [](const py::tuple& t) {
            if (t.size() != 4) throw py::value_error("malformed WireState pickle: expected 4 fields");
            const std::string wires = t[0].cast<std::string>(), pins = t[1].cast<std::string>();
            WireState s;
            if (wires.size() != s.wires.size() || pins.size() != s.pins.size())
              throw py::value_error("malformed WireState pickle: wrong field sizes");
            std::copy(wires.begin(), wires.end(), s.wires.begin());
            std::copy(pins.begin(), pins.end(), s.pins.begin());
            s.idle = t[2].cast<bool>();
            if (!py::isinstance<py::dict>(t[3]))
              throw py::value_error("malformed WireState pickle: the bus options must be a dict");
            s.bus = config_of(t[3].cast<py::dict>());
            return s;
          }));
  m.def(
      "bus_options", [](const py::dict& bus) { return from_options(bus_options(config_of(bus))); }, py::arg("bus"),
      "Every bus option with its effective value (validates them).");
  m.def(
      "bus_option_space", [] { return option_space_dict(bus_table().space()); },
      "Every bus option with its kind, default, accepted values and help, from the bus's option table.");
  m.def("bus_count_raw", &count_raw, py::arg("blocks").noconvert(), py::arg("bus"), py::arg("state") = py::none(),
        py::arg("close") = true, py::arg("per_block") = true,
        "Counts raw blocks: (per-block columns, totals, state); per_block=False leaves the columns empty.");
  m.def("bus_count_streams", &count_streams, py::arg("data").noconvert(), py::arg("bit_offsets").noconvert(),
        py::arg("bit_lengths").noconvert(), py::arg("bus"), py::arg("state") = py::none(), py::arg("close") = true,
        py::arg("per_block") = true, "Counts compressed streams: (per-block columns, totals, state).");
  m.def("energy_control", &run_ec, py::arg("blocks").noconvert(), py::arg("data").noconvert(),
        py::arg("bit_offsets").noconvert(), py::arg("bit_lengths").noconvert(), py::arg("bus"), py::arg("kind") = "ec2",
        py::arg("alpha") = 1.0, py::arg("bu") = 0.0, py::arg("state") = py::none(), py::arg("close") = true,
        py::arg("per_block") = true, py::arg("ratio") = "units",
        "Energy Control: (per-block columns, counts of the forms sent, totals, state); per_block=False keeps "
        "only the decisions (column 'compressed').");
  m.def("encode_energy_control", &run_encode_ec, py::arg("codec"), py::arg("blocks").noconvert(), py::arg("bus"),
        py::arg("kind") = "ec2", py::arg("alpha") = 1.0, py::arg("bu") = 0.0, py::arg("state") = py::none(),
        py::arg("close") = true, py::arg("per_block") = true, py::arg("ratio") = "units",
        py::arg("threads") = py::none(), py::arg("session") = nullptr, py::arg("chunk_blocks") = 0,
        "energy_control over codec.encode(blocks) in one pass, chunk_blocks at a time (0: 256 KiB of blocks; "
        "no stream kept): the same results.");
  m.def("bus_drive", &drive, py::arg("stream").noconvert(), py::arg("nbits"), py::arg("bus"),
        py::arg("state") = py::none(),
        "One transfer: (beats as driven, DBI pin levels per lane and beat, counts, state).");
  m.def(
      "ec_option_space", [] { return option_space_dict(ec_table().space()); },
      "Every Energy Control option (kind, alpha, ratio) with its kind, default, accepted values and help, from "
      "Energy Control's option table.");
  m.def(
      "ec_k",
      [](const std::string& kind) {
        return ec_config({{"kind", kind}}).k;
      },
      py::arg("kind"), "The power of CR in the decision of an Energy Control kind (ec1: 1, ec2: 2, helps: 0).");
  m.def("ec_gain", &ec_gain, py::arg("bu"));
  m.def("ec_decide", &ec_decide, py::arg("t0"), py::arg("t1"), py::arg("cr"), py::arg("g") = 1.0, py::arg("k") = 2,
        py::arg("alpha") = 1.0);
}

}  // namespace memcomp::bindings
