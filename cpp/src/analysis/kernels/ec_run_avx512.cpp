// memcomp analysis: Energy Control's AVX-512 run kernels (VPOPCNTDQ; compiled with their target attributes only)
// (kernels/ec_run.hpp).
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

}  // namespace

const EcRunKernels kEcRunAvx512 = {&run_avx512<PopGeneric>, &run_avx512<PopFast>};

}  // namespace memcomp
#endif
