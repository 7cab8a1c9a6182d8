// memcomp analysis: bus counts of block transfers (SPEC 2; P2 = toggle-aware compression,
// HPCA'16, §3 and §5.1: bit toggles on on-chip flits; §5.2: zeros and transitions on a DRAM bus;
// §5.3: with data-bus inversion, DBI).
//
// Every count is a sum: per-block counts add up to the totals, and totals of consecutive chunks
// add up to the totals of the whole (a WireState carries the wires from one chunk to the next).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memcomp/analysis/bus_config.hpp"
#include "memcomp/core/blocks.hpp"

namespace memcomp {

/// Counts of one transfer (T = std::uint32_t) or of many (T = std::uint64_t).
///   bits        stream length L (raw: 8B)
///   units       noc: flits ceil(L/W); dram: bursts ceil(L/(W*BL))
///   beats       units transmitted on the wires (noc: = units; dram: bursts * BL)
///   toggles     data-wire transitions (noc: the P2 toggle count; dram: incl. idle transitions)
///   t01, t10    the same split by direction (t01 + t10 = toggles)
///   zeros, ones data bits at 0 / 1 over all beats (padding included)
///   pin_*       dram DBI pins: levels and transitions; inversions = lane-beats inverted
///   energy      the EC metric: noc toggles; dram zeros + pin zeros (idle high: zeros_total),
///               or ones + pin ones with idle low (the level that draws termination current)
template <class T>
struct BusCountsT {
  T bits = 0, units = 0, beats = 0, toggles = 0, t01 = 0, t10 = 0, zeros = 0, ones = 0;
  T pin_zeros = 0, pin_ones = 0, pin_t01 = 0, pin_t10 = 0, inversions = 0, energy = 0;

  template <class U>
  BusCountsT& operator+=(const BusCountsT<U>& o) {
    bits += static_cast<T>(o.bits);
    units += static_cast<T>(o.units);
    beats += static_cast<T>(o.beats);
    toggles += static_cast<T>(o.toggles);
    t01 += static_cast<T>(o.t01);
    t10 += static_cast<T>(o.t10);
    zeros += static_cast<T>(o.zeros);
    ones += static_cast<T>(o.ones);
    pin_zeros += static_cast<T>(o.pin_zeros);
    pin_ones += static_cast<T>(o.pin_ones);
    pin_t01 += static_cast<T>(o.pin_t01);
    pin_t10 += static_cast<T>(o.pin_t10);
    inversions += static_cast<T>(o.inversions);
    energy += static_cast<T>(o.energy);
    return *this;
  }
};
using BusCounts = BusCountsT<std::uint32_t>;
using BusTotals = BusCountsT<std::uint64_t>;

// The X-macro list stays bin-packed.
// clang-format off
#define MEMCOMP_BUS_FIELDS(X) \
  X(bits) X(units) X(beats) X(toggles) X(t01) X(t10) X(zeros) X(ones) X(pin_zeros) X(pin_ones) X(pin_t01) \
  X(pin_t10) X(inversions) X(energy)
// clang-format on

/// Per-block output columns, one array of n entries per field (null: not wanted).
struct BusColumns {
#define MEMCOMP_BUS_COLUMN(f) std::uint32_t* f = nullptr;
  MEMCOMP_BUS_FIELDS(MEMCOMP_BUS_COLUMN)
#undef MEMCOMP_BUS_COLUMN
  void set(std::size_t i, const BusCounts& r) const {
#define MEMCOMP_BUS_SET(f) \
  if (f) this->f[i] = r.f;
    MEMCOMP_BUS_FIELDS(MEMCOMP_BUS_SET)
#undef MEMCOMP_BUS_SET
  }
};

/// Compressed streams of n blocks: block i is bits [bit_offsets[i], bit_offsets[i] +
/// bit_lengths[i]) of data (MSB-first); every offset must be a multiple of 8 (encode_batch's).
struct StreamsView {
  const std::uint8_t* data = nullptr;
  std::size_t data_bytes = 0;
  const std::uint64_t* bit_offsets = nullptr;
  const std::uint32_t* bit_lengths = nullptr;
  std::size_t n_blocks = 0;
};
/// Throws invalid_argument for an unaligned offset or a stream outside the buffer.
void check_streams(const StreamsView& s);

/// Drives transfers over one bus (not thread-safe: it owns scratch buffers).
class Bus {
 public:
  explicit Bus(const BusConfig& c);
  const BusConfig& config() const noexcept { return c_; }

  /// Sends nbits stream bits starting at p (a byte boundary) from state s, which it advances.
  /// nbits = 0 sends nothing. In isolated mode the caller resets s (see transfer()).
  BusCounts send(WireState& s, const std::uint8_t* p, std::uint64_t nbits);
  /// dram: the transitions of returning to idle (wires and pins); noc: nothing.
  BusCounts close(WireState& s) const;
  /// One block transfer under the mode: isolated = from the initial state and (dram) back to
  /// idle; stream = from s, and back to idle only if `close_after`.
  BusCounts transfer(WireState& s, const std::uint8_t* p, std::uint64_t nbits, bool close_after);

  /// When set, send() keeps the beats as driven (after padding and DBI) and the DBI pin levels
  /// (one byte 0/1 per lane and beat) of its last transfer, for inspection.
  bool keep_driven = false;
  const std::vector<std::uint8_t>& driven() const noexcept { return buf_; }
  const std::vector<std::uint8_t>& pin_levels() const noexcept { return pins_; }

  /// Sets toggles from t01 + t10 and the EC metric (energy) from the other counts.
  void finish(BusCounts& r) const;

 private:
  /// DBI (P2 §5.3; SPEC 2) over the first `beats` beats of buf_: inverts lanes in place, sets
  /// their pin levels in pins_, returns the lane-beats inverted (bus_dbi.cpp).
  std::uint32_t apply_dbi(const WireState& s, std::size_t beats);
  BusConfig c_;
  std::vector<std::uint8_t> buf_, pins_;
};

/// Per-block counts (out may be null) and totals of raw blocks sent in array order. Stream mode
/// starts from s and leaves the state there; `close` (dram) returns the bus to idle after the
/// last block and counts it in that block.
BusTotals bus_count_raw(const BusConfig& c, const BlockView& blocks, WireState& s, const BusColumns* out, bool close);
/// The same for compressed streams.
BusTotals bus_count_streams(const BusConfig& c, const StreamsView& streams, WireState& s, const BusColumns* out,
                            bool close);

}  // namespace memcomp
