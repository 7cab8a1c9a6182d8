// memcomp codecs: MPC's AVX-512 kernels (kernels/mpc.hpp): the gathers are byte permutes, the
// shifts and the Gray code affine maps of bytes, the rows and their inverse BitShuffles; the search
// over the rows is the AVX2 kernels' (mpc_avx2.hpp). Compiled with their target attributes only.
#include "mpc_avx2.hpp"

#if defined(MEMCOMP_X86_SIMD)
namespace memcomp {
namespace {

namespace mpc_avx512 {

MEMCOMP_AVX512_INLINE __m256i shuffle_bits(const BitShuffle& t, __m256i x) {
  const __m512i z = _mm512_castsi256_si512(x);  // (the permutes read bytes 0..31 only)
  std::uint64_t q[4];
  for (unsigned m = 0; m < 4; ++m)
    q[m] = _cvtmask64_u64(_mm512_bitshuffle_epi64_mask(
        _mm512_maskz_permutexvar_epi8(~0ull, _mm512_load_si512(t.idx[m]), z), _mm512_load_si512(t.ctl[m])));
  return _mm256_set_epi64x(static_cast<long long>(q[3]), static_cast<long long>(q[2]), static_cast<long long>(q[1]),
                           static_cast<long long>(q[0]));
}

// mpc_avx2::cells of the block v (G2: every module has at most 2 shift groups, applied without a
// loop; an absent one has no columns).
template <bool G2>
MEMCOMP_AVX512_INLINE __m256i cells(const Avx512Module& a, __m256i v) {
  const __m256i s = _mm256_maskz_permutexvar_epi8(~0u, _mm256_load_si256(reinterpret_cast<const __m256i*>(a.src)), v);
  const __m256i b =  // column 0 (the root) has no prediction
      _mm256_maskz_permutexvar_epi8(~1u, _mm256_load_si256(reinterpret_cast<const __m256i*>(a.bsrc)), v);
  __m256i p = b;
  for (unsigned g = 0; g < (G2 ? 2 : a.ngrp); ++g)
    p = _mm256_mask_mov_epi8(
        p, a.grp_k[g],
        _mm256_gf2p8affine_epi64_epi8(b, _mm256_set1_epi64x(static_cast<long long>(a.grp_matrix[g])), 0));
  const __m256i col = _mm256_sub_epi8(s, p);
  return _mm256_mask_gf2p8affine_epi64_epi8(col, ~1u, col, _mm256_set1_epi64x(static_cast<long long>(kGrayMatrix)), 0);
}

MEMCOMP_AVX512_INLINE __m256i rows(const Avx512Module& a, __m256i g) { return shuffle_bits(a.scan, g); }

// mpc_avx2::inverse.
MEMCOMP_AVX512_INLINE void inverse(const Avx512Module& a, const mpc::Compiled& c, const mpc::Rows& r,
                                   std::uint8_t* out) {
  const __m256i g = shuffle_bits(a.unscan, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.data())));
  alignas(32) std::uint8_t col[32];
  _mm256_store_si256(
      reinterpret_cast<__m256i*>(col),
      _mm256_mask_gf2p8affine_epi64_epi8(g, ~1u, g, _mm256_set1_epi64x(static_cast<long long>(kPrefixMatrix)), 0));
  c.unpredict(col, out);
}

}  // namespace mpc_avx512

struct MpcAvx512 : MpcSimd {
  using MpcSimd::MpcSimd;

  // pick_avx2 on the AVX-512 form of the modules (N: their number when known at compile time).
  template <std::size_t N = 0, bool G2 = false>
  MEMCOMP_AVX512_INLINE int pick_avx512(__m256i v, __m256i& rows, mpc::RowSplit& sp) const {
    if (rtl_) {
      __m256i g;
      const int best = select_rtl512<N, G2>(v, g);
      rows = mpc_avx512::rows(avx512_[static_cast<std::size_t>(best)], g);
      sp = mpc_avx2::split(rows);
      return best;
    }
    const std::size_t n = avx512_.size();
    int best = 0;
    unsigned best_e = ~0u;
    for (std::size_t k = 0; k < n; ++k)
      keep_smaller(k, mpc_avx512::rows(avx512_[k], mpc_avx512::cells<G2>(avx512_[k], v)), best, best_e, rows, sp);
    return best;
  }

  // select_rtl on the AVX-512 form of the modules.
  template <std::size_t N = 0, bool G2 = false>
  MEMCOMP_AVX512_INLINE int select_rtl512(__m256i v, __m256i& g) const {
    const std::size_t n = N ? N : avx512_.size();
    if (n == 0 || n > 5) __builtin_unreachable();  // a model has 1 to 5 modules
    __m256i cells[5] = {};                         // (n of them set: 1 to 5)
    for (std::size_t k = 0; k < n; ++k) cells[k] = mpc_avx512::cells<G2>(avx512_[k], v);
    const int best = most_leading_zero_rows(cells, n);
    g = cells[best];
    return best;
  }

  MEMCOMP_AVX512 int choose_avx512(const std::uint8_t* blk, mpc::Rows& rows, mpc::RowSplit& sp) const {
    __m256i r = _mm256_setzero_si256();
    const int k = pick_avx512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)), r, sp);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows.data()), r);
    return k;
  }

  MEMCOMP_AVX512 void inverse_avx512(std::size_t k, const mpc::Rows& rows, std::uint8_t* out) const {
    mpc_avx512::inverse(avx512_[k], mods_[k], rows, out);
  }

  MEMCOMP_AVX512 void measure_avx512(const BlockView& blocks, std::size_t begin, std::size_t end,
                                     const SizeColumns& out) const {
    if (avx512_.size() == 5 && g2_) return measure_avx512_n<5, true>(blocks, begin, end, out);
    measure_avx512_n<0, false>(blocks, begin, end, out);
  }
  template <std::size_t N, bool G2>
  MEMCOMP_AVX512_INLINE void measure_avx512_n(const BlockView& blocks, std::size_t begin, std::size_t end,
                                              const SizeColumns& out) const {
    std::uint32_t todo[kChunk];
    for (std::size_t c = begin; c < end; c += kChunk) {
      const std::size_t n = measure_simple(blocks, c, std::min(end, c + kChunk), out, todo);
      std::size_t j = 0;
      if (rtl_) {  // two at a time, as measure_avx2
        for (; j + 2 <= n; j += 2) {
          const std::size_t a = c + todo[j], b = c + todo[j + 1];
          __m256i ga, gb;
          const int ka = select_rtl512<N, G2>(mpc_avx2::ldu(blocks.block(a)), ga),
                    kb = select_rtl512<N, G2>(mpc_avx2::ldu(blocks.block(b)), gb);
          set_sizes(out, a, ka, mpc_avx512::rows(avx512_[static_cast<std::size_t>(ka)], ga));
          set_sizes(out, b, kb, mpc_avx512::rows(avx512_[static_cast<std::size_t>(kb)], gb));
        }
      }
      for (; j < n; ++j) {
        __m256i r;
        mpc::RowSplit sp;
        const int k = pick_avx512<N, G2>(mpc_avx2::ldu(blocks.block(c + todo[j])), r, sp);
        out.set(c + todo[j], sizes_of(k, sp));
      }
    }
  }
};

}  // namespace

const MpcKernels kMpcAvx512 = {
    [](const MpcView& v, const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out) {
      MpcAvx512(v).measure_avx512(blocks, begin, end, out);
    },
    [](const MpcView& v, const std::uint8_t* blk, mpc::Rows& rows, mpc::RowSplit& sp) {
      return MpcAvx512(v).choose_avx512(blk, rows, sp);
    },
    [](const MpcView& v, std::size_t k, const mpc::Rows& rows, std::uint8_t* out) {
      MpcAvx512(v).inverse_avx512(k, rows, out);
    },
};

}  // namespace memcomp
#endif
