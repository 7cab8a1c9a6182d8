// memcomp codecs: FPC's AVX2 kernels (kernels/fpc.hpp): measure, encode and decode 8 words of
// a block per register, encode and decode 8 or 24 blocks side by side as the lanes of registers
// (codecs/lanes.hpp). Every width comes from kFpcPayload, the scalar codec's (fpc.cpp).
#include "fpc.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include <cstring>

#include "memcomp/codecs/lanes.hpp"
#include "memcomp/core/bitstream.hpp"

namespace memcomp {
namespace {

// fpc_signed_half(p) as a vector lane.
inline int half(unsigned p) { return static_cast<int>(fpc_signed_half(p)); }

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
  p = _mm256_blendv_epi8(p, _mm256_set1_epi32(3), _mm256_cmpgt_epi32(_mm256_set1_epi32(half(3)), m));
  p = _mm256_blendv_epi8(p, _mm256_set1_epi32(2), _mm256_cmpgt_epi32(_mm256_set1_epi32(half(2)), m));
  return _mm256_blendv_epi8(p, _mm256_set1_epi32(1), _mm256_cmpgt_epi32(_mm256_set1_epi32(half(1)), m));
}

// kPayload of 8 prefixes.
MEMCOMP_AVX2_INLINE __m256i payload_bits(__m256i p) {
  return _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(kFpcPayload)), p);
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
      // The kFpcMaxToken bits from each lane's position: [prefix:3][payload, top-aligned in 32].
      __m256i t0, t1;
      lanes::window(base, pos[g], t0, t1);
      t0 = _mm256_srli_epi64(t0, 64 - kFpcMaxToken);
      t1 = _mm256_srli_epi64(t1, 64 - kFpcMaxToken);
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

// The field of the zero-run token at word j (prefix 000): run - 1, the run being the zero words
// from j on, at most 8 (zero: bit i set for a zero word i).
std::uint64_t run_field(std::uint64_t zero, unsigned j) {
  return static_cast<std::uint64_t>(__builtin_ctzll(~(zero >> j) | 0x100u)) - 1;
}

// Words that open a zero-run token (bit i: word i), from the zero mask of n <= 64 words.
template <std::size_t N>
std::uint64_t zero_tokens(std::uint64_t z, bool unbounded) {
  std::uint64_t open = z & ~(z << 1);  // run starts
  if (unbounded || N <= 8) return open;
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

// The scalar measure's sums with 8 words per register: payload bits of the non-zero words,
// and the zero tokens from the block's zero mask (a token opens where a zero run starts and,
// for bounded runs, every 8 words into it).
template <std::size_t B, bool Big>
MEMCOMP_AVX2 void measure_avx2(const FpcShape& shape, const BlockView& blocks, std::size_t begin, std::size_t end,
                               const SizeColumns& out) {
  constexpr std::size_t R = B / 32, n = B / 4;
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint8_t* blk = blocks.block(i);
    __m256i sum = _mm256_setzero_si256();
    std::uint64_t zero = 0;
    for (std::size_t r = 0; r < R; ++r) {
      __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
      if (Big) w = bswap32(w);
      unsigned z = 0;
      sum = _mm256_add_epi32(sum, word_bits(w, z, shape.u7));
      zero |= std::uint64_t{z} << (8 * r);
    }
    __m128i s4 = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0x4E));
    s4 = _mm_add_epi32(s4, _mm_shuffle_epi32(s4, 0xB1));
    const auto payload = static_cast<std::uint32_t>(_mm_cvtsi128_si32(s4));
    const std::uint64_t opens = zero_tokens<n>(zero, shape.unbounded);
    const auto zt = static_cast<std::uint32_t>(__builtin_popcountll(opens));
    const auto nz = static_cast<std::uint32_t>(n - static_cast<std::size_t>(__builtin_popcountll(zero)));
    SizeBreakdown s;
    s.payload = payload + 3 * zt;
    s.meta = 3 * (nz + zt);
    out.set(i, s);
  }
}

// The n tokens of a block (layout interleaved): tok[j] in len[j] bits for word j, 0 bits for
// a zero word that a run token before it covers.
template <std::size_t B, bool Big>
MEMCOMP_AVX2_INLINE void block_tokens(const FpcShape& shape, const std::uint8_t* blk, std::uint64_t* tok,
                                      std::uint8_t* len) {
  constexpr std::size_t R = B / 32, n = B / 4;
  std::uint64_t zero = 0;
  for (std::size_t r = 0; r < R; ++r) {
    __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
    if (Big) w = bswap32(w);
    zero |= std::uint64_t{word_tokens(w, tok + 8 * r, len + 8 * r, shape.u7)} << (8 * r);
  }
  // A zero-run token (prefix 000, field run - 1) where a run opens: the run is the zero
  // words from there, at most 8.
  for (std::uint64_t o = zero_tokens<n>(zero, shape.unbounded); o; o &= o - 1) {
    const auto j = static_cast<unsigned>(__builtin_ctzll(o));
    tok[j] = run_field(zero, j);
    len[j] = 6;
  }
}

// Layout mc (P2 §4.3, SPEC 2): the n tokens of K blocks (token j of block k at K j + k) as 2n
// steps, the 3-bit prefixes of steps 0..n-1 first, then their fields (a run-covered zero word
// is 0 bits in both).
template <std::size_t n, std::size_t K>
MEMCOMP_AVX2_INLINE void to_mc(const std::uint64_t* tok, const std::uint8_t* len, std::uint64_t* mtok,
                               std::uint8_t* mlen) {
  for (std::size_t x = 0; x < K * n; ++x) {
    const unsigned l = len[x], field = l ? l - 3 : 0;
    mtok[x] = tok[x] >> field;
    mlen[x] = static_cast<std::uint8_t>(l ? 3 : 0);
    mtok[K * n + x] = tok[x] & low_mask(field);
    mlen[K * n + x] = static_cast<std::uint8_t>(field);
  }
}

// encode, 8 blocks at a time as the lanes of a register: word j of the 8 blocks (an 8x8
// transpose) gives token j of each, the zero runs come from each block's zero mask, and
// lanes::pack writes the 8 streams side by side (layout mc: the tokens split by to_mc first);
// the last blocks one at a time, their words 8 per register and their tokens written by one
// write_fields.
template <std::size_t B, bool Big>
MEMCOMP_AVX2 std::size_t encode_range_avx2(const FpcShape& shape, const BlockView& blocks, std::size_t begin,
                                           std::size_t end, std::uint8_t* buf, std::size_t max_bytes,
                                           EncodedBlocks& enc) {
  constexpr std::size_t R = B / 32, n = B / 4;
  const std::size_t buf_bytes = batch::range_bytes(begin, end, max_bytes);
  // Token j of block k at 8 j + k (a zero word inside a run as a 0-bit token).
  constexpr std::size_t kLaneBytes = (kFpcMaxToken * n + 7) / 8 + 16;
  alignas(32) std::uint64_t tok[8 * n], mtok[2 * 8 * n];
  alignas(32) std::uint8_t len[8 * n + 4], mlen[2 * 8 * n + 4], lane_out[8 * kLaneBytes];
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
      for (std::size_t j = 0; j < 8; ++j) word_tokens(x[j], tok + 8 * (8 * r + j), len + 8 * (8 * r + j), shape.u7);
    }
    for (std::size_t k = 0; k < 8; ++k)
      for (std::uint64_t o = zero_tokens<n>(zero[k], shape.unbounded); o; o &= o - 1) {
        const auto j = static_cast<unsigned>(__builtin_ctzll(o));
        tok[8 * j + k] = run_field(zero[k], j);
        len[8 * j + k] = 6;
      }
    if (shape.mc) {
      to_mc<n, 8>(tok, len, mtok, mlen);
      lanes::pack<2 * n, lanes::Layout::step_major>(mtok, mlen, lane_out, kLaneBytes, bits);
    } else {
      lanes::pack<n, lanes::Layout::step_major>(tok, len, lane_out, kLaneBytes, bits);
    }
    at = batch::append_streams(enc, i, 8, buf, at, lane_out, kLaneBytes, bits);
  }
  for (; i < end; ++i) {
    block_tokens<B, Big>(shape, blocks.block(i), tok, len);
    BitWriter w = batch::block_writer(buf, at, max_bytes, buf_bytes);
    if (shape.mc) {
      to_mc<n, 1>(tok, len, mtok, mlen);
      w.write_fields(mtok, mlen, 2 * n);
    } else {
      w.write_fields(tok, len, n);
    }
    at = batch::record_block(enc, i, at, 0, w.finish());
  }
  return at;
}

template <bool Big>
void measure_range(const FpcShape& shape, const BlockView& blocks, std::size_t begin, std::size_t end,
                   const SizeColumns& out) {
  switch (blocks.block_bytes) {
    case 32: return measure_avx2<32, Big>(shape, blocks, begin, end, out);
    case 64: return measure_avx2<64, Big>(shape, blocks, begin, end, out);
    case 128: return measure_avx2<128, Big>(shape, blocks, begin, end, out);
    default: return measure_avx2<256, Big>(shape, blocks, begin, end, out);
  }
}

template <bool Big>
std::size_t encode_range(const FpcShape& shape, const BlockView& blocks, std::size_t begin, std::size_t end,
                         std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) {
  return with_block_size(blocks.block_bytes, [&](auto bs) {
    constexpr std::size_t B = decltype(bs)::value < 32 ? 32 : decltype(bs)::value;
    return encode_range_avx2<B, Big>(shape, blocks, begin, end, buf, max_bytes, enc);
  });
}

// Groups of kFpcDecodeLanes blocks through decode_lanes.
MEMCOMP_AVX2 bool decode_group(const FpcShape& shape, const std::uint8_t* base, const std::int32_t* pos,
                               const std::int32_t* stop, unsigned n, unsigned b, std::uint8_t* buf) {
  constexpr unsigned G = kFpcDecodeLanes / 8;
  std::memset(buf, 0, 8 * G * b);
  return shape.big ? decode_lanes<true, G>(base, pos, stop, n, b, buf)
                   : decode_lanes<false, G>(base, pos, stop, n, b, buf);
}

}  // namespace

const FpcKernels kFpcAvx2 = {
    [](const FpcShape& shape, const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out) {
      return shape.big ? measure_range<true>(shape, blocks, begin, end, out)
                       : measure_range<false>(shape, blocks, begin, end, out);
    },
    [](const FpcShape& shape, const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
       std::size_t max_bytes, EncodedBlocks& enc) {
      return shape.big ? encode_range<true>(shape, blocks, begin, end, buf, max_bytes, enc)
                       : encode_range<false>(shape, blocks, begin, end, buf, max_bytes, enc);
    },
    &decode_group,
};

}  // namespace memcomp
#endif
