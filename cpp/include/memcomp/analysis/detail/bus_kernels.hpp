// memcomp analysis internals: the counting kernels the bus and Energy Control share (SPEC 2; P2 =
// toggle-aware compression, HPCA'16, §5.1-§5.2: a toggle is popcount(previous unit ^ unit)).
//
// A run of n units of U bytes after a previous unit `prev` has
//   toggles = popcount(prev ^ u_0) + sum over bytes p in [0, (n-1)U) of popcount(d[p] ^ d[p+U])
// (unit k's byte j sits U bytes after unit k-1's byte j), whatever U is, so one loop of 64-bit
// loads, XOR and popcount serves every flit and bus width. Transitions split by direction from
// the telescoping sum per wire: t01 - t10 = ones(last) - ones(first), so t01 = (toggles +
// ones(last) - ones(prev)) / 2 needs no second pass.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memcomp/analysis/bus.hpp"
#include "memcomp/analysis/bus_config.hpp"

#if defined(__GNUC__)
#define MEMCOMP_INLINE inline __attribute__((always_inline))
#else
#define MEMCOMP_INLINE inline
#endif

namespace memcomp::detail::bus {

constexpr std::array<std::uint8_t, 256> make_pop8() {
  std::array<std::uint8_t, 256> t{};
  for (unsigned x = 0; x < 256; ++x) {
    unsigned c = 0;
    for (unsigned v = x; v; v >>= 1) c += v & 1u;
    t[x] = static_cast<std::uint8_t>(c);
  }
  return t;
}
inline constexpr std::array<std::uint8_t, 256> kPop8 = make_pop8();

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

// One popcount policy for the bus and EC: the POPCNT instruction where the CPU has it (checked at
// run time on x86-64, where the baseline lacks it: hw_popcount()), the portable one otherwise.
#if defined(__GNUC__) && defined(__x86_64__)
using PopFast = PopAsm;
#elif defined(__GNUC__)
using PopFast = PopBuiltin;
#else
using PopFast = PopGeneric;
#endif
/// Whether PopFast may run on this CPU (asked once).
bool hw_popcount() noexcept;

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

/// Builds the ntail units that follow the full units: the partial unit (rem stream bits taken
/// from src, the rest padded), then whole pad units. `last` is the unit before the first one
/// built (hold copies its wires).
inline void build_tail(std::uint8_t* dst, const std::uint8_t* src, std::uint64_t rem, std::size_t ntail, std::size_t u,
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

/// What check_streams looks at, in one pass: the bits of every offset OR-ed, the largest offset,
/// the largest end (off + len: it wraps only past a largest offset out of range); and the longest
/// and shortest streams.
struct StreamBounds {
  std::uint64_t low = 0, max_off = 0, max_end = 0;
  std::uint32_t longest = 0, shortest = ~std::uint32_t{0};
};
/// check_streams, returning the bounds (the messages only once a bad stream is known).
StreamBounds checked_bounds(const StreamsView& s);

}  // namespace memcomp::detail::bus
