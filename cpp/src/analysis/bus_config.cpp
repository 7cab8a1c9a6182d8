// memcomp analysis: bus options and wire states (SPEC 2; P2 = toggle-aware compression, HPCA'16,
// §5.1 on-chip flits, §5.2 DRAM bus, §5.3 DBI).
#include "memcomp/analysis/bus_config.hpp"

#include <string>

#include "memcomp/core/error.hpp"

namespace memcomp {

void BusConfig::validate() const {
  if (channel == Channel::noc) {
    if (width_bits % 8 || width_bits < 8 || width_bits > 512)
      throw invalid_argument("noc flit width must be 1..64 bytes, got " + std::to_string(width_bits) + " bits");
    if (dbi != Dbi::none) throw invalid_argument("dbi applies to the dram channel only");
  } else {
    if (width_bits != 8 && width_bits != 16 && width_bits != 32 && width_bits != 64)
      throw invalid_argument("dram bus width must be 8, 16, 32 or 64 bits, got " + std::to_string(width_bits));
    if (burst_length < 1 || burst_length > 32)
      throw invalid_argument("burst_length must be 1..32, got " + std::to_string(burst_length));
  }
  if (ac_threshold > 8) throw invalid_argument("ac_threshold must be 0..8");
}

BusConfig bus_config(const Options& o) {
  OptionReader r(o, "toggles");
  BusConfig c;
  c.channel = r.get_choice("channel", "noc", {"noc", "dram"}) == "dram" ? Channel::dram : Channel::noc;
  const auto flit = r.get_int("flit_bytes", 32, 1, 64);
  const auto bus = r.get_int("bus_bits", 32, 8, 64);
  c.width_bits = c.channel == Channel::noc ? static_cast<unsigned>(8 * flit) : static_cast<unsigned>(bus);
  c.burst_length = static_cast<unsigned>(r.get_int("burst_length", 8, 1, 32));
  const std::string pad = r.get_choice("pad", "zero", {"zero", "one", "hold"});
  c.pad = pad == "zero" ? Pad::zero : pad == "one" ? Pad::one : Pad::hold;
  c.isolated = r.get_choice("mode", "stream", {"stream", "isolated"}) == "isolated";
  c.init_ones = r.get_int("init", 0, 0, 1) == 1;
  c.idle_high = r.get_choice("idle", "high", {"high", "low"}) == "high";
  const std::string dbi = r.get_choice("dbi", "none", {"none", "dc", "ac"});
  c.dbi = dbi == "dc" ? Dbi::dc : dbi == "ac" ? Dbi::ac : Dbi::none;
  c.ac_threshold = static_cast<unsigned>(r.get_int("ac_threshold", 4, 0, 8));
  c.ac_first_no_invert = r.get_choice("ac_first", "threshold", {"threshold", "no_invert"}) == "no_invert";
  c.ac_count_pin = r.get_bool("ac_count_pin", false);
  r.finish();
  c.validate();
  return c;
}

Options bus_options(const BusConfig& c) {
  const bool noc = c.channel == Channel::noc;
  return {{"channel", std::string(noc ? "noc" : "dram")},
          {"flit_bytes", std::int64_t{noc ? c.width_bits / 8 : 32}},
          {"bus_bits", std::int64_t{noc ? 32 : c.width_bits}},
          {"burst_length", std::int64_t{c.burst_length}},
          {"pad", std::string(c.pad == Pad::zero  ? "zero"
                              : c.pad == Pad::one ? "one"
                                                  : "hold")},
          {"mode", std::string(c.isolated ? "isolated" : "stream")},
          {"init", std::int64_t{c.init_ones ? 1 : 0}},
          {"idle", std::string(c.idle_high ? "high" : "low")},
          {"dbi", std::string(c.dbi == Dbi::none ? "none"
                              : c.dbi == Dbi::dc ? "dc"
                                                 : "ac")},
          {"ac_threshold", std::int64_t{c.ac_threshold}},
          {"ac_first", std::string(c.ac_first_no_invert ? "no_invert" : "threshold")},
          {"ac_count_pin", c.ac_count_pin}};
}

std::uint32_t bus_fingerprint(const BusConfig& c) noexcept {
  return static_cast<std::uint32_t>(c.channel) | c.width_bits << 2 | std::uint32_t{c.idle_high} << 12 |
         std::uint32_t{c.init_ones} << 13 | static_cast<std::uint32_t>(c.dbi) << 14 | 1u << 16;
}

WireState initial_state(const BusConfig& c) {
  WireState s;
  s.bus = bus_fingerprint(c);
  const bool dram = c.channel == Channel::dram;
  const std::uint8_t level = dram ? (c.idle_high ? 0xFF : 0x00) : (c.init_ones ? 0xFF : 0x00);
  s.wires.fill(level);
  s.pins.fill(c.idle_high ? 1 : 0);  // deasserted = idle level
  s.idle = true;
  return s;
}

}  // namespace memcomp
