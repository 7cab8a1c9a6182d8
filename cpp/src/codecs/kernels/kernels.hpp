// memcomp codecs: what every codec's kernel table shares (private to src/codecs). Each codec with
// SIMD kernels keeps them in files of their own (kernels/<codec>_<tier>.cpp), declared in
// kernels/<codec>.hpp as one table of function pointers per tier; the codec calls through the
// table of the active tier (a null entry: no kernel at that tier, the codec's scalar code runs).
// The ISA decision is made in one place, pick_kernels, by a switch over simd_tier() (simd.hpp).
#pragma once
#include <cstddef>
#include <type_traits>

#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp::kernels {

/// The table of the active tier: avx512's where simd_tier() is avx512, avx2's where it is avx2 or
/// higher (avx512 == nullptr: the tier reuses the AVX2 table), else scalar (every entry null).
template <class T>
const T& pick(const T& scalar, const typename std::common_type<T>::type* avx2,
              const typename std::common_type<T>::type* avx512) noexcept {
  switch (simd_tier()) {
    case SimdTier::avx512:
      if (avx512 != nullptr) return *avx512;
      [[fallthrough]];
    case SimdTier::avx2:
      if (avx2 != nullptr) return *avx2;
      [[fallthrough]];
    default: return scalar;
  }
}

/// The batch helpers of Codec (codec.hpp) for kernels, which run their own loops outside the
/// codec classes: where a block's stream goes in a range's buffer, and how it is recorded.
struct Range : Codec {
  using Codec::append_streams;
  using Codec::block_writer;
  using Codec::range_bytes;
  using Codec::record_block;
};

}  // namespace memcomp::kernels
