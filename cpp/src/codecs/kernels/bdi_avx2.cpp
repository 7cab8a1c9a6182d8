// memcomp codecs: BDI's AVX2 kernels (kernels/bdi.hpp): the classification of a block (every
// candidate's fit at once), the sizes, and the delta encodings packed and unpacked by byte shuffles.
#include "bdi.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include <cstring>

namespace memcomp {
namespace {

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

using namespace bdi_avx2;
using bdi::kRep8;

template <std::size_t B, bool Sym, bool Big>
MEMCOMP_AVX2_INLINE int classify_avx2(const std::int8_t* winner, const std::uint8_t* blk) {
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
  if (_mm256_testz_si256(any, any)) return winner[511];  // zeros: every candidate fits
  // The widest delta of each element size first. A narrower delta that fits implies the wider
  // one fits (every delta from the narrower base is within twice its range of the wider base),
  // and so does a repeat of that element size (all deltas 0). So a block that fits none of the
  // three is raw (most blocks of real dumps, and in runs, so the branch predicts well), and the
  // narrower candidates of an element size are tried only if its widest one fits.
  unsigned cand = candidate_fits<B, 8, 4, Sym, Big>(x8, blk) << 4;
  cand |= candidate_fits<B, 4, 2, Sym, Big>(x4, blk) << 6;
  cand |= candidate_fits<B, 2, 1, Sym, Big>(x2, blk) << 7;
  if (cand == 0) return winner[0];
  if (cand & 1u << 4) {
    cand |= static_cast<unsigned>(_mm256_movemask_epi8(same8) == -1) << kRep8;
    cand |= candidate_fits<B, 8, 1, Sym, Big>(x8, blk) << 2;
    cand |= candidate_fits<B, 8, 2, Sym, Big>(x8, blk) << 3;
  }
  if (cand & 1u << 6) {
    cand |= static_cast<unsigned>(_mm256_movemask_epi8(same4) == -1) << 8;
    cand |= candidate_fits<B, 4, 1, Sym, Big>(x4, blk) << 5;
  }
  return winner[cand];
}

template <std::size_t B, bool Sym, bool Big>
MEMCOMP_AVX2 void measure_avx2(const std::int8_t* winner, const SizeBreakdown* sizes, const BlockView& blocks,
                               std::size_t begin, std::size_t end, const SizeColumns& out) {
  std::size_t i = begin;
  for (; i + 2 <= end; i += 2) {  // two independent blocks in flight: their dependency chains overlap
    const int a = classify_avx2<B, Sym, Big>(winner, blocks.block(i));
    const int b = classify_avx2<B, Sym, Big>(winner, blocks.block(i + 1));
    out.set(i, sizes[static_cast<std::size_t>(a)]);
    out.set(i + 1, sizes[static_cast<std::size_t>(b)]);
  }
  for (; i < end; ++i) out.set(i, sizes[static_cast<std::size_t>(classify_avx2<B, Sym, Big>(winner, blocks.block(i)))]);
}

// The delta encodings of decode.
template <std::size_t B, bool Big>
MEMCOMP_AVX2_INLINE void decode_avx2(int id, BitReader& in, std::uint8_t* out) {
  switch (id) {
    case 2: return read_deltas<B, 8, 1, Big>(in, out);
    case 3: return read_deltas<B, 8, 2, Big>(in, out);
    case 4: return read_deltas<B, 8, 4, Big>(in, out);
    case 5: return read_deltas<B, 4, 1, Big>(in, out);
    case 6: return read_deltas<B, 4, 2, Big>(in, out);
    default: return read_deltas<B, 2, 1, Big>(in, out);
  }
}

template <std::size_t B, bool Sym, bool Big>
MEMCOMP_AVX2 int classify_fn(const std::int8_t* winner, const std::uint8_t* blk) {
  return classify_avx2<B, Sym, Big>(winner, blk);
}

// The delta writer of encoding id (2..7), encode_as's after the classification.
template <std::size_t B, bool Sym, bool Big>
MEMCOMP_AVX2_INLINE void write_avx2(int id, const std::uint8_t* blk, BitWriter& w) {
  switch (id) {
    case 2: write_deltas<B, 8, 1, Sym, Big>(blk, w); break;
    case 3: write_deltas<B, 8, 2, Sym, Big>(blk, w); break;
    case 4: write_deltas<B, 8, 4, Sym, Big>(blk, w); break;
    case 5: write_deltas<B, 4, 1, Sym, Big>(blk, w); break;
    case 6: write_deltas<B, 4, 2, Sym, Big>(blk, w); break;
    default: write_deltas<B, 2, 1, Sym, Big>(blk, w); break;
  }
}

// A range of blocks: the dispatch once, every block's classification, head and deltas inline.
template <std::size_t B, bool Sym, bool Big>
MEMCOMP_AVX2 std::size_t encode_range_avx2(const bdi::Framing& f, const std::int8_t* winner, const BlockView& blocks,
                                           std::size_t begin, std::size_t end, std::uint8_t* buf, std::size_t max_bytes,
                                           EncodedBlocks& enc) {
  const std::size_t buf_bytes = batch::range_bytes(begin, end, max_bytes);
  std::size_t at = 0;
  for (std::size_t i = begin; i < end; ++i) {
    BitWriter w = batch::block_writer(buf, at, max_bytes, buf_bytes);
    const std::uint8_t* blk = blocks.block(i);
    const int id = classify_avx2<B, Sym, Big>(winner, blk);
    if (const bdi::Delta* x = f.encode_head(id, blk, B, w)) write_avx2<B, Sym, Big>(x->id, blk, w);
    at = batch::record_block(enc, i, at, f.tag_of(id), w.finish());
  }
  return at;
}

template <std::size_t B, bool Big>
MEMCOMP_AVX2 std::size_t decode_range_avx2(const bdi::Framing& f, const EncodedView& enc, std::uint8_t* out,
                                           std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  try {
    for (; i < end; ++i) {
      BitReader r = batch::block_reader(enc, i);
      std::uint8_t* o = out + i * B;
      if (const bdi::Delta* x = f.decode_head(r, enc.tags[i], o, B)) decode_avx2<B, Big>(x->id, r, o);
      if (r.remaining() != 0) break;
    }
  } catch (const corrupt_stream&) {
  }
  return i;
}

// The kernels of a block size and configuration, as the table holds them.
template <std::size_t B>
constexpr BdiKernels::BySize by_size() {
  BdiKernels::BySize k{};
  k.measure[0][0] = &measure_avx2<B, false, false>;
  k.measure[0][1] = &measure_avx2<B, false, true>;
  k.measure[1][0] = &measure_avx2<B, true, false>;
  k.measure[1][1] = &measure_avx2<B, true, true>;
  k.classify[0][0] = &classify_fn<B, false, false>;
  k.classify[0][1] = &classify_fn<B, false, true>;
  k.classify[1][0] = &classify_fn<B, true, false>;
  k.classify[1][1] = &classify_fn<B, true, true>;
  k.write[0][0] = &write_avx2<B, false, false>;
  k.write[0][1] = &write_avx2<B, false, true>;
  k.write[1][0] = &write_avx2<B, true, false>;
  k.write[1][1] = &write_avx2<B, true, true>;
  k.read[0] = &decode_avx2<B, false>;
  k.read[1] = &decode_avx2<B, true>;
  k.encode_range[0][0] = &encode_range_avx2<B, false, false>;
  k.encode_range[0][1] = &encode_range_avx2<B, false, true>;
  k.encode_range[1][0] = &encode_range_avx2<B, true, false>;
  k.encode_range[1][1] = &encode_range_avx2<B, true, true>;
  k.decode_range[0] = &decode_range_avx2<B, false>;
  k.decode_range[1] = &decode_range_avx2<B, true>;
  return k;
}

}  // namespace

const BdiKernels kBdiAvx2 = {{by_size<32>(), by_size<64>(), by_size<128>(), by_size<256>()}};

}  // namespace memcomp
#endif
