// memcomp analysis: the kernel table of Energy Control's run kernels (private; ec_run_kernels.cpp):
// over a run of raw blocks sent back to back, the toggles between bytes u apart and the ones after
// the first unit. One table per SIMD tier (pick_kernels, simd.hpp): AVX2 in ec_run_avx2.cpp,
// AVX-512 VPOPCNTDQ in ec_run_avx512.cpp; every kernel gives the portable one's sums.
#pragma once
#include "memcomp/analysis/detail/ec_engines.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {

struct EcRunKernels {
  detail::ec::RunFn generic = nullptr;   // the tail with PopGeneric's popcount
  detail::ec::RunFn fast_pop = nullptr;  // with PopFast's (the CPU has POPCNT)
};

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
extern const EcRunKernels kEcRunAvx2;    // ec_run_avx2.cpp
extern const EcRunKernels kEcRunAvx512;  // ec_run_avx512.cpp
#endif

}  // namespace memcomp
