// memcomp codecs: independent blocks side by side as the lanes of AVX2 registers. A block's
// stream is a chain of variable-length fields (where a field starts is known only once the one
// before it is read or formed), so a lone block leaves most of a core idle; 8 blocks in the lanes
// of a register, and a few registers of them, step through their fields together. Shared by the
// lane kernels of FPC, C-Pack and Fibonacci:
//  - window(): the next 64 stream bits at every lane's bit position (decoders);
//  - transpose8x8(): the words of 8 blocks as 8 registers of one word each (encoders), and
//    back (StepRows: decoders' words out to their blocks);
//  - pack(): every lane's tokens into a stream of its own (encoders).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

namespace memcomp::lanes {

/// The 64 stream bits from each of 8 bit positions (below 2^30) of base, the first at the top:
/// lanes 0..3 in w0 and 4..7 in w1, valid for 57 bits. base must be readable 8 bytes past
/// every position's byte. Eight scalar loads: the lanes' next step waits on them, and they
/// return sooner than a gather (FPC's decoder 1.2-1.6x, C-Pack's and Fibonacci's 1.1-1.2x on Zen 3).
MEMCOMP_AVX2_INLINE void window(const std::uint8_t* base, __m256i pos, __m256i& w0, __m256i& w1) {
  const __m256i bswap64 = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                           15, 14, 13, 12, 11, 10, 9, 8);
  const __m256i sh = _mm256_and_si256(pos, _mm256_set1_epi32(7));
  alignas(32) std::uint32_t at[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), _mm256_srli_epi32(pos, 3));
  long long q[8];
  for (int k = 0; k < 8; ++k) std::memcpy(&q[k], base + at[k], 8);
  w0 = _mm256_setr_epi64x(q[0], q[1], q[2], q[3]);
  w1 = _mm256_setr_epi64x(q[4], q[5], q[6], q[7]);
  w0 = _mm256_sllv_epi64(_mm256_shuffle_epi8(w0, bswap64), _mm256_cvtepu32_epi64(_mm256_castsi256_si128(sh)));
  w1 = _mm256_sllv_epi64(_mm256_shuffle_epi8(w1, bswap64), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(sh, 1)));
}

/// The 8 high (or low) 32-bit halves of the 64-bit lanes of w0 (lanes 0..3) and w1 (4..7).
MEMCOMP_AVX2_INLINE __m256i high_halves(__m256i w0, __m256i w1) {
  return _mm256_permute4x64_epi64(
      _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(w0), _mm256_castsi256_ps(w1), 0xDD)), 0xD8);
}
MEMCOMP_AVX2_INLINE __m256i low_halves(__m256i w0, __m256i w1) {
  return _mm256_permute4x64_epi64(
      _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(w0), _mm256_castsi256_ps(w1), 0x88)), 0xD8);
}

/// x[k] = the 8 words of block k -> x[i] = word i of blocks 0..7 (an 8x8 transpose of 32-bit
/// words), for encoders whose lanes are blocks.
MEMCOMP_AVX2_INLINE void transpose8x8(__m256i (&x)[8]) {
  __m256i t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_epi32(x[k], x[k + 1]);  // words 0, 1 (4, 5) of blocks k, k + 1
    t[k + 1] = _mm256_unpackhi_epi32(x[k], x[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    u[k] = _mm256_unpacklo_epi64(t[k], t[k + 2]);  // word 0 (4) of blocks k..k + 3
    u[k + 1] = _mm256_unpackhi_epi64(t[k], t[k + 2]);
    u[k + 2] = _mm256_unpacklo_epi64(t[k + 1], t[k + 3]);
    u[k + 3] = _mm256_unpackhi_epi64(t[k + 1], t[k + 3]);
  }
  for (int i = 0; i < 4; ++i) {
    x[i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
    x[i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
  }
}

/// The words of 8 * G blocks a lane decoder forms one word index (step) at a time, G registers
/// of 8 blocks each, written block-major 8 steps at a time: a group's last 8 steps transposed
/// (transpose8x8) to 8 words of each of its blocks, one store each instead of 64 word stores.
/// Block k's words go to buf + k * b.
template <unsigned G>
struct StepRows {
  alignas(32) std::uint32_t w[G][8][8];  // [group][step % 8][lane]

  /// Group g's words of step `step`.
  MEMCOMP_AVX2_INLINE void put(unsigned g, unsigned step, __m256i words) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(w[g][step % 8]), words);
  }
  /// After every group's put of step `step`: writes the last 8 steps out when they are complete.
  MEMCOMP_AVX2_INLINE void flush(unsigned step, std::uint8_t* buf, unsigned b) const {
    if (step % 8 != 7) return;
    for (unsigned g = 0; g < G; ++g) {
      __m256i x[8];
      for (unsigned s = 0; s < 8; ++s) x[s] = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[g][s]));
      transpose8x8(x);
      for (unsigned k = 0; k < 8; ++k)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(buf + (8 * g + k) * b + 4 * (step - 7)), x[k]);
    }
  }
  /// After the last of n steps: the steps past the last multiple of 8 (blocks of 16 bytes).
  void finish(unsigned n, std::uint8_t* buf, unsigned b) const {
    for (unsigned step = n - n % 8; step < n; ++step)
      for (unsigned g = 0; g < G; ++g)
        for (unsigned k = 0; k < 8; ++k) std::memcpy(buf + (8 * g + k) * b + 4 * step, &w[g][step % 8][k], 4);
  }
};

/// Token i of block k: tok[8 * i + k] in len[8 * i + k] bits (StepMajor), or tok[N * k + i] in
/// len[N * k + i] bits.
enum class Layout { step_major, block_major };

/// Packs the N tokens (of up to 56 bits; 0-bit tokens add nothing) of each of 8 blocks into its
/// stream at out + k * lane_bytes. Each lane's accumulator takes a token and goes out as one
/// 8-byte store, its position moving on by the whole bytes (the rest is rewritten by the next
/// store), so lane_bytes must hold a stream and 8 bytes more. bits[k]: block k's stream length.
/// Lengths are bytes or 32-bit words; block-major bytes are read 4 at a time (3 readable bytes
/// past the last).
template <std::size_t N, Layout L, class Len>
MEMCOMP_AVX2_INLINE void pack(const std::uint64_t* tok, const Len* len, std::uint8_t* out, std::size_t lane_bytes,
                              std::uint32_t* bits) {
  static_assert(sizeof(Len) == 1 || sizeof(Len) == 4, "token lengths as bytes or 32-bit words");
  const __m256i bswap64 = _mm256_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                           15, 14, 13, 12, 11, 10, 9, 8);
  const __m256i sixty_four = _mm256_set1_epi64x(64), seven = _mm256_set1_epi64x(7);
  const __m128i block = _mm_mullo_epi32(_mm_setr_epi32(0, 1, 2, 3), _mm_set1_epi32(static_cast<int>(N)));
  __m256i acc[2], nacc[2], at[2], total[2];
  for (int h = 0; h < 2; ++h) {
    acc[h] = nacc[h] = total[h] = _mm256_setzero_si256();
    at[h] = _mm256_mul_epu32(_mm256_setr_epi64x(4 * h, 4 * h + 1, 4 * h + 2, 4 * h + 3),
                             _mm256_set1_epi64x(static_cast<long long>(lane_bytes)));
  }
  alignas(32) std::uint64_t v[8], where[8];
  for (std::size_t i = 0; i < N; ++i) {
    for (int h = 0; h < 2; ++h) {
      __m256i t, l;
      if constexpr (L == Layout::step_major) {
        t = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tok + 8 * i + 4 * h));
        if constexpr (sizeof(Len) == 4) {
          l = _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(len + 8 * i + 4 * h)));
        } else {
          std::uint32_t l4;
          std::memcpy(&l4, len + 8 * i + 4 * h, 4);
          l = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(static_cast<int>(l4)));
        }
      } else {
        const __m128i k = _mm_add_epi32(block, _mm_set1_epi32(static_cast<int>(4 * static_cast<std::size_t>(h) * N)));
        t = _mm256_i32gather_epi64(reinterpret_cast<const long long*>(tok + i), k, 8);
        const __m128i l4 = _mm_i32gather_epi32(reinterpret_cast<const int*>(len + i), k, sizeof(Len));
        l = _mm256_cvtepu32_epi64(sizeof(Len) == 4 ? l4 : _mm_and_si128(l4, _mm_set1_epi32(0xFF)));
      }
      total[h] = _mm256_add_epi64(total[h], l);
      nacc[h] = _mm256_add_epi64(nacc[h], l);  // (<= 7 + 56)
      acc[h] = _mm256_or_si256(acc[h], _mm256_sllv_epi64(t, _mm256_sub_epi64(sixty_four, nacc[h])));
      _mm256_store_si256(reinterpret_cast<__m256i*>(v + 4 * h), _mm256_shuffle_epi8(acc[h], bswap64));
      _mm256_store_si256(reinterpret_cast<__m256i*>(where + 4 * h), at[h]);
      at[h] = _mm256_add_epi64(at[h], _mm256_srli_epi64(nacc[h], 3));
      acc[h] = _mm256_sllv_epi64(acc[h], _mm256_andnot_si256(seven, nacc[h]));
      nacc[h] = _mm256_and_si256(nacc[h], seven);
    }
    for (std::size_t k = 0; k < 8; ++k) std::memcpy(out + where[k], v + k, 8);
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(bits), low_halves(total[0], total[1]));
}

}  // namespace memcomp::lanes
#endif
