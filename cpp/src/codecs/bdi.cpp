// memcomp codecs: Base-Delta-Immediate (Pekhimenko et al., PACT'12, Table 2; SPEC 1.1; R §2).
//
// A block of B bytes is split into n = B/k elements of k bytes. An element is an *immediate* if
// it fits d bytes against the implicit zero base; the first other element is the explicit base
// and every further one must fit d bytes as a delta from it.
//
//   id  name   k/d   payload bits          id  name    k/d   payload bits
//   0   zeros  -     zero_bits (8)         5   b4d1    4/1   8k + 8dn
//   1   rep8   8/0   64                    6   b4d2    4/2   8k + 8dn
//   2   b8d1   8/1   8k + 8dn              7   b2d1    2/1   8k + 8dn
//   3   b8d2   8/2   8k + 8dn              8   rep4    4/0   32 (cmu only)
//   4   b8d4   8/4   8k + 8dn              15  raw     -     8B
//
// Stream: [enc:4 if in-band][mask:n, 1 = explicit base][base:8k][n x delta:8d]; an immediate
// stores its low 8d bits, the base element stores delta 0. Zero stores zero_bits zero bits, a
// repeated block its element value, raw its bytes. The preset axes (immediate extension, delta
// fit, charged metadata, winner rule, tie order) are the options below.
// Metadata Consolidation (P2 §4.3, SPEC 2): this stream is already consolidated (the whole mask
// precedes the base and the deltas), so BDI takes no `layout` option and has no mc preset.
#include <algorithm>
#include <cstring>

#include "memcomp/codecs/families.hpp"
#include "memcomp/core/simd.hpp"
#include "memcomp/stats/policy.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

namespace memcomp {
namespace {

enum : int { kZero = 0, kRep8 = 1, kRep4 = 8, kRaw = 15 };

struct Delta {
  int id;
  unsigned k, d;
};
constexpr Delta kDeltas[] = {{2, 8, 1}, {3, 8, 2}, {4, 8, 4}, {5, 4, 1}, {6, 4, 2}, {7, 2, 1}};
inline const Delta* find_delta(int id) { return id >= 2 && id <= 7 ? &kDeltas[id - 2] : nullptr; }

#if defined(MEMCOMP_X86_SIMD)
// AVX2 classification (run-time dispatched; equal to BDI::choose bit for bit, see the tests).
// A 32-byte register holds 32/k elements of k bytes. Per (k, d) candidate: the lanes that are
// not immediates (outside the signed d-byte range), the first of them is the base, and the
// candidate fits iff every such lane's wrapped difference from the base is in range too.
namespace bdi_avx2 {

template <unsigned K>
MEMCOMP_AVX2_INLINE __m256i set1(std::uint64_t v) {
  if constexpr (K == 8)
    return _mm256_set1_epi64x(static_cast<long long>(v));
  else if constexpr (K == 4)
    return _mm256_set1_epi32(static_cast<int>(static_cast<std::uint32_t>(v)));
  else
    return _mm256_set1_epi16(static_cast<short>(static_cast<std::uint16_t>(v)));
}
template <unsigned K>
MEMCOMP_AVX2_INLINE __m256i gt(__m256i a, __m256i b) {
  if constexpr (K == 8)
    return _mm256_cmpgt_epi64(a, b);
  else if constexpr (K == 4)
    return _mm256_cmpgt_epi32(a, b);
  else
    return _mm256_cmpgt_epi16(a, b);
}
template <unsigned K>
MEMCOMP_AVX2_INLINE __m256i sub(__m256i a, __m256i b) {
  if constexpr (K == 8)
    return _mm256_sub_epi64(a, b);
  else if constexpr (K == 4)
    return _mm256_sub_epi32(a, b);
  else
    return _mm256_sub_epi16(a, b);
}
// Lanes (all ones) whose signed value lies outside the d-byte range: [-h-1, h] for the signed
// fit, [-h, h] for the symmetric one, h = 2^(8d-1) - 1. The signed test folds negative x onto
// ~x (x ^ sign), which is in [0, h] iff x is in range: one compare.
template <unsigned K, bool Sym>
MEMCOMP_AVX2_INLINE __m256i outside(__m256i x, __m256i h, __m256i neg_h) {
  if constexpr (Sym) {
    return _mm256_or_si256(gt<K>(x, h), gt<K>(neg_h, x));
  } else {
    const __m256i sign = gt<K>(_mm256_setzero_si256(), x);
    return gt<K>(_mm256_xor_si256(x, sign), h);
  }
}

template <std::size_t B, unsigned K, unsigned D, bool Sym, bool Big>
MEMCOMP_AVX2_INLINE unsigned candidate_fits(const __m256i (&x)[B / 32], const std::uint8_t* blk) {
  constexpr std::size_t R = B / 32, W = (B + 63) / 64;
  constexpr std::uint64_t hv = (std::uint64_t{1} << (8 * D - 1)) - 1;
  const __m256i h = set1<K>(hv), neg_h = set1<K>(~hv + 1);
  __m256i bad[R];
  std::uint64_t m[W] = {};
  for (std::size_t r = 0; r < R; ++r) {
    bad[r] = outside<K, Sym>(x[r], h, neg_h);
    m[r / 2] |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(bad[r]))} << (32 * (r % 2));
  }
  // The base is the first lane that is not an immediate; without one, the last lane stands in
  // (no lane is tested against it).
  m[W - 1] |= std::uint64_t{1} << ((B - K) % 64);
  std::size_t first = 0;
  for (std::size_t w = W; w-- > 0;) first = m[w] ? 64 * w + static_cast<std::size_t>(_tzcnt_u64(m[w])) : first;
  const std::uint64_t bv = load_k(blk + first, K, Big ? Endian::big : Endian::little);
  __m256i acc = _mm256_setzero_si256();
  const __m256i base = set1<K>(bv);
  if constexpr (Sym) {
    for (std::size_t r = 0; r < R; ++r)
      acc = _mm256_or_si256(acc, _mm256_and_si256(bad[r], outside<K, Sym>(sub<K>(x[r], base), h, neg_h)));
    return static_cast<unsigned>(_mm256_testz_si256(acc, acc));
  } else {
    // A wrapped delta fits the signed d-byte range iff delta + 2^(8d-1) has no bit at or above
    // 8d in its lane: one subtraction of (base - 2^(8d-1)) per register, and one test at the end.
    const __m256i shift = sub<K>(base, set1<K>(hv + 1));
    for (std::size_t r = 0; r < R; ++r) acc = _mm256_or_si256(acc, _mm256_and_si256(bad[r], sub<K>(x[r], shift)));
    return static_cast<unsigned>(_mm256_testz_si256(acc, set1<K>(~low_mask(8 * D))));
  }
}

// Lanes of K bytes read as big-endian numbers: reverse the bytes of each lane.
template <unsigned K>
MEMCOMP_AVX2_INLINE __m256i swap_lanes(__m256i v) {
  alignas(32) std::uint8_t idx[32];
  for (unsigned i = 0; i < 32; ++i) idx[i] = static_cast<std::uint8_t>((i & 15u & ~(K - 1)) + (K - 1 - (i & (K - 1))));
  return _mm256_shuffle_epi8(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(idx)));
}

// The n-bit explicit mask of K-byte lanes (bit j: lane j of the block) from the byte mask of
// one register of them.
template <unsigned K>
MEMCOMP_AVX2_INLINE std::uint64_t lane_bits(__m256i bad) {
  if constexpr (K == 8) {
    return static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(bad)));
  } else if constexpr (K == 4) {
    return static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(bad)));
  } else {  // every other bit of the byte mask
    std::uint64_t m = static_cast<std::uint32_t>(_mm256_movemask_epi8(bad)) & 0x55555555u;
    m = (m | m >> 1) & 0x33333333u;
    m = (m | m >> 2) & 0x0F0F0F0Fu;
    m = (m | m >> 4) & 0x00FF00FFu;
    return (m | m >> 8) & 0xFFFFu;
  }
}

inline std::uint64_t reverse_bits(std::uint64_t x) {
  x = __builtin_bswap64(x);
  x = (x & 0x0F0F0F0F0F0F0F0Full) << 4 | (x >> 4 & 0x0F0F0F0F0F0F0F0Full);
  x = (x & 0x3333333333333333ull) << 2 | (x >> 2 & 0x3333333333333333ull);
  return (x & 0x5555555555555555ull) << 1 | (x >> 1 & 0x5555555555555555ull);
}

// The body of a (K, D) delta encoding of a block that fits it (BDI::encode's format): the
// explicit mask (lane 0 first), the base (the first explicit lane, 0 without one), and each
// lane's low D bytes (less the base where explicit), most significant byte first, packed by
// byte shuffles.
template <std::size_t B, unsigned K, unsigned D, bool Sym, bool Big>
MEMCOMP_AVX2_INLINE void write_deltas(const std::uint8_t* blk, BitWriter& w) {
  constexpr std::size_t R = B / 32, n = B / K, per = 32 / K, W = (n + 63) / 64, half = 16 * D / K;
  constexpr std::uint64_t hv = (std::uint64_t{1} << (8 * D - 1)) - 1;
  const __m256i h = set1<K>(hv), neg_h = set1<K>(~hv + 1);
  __m256i x[R], bad[R];
  std::uint64_t m[W] = {};
  for (std::size_t r = 0; r < R; ++r) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
    x[r] = Big ? swap_lanes<K>(v) : v;
    bad[r] = outside<K, Sym>(x[r], h, neg_h);
    m[r * per / 64] |= lane_bits<K>(bad[r]) << (r * per % 64);
  }
  std::size_t first = n;
  for (std::size_t q = W; q-- > 0;) first = m[q] ? 64 * q + static_cast<std::size_t>(_tzcnt_u64(m[q])) : first;
  const std::uint64_t bv = first < n ? load_k(blk + K * first, K, Big ? Endian::big : Endian::little) : 0;
  for (std::size_t q = 0; q < W; ++q) {
    constexpr unsigned last = n % 64 ? n % 64 : 64;
    const unsigned bits = q + 1 < W ? 64u : last;
    w.write(reverse_bits(m[q]) >> (64 - bits), bits);
  }
  w.write(bv, 8 * K);
  // Byte t of lane j's field (t = 0 its top byte) is byte D - 1 - t of the lane's value.
  alignas(32) std::uint8_t idx[32];
  for (unsigned i = 0; i < 16; ++i) {
    const unsigned j = i / D, t = i % D;
    idx[i] = idx[16 + i] = i < half ? static_cast<std::uint8_t>(j * K + D - 1 - t) : 0x80u;
  }
  const __m256i pick = _mm256_load_si256(reinterpret_cast<const __m256i*>(idx)), base = set1<K>(bv);
  std::uint8_t out[n * D + 16];
  for (std::size_t r = 0; r < R; ++r) {
    const __m256i p = _mm256_shuffle_epi8(sub<K>(x[r], _mm256_and_si256(bad[r], base)), pick);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * r * half), _mm256_castsi256_si128(p));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (2 * r + 1) * half), _mm256_extracti128_si256(p, 1));
  }
  w.write_bytes(out, n * D);
}

// All ones in lane j of K-byte lanes where bit j of `bits` is set.
template <unsigned K>
MEMCOMP_AVX2_INLINE __m256i lanes_of(std::uint64_t bits) {
  if constexpr (K == 8) {
    const __m256i sel = _mm256_setr_epi64x(1, 2, 4, 8);
    return _mm256_cmpeq_epi64(_mm256_and_si256(set1<8>(bits), sel), sel);
  } else if constexpr (K == 4) {
    const __m256i sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return _mm256_cmpeq_epi32(_mm256_and_si256(set1<4>(bits), sel), sel);
  } else {
    const __m256i sel = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
                                          static_cast<short>(32768));
    return _mm256_cmpeq_epi16(_mm256_and_si256(set1<2>(bits), sel), sel);
  }
}

// Arithmetic right shift of K-byte lanes by S bits (AVX2 has none for 64-bit lanes).
template <unsigned K, int S>
MEMCOMP_AVX2_INLINE __m256i sra(__m256i x) {
  if constexpr (K == 8) {
    const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x);
    return _mm256_or_si256(_mm256_srli_epi64(x, S), _mm256_slli_epi64(sign, 64 - S));
  } else if constexpr (K == 4) {
    return _mm256_srai_epi32(x, S);
  } else {
    return _mm256_srai_epi16(x, S);
  }
}

// The inverse of write_deltas (BDI::decode's format): each field's bytes to the top of its
// lane, shifted down with its sign, plus the base where explicit.
template <std::size_t B, unsigned K, unsigned D, bool Big>
MEMCOMP_AVX2_INLINE void read_deltas(BitReader& in, std::uint8_t* out) {
  constexpr std::size_t R = B / 32, n = B / K, per = 32 / K, W = (n + 63) / 64, half = 16 * D / K;
  std::uint64_t m[W];
  for (std::size_t q = 0; q < W; ++q) {
    constexpr unsigned last = n % 64 ? n % 64 : 64;
    const unsigned bits = q + 1 < W ? 64u : last;
    m[q] = reverse_bits(in.read(bits) << (64 - bits));
  }
  const __m256i minus_base = set1<K>(0 - in.read(8 * K));
  std::uint8_t f[n * D + 16];
  std::memset(f + n * D, 0, 16);
  in.read_bytes(f, n * D);
  // Lane byte K - D + b (b = 0 the field's least significant) is byte D - 1 - b of lane j's field.
  alignas(32) std::uint8_t idx[32];
  for (unsigned i = 0; i < 16; ++i) {
    const unsigned j = i / K, b = i % K;
    idx[i] = idx[16 + i] = b >= K - D ? static_cast<std::uint8_t>(j * D + K - 1 - b) : 0x80u;
  }
  const __m256i put = _mm256_load_si256(reinterpret_cast<const __m256i*>(idx));
  for (std::size_t r = 0; r < R; ++r) {
    const __m256i v = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(f + (2 * r + 1) * half),
                                          reinterpret_cast<const __m128i*>(f + 2 * r * half));
    __m256i x = sra<K, 8 * (K - D)>(_mm256_shuffle_epi8(v, put));
    x = sub<K>(x, _mm256_and_si256(lanes_of<K>(m[r * per / 64] >> (r * per % 64)), minus_base));
    if (Big) x = swap_lanes<K>(x);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * r), x);
  }
}

}  // namespace bdi_avx2
#endif

enum class Ext { sign, zero };                     // sub-64-bit immediates: sign- or zero-extended
enum class Fit { signed_, symmetric, magnitude };  // range a d-byte delta must lie in
enum class EncBits { tag, inband, none };          // where the 4-bit encoding lives
enum class Winner { min_bits, pow2 };

/// BDI's settings (option table bdi_table).
struct Config {
  Endian endian;
  Ext immediates;
  Fit delta_fit;
  unsigned zero_bits;
  bool repeat4;
  bool mask;
  unsigned bases;
  EncBits encoding;
  Winner winner;
  double member_threshold;  // > 0: candidates above this fraction of 8B fail (gem5: 0.99)
  unsigned fmax;
  std::string order;
};

const OptionTable<NoSettings>& no_options() {
  static const OptionTable<NoSettings> t;
  return t;
}

const OptionTable<Config>& bdi_table() {
  using S = Config;
  static const OptionTable<S> t{
      option_endian(&S::endian),
      option_choice("immediates", &S::immediates, "sign", {{"sign", Ext::sign}, {"zero", Ext::zero}},
                    "values narrower than 64 bits are sign- or zero-extended"),
      option_choice("delta_fit", &S::delta_fit, "signed",
                    {{"signed", Fit::signed_}, {"symmetric", Fit::symmetric}, {"magnitude", Fit::magnitude}},
                    "range a d-byte delta must lie in: two's complement, gem5's symmetric one, CMU's magnitude"),
      option_int("zero_bits", &S::zero_bits, 8, 0, 16, "bits a zero block costs"),
      option_bool("repeat4", &S::repeat4, false, "also try a repeated 4-byte value"),
      option_bool("mask", &S::mask, true, "an n-bit mask picks the base or the zero base per element (PACT'12)"),
      option_int("bases", &S::bases, 1, 1, 2, "bases charged per block"),
      option_choice("encoding", &S::encoding, "tag",
                    {{"tag", EncBits::tag}, {"inband", EncBits::inband}, {"none", EncBits::none}},
                    "where the 4-bit encoding lives: in the tag, in the stream, or nowhere"),
      option_choice("winner", &S::winner, "min_bits", {{"min_bits", Winner::min_bits}, {"pow2", Winner::pow2}},
                    "the candidate of fewest bits wins, or of the largest power-of-two factor (gem5)"),
      option_float("member_threshold", &S::member_threshold, 0.0, 0.0, 1.0,
                   "above 0: a candidate above this fraction of the block fails (gem5: 0.99)"),
      option_int("fmax", &S::fmax, 4, 1, 64, "largest factor winner='pow2' credits"),
      option_choice("order", &S::order, "encoding", {"encoding", "kim", "cmu"},
                    "order candidates are tried in, ties to the earlier")};
  return t;
}

class BDI final : public CodecImpl<BDI> {
 public:
  explicit BDI(const Options& o) : c_(bdi_table().parse(o, "bdi")) {
    if (c_.order == "encoding") order_ = {kZero, kRep8, 2, 3, 4, 5, 6, 7, kRep4};
    if (c_.order == "kim") order_ = {kZero, kRep8, 2, 5, 3, 7, 6, 4, kRep4};
    if (c_.order == "cmu") order_ = {kRaw, kZero, kRep8, 2, 3, 4, kRep4, 5, 6, 7};
    enc_bits_ = c_.encoding == EncBits::inband ? 4u : 0u;
    for (std::size_t i = 0; i < 5; ++i) ranked_[i] = rank(std::size_t{16} << i);
    prepare_fast();
  }

  Options options() const override { return bdi_table().write(c_); }

  bool exact() const override {
    return c_.encoding != EncBits::none && c_.mask && c_.bases == 1 && c_.delta_fit != Fit::magnitude;
  }

  std::uint64_t max_compressed_bits(std::size_t b) const override {
    std::uint64_t m = 8 * b;
    for (const Delta& x : kDeltas) m = std::max<std::uint64_t>(m, delta_bits(x, b));
    return m + enc_bits_;
  }

  std::vector<ModeName> modes() const override {
    return {{0, "zeros"}, {1, "rep8"}, {2, "b8d1"}, {3, "b8d2"}, {4, "b8d4"},
            {5, "b4d1"},  {6, "b4d2"}, {7, "b2d1"}, {8, "rep4"}, {15, "raw"}};
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override { return breakdown(choose(blk, b), b); }

 protected:
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end,
                     const SizeColumns& out) const override {
#if defined(MEMCOMP_X86_SIMD)
    const std::size_t si = ceil_log2(blocks.block_bytes) - 4;
    if (measure_avx2_[si] && simd_avx2()) return (this->*measure_avx2_[si])(blocks, begin, end, out);
#endif
    CodecImpl<BDI>::measure_range(blocks, begin, end, out);
  }
  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc) const override {
#if defined(MEMCOMP_X86_SIMD)
    const std::size_t si = ceil_log2(blocks.block_bytes) - 4;
    if (encode_range_avx2_[si] && simd_avx2())
      return (this->*encode_range_avx2_[si])(blocks, begin, end, buf, max_bytes, enc);
#endif
    return CodecImpl<BDI>::encode_range(blocks, begin, end, buf, max_bytes, enc);
  }
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end) const override {
#if defined(MEMCOMP_X86_SIMD)
    const std::size_t si = ceil_log2(enc.block_bytes) - 4;
    if (decode_range_avx2_[si] && simd_avx2()) return (this->*decode_range_avx2_[si])(enc, out, begin, end);
#endif
    CodecImpl<BDI>::decode_range(enc, out, begin, end);
  }

 public:
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
#if defined(MEMCOMP_X86_SIMD)
    const std::size_t si = ceil_log2(b) - 4;
    if (encode_avx2_[si] && simd_avx2()) return (this->*encode_avx2_[si])(blk, w);
#endif
    return encode_as(choose(blk, b), blk, b, w);
  }

  // The stream of encoding id (which fits the block).
  std::uint32_t encode_as(int id, const std::uint8_t* blk, std::size_t b, BitWriter& w) const {
    if (const Delta* x = encode_head(id, blk, b, w)) encode_deltas(*x, blk, b, w);
    return tag_of(id);
  }

  // encode_as's stream up to the deltas: the whole stream of a zero, repeated or raw block (and
  // nullptr), else its encoding's Delta for a delta writer (the scalar one below or a kernel) to
  // finish. Inlined where b is a constant, so the raw copy is too.
  [[gnu::always_inline]] const Delta* encode_head(int id, const std::uint8_t* blk, std::size_t b, BitWriter& w) const {
    if (c_.encoding == EncBits::inband) w.write(static_cast<std::uint64_t>(id), 4);
    if (id == kZero) {
      w.write(0, c_.zero_bits);
    } else if (id == kRep8 || id == kRep4) {
      const unsigned k = id == kRep8 ? 8 : 4;
      w.write(load_k(blk, k, c_.endian), 8 * k);
    } else if (id == kRaw) {
      w.write_bytes(blk, b);
    } else {
      return find_delta(id);
    }
    return nullptr;
  }
  std::uint32_t tag_of(int id) const { return c_.encoding == EncBits::tag ? static_cast<std::uint32_t>(id) : 0u; }

  // The scalar writer of delta encoding x.
  void encode_deltas(const Delta& x, const std::uint8_t* blk, std::size_t b, BitWriter& w) const {
    const std::size_t n = b / x.k;
    std::uint64_t v[128], mask[2] = {0, 0};  // mask bit i (MSB first): element i is explicit
    int base = -1;
    for (std::size_t i = 0; i < n; ++i) {
      v[i] = load_k(blk + i * x.k, x.k, c_.endian);
      const bool explicit_base = !immediate(v[i], x.k, x.d);
      if (explicit_base && base < 0) base = static_cast<int>(i);
      mask[i / 64] |= std::uint64_t{explicit_base} << (63 - i % 64);
    }
    for (std::size_t i = 0; i < n; i += 64) {
      const unsigned bits = static_cast<unsigned>(std::min<std::size_t>(64, n - i));
      w.write(mask[i / 64] >> (64 - bits), bits);
    }
    const std::uint64_t bv = base < 0 ? 0 : v[base];
    w.write(bv, 8 * x.k);
    // The deltas, packed 64 bits at a time (8d divides 64).
    const unsigned dbits = 8 * x.d, per_word = 64 / dbits;
    for (std::size_t i = 0; i < n; i += per_word) {
      std::uint64_t word = 0;
      const std::size_t m = std::min<std::size_t>(per_word, n - i);
      for (std::size_t j = i; j < i + m; ++j) {
        const bool explicit_base = (mask[j / 64] >> (63 - j % 64)) & 1u;
        word = (word << (dbits % 64)) | ((explicit_base ? v[j] - bv : v[j]) & low_mask(dbits));
      }
      w.write(word, static_cast<unsigned>(m * dbits));
    }
  }

  void decode(BitReader& in, std::uint32_t tag, std::uint8_t* out, std::size_t b) const override {
    const Delta* x = decode_head(in, tag, out, b);
    if (!x) return;
#if defined(MEMCOMP_X86_SIMD)
    const DecodeFn kernel = decode_avx2_[ceil_log2(b) - 4];
    if (kernel && simd_avx2()) return (this->*kernel)(in, x->id, out);
#endif
    decode_deltas(*x, in, out, b);
  }

  // decode's stream up to the deltas: the whole block if zero, repeated or raw (and nullptr),
  // else its encoding's Delta for a delta reader (the scalar one below or a kernel) to finish.
  // Inlined where b is a constant.
  [[gnu::always_inline]] const Delta* decode_head(BitReader& in, std::uint32_t tag, std::uint8_t* out,
                                                  std::size_t b) const {
    const int id = static_cast<int>(c_.encoding == EncBits::inband ? in.read(4) : tag);
    if (id == kZero) {
      if (in.read(c_.zero_bits) != 0) throw corrupt_stream("bdi zero block with non-zero payload");
      std::memset(out, 0, b);
    } else if ((id == kRep8) || (id == kRep4 && c_.repeat4)) {
      const unsigned k = id == kRep8 ? 8 : 4;
      const std::uint64_t v = in.read(8 * k);
      for (std::size_t i = 0; i < b; i += k) store_k(out + i, v, k, c_.endian);
    } else if (id == kRaw) {
      in.read_bytes(out, b);
    } else if (const Delta* x = find_delta(id)) {
      return x;
    } else {
      throw corrupt_stream("bdi encoding " + std::to_string(id) + " is not defined");
    }
    return nullptr;
  }

  // The scalar reader of delta encoding x.
  void decode_deltas(const Delta& x, BitReader& in, std::uint8_t* out, std::size_t b) const {
    const std::size_t n = b / x.k;
    std::uint64_t mask[2] = {0, 0};  // bit i (MSB first): element i is explicit
    for (std::size_t i = 0; i < n; i += 64) {
      const unsigned bits = static_cast<unsigned>(std::min<std::size_t>(64, n - i));
      mask[i / 64] = in.read(bits) << (64 - bits);
    }
    const std::uint64_t bv = in.read(8 * x.k);
    const unsigned dbits = 8 * x.d, per_word = 64 / dbits;
    for (std::size_t i = 0; i < n; i += per_word) {
      const std::size_t m = std::min<std::size_t>(per_word, n - i);
      const std::uint64_t word = in.read(static_cast<unsigned>(m * dbits));
      for (std::size_t j = i; j < i + m; ++j) {
        const std::uint64_t field = (word >> (dbits * (i + m - 1 - j))) & low_mask(dbits);
        const auto delta = static_cast<std::uint64_t>(sign_extend(field, dbits));
        const bool explicit_base = (mask[j / 64] >> (63 - j % 64)) & 1u;
        store_k(out + j * x.k, explicit_base ? bv + delta : delta, x.k, c_.endian);
      }
    }
  }

 private:
  std::uint32_t delta_bits(const Delta& x, std::size_t b) const {
    const std::size_t n = b / x.k;
    return static_cast<std::uint32_t>(8 * x.k * c_.bases + 8 * x.d * n + (c_.mask ? n : 0));
  }

  SizeBreakdown breakdown(int id, std::size_t b) const {
    SizeBreakdown s;
    s.mode = static_cast<std::int16_t>(id);
    s.header = enc_bits_;
    s.tag = c_.encoding == EncBits::tag ? 4u : 0u;
    if (id == kZero) {
      s.payload = c_.zero_bits;
    } else if (id == kRep8) {
      s.payload = 64;
    } else if (id == kRep4) {
      s.payload = 32;
    } else if (id == kRaw) {
      s.payload = static_cast<std::uint32_t>(8 * b);
    } else {
      const Delta& x = *find_delta(id);
      const std::size_t n = b / x.k;
      s.payload = static_cast<std::uint32_t>(8 * x.k * c_.bases + 8 * x.d * n);
      s.meta = c_.mask ? static_cast<std::uint32_t>(n) : 0u;
    }
    return s;
  }

  // Does the signed value v fit d bytes under the configured delta test?
  bool fits(std::int64_t v, unsigned d) const {
    const std::int64_t half = std::int64_t{1} << (8 * d - 1);
    switch (c_.delta_fit) {
      case Fit::signed_: return v >= -half && v < half;
      case Fit::symmetric: return v > -half && v < half;
      default: return v >= -(2 * half - 1) && v <= 2 * half - 1;
    }
  }
  // v is the element zero-extended to 64 bits.
  bool immediate(std::uint64_t v, unsigned k, unsigned d) const {
    return fits(c_.immediates == Ext::sign ? sign_extend(v, 8 * k) : static_cast<std::int64_t>(v), d);
  }
  bool delta_fits(std::uint64_t v, std::uint64_t base, unsigned k, unsigned d) const {
    const std::uint64_t diff = v - base;
    return fits(c_.immediates == Ext::sign ? sign_extend(diff, 8 * k) : static_cast<std::int64_t>(diff), d);
  }

  template <unsigned K>
  bool delta_ok(const std::uint8_t* blk, std::size_t b, unsigned d) const {
    const std::size_t n = b / K;
    std::size_t i = 0;
    std::uint64_t base = 0;
    for (; i < n; ++i) {
      const std::uint64_t v = load_k(blk + i * K, K, c_.endian);
      if (!immediate(v, K, d)) {
        base = v;
        break;
      }
    }
    for (++i; i < n; ++i) {
      const std::uint64_t v = load_k(blk + i * K, K, c_.endian);
      if (!immediate(v, K, d) && !delta_fits(v, base, K, d)) return false;
    }
    return true;
  }

  bool delta_ok(unsigned k, const std::uint8_t* blk, std::size_t b, unsigned d) const {
    return k == 8 ? delta_ok<8>(blk, b, d) : k == 4 ? delta_ok<4>(blk, b, d) : delta_ok<2>(blk, b, d);
  }

  bool candidate(int id, const std::uint8_t* blk, std::size_t b) const {
    switch (id) {
      case kZero: {
        std::uint64_t acc = 0;
        for (std::size_t i = 0; i < b; i += 8) acc |= load<std::uint64_t>(blk + i, Endian::little);
        return acc == 0;
      }
      case kRaw: return true;
      case kRep8:
      case kRep4: {
        const std::size_t k = id == kRep8 ? 8 : 4;
        for (std::size_t i = k; i < b; i += k)
          if (std::memcmp(blk, blk + i, k) != 0) return false;
        return true;
      }
      default: {
        const Delta& x = *find_delta(id);
        return delta_ok(x.k, blk, b, x.d);
      }
    }
  }

  // Ranking key of a candidate of `bits` in-band bits: smaller is better.
  std::int64_t key(std::uint32_t bits, std::size_t b) const {
    if (c_.winner == Winner::min_bits) return bits;
    return -static_cast<std::int64_t>(pow2_factor(bits, b, c_.fmax));
  }

  // Candidates for B-byte blocks that pass the member threshold, best key first, ties in the
  // configured order. A candidate's size depends only on (id, B), so the winner is the first
  // candidate in this list that fits the block.
  std::vector<int> rank(std::size_t b) const {
    std::vector<std::pair<std::int64_t, int>> keyed;
    const double limit = c_.member_threshold * 8.0 * static_cast<double>(b);
    for (int id : order_) {
      if (id == kRep4 && !c_.repeat4) continue;
      const std::uint32_t bits = breakdown(id, b).inband();
      if (id != kRaw && c_.member_threshold > 0 && static_cast<double>(bits) > limit) continue;
      keyed.emplace_back(key(bits, b), id);
    }
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<int> ids;
    ids.reserve(keyed.size());
    for (const auto& kv : keyed) ids.push_back(kv.second);
    return ids;
  }

  // Fit is monotone in d for a fixed k (a base found at a wider d is within two narrow deltas
  // of the narrow base), so the widest delta of each element size is tried first: if it fails,
  // every candidate of that size is skipped.
  int choose(const std::uint8_t* blk, std::size_t b) const {
#if defined(MEMCOMP_X86_SIMD)
    const std::size_t si = ceil_log2(b) - 4;
    if (choose_avx2_[si] && simd_avx2()) return (this->*choose_avx2_[si])(blk);
#endif
    unsigned tried = 0, alive = 0;  // bit k: widest delta of element size k tried / fits
    for (int id : ranked_[static_cast<std::size_t>(ceil_log2(b)) - 4]) {
      const Delta* x = find_delta(id);
      if (!x) {
        if (candidate(id, blk, b)) return id;
        continue;
      }
      const unsigned bit = 1u << x->k, dmax = x->k == 8 ? 4 : x->k == 4 ? 2 : 1;
      if (!(tried & bit)) {
        tried |= bit;
        if (delta_ok(x->k, blk, b, dmax)) alive |= bit;
      }
      if ((alive & bit) && (x->d == dmax || delta_ok(x->k, blk, b, x->d))) return id;
    }
    return kRaw;
  }

  // The fast paths: a block's candidates as a 9-bit mask (bit i: encoding id i, bit 8: rep4), the
  // winner of every mask per block size from the ranking, the sizes per encoding id, and the
  // AVX2 kernels where the configuration has them (sign-extended immediates, signed or
  // symmetric fit, B >= 32).
  void prepare_fast() {
    static constexpr int kIds[] = {kZero, kRep8, 2, 3, 4, 5, 6, 7, kRep4, kRaw};
    for (std::size_t si = 0; si < 5; ++si) {
      const std::size_t b = std::size_t{16} << si;
      for (int id : kIds) sizes_[si][static_cast<std::size_t>(id)] = breakdown(id, b);
      for (unsigned mask = 0; mask < 512; ++mask) {
        std::int8_t w = kRaw;  // raw always fits: the last resort
        for (int id : ranked_[si]) {
          if (id == kRaw || (mask >> (id == kRep4 ? 8 : id)) & 1u) {
            w = static_cast<std::int8_t>(id);
            break;
          }
        }
        winner_[si][mask] = w;
      }
    }
#if defined(MEMCOMP_X86_SIMD)
    const bool big = c_.endian == Endian::big;
    decode_avx2_[1] = big ? &BDI::decode_avx2<32, true> : &BDI::decode_avx2<32, false>;
    decode_avx2_[2] = big ? &BDI::decode_avx2<64, true> : &BDI::decode_avx2<64, false>;
    decode_avx2_[3] = big ? &BDI::decode_avx2<128, true> : &BDI::decode_avx2<128, false>;
    decode_avx2_[4] = big ? &BDI::decode_avx2<256, true> : &BDI::decode_avx2<256, false>;
    decode_range_avx2_[1] = big ? &BDI::decode_range_avx2<32, true> : &BDI::decode_range_avx2<32, false>;
    decode_range_avx2_[2] = big ? &BDI::decode_range_avx2<64, true> : &BDI::decode_range_avx2<64, false>;
    decode_range_avx2_[3] = big ? &BDI::decode_range_avx2<128, true> : &BDI::decode_range_avx2<128, false>;
    decode_range_avx2_[4] = big ? &BDI::decode_range_avx2<256, true> : &BDI::decode_range_avx2<256, false>;
    if (c_.immediates != Ext::sign || c_.delta_fit == Fit::magnitude) return;
    set_kernels<32>(1);
    set_kernels<64>(2);
    set_kernels<128>(3);
    set_kernels<256>(4);
#endif
  }

#if defined(MEMCOMP_X86_SIMD)
  using MeasureFn = void (BDI::*)(const BlockView&, std::size_t, std::size_t, const SizeColumns&) const;
  using ChooseFn = int (BDI::*)(const std::uint8_t*) const;
  using EncodeFn = std::uint32_t (BDI::*)(const std::uint8_t*, BitWriter&) const;
  using DecodeFn = void (BDI::*)(BitReader&, int, std::uint8_t*) const;
  using EncodeRangeFn = std::size_t (BDI::*)(const BlockView&, std::size_t, std::size_t, std::uint8_t*, std::size_t,
                                             EncodedBlocks&) const;
  using DecodeRangeFn = void (BDI::*)(const EncodedView&, std::uint8_t*, std::size_t, std::size_t) const;

  template <std::size_t B>
  void set_kernels(std::size_t si) {
    const bool sym = c_.delta_fit == Fit::symmetric, big = c_.endian == Endian::big;
    measure_avx2_[si] = sym ? (big ? &BDI::measure_avx2<B, true, true> : &BDI::measure_avx2<B, true, false>)
                            : (big ? &BDI::measure_avx2<B, false, true> : &BDI::measure_avx2<B, false, false>);
    choose_avx2_[si] = sym ? (big ? &BDI::choose_avx2<B, true, true> : &BDI::choose_avx2<B, true, false>)
                           : (big ? &BDI::choose_avx2<B, false, true> : &BDI::choose_avx2<B, false, false>);
    encode_avx2_[si] = sym ? (big ? &BDI::encode_block_avx2<B, true, true> : &BDI::encode_block_avx2<B, true, false>)
                           : (big ? &BDI::encode_block_avx2<B, false, true> : &BDI::encode_block_avx2<B, false, false>);
    encode_range_avx2_[si] =
        sym ? (big ? &BDI::encode_range_avx2<B, true, true> : &BDI::encode_range_avx2<B, true, false>)
            : (big ? &BDI::encode_range_avx2<B, false, true> : &BDI::encode_range_avx2<B, false, false>);
  }

  // The delta encodings of decode.
  template <std::size_t B, bool Big>
  MEMCOMP_AVX2_INLINE void decode_avx2(BitReader& in, int id, std::uint8_t* out) const {
    using namespace bdi_avx2;
    switch (id) {
      case 2: return read_deltas<B, 8, 1, Big>(in, out);
      case 3: return read_deltas<B, 8, 2, Big>(in, out);
      case 4: return read_deltas<B, 8, 4, Big>(in, out);
      case 5: return read_deltas<B, 4, 1, Big>(in, out);
      case 6: return read_deltas<B, 4, 2, Big>(in, out);
      default: return read_deltas<B, 2, 1, Big>(in, out);
    }
  }

  // encode_as with the AVX2 classification and delta writers.
  template <std::size_t B, bool Sym, bool Big>
  MEMCOMP_AVX2_INLINE std::uint32_t encode_block_avx2(const std::uint8_t* blk, BitWriter& w) const {
    using namespace bdi_avx2;
    const int id = classify_avx2<B, Sym, Big>(blk);
    if (const Delta* x = encode_head(id, blk, B, w)) {
      switch (x->id) {
        case 2: write_deltas<B, 8, 1, Sym, Big>(blk, w); break;
        case 3: write_deltas<B, 8, 2, Sym, Big>(blk, w); break;
        case 4: write_deltas<B, 8, 4, Sym, Big>(blk, w); break;
        case 5: write_deltas<B, 4, 1, Sym, Big>(blk, w); break;
        case 6: write_deltas<B, 4, 2, Sym, Big>(blk, w); break;
        default: write_deltas<B, 2, 1, Sym, Big>(blk, w); break;
      }
    }
    return tag_of(id);
  }

  // A range of blocks: the dispatch once, every block's encoder inline.
  template <std::size_t B, bool Sym, bool Big>
  MEMCOMP_AVX2 std::size_t encode_range_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                             std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) const {
    const std::size_t buf_bytes = range_bytes(begin, end, max_bytes);
    std::size_t at = 0;
    for (std::size_t i = begin; i < end; ++i) {
      BitWriter w = block_writer(buf, at, max_bytes, buf_bytes);
      const std::uint32_t tag = encode_block_avx2<B, Sym, Big>(blocks.block(i), w);
      at = record_block(enc, i, at, tag, w.finish());
    }
    return at;
  }
  template <std::size_t B, bool Big>
  MEMCOMP_AVX2 void decode_range_avx2(const EncodedView& enc, std::uint8_t* out, std::size_t begin,
                                      std::size_t end) const {
    std::size_t i = begin;
    try {
      for (; i < end; ++i) {
        BitReader r = block_reader(enc, i);
        std::uint8_t* o = out + i * B;
        if (const Delta* x = decode_head(r, enc.tags[i], o, B)) decode_avx2<B, Big>(r, x->id, o);
        if (r.remaining() != 0) trailing_bits(r.remaining());
      }
    } catch (const corrupt_stream& err) {
      in_block(i, err);
    }
  }

  template <std::size_t B, bool Sym, bool Big>
  MEMCOMP_AVX2 int choose_avx2(const std::uint8_t* blk) const {
    return classify_avx2<B, Sym, Big>(blk);
  }

  template <std::size_t B, bool Sym, bool Big>
  MEMCOMP_AVX2_INLINE int classify_avx2(const std::uint8_t* blk) const {
    using namespace bdi_avx2;
    constexpr std::size_t R = B / 32;
    __m256i v[R], x8[R], x4[R], x2[R];
    __m256i any = _mm256_setzero_si256(), same8 = _mm256_set1_epi8(-1), same4 = same8;
    const __m256i e8 = _mm256_permute4x64_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)), 0);
    const __m256i e4 = _mm256_broadcastd_epi32(_mm256_castsi256_si128(e8));
    for (std::size_t r = 0; r < R; ++r) {
      v[r] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r));
      any = _mm256_or_si256(any, v[r]);
      same8 = _mm256_and_si256(same8, _mm256_cmpeq_epi64(v[r], e8));
      same4 = _mm256_and_si256(same4, _mm256_cmpeq_epi32(v[r], e4));
      x8[r] = Big ? swap_lanes<8>(v[r]) : v[r];
      x4[r] = Big ? swap_lanes<4>(v[r]) : v[r];
      x2[r] = Big ? swap_lanes<2>(v[r]) : v[r];
    }
    if (_mm256_testz_si256(any, any)) return winner_[ceil_log2(B) - 4][511];  // zeros: every candidate fits
    // The widest delta of each element size first. A narrower delta that fits implies the wider
    // one fits (every delta from the narrower base is within twice its range of the wider base),
    // and so does a repeat of that element size (all deltas 0). So a block that fits none of the
    // three is raw (most blocks of real dumps, and in runs, so the branch predicts well), and the
    // narrower candidates of an element size are tried only if its widest one fits.
    unsigned cand = bdi_avx2::candidate_fits<B, 8, 4, Sym, Big>(x8, blk) << 4;
    cand |= bdi_avx2::candidate_fits<B, 4, 2, Sym, Big>(x4, blk) << 6;
    cand |= bdi_avx2::candidate_fits<B, 2, 1, Sym, Big>(x2, blk) << 7;
    if (cand == 0) return winner_[ceil_log2(B) - 4][0];
    if (cand & 1u << 4) {
      cand |= static_cast<unsigned>(_mm256_movemask_epi8(same8) == -1) << kRep8;
      cand |= bdi_avx2::candidate_fits<B, 8, 1, Sym, Big>(x8, blk) << 2;
      cand |= bdi_avx2::candidate_fits<B, 8, 2, Sym, Big>(x8, blk) << 3;
    }
    if (cand & 1u << 6) {
      cand |= static_cast<unsigned>(_mm256_movemask_epi8(same4) == -1) << 8;
      cand |= bdi_avx2::candidate_fits<B, 4, 1, Sym, Big>(x4, blk) << 5;
    }
    return winner_[ceil_log2(B) - 4][cand];
  }

  template <std::size_t B, bool Sym, bool Big>
  MEMCOMP_AVX2 void measure_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                 const SizeColumns& out) const {
    const auto& sizes = sizes_[ceil_log2(B) - 4];
    std::size_t i = begin;
    for (; i + 2 <= end; i += 2) {  // two independent blocks in flight: their dependency chains overlap
      const int a = classify_avx2<B, Sym, Big>(blocks.block(i));
      const int b = classify_avx2<B, Sym, Big>(blocks.block(i + 1));
      out.set(i, sizes[static_cast<std::size_t>(a)]);
      out.set(i + 1, sizes[static_cast<std::size_t>(b)]);
    }
    for (; i < end; ++i) out.set(i, sizes[static_cast<std::size_t>(classify_avx2<B, Sym, Big>(blocks.block(i)))]);
  }

  MeasureFn measure_avx2_[5] = {};
  ChooseFn choose_avx2_[5] = {};
  EncodeFn encode_avx2_[5] = {};
  DecodeFn decode_avx2_[5] = {};
  EncodeRangeFn encode_range_avx2_[5] = {};
  DecodeRangeFn decode_range_avx2_[5] = {};
#endif

  Config c_;
  std::vector<int> order_;
  std::vector<int> ranked_[5];  // per block size 16, 32, 64, 128, 256 B
  unsigned enc_bits_ = 0;
  std::int8_t winner_[5][512];  // per block size: the encoding id that wins a candidate mask
  SizeBreakdown sizes_[5][16];
};

std::unique_ptr<Codec> make_bdi(const Options& o) { return std::make_unique<BDI>(o); }

// BDI as the MPC authors' tool sizes it (scalable-arch/CAL_22-MPC src/compressor/BDI.cpp;
// accounting-only: its immediate and delta ranges overlap in d bytes, so no stream decodes).
//   * all bytes zero: 8 bits; else all 8-byte words equal: 64 bits; else the smallest of raw (8B)
//     and the six (k, d) candidates in the order (8,1) (8,2) (8,4) (4,1) (4,2) (2,1), strictly
//     smaller wins; every block then adds 4 encoding bits.
//   * elements are little-endian k-byte values zero-extended to 64 bits (the tool's "sign
//     extension" masks nothing), so only 8-byte elements can be negative.
//   * x fits d bytes iff, as a signed 64-bit value, x is in [-2^(8d-1), 2^(8d) - 1] and x != -1
//     (its reduceSign). Immediates: elements that fit. The base is the first other element; the
//     others need base - x (wrapping) to fit.
//   * all fit: n mask bits + 8(k + (n-1)d) (no delta for the base); otherwise the candidate is
//     still charged n + 8(m d + (n - m) k) for m immediates (the others at full width).
class BdiCal22 final : public CodecImpl<BdiCal22> {
 public:
  explicit BdiCal22(const Options& o) { no_options().parse(o, "bdi"); }
  Options options() const override { return no_options().write({}); }
  bool exact() const override { return false; }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 8 * b + 4; }
  std::vector<ModeName> modes() const override {
    return {{0, "zeros"}, {1, "rep8"}, {2, "b8d1"}, {3, "b8d2"}, {4, "b8d4"},
            {5, "b4d1"},  {6, "b4d2"}, {7, "b2d1"}, {15, "raw"}};
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    s.header = 4;
    bool zero = true, rep = true;
    for (std::size_t i = 0; i < b; ++i) zero = zero && blk[i] == 0;
    for (std::size_t i = 8; i < b && rep; i += 8) rep = std::memcmp(blk, blk + i, 8) == 0;
    if (zero || rep) {
      s.payload = zero ? 8 : 64;
      s.mode = static_cast<std::int16_t>(zero ? kZero : kRep8);
      return s;
    }
    std::uint32_t best = static_cast<std::uint32_t>(8 * b), best_meta = 0;
    int id = kRaw;
    for (const Delta& x : kDeltas) {
      std::uint32_t meta, payload;
      candidate(blk, b, x, meta, payload);
      if (meta + payload < best + best_meta) {
        best = payload;
        best_meta = meta;
        id = x.id;
      }
    }
    s.payload = best;
    s.meta = best_meta;
    s.mode = static_cast<std::int16_t>(id);
    return s;
  }

 private:
  static bool fits(std::uint64_t x, unsigned d) {  // reduceSign(x) <= 2^(8d) - 1
    const auto v = static_cast<std::int64_t>(x);
    return v >= -(std::int64_t{1} << (8 * d - 1)) && v <= static_cast<std::int64_t>(low_mask(8 * d)) && v != -1;
  }
  static void candidate(const std::uint8_t* blk, std::size_t b, const Delta& x, std::uint32_t& meta,
                        std::uint32_t& payload) {
    const std::size_t n = b / x.k;
    std::size_t m = 0;
    bool have_base = false, all_fit = true;
    std::uint64_t base = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t v = load_k(blk + i * x.k, x.k, Endian::little);
      if (fits(v, x.d)) {
        ++m;
      } else if (!have_base) {
        have_base = true;
        base = v;
      } else if (all_fit && !fits(base - v, x.d)) {
        all_fit = false;
      }
    }
    meta = static_cast<std::uint32_t>(n);
    payload = static_cast<std::uint32_t>(all_fit ? 8 * (x.k + (n - 1) * x.d) : 8 * (m * x.d + (n - m) * x.k));
  }
};

std::unique_ptr<Codec> make_bdi_cal22(const Options& o) { return std::make_unique<BdiCal22>(o); }

// BDI as NAP64's bdi plugin sizes a 64 B line (NAP64/Memory-Compression-Measurements-Open@eefc809,
// include/bdi.h bdiCompressData, src/compression/bdi.c; SPEC 1.1 generalised by that tool):
//   * a 1-byte header (the encoding code) opens every coded line (bdi.h:172-361): all bytes zero
//     cost 8 bits (170-174); a line of one repeated nonzero 1-, 2-, 4- or 8-byte pattern costs
//     8 + the pattern (175-198; R1, R2, R4, R8 of 109-115 and 158-167).
//   * delta candidates (k, d) over k-byte elements read little-endian or big-endian (norm and
//     endian, 17-33; both orders tried, little first): without immediates the base is the
//     smallest element and every element must lie in [base, base + 2^(8d) - 1] (110-115,
//     119-160 for the minimum, 199-239 for the test); with immediates an element <= 2^(8d) - 1
//     is an immediate, the base is the smallest other one, every other one lies in
//     [base, base + 2^(8d) - 1] and an n-bit mask says which are which (bdicompress, 36-64).
//     Unsigned comparisons throughout (no sign extension).
//   * the first candidate that fits, in the order of 242-361, wins; sizes in bytes (header,
//     mask, base, n deltas): b8d1 17, b8d1i 18, b4d1 21, b4d1i 23, b8d2 25, b8d2i 27, b2d1 35,
//     b4d2 37, b4d2i 39, b2d1i 39, b8d4 41, b8d4i 42, each little-endian then big-endian.
//     Otherwise the line is raw: 64 bytes, no header (363-366).
//   * three slips of the tool are kept, as they decide its sizes: b8d2i is charged 27 bytes for
//     its 26 (289-300; the stream carries a zero byte there); the big-endian b2d1 and b2d1i are
//     guarded by b8d2's flags (308, 338), so they never win; the big-endian b4d2i base is chosen
//     among the elements whose little-endian value exceeds 0xffff (150-151).
//   * the plugin caps a line at 64 bytes unless run with -p (bdi.c:30-31); no line exceeds it,
//     so both give the same sizes.
// Other block sizes (ours): n = B/k elements, the mask rounded up to whole bytes, the same
// order, a candidate not smaller than the block skipped, raw 8B bits.
// Stream (exact): [code:8][mask:n, element 0 first, 1 = base-relative][base:8k][n x 8d] with
// immediates stored as themselves, others less the base (bdicompress's fields); a repeated
// line its pattern, a zero line nothing, b8d2i one zero byte at the end. The raw flag lives in
// the tag (1 bit; NAP64 charges none for it), a raw line is its 8B bits.
class BdiNap64 final : public CodecImpl<BdiNap64> {
 public:
  explicit BdiNap64(const Options& o) { no_options().parse(o, "bdi"); }
  Options options() const override { return no_options().write({}); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 8 * b; }
  std::vector<ModeName> modes() const override {
    std::vector<ModeName> m = {{0, "zeros"}, {1, "rep1"}, {2, "rep2"}, {3, "rep4"}, {4, "rep8"}};
    for (const Cand& c : kCands) m.push_back({static_cast<std::int16_t>(c.code), name_of(c)});
    m.push_back({kRawCode, "raw"});
    return m;
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override { return breakdown(choose(blk, b), b); }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
    const int code = choose(blk, b);
    if (code == kRawCode) {
      w.write_bytes(blk, b);
      return 1;
    }
    w.write(static_cast<std::uint64_t>(code), 8);
    if (code == 0) return 0;
    if (code <= 4) {
      const unsigned k = 1u << (code - 1);
      w.write(load_k(blk, k, Endian::little), 8 * k);
      return 0;
    }
    const Cand& c = *find(code);
    const std::size_t n = b / c.k;
    std::uint64_t v[128];
    load(c, blk, b, v);
    const std::uint64_t lim = low_mask(8 * c.d), base = base_of(c, blk, b, v);
    if (c.imm) {
      for (std::size_t i = 0; i < n; ++i) w.write_bit(v[i] > lim);
      w.write(0, mask_pad(n));
    }
    w.write(base, 8 * c.k);
    for (std::size_t i = 0; i < n; ++i) w.write((c.imm && v[i] <= lim ? v[i] : v[i] - base) & lim, 8 * c.d);
    if (c.pad) w.write(0, 8);
    return 0;
  }

  void decode(BitReader& in, std::uint32_t tag, std::uint8_t* out, std::size_t b) const override {
    if (tag > 1) throw corrupt_stream("bdi.nap64 tag " + std::to_string(tag) + " is not a raw flag");
    if (tag == 1) return in.read_bytes(out, b);
    const int code = static_cast<int>(in.read(8));
    if (code == 0) {
      std::memset(out, 0, b);
      return;
    }
    if (code <= 4) {
      const unsigned k = 1u << (code - 1);
      const std::uint64_t v = in.read(8 * k);
      if (v == 0) throw corrupt_stream("bdi.nap64 repeated pattern of zeros (a zero line has code 0)");
      for (std::size_t i = 0; i < b; i += k) store_k(out + i, v, k, Endian::little);
      return;
    }
    const Cand* c = find(code);
    if (!c || bytes_of(*c, b) >= b)
      throw corrupt_stream("bdi.nap64 code " + std::to_string(code) + " is not one NAP64's bdi writes at " +
                           std::to_string(b) + " B");
    const std::size_t n = b / c->k;
    bool rel[128];
    for (std::size_t i = 0; i < n; ++i) rel[i] = !c->imm || in.read_bit();
    if (c->imm && in.read(mask_pad(n)) != 0) throw corrupt_stream("bdi.nap64 mask padding is not zero");
    const std::uint64_t base = in.read(8 * c->k);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t f = in.read(8 * c->d);
      const bool r = rel[i];
      store_k(out + i * c->k, r ? base + f : f, c->k, c->big ? Endian::big : Endian::little);
    }
    if (c->pad && in.read(8) != 0) throw corrupt_stream("bdi.nap64 b8d2i pad byte is not zero");
  }

 private:
  static constexpr int kRawCode = 255;
  struct Cand {
    int code;
    unsigned k, d;
    bool imm, big;
    unsigned bytes;  // NAP64's size at 64 B
    unsigned pad;    // bytes charged beyond the fields (b8d2i)
  };
  // Bits that round an n-bit mask up to whole bytes (none at 64 B).
  static unsigned mask_pad(std::size_t n) { return static_cast<unsigned>((8 - n % 8) % 8); }
  // Bytes of candidate c at b bytes: code, mask, base, deltas, pad (= c.bytes at 64 B).
  static std::size_t bytes_of(const Cand& c, std::size_t b) {
    const std::size_t n = b / c.k;
    return 1 + (c.imm ? (n + 7) / 8 : 0) + c.k + n * c.d + c.pad;
  }
  // bdi.h:242-361 in order; the big-endian b2d1 (26) and b2d1i (28) never win (308, 338).
  static constexpr Cand kCands[] = {
      {5, 8, 1, false, false, 17, 0},  {6, 8, 1, false, true, 17, 0},   {11, 8, 1, true, false, 18, 0},
      {12, 8, 1, true, true, 18, 0},   {17, 4, 1, false, false, 21, 0}, {18, 4, 1, false, true, 21, 0},
      {21, 4, 1, true, false, 23, 0},  {22, 4, 1, true, true, 23, 0},   {7, 8, 2, false, false, 25, 0},
      {8, 8, 2, false, true, 25, 0},   {13, 8, 2, true, false, 27, 1},  {14, 8, 2, true, true, 27, 1},
      {25, 2, 1, false, false, 35, 0}, {19, 4, 2, false, false, 37, 0}, {20, 4, 2, false, true, 37, 0},
      {23, 4, 2, true, false, 39, 0},  {24, 4, 2, true, true, 39, 0},   {27, 2, 1, true, false, 39, 0},
      {9, 8, 4, false, false, 41, 0},  {10, 8, 4, false, true, 41, 0},  {15, 8, 4, true, false, 42, 0},
      {16, 8, 4, true, true, 42, 0}};

  static const Cand* find(int code) {
    for (const Cand& c : kCands)
      if (c.code == code) return &c;
    return nullptr;
  }
  static std::string name_of(const Cand& c) {
    return "b" + std::to_string(c.k) + "d" + std::to_string(c.d) + (c.imm ? "i" : "") + (c.big ? ".be" : "");
  }
  static void load(const Cand& c, const std::uint8_t* blk, std::size_t b, std::uint64_t* v) {
    for (std::size_t i = 0; i < b / c.k; ++i) v[i] = load_k(blk + i * c.k, c.k, c.big ? Endian::big : Endian::little);
  }
  // The base: the smallest element, or with immediates bdi.h's running choice (119-160): start
  // from element 0 and take element i (i >= 1) unless the base so far is above the immediate
  // range and smaller. The big-endian b4d2i takes element i when its little-endian value is
  // above 0xffff (150-151).
  static std::uint64_t base_of(const Cand& c, const std::uint8_t* blk, std::size_t b, const std::uint64_t* v) {
    const std::size_t n = b / c.k;
    std::uint64_t base = v[0];
    const std::uint64_t lim = low_mask(8 * c.d);
    for (std::size_t i = 1; i < n; ++i) {
      if (!c.imm) {
        base = std::min(base, v[i]);
        continue;
      }
      const std::uint64_t sel = c.code == 24 ? load_k(blk + i * c.k, c.k, Endian::little) : v[i];
      if (sel > lim) base = (base < v[i] && base > lim) ? base : v[i];
    }
    return base;
  }
  static bool fits(const Cand& c, const std::uint8_t* blk, std::size_t b) {
    std::uint64_t v[128];
    load(c, blk, b, v);
    const std::uint64_t lim = low_mask(8 * c.d), base = base_of(c, blk, b, v);
    if (c.imm && base == 0) return false;  // bdi.h's `if (!!B8D1i)`: the base doubles as the flag
    for (std::size_t i = 0; i < b / c.k; ++i)
      if (!(c.imm && v[i] <= lim) && ((v[i] - base) & low_mask(8 * c.k)) > lim) return false;
    return true;
  }
  static int choose(const std::uint8_t* blk, std::size_t b) {
    bool zero = true, rep[4] = {true, true, true, true};  // 1, 2, 4, 8 bytes
    for (std::size_t i = 0; i < b; ++i) zero = zero && blk[i] == 0;
    if (zero) return 0;
    for (unsigned j = 0; j < 4; ++j) {
      const std::size_t k = std::size_t{1} << j;
      for (std::size_t i = k; i < b && rep[j]; i += k) rep[j] = std::memcmp(blk, blk + i, k) == 0;
      if (rep[j]) return static_cast<int>(j) + 1;
    }
    for (const Cand& c : kCands)
      if (bytes_of(c, b) < b && fits(c, blk, b)) return c.code;
    return kRawCode;
  }
  static SizeBreakdown breakdown(int code, std::size_t b) {
    SizeBreakdown s;
    s.mode = static_cast<std::int16_t>(code);
    s.tag = 1;
    if (code == kRawCode) {
      s.payload = static_cast<std::uint32_t>(8 * b);
      return s;
    }
    s.header = 8;
    if (code == 0) return s;
    if (code <= 4) {
      s.payload = 8u << (code - 1);
      return s;
    }
    const Cand& c = *find(code);
    const unsigned n = static_cast<unsigned>(b / c.k);
    s.meta = c.imm ? n + mask_pad(n) : 0u;
    s.payload = 8 * (c.k + n * c.d);
    s.header += 8 * c.pad;
    return s;
  }
};

std::unique_ptr<Codec> make_bdi_nap64(const Options& o) { return std::make_unique<BdiNap64>(o); }

}  // namespace

void add_bdi_presets(std::vector<Preset>& out) {
  using S = std::string;
  out.push_back({"bdi.paper",
                 "bdi",
                 "PACT'12 Table 2 payloads, n-bit base mask, encoding in tags, minimum bits",
                 "none",
                 {},
                 true,
                 &make_bdi,
                 &space_of<bdi_table>});
  out.push_back({"bdi.gem5",
                 "bdi",
                 "gem5 BDI Multi: symmetric deltas, zero block 0 bits, per-member 99% threshold, power-of-two winner",
                 "threshold(0.5)",
                 {{"delta_fit", S("symmetric")},
                  {"zero_bits", std::int64_t{0}},
                  {"winner", S("pow2")},
                  {"member_threshold", 0.99}},
                 false,
                 &make_bdi,
                 &space_of<bdi_table>});
  out.push_back({"bdi.kim",
                 "bdi",
                 "scalable-arch model: zero-extended immediates, 4-bit encoding in-band",
                 "none",
                 {{"immediates", S("zero")}, {"encoding", S("inband")}, {"order", S("kim")}},
                 false,
                 &make_bdi,
                 &space_of<bdi_table>});
  out.push_back({"bdi.cmu",
                 "bdi",
                 "CMU-SAFARI byte model: unsigned-magnitude deltas, two bases charged, no metadata (accounting-only)",
                 "cap+bytes",
                 {{"immediates", S("zero")},
                  {"delta_fit", S("magnitude")},
                  {"repeat4", true},
                  {"mask", false},
                  {"bases", std::int64_t{2}},
                  {"encoding", S("none")},
                  {"order", S("cmu")}},
                 false,
                 &make_bdi,
                 &space_of<bdi_table>});
  out.push_back({"bdi.cal22",
                 "bdi",
                 "the MPC authors' tool (CAL_22-MPC): a candidate whose elements do not all fit is charged mask + "
                 "immediates + the others at full width; fit = [-2^(8d-1), 2^(8d)-1] except -1; +4 bits "
                 "(accounting-only)",
                 "none",
                 {},
                 false,
                 &make_bdi_cal22,
                 &space_of<no_options>});
  out.push_back({"bdi.nap64",
                 "bdi",
                 "NAP64 bdi plugin on 64 B lines: 8-bit code, smallest element as base, unsigned deltas in both byte "
                 "orders, repeated 1/2/4/8-byte patterns, whole-byte sizes, raw 64 B; capped as NAP64 reports",
                 "threshold(1)",
                 {},
                 false,
                 &make_bdi_nap64,
                 &space_of<no_options>});
}

}  // namespace memcomp
