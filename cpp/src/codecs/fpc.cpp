// memcomp codecs: Frequent Pattern Compression (Alameldeen & Wood, UW TR-1500, 2004; SPEC 1.2;
// R §3). Each 32-bit word takes the first matching row; zero words form runs of 1..8.
//
//   prefix  pattern                                   payload
//   000     run of 1-8 zero words (field = run - 1)   3
//   001     signed in [-8, 7]                         4
//   010     signed in [-128, 127]                     8
//   011     signed in [-2^15, 2^15 - 1]               16
//   100     low halfword zero (field = high half)     16
//   101     both halfwords signed bytes               16 (high half's byte, then low half's)
//           (halfwords="gem5": both halfwords in 0..127, see below)
//   110     four equal bytes                          8
//   111     uncompressed                              32
//
// Stream: [prefix:3][payload] per token, in word order (layout "interleaved", the default), or
// with layout "mc" (Metadata Consolidation, P2 §4.3, SPEC 2) all prefixes in token order, then
// all payload fields in token order: the same bits, so the same size. The MC decoder reads
// prefixes until 3k + (payload bits of those k prefixes) reaches the stream length (that sum
// grows by >= 6 per token, so exactly one k matches), then the payloads.
// halfwords="gem5" reproduces gem5 v24 (src/mem/cache/compressors/fpc.hh,
// SignExtendedTwoHalfwords::isPattern): it compares an int16_t halfword with the uint16_t image of
// its sign-extended low byte, so a negative halfword never matches and only 0..127 qualify
// (the decoder is the same: a byte below 0x80 sign-extends to itself). gem5's other rows are the
// table's (fpc.hh: SignExtendedPattern<4|8|16>, MaskedValuePattern<0, 0x0000FFFF>, RepBytes;
// fpc.cc FPCCompData::addEntry: a run's first zero costs 3 + zero_run_bits = 6 bits, runs of at
// most mask(3) + 1 = 8 words). gem5's Base::compress (base.cc) then stores a line whose size
// exceeds size_threshold_percentage = 50 % (Compressors.py) of the line as the full line: the
// fpc.gem5 preset's policy threshold(0.5).
// Presets: `paper` (= kim sizes), `mc` (paper with layout mc),
// `skku` (one 6-bit token per maximal zero run, accounting-only) and `cmu` (the CMU-SAFARI
// byte approximation, accounting-only).
#include <cstring>

#include "memcomp/codecs/families.hpp"
#include "memcomp/codecs/lanes.hpp"
#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

namespace memcomp {
namespace {

constexpr unsigned kPayload[8] = {3, 4, 8, 16, 16, 16, 8, 32};

// Prefix 1..7 of a non-zero word: the first row of the table that matches, without branches.
// u7: the halfword row takes only halfwords 0..127 (gem5).
inline unsigned pattern(std::uint32_t w, bool u7) {
  const bool s4 = w + 8u < 16u, s8 = w + 128u < 256u, s16 = w + 32768u < 65536u;  // signed ranges
  const bool low0 = (w & 0xFFFFu) == 0;
  const bool halves = u7 ? (w & 0xFF80FF80u) == 0
                         : ((w + 0x00800000u) & 0xFF000000u) == 0 && ((w + 0x80u) & 0xFF00u) == 0;
  const bool rep = w == (w & 0xFFu) * 0x01010101u;
  unsigned p = rep ? 6u : 7u;
  p = halves ? 5u : p;
  p = low0 ? 4u : p;
  p = s16 ? 3u : p;
  p = s8 ? 2u : p;
  return s4 ? 1u : p;
}

// Field of a non-zero word of prefix p: the low bits of the sign-extended value or of the
// repeated byte, the high half (4), or both halves' bytes (5).
inline std::uint32_t field_of(std::uint32_t w, unsigned p) {
  std::uint32_t f = p == 4 ? w >> 16 : w;
  f = p == 5 ? ((w >> 16) & 0xFFu) << 8 | (w & 0xFFu) : f;
  return static_cast<std::uint32_t>(f & low_mask(kPayload[p]));
}

// Payload bits of a non-zero word.
inline unsigned pattern_bits(std::uint32_t w, bool u7) { return kPayload[pattern(w, u7)]; }

#if defined(MEMCOMP_X86_SIMD)
namespace fpc_avx2 {

// pattern() of 8 words at once (the first row that matches: later blends take precedence; any
// value for a zero word), and their zero lanes.
MEMCOMP_AVX2_INLINE __m256i word_patterns(__m256i w, __m256i& is0, bool u7) {
  const __m256i z = _mm256_setzero_si256();
  const __m256i m = _mm256_xor_si256(w, _mm256_srai_epi32(w, 31));    // |w| folded: w in [-h-1, h] iff m <= h
  const __m256i m16 = _mm256_xor_si256(w, _mm256_srai_epi16(w, 15));  // each halfword a signed byte
  const __m256i halves =
      u7 ? _mm256_cmpeq_epi32(_mm256_and_si256(w, _mm256_set1_epi32(static_cast<int>(0xFF80FF80u))), z)
         : _mm256_cmpeq_epi32(_mm256_cmpgt_epi16(_mm256_set1_epi16(128), m16), _mm256_set1_epi32(-1));
  const __m256i low_byte = _mm256_shuffle_epi8(w, _mm256_setr_epi8(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12,
                                                                   0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12));
  is0 = _mm256_cmpeq_epi32(w, z);
  __m256i p = _mm256_blendv_epi8(_mm256_set1_epi32(7), _mm256_set1_epi32(6), _mm256_cmpeq_epi32(w, low_byte));
  p = _mm256_blendv_epi8(p, _mm256_set1_epi32(5), halves);
  p = _mm256_blendv_epi8(p, _mm256_set1_epi32(4),
                         _mm256_cmpeq_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0xFFFF)), z));
  p = _mm256_blendv_epi8(p, _mm256_set1_epi32(3), _mm256_cmpgt_epi32(_mm256_set1_epi32(32768), m));
  p = _mm256_blendv_epi8(p, _mm256_set1_epi32(2), _mm256_cmpgt_epi32(_mm256_set1_epi32(128), m));
  return _mm256_blendv_epi8(p, _mm256_set1_epi32(1), _mm256_cmpgt_epi32(_mm256_set1_epi32(8), m));
}

// kPayload of 8 prefixes.
MEMCOMP_AVX2_INLINE __m256i payload_bits(__m256i p) {
  return _mm256_permutevar8x32_epi32(_mm256_setr_epi32(3, 4, 8, 16, 16, 16, 8, 32), p);
}

// pattern_bits of 8 words at once (zero words: 0), and their zero mask (bit i: word i is zero).
MEMCOMP_AVX2_INLINE __m256i word_bits(__m256i w, unsigned& zero, bool u7) {
  __m256i is0;
  const __m256i bits = payload_bits(word_patterns(w, is0, u7));
  zero = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(is0)));
  return _mm256_andnot_si256(is0, bits);
}

// The tokens of 8 non-zero words (layout interleaved): token = prefix << payload | field as 64-bit
// values (tok[0..7]), and their bits (len[0..7]); 0 and 0 for a zero word, whose run the caller
// forms.
MEMCOMP_AVX2_INLINE unsigned word_tokens(__m256i w, std::uint64_t* tok, std::uint8_t* len, bool u7) {
  __m256i is0;
  __m256i p = word_patterns(w, is0, u7);
  const __m256i pl = payload_bits(p);
  // field_of(): the low payload bits, the high half (4), or both halves' low bytes (5).
  __m256i f = _mm256_and_si256(w, _mm256_sub_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), pl), _mm256_set1_epi32(1)));
  f = _mm256_blendv_epi8(f, _mm256_srli_epi32(w, 16), _mm256_cmpeq_epi32(p, _mm256_set1_epi32(4)));
  const __m256i f5 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(w, 8), _mm256_set1_epi32(0xFF00)),
                                     _mm256_and_si256(w, _mm256_set1_epi32(0xFF)));
  f = _mm256_blendv_epi8(f, f5, _mm256_cmpeq_epi32(p, _mm256_set1_epi32(5)));
  const __m256i n = _mm256_andnot_si256(is0, _mm256_add_epi32(pl, _mm256_set1_epi32(3)));
  p = _mm256_andnot_si256(is0, p);  // (the field of a zero word is 0 already)
  for (int h = 0; h < 2; ++h) {
    const __m128i ph = h ? _mm256_extracti128_si256(p, 1) : _mm256_castsi256_si128(p);
    const __m128i lh = h ? _mm256_extracti128_si256(pl, 1) : _mm256_castsi256_si128(pl);
    const __m128i fh = h ? _mm256_extracti128_si256(f, 1) : _mm256_castsi256_si128(f);
    const __m256i t = _mm256_or_si256(_mm256_sllv_epi64(_mm256_cvtepu32_epi64(ph), _mm256_cvtepu32_epi64(lh)),
                                      _mm256_cvtepu32_epi64(fh));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tok + 4 * h), t);
  }
  const __m256i nb =
      _mm256_shuffle_epi8(n, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                                              -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  const std::uint32_t lo = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(nb));
  const std::uint32_t hi = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm256_extracti128_si256(nb, 1)));
  std::memcpy(len, &lo, 4);
  std::memcpy(len + 4, &hi, 4);
  return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(is0)));
}

// Decodes 8 * G blocks (layout interleaved) side by side, one token of each per step: the token
// chains are the lanes of G registers, so a step is G windows (lanes::window) and branch-free
// arithmetic for all of them. Block k's stream is bits [pos[k], end[k]) from `base` (both below
// 2^30, and `base` readable 13 bytes past every end); its n words go to buf + k * b, which is
// zeroed, with spare words from buf + 8 * G * b for lanes that have finished. True when every lane read a whole
// valid stream: n words, exactly its bits, no zero run past its block's end.
template <bool Big, unsigned G>
MEMCOMP_AVX2_INLINE bool decode_lanes(const std::uint8_t* base, const std::int32_t* pos_at, const std::int32_t* end_at,
                                      unsigned n, unsigned b, std::uint8_t* buf) {
  const __m256i one = _mm256_set1_epi32(1), nw = _mm256_set1_epi32(static_cast<int>(n));
  // Prefix 5: the field's bytes (bits 31..24 and 23..16) to the high bytes of both halves; 6: the
  // byte to all four.
  const __m256i halves = _mm256_setr_epi8(-1, 2, -1, 3, -1, 6, -1, 7, -1, 10, -1, 11, -1, 14, -1, 15, -1, 2, -1, 3, -1,
                                          6, -1, 7, -1, 10, -1, 11, -1, 14, -1, 15);
  const __m256i bytes = _mm256_setr_epi8(3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15, 3, 3, 3, 3, 7, 7, 7, 7,
                                         11, 11, 11, 11, 15, 15, 15, 15);
  const __m256i spare = _mm256_set1_epi32(static_cast<int>(8 * G * b));
  __m256i pos[G], end[G], widx[G], bad[G], lane[G];
  for (unsigned g = 0; g < G; ++g) {
    pos[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pos_at + 8 * g));
    end[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(end_at + 8 * g));
    widx[g] = bad[g] = _mm256_setzero_si256();
    lane[g] = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(b)));
    lane[g] = _mm256_add_epi32(lane[g], _mm256_set1_epi32(static_cast<int>(8 * g * b)));
  }
  alignas(32) std::uint32_t word[8 * G], at[8 * G];
  for (unsigned step = 0; step < n; ++step) {
    __m256i any = _mm256_setzero_si256();
    for (unsigned g = 0; g < G; ++g) {
      const __m256i active = _mm256_andnot_si256(bad[g], _mm256_cmpgt_epi32(nw, widx[g]));
      any = _mm256_or_si256(any, active);
      // The 35 bits from each lane's position: [prefix:3][payload, top-aligned in 32].
      __m256i t0, t1;
      lanes::window(base, pos[g], t0, t1);
      t0 = _mm256_srli_epi64(t0, 29);
      t1 = _mm256_srli_epi64(t1, 29);
      const __m256i f = lanes::low_halves(t0, t1), p = lanes::high_halves(t0, t1);
      const __m256i len = payload_bits(p);
      pos[g] = _mm256_add_epi32(pos[g], _mm256_and_si256(active, _mm256_add_epi32(len, _mm256_set1_epi32(3))));
      // The word: sign-extended (1-3, and 7 as is), high half (4), two bytes (5), byte (6), 0 (0).
      __m256i w = _mm256_srav_epi32(f, _mm256_sub_epi32(_mm256_set1_epi32(32), len));
      w = _mm256_blendv_epi8(w, _mm256_and_si256(f, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))),
                             _mm256_cmpeq_epi32(p, _mm256_set1_epi32(4)));
      w = _mm256_blendv_epi8(w, _mm256_srai_epi16(_mm256_shuffle_epi8(f, halves), 8),
                             _mm256_cmpeq_epi32(p, _mm256_set1_epi32(5)));
      w = _mm256_blendv_epi8(w, _mm256_shuffle_epi8(f, bytes), _mm256_cmpeq_epi32(p, _mm256_set1_epi32(6)));
      const __m256i run = _mm256_cmpeq_epi32(p, _mm256_setzero_si256());
      w = _mm256_andnot_si256(run, w);
      if (Big) w = bswap32(w);
      _mm256_store_si256(reinterpret_cast<__m256i*>(word + 8 * g), w);
      _mm256_store_si256(reinterpret_cast<__m256i*>(at + 8 * g),
                         _mm256_blendv_epi8(spare, _mm256_add_epi32(lane[g], _mm256_slli_epi32(widx[g], 2)), active));
      const __m256i adv = _mm256_blendv_epi8(one, _mm256_add_epi32(_mm256_srli_epi32(f, 29), one), run);
      widx[g] = _mm256_add_epi32(widx[g], _mm256_and_si256(active, adv));
      bad[g] =
          _mm256_or_si256(bad[g], _mm256_or_si256(_mm256_cmpgt_epi32(widx[g], nw), _mm256_cmpgt_epi32(pos[g], end[g])));
    }
    if (_mm256_testz_si256(any, any)) break;
    for (unsigned k = 0; k < 8 * G; ++k) std::memcpy(buf + at[k], word + k, 4);
  }
  unsigned ok = 0xFF;
  for (unsigned g = 0; g < G; ++g) {
    const __m256i good = _mm256_andnot_si256(
        bad[g], _mm256_and_si256(_mm256_cmpeq_epi32(widx[g], nw), _mm256_cmpeq_epi32(pos[g], end[g])));
    ok &= static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(good)));
  }
  return ok == 0xFF;
}

}  // namespace fpc_avx2
#endif

// CMU-SAFARI FPCCompress bytes of one word (|x| tests on int32, halves unsigned).
inline unsigned cmu_bytes(std::uint32_t w) {
  const auto s = static_cast<std::int32_t>(w);
  const std::uint32_t mag = s < 0 ? 0u - w : w;
  if (w == 0 || mag <= 0xFFu) return 1;
  if (mag <= 0xFFFFu) return 2;
  if ((w & 0xFFFFu) == 0) return 2;
  if ((w & 0xFFFFu) <= 0xFFu && (w >> 16) <= 0xFFu) return 2;
  if (w == (w & 0xFFu) * 0x01010101u) return 1;
  return 4;
}

struct FpcSettings {
  Endian endian;
  bool unbounded, cmu, mc, gem5_halfwords;
};

const OptionTable<FpcSettings>& fpc_table() {
  using S = FpcSettings;
  static const OptionTable<S> t{
      option_endian(&S::endian),
      option_choice("zero_run", &S::unbounded, "bounded", {{"bounded", false}, {"unbounded", true}},
                    "a zero-run token covers 1-8 words (bounded) or a whole run (unbounded, SKKU)"),
      option_choice("size_model", &S::cmu, "bits", {{"bits", false}, {"cmu", true}},
                    "sizes in bits of the pattern table, or CMU-SAFARI's byte approximation"),
      option_choice("layout", &S::mc, "interleaved", {{"interleaved", false}, {"mc", true}},
                    "prefix and payload per word, or all prefixes first (Metadata Consolidation, HPCA'16)"),
      option_choice("halfwords", &S::gem5_halfwords, "signed", {{"signed", false}, {"gem5", true}},
                    "two-halfword row: sign-extended bytes, or gem5's halfwords 0..127 only")};
  return t;
}

class FPC final : public CodecImpl<FPC> {
 public:
  explicit FPC(const Options& o) : s_(fpc_table().parse(o, "fpc")) {
    endian_ = s_.endian;
    unbounded_ = s_.unbounded;
    cmu_ = s_.cmu;
    mc_ = s_.mc;
    u7_ = s_.gem5_halfwords;
  }

  Options options() const override { return fpc_table().write(s_); }
  bool exact() const override { return !unbounded_ && !cmu_; }
  void check_block_bytes(std::size_t b) const override { memcomp::check_block_bytes(b); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 35 * (b / 4); }
  std::vector<ModeName> modes() const override { return {{0, "fpc"}}; }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    const std::size_t n = b / 4;
    if (cmu_) {
      std::uint32_t bytes = 0;
      for (std::size_t i = 0; i < n; ++i) bytes += cmu_bytes(load<std::uint32_t>(blk + 4 * i, endian_));
      s.payload = 8 * bytes;
      s.meta = static_cast<std::uint32_t>(8 * (3 * n / 8));
      return s;
    }
    // Branch-light: a zero word opens a token when it starts a run or (bounded runs) when the
    // run passes a multiple of 8; every other word is one token.
    const unsigned period = unbounded_ ? 0u : 7u;
    unsigned run = 0;
    std::uint32_t tokens = 0, payload = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, endian_);
      const bool z = w == 0;
      run = z ? run + 1 : 0;
      const bool opens = z && (run == 1 || (period && (run & period) == 1));
      tokens += z ? static_cast<std::uint32_t>(opens) : 1u;
      payload += z ? (opens ? 3u : 0u) : pattern_bits(w, u7_);
    }
    s.payload = payload;
    s.meta = 3 * tokens;
    return s;
  }

#if defined(MEMCOMP_X86_SIMD)
 protected:
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end,
                     const SizeColumns& out) const override {
    if (!cmu_ && blocks.block_bytes >= 32 && simd_avx2()) {
      const bool big = endian_ == Endian::big;
      switch (blocks.block_bytes) {
        case 32:
          return big ? measure_avx2<32, true>(blocks, begin, end, out)
                     : measure_avx2<32, false>(blocks, begin, end, out);
        case 64:
          return big ? measure_avx2<64, true>(blocks, begin, end, out)
                     : measure_avx2<64, false>(blocks, begin, end, out);
        case 128:
          return big ? measure_avx2<128, true>(blocks, begin, end, out)
                     : measure_avx2<128, false>(blocks, begin, end, out);
        default:
          return big ? measure_avx2<256, true>(blocks, begin, end, out)
                     : measure_avx2<256, false>(blocks, begin, end, out);
      }
    }
    CodecImpl<FPC>::measure_range(blocks, begin, end, out);
  }

  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc) const override {
    if (!mc_ && blocks.block_bytes >= 32 && simd_avx2()) {
      const bool big = endian_ == Endian::big;
      return with_block_size(blocks.block_bytes, [&](auto bs) {
        constexpr std::size_t B = decltype(bs)::value < 32 ? 32 : decltype(bs)::value;
        return big ? encode_range_avx2<B, true>(blocks, begin, end, buf, max_bytes, enc)
                   : encode_range_avx2<B, false>(blocks, begin, end, buf, max_bytes, enc);
      });
    }
    return CodecImpl<FPC>::encode_range(blocks, begin, end, buf, max_bytes, enc);
  }

 private:
  // The scalar measure's sums with 8 words per register: payload bits of the non-zero words,
  // and the zero tokens from the block's zero mask (a token opens where a zero run starts and,
  // for bounded runs, every 8 words into it).
  template <std::size_t B, bool Big>
  MEMCOMP_AVX2 void measure_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                 const SizeColumns& out) const {
    constexpr std::size_t R = B / 32, n = B / 4;
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint8_t* blk = blocks.block(i);
      __m256i sum = _mm256_setzero_si256();
      std::uint64_t zero = 0;
      for (std::size_t r = 0; r < R; ++r) {
        __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
        if (Big) w = bswap32(w);
        unsigned z = 0;
        sum = _mm256_add_epi32(sum, fpc_avx2::word_bits(w, z, u7_));
        zero |= std::uint64_t{z} << (8 * r);
      }
      __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
      s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4E));
      s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xB1));
      const auto payload = static_cast<std::uint32_t>(_mm_cvtsi128_si32(s4));
      const std::uint64_t opens = zero_tokens<n>(zero);
      const auto zt = static_cast<std::uint32_t>(__builtin_popcountll(opens));
      const auto nz = static_cast<std::uint32_t>(n - static_cast<std::size_t>(__builtin_popcountll(zero)));
      SizeBreakdown s;
      s.payload = payload + 3 * zt;
      s.meta = 3 * (nz + zt);
      out.set(i, s);
    }
  }

  // encode (layout interleaved), 8 blocks at a time as the lanes of a register: word j of the 8
  // blocks (an 8x8 transpose) gives token j of each, the zero runs come from each block's zero
  // mask, and lanes::pack writes the 8 streams side by side; the last blocks one at a time, their
  // words 8 per register and their tokens written by one write_fields.
  template <std::size_t B, bool Big>
  MEMCOMP_AVX2 std::size_t encode_range_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                             std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) const {
    constexpr std::size_t R = B / 32, n = B / 4;
    const std::size_t buf_bytes = range_bytes(begin, end, max_bytes);
    // Token j of block k at 8 j + k (a zero word inside a run as a 0-bit token).
    constexpr std::size_t kLaneBytes = (35 * n + 7) / 8 + 16;
    alignas(32) std::uint64_t tok[8 * n];
    alignas(32) std::uint8_t len[8 * n + 4], lane_out[8 * kLaneBytes];
    alignas(32) std::uint32_t bits[8];
    std::size_t at = 0, i = begin;
    for (; i + 8 <= end; i += 8) {
      std::uint64_t zero[8] = {};
      for (std::size_t r = 0; r < R; ++r) {
        __m256i x[8];
        for (std::size_t k = 0; k < 8; ++k) {
          x[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blocks.block(i + k) + 32 * r));
          if (Big) x[k] = bswap32(x[k]);
          const auto z = static_cast<unsigned>(
              _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x[k], _mm256_setzero_si256()))));
          zero[k] |= std::uint64_t{z} << (8 * r);
        }
        lanes::transpose8x8(x);
        for (std::size_t j = 0; j < 8; ++j)
          fpc_avx2::word_tokens(x[j], tok + 8 * (8 * r + j), len + 8 * (8 * r + j), u7_);
      }
      for (std::size_t k = 0; k < 8; ++k)
        for (std::uint64_t o = zero_tokens<n>(zero[k]); o; o &= o - 1) {
          const auto j = static_cast<unsigned>(__builtin_ctzll(o));
          tok[8 * j + k] = run_field(zero[k], j);
          len[8 * j + k] = 6;
        }
      lanes::pack<n, lanes::Layout::step_major>(tok, len, lane_out, kLaneBytes, bits);
      at = append_streams(enc, i, 8, buf, at, lane_out, kLaneBytes, bits);
    }
    for (; i < end; ++i) {
      block_tokens<B, Big>(blocks.block(i), tok, len);
      BitWriter w = block_writer(buf, at, max_bytes, buf_bytes);
      w.write_fields(tok, len, n);
      at = record_block(enc, i, at, 0, w.finish());
    }
    return at;
  }

  // The n tokens of a block (layout interleaved): tok[j] in len[j] bits for word j, 0 bits for
  // a zero word that a run token before it covers.
  template <std::size_t B, bool Big>
  MEMCOMP_AVX2_INLINE void block_tokens(const std::uint8_t* blk, std::uint64_t* tok, std::uint8_t* len) const {
    constexpr std::size_t R = B / 32, n = B / 4;
    std::uint64_t zero = 0;
    for (std::size_t r = 0; r < R; ++r) {
      __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
      if (Big) w = bswap32(w);
      zero |= std::uint64_t{fpc_avx2::word_tokens(w, tok + 8 * r, len + 8 * r, u7_)} << (8 * r);
    }
    // A zero-run token (prefix 000, field run - 1) where a run opens: the run is the zero
    // words from there, at most 8.
    for (std::uint64_t o = zero_tokens<n>(zero); o; o &= o - 1) {
      const auto j = static_cast<unsigned>(__builtin_ctzll(o));
      tok[j] = run_field(zero, j);
      len[j] = 6;
    }
  }
#endif

  // The field of the zero-run token at word j (prefix 000): run - 1, the run being the zero words
  // from j on, at most 8 (zero: bit i set for a zero word i).
  static std::uint64_t run_field(std::uint64_t zero, unsigned j) {
    return static_cast<std::uint64_t>(__builtin_ctzll(~(zero >> j) | 0x100u)) - 1;
  }

  // Words that open a zero-run token (bit i: word i), from the zero mask of n <= 64 words.
  template <std::size_t N>
  std::uint64_t zero_tokens(std::uint64_t z) const {
    std::uint64_t open = z & ~(z << 1);  // run starts
    if (unbounded_ || N <= 8) return open;
    std::uint64_t w = z & (z << 1);
    w &= w << 2;
    w &= w << 4;  // bit i: words i-7..i all zero
    std::uint64_t cur = open;
    for (std::size_t m = 8; m < N; m += 8) {  // a run that reached word i-8 from a token reaches i
      cur = (cur << 8) & w;
      open |= cur;
    }
    return open;
  }

 public:
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
    const std::size_t n = b / 4;
    // Interleaved: every token goes out as it is formed; mc: prefixes first, then the fields.
    Tokens t;
    const auto emit = [&](unsigned p, std::uint32_t f) {
      if (mc_)
        t.add(p, f);
      else
        out.write(std::uint64_t{p} << kPayload[p] | f, 3 + kPayload[p]);
    };
    unsigned run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, endian_);
      if (w == 0) {
        if (++run == 8) {
          emit(0, 7);
          run = 0;
        }
        continue;
      }
      if (run) emit(0, run - 1);
      run = 0;
      const unsigned p = pattern(w, u7_);
      emit(p, field_of(w, p));
    }
    if (run) emit(0, run - 1);
    if (mc_) {
      for (std::size_t k = 0; k < t.n; ++k) out.write(t.prefix[k], 3);
      for (std::size_t k = 0; k < t.n; ++k) out.write(t.field[k], kPayload[t.prefix[k]]);
    }
    return 0;
  }

  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    const std::size_t n = b / 4;
    if (mc_) return decode_mc(in, out, n);
    for (std::size_t i = 0; i < n;) i = read_token(in, out, i, n);
  }

 protected:
  // Layout interleaved: each block's tokens form a chain through their prefixes, so independent
  // blocks are decoded side by side: 24 at a time as vector lanes (AVX2), the rest two at a time.
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end) const override {
    if (mc_ || !simd_enabled()) return CodecImpl<FPC>::decode_range(enc, out, begin, end);
#if defined(MEMCOMP_X86_SIMD)
    if (simd_avx2())
      begin = endian_ == Endian::big ? decode_range_avx2<true>(enc, out, begin, end)
                                     : decode_range_avx2<false>(enc, out, begin, end);
#endif
    const std::size_t n = enc.block_bytes / 4;
    decode_pairs(
        enc, out, begin, end,
        [&](BitReader& ra, std::uint8_t* oa, BitReader& rb, std::uint8_t* ob) {
          std::size_t ia = 0, ib = 0;
          while (ia < n && ib < n) {
            ia = read_token(ra, oa, ia, n);
            ib = read_token(rb, ob, ib, n);
          }
          while (ia < n) ia = read_token(ra, oa, ia, n);
          while (ib < n) ib = read_token(rb, ob, ib, n);
        },
        [&](BitReader& r, std::uint32_t tag, std::uint8_t* o, std::size_t b) { decode(r, tag, o, b); });
  }

 private:
#if defined(MEMCOMP_X86_SIMD)
  // Layout interleaved: groups of kLanes blocks through fpc_avx2::decode_lanes. A group whose
  // streams are not all valid, or too near the end of the data for its reads, is decoded one
  // block at a time (which names the first bad block); returns where the groups stopped.
  template <bool Big>
  MEMCOMP_AVX2 std::size_t decode_range_avx2(const EncodedView& enc, std::uint8_t* out, std::size_t begin,
                                             std::size_t end) const {
    constexpr unsigned G = 3;
    const auto n = static_cast<unsigned>(enc.block_bytes / 4), b = static_cast<unsigned>(enc.block_bytes);
    return decode_groups<8 * G>(enc, out, begin, end, 35,
                                [&](const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* stop,
                                    std::uint8_t* buf) MEMCOMP_AVX2 {
                                  std::memset(buf, 0, 8 * G * b);
                                  return fpc_avx2::decode_lanes<Big, G>(base, pos, stop, n, b, buf);
                                });
  }
#endif

  /// Reads one token (layout interleaved) and writes its words at word i; the next word index.
  std::size_t read_token(BitReader& in, std::uint8_t* out, std::size_t i, std::size_t n) const {
    const std::uint64_t head = in.peek(35);  // a whole token: 3 prefix bits and up to 32 field bits
    const auto p = static_cast<unsigned>(head >> 32);
    in.skip(3 + kPayload[p]);
    return put_token(p, static_cast<std::uint32_t>((head >> (32 - kPayload[p])) & low_mask(kPayload[p])), out, i, n);
  }

  /// The tokens of one block (at most one per word), in order.
  struct Tokens {
    unsigned char prefix[64];
    std::uint32_t field[64];
    std::size_t n = 0;
    void add(unsigned p, std::uint32_t f) {
      prefix[n] = static_cast<unsigned char>(p);
      field[n++] = f;
    }
  };

  /// Writes the words of token (p, f) at word i; returns the next word index.
  std::size_t put_token(unsigned p, std::uint32_t f, std::uint8_t* out, std::size_t i, std::size_t n) const {
    if (p == 0) {
      const std::size_t run = f + 1;
      if (run > n - i) throw corrupt_stream("fpc zero run of " + std::to_string(run) + " words overruns the block");
      for (std::size_t j = 0; j < run; ++j) store<std::uint32_t>(out + 4 * (i + j), 0, endian_);
      return i + run;
    }
    if (i >= n) throw corrupt_stream("fpc stream holds more tokens than the block has words");
    std::uint32_t w;
    switch (p) {
      case 4: w = f << 16; break;
      case 5:
        w = static_cast<std::uint32_t>(sign_extend(f >> 8, 8)) << 16 |
            (static_cast<std::uint32_t>(sign_extend(f & 0xFFu, 8)) & 0xFFFFu);
        break;
      case 6: w = f * 0x01010101u; break;
      case 7: w = f; break;
      default: w = static_cast<std::uint32_t>(sign_extend(f, kPayload[p])); break;
    }
    store<std::uint32_t>(out + 4 * i, w, endian_);
    return i + 1;
  }

  /// Layout mc: the prefixes, then the payload fields.
  void decode_mc(BitReader& in, std::uint8_t* out, std::size_t n) const {
    const std::size_t total = in.remaining();
    unsigned char prefix[64];
    std::size_t t = 0, used = 0;  // tokens read, bits their prefixes and payloads take
    while (used < total) {
      if (t == n) throw corrupt_stream("fpc mc stream: more prefixes than words, or a length that fits none");
      prefix[t] = static_cast<unsigned char>(in.read(3));
      used += 3 + kPayload[prefix[t]];
      ++t;
    }
    if (used != total) throw corrupt_stream("fpc mc stream: prefixes and stream length disagree");
    std::size_t i = 0;
    for (std::size_t k = 0; k < t; ++k)
      i = put_token(prefix[k], static_cast<std::uint32_t>(in.read(kPayload[prefix[k]])), out, i, n);
    if (i != n)
      throw corrupt_stream("fpc mc stream: tokens cover " + std::to_string(i) + " of " + std::to_string(n) + " words");
  }

  const FpcSettings s_;
  Endian endian_ = Endian::little;
  bool unbounded_ = false;
  bool cmu_ = false;
  bool mc_ = false;
  bool u7_ = false;  // halfwords="gem5"
};

std::unique_ptr<Codec> make_fpc(const Options& o) { return std::make_unique<FPC>(o); }

}  // namespace

void add_fpc_presets(std::vector<Preset>& out) {
  using S = std::string;
  out.push_back({"fpc.paper",
                 "fpc",
                 "UW TR-1500 pattern table, zero runs of 1-8 words, sizes in bits",
                 "none",
                 {},
                 true,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.mc",
                 "fpc",
                 "fpc.paper with Metadata Consolidation (HPCA'16): all prefixes, then all payloads",
                 "none",
                 {{"layout", S("mc")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.gem5",
                 "fpc",
                 "gem5 v24 FPC: fpc.paper with halfwords 0..127 only in the two-halfword row, lines above 50 % "
                 "stored whole (threshold(0.5))",
                 "threshold(0.5)",
                 {{"halfwords", S("gem5")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.kim",
                 "fpc",
                 "scalable-arch FPC model: the same sizes as fpc.paper",
                 "none",
                 {},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.skku",
                 "fpc",
                 "SKKU MPC tools: one 6-bit token per maximal zero run (accounting-only)",
                 "none",
                 {{"zero_run", S("unbounded")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.cal22",
                 "fpc",
                 "the MPC authors' tool (CAL_22-MPC): = fpc.skku, one 6-bit token per maximal zero run "
                 "(accounting-only)",
                 "none",
                 {{"zero_run", S("unbounded")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.cmu",
                 "fpc",
                 "CMU-SAFARI byte approximation with unsigned-magnitude tests (accounting-only)",
                 "cap",
                 {{"size_model", S("cmu")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
}

}  // namespace memcomp
