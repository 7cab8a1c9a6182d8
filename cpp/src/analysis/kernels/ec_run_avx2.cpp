// memcomp analysis: Energy Control's AVX2 run kernels (kernels/ec_run.hpp).
#include "ec_run.hpp"

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "memcomp/analysis/detail/bus_kernels.hpp"

namespace memcomp {
namespace {

using detail::bus::PopFast;
using detail::bus::PopGeneric;
using detail::bus::xor_pop;

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

}  // namespace

const EcRunKernels kEcRunAvx2 = {&run_avx2<PopGeneric>, &run_avx2<PopFast>};

}  // namespace memcomp
#endif
