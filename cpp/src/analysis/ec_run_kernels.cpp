// memcomp analysis: the run kernels of Energy Control's sequential scan (SPEC 2; P2 =
// toggle-aware compression, HPCA'16, §5.1-§5.2: toggles between consecutive units): over a run
// of raw blocks sent back to back, the toggles between bytes u apart and the ones after the first
// unit, in one pass. Portable, AVX2 and AVX-512 VPOPCNTDQ kernels give the same sums; the scan
// takes one per call (run_kernel), the tests call each (detail::ec_run_kernel).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "memcomp/analysis/detail/bus_kernels.hpp"
#include "memcomp/analysis/detail/ec_engines.hpp"
#include "memcomp/analysis/energy_control.hpp"
#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

namespace memcomp {
namespace {

using detail::bus::PopFast;
using detail::bus::PopGeneric;
using detail::bus::xor_pop;

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
detail::ec::RunFn run_kernel_of(bool simd) {
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
  if (simd && kAvx512Pop && simd_avx512()) return &run_avx512<P>;
  if (simd && simd_avx2()) return &run_avx2<P>;
#else
  (void)simd;
#endif
  return &run_portable<P>;
}

}  // namespace

namespace detail {

ec::RunFn ec::run_kernel(bool fast_pop, bool simd) {
  return fast_pop ? run_kernel_of<PopFast>(simd) : run_kernel_of<PopGeneric>(simd);
}

bool ec_run_kernel(unsigned isa, const std::uint8_t* d, std::size_t len, std::size_t u, std::uint64_t& tog,
                   std::uint64_t& ones) {
  const bool fast = bus::hw_popcount();
  switch (isa) {
    case 0: (fast ? &run_portable<PopFast> : &run_portable<PopGeneric>)(d, len, u, tog, ones); return true;
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
    case 1:
      if (!__builtin_cpu_supports("avx2")) return false;
      (fast ? &run_avx2<PopFast> : &run_avx2<PopGeneric>)(d, len, u, tog, ones);
      return true;
    case 2:
      if (!kAvx512Pop) return false;
      (fast ? &run_avx512<PopFast> : &run_avx512<PopGeneric>)(d, len, u, tog, ones);
      return true;
#endif
    default: return false;
  }
}

}  // namespace detail

}  // namespace memcomp
