// memcomp analysis: Energy Control's per-block reference engine (SPEC 2; P2 = toggle-aware
// compression, HPCA'16, §4.2 with the bus of §5.1-§5.3): EcPath::reference, and the engine of every
// bus with DBI. It equals the sequential scan (ec_scan.cpp) bit for bit; the tests compare them.
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
using bus::kPop8;
using bus::load32;
using bus::load64;
using bus::Plain;
using bus::plain_units;
using bus::pop;
using bus::PopFast;
using bus::PopGeneric;
using bus::xor_pop;

// Energy Control as independent per-block work and a one-bit scan: the reference (EcPath::reference,
// and the path of every bus with DBI). Two facts make it so:
//  1. A transfer's counts split into a part that does not depend on the wire state (units, ones
//     and zeros, DBI-dc inversions and pins, toggles between its own units) and the toggles of its
//     first unit against the state (on dram also of its last unit back to idle when the bus closes).
//  2. The state before block j is the last unit of one of the two forms of the block before, or of
//     the nearest earlier block whose compressed form is not empty (an empty form sends nothing,
//     is always chosen, T1 = 0, and leaves the wires alone).
// So for a run of blocks both forms are prepared, both candidate states' first-unit terms are
// counted and the decision d_j(c) under each candidate c is taken, all independently per block;
// the scan then only picks z_j = d_j(z of that earlier block). A form whose padding copies the
// state (pad=hold, shorter than one unit) and every DBI-ac form are driven through a Bus from the
// real state during the scan; the block after such a block is decided from the real state.
// (The per-block work needs no sequential order; on one thread it runs in cache-sized runs.)

/// A wire state seen through pointers (into the data, a prepared slot or a WireState).
struct EcView {
  const std::uint8_t* wires = nullptr;
  const std::uint8_t* pins = nullptr;
  std::uint32_t ones = 0, pin_ones = 0;
  bool idle = true;
};

/// One prepared form (raw or compressed) of one block: its state-independent counts.
struct EcForm {
  const std::uint8_t* first = nullptr;   ///< first driven unit; null for an empty transfer
  const std::uint8_t* last = nullptr;    ///< last driven unit
  const std::uint8_t* pfirst = nullptr;  ///< DBI pin levels (0/1 per lane) of the first and last beats
  const std::uint8_t* plast = nullptr;
  std::uint32_t bits = 0, units = 0, beats = 0;
  std::uint32_t tog = 0, ones = 0, ones_last = 0;                     ///< toggles between its own units
  std::uint32_t ptog = 0, pones = 0, pones_last = 0, inversions = 0;  ///< the same for DBI pins
  bool slow = false;                                                  ///< depends on the state beyond its first unit
};

enum class EcKind : std::uint8_t { fast, follow, slow };

/// One block of a run.
struct EcRow {
  EcForm f[2];              ///< 0: raw, 1: compressed
  EcView s[2];              ///< the candidate states before the block (fast: from the block before)
  std::uint32_t x[2][2]{};  ///< x[c][f]: toggles of form f's first unit against candidate c
  double cr = 0, weight = 0;
  std::uint8_t d[2]{};  ///< the decision under candidate c
  EcKind kind = EcKind::fast;
  std::uint8_t c = 0, z = 0;  ///< the candidate that held, and the decision (1: compressed)
};

/// The run's configuration and the pointer arithmetic its forms share. U: the unit's bytes when
/// known at compile time (the unit-sized loops then unroll), else 0.
template <class P, std::size_t U>
class EcRun {
 public:
  EcRun(const BusConfig& c, const EcConfig& ec)
      : c_(c),
        ec_(ec),
        bus_(c),
        init_(initial_state(c)),
        dram_(c.channel == Channel::dram),
        u_raw_(c.unit_bytes()),
        lanes_(dram_ ? std::min<std::size_t>(c.lanes(), 8) : 0),
        w_(c.width_bits),
        wsh_(shift_of(c.width_bits)),
        bsh_(shift_of(c.burst_length)),
        stride_(unit() * (std::max<std::size_t>(dram_ ? c.burst_length : 1, 2) + 1) + 16),
        plane_(c.dbi != Dbi::none ? static_cast<std::uint32_t>(lanes_) : 0u) {
    init_view_ = view_of(init_);
  }

  /// Bytes per unit (a constant when U is).
  std::size_t unit() const { return U ? U : u_raw_; }

  EcTotals run(const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain, WireState& s, bool close,
               EcBlock* blocks, const EcColumns* cols);

 private:
  /// popcount(a ^ b) over len bytes.
  static MEMCOMP_INLINE std::uint32_t xpop(const std::uint8_t* a, const std::uint8_t* b, std::size_t len) {
    std::uint64_t t0 = 0, t1 = 0;
    std::size_t k = 0;
    for (; k + 16 <= len; k += 16) {
      t0 += P::pc(load64(a + k) ^ load64(b + k));
      t1 += P::pc(load64(a + k + 8) ^ load64(b + k + 8));
    }
    if (k + 8 <= len) {
      t0 += P::pc(load64(a + k) ^ load64(b + k));
      k += 8;
    }
    if (k + 4 <= len) {
      t1 += P::pc(load32(a + k) ^ load32(b + k));
      k += 4;
    }
    for (; k < len; ++k) t0 += kPop8[a[k] ^ b[k]];
    return static_cast<std::uint32_t>(t0 + t1);
  }
  EcView view_of(const WireState& w) const {
    return {w.wires.data(), w.pins.data(), static_cast<std::uint32_t>(pop<P>(w.wires.data(), unit())),
            static_cast<std::uint32_t>(pop<P>(w.pins.data(), lanes_)), w.idle};
  }
  /// The state after form f (DBI off: the pins stay where they were).
  static EcView view_of(const EcForm& f, const std::uint8_t* pins) {
    return {f.last, f.plast ? f.plast : pins, f.ones_last, f.pones_last, false};
  }

  void prepare(EcForm& f, const std::uint8_t* p, std::uint64_t nbits, std::uint8_t* slot, std::uint8_t* pslot);
  /// T of a form whose first unit makes x toggles against the state (the EC metric).
  std::uint32_t energy(const EcForm& f, std::uint32_t x) const {
    if (!dram_) return f.tog + x;
    return c_.idle_high ? f.beats * (static_cast<std::uint32_t>(w_) + plane_) - f.ones - f.pones : f.ones + f.pones;
  }
  /// Counts both forms' first units against candidate c and decides under it. (Locals, not the
  /// row's fields: reading back a pair of fresh 32-bit stores as one 64-bit load stalls.)
  void against(EcRow& r, unsigned cand, bool both_equal) const {
    const EcView& s = r.s[cand];
    const std::uint32_t x0 = xpop(s.wires, r.f[0].first, unit());  // a raw form is never empty
    const std::uint32_t x1 = r.f[1].first ? xpop(s.wires, r.f[1].first, unit()) : 0;
    const std::uint8_t d = ec_prefers(r.cr > 1.0, r.weight, energy(r.f[0], x0), energy(r.f[1], x1), ec_.alpha) ? 1 : 0;
    for (unsigned k = cand; k < (both_equal ? 2u : cand + 1); ++k) {
      r.x[k][0] = x0;
      r.x[k][1] = x1;
      r.d[k] = d;
    }
  }
  /// The counts of form f of a decided row into *dst and/or added to *sum (either may be null).
  void counts(const EcRow& r, unsigned f, bool close_after, BusCounts* dst, BusTotals* sum) const;

  BusConfig c_;
  EcConfig ec_;
  Bus bus_;
  WireState init_;
  EcView init_view_;
  bool dram_;
  std::size_t u_raw_;
  std::size_t lanes_;
  std::uint64_t w_;
  int wsh_, bsh_;
  std::size_t stride_;
  std::uint32_t plane_;  ///< DBI pins per beat (0 without DBI)
};

/// Prepares a transfer of nbits stream bits at p. slot holds the form's built units (stride_
/// bytes), pslot its first and last pin levels (DBI).
template <class P, std::size_t U>
void EcRun<P, U>::prepare(EcForm& f, const std::uint8_t* p, std::uint64_t nbits, std::uint8_t* slot,
                          std::uint8_t* pslot) {
  f = EcForm{};
  f.bits = static_cast<std::uint32_t>(nbits);
  if (nbits == 0) return;
  const std::size_t u = unit();
  const Footprint fp = footprint(nbits, w_, wsh_, dram_, c_.burst_length, bsh_);
  const auto nfull = static_cast<std::size_t>(fp.full);
  const std::uint64_t n = fp.beats;
  f.units = fp.units;
  f.beats = static_cast<std::uint32_t>(n);
  if (c_.dbi == Dbi::ac || (c_.pad == Pad::hold && nfull == 0)) {  // padding or inversions follow the state
    f.slow = true;
    return;
  }
  if (c_.dbi == Dbi::dc) {  // inversions and pins of each beat stand alone: drive it once from idle
    WireState ds = init_;
    const BusCounts r = bus_.send(ds, p, nbits);
    const std::size_t nb = r.beats, lanes = lanes_;
    const std::uint8_t* d = bus_.driven().data();
    const std::uint8_t* pl = bus_.pin_levels().data();
    std::memcpy(slot, d, u);
    std::memcpy(slot + u, d + (nb - 1) * u, u);
    std::memcpy(pslot, pl, lanes);
    std::memcpy(pslot + lanes, pl + (nb - 1) * lanes, lanes);
    f.first = slot;
    f.last = slot + u;
    f.pfirst = pslot;
    f.plast = pslot + lanes;
    f.ones = r.ones;
    f.ones_last = static_cast<std::uint32_t>(pop<P>(f.last, u));
    f.tog = r.toggles - xpop(init_.wires.data(), f.first, u);
    f.pones = r.pin_ones;
    f.pones_last = static_cast<std::uint32_t>(pop<P>(f.plast, lanes));
    f.ptog = r.pin_t01 + r.pin_t10 - xpop(init_.pins.data(), f.pfirst, lanes);
    f.inversions = r.inversions;
    return;
  }
  std::uint64_t tog = 0, ones = 0;
  const std::size_t S = static_cast<std::size_t>(n) * u;  // bytes driven
  if (c_.pad == Pad::hold) {
    const auto ntail = static_cast<std::size_t>(n - nfull);
    if (ntail) build_tail(slot, p + nfull * u, nbits - nfull * w_, ntail, u, c_.pad, p + (nfull - 1) * u);
    f.first = p;
    f.last = ntail ? slot + (ntail - 1) * u : p + (nfull - 1) * u;
    const Plain t = plain_units<P>(p, p, nfull, slot, ntail, u);  // first unit against itself: 0
    tog = t.toggles;
    ones = t.ones;
  } else if (nbits == 8 * std::uint64_t{S}) {  // no padding: the units are the stream's bytes
    xor_pop<P>(p + u, p, S - u, tog, ones);
    ones += pop<P>(p, u);
    f.first = p;
    f.last = p + S - u;
  } else {
    // The driven bytes V = the stream's bytes, then the padding. V[0, b0) is read in place; the
    // rest (the stream's last bytes, the padding, and at least the last unit) is built in slot.
    const auto fb = static_cast<std::size_t>(nbits / 8);
    const auto rbits = static_cast<unsigned>(nbits % 8);
    std::size_t b0 = std::min(fb & ~std::size_t{7}, S - u);
    if (b0 < u) b0 = 0;
    const std::size_t tn = S - b0;
    const std::uint8_t fill = c_.pad == Pad::one ? 0xFF : 0x00;
    std::memset(slot, fill, tn);
    std::memcpy(slot, p + b0, fb - b0);
    if (rbits) {
      const auto keep = static_cast<std::uint8_t>(0xFFu << (8 - rbits));  // MSB-first stream bits
      slot[fb - b0] = static_cast<std::uint8_t>((p[fb] & keep) | (fill & ~keep));
    }
    if (b0) {
      xor_pop<P>(p + u, p, b0 - u, tog, ones);                   // pairs inside V[0, b0)
      xor_pop<P>(slot, p + b0 - u, std::min(u, tn), tog, ones);  // the slot's first unit against V in place
      if (tn > u) xor_pop<P>(slot + u, slot, tn - u, tog, ones);
      ones += pop<P>(p, u);
      f.first = p;
    } else {
      xor_pop<P>(slot + u, slot, tn - u, tog, ones);
      ones += pop<P>(slot, u);
      f.first = slot;
    }
    f.last = slot + tn - u;
  }
  f.tog = static_cast<std::uint32_t>(tog);
  f.ones = static_cast<std::uint32_t>(ones);
  f.ones_last = static_cast<std::uint32_t>(pop<P>(f.last, u));
}

/// The counts of form f of a decided row, sent from the candidate that held (closing the dram bus
/// after it if asked).
template <class P, std::size_t U>
void EcRun<P, U>::counts(const EcRow& r, unsigned f, bool close_after, BusCounts* dst, BusTotals* sum) const {
  // Scalars first, then the stores: a struct built field by field and copied at once stalls.
  const EcForm& m = r.f[f];
  const EcView& s = r.s[r.c];
  std::uint32_t t01 = 0, t10 = 0, pin_t01 = 0, pin_t10 = 0, pin_ones = 0, pin_zeros = 0;
  EcView after = s;
  if (m.first) {
    const std::uint32_t tog = m.tog + r.x[r.c][f];
    t01 = (tog + m.ones_last - s.ones) / 2;
    t10 = tog - t01;
    if (c_.dbi != Dbi::none) {
      pin_ones = m.pones;
      pin_zeros = m.beats * plane_ - m.pones;
      const std::uint32_t pt = m.ptog + xpop(s.pins, m.pfirst, lanes_);
      pin_t01 = (pt + m.pones_last - s.pin_ones) / 2;
      pin_t10 = pt - pin_t01;
    }
    after = view_of(m, s.pins);
  }
  if (close_after && !after.idle) {  // back to idle
    for (std::size_t k = 0; k < unit(); ++k) {
      t01 += kPop8[static_cast<std::uint8_t>(~after.wires[k] & init_.wires[k])];
      t10 += kPop8[static_cast<std::uint8_t>(after.wires[k] & ~init_.wires[k])];
    }
    for (std::size_t l = 0; l < lanes_; ++l) {
      pin_t01 += after.pins[l] < init_.pins[l] ? 1u : 0u;
      pin_t10 += after.pins[l] > init_.pins[l] ? 1u : 0u;
    }
  }
  const std::uint32_t zeros = m.beats * static_cast<std::uint32_t>(w_) - m.ones;
  const std::uint32_t energy = !dram_ ? t01 + t10 : c_.idle_high ? zeros + pin_zeros : m.ones + pin_ones;
// The X-macro list stays bin-packed.
// clang-format off
#define MEMCOMP_EC_FIELDS(X)                                                                          \
  X(bits, m.bits) X(units, m.units) X(beats, m.beats) X(toggles, t01 + t10) X(t01, t01) X(t10, t10) \
  X(zeros, zeros) X(ones, m.ones) X(pin_zeros, pin_zeros) X(pin_ones, pin_ones) X(pin_t01, pin_t01)  \
  X(pin_t10, pin_t10) X(inversions, m.inversions) X(energy, energy)
// clang-format on
#define MEMCOMP_EC_STORE(field, v) dst->field = (v);
#define MEMCOMP_EC_ADD(field, v) sum->field += (v);
  if (dst) {
    MEMCOMP_EC_FIELDS(MEMCOMP_EC_STORE)
  }
  if (sum) {
    MEMCOMP_EC_FIELDS(MEMCOMP_EC_ADD)
  }
#undef MEMCOMP_EC_ADD
#undef MEMCOMP_EC_STORE
#undef MEMCOMP_EC_FIELDS
}

template <class P, std::size_t U>
EcTotals EcRun<P, U>::run(const BlockView& raw, const StreamsView& comp, const std::vector<double>& gain, WireState& s,
                          bool close, EcBlock* blocks, const EcColumns* cols) {
  EcTotals tot;
  const std::size_t n = raw.n_blocks;
  const std::uint64_t bits = 8 * std::uint64_t{raw.block_bytes};
  const std::size_t cap = std::min(kEcRun, n);
  std::vector<EcRow> rows(cap);
  std::vector<EcBlock> slow(cap);     // the scan's counts of slow blocks
  std::vector<WireState> after(cap);  // and the state each leaves
  std::vector<std::uint8_t> arena(2 * cap * stride_), parena(4 * cap * lanes_);
  const bool need_blocks = blocks || (cols && wants_counts(*cols));
  std::vector<EcBlock> scratch(need_blocks && !blocks ? cap : 0);
  const bool scalar_bu = gain.size() == 1;
  WireState st = s;  // the state between runs
  for (std::size_t b0 = 0; b0 < n; b0 += kEcRun) {
    const std::size_t m = std::min(kEcRun, n - b0);
    const WireState st0 = st;  // the run's prepared slots overwrite the last run's
    const EcView start = c_.isolated ? init_view_ : view_of(st0);
    const std::uint8_t* pins = start.pins;  // without DBI the pins never move (but to idle at a close)
    // 1. Prepare both forms of every block, and decide under both candidate states.
    EcView cand[2] = {start, start};
    bool known = true;
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t g = b0 + i;
      EcRow& r = rows[i];
      std::uint8_t* pa = parena.empty() ? nullptr : parena.data() + 4 * i * lanes_;
      prepare(r.f[0], raw.block(g), bits, arena.data() + 2 * i * stride_, pa);
      prepare(r.f[1], comp.data + comp.bit_offsets[g] / 8, comp.bit_lengths[g], arena.data() + (2 * i + 1) * stride_,
              pa ? pa + 2 * lanes_ : nullptr);
      r.cr = ec_.ratio == EcRatio::units
                 ? (r.f[1].units ? static_cast<double>(r.f[0].units) / r.f[1].units : kInf)
                 : (comp.bit_lengths[g] ? static_cast<double>(bits) / comp.bit_lengths[g] : kInf);
      r.weight = ec_factor(r.cr, gain[scalar_bu ? 0 : g], ec_.k);
      if (c_.isolated) {
        cand[0] = cand[1] = init_view_;
        known = true;
      }
      r.kind = r.f[0].slow || r.f[1].slow ? EcKind::slow : known ? EcKind::fast : EcKind::follow;
      if (r.kind == EcKind::fast) {
        r.s[0] = cand[0];
        r.s[1] = cand[1];
        const bool same = cand[1].wires == cand[0].wires;
        against(r, 0, same);
        if (!same) against(r, 1, false);
      }
      if (r.kind == EcKind::slow) {
        known = false;
      } else if (r.f[1].first) {  // (an empty compressed form is sent and leaves the state as it was)
        cand[0] = view_of(r.f[0], pins);
        cand[1] = view_of(r.f[1], pins);
        known = true;
      }
    }
    // 2. The scan: which candidate held, and the decision under it.
    EcView cur = start;
    unsigned zs = 0;  // the decision of the block the candidates came from
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t g = b0 + i;
      EcRow& r = rows[i];
      if (c_.isolated) cur = init_view_;
      if (r.kind == EcKind::fast) {
        r.c = static_cast<std::uint8_t>(zs);
      } else if (r.kind == EcKind::follow) {
        r.s[0] = cur;
        r.c = 0;
        against(r, 0, false);
      } else {
        WireState s0 = c_.isolated ? init_ : st0;
        std::memmove(s0.wires.data(), cur.wires, unit());
        std::memmove(s0.pins.data(), cur.pins, lanes_);
        s0.idle = cur.idle;
        WireState s1 = s0;
        const bool last = close && g + 1 == n;
        EcBlock& b = slow[i];
        b.raw = bus_.transfer(s0, raw.block(g), bits, last);
        b.comp = bus_.transfer(s1, comp.data + comp.bit_offsets[g] / 8, comp.bit_lengths[g], last);
        b.cr = r.cr;
        b.compressed = ec_decide(b.raw.energy, b.comp.energy, b.cr, gain[scalar_bu ? 0 : g], ec_.k, ec_.alpha);
        r.z = b.compressed;
        after[i] = b.compressed ? s1 : s0;
        cur = view_of(after[i]);
        continue;
      }
      const unsigned z = r.d[r.c];
      r.z = static_cast<std::uint8_t>(z);
      if (r.f[z].first) {
        cur = view_of(r.f[z], pins);
        zs = z;
      }
    }
    // 3. Counts of the forms sent (of both forms where per-block output is wanted).
    EcBlock* out = blocks ? blocks + b0 : scratch.data();
    for (std::size_t i = 0; i < m; ++i) {
      const EcRow& r = rows[i];
      const bool close_after = dram_ && (c_.isolated || (close && b0 + i + 1 == n));
      if (r.kind == EcKind::slow) {
        tot.sent += r.z ? slow[i].comp : slow[i].raw;
        if (need_blocks) out[i] = slow[i];
      } else if (need_blocks) {
        EcBlock& b = out[i];
        b.compressed = r.z;
        b.cr = r.cr;
        counts(r, 0, close_after, &b.raw, r.z ? nullptr : &tot.sent);
        counts(r, 1, close_after, &b.comp, r.z ? &tot.sent : nullptr);
      } else {
        counts(r, r.z, close_after, nullptr, &tot.sent);
      }
      tot.compressed += r.z;
      tot.raw_units += r.f[0].units;
    }
    tot.blocks += m;
    tot.raw_bits += bits * m;
    if (cols && cols->compressed)
      for (std::size_t i = 0; i < m; ++i) cols->compressed[b0 + i] = rows[i].z;
    if (cols && need_blocks) {  // column by column over the run
#define MEMCOMP_EC_COLUMN(col, expr)                     \
  if (cols->col) {                                       \
    auto* dst = cols->col + b0;                          \
    for (std::size_t j = 0; j < m; ++j) dst[j] = (expr); \
  }
      MEMCOMP_EC_COLUMN(cr, out[j].cr)
      MEMCOMP_EC_COLUMN(t0, out[j].raw.energy)
      MEMCOMP_EC_COLUMN(t1, out[j].comp.energy)
      MEMCOMP_EC_COLUMN(units_raw, out[j].raw.units)
      MEMCOMP_EC_COLUMN(units_comp, out[j].comp.units)
      MEMCOMP_EC_COLUMN(bits_comp, out[j].comp.bits)
#define MEMCOMP_EC_SENT(f) MEMCOMP_EC_COLUMN(sent.f, out[j].compressed ? out[j].comp.f : out[j].raw.f)
      MEMCOMP_BUS_FIELDS(MEMCOMP_EC_SENT)
#undef MEMCOMP_EC_SENT
#undef MEMCOMP_EC_COLUMN
    }
    // The state the run leaves.
    if (dram_ && (c_.isolated || (close && b0 + m == n))) {  // closed: back to idle
      st = init_;
    } else {
      std::memcpy(st.wires.data(), cur.wires, unit());
      std::memcpy(st.pins.data(), cur.pins, lanes_);
      st.idle = cur.idle;
    }
  }
  tot.sent_bits = tot.sent.bits;
  tot.sent_units = tot.sent.units;
  s = st;
  return tot;
}

/// The common unit sizes (flits of 8, 16 and 32 B; 32- and 64-bit DRAM buses) as constants.
template <class P>
EcTotals ec_dispatch(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                     const std::vector<double>& gain, WireState& s, bool close, EcBlock* blocks,
                     const EcColumns* cols) {
  switch (c.unit_bytes()) {
    case 4: return EcRun<P, 4>(c, ec).run(raw, comp, gain, s, close, blocks, cols);
    case 8: return EcRun<P, 8>(c, ec).run(raw, comp, gain, s, close, blocks, cols);
    case 16: return EcRun<P, 16>(c, ec).run(raw, comp, gain, s, close, blocks, cols);
    case 32: return EcRun<P, 32>(c, ec).run(raw, comp, gain, s, close, blocks, cols);
    default: return EcRun<P, 0>(c, ec).run(raw, comp, gain, s, close, blocks, cols);
  }
}

}  // namespace

EcTotals ec_reference(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                      const std::vector<double>& gain, WireState& s, bool close, EcBlock* blocks,
                      const EcColumns* cols) {
  if (bus::hw_popcount()) return ec_dispatch<PopFast>(c, ec, raw, comp, gain, s, close, blocks, cols);
  return EcRun<PopGeneric, 0>(c, ec).run(raw, comp, gain, s, close, blocks, cols);
}

}  // namespace memcomp::detail::ec
