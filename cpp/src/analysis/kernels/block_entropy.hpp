// memcomp analysis: the kernel table of the per-block entropy at SL 32 (private; entropy.cpp,
// SPEC 3's block entropy): for the n 32-bit symbols of a block, each symbol's count in the block
// where it first appears and 0 elsewhere, so the caller sums c log2 c in order of first
// appearance. The scalar tier compares all pairs branch-free (the reference); the AVX2 tier
// compares one symbol with 8 at a time and reads its count and whether it appeared before from
// the bits of the equal ones (n = 8 to 64, a multiple of 8; others: the scalar loop).
#pragma once
#include <cstddef>
#include <cstdint>

#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace detail::block_entropy {

/// first[j] = the count of y[j] among y[0..n) if no y[m] (m < j) equals it, else 0.
inline void first_counts(const std::uint32_t* y, std::size_t n, std::uint32_t* first) {
  for (std::size_t j = 0; j < n; ++j) {
    unsigned before = 0, after = 0;
    for (std::size_t m = 0; m < j; ++m) before += y[m] == y[j];
    for (std::size_t m = j; m < n; ++m) after += y[m] == y[j];
    first[j] = before == 0 ? after : 0u;
  }
}

}  // namespace detail::block_entropy

struct BlockEntropyKernels {
  /// detail::block_entropy::first_counts for n symbols, n <= 64.
  void (*first_counts)(const std::uint32_t* y, std::size_t n, std::uint32_t* first) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
extern const BlockEntropyKernels kBlockEntropyAvx2;  // block_entropy_avx2.cpp
#endif

/// The table of the active tier (the scalar one's entry: the portable code).
inline const BlockEntropyKernels& block_entropy_kernels() noexcept {
  static constexpr BlockEntropyKernels scalar{&detail::block_entropy::first_counts};
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
  return pick_kernels(scalar, &kBlockEntropyAvx2, nullptr);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
