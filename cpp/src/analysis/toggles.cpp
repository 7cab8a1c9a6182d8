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

#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

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
inline std::uint64_t load32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
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
  static MEMCOMP_INLINE std::uint64_t pc(std::uint64_t x) {
    return static_cast<std::uint64_t>(__builtin_popcountll(x));
  }
};
#endif
#if defined(__GNUC__) && defined(__x86_64__)
/// The POPCNT instruction in any function (callers check the CPU first): code that uses it needs
/// no target attribute, so it inlines and splits as the compiler sees fit.
struct PopAsm {
  static MEMCOMP_INLINE std::uint64_t pc(std::uint64_t x) {
    std::uint64_t r;
    __asm__("popcntq %1, %0" : "=r"(r) : "rm"(x));
    return r;
  }
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
  if (p + 4 <= len) {
    const std::uint64_t a0 = load32(a + p);
    t0 += P::pc(a0 ^ load32(b + p));
    o0 += P::pc(a0);
    p += 4;
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
  if (p + 4 <= len) {
    o += P::pc(load32(a + p));
    p += 4;
  }
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

template <class P>
Plain plain_kernel(const std::uint8_t* prev, const std::uint8_t* d, std::size_t n, const std::uint8_t* tail,
                   std::size_t nt, std::size_t u) {
  return plain_units<P>(prev, d, n, tail, nt, u);
}
template <class P>
void blocks_kernel(const std::uint8_t* data, std::size_t n, std::size_t b, std::size_t u, const std::uint8_t* prev,
                   const std::uint8_t* init, bool isolated, Plain* out) {
  plain_blocks<P>(data, n, b, u, prev, init, isolated, out);
}

// One popcount policy for the whole file: the POPCNT instruction where the CPU has it (checked at
// run time on x86-64, where the baseline lacks it), the portable one otherwise.
#if defined(__GNUC__) && defined(__x86_64__)
using PopFast = PopAsm;
const bool kHwPop = __builtin_cpu_supports("popcnt");
#elif defined(__GNUC__)
using PopFast = PopBuiltin;
const bool kHwPop = true;
#else
using PopFast = PopGeneric;
const bool kHwPop = false;
#endif
const PlainFn kPlain = kHwPop ? &plain_kernel<PopFast> : &plain_kernel<PopGeneric>;
const BlocksFn kBlocks = kHwPop ? &blocks_kernel<PopFast> : &blocks_kernel<PopGeneric>;

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

namespace {

/// What check_streams looks at, in one pass without branches: the bits of every offset OR-ed,
/// the largest offset, the largest end (off + len: it wraps only past a largest offset out of
/// range); and the longest and shortest streams.
struct StreamBounds {
  std::uint64_t low = 0, max_off = 0, max_end = 0;
  std::uint32_t longest = 0, shortest = ~std::uint32_t{0};
};
MEMCOMP_INLINE StreamBounds stream_bounds(const StreamsView& s) {
  StreamBounds b;
  for (std::size_t i = 0; i < s.n_blocks; ++i) {
    const std::uint64_t off = s.bit_offsets[i];
    const std::uint32_t len = s.bit_lengths[i];
    b.low |= off;
    b.max_off = std::max(b.max_off, off);
    b.max_end = std::max(b.max_end, off + len);
    b.longest = std::max(b.longest, len);
    b.shortest = std::min(b.shortest, len);
  }
  return b;
}
#if defined(MEMCOMP_X86_SIMD)
MEMCOMP_AVX2 StreamBounds stream_bounds_avx2(const StreamsView& s) { return stream_bounds(s); }
#endif

/// check_streams, returning the bounds (the messages only once a bad stream is known).
StreamBounds checked_bounds(const StreamsView& s) {
  const std::uint64_t total = std::uint64_t{s.data_bytes} * 8;
#if defined(MEMCOMP_X86_SIMD)
  const StreamBounds b = simd_avx2() ? stream_bounds_avx2(s) : stream_bounds(s);
#else
  const StreamBounds b = stream_bounds(s);
#endif
  if ((b.low & 7) || b.max_off > total || b.max_end > total) check_streams(s);
  return b;
}

}  // namespace

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

BusTotals bus_count_raw(const BusConfig& c, const BlockView& blocks, WireState& s, const BusColumns* out, bool close) {
  Bus bus(c);
  BusTotals tot;
  const std::size_t B = blocks.block_bytes, u = c.unit_bytes(), n = blocks.n_blocks;
  const std::uint64_t bits = 8 * std::uint64_t{B};
  const bool dram = c.channel == Channel::dram;
  const std::size_t whole = dram ? u * c.burst_length : u;  // bytes per unit (dram: per burst)
  if (n == 0) {  // nothing to send: a close returns the bus to idle from the state it is in
    if (close) tot += bus.close(s);
    return tot;
  }
  if (c.dbi != Dbi::none || B % whole != 0) {
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
  if (st.n_blocks == 0 && close) tot += bus.close(s);  // an empty batch closes the bus too
  return tot;
}

// ---- Energy Control --------------------------------------------------------------------------

double ec_gain(double bu) {
  if (!(bu >= 0.0 && bu <= 1.0)) throw invalid_argument("bandwidth utilisation must lie in [0, 1]");
  if (bu <= 0.5) return 1.0;
  return 1.0 / (1.0 - std::min(bu, 0.99));
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// (g CR)^k, the weight of T0 in the decision; k = 0 (no energy term) weighs T0 without bound.
MEMCOMP_INLINE double ec_factor(double cr, double g, unsigned k) {
  if (k == 0) return kInf;
  const double gcr = g * cr;
  double f = gcr;
  for (unsigned i = 1; i < k; ++i) f *= gcr;
  return f;
}

/// The decision with the weight f = ec_factor(CR, g, k) and cr_ok = CR > 1. An unbounded weight
/// (k = 0, P2's baseline) decides on CR alone, whatever T0 and T1 (for k = 1, 2 f is finite, or
/// infinite only for an empty compressed form, whose T1 is 0).
MEMCOMP_INLINE bool ec_prefers(bool cr_ok, double f, double t0, double t1, double alpha) {
  return cr_ok && (t1 == 0.0 || f == kInf || f * t0 > alpha * t1);
}

}  // namespace

bool ec_decide(double t0, double t1, double cr, double g, unsigned k, double alpha) {
  return ec_prefers(cr > 1.0, ec_factor(cr, g, k), t0, t1, alpha);
}

namespace {

/// Checks the inputs; returns the bounds of the streams.
StreamBounds check_ec(const EcConfig& ec, const BlockView& raw, const StreamsView& comp, std::size_t bu_count) {
  if (comp.n_blocks != raw.n_blocks)
    throw invalid_argument("energy control needs one compressed stream per block: " + std::to_string(raw.n_blocks) +
                           " blocks, " + std::to_string(comp.n_blocks) + " streams");
  if (bu_count != 1 && bu_count != raw.n_blocks)
    throw invalid_argument("bu must be a scalar or have one entry per block");
  if (ec.k > 2) throw invalid_argument("energy control k must be 0 (no energy term), 1 (ec1) or 2 (ec2)");
  if (!(ec.alpha > 0.0) || !std::isfinite(ec.alpha)) throw invalid_argument("alpha must be a positive number");
  return checked_bounds(comp);
}

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

/// Blocks per run.
constexpr std::size_t kEcRun = 256;

/// A wire state seen through pointers (into the data, a prepared slot or a WireState).
struct EcView {
  const std::uint8_t* wires = nullptr;
  const std::uint8_t* pins = nullptr;
  std::uint32_t ones = 0, pin_ones = 0;
  bool idle = true;
};

/// log2(d) for a power of two, else -1.
int shift_of(std::uint64_t d) {
  int sh = 0;
  while ((std::uint64_t{1} << sh) < d) ++sh;
  return (std::uint64_t{1} << sh) == d ? sh : -1;
}
/// x / d, by a shift when d is a power of two (sh = shift_of(d) >= 0).
MEMCOMP_INLINE std::uint64_t div_by(std::uint64_t x, std::uint64_t d, int sh) { return sh >= 0 ? x >> sh : x / d; }

/// The wire units a transfer of nbits stream bits takes: `full` whole beats of w bits, `beats`
/// beats in all (a DRAM transfer rounded up to whole bursts) and `units` (bursts, or flits).
struct Footprint {
  std::uint64_t full, beats;
  std::uint32_t units;
};
MEMCOMP_INLINE Footprint footprint(std::uint64_t nbits, std::uint64_t w, int wsh, bool dram, unsigned burst, int bsh) {
  Footprint f{div_by(nbits, w, wsh), div_by(nbits + w - 1, w, wsh), 0};
  if (dram) {
    const std::uint64_t bursts = div_by(f.beats + burst - 1, burst, bsh);
    f.units = static_cast<std::uint32_t>(bursts);
    f.beats = bursts * burst;
  } else {
    f.units = static_cast<std::uint32_t>(f.beats);
  }
  return f;
}

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

/// True when the columns ask for more than the decisions.
bool wants_counts(const EcColumns& o) {
  bool any = o.cr || o.t0 || o.t1 || o.units_raw || o.units_comp || o.bits_comp;
#define MEMCOMP_EC_ANY(f) any = any || o.sent.f;
  MEMCOMP_BUS_FIELDS(MEMCOMP_EC_ANY)
#undef MEMCOMP_EC_ANY
  return any;
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

// ---- Energy Control: the sequential scan (EcPath::best and ::portable) -------------------------
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

/// The run kernel: tog += popcount(d[p] ^ d[p+u]) and ones += popcount(d[p+u]) over p in
/// [0, len - u) (the toggles and ones of the units after the first).
using RunFn = void (*)(const std::uint8_t*, std::size_t, std::size_t, std::uint64_t&, std::uint64_t&);

template <class P>
void run_portable(const std::uint8_t* d, std::size_t len, std::size_t u, std::uint64_t& tog, std::uint64_t& ones) {
  xor_pop<P>(d + u, d, len - u, tog, ones);
}

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
/// AVX2: per-byte popcounts by nibble lookup, summed in bytes for up to 31 steps of 32 bytes (at
/// most 8 per step), then into 64-bit lanes.
template <class P>
MEMCOMP_AVX2 void run_avx2(const std::uint8_t* d, std::size_t len, std::size_t u, std::uint64_t& tog,
                           std::uint64_t& ones) {
  const std::uint8_t* a = d + u;
  const std::size_t n = len - u, end = n - n % 32;
  const __m256i lut =
      _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0F);
  const __m256i zero = _mm256_setzero_si256();
  __m256i st = zero, so = zero;
  std::size_t p = 0;
  while (p < end) {
    __m256i ct = zero, co = zero;
    const std::size_t stop = std::min(end, p + 31 * 32);
    for (; p < stop; p += 32) {
      const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + p));
      const __m256i vx = _mm256_xor_si256(va, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d + p)));
      ct = _mm256_add_epi8(ct, _mm256_shuffle_epi8(lut, _mm256_and_si256(vx, low)));
      ct = _mm256_add_epi8(ct, _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(vx, 4), low)));
      co = _mm256_add_epi8(co, _mm256_shuffle_epi8(lut, _mm256_and_si256(va, low)));
      co = _mm256_add_epi8(co, _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(va, 4), low)));
    }
    st = _mm256_add_epi64(st, _mm256_sad_epu8(ct, zero));
    so = _mm256_add_epi64(so, _mm256_sad_epu8(co, zero));
  }
  alignas(32) std::uint64_t lt[4], lo[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lt), st);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lo), so);
  tog += lt[0] + lt[1] + lt[2] + lt[3];
  ones += lo[0] + lo[1] + lo[2] + lo[3];
  xor_pop<P>(a + p, d + p, n - p, tog, ones);
}

/// AVX-512 with VPOPCNTDQ: 64-bit popcounts of 64 bytes at a time.
template <class P>
__attribute__((target("avx512f,avx512vpopcntdq"))) void run_avx512(const std::uint8_t* d, std::size_t len,
                                                                   std::size_t u, std::uint64_t& tog,
                                                                   std::uint64_t& ones) {
  const std::uint8_t* a = d + u;
  const std::size_t n = len - u;
  __m512i t0 = _mm512_setzero_si512(), t1 = t0, o0 = t0, o1 = t0;
  std::size_t p = 0;
  for (; p + 128 <= n; p += 128) {
    const __m512i va = _mm512_loadu_si512(a + p), vb = _mm512_loadu_si512(a + p + 64);
    t0 = _mm512_add_epi64(t0, _mm512_popcnt_epi64(_mm512_xor_si512(va, _mm512_loadu_si512(d + p))));
    t1 = _mm512_add_epi64(t1, _mm512_popcnt_epi64(_mm512_xor_si512(vb, _mm512_loadu_si512(d + p + 64))));
    o0 = _mm512_add_epi64(o0, _mm512_popcnt_epi64(va));
    o1 = _mm512_add_epi64(o1, _mm512_popcnt_epi64(vb));
  }
  if (p + 64 <= n) {
    const __m512i va = _mm512_loadu_si512(a + p);
    t0 = _mm512_add_epi64(t0, _mm512_popcnt_epi64(_mm512_xor_si512(va, _mm512_loadu_si512(d + p))));
    o0 = _mm512_add_epi64(o0, _mm512_popcnt_epi64(va));
    p += 64;
  }
  alignas(64) std::uint64_t lt[8], lo[8];  // (no _mm512_reduce_add_epi64: g++ 12 warns in its header)
  _mm512_store_si512(lt, _mm512_add_epi64(t0, t1));
  _mm512_store_si512(lo, _mm512_add_epi64(o0, o1));
  for (std::size_t k = 0; k < 8; ++k) {
    tog += lt[k];
    ones += lo[k];
  }
  xor_pop<P>(a + p, d + p, n - p, tog, ones);
}

const bool kAvx512Pop = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
#endif

/// The run kernel of a path: SIMD only on the best path with SIMD switched on.
template <class P>
RunFn run_kernel(bool simd) {
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
  if (simd && kAvx512Pop && simd_avx512()) return &run_avx512<P>;
  if (simd && simd_avx2()) return &run_avx2<P>;
#else
  (void)simd;
#endif
  return &run_portable<P>;
}

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

EcTotals run_energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                            const double* bu, std::size_t bu_count, WireState& s, bool close, EcBlock* blocks,
                            const EcColumns* cols) {
  const StreamBounds bounds = check_ec(ec, raw, comp, bu_count);
  c.validate();
  if (raw.n_blocks == 0) {  // nothing to send: a close returns the bus to idle from the state it is in
    EcTotals tot;
    if (close) tot.sent += Bus(c).close(s);
    return tot;
  }
  std::vector<double> gain(bu_count);
  for (std::size_t i = 0; i < bu_count; ++i) gain[i] = ec_gain(bu[i]);
  // The scan sums counts of 32 bits per block in 64 bits: streams shorter than 2^31 bits keep
  // every per-block count exact, as the reference's are.
  const bool scan = c.dbi == Dbi::none && bounds.longest < (1u << 31) &&
                    (ec.path == EcPath::portable || (ec.path == EcPath::best && simd_enabled()));
  if (scan) {
    const bool simd = ec.path == EcPath::best;
    if (kHwPop)
      return scan_dispatch<PopFast>(c, ec, run_kernel<PopFast>(simd), bounds.shortest, raw, comp, gain, s, close,
                                    blocks, cols);
    return EcScan<PopGeneric, 0>(c, ec, run_kernel<PopGeneric>(simd), bounds.shortest)
        .run(raw, comp, gain, s, close, blocks, cols);
  }
  if (kHwPop) return ec_dispatch<PopFast>(c, ec, raw, comp, gain, s, close, blocks, cols);
  return EcRun<PopGeneric, 0>(c, ec).run(raw, comp, gain, s, close, blocks, cols);
}

}  // namespace

namespace detail {

bool ec_run_kernel(unsigned isa, const std::uint8_t* d, std::size_t len, std::size_t u, std::uint64_t& tog,
                   std::uint64_t& ones) {
  switch (isa) {
    case 0: (kHwPop ? &run_portable<PopFast> : &run_portable<PopGeneric>)(d, len, u, tog, ones); return true;
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
    case 1:
      if (!__builtin_cpu_supports("avx2")) return false;
      (kHwPop ? &run_avx2<PopFast> : &run_avx2<PopGeneric>)(d, len, u, tog, ones);
      return true;
    case 2:
      if (!kAvx512Pop) return false;
      (kHwPop ? &run_avx512<PopFast> : &run_avx512<PopGeneric>)(d, len, u, tog, ones);
      return true;
#endif
    default: return false;
  }
}

}  // namespace detail

EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, EcBlock* out, bool close) {
  return run_energy_control(c, ec, raw, comp, bu, bu_count, s, close, out, nullptr);
}

EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close) {
  return run_energy_control(c, ec, raw, comp, bu, bu_count, s, close, nullptr, out);
}

EcTotals encode_energy_control(const Codec& codec, const BusConfig& c, const EcConfig& ec, const BlockView& raw,
                               const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close,
                               int threads, bool resume, std::size_t chunk_blocks) {
  constexpr std::size_t kChunkBytes = std::size_t{256} << 10;
  if (bu_count != 1 && bu_count != raw.n_blocks)
    throw invalid_argument("bu must be a scalar or have one entry per block");
  const std::size_t n = raw.n_blocks,
                    per = chunk_blocks
                              ? chunk_blocks
                              : std::max<std::size_t>(1, kChunkBytes / std::max<std::size_t>(1, raw.block_bytes));
  EcTotals tot;
  // one batch for the codec (a stateful one is not disturbed between chunks); an empty batch
  // too: its checks, and a close of the bus
  codec.encode_chunks(raw, per, threads, resume, [&](std::size_t b, const EncodedBlocks& enc) {
    const std::size_t k = enc.bit_lengths.size();
    const StreamsView streams{enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(), k};
    EcColumns at;  // the chunk's rows of out
    if (out) {
      auto row = [b](auto* p) { return p ? p + b : p; };
      at.compressed = row(out->compressed);
      at.cr = row(out->cr);
      at.t0 = row(out->t0);
      at.t1 = row(out->t1);
      at.units_raw = row(out->units_raw);
      at.units_comp = row(out->units_comp);
      at.bits_comp = row(out->bits_comp);
#define MEMCOMP_BUS_ROW(f) at.sent.f = row(out->sent.f);
      MEMCOMP_BUS_FIELDS(MEMCOMP_BUS_ROW)
#undef MEMCOMP_BUS_ROW
    }
    const EcTotals t = energy_control(c, ec, raw.slice(b, k), streams, bu_count == 1 ? bu : bu + b,
                                      bu_count == 1 ? 1 : k, s, out ? &at : nullptr, close && b + k == n);
    tot.blocks += t.blocks;
    tot.compressed += t.compressed;
    tot.raw_bits += t.raw_bits;
    tot.sent_bits += t.sent_bits;
    tot.raw_units += t.raw_units;
    tot.sent_units += t.sent_units;
    tot.sent += t.sent;
  });
  return tot;
}

}  // namespace memcomp
