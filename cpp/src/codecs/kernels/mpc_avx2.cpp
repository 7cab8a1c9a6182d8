// memcomp codecs: MPC's AVX2 kernels (kernels/mpc.hpp): the modules' cells, rows and their
// inverse on the AVX2 form (byte shuffles, 16-bit shifts, a bit permutation in eight passes).
#include "mpc_avx2.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <memory>

namespace memcomp {
namespace {

struct MpcAvx2 : MpcSimd {
  using MpcSimd::MpcSimd;

  MEMCOMP_AVX2 void inverse_avx2(std::size_t k, const mpc::Rows& rows, std::uint8_t* out) const {
    mpc_avx2::inverse(avx2_[k], mods_[k], rows, out);
  }

  MEMCOMP_AVX2 int choose_avx2(const std::uint8_t* blk, mpc::Rows& rows, mpc::RowSplit& sp) const {
    __m256i r = _mm256_setzero_si256();
    const int k = pick_avx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)), r, sp);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows.data()), r);
    return k;
  }

  // Classes 0 and 1 first, then the other blocks of a chunk two at a time under the RTL rule (the
  // rows and split of one overlap the module search of the other).
  MEMCOMP_AVX2 void measure_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                 const SizeColumns& out) const {
    if (avx2_.size() == 5 && g2_) return measure_avx2_n<5, true>(blocks, begin, end, out);
    measure_avx2_n<0, false>(blocks, begin, end, out);
  }
  template <std::size_t N, bool G2>
  MEMCOMP_AVX2_INLINE void measure_avx2_n(const BlockView& blocks, std::size_t begin, std::size_t end,
                                          const SizeColumns& out) const {
    std::uint32_t todo[kChunk];
    for (std::size_t c = begin; c < end; c += kChunk) {
      const std::size_t n = measure_simple(blocks, c, std::min(end, c + kChunk), out, todo);
      std::size_t j = 0;
      if (rtl_) {
        for (; j + 2 <= n; j += 2) {
          const std::size_t a = c + todo[j], b = c + todo[j + 1];
          __m256i ga, gb;
          const int ka = select_rtl<N, G2>(mpc_avx2::ldu(blocks.block(a)), ga),
                    kb = select_rtl<N, G2>(mpc_avx2::ldu(blocks.block(b)), gb);
          set_sizes(out, a, ka, mpc_avx2::rows(avx2_[static_cast<std::size_t>(ka)], ga));
          set_sizes(out, b, kb, mpc_avx2::rows(avx2_[static_cast<std::size_t>(kb)], gb));
        }
      }
      for (; j < n; ++j) {
        __m256i r = _mm256_setzero_si256();
        mpc::RowSplit sp;
        const int k = pick_avx2<N, G2>(mpc_avx2::ldu(blocks.block(c + todo[j])), r, sp);
        out.set(c + todo[j], sizes_of(k, sp));
      }
    }
  }
};

}  // namespace

std::shared_ptr<const MpcForms> make_mpc_forms(const std::vector<mpc::Compiled>& mods) {
  return std::make_shared<const MpcForms>(mods);
}

const MpcKernels kMpcAvx2 = {
    [](const MpcView& v, const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out) {
      MpcAvx2(v).measure_avx2(blocks, begin, end, out);
    },
    [](const MpcView& v, const std::uint8_t* blk, mpc::Rows& rows, mpc::RowSplit& sp) {
      return MpcAvx2(v).choose_avx2(blk, rows, sp);
    },
    [](const MpcView& v, std::size_t k, const mpc::Rows& rows, std::uint8_t* out) {
      MpcAvx2(v).inverse_avx2(k, rows, out);
    },
};

}  // namespace memcomp
#endif
