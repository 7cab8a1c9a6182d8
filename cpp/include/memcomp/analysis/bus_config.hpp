// memcomp analysis: the bus a block transfer travels on, and its wire state (SPEC 2; P2 =
// toggle-aware compression, HPCA'16: §5.1 on-chip flits, §5.2 DRAM bus, §5.3 DBI).
//
// A transfer is a bit stream: a compressed block's in-band stream, or the raw block bytes. Stream
// bit t travels on wire t mod W of unit floor(t/W) (a unit is a flit on chip, a beat on DRAM);
// the last unit is padded with `pad`. Units are held as W/8 bytes in stream byte order, so byte
// j of a unit carries wires 8j..8j+7 (lane j on DRAM, one DBI pin per lane).
#pragma once
#include <array>
#include <cstdint>

#include "memcomp/core/options.hpp"

namespace memcomp {

enum class Channel : std::uint8_t { noc, dram };
enum class Pad : std::uint8_t { zero, one, hold };
enum class Dbi : std::uint8_t { none, dc, ac };

struct BusConfig {
  Channel channel = Channel::noc;
  unsigned width_bits = 256;        ///< noc: flit width W (8 * flit bytes); dram: bus width W_bus
  unsigned burst_length = 8;        ///< dram: beats per burst (one burst = one MAG)
  Pad pad = Pad::zero;              ///< fill of the last unit (dram: of the last burst); hold repeats
                                    ///< the unit before (before DBI; the wire state if none)
  bool isolated = false;            ///< mode: "isolated" (state reset per block) or "stream"
  bool init_ones = false;           ///< noc: wire level before the first flit (0 or all ones)
  bool idle_high = true;            ///< dram: idle (termination) level; DBI pins are asserted at the other
  Dbi dbi = Dbi::none;              ///< dram only
  unsigned ac_threshold = 4;        ///< ac: invert iff transitions > threshold (lane / 2)
  bool ac_first_no_invert = false;  ///< ac: never invert a beat that follows idle (ours; DRAMPower
                                    ///< v6.2.0 compares it with the idle pattern: false)
  bool ac_count_pin = false;        ///< ac: invert iff data + pin transitions would be fewer

  unsigned unit_bytes() const noexcept { return width_bits / 8; }
  unsigned lanes() const noexcept { return width_bits / 8; }
  /// Throws invalid_argument for an unsupported combination (the check after the table's parse).
  void validate() const;
};

/// Every field equal: the same bus (a wire state continues only on the bus that made it).
bool operator==(const BusConfig& a, const BusConfig& b) noexcept;
inline bool operator!=(const BusConfig& a, const BusConfig& b) noexcept { return !(a == b); }

/// The bus options, declared once: "channel" (noc|dram), "flit_bytes" (noc; 1..64, default 32),
/// "bus_bits" (dram; 8, 16, 32 or 64, default 32), "burst_length" (dram; 1..32, default 8), "pad"
/// (zero|one|hold), "mode" (stream|isolated), "init" (0|1: noc wire level at start), "idle"
/// (high|low), "dbi" (none|dc|ac), "ac_threshold" (0..8, default 4), "ac_first"
/// (threshold|no_invert), "ac_count_pin" (bool).
const OptionTable<BusConfig>& bus_table();

/// bus_table()'s parse, then BusConfig::validate(): unknown keys and bad values throw
/// invalid_argument, wrong types type_error.
BusConfig bus_config(const Options& o);
/// bus_table()'s write: every option with its effective value (flit_bytes on DRAM and bus_bits
/// on chip, which the bus does not read, at their defaults).
Options bus_options(const BusConfig& c);

/// Wire levels between transfers. dram: `idle` means no beat since the bus went idle.
struct WireState {
  std::array<std::uint8_t, 64> wires{};  ///< last driven unit (unit_bytes() bytes used)
  std::array<std::uint8_t, 8> pins{};    ///< dram DBI: last level (0/1) of each lane's pin
  bool idle = true;
  BusConfig bus;  ///< the bus the state belongs to: a state is not continued on another
};

/// The state before any transfer: noc wires at `init`; dram wires and pins at the idle level.
WireState initial_state(const BusConfig& c);

}  // namespace memcomp
