// memcomp analysis: Energy Control's sequential scan (SPEC 2; P2 = toggle-aware compression,
// HPCA'16, §4.2 with the bus of §5.1-§5.2): EcPath::best and ::portable on buses without DBI. It
// equals the per-block reference (ec_reference.cpp) bit for bit; the tests compare them.
//
// Without DBI a form's counts are its own (units, ones, the toggles between its units) plus the
// toggles of its first unit against the wires before it, and the wires after it are its last
// unit. The scan walks the blocks in order with the state as a pointer to that unit (in the raw
// blocks, in the compressed data, in a built padding unit or in a constant fill unit), so a
// block costs the counts of its forms against one state and no bookkeeping. Where no per-block
// output is asked for it also skips what the totals do not need:
//  - CR > 1 is a comparison of the compressed length with one threshold (units: fewer units
//    than raw, bits: fewer bits), so a block at or above it is sent raw whatever the state, and
//    its compressed form is never read;
//  - a run of such blocks whose raw forms fill whole units (no padding) is, in stream mode, one
//    stream of bytes: its totals come from one kernel over the run (SIMD where the CPU has it),
//    and its t01 from the telescoping sum over its end points (t01 - t10 = ones(last) - ones(state)).
// An empty compressed form is always sent (T1 = 0, CR infinite) and leaves the wires alone.
#include <algorithm>
#include <cstring>
#include <vector>

#include "memcomp/analysis/bus.hpp"
#include "memcomp/analysis/bus_config.hpp"
#include "memcomp/analysis/detail/bus_kernels.hpp"
#include "memcomp/analysis/detail/ec_engines.hpp"
#include "memcomp/analysis/energy_control.hpp"

namespace memcomp::detail::ec {
namespace {

using bus::build_tail;
using bus::load64;
using bus::pop;
using bus::PopFast;
using bus::PopGeneric;
using bus::xor_pop;

/// Stream bits [0, m) of the 8 bytes of a little-endian word (MSB first in each byte), as a mask.
MEMCOMP_INLINE std::uint64_t stream_mask(std::int64_t m) {
  // Without branches (where a block's last bits fall varies from block to block): the top c bits
  // in big-endian byte order, c = m clamped to [0, 64].
  const auto c = static_cast<std::uint64_t>(std::clamp<std::int64_t>(m, 0, 64));
  const std::uint64_t be = (~std::uint64_t{0} << ((64 - c) & 63)) & (std::uint64_t{0} - (c != 0 ? 1u : 0u));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return be;
#else
  return __builtin_bswap64(be);
#endif
}

/// A form as the scan counts it: its own counts (tog: the toggles between its own units, not
/// those of its first unit against the state).
struct ScanForm {
  const std::uint8_t* first = nullptr;  ///< the first unit driven (null: an empty form)
  const std::uint8_t* last = nullptr;   ///< the last unit driven
  std::uint32_t bits = 0, units = 0, beats = 0, tog = 0, ones = 0, ones_last = 0;
};

template <class P, std::size_t U>
class EcScan {
 public:
  /// shortest: the shortest compressed stream (if above the threshold, every block goes raw).
  EcScan(const BusConfig& c, const EcConfig& ec, RunFn kernel, std::uint32_t shortest)
      : c_(c),
        ec_(ec),
        kernel_(kernel),
        shortest_(shortest),
        init_(initial_state(c)),
        dram_(c.channel == Channel::dram),
        u_raw_(c.unit_bytes()),
        lanes_(dram_ ? std::min<std::size_t>(c.lanes(), 8) : 0),
        w_(c.width_bits),
        wsh_(shift_of(c.width_bits)),
        bsh_(shift_of(c.burst_length)) {
    std::memset(fill_[0], 0x00, sizeof fill_[0]);
    std::memset(fill_[1], 0xFF, sizeof fill_[1]);
    init_ones_ = static_cast<std::uint32_t>(pop<P>(init_.wires.data(), unit()));
  }

  EcTotals run(const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain, WireState& s, bool close,
               EcBlock* blocks, const EcColumns* cols);

 private:
  std::size_t unit() const { return U ? U : u_raw_; }
  /// popcount(a ^ b) over one unit.
  MEMCOMP_INLINE std::uint32_t xpop(const std::uint8_t* a, const std::uint8_t* b) const {
    std::uint64_t t = 0, o = 0;
    xor_pop<P>(a, b, unit(), t, o);  // (the ones go unused: the compiler drops them)
    return static_cast<std::uint32_t>(t);
  }

  /// The wires before a block: a unit, its ones, whether the bus is idle.
  struct State {
    const std::uint8_t* wires;
    std::uint32_t ones;
    bool idle;
  };

  /// Whether a form of nbits copies the state's wires into its padding (hold, shorter than a unit).
  bool follows_state(std::uint64_t nbits) const { return c_.pad == Pad::hold && nbits < w_; }
  void shape(ScanForm& f, const std::uint8_t* p, std::uint64_t nbits, const std::uint8_t* end,
             const std::uint8_t* state, std::uint8_t* slot) const;
  /// T of a form whose first unit makes x toggles against the state (the EC metric; without DBI
  /// no pins count).
  std::uint32_t energy(const ScanForm& f, std::uint32_t x) const {
    if (!dram_) return f.tog + x;
    return c_.idle_high ? f.beats * static_cast<std::uint32_t>(w_) - f.ones : f.ones;
  }
  /// The transitions of a form sent from a state (closing the dram bus after it if asked).
  struct Moves {
    std::uint32_t t01, t10, pin_t01, pin_t10;
  };
  Moves moves(const ScanForm& f, std::uint32_t x, const State& s, bool close_after) const;
  /// Every count of form f with its moves m into *dst, into row j of the columns rows[field]
  /// (in MEMCOMP_BUS_FIELDS order) and added to *sum, each unless null (field by field: a struct
  /// built so and copied at once stalls).
  void emit(const ScanForm& f, const Moves& m, BusCounts* dst, BusTotals* sum, std::uint32_t (*rows)[kEcRun],
            std::size_t j) const;
  /// T of a form sent with moves m (its counts' energy).
  std::uint32_t energy_of(const ScanForm& f, const Moves& m) const {
    if (!dram_) return m.t01 + m.t10;
    return c_.idle_high ? f.beats * static_cast<std::uint32_t>(w_) - f.ones : f.ones;
  }
  EcTotals run_totals(const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain, State& st,
                      bool close, std::uint8_t* flags);
  EcTotals run_blocks(const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain, State& st,
                      bool close, EcBlock* blocks, const EcColumns* cols);

  BusConfig c_;
  EcConfig ec_;
  RunFn kernel_;
  std::uint32_t shortest_;
  WireState init_;
  std::uint32_t init_ones_ = 0;
  bool dram_;
  std::size_t u_raw_, lanes_;
  std::uint64_t w_;
  int wsh_, bsh_;
  std::uint32_t pin_close01_ = 0, pin_close10_ = 0;  ///< pin transitions of a close (stream mode)
  std::uint8_t fill_[2][64];                         ///< the zero and one padding units
  alignas(64) std::uint8_t buf_[4][72] = {};         ///< built units (two blocks' two forms)
};

/// The counts of nbits stream bits at p (the data ends at end) that do not depend on the state;
/// a built unit goes to slot. `state`: the wires before, which a hold padding of a form shorter
/// than a unit copies (follows_state()).
template <class P, std::size_t U>
MEMCOMP_INLINE void EcScan<P, U>::shape(ScanForm& f, const std::uint8_t* p, std::uint64_t nbits,
                                        const std::uint8_t* end, const std::uint8_t* state, std::uint8_t* slot) const {
  f.bits = static_cast<std::uint32_t>(nbits);
  if (nbits == 0) {
    f.first = f.last = nullptr;
    f.units = f.beats = f.tog = f.ones = f.ones_last = 0;
    return;
  }
  const std::size_t u = unit();
  const Footprint fp = footprint(nbits, w_, wsh_, dram_, c_.burst_length, bsh_);
  const std::uint64_t nfull = fp.full;
  const std::uint64_t n = fp.beats;
  f.units = fp.units;
  f.beats = static_cast<std::uint32_t>(n);
  std::uint64_t tog = 0, ones = 0;
  const std::uint8_t* last = state;
  if (nfull) {
    ones = pop<P>(p, u);
    if (nfull > 1) xor_pop<P>(p + u, p, static_cast<std::size_t>(nfull - 1) * u, tog, ones);
    f.first = p;
    last = p + static_cast<std::size_t>(nfull - 1) * u;
  }
  const std::uint64_t ntail = n - nfull;
  if (ntail == 0) {
    f.ones_last = nfull == 1 ? static_cast<std::uint32_t>(ones) : static_cast<std::uint32_t>(pop<P>(last, u));
  } else {
    // The unit after the full ones: the last stream bits, then the padding.
    const std::uint8_t* src = p + static_cast<std::size_t>(nfull) * u;
    const std::uint64_t rem = nbits - nfull * w_;
    if (c_.pad == Pad::hold) {
      build_tail(slot, src, rem, 1, u, Pad::hold, last);
    } else {
      // Word by word in registers (a word loaded over narrower fresh stores would stall), from a
      // copy where the data ends within the unit.
      std::uint8_t tmp[64];
      if (static_cast<std::size_t>(end - src) < u) {
        std::memcpy(tmp, src, static_cast<std::size_t>((rem + 7) / 8));
        src = tmp;
      }
      const std::uint64_t fill = c_.pad == Pad::one ? ~std::uint64_t{0} : 0;
      for (std::size_t k = 0; 8 * k < u; ++k) {
        std::uint64_t v = 0;
        if (8 * k + 8 <= u)
          v = load64(src + 8 * k);
        else
          std::memcpy(&v, src + 8 * k, u - 8 * k);
        const std::uint64_t m = stream_mask(static_cast<std::int64_t>(rem) - static_cast<std::int64_t>(64 * k));
        v = (v & m) | (fill & ~m);
        std::memcpy(slot + 8 * k, &v, 8);
      }
    }
    std::uint64_t o0 = 0;
    if (nfull) {
      xor_pop<P>(slot, last, u, tog, o0);
    } else {
      o0 = pop<P>(slot, u);
      f.first = slot;
    }
    ones += o0;
    if (ntail == 1 || c_.pad == Pad::hold) {  // hold: the padding units repeat it
      ones += (ntail - 1) * o0;
      last = slot;
      f.ones_last = static_cast<std::uint32_t>(o0);
    } else if (c_.pad == Pad::zero) {
      tog += o0;
      last = fill_[0];
      f.ones_last = 0;
    } else {
      tog += w_ - o0;
      ones += (ntail - 1) * w_;
      last = fill_[1];
      f.ones_last = static_cast<std::uint32_t>(w_);
    }
  }
  f.last = last;
  f.tog = static_cast<std::uint32_t>(tog);
  f.ones = static_cast<std::uint32_t>(ones);
}

template <class P, std::size_t U>
MEMCOMP_INLINE typename EcScan<P, U>::Moves EcScan<P, U>::moves(const ScanForm& f, std::uint32_t x, const State& s,
                                                                bool close_after) const {
  Moves m{0, 0, 0, 0};
  std::uint32_t after_ones = s.ones;
  bool after_idle = s.idle;
  if (f.first) {
    const std::uint32_t tog = f.tog + x;
    m.t01 = (tog + f.ones_last - s.ones) / 2;
    m.t10 = tog - m.t01;
    after_ones = f.ones_last;
    after_idle = false;
  }
  if (close_after && !after_idle) {  // back to idle (all ones or all zeros)
    if (c_.idle_high)
      m.t01 += static_cast<std::uint32_t>(w_) - after_ones;
    else
      m.t10 += after_ones;
    m.pin_t01 = pin_close01_;
    m.pin_t10 = pin_close10_;
  }
  return m;
}

template <class P, std::size_t U>
MEMCOMP_INLINE void EcScan<P, U>::emit(const ScanForm& f, const Moves& m, BusCounts* dst, BusTotals* sum,
                                       std::uint32_t (*rows)[kEcRun], std::size_t j) const {
  const std::uint32_t zeros = f.beats * static_cast<std::uint32_t>(w_) - f.ones;
  const std::uint32_t energy = energy_of(f, m);
  std::size_t k = 0;
// The X-macro list stays bin-packed.
// clang-format off
#define MEMCOMP_SCAN_FIELDS(X)                                                                              \
  X(bits, f.bits) X(units, f.units) X(beats, f.beats) X(toggles, m.t01 + m.t10) X(t01, m.t01) X(t10, m.t10) \
  X(zeros, zeros) X(ones, f.ones) X(pin_zeros, 0u) X(pin_ones, 0u) X(pin_t01, m.pin_t01)                  \
  X(pin_t10, m.pin_t10) X(inversions, 0u) X(energy, energy)
// clang-format on
#define MEMCOMP_SCAN_EMIT(field, v) \
  {                                 \
    const std::uint32_t x = (v);    \
    if (dst) dst->field = x;        \
    if (rows) rows[k][j] = x;       \
    if (sum) sum->field += x;       \
    ++k;                            \
  }
  MEMCOMP_SCAN_FIELDS(MEMCOMP_SCAN_EMIT)
#undef MEMCOMP_SCAN_EMIT
#undef MEMCOMP_SCAN_FIELDS
}

template <class P, std::size_t U>
EcTotals EcScan<P, U>::run(const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain, WireState& s,
                           bool close, EcBlock* blocks, const EcColumns* cols) {
  const std::size_t n = raw.n_blocks;
  if (n == 0) return {};
  const WireState st0 = s;  // the state points into it
  // Without DBI the pins never move; a close in stream mode takes them from where they are to idle.
  if (!c_.isolated)
    for (std::size_t l = 0; l < lanes_; ++l) {
      pin_close01_ += st0.pins[l] < init_.pins[l] ? 1u : 0u;
      pin_close10_ += st0.pins[l] > init_.pins[l] ? 1u : 0u;
    }
  State st{st0.wires.data(), static_cast<std::uint32_t>(pop<P>(st0.wires.data(), unit())), st0.idle};
  const bool need_blocks = blocks || (cols && wants_counts(*cols));
  const EcTotals tot = need_blocks ? run_blocks(raw, comp, gain, st, close, blocks, cols)
                                   : run_totals(raw, comp, gain, st, close, cols ? cols->compressed : nullptr);
  if (dram_ && (c_.isolated || close)) {  // closed: back to idle
    s = init_;
  } else {
    std::memmove(s.wires.data(), st.wires, unit());
    s.idle = st.idle;
  }
  return tot;
}

/// Per-block output: both forms of every block against the state. Columns are gathered per run
/// of blocks in scratch rows and copied column by column (a row across a score of columns a power
/// of two apart thrashes the cache).
template <class P, std::size_t U>
EcTotals EcScan<P, U>::run_blocks(const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain,
                                  State& st, bool close, EcBlock* blocks, const EcColumns* cols) {
  EcTotals tot;
  const std::size_t n = raw.n_blocks;
  const std::uint64_t bits = 8 * std::uint64_t{raw.block_bytes};
  const std::uint8_t* raw_end = raw.data + n * raw.block_bytes;
  const std::uint8_t* comp_end = comp.data + comp.data_bytes;
  const bool scalar_bu = gain.size() == 1;
  const State init{init_.wires.data(), init_ones_, true};
  struct Rows {
    std::uint32_t sent[14][kEcRun];  // MEMCOMP_BUS_FIELDS order
    std::uint32_t t0[kEcRun], t1[kEcRun], units_raw[kEcRun], units_comp[kEcRun], bits_comp[kEcRun];
    double cr[kEcRun];
    std::uint8_t z[kEcRun];
  };
  std::vector<Rows> scratch(blocks ? 0 : 1);
  Rows* r = blocks ? nullptr : scratch.data();
  std::uint64_t compressed = 0, raw_units = 0;
  unsigned pair = 0;  // the forms' units go to buf_[2 pair], buf_[2 pair + 1]; the state's is not there
  ScanForm f[2];
  for (std::size_t b0 = 0; b0 < n; b0 += kEcRun) {
    const std::size_t m = std::min(kEcRun, n - b0);
    for (std::size_t j = 0; j < m; ++j) {
      const std::size_t i = b0 + j;
      if (c_.isolated) st = init;
      const std::uint32_t len = comp.bit_lengths[i];
      shape(f[0], raw.block(i), bits, raw_end, st.wires, buf_[2 * pair]);
      shape(f[1], comp.data + comp.bit_offsets[i] / 8, len, comp_end, st.wires, buf_[2 * pair + 1]);
      const std::uint32_t x0 = xpop(st.wires, f[0].first);  // (a raw form is never empty)
      const std::uint32_t x1 = f[1].first ? xpop(st.wires, f[1].first) : 0;
      const double cr = ec_.ratio == EcRatio::units ? (f[1].units ? static_cast<double>(f[0].units) / f[1].units : kInf)
                                                    : (len ? static_cast<double>(bits) / len : kInf);
      const bool close_after = dram_ && (c_.isolated || (close && i + 1 == n));
      const Moves m0 = moves(f[0], x0, st, close_after), m1 = moves(f[1], x1, st, close_after);
      const bool z = ec_prefers(cr > 1.0, ec_factor(cr, gain[scalar_bu ? 0 : i], ec_.k), energy(f[0], x0),
                                energy(f[1], x1), ec_.alpha);
      if (blocks) {
        EcBlock& b = blocks[i];
        b.compressed = z ? 1 : 0;
        b.cr = cr;
        emit(f[0], m0, &b.raw, z ? nullptr : &tot.sent, nullptr, 0);
        emit(f[1], m1, &b.comp, z ? &tot.sent : nullptr, nullptr, 0);
      } else {
        r->z[j] = z ? 1 : 0;
        r->cr[j] = cr;
        r->t0[j] = energy_of(f[0], m0);
        r->t1[j] = energy_of(f[1], m1);
        r->units_raw[j] = f[0].units;
        r->units_comp[j] = f[1].units;
        r->bits_comp[j] = f[1].bits;
        if (z)
          emit(f[1], m1, nullptr, &tot.sent, r->sent, j);
        else
          emit(f[0], m0, nullptr, &tot.sent, r->sent, j);
      }
      compressed += z ? 1 : 0;
      raw_units += f[0].units;
      const ScanForm& sent = f[z ? 1 : 0];
      if (sent.first) {  // (an empty form leaves the wires alone)
        st = {sent.last, sent.ones_last, false};
        pair ^= 1;
      }
    }
    if (!r || !cols) continue;
    const auto copy = [&](auto* dst, const auto* src) {
      if (dst) std::memcpy(dst + b0, src, m * sizeof *src);
    };
    copy(cols->compressed, r->z);
    copy(cols->cr, r->cr);
    copy(cols->t0, r->t0);
    copy(cols->t1, r->t1);
    copy(cols->units_raw, r->units_raw);
    copy(cols->units_comp, r->units_comp);
    copy(cols->bits_comp, r->bits_comp);
    std::size_t k = 0;
#define MEMCOMP_EC_SENT(f) copy(cols->sent.f, r->sent[k++]);
    MEMCOMP_BUS_FIELDS(MEMCOMP_EC_SENT)
#undef MEMCOMP_EC_SENT
  }
  tot.blocks = n;
  tot.compressed = compressed;
  tot.raw_units = raw_units;
  tot.raw_bits = bits * n;
  tot.sent_bits = tot.sent.bits;
  tot.sent_units = tot.sent.units;
  return tot;
}

/// Totals (and the decisions) only. The state before a block is one of two candidates, the last
/// units of the block before's two forms, and zc says which: on chip both decisions are taken
/// and zc picks one, so no block waits for the counts of the block before (only for its bit).
template <class P, std::size_t U>
EcTotals EcScan<P, U>::run_totals(const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain,
                                  State& st, bool close, std::uint8_t* flags) {
  const std::size_t n = raw.n_blocks, B = raw.block_bytes, u = unit();
  const std::uint64_t bits = 8 * std::uint64_t{B};
  const std::uint8_t* raw_end = raw.data + n * B;
  const std::uint8_t* comp_end = comp.data + comp.data_bytes;
  const std::uint32_t* lens = comp.bit_lengths;
  const bool scalar_bu = gain.size() == 1;
  const State init{init_.wires.data(), init_ones_, true};
  // The raw form's shape (the same for every block), and the threshold: a compressed length
  // above it leaves CR <= 1, so the block goes raw.
  ScanForm raw_shape;
  shape(raw_shape, raw.data, bits, raw_end, init.wires, buf_[0]);
  const std::uint64_t unit_bits = dram_ ? w_ * c_.burst_length : w_;
  const std::uint64_t threshold = ec_.ratio == EcRatio::units ? (raw_shape.units - std::uint64_t{1}) * unit_bits
                                                              : bits - 1;
  const auto T = static_cast<std::uint32_t>(std::min<std::uint64_t>(threshold, 0xFFFFFFFFu));
  const bool whole_units = std::uint64_t{raw_shape.beats} * w_ == bits && !c_.isolated;  // runs are streams
  std::uint64_t s_bits = 0, s_units = 0, s_beats = 0, s_tog = 0, s_ones = 0, compressed = 0;
  std::uint64_t c01 = 0, c10 = 0, p01 = 0, p10 = 0;
  std::int64_t twice_t01 = 0;                    // sum of toggles + ones(last) - ones(state) over the forms sent
  const auto close_from = [&](const State& a) {  // back to idle after the last form sent
    if (a.idle) return;
    if (c_.idle_high)
      c01 += w_ - a.ones;
    else
      c10 += a.ones;
    p01 += pin_close01_;
    p10 += pin_close10_;
  };
  State cand[2] = {st, st};
  unsigned zc = 0;    // the state is cand[zc]
  unsigned pair = 0;  // the forms' units go to buf_[2 pair], buf_[2 pair + 1]; the candidates' are not there
  ScanForm fr, fc;
  std::size_t i = 0;
  while (i < n) {
    const std::uint32_t len = lens[i];
    if (len > T && whole_units) {                 // a run of raw blocks, back to back
      std::size_t j = shortest_ > T ? n : i + 1;  // (all of them when no stream is short)
      for (; j + 8 <= n; j += 8) {
        bool above = true;
        for (std::size_t k = 0; k < 8; ++k) above &= lens[j + k] > T;
        if (!above) break;
      }
      while (j < n && lens[j] > T) ++j;
      const State s = cand[zc];
      const std::uint8_t* d = raw.block(i);
      const std::size_t m = j - i, L = m * B;
      std::uint64_t tog = 0, ones = 0;
      xor_pop<P>(d, s.wires, u, tog, ones);  // the first unit against the state
      kernel_(d, L, u, tog, ones);
      const auto ol = static_cast<std::uint32_t>(pop<P>(d + L - u, u));
      s_bits += bits * m;
      s_units += std::uint64_t{raw_shape.units} * m;
      s_beats += std::uint64_t{raw_shape.beats} * m;
      s_tog += tog;
      s_ones += ones;
      twice_t01 += static_cast<std::int64_t>(tog) + ol - s.ones;
      cand[0] = cand[1] = {d + L - u, ol, false};
      zc = 0;
      if (flags) std::memset(flags + i, 0, m);
      i = j;
      if (dram_ && close && i == n) close_from(cand[0]);
      continue;
    }
    if (c_.isolated) {
      cand[0] = cand[1] = init;
      zc = 0;
    }
    unsigned z = 1;
    if (len != 0) {  // (an empty form is sent and leaves the wires alone)
      const bool decide = len <= T;
      // A form whose padding copies the state is counted from the state itself.
      if (follows_state(bits) || (decide && follows_state(len))) cand[zc ^ 1] = cand[zc];
      const State s = cand[zc];
      const bool same = cand[0].wires == cand[1].wires;
      shape(fr, raw.block(i), bits, raw_end, s.wires, buf_[2 * pair]);
      std::uint32_t x;  // the sent form's first unit against the state
      z = 0;
      if (decide) {  // CR > 1
        shape(fc, comp.data + comp.bit_offsets[i] / 8, len, comp_end, s.wires, buf_[2 * pair + 1]);
        const double cr = ec_.ratio == EcRatio::units ? static_cast<double>(fr.units) / fc.units
                                                      : static_cast<double>(bits) / len;
        const double gcr = gain[scalar_bu ? 0 : i] * cr;
        const double weight = ec_.k == 2 ? gcr * gcr : ec_.k == 1 ? gcr : kInf;  // ec_factor without its loop
        if (dram_) {                                                             // T does not depend on the state
          z = ec_prefers(true, weight, energy(fr, 0), energy(fc, 0), ec_.alpha) ? 1 : 0;
          x = xpop(s.wires, z ? fc.first : fr.first);
        } else {
          const std::uint32_t xr0 = xpop(cand[0].wires, fr.first), xc0 = xpop(cand[0].wires, fc.first);
          const std::uint32_t xr1 = same ? xr0 : xpop(cand[1].wires, fr.first);
          const std::uint32_t xc1 = same ? xc0 : xpop(cand[1].wires, fc.first);
          const bool d0 = ec_prefers(true, weight, fr.tog + xr0, fc.tog + xc0, ec_.alpha);
          const bool d1 = same ? d0 : ec_prefers(true, weight, fr.tog + xr1, fc.tog + xc1, ec_.alpha);
          z = (zc ? d1 : d0) ? 1 : 0;
          x = z ? (zc ? xc1 : xc0) : (zc ? xr1 : xr0);
        }
      } else {
        x = xpop(s.wires, fr.first);
      }
      const ScanForm& f = z ? fc : fr;
      s_bits += f.bits;
      s_units += f.units;
      s_beats += f.beats;
      s_tog += f.tog + x;
      s_ones += f.ones;
      twice_t01 += static_cast<std::int64_t>(f.tog) + x + f.ones_last - s.ones;
      cand[0] = {fr.last, fr.ones_last, false};
      cand[1] = decide ? State{fc.last, fc.ones_last, false} : cand[0];
      zc = z;
      pair ^= 1;
    }
    compressed += z;
    if (flags) flags[i] = static_cast<std::uint8_t>(z);
    ++i;
    if (dram_ && (c_.isolated || (close && i == n))) close_from(cand[zc]);
  }
  st = cand[zc];
  EcTotals tot;
  tot.blocks = n;
  tot.compressed = compressed;
  tot.raw_bits = bits * n;
  tot.raw_units = std::uint64_t{raw_shape.units} * n;
  BusTotals& t = tot.sent;
  t.bits = s_bits;
  t.units = s_units;
  t.beats = s_beats;
  t.ones = s_ones;
  t.zeros = s_beats * w_ - s_ones;
  t.t01 = static_cast<std::uint64_t>(twice_t01 / 2) + c01;
  t.t10 = s_tog - static_cast<std::uint64_t>(twice_t01 / 2) + c10;
  t.toggles = t.t01 + t.t10;
  t.pin_t01 = p01;
  t.pin_t10 = p10;
  t.energy = !dram_ ? t.toggles : c_.idle_high ? t.zeros : t.ones;
  tot.sent_bits = s_bits;
  tot.sent_units = s_units;
  return tot;
}

template <class P>
EcTotals scan_dispatch(const BusConfig& c, const EcConfig& ec, RunFn kernel, std::uint32_t shortest,
                       const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain, WireState& s,
                       bool close, EcBlock* blocks, const EcColumns* cols) {
  switch (c.unit_bytes()) {
    case 4: return EcScan<P, 4>(c, ec, kernel, shortest).run(raw, comp, gain, s, close, blocks, cols);
    case 8: return EcScan<P, 8>(c, ec, kernel, shortest).run(raw, comp, gain, s, close, blocks, cols);
    case 16: return EcScan<P, 16>(c, ec, kernel, shortest).run(raw, comp, gain, s, close, blocks, cols);
    case 32: return EcScan<P, 32>(c, ec, kernel, shortest).run(raw, comp, gain, s, close, blocks, cols);
    default: return EcScan<P, 0>(c, ec, kernel, shortest).run(raw, comp, gain, s, close, blocks, cols);
  }
}

}  // namespace

EcTotals ec_scan(const BusConfig& c, const EcConfig& ec, bool simd, std::uint32_t shortest, const BlockView& raw,
                 const StreamsView& comp, const std::vector<double>& gain, WireState& s, bool close, EcBlock* blocks,
                 const EcColumns* cols) {
  if (bus::hw_popcount())
    return scan_dispatch<PopFast>(c, ec, run_kernel(true, simd), shortest, raw, comp, gain, s, close, blocks, cols);
  return EcScan<PopGeneric, 0>(c, ec, run_kernel(false, simd), shortest).run(raw, comp, gain, s, close, blocks, cols);
}

}  // namespace memcomp::detail::ec
