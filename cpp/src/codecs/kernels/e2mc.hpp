// memcomp codecs: E2MC's kernel table (private; kernels/kernels.hpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "memcomp/codecs/huffman.hpp"

namespace memcomp {

struct E2mcKernels {
  /// The bits of each of the n 32-bit symbols of blk (big: endian big) with one hashed table
  /// (the code's length, or `miss` for a value without one) into c; returns their sum.
  std::uint32_t (*bits32)(const huffman::CanonicalCode& table, bool big, const std::uint8_t* blk, std::size_t n,
                          unsigned miss, std::uint8_t* c) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD)
extern const E2mcKernels kE2mcAvx2;  // e2mc_avx2.cpp
#endif

/// The table of the active tier.
inline const E2mcKernels& e2mc_kernels() noexcept {
  static constexpr E2mcKernels scalar{};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kE2mcAvx2, nullptr);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
