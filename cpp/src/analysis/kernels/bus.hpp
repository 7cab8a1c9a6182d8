// memcomp analysis: the bus counts' kernel table (private; bus.cpp): one per SIMD tier
// (pick_kernels, simd.hpp), the AVX2 one in bus_avx2.cpp.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "memcomp/analysis/detail/bus_kernels.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace detail::bus {

/// StreamBounds in one pass without branches.
MEMCOMP_INLINE StreamBounds stream_bounds(const StreamsView& s) {
  StreamBounds b;
  for (std::size_t i = 0; i < s.n_blocks; ++i) {
    const std::uint64_t off = s.bit_offsets[i];
    const std::uint32_t len = s.bit_lengths[i];
    b.low |= off;
    b.max_off = std::max(b.max_off, off);
    b.max_end = std::max(b.max_end, off + len);
    b.longest = std::max(b.longest, len);
    b.shortest = std::min(b.shortest, len);
  }
  return b;
}

}  // namespace detail::bus

struct BusKernels {
  detail::bus::StreamBounds (*stream_bounds)(const StreamsView&) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD)
extern const BusKernels kBusAvx2;  // bus_avx2.cpp
#endif

/// The table of the active tier (the scalar one's entries: the portable code).
inline const BusKernels& bus_kernels() noexcept {
  static constexpr BusKernels scalar{[](const StreamsView& s) { return detail::bus::stream_bounds(s); }};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kBusAvx2, nullptr);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
