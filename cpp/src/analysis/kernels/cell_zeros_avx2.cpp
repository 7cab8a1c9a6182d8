// memcomp analysis: the zero-cell co-occurrence for the AVX2 tier (kernels/cell_zeros.hpp): the
// portable loop with the POPCNT instruction.
#include "cell_zeros.hpp"

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
namespace memcomp {
namespace {

MEMCOMP_AVX2 void co_zero_avx2(const std::uint64_t* z, std::size_t w, std::uint64_t* co) {
  detail::cell_zeros::co_zero(z, w, co, [](std::uint64_t x) { return static_cast<unsigned>(__builtin_popcountll(x)); });
}

}  // namespace

const CellZeroKernels kCellZeroAvx2 = {&co_zero_avx2};

}  // namespace memcomp
#endif
