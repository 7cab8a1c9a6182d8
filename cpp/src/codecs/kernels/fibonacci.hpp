// memcomp codecs: Fibonacci's kernel table (private; kernels/kernels.hpp), and the code's tables
// and widths, defined here once for the codec (fibonacci.cpp) and its kernels (fibonacci_avx2.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/bits.hpp"
#include "memcomp/core/bitstream.hpp"

namespace memcomp {
namespace fib {

inline constexpr unsigned kMaxLen = 47;                         // length of Fib(2^32)
inline constexpr std::uint64_t kMaxN = std::uint64_t{1} << 32;  // u + 1 for u = 2^32 - 1

struct FibTables {
  std::uint64_t F[50] = {};  // F[0] = 0, F[1] = F[2] = 1, ...
  // Codeword length of n with bit length L (2^(L-1) <= n < 2^L) is lo[L] + (n >= t1[L]) +
  // (n >= t2[L]): [x, 2x) holds at most two Fibonacci numbers since 2 < phi^2.
  unsigned char lo[34] = {};
  std::uint64_t t1[34] = {}, t2[34] = {};
};

constexpr FibTables make_tables() {
  FibTables t;
  t.F[1] = 1;
  for (unsigned k = 2; k < 50; ++k) t.F[k] = t.F[k - 1] + t.F[k - 2];
  for (unsigned L = 1; L <= 33; ++L) {
    const std::uint64_t n = std::uint64_t{1} << (L - 1);
    unsigned k = 1;
    while (t.F[k + 2] <= n) ++k;  // F(k+1) <= n < F(k+2)
    t.lo[L] = static_cast<unsigned char>(k + 1);
    t.t1[L] = t.F[k + 2];
    t.t2[L] = t.F[k + 3];
  }
  return t;
}

inline constexpr FibTables kT = make_tables();

/// Codeword length of n, 1 <= n <= 2^32.
inline unsigned fib_len(std::uint64_t n) {
  const unsigned L = 64u - static_cast<unsigned>(__builtin_clzll(n));
  return kT.lo[L] + static_cast<unsigned>(n >= kT.t1[L]) + static_cast<unsigned>(n >= kT.t2[L]);
}

// Zeckendorf terms of every n < 2^13 (terms F(2)..F(20)): bit 20 - k for the term F(k).
inline constexpr unsigned kLowBits = 13, kLowTop = 20;
struct LowCodes {
  std::uint32_t v[std::size_t{1} << kLowBits] = {};
};
constexpr LowCodes make_low_codes() {
  LowCodes t;
  for (std::uint64_t n = 1; n < (std::uint64_t{1} << kLowBits); ++n) {
    std::uint64_t r = n;
    unsigned k = kLowTop;
    std::uint32_t bits = 0;
    for (; r != 0; --k)
      if (kT.F[k] <= r) {
        bits |= 1u << (kLowTop - k);
        r -= kT.F[k];
      }
    t.v[n] = bits;
  }
  return t;
}
inline constexpr LowCodes kLow = make_low_codes();

// fib_len(n) for every n < 2^13 (a byte each).
struct LowLens {
  std::uint8_t v[std::size_t{1} << kLowBits] = {};
  constexpr LowLens() {
    for (std::uint64_t n = 1; n < (std::uint64_t{1} << kLowBits); ++n) {
      unsigned k = 1;
      while (kT.F[k + 2] <= n) ++k;
      v[n] = static_cast<std::uint8_t>(k + 1);
    }
  }
};
inline constexpr LowLens kLowLen{};

/// The greedy steps from n's largest term down to F(20): the terms F(k), k >= 20, as bit 47 - k of
/// the result; n keeps the rest (below F(20), so kLow holds its terms).
inline std::uint32_t high_terms(std::uint64_t& n) {
  std::uint32_t t = 0;
  while (n >= kT.F[kLowTop]) {
    const unsigned k = fib_len(n);  // the largest term of n is F(k)
    t |= 1u << (47 - k);
    n -= kT.F[k];
  }
  return t;
}

/// The codeword of n as a field of fib_len(n) = len bits (first stream bit = the F2
/// coefficient): the term F(k) sits at field bit len - k + 1 = (47 - k) + len - 46, for the high
/// terms (high_terms) and for the rest's (kLow's bit 20 - k) alike; the terminating 1 is the
/// field's last bit.
inline std::uint64_t fib_code(std::uint64_t n, unsigned len) {
  const std::uint64_t t = high_terms(n);
  const std::uint64_t high = len >= 46 ? t << (len - 46) : t >> (46 - len);
  const std::uint64_t low = kLow.v[n];
  return 1u | high | (len + 1 >= kLowTop ? low << (len + 1 - kLowTop) : low >> (kLowTop - len - 1));
}

// What a byte of coefficients adds, per byte position t of a codeword: bit 7 - i of v is the
// coefficient of F(8t + i + 2) (stream bit 8t + i). One table per position, so a codeword's
// value is six loads and adds.
struct ByteValues {
  std::uint64_t v[6][256] = {};
  constexpr ByteValues() {
    for (unsigned t = 0; t < 6; ++t)
      for (unsigned x = 0; x < 256; ++x)
        for (unsigned i = 0; i < 8; ++i)
          if ((x >> (7 - i)) & 1u) v[t][x] += kT.F[8 * t + i + 2];
  }
};
inline constexpr ByteValues kByteValues;

/// The value of the coefficients at the top of c (stream bit t, the coefficient of F(t + 2), at
/// bit 63 - t; at most 48 bits).
inline std::uint64_t fib_value(std::uint64_t c) {
  std::uint64_t n = 0;
  for (unsigned t = 0; t < 6; ++t) n += kByteValues.v[t][(c >> (56 - 8 * t)) & 0xFFu];
  return n;
}

inline std::uint32_t zigzag(std::uint32_t cur, std::uint32_t prev) {
  const std::uint32_t r = cur - prev;
  return (r << 1) ^ (0u - (r >> 31));
}

/// A block's stream: word 0 as is, then the codeword of every later word's zigzagged delta.
inline void encode_block(const std::uint8_t* blk, std::size_t b, Endian endian, BitWriter& out) {
  std::uint32_t prev = load<std::uint32_t>(blk, endian);
  out.write(prev, 32);
  for (std::size_t i = 4; i < b; i += 4) {
    const std::uint32_t w = load<std::uint32_t>(blk + i, endian);
    const std::uint64_t n = std::uint64_t{zigzag(w, prev)} + 1;
    const unsigned len = fib_len(n);
    out.write(fib_code(n, len), len);
    prev = w;
  }
}

}  // namespace fib

/// Blocks the lane decoder takes at a time.
inline constexpr std::size_t kFibDecodeLanes = 24;

struct FibKernels {
  /// Codec::encode_range (big: endian big).
  std::size_t (*encode_range)(bool big, const BlockView&, std::size_t begin, std::size_t end, std::uint8_t* buf,
                              std::size_t max_bytes, EncodedBlocks& enc) = nullptr;
  /// Decodes kFibDecodeLanes blocks of n words, b bytes, block k's stream as bits [pos[k], end[k])
  /// from base, into buf; true when every stream was whole and valid.
  bool (*decode_lanes)(bool big, const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* end, unsigned n,
                       unsigned b, std::uint8_t* buf) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD)
extern const FibKernels kFibAvx2;  // fibonacci_avx2.cpp
#endif

/// The table of the active tier.
inline const FibKernels& fib_kernels() noexcept {
  static constexpr FibKernels scalar{};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kFibAvx2, nullptr);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
