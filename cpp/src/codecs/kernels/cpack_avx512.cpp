// memcomp codecs: C-Pack's AVX-512 kernels (kernels/cpack.hpp): measure_groups and encode_range
// with 16 blocks side by side as the lanes of a 512-bit register (the AVX2 tier takes 8,
// cpack_avx2.cpp). A word's search is a minimum over the earlier words still in its dictionary,
// masked by a compare of the push count, and its code a permute of its rank. The tier's table
// (kCpackAvx512) is in cpack_avx2.cpp, beside the AVX2 one it takes every other entry from. The
// gathers, permutes and shifts are the zero-masked forms: GCC 12's unmasked ones read an
// undefined register (-Wmaybe-uninitialized).
#include "cpack.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include "memcomp/codecs/lanes.hpp"

namespace memcomp {
namespace {

using namespace cpack;

// The per-code vectors (zzzz, xxxx, mmmm, mmxx, zzzx, mmmx) from the format's tables.
struct ByCode16 {
  alignas(64) std::int32_t payload[16] = {}, bits[16] = {}, prefix[16] = {}, match[16] = {}, low_bits[16] = {},
                           low_mask[16] = {}, has_index[16] = {};
  constexpr ByCode16() {
    for (unsigned c = 0; c < 6; ++c) {
      const unsigned lb = kLowBits[c];
      payload[c] = static_cast<std::int32_t>(kPayload[c]);
      bits[c] = static_cast<std::int32_t>(kMeta[c] + kPayload[c]);
      prefix[c] = static_cast<std::int32_t>(kPrefix[c]);
      match[c] = static_cast<std::int32_t>(kMatchMask[c] ^ 0x80000000u) ^ static_cast<std::int32_t>(0x80000000u);
      low_bits[c] = lb < 32 ? static_cast<std::int32_t>(lb) : 0;
      low_mask[c] = lb == 32 ? -1 : static_cast<std::int32_t>((1u << lb) - 1);
      has_index[c] = cpack::has_index(c) ? -1 : 0;
    }
  }
};
constexpr ByCode16 kByCode16{};

// Measures 16 blocks of N words (8 to 64) at base + k * stride, as the AVX2 tier's measure_lanes
// does 8: the word of push s stays while the pushes are at most s + keep (keep 16 for a fifo or
// deque, else forever, pushes stopping at cap), init=zeros' entry in slot p while they are at
// most p. Block k's payload and meta bits go to payload[k] and meta[k].
template <std::size_t N>
MEMCOMP_AVX512 void measure_lanes16(const std::uint8_t* base, std::size_t stride, const CpackShape& s, unsigned cap,
                                    std::uint32_t* payload, std::uint32_t* meta) {
  static_assert(N % 8 == 0 && N <= kMaxEntries, "8 to 64 words");
  alignas(64) std::int32_t pushed[16] = {};
  for (unsigned c = 0; c < 6; ++c) pushed[c] = (s.push_mask >> c) & 1u ? -1 : 0;
  const __m512i push = _mm512_load_si512(pushed);
  const __m512i pay_of = _mm512_load_si512(kByCode16.payload), bits_of = _mm512_load_si512(kByCode16.bits);
  // By rank (0..3) + 4 if bits 31..8 of the word are zero: its code unless the word is zero.
  const __m512i by_rank =
      _mm512_setr_epi32(kMMMM, kMMMX, kMMXX, kXXXX, kMMMM, kZZZX, kZZZX, kZZZX, 0, 0, 0, 0, 0, 0, 0, 0);
  const bool evicts = s.dict == Dict::fifo || s.dict == Dict::deque;
  const __m512i keep = _mm512_set1_epi32(evicts ? static_cast<int>(kSlots) : 0x7FFFFF00);
  const __m512i capv = _mm512_set1_epi32(evicts ? 0x7FFFFF00 : static_cast<int>(cap));
  const __m512i one = _mm512_set1_epi32(1), three = _mm512_set1_epi32(3), four = _mm512_set1_epi32(4);
  const __m512i ones = _mm512_set1_epi32(-1), fifteen = _mm512_set1_epi32(kSlots - 1);
  const __m512i at = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                        _mm512_set1_epi32(static_cast<int>(stride / 4)));
  const __m512i bswap = _mm512_set4_epi32(0x0C0D0E0F, 0x08090A0B, 0x04050607, 0x00010203);
  __m512i word[N], last[N];
  for (std::size_t i = 0; i < N; ++i) {
    const __m512i w = _mm512_mask_i32gather_epi32(
        _mm512_setzero_si512(), 0xFFFF, _mm512_add_epi32(at, _mm512_set1_epi32(static_cast<int>(i))), base, 4);
    word[i] = s.big ? _mm512_shuffle_epi8(w, bswap) : w;
  }
  const __mmask16 zeros = s.zeros ? 0xFFFF : 0;
  __m512i count = _mm512_setzero_si512(), pay = count, bits = count;
  for (std::size_t i = 0; i < N; ++i) {
    const __m512i w = word[i];
    // The zero entries (w ^ 0) while some is there.
    __m512i m = _mm512_mask_mov_epi32(ones, zeros & _mm512_cmple_epi32_mask(count, fifteen), w);
    for (std::size_t j = 0; j < i; ++j)
      m = _mm512_mask_min_epu32(m, _mm512_cmple_epi32_mask(count, last[j]), m, _mm512_xor_si512(w, word[j]));
    // rank: 3 less one for each of m == 0, m < 2^8, m < 2^16.
    __m512i r = three;
    r = _mm512_mask_sub_epi32(r, _mm512_cmplt_epu32_mask(m, _mm512_set1_epi32(0x10000)), r, one);
    r = _mm512_mask_sub_epi32(r, _mm512_cmplt_epu32_mask(m, _mm512_set1_epi32(0x100)), r, one);
    r = _mm512_mask_sub_epi32(r, _mm512_cmpeq_epi32_mask(m, _mm512_setzero_si512()), r, one);
    r = _mm512_mask_or_epi32(r, _mm512_cmplt_epu32_mask(w, _mm512_set1_epi32(0x100)), r, four);
    const __m512i c = _mm512_maskz_permutexvar_epi32(_mm512_test_epi32_mask(w, w), r, by_rank);  // zzzz = 0
    pay = _mm512_add_epi32(pay, _mm512_maskz_permutexvar_epi32(0xFFFF, c, pay_of));
    bits = _mm512_add_epi32(bits, _mm512_maskz_permutexvar_epi32(0xFFFF, c, bits_of));
    const __mmask16 p = _mm512_test_epi32_mask(_mm512_maskz_permutexvar_epi32(0xFFFF, c, push), ones) &
                        _mm512_cmplt_epi32_mask(count, capv);
    last[i] = _mm512_mask_add_epi32(ones, p, count, keep);
    count = _mm512_mask_add_epi32(count, p, count, one);
  }
  _mm512_storeu_si512(payload, pay);
  _mm512_storeu_si512(meta, _mm512_sub_epi32(bits, pay));
}

template <std::size_t N>
MEMCOMP_AVX512 std::size_t groups16(const CpackShape& s, const BlockView& blocks, std::size_t begin, std::size_t end,
                                    const SizeColumns& out) {
  const unsigned cap = s.dict == Dict::block ? static_cast<unsigned>(N) : kSlots;
  alignas(64) std::uint32_t payload[16], meta[16];
  std::size_t i = begin;
  for (; i + 16 <= end; i += 16) {
    measure_lanes16<N>(blocks.block(i), N * 4, s, cap, payload, meta);
    set_lane_sizes(out, i, 16, payload, meta);
  }
  return i;
}

// Codes 16 blocks of N words (8 to 64) at base + k * stride, as the AVX2 tier's encode_lanes
// does 8, in two steps a word: the best match's rank (the masked minimum of measure_lanes16),
// then the lowest position among the live entries that match under the code's mask (the zero
// entries from slot `count`), which orders their indices (a fifo's slot s mod 16; a deque's
// s + 16, by age once full or with zero entries). Lanes 0..7's tokens go to tok[0], 8..15's to
// tok[1] (step-major, 8 a step; with mc every prefix, then every field, as steps N..2N-1).
// Lanes 0..7 (h = 0) or 8..15 (h = 1) of x (the immediate spelled out: a debug build keeps h a variable).
MEMCOMP_AVX512_INLINE __m256i half(__m512i x, int h) {
  return h ? _mm512_maskz_extracti64x4_epi64(0xF, x, 1) : _mm512_maskz_extracti64x4_epi64(0xF, x, 0);
}

template <std::size_t N>
MEMCOMP_AVX512 void encode_lanes16(const std::uint8_t* base, std::size_t stride, const CpackShape& s,
                                   std::uint64_t* const* tok, std::uint32_t* const* len) {
  static_assert(N % 8 == 0 && N <= kMaxEntries, "8 to 64 words");
  alignas(64) std::int32_t pushed[16] = {};
  for (unsigned c = 0; c < 6; ++c) pushed[c] = (s.push_mask >> c) & 1u ? -1 : 0;
  const __m512i push = _mm512_load_si512(pushed), pay_of = _mm512_load_si512(kByCode16.payload);
  const __m512i bits_of = _mm512_load_si512(kByCode16.bits), prefix_of = _mm512_load_si512(kByCode16.prefix);
  const __m512i match_of = _mm512_load_si512(kByCode16.match), low_bits_of = _mm512_load_si512(kByCode16.low_bits);
  const __m512i low_mask_of = _mm512_load_si512(kByCode16.low_mask);
  const __m512i has_index_of = _mm512_load_si512(kByCode16.has_index);
  const __m512i by_rank =
      _mm512_setr_epi32(kMMMM, kMMMX, kMMXX, kXXXX, kMMMM, kZZZX, kZZZX, kZZZX, 0, 0, 0, 0, 0, 0, 0, 0);
  const bool evicts = s.dict == Dict::fifo || s.dict == Dict::deque, deque = s.dict == Dict::deque;
  const __m512i keep = _mm512_set1_epi32(evicts ? static_cast<int>(kSlots) : 0x7FFFFF00);
  const __m512i capv = _mm512_set1_epi32(evicts ? 0x7FFFFF00 : static_cast<int>(kSlots));
  const __m512i one = _mm512_set1_epi32(1), three = _mm512_set1_epi32(3), four = _mm512_set1_epi32(4);
  const __m512i ones = _mm512_set1_epi32(-1), fifteen = _mm512_set1_epi32(kSlots - 1);
  const __m512i sixteen = _mm512_set1_epi32(kSlots), zero = _mm512_setzero_si512();
  const __m512i at0 = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                         _mm512_set1_epi32(static_cast<int>(stride / 4)));
  const __m512i bswap = _mm512_set4_epi32(0x0C0D0E0F, 0x08090A0B, 0x04050607, 0x00010203);
  __m512i word[N], last[N], pos[N];  // the words; the last push count each is there at; its position
  for (std::size_t i = 0; i < N; ++i) {
    const __m512i w = _mm512_mask_i32gather_epi32(
        zero, 0xFFFF, _mm512_add_epi32(at0, _mm512_set1_epi32(static_cast<int>(i))), base, 4);
    word[i] = s.big ? _mm512_shuffle_epi8(w, bswap) : w;
  }
  const __mmask16 zeros = s.zeros ? 0xFFFF : 0;
  __m512i count = zero;
  for (std::size_t i = 0; i < N; ++i) {
    const __m512i w = word[i];
    const __mmask16 zero_live = zeros & _mm512_cmple_epi32_mask(count, fifteen);
    __m512i m = _mm512_mask_mov_epi32(ones, zero_live, w);
    for (std::size_t j = 0; j < i; ++j)
      m = _mm512_mask_min_epu32(m, _mm512_cmple_epi32_mask(count, last[j]), m, _mm512_xor_si512(w, word[j]));
    __m512i r = three;
    r = _mm512_mask_sub_epi32(r, _mm512_cmplt_epu32_mask(m, _mm512_set1_epi32(0x10000)), r, one);
    r = _mm512_mask_sub_epi32(r, _mm512_cmplt_epu32_mask(m, _mm512_set1_epi32(0x100)), r, one);
    r = _mm512_mask_sub_epi32(r, _mm512_cmpeq_epi32_mask(m, zero), r, one);
    r = _mm512_mask_or_epi32(r, _mm512_cmplt_epu32_mask(w, _mm512_set1_epi32(0x100)), r, four);
    const __m512i c = _mm512_maskz_permutexvar_epi32(_mm512_test_epi32_mask(w, w), r, by_rank);  // zzzz = 0
    // The lowest position matching under the code's mask (a code without an index: unused).
    const __m512i mm = _mm512_maskz_permutexvar_epi32(0xFFFF, c, match_of);
    __m512i best = _mm512_mask_mov_epi32(ones, zero_live & _mm512_testn_epi32_mask(w, mm), count);
    for (std::size_t j = 0; j < i; ++j) {
      const __mmask16 hit = _mm512_cmple_epi32_mask(count, last[j]) &
                            _mm512_testn_epi32_mask(_mm512_xor_si512(w, word[j]), mm);
      best = _mm512_mask_min_epu32(best, hit, best, pos[j]);
    }
    // The index: a deque's by age once full (always with zero entries), else the slot.
    const __mmask16 aged = _mm512_cmpgt_epi32_mask(count, fifteen) | zeros;
    const __m512i idx = deque ? _mm512_sub_epi32(best, _mm512_mask_mov_epi32(sixteen, aged, count)) : best;
    const __m512i lb = _mm512_maskz_permutexvar_epi32(0xFFFF, c, low_bits_of);
    const __m512i field = _mm512_or_si512(_mm512_and_si512(_mm512_maskz_permutexvar_epi32(0xFFFF, c, has_index_of),
                                                           _mm512_maskz_sllv_epi32(0xFFFF, idx, lb)),
                                          _mm512_and_si512(w, _mm512_maskz_permutexvar_epi32(0xFFFF, c, low_mask_of)));
    const __m512i pre = _mm512_maskz_permutexvar_epi32(0xFFFF, c, prefix_of);
    const __m512i pay = _mm512_maskz_permutexvar_epi32(0xFFFF, c, pay_of);
    const __m512i nbits = _mm512_maskz_permutexvar_epi32(0xFFFF, c, bits_of);
    for (int h = 0; h < 2; ++h) {
      const __m256i ph = half(pre, h), lh = half(pay, h);
      const __m256i fh = half(field, h);
      if (s.mc) {
        _mm512_storeu_si512(tok[h] + 8 * i, _mm512_maskz_cvtepu32_epi64(0xFF, ph));
        _mm512_storeu_si512(tok[h] + 8 * (N + i), _mm512_maskz_cvtepu32_epi64(0xFF, fh));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(len[h] + 8 * i), _mm256_sub_epi32(half(nbits, h), lh));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(len[h] + 8 * (N + i)), lh);
      } else {
        const __m512i t = _mm512_or_si512(
            _mm512_maskz_sllv_epi64(0xFF, _mm512_maskz_cvtepu32_epi64(0xFF, ph), _mm512_maskz_cvtepu32_epi64(0xFF, lh)),
            _mm512_maskz_cvtepu32_epi64(0xFF, fh));
        _mm512_storeu_si512(tok[h] + 8 * i, t);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(len[h] + 8 * i), half(nbits, h));
      }
    }
    pos[i] = deque ? _mm512_add_epi32(count, sixteen) : _mm512_and_si512(count, fifteen);
    const __mmask16 p = _mm512_test_epi32_mask(_mm512_maskz_permutexvar_epi32(0xFFFF, c, push), ones) &
                        _mm512_cmplt_epi32_mask(count, capv);
    last[i] = _mm512_mask_add_epi32(ones, p, count, keep);
    count = _mm512_mask_add_epi32(count, p, count, one);
  }
}

template <std::size_t N>
MEMCOMP_AVX512 std::size_t encode_groups16(const CpackShape& s, const Codec& codec, const BlockView& blocks,
                                           std::size_t begin, std::size_t end, std::uint8_t* buf, std::size_t max_bytes,
                                           EncodedBlocks& enc) {
  const std::size_t buf_bytes = batch::range_bytes(begin, end, max_bytes);
  alignas(64) std::uint64_t tok[2][16 * N];  // mc: every prefix, then every field
  alignas(64) std::uint32_t len[2][16 * N], bits[8];
  constexpr std::size_t kLaneBytes = (kMaxToken * N + 7) / 8 + 8 + 8;  // a stream, a store past it, rounding to 8
  alignas(64) std::uint8_t lane_out[8 * kLaneBytes];
  std::uint64_t* const toks[2] = {tok[0], tok[1]};
  std::uint32_t* const lens[2] = {len[0], len[1]};
  std::size_t at = 0, i = begin;
  for (; i + 16 <= end; i += 16) {
    encode_lanes16<N>(blocks.block(i), N * 4, s, toks, lens);
    for (std::size_t h = 0; h < 2; ++h) {
      if (s.mc)
        lanes::pack<2 * N, lanes::Layout::step_major>(tok[h], len[h], lane_out, kLaneBytes, bits);
      else
        lanes::pack<N, lanes::Layout::step_major>(tok[h], len[h], lane_out, kLaneBytes, bits);
      at = batch::append_streams(enc, i + 8 * h, 8, buf, at, lane_out, kLaneBytes, bits);
    }
  }
  for (; i < end; ++i) {
    BitWriter w = batch::block_writer(buf, at, max_bytes, buf_bytes);
    codec.encode(blocks.block(i), N * 4, w);
    at = batch::record_block(enc, i, at, 0, w.finish());
  }
  return at;
}

}  // namespace

// encode_range of fresh 16-slot dictionaries for blocks of 32 to 256 bytes: groups of 16; 16 B
// blocks as the AVX2 tier.
std::size_t cpack_encode_range_avx512(const CpackShape& s, const Codec& c, const BlockView& blocks, std::size_t begin,
                                      std::size_t end, std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) {
  switch (blocks.block_bytes) {
    case 32: return encode_groups16<8>(s, c, blocks, begin, end, buf, max_bytes, enc);
    case 64: return encode_groups16<16>(s, c, blocks, begin, end, buf, max_bytes, enc);
    case 128: return encode_groups16<32>(s, c, blocks, begin, end, buf, max_bytes, enc);
    case 256: return encode_groups16<64>(s, c, blocks, begin, end, buf, max_bytes, enc);
    default: return kCpackAvx2.encode_range(s, c, blocks, begin, end, buf, max_bytes, enc);
  }
}

// measure_groups: groups of 16 where the AVX2 tier takes groups of 8 (the same blocks), then
// the AVX2 tier's for the rest.
std::size_t cpack_measure_groups_avx512(const CpackShape& s, const Codec& c, const BlockView& blocks, std::size_t begin,
                                        std::size_t end, const SizeColumns& out) {
  const std::size_t b = blocks.block_bytes;
  if (s.persistent || (s.set_search && b <= 64 && s.dict != Dict::block)) return begin;
  std::size_t i = begin;
  switch (b) {
    case 32: i = groups16<8>(s, blocks, begin, end, out); break;
    case 64: i = groups16<16>(s, blocks, begin, end, out); break;
    case 128: i = groups16<32>(s, blocks, begin, end, out); break;
    case 256: i = groups16<64>(s, blocks, begin, end, out); break;
    default: return begin;
  }
  return kCpackAvx2.measure_groups(s, c, blocks, i, end, out);
}

}  // namespace memcomp
#endif
