// memcomp analysis: the run kernels of Energy Control's sequential scan (SPEC 2; P2 =
// toggle-aware compression, HPCA'16, §5.1-§5.2: toggles between consecutive units): over a run
// of raw blocks sent back to back, the toggles between bytes u apart and the ones after the first
// unit, in one pass. Portable, AVX2 and AVX-512 VPOPCNTDQ kernels (kernels/ec_run_*.cpp) give the
// same sums; the scan takes the active tier's per call (run_kernel), the tests call each
// (detail::ec_run_kernel).
#include <cstddef>
#include <cstdint>

#include "kernels/ec_run.hpp"
#include "memcomp/analysis/detail/bus_kernels.hpp"
#include "memcomp/analysis/detail/ec_engines.hpp"
#include "memcomp/analysis/energy_control.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace {

using detail::bus::PopFast;
using detail::bus::PopGeneric;
using detail::bus::xor_pop;

template <class P>
void run_portable(const std::uint8_t* d, std::size_t len, std::size_t u, std::uint64_t& tog, std::uint64_t& ones) {
  xor_pop<P>(d + u, d, len - u, tog, ones);
}

/// The portable kernels, the scalar tier's table.
constexpr EcRunKernels kEcRunScalar{&run_portable<PopGeneric>, &run_portable<PopFast>};

/// The run kernel of a path: the active tier's on the best path with SIMD switched on.
const EcRunKernels& run_kernels(bool simd) {
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
  return simd ? pick_kernels(kEcRunScalar, &kEcRunAvx2, &kEcRunAvx512) : kEcRunScalar;
#else
  (void)simd;
  return kEcRunScalar;
#endif
}

}  // namespace

namespace detail {

ec::RunFn ec::run_kernel(bool fast_pop, bool simd) {
  const EcRunKernels& k = run_kernels(simd);
  return fast_pop ? k.fast_pop : k.generic;
}

bool ec_run_kernel(unsigned isa, const std::uint8_t* d, std::size_t len, std::size_t u, std::uint64_t& tog,
                   std::uint64_t& ones) {
  const bool fast = bus::hw_popcount();
  const EcRunKernels* k = nullptr;
  switch (isa) {
    case 0: k = &kEcRunScalar; break;
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
    case 1: k = simd_tier_supported() >= SimdTier::avx2 ? &kEcRunAvx2 : nullptr; break;
    case 2: k = simd_tier_supported() >= SimdTier::avx512 ? &kEcRunAvx512 : nullptr; break;
#endif
    default: break;
  }
  if (k == nullptr) return false;  // not on this CPU
  (fast ? k->fast_pop : k->generic)(d, len, u, tog, ones);
  return true;
}

}  // namespace detail

}  // namespace memcomp
