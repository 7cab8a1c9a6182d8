// memcomp analysis: the zero-cell co-occurrence for the AVX-512 tier (kernels/cell_zeros.hpp):
// eight words of two rows ANDed and counted per VPOPCNTQ, four c2 rows against one c1 row at a
// time (the c1 row's words loaded once per four), the sums reduced once per pair.
#include "cell_zeros.hpp"

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
#include <immintrin.h>

namespace memcomp {
namespace {

/// The sum of the eight 64-bit lanes (through memory: GCC 12's _mm512_reduce_add_epi64 warns).
MEMCOMP_AVX512_INLINE std::uint64_t lanes_sum(__m512i v) {
  alignas(64) std::uint64_t t[8];
  _mm512_store_si512(t, v);
  return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

MEMCOMP_AVX512 void co_zero_avx512(const std::uint64_t* z, std::size_t w, std::uint64_t* co) {
  const std::size_t full = w / 8;
  const __mmask8 tail = static_cast<__mmask8>((1u << (w % 8)) - 1u);
  for (std::size_t c1 = 0; c1 < 256; ++c1) {
    const std::uint64_t* a = z + c1 * w;
    std::size_t c2 = c1;
    for (; c2 + 4 <= 256; c2 += 4) {
      const std::uint64_t* b = z + c2 * w;
      __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
      for (std::size_t k = 0; k < full; ++k) {
        const __m512i x = _mm512_loadu_si512(a + 8 * k);
        s0 = _mm512_add_epi64(s0, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b + 8 * k))));
        s1 = _mm512_add_epi64(s1, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b + w + 8 * k))));
        s2 = _mm512_add_epi64(s2, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b + 2 * w + 8 * k))));
        s3 = _mm512_add_epi64(s3, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_loadu_si512(b + 3 * w + 8 * k))));
      }
      if (tail) {
        const __m512i x = _mm512_maskz_loadu_epi64(tail, a + 8 * full);
        s0 = _mm512_add_epi64(s0,
                              _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_maskz_loadu_epi64(tail, b + 8 * full))));
        s1 = _mm512_add_epi64(
            s1, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_maskz_loadu_epi64(tail, b + w + 8 * full))));
        s2 = _mm512_add_epi64(
            s2, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_maskz_loadu_epi64(tail, b + 2 * w + 8 * full))));
        s3 = _mm512_add_epi64(
            s3, _mm512_popcnt_epi64(_mm512_and_si512(x, _mm512_maskz_loadu_epi64(tail, b + 3 * w + 8 * full))));
      }
      co[c1 * 256 + c2] += lanes_sum(s0);
      co[c1 * 256 + c2 + 1] += lanes_sum(s1);
      co[c1 * 256 + c2 + 2] += lanes_sum(s2);
      co[c1 * 256 + c2 + 3] += lanes_sum(s3);
    }
    for (; c2 < 256; ++c2) {  // the last rows of the triangle, one at a time
      const std::uint64_t* b = z + c2 * w;
      __m512i s = _mm512_setzero_si512();
      for (std::size_t k = 0; k < full; ++k)
        s = _mm512_add_epi64(
            s, _mm512_popcnt_epi64(_mm512_and_si512(_mm512_loadu_si512(a + 8 * k), _mm512_loadu_si512(b + 8 * k))));
      if (tail)
        s = _mm512_add_epi64(s, _mm512_popcnt_epi64(_mm512_and_si512(_mm512_maskz_loadu_epi64(tail, a + 8 * full),
                                                                     _mm512_maskz_loadu_epi64(tail, b + 8 * full))));
      co[c1 * 256 + c2] += lanes_sum(s);
    }
  }
}

}  // namespace

const CellZeroKernels kCellZeroAvx512 = {&co_zero_avx512};

}  // namespace memcomp
#endif
