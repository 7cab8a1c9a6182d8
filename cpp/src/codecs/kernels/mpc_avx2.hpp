// memcomp codecs: what MPC's AVX2 and AVX-512 kernels share (private; mpc_avx2.cpp and
// mpc_avx512.cpp): the modules in the forms the kernels read (MpcForms) and the AVX2 steps the
// AVX-512 kernels also take (the split of the rows, the search over them, the sizes).
#pragma once
#include "mpc.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace memcomp {

// pshufb indexes that gather byte `from` into byte o from the low or the high half of a block
// (0x80 in the other: the shuffle writes 0 there; none: 0 in both).
inline void split_index(std::uint8_t* lo, std::uint8_t* hi, std::size_t o, unsigned from, bool none = false) {
  lo[o] = static_cast<std::uint8_t>(!none && from < 16 ? from : 0x80u);
  hi[o] = static_cast<std::uint8_t>(!none && from >= 16 ? from - 16 : 0x80u);
}

// A permutation of 256 bits held as 32 bytes: pass j sets bit j of every output byte o to the
// bit bit[j][o] (a one-bit mask) of input byte lo/hi[j][o].
struct alignas(32) BitPermutation {
  std::uint8_t lo[8][32] = {}, hi[8][32] = {}, bit[8][32] = {};
  void set(unsigned j, unsigned o, unsigned from_byte, unsigned from_mask) {
    split_index(lo[j], hi[j], o, from_byte);
    bit[j][o] = static_cast<std::uint8_t>(from_mask);
  }
};

// One module for the AVX2 path (run-time dispatched; equal to mpc::Compiled bit for bit, see the
// tests). XOR of adjacent planes is a Gray code of each residue column: cell (p, c) of X is bit
// 7-p of g[c] = col[c] ^ (col[c] >> 1) (column 0 as is), so the 256 cells stay one register of
// 32 bytes. Leading zero rows: tests against the cells of the first r rows (MPC::select_rtl). Rows
// and their inverse: a BitPermutation between the cells and the rows as little-endian 16-bit
// words (row i is bytes 2i, positions 8..15, and 2i+1, positions 0..7; bit j of a byte holds
// position 15 - j or 7 - j).
struct alignas(32) Avx2Module {
  std::uint8_t src_lo[32] = {}, src_hi[32] = {}, bsrc_lo[32] = {}, bsrc_hi[32] = {};
  // mpc::Compiled's shift groups: the bytes of group g are the base shifted left by grp_l[g] then
  // right by grp_r[g] as 16-bit lanes, masked by grp_m[g] (its columns and the bits that stay in
  // their byte); the bytes of no group (keep) are the base as it is.
  std::uint8_t grp_m[16][32] = {}, keep[32] = {};
  std::uint8_t before[16][32] = {};  // cells (byte c, bit 7-p) of the rows before row r
  BitPermutation scan = {}, unscan = {};
  std::uint8_t grp_l[16] = {}, grp_r[16] = {};
  unsigned ngrp;

  explicit Avx2Module(const mpc::Compiled& c) : ngrp(c.ngrp) {
    for (std::size_t k = 0; k < 32; ++k) {
      split_index(src_lo, src_hi, k, c.src[k]);
      split_index(bsrc_lo, bsrc_hi, k, c.bsrc[k], k == 0);  // column 0 (the root) has no prediction
    }
    std::memset(keep, 0xFF, 32);
    for (unsigned g = 0; g < ngrp; ++g) {
      const int sh = c.grp_shift[g];
      grp_l[g] = static_cast<std::uint8_t>(sh > 0 ? sh : 0);
      grp_r[g] = static_cast<std::uint8_t>(sh < 0 ? -sh : 0);
      const unsigned stay = ((0xFFu << grp_l[g]) & 0xFFu) >> grp_r[g];
      for (unsigned k = 0; k < 32; ++k) {
        grp_m[g][k] = static_cast<std::uint8_t>(c.grp_mask[g][k] & stay);
        keep[k] = static_cast<std::uint8_t>(keep[k] & ~c.grp_mask[g][k]);
      }
    }
    for (unsigned t = 0; t < mpc::kCells; ++t) {
      const unsigned p = c.m.scan_row[t], col = c.m.scan_col[t];
      for (unsigned r = t / 16 + 1; r < 16; ++r)
        before[r][col] = static_cast<std::uint8_t>(before[r][col] | (0x80u >> p));
    }
    for (unsigned j = 0; j < 8; ++j)
      for (unsigned o = 0; o < 32; ++o) {
        const unsigned t = 16 * (o / 2) + (o % 2 ? 7 : 15) - j;  // scan index of bit j of rows byte o
        scan.set(j, o, c.m.scan_col[t], 0x80u >> c.m.scan_row[t]);
        const unsigned u = c.inv[32 * (7 - j) + o], pos = u % 16;  // scan index of cell (7 - j, o)
        unscan.set(j, o, 2 * (u / 16) + (pos < 8 ? 1 : 0), 1u << (pos < 8 ? 7 - pos : 15 - pos));
      }
  }
};

namespace mpc_avx2 {

MEMCOMP_AVX2_INLINE __m256i ld(const std::uint8_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
MEMCOMP_AVX2_INLINE __m256i ldu(const std::uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
MEMCOMP_AVX2_INLINE __m256i gather(__m256i lo, __m256i hi, const std::uint8_t* ilo, const std::uint8_t* ihi) {
  return _mm256_or_si256(_mm256_shuffle_epi8(lo, ld(ilo)), _mm256_shuffle_epi8(hi, ld(ihi)));
}

// The Gray-coded residue columns of the block whose halves lo, hi fill both lanes (G2: every
// module has at most 2 shift groups, applied without a loop; an absent one has no columns).
template <bool G2>
MEMCOMP_AVX2_INLINE __m256i cells(const Avx2Module& a, __m256i lo, __m256i hi) {
  const __m256i s = gather(lo, hi, a.src_lo, a.src_hi), b = gather(lo, hi, a.bsrc_lo, a.bsrc_hi);
  __m256i p = _mm256_and_si256(b, ld(a.keep));
  for (unsigned g = 0; g < (G2 ? 2 : a.ngrp); ++g) {
    const __m256i v =
        _mm256_srl_epi16(_mm256_sll_epi16(b, _mm_cvtsi32_si128(a.grp_l[g])), _mm_cvtsi32_si128(a.grp_r[g]));
    p = _mm256_or_si256(p, _mm256_and_si256(v, ld(a.grp_m[g])));
  }
  const __m256i col = _mm256_sub_epi8(s, p);
  const __m256i keep = _mm256_set_epi8(0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F,
                                       0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F,
                                       0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0);
  return _mm256_xor_si256(col, _mm256_and_si256(_mm256_srli_epi16(col, 1), keep));
}

// 1 when no cell of the rows before row r is set.
MEMCOMP_AVX2_INLINE unsigned none_before(const Avx2Module& a, __m256i g, unsigned r) {
  return static_cast<unsigned>(_mm256_testz_si256(g, ld(a.before[r])));
}

MEMCOMP_AVX2_INLINE __m256i permute(const BitPermutation& t, __m256i x) {
  const __m256i lo = _mm256_permute2x128_si256(x, x, 0x00), hi = _mm256_permute2x128_si256(x, x, 0x11);
  __m256i acc = _mm256_setzero_si256();
  for (unsigned j = 0; j < 8; ++j) {
    const __m256i m = ld(t.bit[j]);
    const __m256i hit = _mm256_cmpeq_epi8(_mm256_and_si256(gather(lo, hi, t.lo[j], t.hi[j]), m), m);
    acc = _mm256_or_si256(acc, _mm256_and_si256(hit, _mm256_set1_epi8(static_cast<char>(1u << j))));
  }
  return acc;
}

// The 16 rows as 16-bit lanes (lane i = row i).
MEMCOMP_AVX2_INLINE __m256i rows(const Avx2Module& a, __m256i g) { return permute(a.scan, g); }

// mpc::Compiled::inverse: the Gray-coded columns from the rows, a prefix XOR of each byte but
// column 0, then the bytes in decoding order.
MEMCOMP_AVX2_INLINE void inverse(const Avx2Module& a, const mpc::Compiled& c, const mpc::Rows& r, std::uint8_t* out) {
  const __m256i g = permute(a.unscan, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.data())));
  __m256i x = g;
  x = _mm256_xor_si256(x, _mm256_and_si256(_mm256_srli_epi16(x, 1), _mm256_set1_epi8(0x7F)));
  x = _mm256_xor_si256(x, _mm256_and_si256(_mm256_srli_epi16(x, 2), _mm256_set1_epi8(0x3F)));
  x = _mm256_xor_si256(x, _mm256_and_si256(_mm256_srli_epi16(x, 4), _mm256_set1_epi8(0x0F)));
  alignas(32) std::uint8_t col[32];
  _mm256_store_si256(reinterpret_cast<__m256i*>(col), x);
  col[0] = static_cast<std::uint8_t>(_mm256_extract_epi8(g, 0));
  c.unpredict(col, out);
}

MEMCOMP_AVX2_INLINE unsigned rows_where(__m256i x) {  // bit 2i: lane i is all ones
  return static_cast<unsigned>(_mm256_movemask_epi8(x)) & 0x55555555u;
}

// mpc::split_bits of the rows in r: row classes as masks (bit 2i = row i), then counts.
MEMCOMP_AVX2_INLINE mpc::RowSplit split(__m256i r) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi16(1);
  const __m256i w = _mm256_and_si256(r, _mm256_sub_epi16(r, one));
  const unsigned z = rows_where(_mm256_cmpeq_epi16(r, zero));
  const unsigned p1 = rows_where(_mm256_cmpeq_epi16(w, zero));  // at most one 1
  const unsigned p2 = rows_where(_mm256_cmpeq_epi16(_mm256_and_si256(w, _mm256_sub_epi16(w, one)), zero));
  const unsigned nadj = rows_where(_mm256_cmpeq_epi16(_mm256_and_si256(r, _mm256_slli_epi16(r, 1)), zero));
  const unsigned half =
      rows_where(_mm256_or_si256(_mm256_cmpeq_epi16(_mm256_and_si256(r, _mm256_set1_epi16(-256)), zero),
                                 _mm256_cmpeq_epi16(_mm256_and_si256(r, _mm256_set1_epi16(255)), zero)));
  const unsigned c7 = p1 & ~z, c8 = p2 & ~p1 & ~nadj, c12 = half & ~p1 & ~c8, c17 = ~(p1 | c8 | half) & 0x55555555u;
  const unsigned starts = z & ~(z << 2), single = starts & ~(z >> 2);
  const auto n1 = static_cast<unsigned>(_mm_popcnt_u32(single)),
             n2 = static_cast<unsigned>(_mm_popcnt_u32(starts)) - n1;
  const auto k7 = static_cast<unsigned>(_mm_popcnt_u32(c7)), k8 = static_cast<unsigned>(_mm_popcnt_u32(c8));
  const auto k12 = static_cast<unsigned>(_mm_popcnt_u32(c12)), k17 = static_cast<unsigned>(_mm_popcnt_u32(c17));
  return {3 * k7 + 4 * k8 + 4 * k12 + k17 + 4 * n1 + 3 * n2, 4 * k7 + 4 * k8 + 8 * k12 + 16 * k17 + 4 * n2};
}

}  // namespace mpc_avx2

// The GF2P8AFFINEQB matrix that sets bit i of each byte to the XOR of the bits in rows[i].
inline std::uint64_t affine_matrix(const std::array<unsigned, 8>& rows) {
  std::uint64_t m = 0;
  for (unsigned i = 0; i < 8; ++i) m |= static_cast<std::uint64_t>(rows[i] & 0xFFu) << (8 * (7 - i));
  return m;
}
// A byte shifted by s (> 0 left, < 0 right, |s| >= 8: 0).
inline std::uint64_t shift_matrix(int s) {
  std::array<unsigned, 8> rows{};
  for (int i = 0; i < 8; ++i)
    if (i - s >= 0 && i - s < 8) rows[static_cast<unsigned>(i)] = 1u << (i - s);
  return affine_matrix(rows);
}
inline const std::uint64_t kGrayMatrix = affine_matrix({3, 6, 12, 24, 48, 96, 192, 128});            // x ^ (x >> 1)
inline const std::uint64_t kPrefixMatrix = affine_matrix({255, 254, 252, 248, 240, 224, 192, 128});  // its inverse

// A BitPermutation as four VPSHUFBITQMB of 64 bits (output bytes 8m..8m+7), each from a byte
// permute that brings output byte o's (at most 8) source bytes into its 64-bit lane.
struct alignas(64) BitShuffle {
  std::uint8_t idx[4][64] = {}, ctl[4][64] = {};
  explicit BitShuffle(const BitPermutation& t) {
    for (unsigned o = 0; o < 32; ++o) {
      const unsigned m = o / 8, q = o % 8;
      std::uint8_t from[8] = {};
      unsigned used = 0;
      for (unsigned j = 0; j < 8; ++j) {
        const unsigned byte = t.lo[j][o] < 0x80 ? t.lo[j][o] : t.hi[j][o] + 16u;
        unsigned s = 0;
        while (s < used && from[s] != byte) ++s;
        if (s == used) from[used++] = static_cast<std::uint8_t>(byte);
        ctl[m][8 * q + j] = static_cast<std::uint8_t>(8 * s + static_cast<unsigned>(__builtin_ctz(t.bit[j][o])));
      }
      std::memcpy(&idx[m][8 * q], from, 8);
    }
  }
};

// One module for the AVX-512 path (the avx512 tier; equal to the AVX2 form bit for bit, see the
// tests): the gathers are byte permutes, the shifts and the Gray code affine maps of bytes, the
// rows and their inverse BitShuffles; the search over rows is mpc_avx2's.
struct alignas(64) Avx512Module {
  BitShuffle scan, unscan;
  std::uint8_t src[32] = {}, bsrc[32] = {};
  std::uint64_t grp_matrix[16] = {};
  std::uint32_t grp_k[16] = {};
  unsigned ngrp;

  Avx512Module(const mpc::Compiled& c, const Avx2Module& a) : scan(a.scan), unscan(a.unscan), ngrp(c.ngrp) {
    std::memcpy(src, c.src.data(), 32);
    std::memcpy(bsrc, c.bsrc.data(), 32);
    for (unsigned g = 0; g < ngrp; ++g) {
      grp_matrix[g] = shift_matrix(c.grp_shift[g]);
      for (unsigned k = 0; k < 32; ++k) grp_k[g] |= (c.grp_mask[g][k] ? 1u : 0u) << k;
    }
  }
};

/// The modules of a model in both kernels' forms.
struct MpcForms {
  std::vector<Avx2Module> avx2;      // for the AVX2 kernels
  std::vector<Avx512Module> avx512;  // and the AVX-512 ones
  bool g2 = false;                   // every module has at most 2 shift groups
  explicit MpcForms(const std::vector<mpc::Compiled>& mods) {
    for (const auto& c : mods) avx2.emplace_back(c);
    for (std::size_t k = 0; k < mods.size(); ++k) avx512.emplace_back(mods[k], avx2[k]);
    g2 = std::all_of(mods.begin(), mods.end(), [](const mpc::Compiled& c) { return c.ngrp <= 2; });
  }
};

/// A model as the kernels read it, and the steps both tiers take (the codec's members, as they were).
struct MpcSimd {
  explicit MpcSimd(const MpcView& v)
      : mods_(*v.mods), avx2_(v.forms->avx2), avx512_(v.forms->avx512), g2_(v.forms->g2), rtl_(v.rtl) {}
  const std::vector<mpc::Compiled>& mods_;  // by class, ascending
  const std::vector<Avx2Module>& avx2_;
  const std::vector<Avx512Module>& avx512_;
  bool g2_;   // every module has at most 2 shift groups
  bool rtl_;  // select="rtl"

  // Both rules on the AVX2 form of the modules (ties to the higher class either way): the index
  // of the chosen module, its rows in `rows` and their split.
  template <std::size_t N = 0, bool G2 = false>
  MEMCOMP_AVX2_INLINE int pick_avx2(__m256i v, __m256i& rows, mpc::RowSplit& sp) const {
    if (rtl_) {
      __m256i g;
      const int best = select_rtl<N, G2>(v, g);
      rows = mpc_avx2::rows(avx2_[static_cast<std::size_t>(best)], g);
      sp = mpc_avx2::split(rows);
      return best;
    }
    const __m256i lo = _mm256_permute2x128_si256(v, v, 0x00), hi = _mm256_permute2x128_si256(v, v, 0x11);
    const std::size_t n = avx2_.size();
    int best = 0;
    unsigned best_e = ~0u;
    for (std::size_t k = 0; k < n; ++k)
      keep_smaller(k, mpc_avx2::rows(avx2_[k], mpc_avx2::cells<G2>(avx2_[k], lo, hi)), best, best_e, rows, sp);
    return best;
  }

  // A step of the min_bits rule: module k, whose rows are r, becomes the best when its E is no
  // larger (ties to the higher class).
  MEMCOMP_AVX2_INLINE static void keep_smaller(std::size_t k, __m256i r, int& best, unsigned& best_e, __m256i& rows,
                                               mpc::RowSplit& sp) {
    const mpc::RowSplit s = mpc_avx2::split(r);
    if (s.meta + s.payload <= best_e) {
      best_e = s.meta + s.payload;
      best = static_cast<int>(k);
      rows = r;
      sp = s;
    }
  }

  // Records the sizes of block i, coded by module k with rows r.
  MEMCOMP_AVX2_INLINE void set_sizes(const SizeColumns& out, std::size_t i, int k, __m256i r) const {
    out.set(i, sizes_of(k, mpc_avx2::split(r)));
  }

  // The RTL rule: every module's cells and leading zero rows, then a branch-free pick; the index
  // of the chosen module and its cells in g.
  template <std::size_t N = 0, bool G2 = false>
  MEMCOMP_AVX2_INLINE int select_rtl(__m256i v, __m256i& g) const {
    const __m256i lo = _mm256_permute2x128_si256(v, v, 0x00), hi = _mm256_permute2x128_si256(v, v, 0x11);
    const std::size_t n = N ? N : avx2_.size();
    if (n == 0 || n > 5) __builtin_unreachable();  // a model has 1 to 5 modules
    __m256i cells[5] = {};                         // (n of them set: 1 to 5)
    for (std::size_t k = 0; k < n; ++k) cells[k] = mpc_avx2::cells<G2>(avx2_[k], lo, hi);
    const int best = most_leading_zero_rows(cells, n);
    g = cells[best];
    return best;
  }

  // One binary search over the rows for all n modules' cells: the most leading zero rows any
  // module has and, bit k, the modules that have them; the highest such module wins.
  MEMCOMP_AVX2_INLINE int most_leading_zero_rows(const __m256i* cells, std::size_t n) const {
    if (n == 0 || n > 5) __builtin_unreachable();  // a model has 1 to 5 modules
    unsigned most = 0, have = (1u << n) - 1;
    for (unsigned step = 8; step; step >>= 1) {
      const unsigned r = most + step;
      unsigned ok = 0;
      for (std::size_t k = 0; k < n; ++k) ok |= mpc_avx2::none_before(avx2_[k], cells[k], r) << k;
      most = ok ? r : most;
      have = ok ? ok : have;
    }
    return 31 - __builtin_clz(have);
  }

  SizeBreakdown sizes_of(int k, const mpc::RowSplit& sp) const {
    SizeBreakdown s;
    s.header = mpc::kClassBits;
    const bool raw = sp.meta + sp.payload >= 256;
    s.meta = raw ? 0 : sp.meta;
    s.payload = raw ? 256 : sp.payload;
    s.mode = static_cast<std::int16_t>(raw ? 7 : mods_[static_cast<std::size_t>(k)].m.cls);
    return s;
  }

  // Measures blocks [c, stop) of classes 0 and 1; the others' offsets from c go to todo (kChunk
  // at most), their count is returned.
  static constexpr std::size_t kChunk = 256;
  MEMCOMP_AVX2_INLINE static std::size_t measure_simple(const BlockView& blocks, std::size_t c, std::size_t stop,
                                                        const SizeColumns& out, std::uint32_t* todo) {
    std::size_t n = 0;
    for (std::size_t i = c; i < stop; ++i) {
      const __m256i v = mpc_avx2::ldu(blocks.block(i));
      SizeBreakdown s;
      s.header = mpc::kClassBits;
      if (_mm256_testz_si256(v, v)) {
        out.set(i, s);
      } else if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(v, _mm256_broadcastd_epi32(_mm256_castsi256_si128(v)))) ==
                 -1) {
        s.payload = 32;
        s.mode = 1;
        out.set(i, s);
      } else {
        todo[n++] = static_cast<std::uint32_t>(i - c);
      }
    }
    return n;
  }
};

}  // namespace memcomp
#endif
