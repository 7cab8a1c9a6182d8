// memcomp codecs: BPC's AVX2 kernels (kernels/bpc.hpp): the plane statistics of eight rows per
// register (a block's sizes without a transpose), the planes of a block through a 32x32 bit
// transpose and their symbols chosen eight at a time, and a decoder that walks a block's symbols
// without a branch per class, two blocks interleaved, then checks and sums eight planes per
// register. Each equals the scalar code in bpc.cpp bit for bit (tests/cpp/test_simd_tiers.cpp).
#include "bpc.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace memcomp {
namespace {

using namespace bpc;

// out[c] bit r = in[r] bit c for a 32x32 bit matrix: a byte transpose (row r's byte k to byte r
// of register k), then 8 movemasks per register, each taking the top bit of every byte.
// The rows come in four registers of eight.
MEMCOMP_AVX2 void transpose32_avx2(const __m256i (&in)[4], std::uint32_t* out) {
  const __m256i group = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9, 13,
                                         2, 6, 10, 14, 3, 7, 11, 15);
  __m256i r[4];
  for (int k = 0; k < 4; ++k) r[k] = _mm256_shuffle_epi8(in[k], group);
  // Dword k of each 128-bit lane holds byte k of that lane's 4 rows; a 4x4 dword transpose per
  // lane gathers them, and a dword permutation puts the rows in order.
  const __m256i a0 = _mm256_unpacklo_epi32(r[0], r[1]), a1 = _mm256_unpackhi_epi32(r[0], r[1]);
  const __m256i a2 = _mm256_unpacklo_epi32(r[2], r[3]), a3 = _mm256_unpackhi_epi32(r[2], r[3]);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i t[4] = {_mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(a0, a2), order),
                        _mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(a0, a2), order),
                        _mm256_permutevar8x32_epi32(_mm256_unpacklo_epi64(a1, a3), order),
                        _mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(a1, a3), order)};
  for (int k = 0; k < 4; ++k) {
    __m256i v = t[k];
    for (int j = 7; j >= 0; --j) {
      out[8 * k + j] = static_cast<std::uint32_t>(_mm256_movemask_epi8(v));
      v = _mm256_add_epi8(v, v);
    }
  }
}

// transpose_bits up to 33 x 33 with AVX2 throughout: rows 0..31 split into their low words and
// bit 32 (four rows per register), the 32x32 transpose, and row 32 merged as bit 32 of each
// column.
MEMCOMP_AVX2 void transpose33_avx2(const std::uint64_t* rows, unsigned R, unsigned C, std::uint64_t* cols) {
  alignas(32) std::uint64_t rr[32];
  const unsigned in = R < 32 ? R : 32;
  std::memcpy(rr, rows, 8 * std::size_t{in});
  std::memset(rr + in, 0, 8 * std::size_t{32 - in});
  alignas(32) std::uint32_t lo[32], t[32];
  const __m256i low = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  std::uint64_t top = 0;  // column 32: bit 32 of rows 0..31
  for (unsigned q = 0; q < 8; ++q) {
    const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(rr + 4 * q));
    _mm_store_si128(reinterpret_cast<__m128i*>(lo + 4 * q),
                    _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, low)));
    top |= std::uint64_t{static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_slli_epi64(v, 31))))}
           << (4 * q);
  }
  const __m256i regs[4] = {_mm256_load_si256(reinterpret_cast<const __m256i*>(lo)),
                           _mm256_load_si256(reinterpret_cast<const __m256i*>(lo + 8)),
                           _mm256_load_si256(reinterpret_cast<const __m256i*>(lo + 16)),
                           _mm256_load_si256(reinterpret_cast<const __m256i*>(lo + 24))};
  transpose32_avx2(regs, t);
  const __m256i last = _mm256_set1_epi64x(static_cast<long long>(R == 33 ? rows[32] : 0));  // row 32
  const unsigned out = C < 32 ? C : 32;
  for (unsigned c = 0; c < out; c += 4) {
    const __m256i shift = _mm256_add_epi64(_mm256_set1_epi64x(c), _mm256_setr_epi64x(0, 1, 2, 3));
    const __m256i bit32 =
        _mm256_slli_epi64(_mm256_and_si256(_mm256_srlv_epi64(last, shift), _mm256_set1_epi64x(1)), 32);
    const __m256i col =
        _mm256_or_si256(_mm256_cvtepu32_epi64(_mm_load_si128(reinterpret_cast<const __m128i*>(t + c))), bit32);
    alignas(32) std::uint64_t four[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(four), col);
    for (unsigned k = 0; k < 4 && c + k < out; ++k) cols[c + k] = four[k];
  }
  if (C == 33) cols[32] = top | (((R == 33 ? rows[32] : 0) >> 32) & 1u) << 32;
}

// RowStats of rows 1..n-1 with eight rows per AVX2 register, straight from the block's words
// (a word's predecessor by a lane rotation): the low 32 bits of each row in a 32-bit lane,
// bit 32 of a 33-bit delta (its sign: word i below word i - 1) in a mask, which also gives
// plane 32's statistics. Each lane gathers the statistics of its rows, then the lanes merge
// (a plane has two ones if either part has two, or each has one; three likewise). Adjacent
// rows meet within a register and across two. Word 0's lane is no row: its row is 0 and it
// does not count against `all`.
// Lane j ^ 4 (K = 0), ^ 2 (1) or ^ 1 (2) of 32-bit lanes.
template <int K>
MEMCOMP_AVX2_INLINE __m256i other(__m256i x) {
  if constexpr (K == 0)
    return _mm256_permute2x128_si256(x, x, 0x01);
  else if constexpr (K == 1)
    return _mm256_shuffle_epi32(x, 0x4E);
  else
    return _mm256_shuffle_epi32(x, 0xB1);
}
// One step of the lane merge: each lane with its partner other<K>.
template <int K>
MEMCOMP_AVX2_INLINE void merge_lanes(__m256i& any, __m256i& two, __m256i& three, __m256i& all, __m256i& dbp,
                                     __m256i& adj) {
  const __m256i a2 = other<K>(any), t2 = other<K>(two), t3 = other<K>(three);
  three = _mm256_or_si256(_mm256_or_si256(three, t3),
                          _mm256_or_si256(_mm256_and_si256(two, a2), _mm256_and_si256(any, t2)));
  two = _mm256_or_si256(_mm256_or_si256(two, t2), _mm256_and_si256(any, a2));
  any = _mm256_or_si256(any, a2);
  all = _mm256_and_si256(all, other<K>(all));
  dbp = _mm256_or_si256(dbp, other<K>(dbp));
  adj = _mm256_or_si256(adj, other<K>(adj));
}

template <std::size_t B, Src S, bool Unsigned, bool Big>
MEMCOMP_AVX2 RowStats row_stats_avx2(const std::uint8_t* blk) {
  constexpr std::size_t R = B / 32, n = B / 4;
  const __m256i zero = _mm256_setzero_si256(), ones = _mm256_set1_epi8(-1);
  const __m256i up = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
  const __m256i flip = _mm256_set1_epi32(Unsigned ? static_cast<int>(0x80000000u) : 0);
  __m256i any = zero, two = zero, three = zero, all = ones, dbp = zero, adj = zero, prev = zero, last = zero;
  std::uint64_t top = 0;  // bit i: bit 32 of row i
  for (std::size_t r = 0; r < R; ++r) {
    __m256i cur = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
    if (Big) cur = bswap32(cur);
    const __m256i before =
        _mm256_blend_epi32(_mm256_permutevar8x32_epi32(cur, up), _mm256_permutevar8x32_epi32(last, up), 0x01);
    last = cur;
    __m256i u = S == Src::words ? cur : _mm256_sub_epi32(cur, before), sign = zero;
    if constexpr (S == Src::delta33)
      sign = _mm256_cmpgt_epi32(_mm256_xor_si256(before, flip), _mm256_xor_si256(cur, flip));
    if (r == 0) {  // lane 0 is word 0: no row
      u = _mm256_blend_epi32(u, zero, 0x01);
      sign = _mm256_blend_epi32(sign, zero, 0x01);
    }
    top |= std::uint64_t{static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(sign)))} << (8 * r);
    const __m256i e = _mm256_xor_si256(u, _mm256_or_si256(_mm256_srli_epi32(u, 1), _mm256_slli_epi32(sign, 31)));
    three = _mm256_or_si256(three, _mm256_and_si256(two, e));
    two = _mm256_or_si256(two, _mm256_and_si256(any, e));
    any = _mm256_or_si256(any, e);
    all = _mm256_and_si256(all, r == 0 ? _mm256_blend_epi32(e, ones, 0x01) : e);
    dbp = _mm256_or_si256(dbp, u);
    // The row before each lane's: lanes 0..6 of e one lane up, lane 0 from the last register.
    const __m256i before_e =
        _mm256_blend_epi32(_mm256_permutevar8x32_epi32(e, up), _mm256_permutevar8x32_epi32(prev, up), 0x01);
    adj = _mm256_or_si256(adj, _mm256_and_si256(e, before_e));
    prev = e;
  }
  // Lanes merged pairwise: halves, then pairs of 64 bits, then of 32.
  merge_lanes<0>(any, two, three, all, dbp, adj);
  merge_lanes<1>(any, two, three, all, dbp, adj);
  merge_lanes<2>(any, two, three, all, dbp, adj);
  RowStats st;
  st.any = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(any));
  st.two = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(two));
  st.three = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(three));
  st.all = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(all));
  st.dbp = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(dbp));
  st.adj = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(adj));
  if constexpr (S == Src::delta33) {  // plane 32: its DBX is its DBP, the rows' bit 32
    const auto k = static_cast<unsigned>(__builtin_popcountll(top));
    constexpr std::uint64_t rows = low_mask(n) & ~std::uint64_t{1};
    st.any |= std::uint64_t{k >= 1} << 32;
    st.two |= std::uint64_t{k >= 2} << 32;
    st.three |= std::uint64_t{k >= 3} << 32;
    st.all |= std::uint64_t{top == rows} << 32;
    st.dbp |= std::uint64_t{k >= 1} << 32;
    st.adj |= std::uint64_t{(top & (top >> 1)) != 0} << 32;
  }
  return st;
}

// The gatherer of measure_block: row_stats_avx2 for the codec's word order and endianness.
struct Avx2Rows {
  template <std::size_t B, Src S>
  static RowStats stats(const Settings& s, const std::uint8_t* blk) {  // (inlined by the flatten below)
    const bool big = s.endian == Endian::big;
    return s.unsigned_words ? (big ? row_stats_avx2<B, S, true, true>(blk) : row_stats_avx2<B, S, true, false>(blk))
                            : (big ? row_stats_avx2<B, S, false, true>(blk) : row_stats_avx2<B, S, false, false>(blk));
  }
};

// measure_block with the statistics and costs inlined (flatten: AVX2 and popcnt throughout).
template <std::size_t B>
MEMCOMP_AVX2 __attribute__((flatten)) SizeBreakdown measure_one(const Settings& s, const std::uint8_t* blk) {
  return measure_block<B, Avx2Rows, BuiltinPop>(s, blk);
}
template <std::size_t B>
MEMCOMP_AVX2 __attribute__((flatten)) void measure_blocks(const Settings& s, const BlockView& blocks, std::size_t begin,
                                                          std::size_t end, const SizeColumns& out) {
  for (std::size_t i = begin; i < end; ++i) out.set(i, measure_block<B, Avx2Rows, BuiltinPop>(s, blocks.block(i)));
}

// The planes of the rows of a block of at most 32 words, all in registers: row i (word i less
// word i - 1, or the word) sits in lane i, its low 32 bits in the transpose and bit 32 (the
// sign of the 33-bit delta: word i below word i - 1, as signed words, the only exact ones) in
// a mask; lane 0 (word 0, no row) is shifted out of every plane. The planes go out from the
// top one down as emit_planes_avx2 takes them: rev[8 + k] = plane P - 1 - k, 0 around them.
template <std::size_t B>
MEMCOMP_AVX2 void planes_avx2(const Settings& s, const std::uint8_t* blk, Src src, std::uint32_t* rev) {
  constexpr std::size_t R = B / 32;
  const __m256i up = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
  __m256i lo[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
  __m256i last = _mm256_setzero_si256();
  std::uint64_t top = 0;
  for (std::size_t r = 0; r < R; ++r) {
    __m256i cur = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
    if (s.endian == Endian::big) cur = bswap32(cur);
    const __m256i before =
        _mm256_blend_epi32(_mm256_permutevar8x32_epi32(cur, up), _mm256_permutevar8x32_epi32(last, up), 0x01);
    last = cur;
    lo[r] = src == Src::words ? cur : _mm256_sub_epi32(cur, before);
    const __m256i below = _mm256_cmpgt_epi32(before, cur);  // signed words: unsigned ones are not exact
    top |= std::uint64_t{static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(below)))} << (8 * r);
  }
  alignas(32) std::uint32_t t[32];
  transpose32_avx2(lo, t);
  const unsigned P = src == Src::delta33 ? 33 : 32;
  const __m256i reverse = _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0), zero = _mm256_setzero_si256();
  _mm256_store_si256(reinterpret_cast<__m256i*>(rev), zero);
  _mm256_store_si256(reinterpret_cast<__m256i*>(rev + 40), zero);
  rev[8] = static_cast<std::uint32_t>(top >> 1);  // plane 32, or plane 31 written over below
  for (unsigned q = 0; q < 4; ++q) {              // planes 8q..8q+7 to rev[8 + P - 8 - 8q ..]
    const __m256i planes = _mm256_srli_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(t + 8 * q)), 1);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(rev + P - 8 * q), _mm256_permutevar8x32_epi32(planes, reverse));
  }
}

// classify's tests on eight planes at once (DBP p, DBX x; x = 0 counts as a single one).
struct PlaneClasses {
  __m256i single, pair, all, dbp_zero;
};
MEMCOMP_AVX2_INLINE PlaneClasses plane_classes(__m256i p, __m256i x, __m256i ones) {
  const __m256i zero = _mm256_setzero_si256(), low = _mm256_and_si256(x, _mm256_sub_epi32(zero, x));
  return {_mm256_cmpeq_epi32(x, low), _mm256_cmpeq_epi32(x, _mm256_or_si256(low, _mm256_slli_epi32(low, 1))),
          _mm256_cmpeq_epi32(x, ones), _mm256_cmpeq_epi32(p, zero)};
}
// Per lane, the value given for the first class that applies in the codec's precedence (liu or
// kim; raw when none does): the blends go in reverse order, so the first class is applied last.
MEMCOMP_AVX2_INLINE __m256i first_class(bool liu, const PlaneClasses& c, __m256i raw, __m256i dbp_zero, __m256i all,
                                        __m256i pair, __m256i single) {
  __m256i v = raw;
  if (liu) {
    v = _mm256_blendv_epi8(v, dbp_zero, c.dbp_zero);
    v = _mm256_blendv_epi8(v, all, c.all);
    v = _mm256_blendv_epi8(v, pair, c.pair);
    return _mm256_blendv_epi8(v, single, c.single);
  }
  v = _mm256_blendv_epi8(v, single, c.single);
  v = _mm256_blendv_epi8(v, pair, c.pair);
  v = _mm256_blendv_epi8(v, all, c.all);
  return _mm256_blendv_epi8(v, dbp_zero, c.dbp_zero);
}
// emit_planes for W <= 31 without a branch per plane: eight planes per register, from the top
// plane down, each plane's symbol as a field (value, length) chosen by blends in reverse order
// of precedence (the first class that applies is applied last); a zero plane's field stays
// empty unless it tops a run, which gets the run symbol; all fields go out in one write_fields.
// rev[8 + k] is DBP plane P - 1 - k, rev[7] = 0 (above the top plane), 0 past plane 0 up to rev[47].
MEMCOMP_AVX2_INLINE void emit_planes_avx2(const Settings& s, const std::uint32_t* rev, unsigned P, unsigned W,
                                          unsigned pb, BitWriter& out) {
  const unsigned map = s.kim_codes ? 1 : 0;
  const __m256i ones = _mm256_set1_epi32(static_cast<int>(low_mask(W))), zero = _mm256_setzero_si256();
  const __m256i code_d = _mm256_set1_epi32(static_cast<int>(kCode[map][kDbp0]));
  const __m256i code_o = _mm256_set1_epi32(static_cast<int>(kCode[map][kOnes]));
  const __m256i code_p = _mm256_set1_epi32(static_cast<int>(kCode[map][kPair] << pb));
  const __m256i code_s = _mm256_set1_epi32(static_cast<int>(kCode[map][kSingle] << pb));
  const __m256i raw_flag = _mm256_set1_epi32(static_cast<int>(1u << W));
  const __m256i len5 = _mm256_set1_epi32(5), len_pos = _mm256_set1_epi32(static_cast<int>(5 + pb));
  const __m256i len_raw = _mm256_set1_epi32(static_cast<int>(W + 1)), bias = _mm256_set1_epi32(127);
  alignas(32) std::uint32_t v[40], len[40];
  std::uint64_t nz = 0;  // bit k: DBX of plane P - 1 - k is not 0
  for (unsigned q = 0; 8 * q < P; ++q) {
    const __m256i p = _mm256_load_si256(reinterpret_cast<const __m256i*>(rev + 8 + 8 * q));
    const __m256i x = _mm256_xor_si256(p, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rev + 7 + 8 * q)));
    const __m256i low = _mm256_and_si256(x, _mm256_sub_epi32(zero, x));
    const __m256i pos = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(low)), 23), bias);
    const PlaneClasses c = plane_classes(p, x, ones);
    const __m256i none = _mm256_cmpeq_epi32(x, zero);
    __m256i val = first_class(s.liu, c, _mm256_or_si256(raw_flag, x), code_d, code_o, _mm256_or_si256(code_p, pos),
                              _mm256_or_si256(code_s, pos));
    __m256i ln = first_class(s.liu, c, len_raw, len5, len5, len_pos, len_pos);
    val = _mm256_andnot_si256(none, val);
    ln = _mm256_andnot_si256(none, ln);
    nz |= std::uint64_t{~static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(none))) & 0xFFu} << (8 * q);
    _mm256_store_si256(reinterpret_cast<__m256i*>(v + 8 * q), val);
    _mm256_store_si256(reinterpret_cast<__m256i*>(len + 8 * q), ln);
  }
  nz &= low_mask(P);
  const std::uint64_t z = ~nz & low_mask(P), nz_end = nz | std::uint64_t{1} << P, tops = z & ~(z << 1);
  // Only the planes with a symbol (non-zero, or a run's top), packed to the front eight at a
  // time (lane indices by pext), go to write_fields; the runs' symbols are set in the packed
  // fields (a scalar store into v would stall the vector load after it).
  alignas(32) std::uint32_t fv[48], fl[48];
  const std::uint64_t has = nz | tops;
  unsigned n = 0;
  for (unsigned q = 0; 8 * q < P; ++q) {
    const auto m = static_cast<unsigned>(has >> (8 * q)) & 0xFFu;
    const std::uint64_t lanes = _pext_u64(0x0706050403020100u, _pdep_u64(m, 0x0101010101010101u) * 0xFFu);
    const __m256i idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(lanes)));
    const __m256i vq = _mm256_load_si256(reinterpret_cast<const __m256i*>(v + 8 * q));
    const __m256i lq = _mm256_load_si256(reinterpret_cast<const __m256i*>(len + 8 * q));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(fv + n), _mm256_permutevar8x32_epi32(vq, idx));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(fl + n), _mm256_permutevar8x32_epi32(lq, idx));
    n += static_cast<unsigned>(__builtin_popcount(m));
  }
  for (std::uint64_t t = tops; t != 0; t &= t - 1) {  // each run's top plane, as the field it packed to
    const unsigned k = ctz(t), run = ctz(nz_end >> k);
    const auto at = static_cast<unsigned>(__builtin_popcountll(has & low_mask(k)));
    fv[at] = run == 1 ? 0b001 : 0b01u << 5 | (run - 2);
    fl[at] = run == 1 ? 3 : 7;
  }
  out.write_fields(fv, fl, n);
}

MEMCOMP_AVX2 void encode_planes(const Settings& s, const std::uint8_t* blk, std::size_t b, Src src, BitWriter& out) {
  alignas(32) std::uint32_t rev[48];
  with_block_size(b, [&](auto B) {
    if constexpr (B() >= 32 && B() <= 128) planes_avx2<B()>(s, blk, src, rev);
  });
  const auto m = static_cast<unsigned>(b / 4 - 1);
  emit_planes_avx2(s, rev, src == Src::delta33 ? 33 : 32, m, ceil_log2(m), out);
}

MEMCOMP_AVX2_INLINE void store5(std::uint32_t* to, __m256i v) {
  _mm256_store_si256(reinterpret_cast<__m256i*>(to), v);
  _mm256_store_si256(reinterpret_cast<__m256i*>(to + 8), v);
  _mm256_store_si256(reinterpret_cast<__m256i*>(to + 16), v);
  _mm256_store_si256(reinterpret_cast<__m256i*>(to + 24), v);
  _mm256_store_si256(reinterpret_cast<__m256i*>(to + 32), v);
}
// The fast decoder of a delta block of B = 32, 64 or 128 bytes (W = m <= 31: every symbol lies
// within 40 bits), without a branch on the symbol class. Each symbol's class, length and DBX come from
// its first 5 bits (the Sym table) and masks; only the zero runs are checked in the loop (not after
// another, not past plane 0), and a run leaves its planes' DBX 0. Then, eight planes per
// register: DBP as a running XOR from the top, and every other symbol checked to be its
// plane's encoding, as emit_planes_avx2 chooses it. Then the planes' low 32 bits through the
// 32x32 transpose (bit j of word i's delta), the words as a running sum mod 2^32, and the sign
// plane checked against the words: bit 32 of a 33-bit delta is set exactly when word i lies
// below word i - 1 as signed words, so a delta that leaves the signed 32-bit range fails it.
// decode_one and decode_pair return false, with the readers untouched, for every stream the
// general path rejects (it then throws the error) and for a symbol past the stream's end.
//
// Symbol readers of a walk: the next 40 bits, and the symbol's length consumed (false past the
// stream's end). Checked: a BitReader. Raw: the buffer read directly, for a walk that cannot
// read past it whatever the stream holds (the caller checks that, and the end, afterwards).
struct Checked {
  BitReader r;
  MEMCOMP_AVX2_INLINE std::uint64_t peek40() const { return r.peek(40); }
  MEMCOMP_AVX2_INLINE bool consume(unsigned n) {
    if (n > r.remaining()) return false;
    r.skip(n);
    return true;
  }
  bool at_end() const { return r.remaining() == 0; }
};
struct Raw {
  const std::uint8_t* data;
  std::size_t pos, end;  // bits from data
  MEMCOMP_AVX2_INLINE std::uint64_t peek40() const {
    return (load<std::uint64_t>(data + (pos >> 3), Endian::big) << (pos & 7)) >> 24;
  }
  MEMCOMP_AVX2_INLINE bool consume(unsigned n) {
    pos += n;
    return true;
  }
  bool at_end() const { return pos == end; }
};
// The most bits a walk's symbols take: P <= 33 planes of at most W + 1 <= 32 bits.
constexpr std::size_t kWalkBits = 33 * 32;
// One block's walk through its symbols.
template <class R>
struct Walk {
  R r;
  std::uint32_t w0, above = 0;  // the base; the DBP of the plane above
  unsigned j, after_zero = 0;   // planes left; the last symbol was a zero run
  // Per plane: its DBX (0 on a zero run) and its symbol's class (zero planes kRun); 0 and kRun
  // past the planes, for the checks eight planes at a time.
  alignas(32) std::uint32_t dbx[40], kind_of[40];
  MEMCOMP_AVX2_INLINE Walk(const R& in, std::uint32_t base, unsigned P) : r(in), w0(base), j(P) {
    store5(dbx, _mm256_setzero_si256());  // (five stores: a loop of them becomes a slow rep stos)
    store5(kind_of, _mm256_set1_epi32(kRun));
  }
};
// What a walk needs of the codec: the symbols of its plane width, the number of planes, the
// precedence and the byte order.
struct Geometry {
  const Sym* sym;
  unsigned P;
  bool liu, big;
  Geometry(const Settings& s, const Sym* table)
      : sym(table), P(s.delta_bits == 33 ? 33 : 32), liu(s.liu), big(s.endian == Endian::big) {}
};
// One symbol of a walk; false for a zero run after another or past plane 0, or a symbol past
// the stream's end. The symbol's entry carries the shifts and masks of the plane width.
template <class R>
MEMCOMP_AVX2_INLINE bool step(Walk<R>& k, const Geometry& g) {
  const std::uint64_t w = k.r.peek40();
  const Sym& e = g.sym[w >> 35];
  if (!k.r.consume(e.len)) return false;
  const unsigned count = e.count_add + (static_cast<unsigned>(w >> 33) & e.count_mask);
  if ((e.run & k.after_zero) | unsigned{count > k.j}) return false;
  // (A pair at bit 31 leaves the plane: finish refuses it.)
  const auto pos = static_cast<unsigned>(w >> e.pos_shift) & e.pos_mask;
  const std::uint32_t x = (static_cast<std::uint32_t>(w >> e.raw_shift) & e.raw_mask) | e.ones |
                          (k.above & e.dbp_mask) | unsigned{e.pat} << pos;
  k.j -= count;
  k.dbx[k.j] = x;
  k.kind_of[k.j] = e.kind;
  k.above ^= x;
  k.after_zero = e.run;
  return true;
}

// The rest of a walk, symbol by symbol.
template <class R>
MEMCOMP_AVX2_INLINE bool walk(Walk<R>& k, const Geometry& g) {
  while (k.j > 0)
    if (!step(k, g)) return false;
  return true;
}

// A finished walk's checks and words: DBP, each symbol its plane's encoding, the words.
template <class R>
MEMCOMP_AVX2_INLINE bool finish(const Walk<R>& k, const Geometry& g, std::uint8_t* out, std::size_t b) {
  const __m256i zero = _mm256_setzero_si256();
  const std::uint32_t* dbx = k.dbx;
  const std::uint32_t* kind_of = k.kind_of;
  const auto m = static_cast<unsigned>(b / 4 - 1);
  const unsigned P = g.P;
  const auto ones = static_cast<std::uint32_t>(low_mask(m));
  const std::uint32_t w0 = k.w0;
  // DBP: each register of eight DBX planes XORed from its top lane down (shifts within the
  // 128-bit halves, then the high half's into the low one), then with the planes above it.
  __m256i x[5], p[5];
  __m256i above_q = zero;  // every lane: the DBP of the plane above the register
  for (unsigned q = 5; q-- > 0;) {
    x[q] = _mm256_load_si256(reinterpret_cast<const __m256i*>(dbx + 8 * q));
    __m256i v = _mm256_xor_si256(x[q], _mm256_srli_si256(x[q], 4));
    v = _mm256_xor_si256(v, _mm256_srli_si256(v, 8));
    v = _mm256_xor_si256(v, _mm256_blend_epi32(_mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(4)), zero, 0xF0));
    p[q] = _mm256_xor_si256(v, above_q);
    above_q = _mm256_permutevar8x32_epi32(p[q], zero);
  }
  // Each symbol must be its plane's encoding: a non-zero DBX within the plane, of the first
  // class that applies (as emit_planes_avx2 chooses it).
  const __m256i ones_v = _mm256_set1_epi32(static_cast<int>(ones)), raw_kind = _mm256_set1_epi32(kRaw);
  __m256i wrong = zero;  // lanes of planes coded wrongly (a zero run's planes are right by construction)
  for (unsigned q = 0; q < 5; ++q) {
    const __m256i kind = _mm256_load_si256(reinterpret_cast<const __m256i*>(kind_of + 8 * q));
    const __m256i cls = first_class(g.liu, plane_classes(p[q], x[q], ones_v), raw_kind, _mm256_set1_epi32(kDbp0),
                                    _mm256_set1_epi32(kOnes), _mm256_set1_epi32(kPair), _mm256_set1_epi32(kSingle));
    const __m256i bad = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi32(x[q], zero), _mm256_xor_si256(cls, kind)),
                                        _mm256_andnot_si256(ones_v, x[q]));
    wrong = _mm256_or_si256(wrong, _mm256_andnot_si256(_mm256_cmpgt_epi32(kind, raw_kind), bad));
  }
  if (!_mm256_testz_si256(wrong, wrong)) return false;
  // Rows: planes 0..31 moved up a bit, so that row i (bit i of each plane) is word i's delta
  // (row 0, word 0, is 0); bit i of `sign` (DBP 32 = DBX 32) is that delta's bit 32.
  const __m256i regs[4] = {_mm256_slli_epi32(p[0], 1), _mm256_slli_epi32(p[1], 1), _mm256_slli_epi32(p[2], 1),
                           _mm256_slli_epi32(p[3], 1)};
  alignas(32) std::uint32_t d[32];
  transpose32_avx2(regs, d);
  const std::uint32_t sign = P == 33 ? dbx[32] << 1 : 0;
  // The words: w0 plus the running sum of the deltas mod 2^32 (within each 128-bit half, then
  // across them, then from the register before); a word below the one before it (as signed
  // words) must have its sign bit set, and only then.
  const __m256i up = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6), top = _mm256_set1_epi32(7);
  __m256i carry = _mm256_set1_epi32(static_cast<int>(w0)), last = zero;
  std::uint32_t below = 0;
  for (unsigned q = 0; 32 * q < b; ++q) {
    __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(d + 8 * q));
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
    v = _mm256_add_epi32(v, _mm256_blend_epi32(zero, _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(3)), 0xF0));
    const __m256i words = _mm256_add_epi32(v, carry);
    carry = _mm256_permutevar8x32_epi32(words, top);
    const __m256i before =
        _mm256_blend_epi32(_mm256_permutevar8x32_epi32(words, up), _mm256_permutevar8x32_epi32(last, up), 0x01);
    last = words;
    below |= static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(before, words))))
             << (8 * q);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * q), g.big ? bswap32(words) : words);
  }
  return P != 33 || ((below ^ sign) & static_cast<std::uint32_t>(low_mask(m + 1)) & ~1u) == 0;
}

template <class R>
MEMCOMP_AVX2_INLINE bool walk_pair(Walk<R>& k0, Walk<R>& k1, const Geometry& g, std::uint8_t* out0, std::uint8_t* out1,
                                   std::size_t b) {
  while ((k0.j > 0) & (k1.j > 0))
    if ((unsigned{step(k0, g)} & unsigned{step(k1, g)}) == 0) return false;  // both steps, always
  return walk(k0, g) && walk(k1, g) && k0.r.at_end() && k1.r.at_end() && finish(k0, g, out0, b) &&
         finish(k1, g, out1, b);
}

MEMCOMP_AVX2 bool decode_one(const Settings& s, const Sym* sym, BitReader& in, std::uint8_t* out, std::size_t b) {
  const Geometry g(s, sym);
  BitReader r = in;
  const std::uint32_t base = read_base(r);
  Walk<Checked> k(Checked{r}, base, g.P);
  if (!walk(k, g) || !finish(k, g, out, b)) return false;
  in = k.r.r;
  return true;
}
// Blocks i and i + 1, their walks in turns: their chains (a symbol's length before the next
// one's bits) overlap. The walks read the buffer directly where it extends kWalkBits past
// both bases, else through the readers. False if either block's fast decode fails or leaves
// bits over.
MEMCOMP_AVX2 bool decode_pair(const Settings& s, const Sym* sym, const EncodedView& enc, std::size_t i,
                              std::uint8_t* out0, std::uint8_t* out1, std::size_t b) {
  const Geometry g(s, sym);
  BitReader r0 = batch::block_reader(enc, i), r1 = batch::block_reader(enc, i + 1);
  const std::uint32_t base0 = read_base(r0), base1 = read_base(r1);
  const std::size_t p0 = enc.bit_offsets[i] + r0.position(), p1 = enc.bit_offsets[i + 1] + r1.position();
  if ((std::max(p0, p1) + kWalkBits) / 8 + 8 > enc.data_bytes) {
    Walk<Checked> k0(Checked{r0}, base0, g.P), k1(Checked{r1}, base1, g.P);
    return walk_pair(k0, k1, g, out0, out1, b);
  }
  Walk<Raw> k0(Raw{enc.data, p0, p0 + r0.remaining()}, base0, g.P),
      k1(Raw{enc.data, p1, p1 + r1.remaining()}, base1, g.P);
  return walk_pair(k0, k1, g, out0, out1, b);
}

}  // namespace

const BpcKernels kBpcAvx2 = {
    [](const Settings& s, const std::uint8_t* blk, std::size_t b) {
      return with_block_size(b, [&](auto B) { return measure_one < B() < 32 ? 32 : B() > (s, blk); });
    },
    [](const Settings& s, const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out) {
      with_block_size(blocks.block_bytes,
                      [&](auto B) { measure_blocks<B() < 32 ? 32 : B()>(s, blocks, begin, end, out); });
    },
    &transpose33_avx2,
    &encode_planes,
    &decode_one,
    &decode_pair,
};

}  // namespace memcomp
#endif
