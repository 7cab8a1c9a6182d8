// memcomp codecs: Fibonacci coding of word deltas (the code of Pool, Lastra, Singh, I3D'12;
// SPEC 1.14; R §11). Everything around the code itself is ours.
//
//   field                     bits
//   w_0, raw                  32
//   Fib(u_i + 1), i >= 1      2..47   u_i = zigzag((w_i - w_{i-1}) mod 2^32 read as int32)
//
// zigzag(r) = (r << 1) ^ (r >> 31) as uint32: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...
// Fib(n), 1 <= n <= 2^32: the Zeckendorf representation of n over F2 = 1, F3 = 2, F4 = 3, F5 = 5,
// ... written from the lowest term up, then a terminating 1, so every codeword ends in 11 and
// no other 11 occurs. Its length is k + 1 where F(k+1) <= n < F(k+2):
//   n = 1 -> 11, 2 -> 011, 3 -> 0011, 4 -> 1011, 5 -> 00011; n = 2^32 -> 47 bits.
// Size: payload = first word + codewords (SPEC 0.4); no meta, header or tag.
// The decoder rejects a codeword with no terminator within 47 bits, a value above 2^32 (u must
// fit 32 bits) and a stream that ends early or has bits left over.
#include <algorithm>

#include "memcomp/codecs/families.hpp"
#include "memcomp/codecs/lanes.hpp"
#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

namespace memcomp {
namespace {

constexpr unsigned kMaxLen = 47;                         // length of Fib(2^32)
constexpr std::uint64_t kMaxN = std::uint64_t{1} << 32;  // u + 1 for u = 2^32 - 1

struct FibTables {
  std::uint64_t F[50] = {};  // F[0] = 0, F[1] = F[2] = 1, ...
  // Codeword length of n with bit length L (2^(L-1) <= n < 2^L) is lo[L] + (n >= t1[L]) +
  // (n >= t2[L]): [x, 2x) holds at most two Fibonacci numbers since 2 < phi^2.
  unsigned char lo[34] = {};
  std::uint64_t t1[34] = {}, t2[34] = {};
};

constexpr FibTables make_tables() {
  FibTables t;
  t.F[1] = 1;
  for (unsigned k = 2; k < 50; ++k) t.F[k] = t.F[k - 1] + t.F[k - 2];
  for (unsigned L = 1; L <= 33; ++L) {
    const std::uint64_t n = std::uint64_t{1} << (L - 1);
    unsigned k = 1;
    while (t.F[k + 2] <= n) ++k;  // F(k+1) <= n < F(k+2)
    t.lo[L] = static_cast<unsigned char>(k + 1);
    t.t1[L] = t.F[k + 2];
    t.t2[L] = t.F[k + 3];
  }
  return t;
}

constexpr FibTables kT = make_tables();

/// Codeword length of n, 1 <= n <= 2^32.
inline unsigned fib_len(std::uint64_t n) {
  const unsigned L = 64u - static_cast<unsigned>(__builtin_clzll(n));
  return kT.lo[L] + static_cast<unsigned>(n >= kT.t1[L]) + static_cast<unsigned>(n >= kT.t2[L]);
}

// Zeckendorf terms of every n < 2^13 (terms F(2)..F(20)): bit 20 - k for the term F(k).
constexpr unsigned kLowBits = 13, kLowTop = 20;
struct LowCodes {
  std::uint32_t v[std::size_t{1} << kLowBits] = {};
};
constexpr LowCodes make_low_codes() {
  LowCodes t;
  for (std::uint64_t n = 1; n < (std::uint64_t{1} << kLowBits); ++n) {
    std::uint64_t r = n;
    unsigned k = kLowTop;
    std::uint32_t bits = 0;
    for (; r != 0; --k)
      if (kT.F[k] <= r) {
        bits |= 1u << (kLowTop - k);
        r -= kT.F[k];
      }
    t.v[n] = bits;
  }
  return t;
}
constexpr LowCodes kLow = make_low_codes();

// fib_len(n) for every n < 2^13 (a byte each).
struct LowLens {
  std::uint8_t v[std::size_t{1} << kLowBits] = {};
  constexpr LowLens() {
    for (std::uint64_t n = 1; n < (std::uint64_t{1} << kLowBits); ++n) {
      unsigned k = 1;
      while (kT.F[k + 2] <= n) ++k;
      v[n] = static_cast<std::uint8_t>(k + 1);
    }
  }
};
constexpr LowLens kLowLen{};

/// The greedy steps from n's largest term down to F(20): the terms F(k), k >= 20, as bit 47 - k of
/// the result; n keeps the rest (below F(20), so kLow holds its terms).
inline std::uint32_t high_terms(std::uint64_t& n) {
  std::uint32_t t = 0;
  while (n >= kT.F[kLowTop]) {
    const unsigned k = fib_len(n);  // the largest term of n is F(k)
    t |= 1u << (47 - k);
    n -= kT.F[k];
  }
  return t;
}

/// The codeword of n as a field of fib_len(n) = len bits (first stream bit = the F2
/// coefficient): the term F(k) sits at field bit len - k + 1 = (47 - k) + len - 46, for the high
/// terms (high_terms) and for the rest's (kLow's bit 20 - k) alike; the terminating 1 is the
/// field's last bit.
inline std::uint64_t fib_code(std::uint64_t n, unsigned len) {
  const std::uint64_t t = high_terms(n);
  const std::uint64_t high = len >= 46 ? t << (len - 46) : t >> (46 - len);
  const std::uint64_t low = kLow.v[n];
  return 1u | high | (len + 1 >= kLowTop ? low << (len + 1 - kLowTop) : low >> (kLowTop - len - 1));
}

// What a byte of coefficients adds, per byte position t of a codeword: bit 7 - i of v is the
// coefficient of F(8t + i + 2) (stream bit 8t + i). One table per position, so a codeword's
// value is six loads and adds.
struct ByteValues {
  std::uint64_t v[6][256] = {};
  constexpr ByteValues() {
    for (unsigned t = 0; t < 6; ++t)
      for (unsigned x = 0; x < 256; ++x)
        for (unsigned i = 0; i < 8; ++i)
          if ((x >> (7 - i)) & 1u) v[t][x] += kT.F[8 * t + i + 2];
  }
};
constexpr ByteValues kByteValues;

/// The value of the coefficients at the top of c (stream bit t, the coefficient of F(t + 2), at
/// bit 63 - t; at most 48 bits).
inline std::uint64_t fib_value(std::uint64_t c) {
  std::uint64_t n = 0;
  for (unsigned t = 0; t < 6; ++t) n += kByteValues.v[t][(c >> (56 - 8 * t)) & 0xFFu];
  return n;
}

inline std::uint32_t zigzag(std::uint32_t cur, std::uint32_t prev) {
  const std::uint32_t r = cur - prev;
  return (r << 1) ^ (0u - (r >> 31));
}

struct FibSettings {
  Endian endian;
};

const OptionTable<FibSettings>& fib_table() {
  static const OptionTable<FibSettings> t{option_endian(&FibSettings::endian)};
  return t;
}

class Fibonacci final : public CodecImpl<Fibonacci> {
 public:
  explicit Fibonacci(const Options& o) : s_(fib_table().parse(o, "fib")) { endian_ = s_.endian; }

  Options options() const override { return fib_table().write(s_); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 32 + kMaxLen * (b / 4 - 1); }
  std::vector<ModeName> modes() const override { return {{0, "fib"}}; }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    return with_block_size(b, [&](auto B) { return measure_t<B()>(blk); });
  }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
    std::uint32_t prev = load<std::uint32_t>(blk, endian_);
    out.write(prev, 32);
    for (std::size_t i = 4; i < b; i += 4) {
      const std::uint32_t w = load<std::uint32_t>(blk + i, endian_);
      const std::uint64_t n = std::uint64_t{zigzag(w, prev)} + 1;
      const unsigned len = fib_len(n);
      out.write(fib_code(n, len), len);
      prev = w;
    }
    return 0;
  }

  // Codeword by codeword through a peek at the next 48 bits (zeros past the stream's end): the
  // first "11" ends it, and its value is summed a byte of coefficients at a time (kByteValues).
  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    std::uint32_t w = read_first(in, out);
    for (std::size_t i = 1; i < b / 4; ++i) w = read_word(in, w, out, i);
  }

 protected:
#if defined(MEMCOMP_X86_SIMD)
  // Eight blocks side by side: every word's value, the greedy steps and the codewords for all of
  // them at once, then their streams through lanes::pack.
  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc) const override {
    if (!simd_avx2()) return CodecImpl<Fibonacci>::encode_range(blocks, begin, end, buf, max_bytes, enc);
    return with_block_size(blocks.block_bytes, [&](auto bs) {
      constexpr std::size_t B = decltype(bs)::value;
      return endian_ == Endian::big ? encode_range_avx2<B, true>(blocks, begin, end, buf, max_bytes, enc)
                                    : encode_range_avx2<B, false>(blocks, begin, end, buf, max_bytes, enc);
    });
  }
#endif

  // Each codeword's length waits on the one before it, so a block's codewords form a chain:
  // independent blocks are decoded side by side, 24 at a time as vector lanes (AVX2), the rest
  // two at a time.
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end) const override {
    if (!simd_enabled()) return CodecImpl<Fibonacci>::decode_range(enc, out, begin, end);
#if defined(MEMCOMP_X86_SIMD)
    if (simd_avx2())
      begin = endian_ == Endian::big ? decode_range_avx2<true>(enc, out, begin, end)
                                     : decode_range_avx2<false>(enc, out, begin, end);
#endif
    const std::size_t n = enc.block_bytes / 4;
    decode_pairs(
        enc, out, begin, end,
        [&](BitReader& ra, std::uint8_t* oa, BitReader& rb, std::uint8_t* ob) {
          std::uint32_t wa = read_first(ra, oa), wb = read_first(rb, ob);
          for (std::size_t i = 1; i < n; ++i) {
            wa = read_word(ra, wa, oa, i);
            wb = read_word(rb, wb, ob, i);
          }
        },
        [&](BitReader& r, std::uint32_t tag, std::uint8_t* o, std::size_t b) { decode(r, tag, o, b); });
  }

 private:
  /// Word 0, stored as is.
  std::uint32_t read_first(BitReader& in, std::uint8_t* out) const {
    const auto w = static_cast<std::uint32_t>(in.read(32));
    store<std::uint32_t>(out, w, endian_);
    return w;
  }
  /// Word i from its codeword and word i - 1 (prev); returns it.
  std::uint32_t read_word(BitReader& in, std::uint32_t prev, std::uint8_t* out, std::size_t i) const {
    const std::uint64_t win = in.peek(48) << 16;   // stream bits at the top
    const std::uint64_t pairs = win & (win << 1);  // bit 63 - t: stream bits t and t + 1 are set
    const unsigned len = pairs ? static_cast<unsigned>(__builtin_clzll(pairs)) + 2 : 64u;
    if (len > kMaxLen) {
      if (in.remaining() < kMaxLen) in.skip(static_cast<unsigned>(in.remaining()) + 1);  // throws: truncated
      throw corrupt_stream("fib codeword of word " + std::to_string(i) + " has no terminator within " +
                           std::to_string(kMaxLen) + " bits");
    }
    in.skip(len);
    const std::uint64_t n = fib_value(win & ~low_mask(65 - len));
    if (n > kMaxN)
      throw corrupt_stream("fib codeword of word " + std::to_string(i) + " has value " + std::to_string(n) + " > 2^32");
    const std::uint64_t u = n - 1;
    const std::uint32_t w = prev + static_cast<std::uint32_t>((u >> 1) ^ (0u - (u & 1u)));
    store<std::uint32_t>(out + 4 * i, w, endian_);
    return w;
  }

#if defined(MEMCOMP_X86_SIMD)
  template <std::size_t B, bool Big>
  MEMCOMP_AVX2 std::size_t encode_range_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                             std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) const {
    constexpr std::size_t N = B / 4;  // token 0: the first word, as is; token i: word i's codeword
    constexpr std::size_t kLaneBytes = (32 + kMaxLen * (N - 1) + 7) / 8 + 16;
    const std::size_t buf_bytes = range_bytes(begin, end, max_bytes);
    alignas(32) std::uint64_t tok[8 * N];
    alignas(32) std::uint8_t len[8 * N + 4], lane_out[8 * kLaneBytes];
    alignas(32) std::uint32_t bits[8];
    std::size_t at = 0, i = begin;
    for (; i + 8 <= end; i += 8) {
      codewords<N, Big>(blocks.block(i), tok, len);
      lanes::pack<N, layout<N>()>(tok, len, lane_out, kLaneBytes, bits);
      at = append_streams(enc, i, 8, buf, at, lane_out, kLaneBytes, bits);
    }
    for (; i < end; ++i) {
      BitWriter w = block_writer(buf, at, max_bytes, buf_bytes);
      encode(blocks.block(i), B, w);
      at = record_block(enc, i, at, 0, w.finish());
    }
    return at;
  }

  // Where codewords() puts token j of block k: at 8 j + k (step-major) for blocks of 8 words or
  // more, whose words it reads 8 blocks at a time through an 8x8 transpose; else at N k + j.
  template <std::size_t N>
  static constexpr lanes::Layout layout() {
    return N >= 8 ? lanes::Layout::step_major : lanes::Layout::block_major;
  }
  template <std::size_t N>
  static constexpr std::size_t at(std::size_t k, std::size_t j) {
    return layout<N>() == lanes::Layout::step_major ? 8 * j + k : N * k + j;
  }

  // The greedy steps of codewords() one value at a time, for a group with a value of 2^32 (n
  // holds it as 0, as it holds a first word): the rests back into n, the terms into t.
  template <std::size_t N>
  static void greedy_wide(std::uint32_t* n, std::uint32_t* t) {
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
  MEMCOMP_AVX2_INLINE void codewords(const std::uint8_t* blk, std::uint64_t* tok, std::uint8_t* len) const {
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
      const __m256i up = _mm256_sub_epi64(l, _mm256_set1_epi64x(46)),
                    down = _mm256_sub_epi64(_mm256_set1_epi64x(46), l);
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
          _mm256_shuffle_epi8(l, _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 8,
                                                  -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
      const auto l01 = static_cast<std::uint16_t>(_mm256_cvtsi256_si32(lb));
      const auto l23 = static_cast<std::uint16_t>(_mm_cvtsi128_si32(_mm256_extracti128_si256(lb, 1)));
      std::memcpy(len + i, &l01, 2);
      std::memcpy(len + i + 2, &l23, 2);
    }
    for (std::size_t k = 0; k < 8; ++k) {  // token 0: the first word
      tok[at<N>(k, 0)] = load<std::uint32_t>(blk + 4 * N * k, endian_);
      len[at<N>(k, 0)] = 32;
    }
  }
#endif

#if defined(MEMCOMP_X86_SIMD)
  // Groups of 24 blocks through decode_lanes; a group whose streams are not all valid, or too
  // near the end of the data for its reads, is decoded one block at a time (which names the
  // first bad block). Returns where the groups stopped.
  template <bool Big>
  MEMCOMP_AVX2 std::size_t decode_range_avx2(const EncodedView& enc, std::uint8_t* out, std::size_t begin,
                                             std::size_t end) const {
    constexpr unsigned G = 3;
    const auto n = static_cast<unsigned>(enc.block_bytes / 4), b = static_cast<unsigned>(enc.block_bytes);
    return decode_groups<8 * G>(
        enc, out, begin, end, kMaxLen + 1,
        [&](const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* stop, std::uint8_t* buf)
            MEMCOMP_AVX2 { return decode_lanes<Big, G>(base, pos, stop, n, b, buf); });
  }

  // Decodes 8 * G blocks side by side, one word of each per step: the first word's 32 bits,
  // then each codeword's length from its first "11" (the highest set bit of bits & bits << 1,
  // through a double's exponent) and its value from its coefficient bytes (fib_value, a lane at
  // a time). Block k's stream is bits [pos[k], end[k]) from `base` (below 2^30, `base` readable
  // 8 bytes past a codeword begun at any end); its n words go to buf + k * b. True when every
  // lane read exactly its bits, every codeword ending within 47 bits at a value <= 2^32.
  template <bool Big, unsigned G>
  MEMCOMP_AVX2_INLINE bool decode_lanes(const std::uint8_t* base, const std::int32_t* pos_at,
                                        const std::int32_t* end_at, unsigned n, unsigned b, std::uint8_t* buf) const {
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
                                       static_cast<long long>(fib_value(q[2])),
                                       static_cast<long long>(fib_value(q[3])));
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
#endif

  template <std::size_t B>
  SizeBreakdown measure_t(const std::uint8_t* blk) const {
    std::uint32_t prev = load<std::uint32_t>(blk, endian_), bits = 32;
    for (std::size_t i = 4; i < B; i += 4) {
      const std::uint32_t w = load<std::uint32_t>(blk + i, endian_);
      bits += fib_len(std::uint64_t{zigzag(w, prev)} + 1);
      prev = w;
    }
    SizeBreakdown s;
    s.payload = bits;
    return s;
  }

  const FibSettings s_;
  Endian endian_ = Endian::little;
};

std::unique_ptr<Codec> make_fib(const Options& o) { return std::make_unique<Fibonacci>(o); }

}  // namespace

void add_fib_presets(std::vector<Preset>& out) {
  out.push_back({"fib.ours",
                 "fib",
                 "Fibonacci codes (Pool et al. I3D'12) of zigzagged word deltas after a raw first word",
                 "none",
                 {},
                 true,
                 &make_fib,
                 &space_of<fib_table>});
}

}  // namespace memcomp
