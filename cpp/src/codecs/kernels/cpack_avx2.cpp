// memcomp codecs: C-Pack's AVX2 kernels (kernels/cpack.hpp): a 16-slot dictionary in two
// registers (search by three compares, push by a blend) for a persistent one and single blocks,
// the set search of fresh dictionaries that never evict, fresh dictionaries as the earlier words
// still in them for 8 blocks side by side (measure_lanes, encode_lanes), and 24 blocks side by
// side in the decoder, the lanes of registers (codecs/lanes.hpp).
#include "cpack.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include "memcomp/codecs/lanes.hpp"

namespace memcomp {
namespace {

using namespace cpack;

// The per-code vectors the kernels permute by code (zzzz, xxxx, mmmm, mmxx, zzzx, mmmx; 6: the
// undefined code 1111), from the format's tables: every width is the scalar code's.
constexpr int as_lane(std::uint32_t v) {
  return v >= 0x80000000u ? static_cast<int>(v - 0x80000000u) - 0x7FFFFFFF - 1 : static_cast<int>(v);
}
static_assert(kSlots == 16, "a 4-bit index and two registers of slots");
constexpr unsigned kIndexBits = 4;
struct ByCode {
  alignas(32) int bits[8] = {}, payload[8] = {}, prefix[8] = {}, has_index[8] = {}, kept[8] = {}, literal[8] = {},
                  low_bits[8] = {}, low_mask[8] = {}, low_field[8] = {}, low_shift[8] = {}, index_shift[8] = {};
  alignas(32) char top_code[32] = {};  // by a token's first four bits (both lanes)
  constexpr ByCode() {
    for (unsigned c = 0; c < 6; ++c) {
      const unsigned n = kMeta[c] + kPayload[c], lb = kLowBits[c];
      bits[c] = static_cast<int>(n);
      payload[c] = static_cast<int>(kPayload[c]);
      prefix[c] = static_cast<int>(kPrefix[c]);
      has_index[c] = cpack::has_index(c) ? -1 : 0;
      kept[c] = as_lane(kMatchMask[c]);
      literal[c] = lb == 32 ? -1 : 0;  // xxxx: the word itself
      low_bits[c] = lb < 32 ? static_cast<int>(lb) : 0;
      low_mask[c] = as_lane(lb == 32 ? ~0u : (1u << lb) - 1);
      low_field[c] = lb < 32 ? as_lane((1u << lb) - 1) : 0;
      low_shift[c] = lb > 0 && lb < 32 ? static_cast<int>(32 - n) : 0;
      index_shift[c] = cpack::has_index(c) ? static_cast<int>(32 - kMeta[c] - kIndexBits) : 0;
    }
    for (unsigned t = 0; t < 32; ++t) top_code[t] = static_cast<char>(kTopCode[t % 16]);
  }
};
constexpr ByCode kByCode{};
MEMCOMP_AVX2_INLINE __m256i by_code(const int (&v)[8]) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(v));
}

struct SlotSel {  // per target: all-ones in the slots a push writes (0..15: one, 16: none, 17: all)
  alignas(32) std::int32_t m[18][16]{};
  constexpr SlotSel() {
    for (unsigned t = 0; t < 18; ++t)
      for (unsigned j = 0; j < 16; ++j) m[t][j] = t == j || t == 17 ? -1 : 0;
  }
};
constexpr SlotSel kSlotSel{};

namespace cpack_avx2 {

// The dictionary rules of a lane decode (fifo, deque or fill; init empty or zeros) and, by code,
// which words are pushed.
struct LaneRules {
  __m256i push;  // by code (0..5; 6 = the undefined code 1111): all-ones if pushed
  bool deque, fill, zeros;
};

// Decodes 8 * G blocks (layout interleaved, a fresh dictionary each) side by side, one word of
// each per step: the blocks are the lanes of G registers, so a step is every lane's next bits
// (lanes::window), a gather of its dictionary entries, and branch-free arithmetic. Block k's
// stream is bits [pos[k], end[k]) from `base` (both below 2^30, `base` readable 13 bytes past
// every end); its n words go to buf + k * b. dict holds 16 slots per lane and a spare one after them (zeroed
// for init=zeros). True when every lane read exactly its bits with no undefined code and no
// index naming an empty slot.
template <bool Big, unsigned G>
MEMCOMP_AVX2_INLINE bool decode_lanes(const std::uint8_t* base, const std::int32_t* pos_at, const std::int32_t* end_at,
                                      unsigned n, unsigned b, std::uint8_t* buf,
                                      std::uint32_t* dict,  // NOLINT(readability-non-const-parameter): pushes write it
                                      const LaneRules& rules) {
  // By the first four bits: the code (00xx zzzz, 01xx xxxx, 10xx mmmm, 1100 mmxx, 1101 zzzx,
  // 1110 mmmx, 1111 undefined), then by code its bits, the shift of its index and of its low
  // bits below the top of the 32 bits from its start, the mask of those low bits, the entry
  // bits kept, and the literal (xxxx's 32 bits start 2 bits in).
  const __m256i code_of = _mm256_load_si256(reinterpret_cast<const __m256i*>(kByCode.top_code));
  const __m256i bits = by_code(kByCode.bits);
  const __m256i index_shift = by_code(kByCode.index_shift);
  const __m256i has_index = by_code(kByCode.has_index);
  const __m256i low_shift = by_code(kByCode.low_shift);
  const __m256i low_mask = by_code(kByCode.low_field);
  const __m256i kept = by_code(kByCode.kept);
  const __m256i literal = by_code(kByCode.literal);
  const __m256i fifteen = _mm256_set1_epi32(kSlots - 1), sixteen = _mm256_set1_epi32(kSlots),
                one = _mm256_set1_epi32(1);
  const __m256i deque = _mm256_set1_epi32(rules.deque ? -1 : 0), fill = _mm256_set1_epi32(rules.fill ? -1 : 0);
  const __m256i spare = _mm256_set1_epi32(static_cast<int>(8 * G * kSlots));
  const auto* dq = reinterpret_cast<const int*>(dict);
  __m256i pos[G], end[G], count[G], wp[G], bad[G], slots[G];
  for (unsigned g = 0; g < G; ++g) {
    pos[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pos_at + 8 * g));
    end[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(end_at + 8 * g));
    count[g] = wp[g] = bad[g] = _mm256_setzero_si256();
    const __m256i k =
        _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(8 * g)));
    slots[g] = _mm256_slli_epi32(k, 4);
  }
  alignas(32) std::uint32_t word[8 * G], slot[8 * G];
  lanes::StepRows<G> rows;
  for (unsigned step = 0; step < n; ++step) {
    for (unsigned g = 0; g < G; ++g) {
      __m256i t0, t1;
      lanes::window(base, pos[g], t0, t1);
      // hi: the 32 bits from the word's start; lit: the 32 after its first 2.
      const __m256i hi = lanes::high_halves(t0, t1);
      const __m256i lit =
          lanes::low_halves(_mm256_srli_epi64(t0, 32 - kMeta[kXXXX]), _mm256_srli_epi64(t1, 32 - kMeta[kXXXX]));
      const __m256i c =
          _mm256_and_si256(_mm256_shuffle_epi8(code_of, _mm256_srli_epi32(hi, 28)), _mm256_set1_epi32(0xFF));
      pos[g] = _mm256_add_epi32(pos[g], _mm256_andnot_si256(bad[g], _mm256_permutevar8x32_epi32(bits, c)));
      // The entry an index names (deque: by age once full), if the slot holds one.
      const __m256i idx = _mm256_and_si256(_mm256_srlv_epi32(hi, _mm256_permutevar8x32_epi32(index_shift, c)), fifteen);
      const __m256i valid = rules.zeros ? sixteen : count[g];
      const __m256i empty = _mm256_and_si256(_mm256_permutevar8x32_epi32(has_index, c),
                                             _mm256_cmpgt_epi32(_mm256_add_epi32(idx, one), valid));
      const __m256i phys = _mm256_blendv_epi8(idx, _mm256_and_si256(_mm256_add_epi32(wp[g], idx), fifteen),
                                              _mm256_and_si256(deque, _mm256_cmpeq_epi32(valid, sixteen)));
      const __m256i entry = _mm256_i32gather_epi32(dq, _mm256_add_epi32(slots[g], phys), 4);
      const __m256i low =
          _mm256_or_si256(_mm256_and_si256(_mm256_srlv_epi32(hi, _mm256_permutevar8x32_epi32(low_shift, c)),
                                           _mm256_permutevar8x32_epi32(low_mask, c)),
                          _mm256_and_si256(lit, _mm256_permutevar8x32_epi32(literal, c)));
      const __m256i w = _mm256_or_si256(_mm256_and_si256(entry, _mm256_permutevar8x32_epi32(kept, c)), low);
      // The push, at wp: fifo and deque wrap, fill stops when full (so wp stays its count).
      const __m256i room = _mm256_cmpgt_epi32(sixteen, count[g]);
      const __m256i p =
          _mm256_andnot_si256(_mm256_andnot_si256(room, fill), _mm256_permutevar8x32_epi32(rules.push, c));
      _mm256_store_si256(reinterpret_cast<__m256i*>(slot + 8 * g),
                         _mm256_blendv_epi8(spare, _mm256_add_epi32(slots[g], wp[g]), p));
      wp[g] = _mm256_and_si256(_mm256_sub_epi32(wp[g], p), fifteen);
      count[g] = _mm256_sub_epi32(count[g], _mm256_and_si256(p, room));
      _mm256_store_si256(reinterpret_cast<__m256i*>(word + 8 * g), w);
      rows.put(g, step, Big ? bswap32(w) : w);
      bad[g] = _mm256_or_si256(
          _mm256_or_si256(bad[g], empty),
          _mm256_or_si256(_mm256_cmpeq_epi32(c, _mm256_set1_epi32(kBadCode)), _mm256_cmpgt_epi32(pos[g], end[g])));
    }
    for (unsigned k = 0; k < 8 * G; ++k) dict[slot[k]] = word[k];
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

// Fresh dictionaries without a dictionary (measure_lanes, encode_lanes): 8 blocks side by side,
// block k being lane k, one word of each per step. The entries a word is searched in are the
// earlier words that were pushed and are still there: the word of push s (s = 0, 1, ...) stays
// while the pushes so far are at most s + keep (keep 16 when the dictionary evicts, fifo and
// deque, so until push s + 16 writes its slot; otherwise forever, pushes stopping at cap: fill
// 16, block B/4), and init=zeros' entry in slot p while they are at most p. So a word's search
// runs over the earlier words, with no chain through a dictionary's slots.
struct LaneDict {
  __m256i push;      // by code (0..5): all ones if words of the code are pushed
  __m256i keep;      // see above (or nearly 2^31: forever)
  __m256i cap;       // pushes happen while fewer than cap were made
  __m256i no_zeros;  // all ones without init=zeros
  __m256i by_age;    // all ones when a full dictionary's indices go by age (deque)
  bool big;          // the words' byte order
};

// Word i of the 8 blocks at base + k * stride, i < N: through 8x8 transposes, by gather for N = 4.
template <std::size_t N>
MEMCOMP_AVX2_INLINE void load_words(const std::uint8_t* base, std::size_t stride, bool big, __m256i* word) {
  if constexpr (N % 8 == 0) {
    for (std::size_t r = 0; r < N / 8; ++r) {
      __m256i x[8];
      for (std::size_t k = 0; k < 8; ++k)
        x[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + k * stride + 32 * r));
      lanes::transpose8x8(x);
      for (std::size_t j = 0; j < 8; ++j) word[8 * r + j] = x[j];
    }
  } else {
    const __m256i at =
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(stride)));
    for (std::size_t i = 0; i < N; ++i) word[i] = _mm256_i32gather_epi32(reinterpret_cast<const int*>(base) + i, at, 1);
  }
  if (big)
    for (std::size_t i = 0; i < N; ++i) word[i] = bswap32(word[i]);
}

// The rank of a match leaving x = word ^ entry: 0 (equal), 1 (bits 31..8 shared), 2 (31..16), 3.
MEMCOMP_AVX2_INLINE __m256i rank_of(__m256i x) {
  const __m256i zero = _mm256_setzero_si256();
  return _mm256_add_epi32(
      _mm256_add_epi32(_mm256_cmpeq_epi32(x, zero), _mm256_cmpeq_epi32(_mm256_srli_epi32(x, 8), zero)),
      _mm256_add_epi32(_mm256_cmpeq_epi32(_mm256_srli_epi32(x, 16), zero), _mm256_set1_epi32(3)));
}

// The code of word w whose best match has rank r (kKeys' table: zzzz, mmmm, zzzx, mmmx, mmxx, xxxx).
MEMCOMP_AVX2_INLINE __m256i code_of(__m256i w, __m256i r) {
  // By rank + 4 if bits 31..8 of the word are zero: its code unless the word is zero.
  const __m256i by_rank = _mm256_setr_epi32(kMMMM, kMMMX, kMMXX, kXXXX, kMMMM, kZZZX, kZZZX, kZZZX);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i narrow = _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_srli_epi32(w, 8), zero), _mm256_set1_epi32(4));
  return _mm256_andnot_si256(_mm256_cmpeq_epi32(w, zero),
                             _mm256_permutevar8x32_epi32(by_rank, _mm256_or_si256(r, narrow)));
}

// The push of a word coded c when `count` pushes were made: all ones if it is pushed (p), and
// the last count it is there at (-1: never there).
MEMCOMP_AVX2_INLINE __m256i push_of(const LaneDict& d, __m256i c, __m256i count, __m256i& last) {
  const __m256i p = _mm256_and_si256(_mm256_permutevar8x32_epi32(d.push, c), _mm256_cmpgt_epi32(d.cap, count));
  last = _mm256_blendv_epi8(_mm256_set1_epi32(-1), _mm256_add_epi32(count, d.keep), p);
  return p;
}

// Measures 8 blocks of N words (8 to 64, a multiple of 8): a word's best match is the smallest
// word ^ entry over the live entries (kKeys' m). Block k's payload and meta bits go to
// payload[k] and meta[k].
template <std::size_t N>
MEMCOMP_AVX2_INLINE void measure_lanes(const std::uint8_t* base, std::size_t stride, const LaneDict& d,
                                       std::uint32_t* payload, std::uint32_t* meta) {
  static_assert(N % 8 == 0 && N <= kMaxEntries, "8 to 64 words, 8 at a time");
  const __m256i pay_of = by_code(kByCode.payload), bits_of = by_code(kByCode.bits);
  const __m256i last_slot = _mm256_set1_epi32(kSlots - 1);
  __m256i word[N], last[N];
  load_words<N>(base, stride, d.big, word);
  __m256i count = _mm256_setzero_si256(), pay = count, bits = count;  // pushes so far; the blocks' bits
  for (std::size_t i = 0; i < N; ++i) {
    const __m256i w = word[i];
    // The zero entries (w ^ 0) while some is there; none: all ones.
    __m256i m = _mm256_or_si256(w, _mm256_or_si256(d.no_zeros, _mm256_cmpgt_epi32(count, last_slot)));
    for (std::size_t j = 0; j < i; ++j)
      m = _mm256_min_epu32(m, _mm256_or_si256(_mm256_xor_si256(w, word[j]), _mm256_cmpgt_epi32(count, last[j])));
    const __m256i c = code_of(w, rank_of(m));
    pay = _mm256_add_epi32(pay, _mm256_permutevar8x32_epi32(pay_of, c));
    bits = _mm256_add_epi32(bits, _mm256_permutevar8x32_epi32(bits_of, c));
    count = _mm256_sub_epi32(count, push_of(d, c, count, last[i]));
  }
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(payload), pay);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(meta), _mm256_sub_epi32(bits, pay));
}

// Codes 8 blocks of N words (4 to 64). A match's index is where its entry sits: a fifo's slot
// (push s in slot s mod 16; the zero entries from slot `count` on), or by age in a full deque
// (the oldest 0; its zero entries are older than any push), so every entry has a position that
// orders its indices: s mod 16, or s + 16 in a deque (its zero entries: `count`). The smallest
// rank << 7 | position names the best match at its lowest index. Word i of block k gives
// token i of lane k: tok[8 * i + k] (prefix, index and low bits) in len[8 * i + k] bits, or with
// mc the prefix there and its fields as token N + i.
template <std::size_t N>
MEMCOMP_AVX2_INLINE void encode_lanes(const std::uint8_t* base, std::size_t stride, const LaneDict& d, bool mc,
                                      std::uint64_t* tok, std::uint32_t* len) {
  // By code (zzzz, xxxx, mmmm, mmxx, zzzx, mmmx): its low bits' mask and width (the index goes
  // above them), whether it has an index, its prefix and its payload and total bits.
  const __m256i low_mask = by_code(kByCode.low_mask);
  const __m256i low_bits = by_code(kByCode.low_bits);
  const __m256i has_index = by_code(kByCode.has_index);
  const __m256i prefix = by_code(kByCode.prefix);
  const __m256i payload = by_code(kByCode.payload);
  const __m256i bits = by_code(kByCode.bits);
  const __m256i last_slot = _mm256_set1_epi32(kSlots - 1), fifteen = last_slot, sixteen = _mm256_set1_epi32(kSlots);
  const __m256i position = _mm256_set1_epi32(0x7F);
  __m256i word[N], last[N], at[N];  // the words; the last count each is there at; its position
  load_words<N>(base, stride, d.big, word);
  __m256i count = _mm256_setzero_si256();
  for (std::size_t i = 0; i < N; ++i) {
    const __m256i w = word[i];
    const __m256i full = _mm256_cmpgt_epi32(count, fifteen);
    __m256i best = _mm256_or_si256(_mm256_add_epi32(_mm256_slli_epi32(rank_of(w), 7), count),
                                   _mm256_or_si256(d.no_zeros, full));  // the lowest zero entry
    for (std::size_t j = 0; j < i; ++j) {
      const __m256i key = _mm256_add_epi32(_mm256_slli_epi32(rank_of(_mm256_xor_si256(w, word[j])), 7), at[j]);
      best = _mm256_min_epu32(best, _mm256_or_si256(key, _mm256_cmpgt_epi32(count, last[j])));
    }
    const __m256i c = code_of(w, _mm256_min_epu32(_mm256_srli_epi32(best, 7), _mm256_set1_epi32(3)));
    // The index from the position: a deque's by age once full (always with zero entries), else the slot.
    const __m256i aged = _mm256_or_si256(full, _mm256_andnot_si256(d.no_zeros, _mm256_set1_epi32(-1)));
    const __m256i idx = _mm256_sub_epi32(_mm256_and_si256(best, position),
                                         _mm256_and_si256(d.by_age, _mm256_blendv_epi8(sixteen, count, aged)));
    const __m256i field =
        _mm256_or_si256(_mm256_and_si256(_mm256_permutevar8x32_epi32(has_index, c),
                                         _mm256_sllv_epi32(idx, _mm256_permutevar8x32_epi32(low_bits, c))),
                        _mm256_and_si256(w, _mm256_permutevar8x32_epi32(low_mask, c)));
    const __m256i pre = _mm256_permutevar8x32_epi32(prefix, c), pay = _mm256_permutevar8x32_epi32(payload, c);
    for (int h = 0; h < 2; ++h) {
      const __m128i ph = h ? _mm256_extracti128_si256(pre, 1) : _mm256_castsi256_si128(pre);
      const __m128i lh = h ? _mm256_extracti128_si256(pay, 1) : _mm256_castsi256_si128(pay);
      const __m128i fh = h ? _mm256_extracti128_si256(field, 1) : _mm256_castsi256_si128(field);
      if (mc) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(tok + 8 * i + 4 * h), _mm256_cvtepu32_epi64(ph));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(tok + 8 * (N + i) + 4 * h), _mm256_cvtepu32_epi64(fh));
      } else {
        const __m256i t = _mm256_or_si256(_mm256_sllv_epi64(_mm256_cvtepu32_epi64(ph), _mm256_cvtepu32_epi64(lh)),
                                          _mm256_cvtepu32_epi64(fh));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(tok + 8 * i + 4 * h), t);
      }
    }
    const __m256i nbits = _mm256_permutevar8x32_epi32(bits, c);
    if (mc) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(len + 8 * i), _mm256_sub_epi32(nbits, pay));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(len + 8 * (N + i)), pay);
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(len + 8 * i), nbits);
    }
    at[i] = _mm256_add_epi32(_mm256_and_si256(d.by_age, sixteen),
                             _mm256_and_si256(count, _mm256_or_si256(d.by_age, fifteen)));
    count = _mm256_sub_epi32(count, push_of(d, c, count, last[i]));
  }
}

}  // namespace cpack_avx2

/// The codec's kernels, as they were its members: its options and persistent dictionary.
struct CpackAvx2 {
  CpackAvx2(const CpackShape& s, const Codec& c)
      : endian_(s.big ? Endian::big : Endian::little),
        zeros_(s.zeros),
        mc_(s.mc),
        persistent_(s.persistent),
        set_search_(s.set_search),
        dict_(s.dict),
        push_mask_(s.push_mask),
        push_keys_(s.push_keys),
        kind_min_(s.kind_min),
        state_(s.state),
        codec_(&c) {}
  Endian endian_;
  bool zeros_, mc_, persistent_, set_search_;
  Dict dict_;
  unsigned push_mask_;
  std::uint32_t push_keys_, kind_min_;
  Dictionary* state_;  // a persistent batch's dictionary (null: fresh dictionaries)
  const Codec* codec_;

  bool set_search() const { return set_search_; }  // B <= 64 is checked per batch
  void init(Dictionary& d) const { cpack::init(d, zeros_); }
  [[noreturn]] void not_decodable() const { batch::not_decodable(*codec_); }

  // The 16-slot dictionaries (fifo, deque, fill) with AVX2: a lane's dictionary lives in two
  // registers, a search is three compares per register (bits 31..0, 31..8, 31..16 of word ^
  // entry), a push is a blend at its slot. The same codes, pushes and final dictionary as
  // measure_k (whose slot filling it mirrors), so a persistent state is shared between the two.
  struct VLane {
    __m256i e0, e1;  // slots 0..7, 8..15
    std::uint32_t count, wp, payload, meta;
  };

  /// The key (kKeys) of word w (wv: w in every element) against the lane's dictionary.
  template <bool Zeros>
  MEMCOMP_AVX2 static unsigned search(const VLane& x, __m256i wv, std::uint32_t w) {
    // The smallest word ^ entry over the 16 slots (unsigned), then its leading zero bytes.
    __m256i m = _mm256_min_epu32(_mm256_xor_si256(x.e0, wv), _mm256_xor_si256(x.e1, wv));
    m = _mm256_min_epu32(m, _mm256_permute2x128_si256(m, m, 1));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, 0x4E));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, 0xB1));
    unsigned lm = lz_bytes(static_cast<std::uint32_t>(_mm256_cvtsi256_si32(m)));
    if constexpr (!Zeros) lm = x.count ? lm : 0u;  // no pushed word yet: no entry
    return key_of(lm, lz_bytes(w));
  }

  /// Pushes w (wv) into the lane's dictionary if words of key k are pushed.
  template <Dict K, bool Zeros>
  MEMCOMP_AVX2 static void push_lane(VLane& x, __m256i wv, unsigned k, std::uint32_t push_keys) {
    unsigned p = (push_keys >> k) & 1u, s;
    const unsigned grows = static_cast<unsigned>(x.count < kSlots);
    if constexpr (K == Dict::fill) {
      p &= grows;
      s = x.count % kSlots;
    } else {
      s = x.wp;
      x.wp = (s + p) % kSlots;
    }
    // The slots w is written to: s when pushed, none (16) otherwise; with no pushed word yet,
    // all of them (17: measure_k fills the empty dictionary's slots with the first word).
    const unsigned at = !Zeros && x.count == 0 ? 17u : p ? s : 16u;
    const auto* sel = reinterpret_cast<const __m256i*>(kSlotSel.m[at]);
    x.e0 = _mm256_blendv_epi8(x.e0, wv, _mm256_load_si256(sel));
    x.e1 = _mm256_blendv_epi8(x.e1, wv, _mm256_load_si256(sel + 1));
    x.count += p & grows;
  }

  template <Dict K, bool Zeros>
  MEMCOMP_AVX2 static void step(VLane& x, std::uint32_t w, std::uint32_t push_keys) {
    const __m256i wv = _mm256_set1_epi32(static_cast<int>(w));
    const unsigned k = search<Zeros>(x, wv, w);
    x.payload += kKeys.payload[k];
    x.meta += kKeys.meta[k];
    push_lane<K, Zeros>(x, wv, k, push_keys);
  }

  /// A lane loaded from a dictionary, and the dictionary set from it.
  MEMCOMP_AVX2 static VLane load_lane(const Dictionary& d) {
    VLane x;
    x.e0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d.e));
    x.e1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d.e + 8));
    x.count = d.count;
    x.wp = d.wp;
    x.payload = x.meta = 0;
    return x;
  }
  MEMCOMP_AVX2 static void store_lane(const VLane& x, Dictionary& d) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d.e), x.e0);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d.e + 8), x.e1);
    d.count = x.count;
    d.wp = x.wp;
  }

  /// encode() of a 16-slot dictionary (fifo, deque, fill) from d, which it updates: the search
  /// and push of step, and the lowest index of a match from the slots' compares under the
  /// code's mask (a full deque's indices by age: the slot mask turned by the write pointer).
  template <Dict K, bool Zeros>
  MEMCOMP_AVX2 void encode_avx2(const std::uint8_t* blk, std::size_t b, BitWriter& out, Dictionary& d) const {
    const std::size_t n = b / 4;
    const std::uint32_t push_keys = push_keys_;
    if (!Zeros && d.count == 0) std::fill(d.e, d.e + kSlots, 0u);  // unread until the first push fills them
    VLane x = load_lane(d);
    WordWriter words{out, mc_};
    for (std::size_t i = 0; i < n; ++i)
      encode_word<K, Zeros>(x, load<std::uint32_t>(blk + 4 * i, endian_), words, push_keys);
    store_lane(x, d);
    words.finish();
  }

  /// One word of encode_avx2: its token into words, then the push.
  template <Dict K, bool Zeros>
  MEMCOMP_AVX2_INLINE void encode_word(VLane& x, std::uint32_t w, WordWriter& words, std::uint32_t push_keys) const {
    const __m256i wv = _mm256_set1_epi32(static_cast<int>(w));
    const unsigned k = search<Zeros>(x, wv, w);
    const unsigned c = kKeys.code[k];
    // The index of a match (no branch on the code: a code without one takes field 0).
    const __m256i mask = _mm256_set1_epi32(static_cast<int>(kMatchMask[c])), zero = _mm256_setzero_si256();
    const __m256i h0 = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_xor_si256(x.e0, wv), mask), zero);
    const __m256i h1 = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_xor_si256(x.e1, wv), mask), zero);
    unsigned h = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(h0)) |
                                       _mm256_movemask_ps(_mm256_castsi256_ps(h1)) << 8);
    const bool full = Zeros || x.count >= kSlots;
    if (!full) h &= (1u << x.count) - 1;
    if (K == Dict::deque && full) h = (h >> x.wp | h << (kSlots - x.wp)) & 0xFFFFu;
    const bool indexed = has_index(c);
    if (indexed && h == 0) not_decodable();  // unreachable for a code from search()
    const std::uint64_t field = indexed ? static_cast<unsigned>(__builtin_ctz(h | 0x10000u)) : 0u;  // index, low bits
    words.put(c, field << kLowBits[c] | (w & low_mask(kLowBits[c])));
    push_lane<K, Zeros>(x, wv, k, push_keys);
  }

  template <Dict K, bool Zeros, std::size_t L>
  MEMCOMP_AVX2 void lanes_avx2(const std::uint8_t* const* blk, std::size_t b, SizeBreakdown* out,
                               Dictionary* st) const {
    const std::size_t n = b / 4;
    const std::uint32_t push_keys = push_keys_;
    const Endian endian = endian_;
    VLane lane[L];
    for (std::size_t l = 0; l < L; ++l) {
      Dictionary d;
      if (st) {
        d = *st;
      } else {
        init(d);
        std::fill(d.e + (zeros_ ? kSlots : 0), d.e + kSlots, 0u);  // unread until the first push fills them
      }
      lane[l] = load_lane(d);
    }
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t l = 0; l < L; ++l)
        step<K, Zeros>(lane[l], load<std::uint32_t>(blk[l] + 4 * i, endian), push_keys);
    if (st) store_lane(lane[0], *st);
    for (std::size_t l = 0; l < L; ++l) {
      out[l] = SizeBreakdown{};
      out[l].payload = lane[l].payload;
      out[l].meta = lane[l].meta;
    }
  }

  template <Dict K, bool Zeros>
  MEMCOMP_AVX2 void range_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                               const SizeColumns& out) const {
    const std::size_t b = blocks.block_bytes;
    std::size_t i = begin;
    if (persistent_) {  // one dictionary, block after block
      for (; i < end; ++i) {
        const std::uint8_t* blk = blocks.block(i);
        SizeBreakdown s;
        lanes_avx2<K, Zeros, 1>(&blk, b, &s, state_);
        out.set(i, s);
      }
      return;
    }
    for (; i + 4 <= end; i += 4) {  // four independent blocks: their dependency chains overlap
      const std::uint8_t* blk[4] = {blocks.block(i), blocks.block(i + 1), blocks.block(i + 2), blocks.block(i + 3)};
      SizeBreakdown s[4];
      lanes_avx2<K, Zeros, 4>(blk, b, s, nullptr);
      for (std::size_t l = 0; l < 4; ++l) out.set(i + l, s[l]);
    }
    for (; i < end; ++i) {
      const std::uint8_t* blk = blocks.block(i);
      SizeBreakdown s;
      lanes_avx2<K, Zeros, 1>(&blk, b, &s, nullptr);
      out.set(i, s);
    }
  }

  // The words of a block (w) and, per word, the smallest word ^ entry over its dictionary as a
  // set of values (m: all ones without an entry), N words in R registers.
  template <std::size_t N, bool Zeros, bool Big>
  MEMCOMP_AVX2_INLINE void set_minima(const std::uint8_t* blk, __m256i* W, __m256i* M, std::uint32_t* w) const {
    constexpr std::size_t R = (N + 7) / 8;
    // later[j][i]: all ones where word i is not after word j (j is not in i's dictionary)
    alignas(32) static constexpr struct Later {
      std::uint32_t m[17][16] = {};
      constexpr Later() {
        for (unsigned j = 0; j < 17; ++j)
          for (unsigned i = 0; i < 16; ++i) m[j][i] = j == 16 || i <= j ? ~0u : 0u;
      }
    } kLater{};
    for (std::size_t r = 0; r < R; ++r) {
      __m256i v = N >= 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 * r))
                         : _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk)));
      if (N < 8) v = _mm256_inserti128_si256(_mm256_setzero_si256(), _mm256_castsi256_si128(v), 0);
      if (Big) v = bswap32(v);
      W[r] = v;
      M[r] = Zeros ? v : _mm256_set1_epi32(-1);  // a zero entry: w ^ 0
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(w + 8 * r), v);
    }
    for (std::size_t j = 0; j + 1 < N; ++j) {
      const __m256i e = _mm256_set1_epi32(static_cast<int>(w[j]));
      const std::uint32_t* later = kLater.m[w[j] >= kind_min_ ? j : 16];
      for (std::size_t r = 0; r < R; ++r) {
        const __m256i x = _mm256_or_si256(_mm256_xor_si256(W[r], e),
                                          _mm256_load_si256(reinterpret_cast<const __m256i*>(later + 8 * r)));
        M[r] = _mm256_min_epu32(M[r], x);
      }
    }
  }

  template <std::size_t N, bool Zeros, bool Big>
  MEMCOMP_AVX2 void measure_sets(const BlockView& blocks, std::size_t begin, std::size_t end,
                                 const SizeColumns& out) const {
    constexpr std::size_t R = (N + 7) / 8;
    const __m256i zero = _mm256_setzero_si256();
    for (std::size_t b = begin; b < end; ++b) {
      alignas(32) std::uint32_t w[8 * R];
      __m256i W[R], M[R];
      set_minima<N, Zeros, Big>(blocks.block(b), W, M, w);
      __m256i meta = zero, payload = zero;
      for (std::size_t r = 0; r < R; ++r) {
        const __m256i m = M[r], v = W[r];
        const __m256i lm2 = at_most(m, 0xFFFFu), lm3 = at_most(m, 0xFFu), lm4 = _mm256_cmpeq_epi32(m, zero);
        const __m256i zzzz = _mm256_cmpeq_epi32(v, zero), narrow = at_most(v, 0xFFu);
        // The first code that applies: zzzz, mmmm, zzzx, mmmx, mmxx, xxxx.
        // (the codes' bits from kPayload and kMeta; mmmx has mmxx's meta bits, zzzz no payload)
        static_assert(kMeta[kMMMX] == kMeta[kMMXX] && kPayload[kZZZZ] == 0, "measure_sets' blends");
        __m256i pay = _mm256_set1_epi32(kPayload[kXXXX]), met = _mm256_set1_epi32(kMeta[kXXXX]);
        pay = _mm256_blendv_epi8(pay, _mm256_set1_epi32(kPayload[kMMXX]), lm2);
        met = _mm256_blendv_epi8(met, _mm256_set1_epi32(kMeta[kMMXX]), lm2);
        pay = _mm256_blendv_epi8(pay, _mm256_set1_epi32(kPayload[kMMMX]), lm3);
        pay = _mm256_blendv_epi8(pay, _mm256_set1_epi32(kPayload[kZZZX]), narrow);
        met = _mm256_blendv_epi8(met, _mm256_set1_epi32(kMeta[kZZZX]), narrow);
        pay = _mm256_blendv_epi8(pay, _mm256_set1_epi32(kPayload[kMMMM]), lm4);
        met = _mm256_blendv_epi8(met, _mm256_set1_epi32(kMeta[kMMMM]), lm4);
        pay = _mm256_andnot_si256(zzzz, pay);
        met = _mm256_blendv_epi8(met, _mm256_set1_epi32(kMeta[kZZZZ]), zzzz);
        if (N < 8) {  // lanes past the block's words
          const __m256i valid = _mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0);
          pay = _mm256_and_si256(pay, valid);
          met = _mm256_and_si256(met, valid);
        }
        payload = _mm256_add_epi32(payload, pay);
        meta = _mm256_add_epi32(meta, met);
      }
      SizeBreakdown s;
      s.payload = hsum(payload);
      s.meta = hsum(meta);
      out.set(b, s);
    }
  }

  // encode() for the set searches from an empty dictionary that never evicts: every word's code
  // from its minimum, the pushes from the codes, and an entry's index is its push rank, so a
  // match names the first pushed word it matches.
  template <bool Big>
  std::uint32_t encode_sets_b(const std::uint8_t* blk, std::size_t b, BitWriter& out) const {
    if (b == 16) return encode_sets<4, Big>(blk, out);
    if (b == 32) return encode_sets<8, Big>(blk, out);
    return encode_sets<16, Big>(blk, out);
  }
  template <std::size_t N, bool Big>
  MEMCOMP_AVX2 std::uint32_t encode_sets(const std::uint8_t* blk, BitWriter& out) const {
    constexpr std::size_t R = (N + 7) / 8;
    alignas(32) std::uint32_t w[8 * R], m[8 * R];
    __m256i W[R], M[R];
    set_minima<N, false, Big>(blk, W, M, w);
    for (std::size_t r = 0; r < R; ++r) _mm256_store_si256(reinterpret_cast<__m256i*>(m + 8 * r), M[r]);
    unsigned char code[N];
    std::uint32_t pushed = 0;  // bit j: word j entered the dictionary (at slot popcount of those before)
    for (std::size_t i = 0; i < N; ++i) {
      code[i] = kKeys.code[key_of(lz_bytes(m[i]), lz_bytes(w[i]))];
      pushed |= ((push_mask_ >> code[i]) & 1u) << i;
    }
    std::uint64_t field[N];
    for (std::size_t i = 0; i < N; ++i) {
      const unsigned c = code[i];
      // Every word's first match (no branch on the code; a code without an index drops it).
      const __m256i e = _mm256_set1_epi32(static_cast<int>(w[i]));
      const __m256i mask = _mm256_set1_epi32(static_cast<int>(kMatchMask[c]));
      std::uint32_t match = 0;
      for (std::size_t r = 0; r < R; ++r) {
        const __m256i x = _mm256_and_si256(_mm256_xor_si256(W[r], e), mask);
        match |= static_cast<std::uint32_t>(
                     _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(x, _mm256_setzero_si256()))))
                 << (8 * r);
      }
      match &= pushed & ((1u << i) - 1u);
      const auto index = static_cast<std::uint64_t>(__builtin_popcount(pushed & ((match & (0u - match)) - 1u)));
      field[i] = (has_index(c) ? index : 0u) << kLowBits[c] | (w[i] & low_mask(kLowBits[c]));
    }
    if (mc_) {
      BitWriter w2 = out;  // a local writer: its state stays in registers across the byte stores
      for (std::size_t i = 0; i < N; ++i) w2.write(kPrefix[code[i]], kMeta[code[i]]);
      for (std::size_t i = 0; i < N; ++i) w2.write(field[i], kPayload[code[i]]);
      out = w2;
      return 0;
    }
    std::uint8_t len[N];
    for (std::size_t i = 0; i < N; ++i) {
      field[i] |= std::uint64_t{kPrefix[code[i]]} << kPayload[code[i]];
      len[i] = static_cast<std::uint8_t>(kMeta[code[i]] + kPayload[code[i]]);
    }
    out.write_fields(field, len, N);
    return 0;
  }

  // All ones in the lanes of x at most c (unsigned).
  MEMCOMP_AVX2_INLINE static __m256i at_most(__m256i x, std::uint32_t c) {
    return _mm256_cmpeq_epi32(_mm256_min_epu32(x, _mm256_set1_epi32(static_cast<int>(c))), x);
  }

  MEMCOMP_AVX2_INLINE static std::uint32_t hsum(__m256i v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4E));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xB1));
    return static_cast<std::uint32_t>(_mm_cvtsi128_si32(x));
  }

  template <bool Zeros, bool Big>
  void measure_sets_b(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out) const {
    if (blocks.block_bytes == 16) return measure_sets<4, Zeros, Big>(blocks, begin, end, out);
    if (blocks.block_bytes == 32) return measure_sets<8, Zeros, Big>(blocks, begin, end, out);
    return measure_sets<16, Zeros, Big>(blocks, begin, end, out);
  }

  void measure_avx2(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out) const {
    if (set_search() && blocks.block_bytes <= 64) {
      const bool big = endian_ == Endian::big;
      if (zeros_)
        return big ? measure_sets_b<true, true>(blocks, begin, end, out)
                   : measure_sets_b<true, false>(blocks, begin, end, out);
      return big ? measure_sets_b<false, true>(blocks, begin, end, out)
                 : measure_sets_b<false, false>(blocks, begin, end, out);
    }
    if (zeros_) {
      if (dict_ == Dict::fifo) return range_avx2<Dict::fifo, true>(blocks, begin, end, out);
      return range_avx2<Dict::deque, true>(blocks, begin, end, out);
    }
    if (dict_ == Dict::fifo) return range_avx2<Dict::fifo, false>(blocks, begin, end, out);
    if (dict_ == Dict::deque) return range_avx2<Dict::deque, false>(blocks, begin, end, out);
    return range_avx2<Dict::fill, false>(blocks, begin, end, out);
  }

  // The rules of the lane kernels (cpack_avx2::LaneDict) for blocks of n words.
  MEMCOMP_AVX2_INLINE cpack_avx2::LaneDict lane_dict(std::size_t n) const {
    alignas(32) std::int32_t pushed[8];
    for (unsigned c = 0; c < 8; ++c) pushed[c] = c < 6 && ((push_mask_ >> c) & 1u) ? -1 : 0;
    const bool evicts = dict_ == Dict::fifo || dict_ == Dict::deque;
    constexpr int kForever = 0x7FFFFF00;  // above any count, with room to add one
    cpack_avx2::LaneDict d{};
    d.push = _mm256_load_si256(reinterpret_cast<const __m256i*>(pushed));
    d.keep = _mm256_set1_epi32(evicts ? static_cast<int>(kSlots) : kForever);
    d.cap = _mm256_set1_epi32(evicts ? kForever : dict_ == Dict::fill ? static_cast<int>(kSlots) : static_cast<int>(n));
    d.no_zeros = _mm256_set1_epi32(zeros_ ? 0 : -1);
    d.by_age = _mm256_set1_epi32(dict_ == Dict::deque ? -1 : 0);
    d.big = endian_ == Endian::big;
    return d;
  }

  /// measure_range's groups of 8 fresh-dictionary blocks of 32 to 256 bytes through
  /// cpack_avx2::measure_lanes (not where the set search applies); the blocks from the index it
  /// returns on are the caller's.
  std::size_t measure_groups(const BlockView& blocks, std::size_t begin, std::size_t end,
                             const SizeColumns& out) const {
    const std::size_t b = blocks.block_bytes;
    if (persistent_ || (set_search() && b <= 64 && dict_ != Dict::block)) return begin;
    switch (b) {
      case 32: return measure_groups_n<8>(blocks, begin, end, out);
      case 64: return measure_groups_n<16>(blocks, begin, end, out);
      case 128: return measure_groups_n<32>(blocks, begin, end, out);
      case 256: return measure_groups_n<64>(blocks, begin, end, out);
      default: return begin;
    }
  }
  template <std::size_t N>
  MEMCOMP_AVX2 std::size_t measure_groups_n(const BlockView& blocks, std::size_t begin, std::size_t end,
                                            const SizeColumns& out) const {
    const cpack_avx2::LaneDict d = lane_dict(N);
    alignas(32) std::uint32_t payload[8], meta[8];
    std::size_t i = begin;
    for (; i + 8 <= end; i += 8) {
      cpack_avx2::measure_lanes<N>(blocks.block(i), N * 4, d, payload, meta);
      set_lane_sizes(out, i, 8, payload, meta);
    }
    return i;
  }

  /// encode_range with fresh 16-slot dictionaries: groups of 8 blocks through
  /// cpack_avx2::encode_lanes, each lane's tokens packed into its stream; the codec's encode()
  /// writes the blocks past the last group.
  std::size_t encode_groups(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                            std::size_t max_bytes, EncodedBlocks& enc) const {
    switch (blocks.block_bytes) {
      case 16: return encode_groups_n<4>(blocks, begin, end, buf, max_bytes, enc);
      case 32: return encode_groups_n<8>(blocks, begin, end, buf, max_bytes, enc);
      case 64: return encode_groups_n<16>(blocks, begin, end, buf, max_bytes, enc);
      case 128: return encode_groups_n<32>(blocks, begin, end, buf, max_bytes, enc);
      default: return encode_groups_n<64>(blocks, begin, end, buf, max_bytes, enc);
    }
  }
  template <std::size_t N>
  MEMCOMP_AVX2 std::size_t encode_groups_n(const BlockView& blocks, std::size_t begin, std::size_t end,
                                           std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) const {
    const std::size_t buf_bytes = batch::range_bytes(begin, end, max_bytes);
    const cpack_avx2::LaneDict d = lane_dict(N);
    alignas(32) std::uint64_t tok[16 * N];  // mc: every prefix, then every field
    alignas(32) std::uint32_t len[16 * N], bits[8];
    constexpr std::size_t kLaneBytes = (kMaxToken * N + 7) / 8 + 8 + 8;  // a stream, a store past it, rounding to 8
    alignas(32) std::uint8_t lane_out[8 * kLaneBytes];
    std::size_t at = 0, i = begin;
    for (; i + 8 <= end; i += 8) {
      cpack_avx2::encode_lanes<N>(blocks.block(i), blocks.block_bytes, d, mc_, tok, len);
      if (mc_)
        lanes::pack<2 * N, lanes::Layout::step_major>(tok, len, lane_out, kLaneBytes, bits);
      else
        lanes::pack<N, lanes::Layout::step_major>(tok, len, lane_out, kLaneBytes, bits);
      at = batch::append_streams(enc, i, 8, buf, at, lane_out, kLaneBytes, bits);
    }
    for (; i < end; ++i) {
      BitWriter w = batch::block_writer(buf, at, max_bytes, buf_bytes);
      codec_->encode(blocks.block(i), N * 4, w);
      at = batch::record_block(enc, i, at, 0, w.finish());
    }
    return at;
  }
};

// The lane decoder's rules from the codec's options.
MEMCOMP_AVX2 bool decode_group(const CpackShape& sh, const std::uint8_t* base, const std::int32_t* pos,
                               const std::int32_t* stop, unsigned n, unsigned b, std::uint8_t* buf,
                               std::uint32_t* dict) {
  constexpr unsigned G = kCpackDecodeLanes / 8;
  const unsigned push_mask_ = sh.push_mask;
  const Dict dict_ = sh.dict;
  const bool zeros_ = sh.zeros;
  cpack_avx2::LaneRules rules{};
  alignas(32) std::int32_t push[8];
  for (unsigned c = 0; c < 8; ++c) push[c] = c < 6 && ((push_mask_ >> c) & 1u) ? -1 : 0;
  rules.push = _mm256_load_si256(reinterpret_cast<const __m256i*>(push));
  rules.deque = dict_ == Dict::deque;
  rules.fill = dict_ == Dict::fill;
  rules.zeros = zeros_;
  return sh.big ? cpack_avx2::decode_lanes<true, G>(base, pos, stop, n, b, buf, dict, rules)
                : cpack_avx2::decode_lanes<false, G>(base, pos, stop, n, b, buf, dict, rules);
}

}  // namespace

const CpackKernels kCpackAvx2 = {
    [](const CpackShape& s, const Codec& c, const BlockView& blocks, std::size_t begin, std::size_t end,
       const SizeColumns& out) { CpackAvx2(s, c).measure_avx2(blocks, begin, end, out); },
    [](const CpackShape& s, const Codec& c, const BlockView& blocks, std::size_t begin, std::size_t end,
       const SizeColumns& out) { return CpackAvx2(s, c).measure_groups(blocks, begin, end, out); },
    [](const CpackShape& s, const Codec& c, const BlockView& blocks, std::size_t begin, std::size_t end,
       std::uint8_t* buf, std::size_t max_bytes,
       EncodedBlocks& enc) { return CpackAvx2(s, c).encode_groups(blocks, begin, end, buf, max_bytes, enc); },
    [](const CpackShape& s, const Codec& c, const std::uint8_t* blk, std::size_t b, BitWriter& out) {
      const CpackAvx2 k(s, c);
      return s.big ? k.encode_sets_b<true>(blk, b, out) : k.encode_sets_b<false>(blk, b, out);
    },
    [](const CpackShape& s, const Codec& c, const std::uint8_t* blk, std::size_t b, BitWriter& out, Dictionary& d) {
      const CpackAvx2 k(s, c);
      if (s.zeros)
        s.dict == Dict::fifo ? k.encode_avx2<Dict::fifo, true>(blk, b, out, d)
                             : k.encode_avx2<Dict::deque, true>(blk, b, out, d);
      else
        s.dict == Dict::fifo    ? k.encode_avx2<Dict::fifo, false>(blk, b, out, d)
        : s.dict == Dict::deque ? k.encode_avx2<Dict::deque, false>(blk, b, out, d)
                                : k.encode_avx2<Dict::fill, false>(blk, b, out, d);
    },
    &decode_group,
};

// The AVX-512 tier: 16 blocks side by side in measure_groups and encode_range (cpack_avx512.cpp),
// the rest as AVX2.
const CpackKernels kCpackAvx512 = {kCpackAvx2.measure_range, &cpack_measure_groups_avx512, &cpack_encode_range_avx512,
                                   kCpackAvx2.encode_sets,   kCpackAvx2.encode_block,      kCpackAvx2.decode_lanes};

}  // namespace memcomp
#endif
