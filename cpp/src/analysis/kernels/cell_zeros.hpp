// memcomp analysis: the kernel table of MPC training's zero-cell co-occurrence (private;
// ratio_entropy.cpp, P3 §3's scan order): over a tile of blocks as 256 bit-rows of w words (bit b
// of row c: block b's residue cell c is zero), co[c1 * 256 + c2] += popcount(row c1 & row c2) for
// c1 <= c2. One table per SIMD tier (pick_kernels, simd.hpp): the portable loop with POPCNT in
// cell_zeros_avx2.cpp, eight words a step with VPOPCNTQ in cell_zeros_avx512.cpp; every tier
// gives the portable sums.
#pragma once
#include <cstddef>
#include <cstdint>

#include "memcomp/analysis/detail/bus_kernels.hpp"  // MEMCOMP_INLINE
#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace detail::cell_zeros {

/// popcount without POPCNT (the scalar tier).
MEMCOMP_INLINE unsigned pop_generic(std::uint64_t x) noexcept {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<unsigned>((x * 0x0101010101010101ULL) >> 56);
}

template <class Pop>
MEMCOMP_INLINE void co_zero(const std::uint64_t* z, std::size_t w, std::uint64_t* co, Pop pop) {
  for (std::size_t c1 = 0; c1 < 256; ++c1) {
    const std::uint64_t* a = z + c1 * w;
    for (std::size_t c2 = c1; c2 < 256; ++c2) {
      const std::uint64_t* b = z + c2 * w;
      std::uint64_t s = 0;
      for (std::size_t k = 0; k < w; ++k) s += pop(a[k] & b[k]);
      co[c1 * 256 + c2] += s;
    }
  }
}

}  // namespace detail::cell_zeros

struct CellZeroKernels {
  void (*co_zero)(const std::uint64_t* z, std::size_t w, std::uint64_t* co) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
extern const CellZeroKernels kCellZeroAvx2;    // cell_zeros_avx2.cpp
extern const CellZeroKernels kCellZeroAvx512;  // cell_zeros_avx512.cpp
#endif

/// The table of the active tier (the scalar one's entry: the portable code).
inline const CellZeroKernels& cell_zero_kernels() noexcept {
  static constexpr CellZeroKernels scalar{[](const std::uint64_t* z, std::size_t w, std::uint64_t* co) {
    detail::cell_zeros::co_zero(z, w, co, detail::cell_zeros::pop_generic);
  }};
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
  return pick_kernels(scalar, &kCellZeroAvx2, &kCellZeroAvx512);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
