// memcomp analysis: bus energy of block transfers (SPEC 2; P2 = toggle-aware compression,
// HPCA'16): bit toggles on on-chip flits, zeros and transitions on a DRAM bus with optional
// data-bus inversion (DBI), and Energy Control (EC), the per-block compressed-or-raw decision.
//
// A transfer is a bit stream: a compressed block's in-band stream, or the raw block bytes. Stream
// bit t travels on wire t mod W of unit floor(t/W) (a unit is a flit on chip, a beat on DRAM);
// the last unit is padded with `pad`. Units are held as W/8 bytes in stream byte order, so byte
// j of a unit carries wires 8j..8j+7 (lane j on DRAM, one DBI pin per lane).
//
// Every count is a sum: per-block counts add up to the totals, and totals of consecutive chunks
// add up to the totals of the whole (a WireState carries the wires from one chunk to the next).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memcomp/core/blocks.hpp"
#include "memcomp/core/options.hpp"

namespace memcomp {

class Codec;

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
  /// Throws invalid_argument for an unsupported combination.
  void validate() const;
};

/// Options "channel" (noc|dram), "flit_bytes" (noc; 1..64, default 32), "bus_bits" (dram; 8, 16,
/// 32 or 64, default 32), "burst_length" (dram; 1..32, default 8), "pad" (zero|one|hold), "mode"
/// (stream|isolated), "init" (0|1: noc wire level at start), "idle" (high|low), "dbi"
/// (none|dc|ac), "ac_threshold" (0..8, default 4), "ac_first" (threshold|no_invert),
/// "ac_count_pin" (bool). Unknown keys and bad values throw invalid_argument.
BusConfig bus_config(const Options& o);
Options bus_options(const BusConfig& c);

/// Wire levels between transfers. dram: `idle` means no beat since the bus went idle.
struct WireState {
  std::array<std::uint8_t, 64> wires{};  ///< last driven unit (unit_bytes() bytes used)
  std::array<std::uint8_t, 8> pins{};    ///< dram DBI: last level (0/1) of each lane's pin
  bool idle = true;
  std::uint32_t bus = 0;  ///< bus_fingerprint of the configuration the state belongs to
};

/// What a wire state depends on (channel, width, start/idle level, DBI): states carry it so a
/// state from one bus is not continued on another.
std::uint32_t bus_fingerprint(const BusConfig& c) noexcept;

/// The state before any transfer: noc wires at `init`; dram wires and pins at the idle level.
WireState initial_state(const BusConfig& c);

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

// ---- Energy Control (P2 §4.2; SPEC 2) ---------------------------------------------------------

/// The compression ratio EC weighs (P2 §4.2): `units`, the effective bandwidth increase (raw
/// transfer units / compressed units, at most 4 for 128 B in 32 B flits or bursts; P2 §6 "compression
/// ratio, defined as the effective bandwidth increase"), or `bits` (8B / compressed bits), which
/// lets EC1 and EC2 differ where whole bursts leave CR at a few values.
enum class EcRatio : std::uint8_t { units, bits };

/// Which implementation runs EC (every one gives the same result, bit for bit).
///   best       the sequential scan (one pass over the blocks in order, the state a pointer to the
///              unit last sent; runs of blocks that are sent raw whatever the state counted as one
///              stream), with SIMD kernels where the CPU has them; with SIMD switched off
///              (set_simd(false), MEMCOMP_SIMD=0) the reference, as every fast path's switch does
///   portable   the sequential scan with portable kernels only
///   reference  the per-block reference: both forms of every block prepared, decided under both
///              candidate states, then a scan picks the decision that held
/// The scan covers buses without DBI (and streams shorter than 2^31 bits); elsewhere every choice
/// runs the reference.
enum class EcPath : std::uint8_t { best, portable, reference };

struct EcConfig {
  unsigned k = 2;      ///< 1: ec1 (energy x delay); 2: ec2 (energy x delay^2); 0: no energy term (CR > 1)
  double alpha = 1.0;  ///< weight of T1
  EcRatio ratio = EcRatio::units;
  EcPath path = EcPath::best;
};

/// g = 1 / (1 - BU) for BU > 0.5 (BU clamped to <= 0.99), else 1. Throws for BU outside [0, 1].
double ec_gain(double bu);
/// Send compressed iff CR > 1 and (T1 == 0 or (g*CR)^k * T0 > alpha * T1); k = 0: iff CR > 1 (P2's
/// baseline, "compress only where it helps": no energy term).
bool ec_decide(double t0, double t1, double cr, double g, unsigned k, double alpha);

struct EcBlock {
  std::uint8_t compressed = 0;  ///< the EC flag (one side-band tag bit)
  double cr = 0;                ///< the EcRatio of the block (inf for an empty compressed form)
  BusCounts raw, comp;          ///< both forms from the same wire state (T0 = raw.energy)
};

struct EcTotals {
  std::uint64_t blocks = 0, compressed = 0;
  std::uint64_t raw_bits = 0, sent_bits = 0;    ///< in-band bits, 8B per raw block
  std::uint64_t raw_units = 0, sent_units = 0;  ///< flits or bursts
  BusTotals sent;                               ///< counts of the forms actually sent
};

/// Per-block EC output columns (null: not wanted); `sent` gets the counts of the form sent.
struct EcColumns {
  std::uint8_t* compressed = nullptr;
  double* cr = nullptr;
  std::uint32_t* t0 = nullptr;
  std::uint32_t* t1 = nullptr;
  std::uint32_t* units_raw = nullptr;
  std::uint32_t* units_comp = nullptr;
  std::uint32_t* bits_comp = nullptr;
  BusColumns sent;
};

/// Energy Control over blocks and their compressed streams (same count, same order). bu has 1
/// entry (a scalar) or one per block. The wire state advances with the form sent.
EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, EcBlock* out, bool close);
EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close);

/// Encode and Energy Control in one pass: blocks are encoded with `codec` chunk_blocks at a time
/// (0: 256 KiB of blocks, which stay in cache with their streams; encode_batch's threads; `resume`
/// continues a stateful codec's previous batch) and each chunk's streams go through
/// energy_control, then are dropped. Equals energy_control over codec.encode_batch(raw): the same
/// columns, totals and state, without the round trip of every stream through memory or the memory
/// to hold them.
EcTotals encode_energy_control(const Codec& codec, const BusConfig& c, const EcConfig& ec, const BlockView& raw,
                               const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close,
                               int threads, bool resume, std::size_t chunk_blocks = 0);

namespace detail {
/// The EC scan's kernel over a run of raw blocks sent back to back, for tests: adds to tog the
/// toggles between bytes u apart and to ones the ones of the bytes after the first u, over
/// d[0, len) (len >= u). isa: 0 portable, 1 AVX2, 2 AVX-512 VPOPCNTDQ; false (nothing added)
/// where the CPU or the build lacks it.
bool ec_run_kernel(unsigned isa, const std::uint8_t* d, std::size_t len, std::size_t u, std::uint64_t& tog,
                   std::uint64_t& ones);
}  // namespace detail

}  // namespace memcomp
