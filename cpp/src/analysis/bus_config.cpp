// memcomp analysis: bus options and wire states (SPEC 2; P2 = toggle-aware compression, HPCA'16,
// §5.1 on-chip flits, §5.2 DRAM bus, §5.3 DBI).
#include "memcomp/analysis/bus_config.hpp"

#include <cstdint>
#include <string>
#include <utility>

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

bool operator==(const BusConfig& a, const BusConfig& b) noexcept {
  return a.channel == b.channel && a.width_bits == b.width_bits && a.burst_length == b.burst_length && a.pad == b.pad &&
         a.isolated == b.isolated && a.init_ones == b.init_ones && a.idle_high == b.idle_high && a.dbi == b.dbi &&
         a.ac_threshold == b.ac_threshold && a.ac_first_no_invert == b.ac_first_no_invert &&
         a.ac_count_pin == b.ac_count_pin;
}

namespace {

/// The bus width from the option of its channel (parsed after "channel"): flit_bytes on chip,
/// bus_bits on DRAM; the other one is accepted, reads its default and changes nothing.
OptionEntry<BusConfig> width_option(const char* name, Channel channel, std::int64_t dflt, std::int64_t lo,
                                    std::int64_t hi, unsigned bits_per_unit, std::string help) {
  OptionEntry<BusConfig> e = option_int(name, &BusConfig::width_bits, dflt, lo, hi, std::move(help));
  e.set = [channel, bits_per_unit](BusConfig& c, const OptionValue& v) {
    if (c.channel == channel) c.width_bits = static_cast<unsigned>(bits_per_unit * std::get<std::int64_t>(v));
  };
  e.get = [channel, bits_per_unit, dflt](const BusConfig& c) {
    return OptionValue{c.channel == channel ? std::int64_t{c.width_bits / bits_per_unit} : dflt};
  };
  return e;
}

}  // namespace

const OptionTable<BusConfig>& bus_table() {
  using C = BusConfig;
  static const OptionTable<C> t{
      option_choice("channel", &C::channel, "noc", {{"noc", Channel::noc}, {"dram", Channel::dram}},
                    "the bus: on-chip flits (noc) or a DRAM bus (dram)"),
      width_option("flit_bytes", Channel::noc, 32, 1, 64, 8, "on-chip flit width in bytes (noc): W = 8 flit_bytes"),
      width_option("bus_bits", Channel::dram, 32, 8, 64, 1, "DRAM bus width in bits (dram): 8, 16, 32 or 64"),
      option_int("burst_length", &C::burst_length, 8, 1, 32, "DRAM beats per burst (dram): one burst = one MAG"),
      option_choice("pad", &C::pad, "zero", {{"zero", Pad::zero}, {"one", Pad::one}, {"hold", Pad::hold}},
                    "fill of a transfer's last unit: zeros, ones, or the unit before held"),
      option_choice("mode", &C::isolated, "stream", {{"stream", false}, {"isolated", true}},
                    "stream: wire state carried across blocks; isolated: every block from init or idle"),
      option_int("init", &C::init_ones, 0, 0, 1, "on-chip wire level before the first flit (noc): 0 or 1"),
      option_choice("idle", &C::idle_high, "high", {{"high", true}, {"low", false}},
                    "DRAM idle (termination) level: high (DDR4, GDDR POD) or low (LPDDR4)"),
      option_choice("dbi", &C::dbi, "none", {{"none", Dbi::none}, {"dc", Dbi::dc}, {"ac", Dbi::ac}},
                    "data bus inversion (dram, P2 5.3): none, dc (limited weight) or ac (bus invert)"),
      option_int("ac_threshold", &C::ac_threshold, 4, 0, 8, "AC DBI inverts a beat iff its transitions > threshold"),
      option_choice("ac_first", &C::ac_first_no_invert, "threshold", {{"threshold", false}, {"no_invert", true}},
                    "AC DBI's beat after idle: compared with the idle pattern (threshold) or never inverted"),
      option_bool("ac_count_pin", &C::ac_count_pin, false, "AC DBI counts the DBI pin's own transition"),
  };
  return t;
}

BusConfig bus_config(const Options& o) {
  const BusConfig c = bus_table().parse(o, "toggles");
  c.validate();
  return c;
}

Options bus_options(const BusConfig& c) { return bus_table().write(c); }

WireState initial_state(const BusConfig& c) {
  WireState s;
  s.bus = c;
  const bool dram = c.channel == Channel::dram;
  const std::uint8_t level = dram ? (c.idle_high ? 0xFF : 0x00) : (c.init_ones ? 0xFF : 0x00);
  s.wires.fill(level);
  s.pins.fill(c.idle_high ? 1 : 0);  // deasserted = idle level
  s.idle = true;
  return s;
}

}  // namespace memcomp
