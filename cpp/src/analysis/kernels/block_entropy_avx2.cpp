// memcomp analysis: the per-block entropy's first counts for the AVX2 tier
// (kernels/block_entropy.hpp): the block's symbols in n / 8 registers, each symbol broadcast and
// compared with all of them; the equal ones' bits give its count (POPCNT) and, below its own
// bit, whether it appeared before.
#include "block_entropy.hpp"

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
#include <immintrin.h>

namespace memcomp {
namespace {

template <std::size_t R>
MEMCOMP_AVX2_INLINE void first_counts_r(const std::uint32_t* y, std::uint32_t* first) {
  __m256i v[R];
  for (std::size_t r = 0; r < R; ++r) v[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(y + 8 * r));
  for (std::size_t j = 0; j < 8 * R; ++j) {
    const __m256i b = _mm256_set1_epi32(static_cast<int>(y[j]));
    std::uint64_t eq = 0;
    for (std::size_t r = 0; r < R; ++r)
      eq |= std::uint64_t{static_cast<std::uint32_t>(
                _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(b, v[r]))))}
            << (8 * r);
    const bool seen = (eq & ((std::uint64_t{1} << j) - 1)) != 0;
    first[j] = seen ? 0u : static_cast<std::uint32_t>(__builtin_popcountll(eq));
  }
}

MEMCOMP_AVX2 void first_counts_avx2(const std::uint32_t* y, std::size_t n, std::uint32_t* first) {
  switch (n) {
    case 8: return first_counts_r<1>(y, first);
    case 16: return first_counts_r<2>(y, first);
    case 32: return first_counts_r<4>(y, first);
    case 64: return first_counts_r<8>(y, first);
    default: return detail::block_entropy::first_counts(y, n, first);
  }
}

}  // namespace

const BlockEntropyKernels kBlockEntropyAvx2 = {&first_counts_avx2};

}  // namespace memcomp
#endif
