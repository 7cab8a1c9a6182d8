// memcomp codecs: Fibonacci's AVX2 kernels (kernels/fibonacci.hpp): encode 8 blocks side by side
// (every word's value, the greedy steps and the codewords at once, then lanes::pack), decode 24
// side by side as the lanes of registers. Every table and width is the scalar codec's.
#include "fibonacci.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include <climits>
#include <cstring>

#include "memcomp/codecs/lanes.hpp"

namespace memcomp {
namespace {

using namespace fib;

// Where codewords() puts token j of block k: at 8 j + k (step-major) for blocks of 8 words or
// more, whose words it reads 8 blocks at a time through an 8x8 transpose; else at N k + j.
template <std::size_t N>
constexpr lanes::Layout layout() {
  return N >= 8 ? lanes::Layout::step_major : lanes::Layout::block_major;
}
template <std::size_t N>
constexpr std::size_t at(std::size_t k, std::size_t j) {
  return layout<N>() == lanes::Layout::step_major ? 8 * j + k : N * k + j;
}

// The greedy steps of codewords() one value at a time, for a group with a value of 2^32 (n
// holds it as 0, as it holds a first word): the rests back into n, the terms into t.
template <std::size_t N>
void greedy_wide(std::uint32_t* n, std::uint32_t* t) {
  for (std::size_t i = 0; i < 8 * N; ++i) {
    const bool first = layout<N>() == lanes::Layout::step_major ? i < 8 : i % N == 0;
    std::uint64_t r = n[i] != 0 ? n[i] : !first ? kMaxN : 0;
    t[i] = high_terms(r);
    n[i] = static_cast<std::uint32_t>(r);
  }
}

// The tokens of 8 consecutive blocks of N words (token j of block k at at<N>(k, j)): values
// n = zigzag + 1, the greedy steps down to F(20) (bit 47 - k of t for a term F(k)) and the rest
// below F(20) for all 8N at once, eight values per register (four while a value is 2^32, which
// takes 33 bits); then each codeword from its terms: the length is the largest term's index
// (t's lowest set bit, found through a double's exponent), or for a value below F(20) a lookup,
// as fib_code and fib_len compute them.
template <std::size_t N, bool Big>
MEMCOMP_AVX2_INLINE void codewords(const std::uint8_t* blk, std::uint64_t* tok, std::uint8_t* len) {
  constexpr std::size_t M = 8 * N;
  alignas(32) std::uint32_t n[M], terms[M];  // n: the values, then the rests
  __m128i most = _mm_setzero_si128(), wide = _mm_setzero_si128();
  if constexpr (layout<N>() == lanes::Layout::step_major) {
    __m256i before = _mm256_setzero_si256();  // word j - 1 of the 8 blocks
    __m256i most8 = before, wide8 = before;
    for (std::size_t r = 0; r < N / 8; ++r) {  // words 8r .. 8r + 7 of the 8 blocks
      __m256i x[8];
      for (std::size_t k = 0; k < 8; ++k) {
        x[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 4 * N * k + 32 * r));
        if (Big) x[k] = bswap32(x[k]);
      }
      lanes::transpose8x8(x);
      for (std::size_t j = 0; j < 8; ++j) {  // word 8r + j less word 8r + j - 1, of every block
        const __m256i d = _mm256_sub_epi32(x[j], before);
        before = x[j];
        const __m256i z = _mm256_xor_si256(_mm256_slli_epi32(d, 1), _mm256_srai_epi32(d, 31));
        const __m256i v = _mm256_sub_epi32(z, _mm256_set1_epi32(-1));  // z + 1, 0 for z = 2^32 - 1
        _mm256_store_si256(reinterpret_cast<__m256i*>(n + 8 * (8 * r + j)), v);
        most8 = _mm256_or_si256(most8, v);
        wide8 = _mm256_or_si256(wide8, _mm256_cmpeq_epi32(z, _mm256_set1_epi32(-1)));
      }
    }
    most = _mm_or_si128(_mm256_castsi256_si128(most8), _mm256_extracti128_si256(most8, 1));
    wide = _mm_or_si128(_mm256_castsi256_si128(wide8), _mm256_extracti128_si256(wide8, 1));
  } else {
    for (std::size_t k = 0; k < 8; ++k) {
      const std::uint8_t* b = blk + 4 * N * k;
      __m128i before = _mm_setzero_si128();     // words j - 4 .. j - 1
      for (std::size_t j = 0; j < N; j += 4) {  // words j..j+3 less words j-1..j+2
        __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 4 * j));
        if (Big) w = bswap32(w);
        const __m128i r = _mm_sub_epi32(w, _mm_alignr_epi8(w, before, 12));
        before = w;
        const __m128i z = _mm_xor_si128(_mm_slli_epi32(r, 1), _mm_srai_epi32(r, 31));
        const __m128i v = _mm_sub_epi32(z, _mm_set1_epi32(-1));  // z + 1, 0 for z = 2^32 - 1
        _mm_store_si128(reinterpret_cast<__m128i*>(n + k * N + j), v);
        most = _mm_or_si128(most, v);
        wide = _mm_or_si128(wide, _mm_cmpeq_epi32(z, _mm_set1_epi32(-1)));
      }
    }
  }
  for (std::size_t k = 0; k < 8; ++k) n[at<N>(k, 0)] = 0;  // the first words: no codeword
  if (_mm_movemask_epi8(wide)) {  // a value of 2^32 somewhere (maybe a first word's): 64-bit lanes
    greedy_wide<N>(n, terms);
  } else {
    most = _mm_or_si128(most, _mm_shuffle_epi32(most, 0x4E));
    most = _mm_or_si128(most, _mm_shuffle_epi32(most, 0xB1));
    // >= the largest value, of the same bit length (word 0's garbage value is in range too)
    const unsigned top = fib_len(static_cast<std::uint32_t>(_mm_cvtsi128_si32(most)));
    // Unsigned compares as signed ones: the rests are kept less 2^31 (r ^ 2^31).
    const __m256i sign = _mm256_set1_epi32(INT32_MIN);
    for (std::size_t i = 0; i < M; i += 32) {  // four independent chains per step
      __m256i r[4], t[4];
      for (unsigned v = 0; v < 4; ++v) {
        r[v] = _mm256_xor_si256(_mm256_load_si256(reinterpret_cast<const __m256i*>(n + i + 8 * v)), sign);
        t[v] = _mm256_setzero_si256();
      }
      for (unsigned k = top; k >= kLowTop; --k) {
        const __m256i f = _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(kT.F[k])));
        const __m256i fs = _mm256_xor_si256(f, sign);
        const __m256i bit = _mm256_set1_epi32(1 << (47 - k));
        for (unsigned v = 0; v < 4; ++v) {
          const __m256i skip = _mm256_cmpgt_epi32(fs, r[v]);  // all ones where F(k) > r: not taken
          r[v] = _mm256_sub_epi32(r[v], _mm256_andnot_si256(skip, f));
          t[v] = _mm256_or_si256(t[v], _mm256_andnot_si256(skip, bit));
        }
      }
      for (unsigned v = 0; v < 4; ++v) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(n + i + 8 * v), _mm256_xor_si256(r[v], sign));
        _mm256_store_si256(reinterpret_cast<__m256i*>(terms + i + 8 * v), t[v]);
      }
    }
  }
  const __m256i magic = _mm256_set1_epi64x(0x4330000000000000ll);  // 2^52 as a double: exact below it
  for (std::size_t i = 0; i < M; i += 4) {                         // n now holds the rests
    const __m256i t = _mm256_cvtepu32_epi64(_mm_load_si128(reinterpret_cast<const __m128i*>(terms + i)));
    // Length: 47 - (t's lowest bit), or the rest's (< F(20), so every value here is >= 1).
    const __m256i lowest = _mm256_and_si256(t, _mm256_sub_epi64(_mm256_setzero_si256(), t));
    const __m256i e =
        _mm256_srli_epi64(_mm256_castpd_si256(_mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(lowest, magic)),
                                                            _mm256_castsi256_pd(magic))),
                          52);
    // (the tables by scalar loads: they return sooner than gathers)
    const __m256i small = _mm256_cvtepu32_epi64(
        _mm_setr_epi32(kLowLen.v[n[i]], kLowLen.v[n[i + 1]], kLowLen.v[n[i + 2]], kLowLen.v[n[i + 3]]));
    const __m256i l = _mm256_blendv_epi8(_mm256_sub_epi64(_mm256_set1_epi64x(47 + 1023), e), small,
                                         _mm256_cmpeq_epi64(t, _mm256_setzero_si256()));
    // The codeword: F(k) at bit l - k + 1 = (47 - k) + l - 46; the rest's terms as in fib_code.
    const __m256i up = _mm256_sub_epi64(l, _mm256_set1_epi64x(46)), down = _mm256_sub_epi64(_mm256_set1_epi64x(46), l);
    const __m256i high = _mm256_or_si256(_mm256_sllv_epi64(t, up), _mm256_srlv_epi64(t, down));
    const __m256i lo =
        _mm256_cvtepu32_epi64(_mm_setr_epi32(static_cast<int>(kLow.v[n[i]]), static_cast<int>(kLow.v[n[i + 1]]),
                                             static_cast<int>(kLow.v[n[i + 2]]), static_cast<int>(kLow.v[n[i + 3]])));
    const __m256i lup = _mm256_sub_epi64(l, _mm256_set1_epi64x(kLowTop - 1)),
                  ldown = _mm256_sub_epi64(_mm256_set1_epi64x(kLowTop - 1), l);
    const __m256i low = _mm256_or_si256(_mm256_sllv_epi64(lo, lup), _mm256_srlv_epi64(lo, ldown));
    _mm256_store_si256(reinterpret_cast<__m256i*>(tok + i),
                       _mm256_or_si256(_mm256_set1_epi64x(1), _mm256_or_si256(high, low)));
    const __m256i lb =
        _mm256_shuffle_epi8(l, _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 8, -1,
                                                -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
    const auto l01 = static_cast<std::uint16_t>(_mm256_cvtsi256_si32(lb));
    const auto l23 = static_cast<std::uint16_t>(_mm_cvtsi128_si32(_mm256_extracti128_si256(lb, 1)));
    std::memcpy(len + i, &l01, 2);
    std::memcpy(len + i + 2, &l23, 2);
  }
  for (std::size_t k = 0; k < 8; ++k) {  // token 0: the first word
    tok[at<N>(k, 0)] = load<std::uint32_t>(blk + 4 * N * k, Big ? Endian::big : Endian::little);
    len[at<N>(k, 0)] = 32;
  }
}

template <std::size_t B, bool Big>
MEMCOMP_AVX2 std::size_t encode_range_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                           std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) {
  constexpr std::size_t N = B / 4;  // token 0: the first word, as is; token i: word i's codeword
  constexpr std::size_t kLaneBytes = (32 + kMaxLen * (N - 1) + 7) / 8 + 16;
  const std::size_t buf_bytes = batch::range_bytes(begin, end, max_bytes);
  alignas(32) std::uint64_t tok[8 * N];
  alignas(32) std::uint8_t len[8 * N + 4], lane_out[8 * kLaneBytes];
  alignas(32) std::uint32_t bits[8];
  std::size_t at = 0, i = begin;
  for (; i + 8 <= end; i += 8) {
    codewords<N, Big>(blocks.block(i), tok, len);
    lanes::pack<N, layout<N>()>(tok, len, lane_out, kLaneBytes, bits);
    at = batch::append_streams(enc, i, 8, buf, at, lane_out, kLaneBytes, bits);
  }
  for (; i < end; ++i) {
    BitWriter w = batch::block_writer(buf, at, max_bytes, buf_bytes);
    fib::encode_block(blocks.block(i), B, Big ? Endian::big : Endian::little, w);
    at = batch::record_block(enc, i, at, 0, w.finish());
  }
  return at;
}

// Decodes 8 * G blocks side by side, one word of each per step: the first word's 32 bits,
// then each codeword's length from its first "11" (the highest set bit of bits & bits << 1,
// through a double's exponent) and its value from its coefficient bytes (fib_value, a lane at
// a time). Block k's stream is bits [pos[k], end[k]) from `base` (below 2^30, `base` readable
// 8 bytes past a codeword begun at any end); its n words go to buf + k * b. True when every
// lane read exactly its bits, every codeword ending within 47 bits at a value <= 2^32.
template <bool Big, unsigned G>
MEMCOMP_AVX2_INLINE bool decode_lanes(const std::uint8_t* base, const std::int32_t* pos_at, const std::int32_t* end_at,
                                      unsigned n, unsigned b, std::uint8_t* buf) {
  const __m256i magic = _mm256_set1_epi64x(0x4330000000000000ll);  // 2^52 as a double
  const __m256i ones = _mm256_set1_epi64x(-1), top48 = _mm256_set1_epi64x(~0xFFFFll);
  __m256i pos[G], end[G], prev[G], bad[G];
  for (unsigned g = 0; g < G; ++g) {
    pos[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pos_at + 8 * g));
    end[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(end_at + 8 * g));
    prev[g] = bad[g] = _mm256_setzero_si256();
  }
  lanes::StepRows<G> rows;
  for (unsigned step = 0; step < n; ++step) {
    for (unsigned g = 0; g < G; ++g) {
      __m256i c0, c1, w;
      lanes::window(base, pos[g], c0, c1);
      if (step == 0) {
        w = lanes::high_halves(c0, c1);
        pos[g] = _mm256_add_epi32(pos[g], _mm256_andnot_si256(bad[g], _mm256_set1_epi32(32)));
      } else {
        // Length: 65 - (the highest pair bit), from the exponent of (pairs >> 16) as a double.
        __m256i len2[2], k2[2];
        for (int h = 0; h < 2; ++h) {
          const __m256i c = h ? c1 : c0;
          const __m256i pairs = _mm256_and_si256(_mm256_and_si256(c, _mm256_slli_epi64(c, 1)), top48);
          const __m256i d = _mm256_castpd_si256(_mm256_sub_pd(
              _mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(pairs, 16), magic)), _mm256_castsi256_pd(magic)));
          len2[h] = _mm256_sub_epi64(_mm256_set1_epi64x(1072), _mm256_srli_epi64(d, 52));  // no pair: 1072
          k2[h] = _mm256_and_si256(c, _mm256_sllv_epi64(ones, _mm256_sub_epi64(_mm256_set1_epi64x(65), len2[h])));
        }
        const __m256i len = lanes::low_halves(len2[0], len2[1]);
        // The values, a lane at a time (scalar loads return sooner than gathers here).
        alignas(32) std::uint64_t kc[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(kc), k2[0]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(kc + 4), k2[1]);
        __m256i u2[2];
        for (int h = 0; h < 2; ++h) {
          const std::uint64_t* q = kc + 4 * h;
          u2[h] = _mm256_setr_epi64x(static_cast<long long>(fib_value(q[0])), static_cast<long long>(fib_value(q[1])),
                                     static_cast<long long>(fib_value(q[2])), static_cast<long long>(fib_value(q[3])));
          bad[g] =
              _mm256_or_si256(bad[g], _mm256_cmpgt_epi64(u2[h], _mm256_set1_epi64x(static_cast<long long>(kMaxN))));
        }
        const __m256i u = _mm256_sub_epi32(lanes::low_halves(u2[0], u2[1]), _mm256_set1_epi32(1));
        w = _mm256_add_epi32(prev[g], _mm256_xor_si256(_mm256_srli_epi32(u, 1),
                                                       _mm256_sub_epi32(_mm256_setzero_si256(),
                                                                        _mm256_and_si256(u, _mm256_set1_epi32(1)))));
        bad[g] = _mm256_or_si256(bad[g], _mm256_cmpgt_epi32(len, _mm256_set1_epi32(static_cast<int>(kMaxLen))));
        pos[g] = _mm256_add_epi32(pos[g], _mm256_andnot_si256(bad[g], len));
      }
      prev[g] = w;
      bad[g] = _mm256_or_si256(bad[g], _mm256_cmpgt_epi32(pos[g], end[g]));
      if (Big) w = bswap32(w);
      rows.put(g, step, w);
    }
    rows.flush(step, buf, b);
  }
  rows.finish(n, buf, b);
  unsigned ok = 0xFF;
  for (unsigned g = 0; g < G; ++g) {
    const __m256i good = _mm256_andnot_si256(bad[g], _mm256_cmpeq_epi32(pos[g], end[g]));
    ok &= static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(good)));
  }
  return ok == 0xFF;
}

template <bool Big>
std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                         std::size_t max_bytes, EncodedBlocks& enc) {
  return with_block_size(blocks.block_bytes, [&](auto bs) {
    constexpr std::size_t B = decltype(bs)::value;
    return encode_range_avx2<B, Big>(blocks, begin, end, buf, max_bytes, enc);
  });
}

MEMCOMP_AVX2 bool decode_group(bool big, const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* stop,
                               unsigned n, unsigned b, std::uint8_t* buf) {
  constexpr unsigned G = kFibDecodeLanes / 8;
  return big ? decode_lanes<true, G>(base, pos, stop, n, b, buf) : decode_lanes<false, G>(base, pos, stop, n, b, buf);
}

}  // namespace

const FibKernels kFibAvx2 = {
    [](bool big, const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf, std::size_t max_bytes,
       EncodedBlocks& enc) {
      return big ? encode_range<true>(blocks, begin, end, buf, max_bytes, enc)
                 : encode_range<false>(blocks, begin, end, buf, max_bytes, enc);
    },
    &decode_group,
};

}  // namespace memcomp
#endif
