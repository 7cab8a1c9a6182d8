// memcomp codecs: LZSS's kernel table (private; kernels/kernels.hpp) and the parse it feeds
// (SPEC 1.13's greedy parse: the longest match, the nearest among equals).
//
// The fast tiers find matches with equality masks instead of hash chains: for each unit i of the
// block, row i holds one bit per distance d, set when unit i equals unit i - d. A match of length
// L at distance d from i is L rows i..i+L-1 with bit d set, so the longest match is the AND of
// rows i, i+1, ... until it would become empty, and the nearest of the distances left is the
// lowest. The kernels build the rows with SIMD compares of one unit against the 64 units before
// it (lzss_avx2.cpp, lzss_avx512.cpp); the scalar tier keeps the hash chains (lzss.cpp), the
// reference every tier is tested against.
//
// Layout: rows of mask_words(n) 64-bit words (1 up to 64 units, 2 at 128, 4 at 256). In word w,
// bit b stands for d = 64 (w + 1) - b, so a word is one compare against the 64 units at
// i - 64 (w + 1) .. i - 64 w - 1 (in memory order: no reversal) and the nearest distance of a
// word is its highest bit. The kernels read a padded copy of the block, pad_units(n) units of
// zeros first, so every compare stays inside it, and clear the bits of d > i (sources before the
// block). With them they give the starts: bit i set when some source matches min_match units at
// i, so the parse passes over runs of literals a word at a time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels.hpp"

namespace memcomp {
namespace lzss {

inline constexpr std::size_t kMaxUnits = 256;

/// 64-bit words per mask row of a block of n units (distances 1..n-1).
constexpr std::size_t mask_words(std::size_t n) { return n <= 1 ? 1 : (n - 1 + 63) / 64; }
/// Units of zeros before the block in the padded copy the kernels read.
constexpr std::size_t pad_units(std::size_t n) { return 64 * mask_words(n); }

/// Greedy parse over the rows (W words each) and starts of n units: sink.literal(i) or
/// sink.match(d, len), exactly as the hash-chain parser of lzss.cpp.
template <std::size_t W, class Sink>
void parse_rows(const std::uint64_t* rows, const std::uint64_t* starts, std::size_t n, unsigned min_match,
                unsigned max_len, Sink& sink) {
  std::size_t i = 0;
  while (i < n) {
    std::size_t next = n;  // the first start at or after i
    for (std::size_t k = i / 64; k < (n + 63) / 64; ++k) {
      const std::uint64_t s = starts[k] & (k == i / 64 ? ~std::uint64_t{0} << (i % 64) : ~std::uint64_t{0});
      if (s != 0) {
        next = 64 * k + static_cast<std::size_t>(__builtin_ctzll(s));
        break;
      }
    }
    for (; i < next; ++i) sink.literal(i);
    if (i == n) return;
    std::uint64_t a[W];
    for (std::size_t w = 0; w < W; ++w) a[w] = rows[i * W + w];
    for (unsigned k = 1; k < min_match; ++k)  // the sources of min_match units (a start: some)
      for (std::size_t w = 0; w < W; ++w) a[w] &= rows[(i + k) * W + w];
    const std::size_t lim = n - i < max_len ? n - i : max_len;
    std::size_t len = min_match;
    for (; len < lim; ++len) {  // longer while any source still matches
      std::uint64_t t[W], any = 0;
      for (std::size_t w = 0; w < W; ++w) any |= t[w] = a[w] & rows[(i + len) * W + w];
      if (any == 0) break;
      for (std::size_t w = 0; w < W; ++w) a[w] = t[w];
    }
    std::size_t w = 0;
    while (a[w] == 0) ++w;
    sink.match(64 * (w + 1) - (63 - static_cast<std::size_t>(__builtin_clzll(a[w]))), static_cast<unsigned>(len));
    i += len;
  }
}

/// Words after the rows the kernels clear (compares of rows past the block read zeros).
inline constexpr std::size_t kRowTail = 15 * 4 + 8;

/// LzssKernels::rows of a tier whose Tier::bytes<W>, Tier::words and Tier::starts<W> build the
/// rows of bytes (W words each) or words (one word) and the starts from them.
template <class Tier>
void rows_of(const std::uint8_t* padded, std::size_t n, unsigned unit, unsigned min_match, std::uint64_t* rows,
             std::uint64_t* starts) {
  const std::size_t W = unit == 4 ? 1 : mask_words(n);
  std::memset(rows + n * W, 0, ((min_match - 1) * W + 8) * sizeof(std::uint64_t));
  const std::uint8_t* u = padded + pad_units(n) * unit;
  if (unit == 4) {
    Tier::words(u, n, rows);
    return Tier::template starts<1>(rows, n, min_match, starts);
  }
  switch (W) {
    case 1: Tier::template bytes<1>(u, n, rows); return Tier::template starts<1>(rows, n, min_match, starts);
    case 2: Tier::template bytes<2>(u, n, rows); return Tier::template starts<2>(rows, n, min_match, starts);
    default: Tier::template bytes<4>(u, n, rows); return Tier::template starts<4>(rows, n, min_match, starts);
  }
}

#if defined(MEMCOMP_X86_SIMD)
/// The starts from nz, bit j set when word j of the AND of rows i..i+min_match-1 (flat, j = i W +
/// w) is nonzero: bit i of the starts is the OR of bits i W .. i W + W - 1 (W = 1, 2 or 4).
template <std::size_t W>
MEMCOMP_AVX2_INLINE void starts_from_words(const std::uint64_t* nz, std::size_t n, std::uint64_t* starts) {
  static_assert(W == 1 || W == 2 || W == 4, "rows of 1, 2 or 4 words");
  constexpr std::uint64_t kFirst = W == 1 ? ~std::uint64_t{0} : W == 2 ? 0x5555555555555555u : 0x1111111111111111u;
  constexpr std::size_t kPer = 64 / W;  // positions per word of nz
  for (std::size_t k = 0; k < (n + 63) / 64; ++k) starts[k] = 0;
  for (std::size_t q = 0; q * kPer < n; ++q) {
    std::uint64_t x = nz[q];
    if constexpr (W >= 2) x |= x >> 1;
    if constexpr (W == 4) x |= x >> 2;
    starts[q * kPer / 64] |= _pext_u64(x, kFirst) << (q * kPer % 64);
  }
}
#endif

}  // namespace lzss

struct LzssKernels {
  /// The mask rows (lzss::mask_words(n) words each, then 8 words of zeros) and the starts of
  /// n units of `unit` bytes (1 or 4; n a power of two up to 256 units, 64 words) at
  /// padded + lzss::pad_units(n) * unit, after that many units of zeros.
  void (*rows)(const std::uint8_t* padded, std::size_t n, unsigned unit, unsigned min_match, std::uint64_t* rows,
               std::uint64_t* starts) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD)
extern const LzssKernels kLzssAvx2;    // lzss_avx2.cpp
extern const LzssKernels kLzssAvx512;  // lzss_avx512.cpp
#endif

/// The table of the active tier.
inline const LzssKernels& lzss_kernels() noexcept {
  static constexpr LzssKernels scalar{};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kLzssAvx2, &kLzssAvx512);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
