// memcomp analysis: bit toggles, DRAM zeros and transitions, DBI and Energy Control (SPEC 2).
//
// Counting kernel: a run of n units of U bytes after a previous unit `prev` has
//   toggles = popcount(prev ^ u_0) + sum over bytes p in [0, (n-1)U) of popcount(d[p] ^ d[p+U])
// (unit k's byte j sits U bytes after unit k-1's byte j), whatever U is, so one loop of 64-bit
// loads, XOR and popcount serves every flit and bus width. Transitions split by direction from
// the telescoping sum per wire: t01 - t10 = ones(last) - ones(first), so t01 = (toggles +
// ones(last) - ones(prev)) / 2 needs no second pass.
#include "memcomp/analysis/toggles.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "memcomp/core/error.hpp"

namespace memcomp {
namespace {

constexpr std::array<std::uint8_t, 256> make_pop8() {
  std::array<std::uint8_t, 256> t{};
  for (unsigned x = 0; x < 256; ++x) {
    unsigned c = 0;
    for (unsigned v = x; v; v >>= 1) c += v & 1u;
    t[x] = static_cast<std::uint8_t>(c);
  }
  return t;
}
constexpr std::array<std::uint8_t, 256> kPop8 = make_pop8();

/// Toggles and ones of a run of units, and the ones of the units before and after it.
struct Plain {
  std::uint64_t toggles = 0, ones = 0, ones_prev = 0, ones_last = 0;
};

inline std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline std::uint64_t pop_generic(std::uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (x * 0x0101010101010101ull) >> 56;
}

#if defined(__GNUC__)
#define MEMCOMP_INLINE inline __attribute__((always_inline))
#else
#define MEMCOMP_INLINE inline
#endif

struct PopGeneric {
  static MEMCOMP_INLINE std::uint64_t pc(std::uint64_t x) { return pop_generic(x); }
};
#if defined(__GNUC__)
struct PopBuiltin {
  static MEMCOMP_INLINE std::uint64_t pc(std::uint64_t x) { return static_cast<std::uint64_t>(__builtin_popcountll(x)); }
};
#endif

/// tog += popcount(a ^ b), ones += popcount(a) over len bytes (a and b may overlap).
template <class P>
MEMCOMP_INLINE void xor_pop(const std::uint8_t* a, const std::uint8_t* b, std::size_t len, std::uint64_t& tog,
                            std::uint64_t& ones) {
  std::uint64_t t0 = 0, t1 = 0, o0 = 0, o1 = 0;
  std::size_t p = 0;
  for (; p + 16 <= len; p += 16) {
    const std::uint64_t a0 = load64(a + p), a1 = load64(a + p + 8);
    t0 += P::pc(a0 ^ load64(b + p));
    t1 += P::pc(a1 ^ load64(b + p + 8));
    o0 += P::pc(a0);
    o1 += P::pc(a1);
  }
  for (; p + 8 <= len; p += 8) {
    const std::uint64_t a0 = load64(a + p);
    t0 += P::pc(a0 ^ load64(b + p));
    o0 += P::pc(a0);
  }
  for (; p < len; ++p) {
    t1 += kPop8[a[p] ^ b[p]];
    o1 += kPop8[a[p]];
  }
  tog += t0 + t1;
  ones += o0 + o1;
}

template <class P>
MEMCOMP_INLINE std::uint64_t pop(const std::uint8_t* a, std::size_t len) {
  std::uint64_t o = 0;
  std::size_t p = 0;
  for (; p + 8 <= len; p += 8) o += P::pc(load64(a + p));
  for (; p < len; ++p) o += kPop8[a[p]];
  return o;
}

/// n units after prev (toggles include prev -> unit 0), then nt more units after the last one.
template <class P>
MEMCOMP_INLINE Plain plain_units(const std::uint8_t* prev, const std::uint8_t* d, std::size_t n,
                                 const std::uint8_t* tail, std::size_t nt, std::size_t u) {
  Plain r;
  r.ones_prev = pop<P>(prev, u);
  const std::uint8_t* last = prev;
  if (n) {
    std::uint64_t t = 0;
    xor_pop<P>(d, prev, u, r.toggles, t);                  // unit 0 against the state
    xor_pop<P>(d + u, d, (n - 1) * u, r.toggles, r.ones);  // unit k against unit k-1
    r.ones += t;
    last = d + (n - 1) * u;
  }
  if (nt) {
    std::uint64_t t = 0;
    xor_pop<P>(tail, last, u, r.toggles, t);
    xor_pop<P>(tail + u, tail, (nt - 1) * u, r.toggles, r.ones);
    r.ones += t;
    last = tail + (nt - 1) * u;
  }
  r.ones_last = pop<P>(last, u);
  return r;
}

/// n raw blocks of b bytes, back to back, b a multiple of u (no padding). Block 0 follows prev;
/// block i > 0 follows the last unit of block i-1 (stream) or init (isolated).
template <class P>
MEMCOMP_INLINE void plain_blocks(const std::uint8_t* data, std::size_t n, std::size_t b, std::size_t u,
                                 const std::uint8_t* prev, const std::uint8_t* init, bool isolated, Plain* out) {
  const std::uint64_t ones_init = pop<P>(init, u);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* blk = data + i * b;
    Plain r;
    if (i == 0 || isolated) {
      const std::uint8_t* pv = i == 0 ? prev : init;
      r.ones_prev = i == 0 ? pop<P>(prev, u) : ones_init;
      std::uint64_t t = 0;
      xor_pop<P>(blk, pv, u, r.toggles, t);
      xor_pop<P>(blk + u, blk, b - u, r.toggles, r.ones);
      r.ones += t;
    } else {
      r.ones_prev = out[i - 1].ones_last;
      xor_pop<P>(blk, blk - u, b, r.toggles, r.ones);
    }
    r.ones_last = pop<P>(blk + b - u, u);
    out[i] = r;
  }
}

using PlainFn = Plain (*)(const std::uint8_t*, const std::uint8_t*, std::size_t, const std::uint8_t*, std::size_t,
                          std::size_t);
using BlocksFn = void (*)(const std::uint8_t*, std::size_t, std::size_t, std::size_t, const std::uint8_t*,
                          const std::uint8_t*, bool, Plain*);

#define MEMCOMP_KERNELS(SUFFIX, POP, ATTR)                                                            \
  ATTR Plain plain_##SUFFIX(const std::uint8_t* prev, const std::uint8_t* d, std::size_t n,            \
                            const std::uint8_t* tail, std::size_t nt, std::size_t u) {                 \
    return plain_units<POP>(prev, d, n, tail, nt, u);                                                  \
  }                                                                                                    \
  ATTR void blocks_##SUFFIX(const std::uint8_t* data, std::size_t n, std::size_t b, std::size_t u,     \
                            const std::uint8_t* prev, const std::uint8_t* init, bool isolated, Plain* out) { \
    plain_blocks<POP>(data, n, b, u, prev, init, isolated, out);                                       \
  }

MEMCOMP_KERNELS(generic, PopGeneric, )
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
MEMCOMP_KERNELS(popcnt, PopBuiltin, __attribute__((target("popcnt"))))
const bool kHwPop = __builtin_cpu_supports("popcnt");
const PlainFn kPlain = kHwPop ? &plain_popcnt : &plain_generic;
const BlocksFn kBlocks = kHwPop ? &blocks_popcnt : &blocks_generic;
#elif defined(__GNUC__)
MEMCOMP_KERNELS(builtin, PopBuiltin, )
const PlainFn kPlain = &plain_builtin;
const BlocksFn kBlocks = &blocks_builtin;
#else
const PlainFn kPlain = &plain_generic;
const BlocksFn kBlocks = &blocks_generic;
#endif
#undef MEMCOMP_KERNELS

/// Data counts of a transfer from its Plain counts.
void set_data(BusCounts& r, const Plain& t, std::uint64_t wire_bits) {
  r.ones = static_cast<std::uint32_t>(t.ones);
  r.zeros = static_cast<std::uint32_t>(wire_bits - t.ones);
  r.t01 = static_cast<std::uint32_t>((t.toggles + t.ones_last - t.ones_prev) / 2);
  r.t10 = static_cast<std::uint32_t>(t.toggles - r.t01);
}

/// Builds the ntail units that follow the full units: the partial unit (rem stream bits taken
/// from src, the rest padded), then whole pad units. `last` is the unit before the first one
/// built (hold copies its wires).
void build_tail(std::uint8_t* dst, const std::uint8_t* src, std::uint64_t rem, std::size_t ntail, std::size_t u,
                Pad pad, const std::uint8_t* last) {
  for (std::size_t j = 0; j < ntail; ++j) {
    std::uint8_t* unit = dst + j * u;
    const std::uint8_t* before = j == 0 ? last : unit - u;
    const std::uint64_t real = j == 0 ? rem : 0;  // stream bits in this unit
    const std::size_t rb = static_cast<std::size_t>(real / 8);
    const unsigned rbits = static_cast<unsigned>(real % 8);
    if (rb) std::memcpy(unit, src, rb);
    if (pad == Pad::hold)
      std::memcpy(unit + rb, before + rb, u - rb);
    else
      std::memset(unit + rb, pad == Pad::zero ? 0 : 0xFF, u - rb);
    if (rbits) {
      const auto keep = static_cast<std::uint8_t>(0xFFu << (8 - rbits));  // MSB-first stream bits
      unit[rb] = static_cast<std::uint8_t>((src[rb] & keep) | (unit[rb] & ~keep));
    }
  }
}

}  // namespace

// ---- configuration ---------------------------------------------------------------------------

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
          {"pad", std::string(c.pad == Pad::zero ? "zero" : c.pad == Pad::one ? "one" : "hold")},
          {"mode", std::string(c.isolated ? "isolated" : "stream")},
          {"init", std::int64_t{c.init_ones ? 1 : 0}},
          {"idle", std::string(c.idle_high ? "high" : "low")},
          {"dbi", std::string(c.dbi == Dbi::none ? "none" : c.dbi == Dbi::dc ? "dc" : "ac")},
          {"ac_threshold", std::int64_t{c.ac_threshold}},
          {"ac_first", std::string(c.ac_first_no_invert ? "no_invert" : "threshold")},
          {"ac_count_pin", c.ac_count_pin}};
}

WireState initial_state(const BusConfig& c) {
  WireState s;
  const bool dram = c.channel == Channel::dram;
  const std::uint8_t level = dram ? (c.idle_high ? 0xFF : 0x00) : (c.init_ones ? 0xFF : 0x00);
  s.wires.fill(level);
  s.pins.fill(c.idle_high ? 1 : 0);  // deasserted = idle level
  s.idle = true;
  return s;
}

void check_streams(const StreamsView& s) {
  const std::uint64_t total = std::uint64_t{s.data_bytes} * 8;
  for (std::size_t i = 0; i < s.n_blocks; ++i) {
    const std::uint64_t off = s.bit_offsets[i], len = s.bit_lengths[i];
    if (off % 8)
      throw invalid_argument("block " + std::to_string(i) + ": bit offset " + std::to_string(off) +
                             " is not on a byte boundary (streams from encode start on bytes)");
    if (off > total || len > total - off)
      throw invalid_argument("block " + std::to_string(i) + ": bits [" + std::to_string(off) + ", " +
                             std::to_string(off + len) + ") lie outside the " + std::to_string(s.data_bytes) +
                             "-byte buffer");
  }
}

// ---- one bus ---------------------------------------------------------------------------------

Bus::Bus(const BusConfig& c) : c_(c) { c_.validate(); }

void Bus::finish(BusCounts& r) const {
  r.toggles = r.t01 + r.t10;
  if (c_.channel == Channel::noc)
    r.energy = r.toggles;
  else
    r.energy = c_.idle_high ? r.zeros + r.pin_zeros : r.ones + r.pin_ones;
}

BusCounts Bus::send(WireState& s, const std::uint8_t* p, std::uint64_t nbits) {
  BusCounts r;
  r.bits = static_cast<std::uint32_t>(nbits);
  if (nbits == 0) return r;
  const std::size_t u = c_.unit_bytes();
  const std::uint64_t w = c_.width_bits;
  const bool dram = c_.channel == Channel::dram;
  std::uint64_t n = (nbits + w - 1) / w;  // units (beats) with stream bits
  if (dram) {
    const std::uint64_t bursts = (n + c_.burst_length - 1) / c_.burst_length;
    r.units = static_cast<std::uint32_t>(bursts);
    n = bursts * c_.burst_length;
  } else {
    r.units = static_cast<std::uint32_t>(n);
  }
  r.beats = static_cast<std::uint32_t>(n);
  const auto nfull = static_cast<std::size_t>(nbits / w), ntail = static_cast<std::size_t>(n - nfull);
  const std::uint64_t rem = nbits % w;
  Plain t;
  const std::uint8_t* final_unit;
  if (c_.dbi == Dbi::none && !keep_driven) {
    const std::uint8_t* last = nfull ? p + (nfull - 1) * u : s.wires.data();
    if (ntail) {
      buf_.resize(ntail * u);
      build_tail(buf_.data(), p + nfull * u, rem, ntail, u, c_.pad, last);
    }
    t = kPlain(s.wires.data(), p, nfull, buf_.data(), ntail, u);
    final_unit = ntail ? buf_.data() + (ntail - 1) * u : last;
  } else {
    // Materialise the logical beats, invert lanes in place, record the pin levels.
    const std::size_t nb = static_cast<std::size_t>(n), lanes = c_.lanes();
    buf_.resize(nb * u);
    pins_.resize(nb * lanes);
    if (nfull) std::memcpy(buf_.data(), p, nfull * u);
    build_tail(buf_.data() + nfull * u, p + nfull * u, rem, ntail, u, c_.pad,
               nfull ? buf_.data() + (nfull - 1) * u : s.wires.data());
    if (c_.dbi != Dbi::none) r.inversions = apply_dbi(s, nb);
    t = kPlain(s.wires.data(), buf_.data(), nb, nullptr, 0, u);
    final_unit = buf_.data() + (nb - 1) * u;
    if (c_.dbi == Dbi::none) {
      pins_.clear();
    } else {
      const Plain pt = kPlain(s.pins.data(), pins_.data(), nb, nullptr, 0, lanes);
      r.pin_ones = static_cast<std::uint32_t>(pt.ones);
      r.pin_zeros = static_cast<std::uint32_t>(nb * lanes - pt.ones);
      r.pin_t01 = static_cast<std::uint32_t>((pt.toggles + pt.ones_last - pt.ones_prev) / 2);
      r.pin_t10 = static_cast<std::uint32_t>(pt.toggles - r.pin_t01);
      std::memcpy(s.pins.data(), pins_.data() + (nb - 1) * lanes, lanes);
    }
  }
  set_data(r, t, n * w);
  std::memmove(s.wires.data(), final_unit, u);
  s.idle = false;
  finish(r);
  return r;
}

std::uint32_t Bus::apply_dbi(const WireState& s, std::size_t nb) {
  const std::size_t u = c_.unit_bytes(), lanes = c_.lanes();
  const std::uint8_t asserted = c_.idle_high ? 0 : 1, deasserted = c_.idle_high ? 1 : 0;
  std::uint32_t inversions = 0;
  if (c_.dbi == Dbi::dc) {
    // Each lane is a byte and decides alone: eight lanes per 64-bit word. Per-byte popcounts c
    // (SWAR); idle high inverts iff c < 4 (zeros > 4), idle low iff c > 4.
    const std::size_t len = nb * u;
    const std::uint64_t bias = c_.idle_high ? 0x7C7C7C7C7C7C7C7Cull : 0x7B7B7B7B7B7B7B7Bull;
    std::size_t p = 0;
    for (; p + 8 <= len; p += 8) {
      std::uint64_t x;
      std::memcpy(&x, buf_.data() + p, 8);
      std::uint64_t c = x - ((x >> 1) & 0x5555555555555555ull);
      c = (c & 0x3333333333333333ull) + ((c >> 2) & 0x3333333333333333ull);
      c = (c + (c >> 4)) & 0x0F0F0F0F0F0F0F0Full;
      const std::uint64_t hi = ((c + bias) & 0x8080808080808080ull) >> 7;  // 1: c >= 4 (high), c >= 5 (low)
      const std::uint64_t inv = c_.idle_high ? hi ^ 0x0101010101010101ull : hi;
      x ^= inv * 0xFF;
      std::memcpy(buf_.data() + p, &x, 8);
      const std::uint64_t level = c_.idle_high ? hi : inv;  // pin level per lane: asserted = !idle
      std::memcpy(pins_.data() + p, &level, 8);
      inversions += static_cast<std::uint32_t>(pop_generic(inv));
    }
    for (; p < len; ++p) {
      const std::uint8_t x = buf_[p];
      const bool inv = c_.idle_high ? kPop8[x] < 4 : kPop8[x] > 4;
      if (inv) buf_[p] = static_cast<std::uint8_t>(~x);
      inversions += inv ? 1u : 0u;
      pins_[p] = inv ? asserted : deasserted;
    }
    return inversions;
  }
  for (std::size_t j = 0; j < nb; ++j) {
    std::uint8_t* beat = buf_.data() + j * u;
    const std::uint8_t* prev = j ? beat - u : s.wires.data();
    const std::uint8_t* prev_pin = j ? pins_.data() + (j - 1) * lanes : s.pins.data();
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::uint8_t x = beat[l];
      bool inv;
      if (c_.dbi == Dbi::dc) {
        inv = c_.idle_high ? kPop8[x] < 4 : kPop8[x] > 4;  // zeros > 4, or ones > 4
      } else if (j == 0 && s.idle && c_.ac_first_no_invert) {
        inv = false;
      } else {
        const unsigned d = kPop8[static_cast<std::uint8_t>(x ^ prev[l])];
        if (c_.ac_count_pin) {
          const unsigned plain = d + (prev_pin[l] != deasserted ? 1u : 0u);
          const unsigned flipped = 8 - d + (prev_pin[l] != asserted ? 1u : 0u);
          inv = flipped < plain;
        } else {
          inv = d > c_.ac_threshold;
        }
      }
      if (inv) beat[l] = static_cast<std::uint8_t>(~x);
      inversions += inv ? 1u : 0u;
      pins_[j * lanes + l] = inv ? asserted : deasserted;
    }
  }
  return inversions;
}

BusCounts Bus::close(WireState& s) const {
  BusCounts r;
  if (c_.channel != Channel::dram || s.idle) return r;
  const WireState idle = initial_state(c_);
  const std::size_t u = c_.unit_bytes(), lanes = c_.lanes();
  for (std::size_t k = 0; k < u; ++k) {
    r.t01 += kPop8[static_cast<std::uint8_t>(~s.wires[k] & idle.wires[k])];
    r.t10 += kPop8[static_cast<std::uint8_t>(s.wires[k] & ~idle.wires[k])];
  }
  for (std::size_t l = 0; l < lanes; ++l) {
    r.pin_t01 += s.pins[l] < idle.pins[l] ? 1u : 0u;
    r.pin_t10 += s.pins[l] > idle.pins[l] ? 1u : 0u;
  }
  s = idle;
  finish(r);
  r.energy = 0;  // idle draws no data-dependent energy
  return r;
}

BusCounts Bus::transfer(WireState& s, const std::uint8_t* p, std::uint64_t nbits, bool close_after) {
  if (c_.isolated) s = initial_state(c_);
  BusCounts r = send(s, p, nbits);
  if (c_.isolated || close_after) r += close(s);
  return r;
}

// ---- batches ---------------------------------------------------------------------------------

BusTotals bus_count_raw(const BusConfig& c, const BlockView& blocks, WireState& s, const BusColumns* out,
                        bool close) {
  Bus bus(c);
  BusTotals tot;
  const std::size_t B = blocks.block_bytes, u = c.unit_bytes(), n = blocks.n_blocks;
  const std::uint64_t bits = 8 * std::uint64_t{B};
  const bool dram = c.channel == Channel::dram;
  const std::size_t whole = dram ? u * c.burst_length : u;  // bytes per unit (dram: per burst)
  if (c.dbi != Dbi::none || B % whole != 0 || n == 0) {
    for (std::size_t i = 0; i < n; ++i) {
      const BusCounts r = bus.transfer(s, blocks.block(i), bits, close && i + 1 == n);
      if (out) out->set(i, r);
      tot += r;
    }
    return tot;
  }
  // Whole units and no padding: the array is one stream (stream mode), in chunks of blocks.
  const WireState init = initial_state(c);
  constexpr std::size_t kChunk = 2048;
  std::vector<Plain> plain(std::min(kChunk, n));
  for (std::size_t b0 = 0; b0 < n; b0 += kChunk) {
    const std::size_t m = std::min(kChunk, n - b0);
    const std::uint8_t* prev = c.isolated ? init.wires.data() : b0 == 0 ? s.wires.data() : blocks.block(b0) - u;
    kBlocks(blocks.block(b0), m, B, u, prev, init.wires.data(), c.isolated, plain.data());
    for (std::size_t i = 0; i < m; ++i) {
      BusCounts r;
      r.bits = static_cast<std::uint32_t>(bits);
      r.beats = static_cast<std::uint32_t>(B / u);
      r.units = static_cast<std::uint32_t>(B / whole);
      set_data(r, plain[i], bits);
      const std::size_t g = b0 + i;
      if (dram && (c.isolated || (close && g + 1 == n))) {  // back to idle after the last beat
        WireState at;
        std::memcpy(at.wires.data(), blocks.block(g) + B - u, u);
        at.pins = init.pins;
        at.idle = false;
        const BusCounts back = bus.close(at);
        r.t01 += back.t01;
        r.t10 += back.t10;
      }
      bus.finish(r);
      if (out) out->set(g, r);
      tot += r;
    }
  }
  if (c.isolated || (dram && close)) {
    s = init;
  } else {
    std::memcpy(s.wires.data(), blocks.block(n - 1) + B - u, u);
    s.pins = init.pins;
    s.idle = false;
  }
  return tot;
}

BusTotals bus_count_streams(const BusConfig& c, const StreamsView& st, WireState& s, const BusColumns* out,
                            bool close) {
  check_streams(st);
  Bus bus(c);
  BusTotals tot;
  for (std::size_t i = 0; i < st.n_blocks; ++i) {
    const BusCounts r =
        bus.transfer(s, st.data + st.bit_offsets[i] / 8, st.bit_lengths[i], close && i + 1 == st.n_blocks);
    if (out) out->set(i, r);
    tot += r;
  }
  return tot;
}

// ---- Energy Control --------------------------------------------------------------------------

double ec_gain(double bu) {
  if (!(bu >= 0.0 && bu <= 1.0)) throw invalid_argument("bandwidth utilisation must lie in [0, 1]");
  if (bu <= 0.5) return 1.0;
  return 1.0 / (1.0 - std::min(bu, 0.99));
}

bool ec_decide(double t0, double t1, double cr, double g, unsigned k, double alpha) {
  if (!(cr > 1.0)) return false;
  if (t1 == 0.0) return true;
  const double gcr = g * cr;
  double f = gcr;
  for (unsigned i = 1; i < k; ++i) f *= gcr;
  return f * t0 > alpha * t1;
}

namespace {

void check_ec(const EcConfig& ec, const BlockView& raw, const StreamsView& comp, std::size_t bu_count) {
  if (comp.n_blocks != raw.n_blocks)
    throw invalid_argument("energy control needs one compressed stream per block: " +
                           std::to_string(raw.n_blocks) + " blocks, " + std::to_string(comp.n_blocks) + " streams");
  if (bu_count != 1 && bu_count != raw.n_blocks)
    throw invalid_argument("bu must be a scalar or have one entry per block");
  if (ec.k != 1 && ec.k != 2) throw invalid_argument("energy control k must be 1 (ec1) or 2 (ec2)");
  if (!(ec.alpha > 0.0) || !std::isfinite(ec.alpha)) throw invalid_argument("alpha must be a positive number");
  check_streams(comp);
}

/// Blocks per EC chunk (and the longest run a sink receives).
constexpr std::size_t kEcRun = 256;

/// Adds the block's counts to the totals. Blocks reach the sink in runs, sink(first, count,
/// blocks): it writes its columns one at a time (a store to each of many columns per block makes
/// the columns, all aligned alike, evict each other from the cache).
MEMCOMP_INLINE void ec_emit(EcTotals& tot, std::uint64_t bits, const EcBlock& b) {
  const BusCounts& sent = b.compressed ? b.comp : b.raw;
  tot.blocks += 1;
  tot.compressed += b.compressed;
  tot.raw_bits += bits;
  tot.sent_bits += sent.bits;
  tot.raw_units += b.raw.units;
  tot.sent_units += sent.units;
  tot.sent += sent;
}

/// Reference EC: both forms driven through a Bus from the current state, block by block.
template <class Sink>
EcTotals ec_reference(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                      const std::vector<double>& gain, WireState& s, bool close, Sink& sink) {
  Bus bus(c);
  EcTotals tot;
  const std::uint64_t bits = 8 * std::uint64_t{raw.block_bytes};
  WireState s1;
  for (std::size_t i = 0; i < raw.n_blocks; ++i) {
    const bool last = close && i + 1 == raw.n_blocks;
    EcBlock b;
    s1 = s;
    b.raw = bus.transfer(s, raw.block(i), bits, last);  // s: the raw form's state
    b.comp = bus.transfer(s1, comp.data + comp.bit_offsets[i] / 8, comp.bit_lengths[i], last);
    b.cr = b.comp.units ? static_cast<double>(b.raw.units) / b.comp.units : std::numeric_limits<double>::infinity();
    const bool z = ec_decide(b.raw.energy, b.comp.energy, b.cr, gain[gain.size() == 1 ? 0 : i], ec.k, ec.alpha);
    b.compressed = z ? 1 : 0;
    if (z) s = s1;
    ec_emit(tot, bits, b);
    sink(i, std::size_t{1}, &b);
  }
  return tot;
}

// Fast EC. A transfer's counts split into a part that does not depend on the wire state (its
// units, ones and zeros, DBI-dc inversions and pins, and the toggles between its own consecutive
// units) and the terms of its first unit against the state (and, on dram, of its last unit
// against idle when the bus closes). The first part is prepared for a chunk of blocks at once;
// the sequential pass only adds the boundary terms, so it costs a few words per block.

/// One prepared form (raw or compressed) of one block.
struct EcForm {
  const std::uint8_t* first = nullptr;   ///< first driven unit
  const std::uint8_t* last = nullptr;    ///< last driven unit
  const std::uint8_t* pfirst = nullptr;  ///< DBI pin levels of the first and last beats
  const std::uint8_t* plast = nullptr;
  BusCounts c;  ///< state-independent counts; toggles = internal data toggles, pin_t01 = internal pin toggles
  std::uint32_t ones_last = 0, pin_ones_last = 0;
  bool slow = false;  ///< depends on the state beyond its first unit: driven through a Bus
};

template <class P>
MEMCOMP_INLINE std::uint64_t xpop(const std::uint8_t* a, const std::uint8_t* b, std::size_t len) {
  std::uint64_t t = 0, o = 0;
  xor_pop<P>(a, b, len, t, o);
  return t;
}

/// x / d, by a shift when d is a power of two (sh >= 0).
MEMCOMP_INLINE std::uint64_t div_by(std::uint64_t x, std::uint64_t d, int sh) {
  return sh >= 0 ? x >> sh : x / d;
}
inline int shift_of(std::uint64_t d) {
  int sh = 0;
  while ((std::uint64_t{1} << sh) < d) ++sh;
  return (std::uint64_t{1} << sh) == d ? sh : -1;
}

/// Prepares a transfer of nbits stream bits at p. slot holds the form's built units (stride
/// bytes), pslot its first and last pin levels (dbi dc). wsh, bsh: shift_of(width, burst length).
template <class P>
MEMCOMP_INLINE void ec_prepare(const BusConfig& c, Bus& bus, const WireState& init, EcForm& f,
                               const std::uint8_t* p, std::uint64_t nbits, std::uint8_t* slot, std::uint8_t* pslot,
                               int wsh, int bsh) {
  f.slow = false;
  if (nbits == 0 || c.dbi == Dbi::ac) {
    f.slow = true;
    return;
  }
  const std::size_t u = c.unit_bytes();
  const std::uint64_t w = c.width_bits;
  std::uint64_t n = div_by(nbits + w - 1, w, wsh);
  const auto nfull = static_cast<std::size_t>(div_by(nbits, w, wsh));
  if (c.pad == Pad::hold && nfull == 0) {  // the padding copies the wire state
    f.slow = true;
    return;
  }
  if (c.dbi == Dbi::dc) {
    WireState ds = init;
    const BusCounts r = bus.send(ds, p, nbits);
    const std::size_t nb = r.beats, lanes = std::min<std::size_t>(c.lanes(), 8);
    const std::uint8_t* d = bus.driven().data();
    const std::uint8_t* pl = bus.pin_levels().data();
    std::memcpy(slot, d, u);
    std::memcpy(slot + u, d + (nb - 1) * u, u);
    std::memcpy(pslot, pl, lanes);
    std::memcpy(pslot + lanes, pl + (nb - 1) * lanes, lanes);
    f.first = slot;
    f.last = slot + u;
    f.pfirst = pslot;
    f.plast = pslot + lanes;
    f.c = r;
    f.c.toggles = static_cast<std::uint32_t>(r.toggles - xpop<P>(init.wires.data(), slot, u));
    f.c.pin_t01 =
        static_cast<std::uint32_t>(r.pin_t01 + r.pin_t10 - xpop<P>(init.pins.data(), pslot, lanes));
    f.ones_last = static_cast<std::uint32_t>(pop<P>(slot + u, u));
    f.pin_ones_last = static_cast<std::uint32_t>(pop<P>(pslot + lanes, lanes));
    return;
  }
  BusCounts& r = f.c;
  r = BusCounts{};
  r.bits = static_cast<std::uint32_t>(nbits);
  if (c.channel == Channel::dram) {
    const std::uint64_t bursts = div_by(n + c.burst_length - 1, c.burst_length, bsh);
    r.units = static_cast<std::uint32_t>(bursts);
    n = bursts * c.burst_length;
  } else {
    r.units = static_cast<std::uint32_t>(n);
  }
  r.beats = static_cast<std::uint32_t>(n);
  const auto ntail = static_cast<std::size_t>(n - nfull);
  if (ntail) build_tail(slot, p + nfull * u, nbits - nfull * w, ntail, u, c.pad, nfull ? p + (nfull - 1) * u : slot);
  f.first = nfull ? p : slot;
  f.last = ntail ? slot + (ntail - 1) * u : p + (nfull - 1) * u;
  const Plain t = plain_units<P>(f.first, p, nfull, slot, ntail, u);  // first unit against itself: 0
  r.toggles = static_cast<std::uint32_t>(t.toggles);
  r.ones = static_cast<std::uint32_t>(t.ones);
  r.zeros = static_cast<std::uint32_t>(n * w - t.ones);
  f.ones_last = static_cast<std::uint32_t>(t.ones_last);
}

/// The current wire state, as a view (the last unit sent may live in a prepared slot).
struct EcState {
  const std::uint8_t* wires;
  const std::uint8_t* pins;
  std::uint64_t ones, pin_ones;
  bool idle;
};

/// The counts of a prepared form sent from state s (closing the dram bus after it if asked).
template <class P>
MEMCOMP_INLINE BusCounts ec_finish(const BusConfig& c, const WireState& idle, const EcForm& f,
                                   const EcState& s, bool close_after) {
  const std::size_t u = c.unit_bytes(), lanes = std::min<std::size_t>(c.lanes(), 8);
  BusCounts r = f.c;
  const std::uint64_t tog = r.toggles + xpop<P>(s.wires, f.first, u);
  r.t01 = static_cast<std::uint32_t>((tog + f.ones_last - s.ones) / 2);
  r.t10 = static_cast<std::uint32_t>(tog - r.t01);
  const std::uint8_t* pins_after = s.pins;
  if (c.dbi != Dbi::none) {
    const std::uint64_t pt = r.pin_t01 + xpop<P>(s.pins, f.pfirst, lanes);
    r.pin_t01 = static_cast<std::uint32_t>((pt + f.pin_ones_last - s.pin_ones) / 2);
    r.pin_t10 = static_cast<std::uint32_t>(pt - r.pin_t01);
    pins_after = f.plast;
  }
  if (close_after && c.channel == Channel::dram) {  // back to idle
    for (std::size_t k = 0; k < u; ++k) {
      r.t01 += kPop8[static_cast<std::uint8_t>(~f.last[k] & idle.wires[k])];
      r.t10 += kPop8[static_cast<std::uint8_t>(f.last[k] & ~idle.wires[k])];
    }
    for (std::size_t l = 0; l < lanes; ++l) {
      r.pin_t01 += pins_after[l] < idle.pins[l] ? 1u : 0u;
      r.pin_t10 += pins_after[l] > idle.pins[l] ? 1u : 0u;
    }
  }
  // Bus::finish, inline (an out-of-line call here stalls on the fields it just wrote).
  r.toggles = r.t01 + r.t10;
  r.energy = c.channel == Channel::noc ? r.toggles : c.idle_high ? r.zeros + r.pin_zeros : r.ones + r.pin_ones;
  return r;
}

template <class P, class Sink>
MEMCOMP_INLINE EcTotals ec_fast(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                                const std::vector<double>& gain, WireState& s, bool close, Sink& sink) {
  Bus bus(c);
  EcTotals tot;
  const bool dram = c.channel == Channel::dram;
  // DBI pins exist on dram only (at most 8 lanes).
  const std::size_t n = raw.n_blocks, u = c.unit_bytes(), lanes = dram ? std::min<std::size_t>(c.lanes(), 8) : 0;
  const std::uint64_t bits = 8 * std::uint64_t{raw.block_bytes};
  const WireState init = initial_state(c);
  const std::uint64_t init_ones = pop<P>(init.wires.data(), u), init_pin_ones = pop<P>(init.pins.data(), lanes);
  const int wsh = shift_of(c.width_bits), bsh = shift_of(c.burst_length);
  const std::size_t stride = u * std::max<std::size_t>(dram ? c.burst_length : 1, 2);
  constexpr std::size_t kChunk = kEcRun;
  const std::size_t cap = std::min(kChunk, n);
  std::vector<EcForm> fr(cap), fc(cap);
  std::vector<EcBlock> blk(cap);  // emitted after the pass (reading fresh stores at once stalls)
  std::vector<std::uint8_t> arena(2 * cap * stride), parena(c.dbi != Dbi::none ? 4 * cap * lanes : 0);
  WireState st = s;  // holds the state between chunks (and after a slow block)
  EcState cur{st.wires.data(), st.pins.data(), pop<P>(st.wires.data(), u), pop<P>(st.pins.data(), lanes), st.idle};
  bool from_init = false;  // cur was reset to idle since st was last written: st's other bytes are init's
  auto sync = [&] {     // st = the state cur shows
    WireState t = from_init ? init : st;
    std::memmove(t.wires.data(), cur.wires, u);
    std::memmove(t.pins.data(), cur.pins, lanes);
    t.idle = cur.idle;
    st = t;
    from_init = false;
    cur.wires = st.wires.data();
    cur.pins = st.pins.data();
  };
  const bool scalar_bu = gain.size() == 1;
  for (std::size_t b0 = 0; b0 < n; b0 += kChunk) {
    const std::size_t m = std::min(kChunk, n - b0);
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t g = b0 + i;
      std::uint8_t* pa = parena.empty() ? nullptr : parena.data() + 4 * i * lanes;
      ec_prepare<P>(c, bus, init, fr[i], raw.block(g), bits, arena.data() + 2 * i * stride, pa, wsh, bsh);
      ec_prepare<P>(c, bus, init, fc[i], comp.data + comp.bit_offsets[g] / 8, comp.bit_lengths[g],
                    arena.data() + (2 * i + 1) * stride, pa ? pa + 2 * lanes : nullptr, wsh, bsh);
    }
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t g = b0 + i;
      const bool last = close && g + 1 == n;
      if (c.isolated) {
        cur = EcState{init.wires.data(), init.pins.data(), init_ones, init_pin_ones, true};
        from_init = true;
      }
      EcBlock& b = blk[i];
      const double gn = gain[scalar_bu ? 0 : g];
      if (fr[i].slow || fc[i].slow) {
        sync();
        WireState s0 = st, s1 = st;
        b.raw = bus.transfer(s0, raw.block(g), bits, last);
        b.comp = bus.transfer(s1, comp.data + comp.bit_offsets[g] / 8, comp.bit_lengths[g], last);
        b.cr = b.comp.units ? static_cast<double>(b.raw.units) / b.comp.units
                            : std::numeric_limits<double>::infinity();
        b.compressed = ec_decide(b.raw.energy, b.comp.energy, b.cr, gn, ec.k, ec.alpha) ? 1 : 0;
        st = b.compressed ? s1 : s0;
        cur = EcState{st.wires.data(), st.pins.data(), pop<P>(st.wires.data(), u), pop<P>(st.pins.data(), lanes),
                      st.idle};
      } else {
        const bool close_after = dram && (c.isolated || last);
        b.raw = ec_finish<P>(c, init, fr[i], cur, close_after);
        b.comp = ec_finish<P>(c, init, fc[i], cur, close_after);
        b.cr = b.comp.units ? static_cast<double>(b.raw.units) / b.comp.units
                            : std::numeric_limits<double>::infinity();
        b.compressed = ec_decide(b.raw.energy, b.comp.energy, b.cr, gn, ec.k, ec.alpha) ? 1 : 0;
        const EcForm& f = b.compressed ? fc[i] : fr[i];
        if (close_after) {
          cur = EcState{init.wires.data(), init.pins.data(), init_ones, init_pin_ones, true};
          from_init = true;
        } else {
          cur.wires = f.last;
          cur.ones = f.ones_last;
          if (c.dbi != Dbi::none) {
            cur.pins = f.plast;
            cur.pin_ones = f.pin_ones_last;
          }
          cur.idle = false;
        }
      }
    }
    for (std::size_t i = 0; i < m; ++i) ec_emit(tot, bits, blk[i]);
    sink(b0, m, static_cast<const EcBlock*>(blk.data()));
    // The next chunk reuses the slots: keep the state in st.
    sync();
  }
  s = st;
  return tot;
}

template <class Sink>
EcTotals ec_fast_generic(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                         const std::vector<double>& gain, WireState& s, bool close, Sink& sink) {
  return ec_fast<PopGeneric>(c, ec, raw, comp, gain, s, close, sink);
}
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
template <class Sink>
__attribute__((target("popcnt"))) EcTotals ec_fast_popcnt(const BusConfig& c, const EcConfig& ec,
                                                          const BlockView& raw, const StreamsView& comp,
                                                          const std::vector<double>& gain, WireState& s, bool close,
                                                          Sink& sink) {
  return ec_fast<PopBuiltin>(c, ec, raw, comp, gain, s, close, sink);
}
#elif defined(__GNUC__)
template <class Sink>
EcTotals ec_fast_builtin(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                         const std::vector<double>& gain, WireState& s, bool close, Sink& sink) {
  return ec_fast<PopBuiltin>(c, ec, raw, comp, gain, s, close, sink);
}
#endif

template <class Sink>
EcTotals run_energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                            const double* bu, std::size_t bu_count, WireState& s, bool close, Sink&& sink) {
  check_ec(ec, raw, comp, bu_count);
  c.validate();
  std::vector<double> gain(bu_count);
  for (std::size_t i = 0; i < bu_count; ++i) gain[i] = ec_gain(bu[i]);
  if (c.dbi == Dbi::ac || raw.n_blocks == 0) return ec_reference(c, ec, raw, comp, gain, s, close, sink);
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  if (kHwPop) return ec_fast_popcnt(c, ec, raw, comp, gain, s, close, sink);
  return ec_fast_generic(c, ec, raw, comp, gain, s, close, sink);
#elif defined(__GNUC__)
  return ec_fast_builtin(c, ec, raw, comp, gain, s, close, sink);
#else
  return ec_fast_generic(c, ec, raw, comp, gain, s, close, sink);
#endif
}

}  // namespace

EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, EcBlock* out, bool close) {
  return run_energy_control(c, ec, raw, comp, bu, bu_count, s, close,
                            [&](std::size_t i0, std::size_t m, const EcBlock* b) {
                              if (out) std::copy(b, b + m, out + i0);
                            });
}

EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close) {
  return run_energy_control(c, ec, raw, comp, bu, bu_count, s, close,
                            [&](std::size_t i0, std::size_t m, const EcBlock* b) {
    if (!out) return;
    // Column by column over the run.
#define MEMCOMP_EC_COLUMN(col, expr)                                  \
  if (out->col) {                                                     \
    auto* dst = out->col + i0;                                        \
    for (std::size_t j = 0; j < m; ++j) dst[j] = (expr);              \
  }
    MEMCOMP_EC_COLUMN(compressed, b[j].compressed)
    MEMCOMP_EC_COLUMN(cr, b[j].cr)
    MEMCOMP_EC_COLUMN(t0, b[j].raw.energy)
    MEMCOMP_EC_COLUMN(t1, b[j].comp.energy)
    MEMCOMP_EC_COLUMN(units_raw, b[j].raw.units)
    MEMCOMP_EC_COLUMN(units_comp, b[j].comp.units)
    MEMCOMP_EC_COLUMN(bits_comp, b[j].comp.bits)
    const BusCounts* sent[kEcRun];  // the form sent, per block of the run
    for (std::size_t j = 0; j < m; ++j) sent[j] = b[j].compressed ? &b[j].comp : &b[j].raw;
#define MEMCOMP_EC_SENT(f) MEMCOMP_EC_COLUMN(sent.f, sent[j]->f)
    MEMCOMP_BUS_FIELDS(MEMCOMP_EC_SENT)
#undef MEMCOMP_EC_SENT
#undef MEMCOMP_EC_COLUMN
  });
}

}  // namespace memcomp
