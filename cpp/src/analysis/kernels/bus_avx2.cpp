// memcomp analysis: the bus counts' AVX2 kernels (kernels/bus.hpp): the portable code, compiled
// for the AVX2 tier (the compiler vectorises it).
#include "bus.hpp"

#if defined(MEMCOMP_X86_SIMD)
namespace memcomp {
namespace {

MEMCOMP_AVX2 detail::bus::StreamBounds stream_bounds_avx2(const StreamsView& s) {
  return detail::bus::stream_bounds(s);
}

}  // namespace

const BusKernels kBusAvx2 = {&stream_bounds_avx2};

}  // namespace memcomp
#endif
