// memcomp codecs: C-Pack (Chen, Yang, Dick, Shang, Lekatsas, TVLSI'10; SPEC 1.4; R §4).
// Every 32-bit word of the word view takes the smallest code, in the order
// zzzz < mmmm < zzzx < mmmx < mmxx < xxxx; among dictionary entries the lowest index wins.
//
//   code   pattern                        fields                  meta + payload bits
//   00     zzzz: word == 0                -                       2 + 0
//   01     xxxx: no match                 32-bit word             2 + 32
//   10     mmmm: entry == word            4-bit index             2 + 4
//   1100   mmxx: bits 31..16 match        index, low 16 bits      4 + 20
//   1101   zzzx: bits 31..8 are zero      low 8 bits              4 + 8
//   1110   mmmx: bits 31..8 match         index, low 8 bits       4 + 12
//   (1111 is undefined)
//
// Stream: [code][index:4][low bits of the word view] per word, in word order (layout
// "interleaved", the default); layout "mc" (Metadata Consolidation, P2 §4.3, SPEC 2) writes all
// B/4 codes in word order, then all [index][low bits] fields in word order (same size; the
// decoder reads the codes first). Options:
//   endian      word view: little (masks on the upper bytes of the LE word) or big (memory
//               bytes 0..2 act as the upper bytes: the memory-order-byte implementations);
//   push        which coded words enter the dictionary: unmatched = xxxx, mmxx, mmmx (paper);
//               literal = xxxx only (kim, schreiber, skku); nonnarrow = every word whose bits
//               31..8 are not all zero, i.e. all codes but zzzz and zzzx (gem5, whose zzzz and
//               zzzx patterns are built with allocate=false; SPEC 1.4 reads "every word not
//               coded zzzz", which is nonzero);
//   dictionary  fifo = 16 physical slots and a wrapping write pointer, index = slot (paper, kim);
//               deque = the same 16 entries indexed by age, 0 = oldest (skku's std::deque:
//               push_back + pop_front, searched from the front); fill = at most 16 entries,
//               pushes stop when full (schreiber); block = B/4 slots with no replacement, the
//               index still charged 4 bits (gem5: accounting-only, indices >= 16 do not fit;
//               gem5 v24 src/mem/cache/compressors/cpack.hh, dictionary_compressor_impl.hh
//               compressValue: the lowest index wins a tie; Compressors.py dictionary_size =
//               the line size; the preset's policy threshold(0.5) is base.cc's fallback);
//   init        empty, or 16 zero entries (kim resets its slots to 0 per line, skku's deque
//               starts as 16 zeros): zero entries match like any other, so 0x0000abcd is mmxx;
//   persistent  one dictionary carried across the blocks of a batch in array order (skku;
//               stateful). A batch starts from the initial dictionary unless it resumes.
//               Direct measure() calls keep a dictionary of their own, from the initial one.
// An index naming an empty slot, the code 1111 and a truncated stream are corrupt.
//
// First-match implementations (schreiber, skku: take the first entry whose bits 31..16 match,
// then its best code) give the same codes as the smallest-code rule under push=literal: a word
// is pushed only when no entry shares its bits 31..16, so all entries that share them are
// copies of one value (the initial zeros).
//
// cpack.nap64 is NAP64's cpack plugin (NAP64/Memory-Compression-Measurements-Open@eefc809,
// include/cpack.h, a C transplant of benschreiber/cpack) on 64 B lines, i.e. cpack.schreiber:
// bytes a, b, c, d of a word are memory bytes 4i..4i+3 (cpack.h:76-79, endian=big); zzzz and
// zzzx are tested first (82-90); then the first entry whose a, b match gives mmmm, mmmx or mmxx
// (93-113); otherwise xxxx, pushed as the next entry (119-132, push=literal, dictionary=fill: at
// most 16 pushes in 16 words). The plugin caps a line at 512 bits unless run with -p
// (src/compression/cpack.c:30-31, parse_switch on by default in src/driver.c:345): policy
// threshold(1), no flag bit charged; policy "none" gives the -p sizes.
//
// measure() avoids data-dependent branches: the smallest word ^ entry over the dictionary
// gives the code through a table, pushes are masked writes, and two independent blocks step
// through their words together.
#include <algorithm>
#include <cstring>

#include "memcomp/codecs/families.hpp"
#include "memcomp/codecs/lanes.hpp"
#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

namespace memcomp {
namespace {

enum Code : unsigned { kZZZZ = 0, kXXXX = 1, kMMMM = 2, kMMXX = 3, kZZZX = 4, kMMMX = 5 };

constexpr unsigned kMeta[6] = {2, 2, 2, 4, 4, 4};
constexpr unsigned kPayload[6] = {0, 32, 4, 20, 8, 12};
constexpr unsigned kPrefix[6] = {0b00, 0b01, 0b10, 0b1100, 0b1101, 0b1110};
constexpr unsigned kLowBits[6] = {0, 32, 0, 16, 8, 8};  // literal low bits after the index
constexpr std::uint32_t kMatchMask[6] = {0, 0, 0xFFFFFFFFu, 0xFFFF0000u, 0, 0xFFFFFF00u};

inline bool has_index(unsigned c) { return c == kMMMM || c == kMMXX || c == kMMMX; }

constexpr unsigned kMaxToken = 34;  // bits of the longest token (xxxx)
constexpr unsigned kBadCode = 6;    // prefix 1111
/// The code of a token by its first 4 bits.
constexpr unsigned kTopCode[16] = {kZZZZ, kZZZZ, kZZZZ, kZZZZ, kXXXX, kXXXX, kXXXX, kXXXX,
                                   kMMMM, kMMMM, kMMMM, kMMMM, kMMXX, kZZZX, kMMMX, kBadCode};

constexpr unsigned bit(unsigned c) { return 1u << c; }

enum class Dict { fifo, deque, fill, block };

constexpr unsigned kSlots = 16;
constexpr unsigned kMaxEntries = 64;  // block dictionary at B = 256

/// A block's words as encode() writes them: each word's code, index and low bits together
/// (layout interleaved), or with the mc layout every code first, then every field. Kept until
/// finish(), which writes them with BitWriter::write_fields.
struct WordWriter {
  BitWriter& out;
  bool mc;
  std::size_t n = 0;
  unsigned char codes[kMaxEntries];
  std::uint64_t v[kMaxEntries];  // interleaved: [code][index][low bits]; mc: [index][low bits]
  std::uint8_t len[kMaxEntries];

  WordWriter(BitWriter& w, bool mc_layout) : out(w), mc(mc_layout) {}
  void put(unsigned c, std::uint64_t field) {
    codes[n] = static_cast<unsigned char>(c);
    v[n] = mc ? field : std::uint64_t{kPrefix[c]} << kPayload[c] | field;
    len[n++] = static_cast<std::uint8_t>(mc ? kPayload[c] : kMeta[c] + kPayload[c]);
  }
  void finish() {
    if (mc) {
      std::uint32_t prefix[kMaxEntries];
      std::uint8_t meta[kMaxEntries];
      for (std::size_t i = 0; i < n; ++i) {
        prefix[i] = kPrefix[codes[i]];
        meta[i] = static_cast<std::uint8_t>(kMeta[codes[i]]);
      }
      out.write_fields(prefix, meta, n);
    }
    out.write_fields(v, len, n);
  }
};

/// The slot of the entry a stream index names, of `valid` entries: a full deque's indices go by
/// age (0 = the oldest; the zeros of init=zeros are older than any push); a filling deque and
/// every other dictionary are in slot order.
inline unsigned physical_slot(bool deque, unsigned valid, unsigned wp, unsigned idx) {
  return deque && valid == kSlots ? (wp + idx) % kSlots : idx;
}

/// Leading zero bytes of x: 4 for 0, 3 below 2^8, 2 below 2^16, ...
inline unsigned lz_bytes(std::uint32_t x) {
#if defined(__GNUC__)
  return static_cast<unsigned>(__builtin_clzll(std::uint64_t{x} << 32 | 0x80000000u)) >> 3;
#else
  return x == 0 ? 4u : x < 0x100u ? 3u : x < 0x10000u ? 2u : x < 0x1000000u ? 1u : 0u;
#endif
}

/// A word's code follows from key = 5 * lz_bytes(m) + lz_bytes(w), m being the smallest
/// w ^ entry: lz_bytes(m) is 4 if some entry equals w, >= 3 if one shares bits 31..8, >= 2 if
/// one shares bits 31..16. The table gives the smallest pattern for each key.
struct KeyTable {
  unsigned char code[25]{};
  unsigned char meta[25]{};
  unsigned char payload[25]{};
  constexpr KeyTable() {
    for (unsigned k = 0; k < 25; ++k) {
      const unsigned lm = k / 5, lw = k % 5;
      const unsigned c = lw == 4   ? kZZZZ
                         : lm == 4 ? kMMMM
                         : lw >= 3 ? kZZZX
                         : lm >= 3 ? kMMMX
                         : lm >= 2 ? kMMXX
                                   : kXXXX;
      code[k] = static_cast<unsigned char>(c);
      meta[k] = static_cast<unsigned char>(kMeta[c]);
      payload[k] = static_cast<unsigned char>(kPayload[c]);
    }
  }
};
constexpr KeyTable kKeys;

/// A dictionary. Slots [0, count) hold pushed words (all 16 once a fifo/deque is full). With
/// init=zeros the other slots of the 16 are zero entries, all valid; otherwise they are empty,
/// and the first push into a chunk of 16 slots copies its word into the whole chunk. Either way
/// a search may run past count to a multiple of 4: those slots change no code.
struct Dictionary {
  std::uint32_t e[kMaxEntries];
  unsigned count;  ///< slots holding pushed words
  unsigned wp;     ///< fifo/deque: the physical slot the next push writes (the oldest when full)
};

/// A persistent dictionary (16 slots) copied, not its unused slots past 16 (a fixed-size copy).
inline void copy_dict(const Dictionary& from, Dictionary& to) {
  std::memcpy(to.e, from.e, kSlots * sizeof(std::uint32_t));
  to.count = from.count;
  to.wp = from.wp;
}

/// Key (kKeys) of word w against the pushed entries [0, count), plus a zero entry if `zero`.
/// Branch-free: data-dependent branches here would cost more than the search.
inline unsigned key(std::uint32_t w, const std::uint32_t* e, unsigned count, unsigned zero) {
  std::uint32_t m0 = ~0u ^ ((~0u ^ w) & (0u - zero)), m1 = ~0u, m2 = ~0u, m3 = ~0u;  // four chains
  for (unsigned j = 0; j < count; j += 4) {
    m0 = std::min(m0, w ^ e[j]);
    m1 = std::min(m1, w ^ e[j + 1]);
    m2 = std::min(m2, w ^ e[j + 2]);
    m3 = std::min(m3, w ^ e[j + 3]);
  }
  const std::uint32_t m = std::min(std::min(m0, m1), std::min(m2, m3));
  return 5 * lz_bytes(m) + lz_bytes(w);
}

/// Pushes w into d when p is 1 (nothing changes when 0), without branching on p. Zeros: the
/// dictionary started as 16 zero entries (no empty slots to fill).
template <Dict K, bool Zeros>
inline void push(Dictionary& d, std::uint32_t w, unsigned p) {
  unsigned s, grows;
  if constexpr (K == Dict::fifo || K == Dict::deque) {
    s = d.wp;  // == count while filling
    grows = static_cast<unsigned>(d.count < kSlots);
    d.wp = (s + p) % kSlots;
  } else if constexpr (K == Dict::fill) {
    grows = static_cast<unsigned>(d.count < kSlots);
    p &= grows;  // full: pushes stop
    s = d.count % kSlots;
  } else {  // block: at most one push per word, so B/4 <= 64 slots never overflow
    grows = static_cast<unsigned>(d.count < kMaxEntries);
    p &= grows;
    s = d.count % kMaxEntries;
  }
  if constexpr (!Zeros) {
    // A new chunk of slots: filled with w even when nothing is pushed (the slots past `count` are
    // unused either way), so the masked update below never reads a slot nothing has written.
    if (grows & static_cast<unsigned>(s % 16 == 0)) std::fill(d.e + s, d.e + s + 16, w);
  }
  d.e[s] ^= (d.e[s] ^ w) & (0u - p);
  d.count += p & grows;
}

#if defined(MEMCOMP_X86_SIMD)
struct SlotSel {  // per target: all-ones in the slots a push writes (0..15: one, 16: none, 17: all)
  alignas(32) std::int32_t m[18][16]{};
  constexpr SlotSel() {
    for (unsigned t = 0; t < 18; ++t)
      for (unsigned j = 0; j < 16; ++j) m[t][j] = t == j || t == 17 ? -1 : 0;
  }
};
constexpr SlotSel kSlotSel{};
#endif

#if defined(MEMCOMP_X86_SIMD)
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
  const __m256i code_of =
      _mm256_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5, 6, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 4, 5, 6);
  const __m256i bits = _mm256_setr_epi32(2, 34, 6, 24, 12, 16, 0, 0);
  const __m256i index_shift = _mm256_setr_epi32(0, 0, 26, 24, 0, 24, 0, 0);
  const __m256i has_index = _mm256_setr_epi32(0, 0, -1, -1, 0, -1, 0, 0);
  const __m256i low_shift = _mm256_setr_epi32(0, 0, 0, 8, 20, 16, 0, 0);
  const __m256i low_mask = _mm256_setr_epi32(0, 0, 0, 0xFFFF, 0xFF, 0xFF, 0, 0);
  const __m256i kept =
      _mm256_setr_epi32(0, 0, -1, static_cast<int>(0xFFFF0000u), 0, static_cast<int>(0xFFFFFF00u), 0, 0);
  const __m256i literal = _mm256_setr_epi32(0, -1, 0, 0, 0, 0, 0, 0);
  const __m256i fifteen = _mm256_set1_epi32(15), sixteen = _mm256_set1_epi32(16), one = _mm256_set1_epi32(1);
  const __m256i deque = _mm256_set1_epi32(rules.deque ? -1 : 0), fill = _mm256_set1_epi32(rules.fill ? -1 : 0);
  const __m256i spare = _mm256_set1_epi32(static_cast<int>(8 * G * 16));
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
      const __m256i lit = lanes::low_halves(_mm256_srli_epi64(t0, 30), _mm256_srli_epi64(t1, 30));
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
          _mm256_or_si256(_mm256_cmpeq_epi32(c, _mm256_set1_epi32(6)), _mm256_cmpgt_epi32(pos[g], end[g])));
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

// Codes 8 blocks of N words (N <= 16, so a fresh dictionary never wraps: fifo, deque and fill
// agree, and the entry in slot s is the s-th word pushed) side by side, block k being lane k, one
// word of each per step. The search runs over the earlier words: each word j that was pushed
// ranks 0 (equal), 1 (shares bits 31..8), 2 (shares bits 31..16) or 3, and the smallest
// 16 * rank + slot names the best match at its lowest slot. Word i of block k gives
// tok[8 * i + k] (prefix, index and low bits; layout interleaved) in len[8 * i + k] bits. Blocks
// start at `base`, `stride` bytes apart; their words come in through 8x8 transposes (by gather
// for N = 4).
template <std::size_t N, bool Big>
MEMCOMP_AVX2_INLINE void encode_lanes(const std::uint8_t* base, std::size_t stride, const __m256i push,
                                      std::uint64_t* tok, std::uint32_t* len) {
  // By rank (0..3) + 4 if bits 31..8 of the word are zero: its code unless the word is zero.
  const __m256i code_of = _mm256_setr_epi32(kMMMM, kMMMX, kMMXX, kXXXX, kMMMM, kZZZX, kZZZX, kZZZX);
  // By code (zzzz, xxxx, mmmm, mmxx, zzzx, mmmx): its low bits' mask and width (the index goes
  // above them), whether it has an index, its prefix and its payload and total bits.
  const __m256i low_mask = _mm256_setr_epi32(0, -1, 0, 0xFFFF, 0xFF, 0xFF, 0, 0);
  const __m256i low_bits = _mm256_setr_epi32(0, 0, 0, 16, 8, 8, 0, 0);
  const __m256i has_index = _mm256_setr_epi32(0, 0, -1, -1, 0, -1, 0, 0);
  const __m256i prefix = _mm256_setr_epi32(0, 1, 2, 12, 13, 14, 0, 0);
  const __m256i payload = _mm256_setr_epi32(0, 32, 4, 20, 8, 12, 0, 0);
  const __m256i bits = _mm256_setr_epi32(2, 34, 6, 24, 12, 16, 0, 0);
  const __m256i zero = _mm256_setzero_si256(), none = _mm256_set1_epi32(0x100);
  __m256i word[N], slot[N];    // word i of the 8 blocks, and the slots of earlier ones (none: not pushed)
  if constexpr (N % 8 == 0) {  // 8 words of each block through an 8x8 transpose
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
  if (Big)
    for (std::size_t i = 0; i < N; ++i) word[i] = bswap32(word[i]);
  __m256i count = zero;
  for (std::size_t i = 0; i < N; ++i) {
    const __m256i w = word[i];
    __m256i best = none;
    for (std::size_t j = 0; j < i; ++j) {
      const __m256i x = _mm256_xor_si256(w, word[j]);
      // -rank: one -1 for each of x, x >> 8, x >> 16 that is not zero.
      const __m256i r = _mm256_add_epi32(
          _mm256_add_epi32(_mm256_cmpeq_epi32(x, zero), _mm256_cmpeq_epi32(_mm256_srli_epi32(x, 8), zero)),
          _mm256_cmpeq_epi32(_mm256_srli_epi32(x, 16), zero));
      best = _mm256_min_epu32(
          best, _mm256_add_epi32(slot[j], _mm256_slli_epi32(_mm256_add_epi32(r, _mm256_set1_epi32(3)), 4)));
    }
    const __m256i narrow = _mm256_cmpeq_epi32(_mm256_srli_epi32(w, 8), zero);
    const __m256i rank = _mm256_min_epu32(_mm256_srli_epi32(best, 4), _mm256_set1_epi32(3));
    __m256i c =
        _mm256_permutevar8x32_epi32(code_of, _mm256_or_si256(rank, _mm256_and_si256(narrow, _mm256_set1_epi32(4))));
    c = _mm256_andnot_si256(_mm256_cmpeq_epi32(w, zero), c);  // zzzz = 0
    const __m256i idx = _mm256_and_si256(best, _mm256_set1_epi32(15));
    const __m256i field =
        _mm256_or_si256(_mm256_and_si256(_mm256_permutevar8x32_epi32(has_index, c),
                                         _mm256_sllv_epi32(idx, _mm256_permutevar8x32_epi32(low_bits, c))),
                        _mm256_and_si256(w, _mm256_permutevar8x32_epi32(low_mask, c)));
    const __m256i pre = _mm256_permutevar8x32_epi32(prefix, c), pay = _mm256_permutevar8x32_epi32(payload, c);
    for (int h = 0; h < 2; ++h) {
      const __m128i ph = h ? _mm256_extracti128_si256(pre, 1) : _mm256_castsi256_si128(pre);
      const __m128i lh = h ? _mm256_extracti128_si256(pay, 1) : _mm256_castsi256_si128(pay);
      const __m128i fh = h ? _mm256_extracti128_si256(field, 1) : _mm256_castsi256_si128(field);
      const __m256i t = _mm256_or_si256(_mm256_sllv_epi64(_mm256_cvtepu32_epi64(ph), _mm256_cvtepu32_epi64(lh)),
                                        _mm256_cvtepu32_epi64(fh));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(tok + 8 * i + 4 * h), t);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(len + 8 * i), _mm256_permutevar8x32_epi32(bits, c));
    // The push: into slot count, or nowhere.
    const __m256i p = _mm256_permutevar8x32_epi32(push, c);
    slot[i] = _mm256_blendv_epi8(none, count, p);
    count = _mm256_sub_epi32(count, p);
  }
}

}  // namespace cpack_avx2
#endif

/// One block being measured.
struct Lane {
  Dictionary d;
  std::uint32_t payload, meta;
};

struct CPackSettings {
  Endian endian;
  std::string push;
  Dict dictionary;
  bool zeros, persistent, mc;
};

const OptionTable<CPackSettings>& cpack_table() {
  using S = CPackSettings;
  static const OptionTable<S> t{
      option_endian(&S::endian),
      option_choice("push", &S::push, "unmatched", {"unmatched", "literal", "nonnarrow", "nonzero"},
                    "words pushed: unmatched (xxxx, mmxx, mmmx), literal (xxxx), nonnarrow (above 0xFF), nonzero"),
      option_choice("dictionary", &S::dictionary, "fifo",
                    {{"fifo", Dict::fifo}, {"deque", Dict::deque}, {"fill", Dict::fill}, {"block", Dict::block}},
                    "16-slot FIFO, 16-entry deque, 16 entries filled once, or one slot per word of the block"),
      option_choice("init", &S::zeros, "empty", {{"empty", false}, {"zeros", true}},
                    "the dictionary starts empty or full of zeros"),
      option_bool("persistent", &S::persistent, false, "the dictionary is kept from block to block (stateful)"),
      option_choice("layout", &S::mc, "interleaved", {{"interleaved", false}, {"mc", true}},
                    "code and fields per word, or all codes first (Metadata Consolidation, HPCA'16)")};
  return t;
}

/// The settings of `o`, combinations the dictionaries cannot hold refused.
CPackSettings cpack_settings(const Options& o) {
  CPackSettings s = cpack_table().parse(o, "cpack");
  if (s.zeros && s.dictionary != Dict::fifo && s.dictionary != Dict::deque)
    throw invalid_argument("cpack: init=zeros needs dictionary=fifo or deque (a full dictionary of zeros)");
  if (s.persistent && s.dictionary == Dict::block)
    throw invalid_argument("cpack: persistent=True needs a bounded dictionary (fifo, deque or fill), not block");
  return s;
}

class CPack final : public CodecImpl<CPack> {
 public:
  explicit CPack(const Options& o) : s_(cpack_settings(o)) {
    endian_ = s_.endian;
    push_name_ = s_.push;
    dict_ = s_.dictionary;
    zeros_ = s_.zeros;
    persistent_ = s_.persistent;
    mc_ = s_.mc;
    if (push_name_ == "unmatched") push_mask_ = bit(kXXXX) | bit(kMMXX) | bit(kMMMX);
    if (push_name_ == "literal") push_mask_ = bit(kXXXX);
    if (push_name_ == "nonnarrow") push_mask_ = bit(kXXXX) | bit(kMMMM) | bit(kMMXX) | bit(kMMMX);
    if (push_name_ == "nonzero") push_mask_ = 0x3Fu & ~bit(kZZZZ);
    for (unsigned k = 0; k < 25; ++k) push_keys_ |= ((push_mask_ >> kKeys.code[k]) & 1u) << k;
    kind_min_ = push_name_ == "nonzero" ? 1u : 256u;
    set_search_ = !persistent_ && push_name_ != "literal";
    init(state_);
    init(direct_);
  }

  Options options() const override { return cpack_table().write(s_); }
  bool exact() const override { return dict_ != Dict::block; }
  bool stateful() const override { return persistent_; }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 34 * (b / 4); }
  std::vector<ModeName> modes() const override { return {{0, "cpack"}}; }

  /// Called directly (outside a batch), a persistent codec measures with a dictionary of its
  /// own: consecutive calls measure consecutive blocks from the initial state, as a fresh batch
  /// would. Batches keep theirs in state_ (reset, or resumed, by the batch loop).
  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    measure_lanes<1>(&blk, b, &s, persistent_ ? &direct_ : nullptr);
    return s;
  }

  /// Also callable on a block dictionary (cpack.gem5) while every index fits 4 bits, which the
  /// W6 tests use; the batch API refuses it (exact() is false).
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
#if defined(MEMCOMP_X86_SIMD)
    if (set_search() && !zeros_ && dict_ != Dict::block && b >= 16 && b <= 64 && simd_avx2()) {
      if (endian_ == Endian::big) return encode_sets_b<true>(blk, b, out);
      return encode_sets_b<false>(blk, b, out);
    }
#endif
    const std::size_t n = b / 4;
    Dictionary local;
    Dictionary& d = start(local);
#if defined(MEMCOMP_X86_SIMD)
    if (dict_ != Dict::block && simd_avx2()) {
      if (zeros_)
        dict_ == Dict::fifo ? encode_avx2<Dict::fifo, true>(blk, b, out, d)
                            : encode_avx2<Dict::deque, true>(blk, b, out, d);
      else
        dict_ == Dict::fifo    ? encode_avx2<Dict::fifo, false>(blk, b, out, d)
        : dict_ == Dict::deque ? encode_avx2<Dict::deque, false>(blk, b, out, d)
                               : encode_avx2<Dict::fill, false>(blk, b, out, d);
      return 0;
    }
#endif
    WordWriter words{out, mc_};
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, endian_);
      const unsigned k = key(w, d.e, d.count, zero_entry(d));
      const unsigned c = kKeys.code[k];
      std::uint64_t field = 0;  // index, low bits
      if (has_index(c)) {
        const unsigned idx = lowest_index(d, w, kMatchMask[c]);
        if (idx >= kSlots) not_decodable();
        field = idx;
      }
      words.put(c, field << kLowBits[c] | (w & low_mask(kLowBits[c])));
      push_any(d, w, (push_mask_ >> c) & 1u);
    }
    words.finish();
    return 0;
  }

  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    if (zeros_) {
      if (dict_ == Dict::fifo) return decode_k<Dict::fifo, true>(in, out, b);
      return decode_k<Dict::deque, true>(in, out, b);
    }
    switch (dict_) {
      case Dict::fifo: return decode_k<Dict::fifo, false>(in, out, b);
      case Dict::deque: return decode_k<Dict::deque, false>(in, out, b);
      case Dict::fill: return decode_k<Dict::fill, false>(in, out, b);
      default: return decode_k<Dict::block, false>(in, out, b);
    }
  }

 protected:
  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc) const override {
#if defined(MEMCOMP_X86_SIMD)
    if (!persistent_ && !zeros_ && !mc_ && dict_ != Dict::block && simd_avx2()) {
      const bool big = endian_ == Endian::big;
      if (blocks.block_bytes == 32)
        return big ? encode_range_avx2<8, true>(blocks, begin, end, buf, max_bytes, enc)
                   : encode_range_avx2<8, false>(blocks, begin, end, buf, max_bytes, enc);
      if (blocks.block_bytes == 64)
        return big ? encode_range_avx2<16, true>(blocks, begin, end, buf, max_bytes, enc)
                   : encode_range_avx2<16, false>(blocks, begin, end, buf, max_bytes, enc);
      if (blocks.block_bytes == 16)
        return big ? encode_range_avx2<4, true>(blocks, begin, end, buf, max_bytes, enc)
                   : encode_range_avx2<4, false>(blocks, begin, end, buf, max_bytes, enc);
    }
#endif
    return CodecImpl<CPack>::encode_range(blocks, begin, end, buf, max_bytes, enc);
  }
#if defined(MEMCOMP_X86_SIMD)
  // Fresh dictionaries without zero entries, layout interleaved, B = 16 to 64: groups of 8
  // blocks through cpack_avx2::encode_lanes and lanes::pack, each stream then behind the last.
  template <std::size_t N, bool Big>
  MEMCOMP_AVX2 std::size_t encode_range_avx2(const BlockView& blocks, std::size_t begin, std::size_t end,
                                             std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) const {
    const std::size_t buf_bytes = range_bytes(begin, end, max_bytes);
    alignas(32) std::int32_t pushed[8];
    for (unsigned c = 0; c < 8; ++c) pushed[c] = c < 6 && ((push_mask_ >> c) & 1u) ? -1 : 0;
    const __m256i push = _mm256_load_si256(reinterpret_cast<const __m256i*>(pushed));
    alignas(32) std::uint64_t tok[8 * N];
    alignas(32) std::uint32_t len[8 * N], bits[8];
    constexpr std::size_t kLaneBytes = (34 * N + 7) / 8 + 8 + 8;  // a stream, a store past it, rounding to 8
    alignas(32) std::uint8_t lane_out[8 * kLaneBytes];
    std::size_t at = 0, i = begin;
    for (; i + 8 <= end; i += 8) {
      cpack_avx2::encode_lanes<N, Big>(blocks.block(i), blocks.block_bytes, push, tok, len);
      lanes::pack<N, lanes::Layout::step_major>(tok, len, lane_out, kLaneBytes, bits);
      at = append_streams(enc, i, 8, buf, at, lane_out, kLaneBytes, bits);
    }
    for (; i < end; ++i) {
      BitWriter w = block_writer(buf, at, max_bytes, buf_bytes);
      encode(blocks.block(i), N * 4, w);
      at = record_block(enc, i, at, 0, w.finish());
    }
    return at;
  }
  // Fresh dictionaries, layout interleaved: groups of 24 blocks through cpack_avx2::decode_lanes.
  // A group whose streams are not all valid, or too near the end of the data for its reads, is
  // decoded one block at a time (which names the first bad block).
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end) const override {
    if (!persistent_ && !mc_ && dict_ != Dict::block && simd_avx2())
      begin = endian_ == Endian::big ? decode_range_avx2<true>(enc, out, begin, end)
                                     : decode_range_avx2<false>(enc, out, begin, end);
    CodecImpl<CPack>::decode_range(enc, out, begin, end);
  }
  template <bool Big>
  MEMCOMP_AVX2 std::size_t decode_range_avx2(const EncodedView& enc, std::uint8_t* out, std::size_t begin,
                                             std::size_t end) const {
    constexpr unsigned G = 3, kLanes = 8 * G;
    const auto n = static_cast<unsigned>(enc.block_bytes / 4), b = static_cast<unsigned>(enc.block_bytes);
    alignas(32) std::uint32_t dict[kLanes * kSlots + 1] = {};  // zeros: init=zeros' entries, never rewritten
    cpack_avx2::LaneRules rules{};
    alignas(32) std::int32_t push[8];
    for (unsigned c = 0; c < 8; ++c) push[c] = c < 6 && ((push_mask_ >> c) & 1u) ? -1 : 0;
    rules.push = _mm256_load_si256(reinterpret_cast<const __m256i*>(push));
    rules.deque = dict_ == Dict::deque;
    rules.fill = dict_ == Dict::fill;
    rules.zeros = zeros_;
    return decode_groups<kLanes>(enc, out, begin, end, 34,
                                 [&](const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* stop,
                                     std::uint8_t* buf) MEMCOMP_AVX2 {
                                   if (zeros_) std::fill(dict, dict + kLanes * kSlots, 0u);
                                   return cpack_avx2::decode_lanes<Big, G>(base, pos, stop, n, b, buf, dict, rules);
                                 });
  }
#endif
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end,
                     const SizeColumns& out) const override {
    if (push_name_ == "literal" && dict_ != Dict::block && simd_enabled())
      return measure_literal(blocks, begin, end, out);
#if defined(MEMCOMP_X86_SIMD)
    if (dict_ != Dict::block && blocks.block_bytes >= 16 && simd_avx2()) return measure_avx2(blocks, begin, end, out);
#endif
    if (persistent_) {  // one dictionary, block after block (a stateful batch is one range)
      for (std::size_t i = begin; i < end; ++i) {
        const std::uint8_t* blk = blocks.block(i);
        SizeBreakdown s;
        measure_lanes<1>(&blk, blocks.block_bytes, &s, &state_);
        out.set(i, s);
      }
      return;
    }
    // Independent blocks: two step through their words together, so the dependent chains of
    // one block (code -> push -> next search) overlap with the other's.
    std::size_t i = begin;
    for (; i + 2 <= end; i += 2) {
      const std::uint8_t* blk[2] = {blocks.block(i), blocks.block(i + 1)};
      SizeBreakdown s[2];
      measure_lanes<2>(blk, blocks.block_bytes, s, nullptr);
      out.set(i, s[0]);
      out.set(i + 1, s[1]);
    }
    if (i < end) out.set(i, measure(blocks.block(i), blocks.block_bytes));
  }
  void reset() const override {
    init(state_);
    init(direct_);
  }
  /// The persistent dictionary: [count:8][wp:8][16 entries, 32-bit little-endian].
  std::vector<std::uint8_t> save_state() const override {
    std::vector<std::uint8_t> out(2 + 4 * kSlots);
    out[0] = static_cast<std::uint8_t>(state_.count);
    out[1] = static_cast<std::uint8_t>(state_.wp);
    for (unsigned k = 0; k < kSlots; ++k) {  // slots past count are written as load_state fills them
      const std::uint32_t e = zeros_ || k < state_.count ? state_.e[k] : state_.count ? state_.e[0] : 0u;
      store<std::uint32_t>(out.data() + 2 + 4 * k, e, Endian::little);
    }
    return out;
  }
  void load_state(const std::uint8_t* p, std::size_t n) const override {
    if (n != 2 + 4 * kSlots)
      throw corrupt_stream(preset() + " entry state: expected " + std::to_string(2 + 4 * kSlots) + " bytes, got " +
                           std::to_string(n));
    Dictionary d{};
    d.count = p[0];
    d.wp = p[1];
    const bool filling = (dict_ == Dict::fifo || dict_ == Dict::deque) && d.count < kSlots;
    if (d.count > kSlots || d.wp >= kSlots || (filling && d.wp != d.count) || (dict_ == Dict::fill && d.wp != 0))
      throw corrupt_stream(preset() + " entry state: count " + std::to_string(d.count) + " and write pointer " +
                           std::to_string(d.wp) + " describe no dictionary");
    for (unsigned k = 0; k < kSlots; ++k) d.e[k] = load<std::uint32_t>(p + 2 + 4 * k, Endian::little);
    // Slots past count hold copies of the first entry (the branch-free search reads them).
    if (!zeros_ && d.count > 0) std::fill(d.e + d.count, d.e + kSlots, d.e[0]);
    state_ = d;
  }
  /// A deque of zeros behaves by its entries in age order alone (every slot valid, indices by
  /// age): a run from a guess with the same entries in that order as the truth is the same run,
  /// and where the truth is full (count 16) it ends with the guess's entries, its write pointer
  /// moved as far as the guess's.
  bool resync_state(const std::vector<std::uint8_t>& guess, const std::vector<std::uint8_t>& truth,
                    const std::vector<std::uint8_t>& guess_end, std::vector<std::uint8_t>& truth_end) const override {
    if (!(zeros_ && dict_ == Dict::deque) || truth[0] != kSlots)
      return Codec::resync_state(guess, truth, guess_end, truth_end);
    auto entry = [](const std::vector<std::uint8_t>& st, unsigned age) {  // age 0: the oldest
      return load<std::uint32_t>(st.data() + 2 + 4 * ((st[1] + age) % kSlots), Endian::little);
    };
    for (unsigned a = 0; a < kSlots; ++a)
      if (entry(guess, a) != entry(truth, a)) return false;
    truth_end = truth;
    truth_end[1] = static_cast<std::uint8_t>((truth[1] + guess_end[1] + kSlots - guess[1]) % kSlots);
    for (unsigned a = 0; a < kSlots; ++a)
      store<std::uint32_t>(truth_end.data() + 2 + 4 * ((truth_end[1] + a) % kSlots), entry(guess_end, a),
                           Endian::little);
    return true;
  }

 private:
  /// decode() for one kind of dictionary, on a local copy of a persistent one (stores of the
  /// words could alias it otherwise and force reloads).
  template <Dict K, bool Zeros>
  void decode_k(BitReader& in, std::uint8_t* out, std::size_t b) const {
    const std::size_t n = b / 4;
    const std::uint32_t push_mask = push_mask_;
    const Endian endian = endian_;
    const bool mc = mc_;
    Dictionary d;
    const auto begin = [&] {
      if (persistent_) return copy_dict(state_, d);  // fifo, deque or fill: 16 slots
      init(d);
      if (!Zeros) std::fill(d.e, d.e + kSlots, 0u);  // read (masked out) before the first push
    };
    begin();
    const auto finish = [&] {
      if (persistent_) copy_dict(d, state_);
    };
    if (!mc && in.raw_room() >= n * kMaxToken + 64) {
      // Interleaved with room in the buffer: a token a step, by unchecked reads, the end checked
      // once. Anything amiss (a bad code or index, a stream too short): again, checked, below.
      BitReader r = in;
      std::size_t i = 0;
      for (; i < n; ++i) {
        const std::uint64_t t = r.peek_raw(kMaxToken);
        const unsigned c = kTopCode[t >> (kMaxToken - 4)];
        if (c == kBadCode) break;
        const unsigned len = kMeta[c] + kPayload[c];
        const std::uint64_t payload = (t >> (kMaxToken - len)) & low_mask(kPayload[c]);
        const auto idx = static_cast<unsigned>(payload >> kLowBits[c]);  // < 16, 0 without an index
        const unsigned valid = Zeros ? kSlots : d.count;
        if (!Zeros && has_index(c) && idx >= valid) break;
        const std::uint32_t w = (d.e[physical_slot(K == Dict::deque, valid, d.wp, idx)] & kMatchMask[c]) |
                                static_cast<std::uint32_t>(payload & low_mask(kLowBits[c]));
        r.skip_raw(len);
        store<std::uint32_t>(out + 4 * i, w, endian);
        push<K, Zeros>(d, w, (push_mask >> c) & 1u);
      }
      if (i == n && !r.overran()) {
        in = r;
        return finish();
      }
      begin();
    }
    unsigned char codes[kMaxEntries];
    if (mc)
      for (std::size_t i = 0; i < n; ++i) codes[i] = static_cast<unsigned char>(read_code(in, i));
    for (std::size_t i = 0; i < n; ++i) {
      unsigned c, idx = 0;
      std::uint32_t low;
      const unsigned valid = Zeros ? kSlots : d.count;  // entries an index may name
      // Interleaved: the next token at once when the stream holds all of it (else field by
      // field, which names what is wrong).
      const std::uint64_t t = mc ? 0 : in.peek(kMaxToken);
      const unsigned top = kTopCode[t >> (kMaxToken - 4)];
      if (!mc && top != kBadCode && kMeta[top] + kPayload[top] <= in.remaining()) {
        c = top;
        const unsigned len = kMeta[c] + kPayload[c];
        const std::uint64_t payload = (t >> (kMaxToken - len)) & low_mask(kPayload[c]);
        idx = static_cast<unsigned>(payload >> kLowBits[c]);
        low = static_cast<std::uint32_t>(payload & low_mask(kLowBits[c]));
        in.skip(len);
      } else {
        c = mc ? codes[i] : read_code(in, i);
        if (has_index(c)) idx = static_cast<unsigned>(in.read(4));
        low = has_index(c) && idx >= valid ? 0u : static_cast<std::uint32_t>(in.read(kLowBits[c]));
      }
      std::uint32_t entry = 0;
      if (has_index(c)) {
        if (idx >= valid)
          throw corrupt_stream("cpack index " + std::to_string(idx) + " names an empty dictionary slot (" +
                               std::to_string(valid) + " valid, word " + std::to_string(i) + ")");
        entry = d.e[physical_slot(K == Dict::deque, valid, d.wp, idx)];
      }
      const std::uint32_t w = (entry & kMatchMask[c]) | low;
      store<std::uint32_t>(out + 4 * i, w, endian);
      push<K, Zeros>(d, w, (push_mask >> c) & 1u);
    }
    finish();
  }

  static unsigned read_code(BitReader& in, std::size_t i) {
    switch (in.read(2)) {
      case 0: return kZZZZ;
      case 1: return kXXXX;
      case 2: return kMMMM;
      default: {
        const auto sub = static_cast<unsigned>(in.read(2));
        if (sub == 3) throw corrupt_stream("cpack code 1111 is undefined (word " + std::to_string(i) + ")");
        return sub == 0 ? kMMXX : sub == 1 ? kZZZX : kMMMX;
      }
    }
  }

  template <std::size_t L>
  void measure_lanes(const std::uint8_t* const* blk, std::size_t b, SizeBreakdown* out, Dictionary* st) const {
    if (zeros_) {
      switch (dict_) {
        case Dict::fifo: return measure_k<Dict::fifo, true, L>(blk, b, out, st);
        default: return measure_k<Dict::deque, true, L>(blk, b, out, st);
      }
    }
    switch (dict_) {
      case Dict::fifo: return measure_k<Dict::fifo, false, L>(blk, b, out, st);
      case Dict::deque: return measure_k<Dict::deque, false, L>(blk, b, out, st);
      case Dict::fill: return measure_k<Dict::fill, false, L>(blk, b, out, st);
      default: return measure_k<Dict::block, false, L>(blk, b, out, st);
    }
  }

  /// Measures L blocks word by word in lockstep, each from a fresh dictionary, or (L = 1) one
  /// block from the persistent dictionary *st, which it updates.
  template <Dict K, bool Zeros, std::size_t L>
  void measure_k(const std::uint8_t* const* blk, std::size_t b, SizeBreakdown* out, Dictionary* st) const {
    const std::size_t n = b / 4;
    // Locals, not members: stores into e[] could alias members and force reloads.
    const std::uint32_t push_keys = push_keys_;
    const Endian endian = endian_;
    Lane lane[L];
    for (std::size_t l = 0; l < L; ++l) {
      if (st) {  // L == 1
        copy_dict(*st, lane[l].d);
      } else {
        init(lane[l].d);
      }
      lane[l].payload = lane[l].meta = 0;
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t l = 0; l < L; ++l) {
        Lane& x = lane[l];
        const std::uint32_t w = load<std::uint32_t>(blk[l] + 4 * i, endian);
        const unsigned k = key(w, x.d.e, x.d.count, Zeros ? static_cast<unsigned>(x.d.count < kSlots) : 0u);
        x.payload += kKeys.payload[k];
        x.meta += kKeys.meta[k];
        push<K, Zeros>(x.d, w, (push_keys >> k) & 1u);
      }
    }
    if (st) copy_dict(lane[0].d, *st);
    for (std::size_t l = 0; l < L; ++l) {
      out[l] = SizeBreakdown{};
      out[l].payload = lane[l].payload;
      out[l].meta = lane[l].meta;
    }
  }

#if defined(MEMCOMP_X86_SIMD)
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
    return 5 * lm + lz_bytes(w);
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
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, endian_);
      const __m256i wv = _mm256_set1_epi32(static_cast<int>(w));
      const unsigned k = search<Zeros>(x, wv, w);
      const unsigned c = kKeys.code[k];
      std::uint64_t field = 0;  // index, low bits
      if (has_index(c)) {
        const __m256i mask = _mm256_set1_epi32(static_cast<int>(kMatchMask[c])), zero = _mm256_setzero_si256();
        const __m256i h0 = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_xor_si256(x.e0, wv), mask), zero);
        const __m256i h1 = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_xor_si256(x.e1, wv), mask), zero);
        unsigned h = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(h0)) |
                                           _mm256_movemask_ps(_mm256_castsi256_ps(h1)) << 8);
        const bool full = Zeros || x.count >= kSlots;
        if (!full) h &= (1u << x.count) - 1;
        if (K == Dict::deque && full) h = (h >> x.wp | h << (kSlots - x.wp)) & 0xFFFFu;
        if (h == 0) not_decodable();  // unreachable for a code from search()
        field = static_cast<unsigned>(__builtin_ctz(h));
      }
      words.put(c, field << kLowBits[c] | (w & low_mask(kLowBits[c])));
      push_lane<K, Zeros>(x, wv, k, push_keys);
    }
    store_lane(x, d);
    words.finish();
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
        lanes_avx2<K, Zeros, 1>(&blk, b, &s, &state_);
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

  // Fresh dictionaries that never evict (B <= 64: at most 15 pushes before the last word meets
  // 16 slots, or B/4 block slots), under a push rule that pushes every word of a kind unless its
  // value is already in: unmatched and nonnarrow (bits 31..8 not all zero; a word that is not
  // pushed equals an entry, or is zzzz or zzzx), nonzero. The dictionary a word is searched in
  // is then, as a set of values, every earlier word of that kind (plus the zero entries), so
  // every word's best match is a minimum over earlier words: no chain from word to word.
  bool set_search() const { return set_search_; }  // B <= 64 is checked per batch

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
        __m256i pay = _mm256_set1_epi32(32), met = _mm256_set1_epi32(2);
        pay = _mm256_blendv_epi8(pay, _mm256_set1_epi32(20), lm2);
        met = _mm256_blendv_epi8(met, _mm256_set1_epi32(4), lm2);
        pay = _mm256_blendv_epi8(pay, _mm256_set1_epi32(12), lm3);
        pay = _mm256_blendv_epi8(pay, _mm256_set1_epi32(8), narrow);
        met = _mm256_blendv_epi8(met, _mm256_set1_epi32(4), narrow);
        pay = _mm256_blendv_epi8(pay, _mm256_set1_epi32(4), lm4);
        met = _mm256_blendv_epi8(met, _mm256_set1_epi32(2), lm4);
        pay = _mm256_andnot_si256(zzzz, pay);
        met = _mm256_blendv_epi8(met, _mm256_set1_epi32(2), zzzz);
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
      code[i] = kKeys.code[5 * lz_bytes(m[i]) + lz_bytes(w[i])];
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
#endif

  // push=literal (kim, schreiber, skku) with a 16-slot dictionary: a word is pushed only when
  // no entry shares its bits 31..16, so the entries have distinct upper halves (but those of
  // upper half 0: the initial zeros) and a word's best match is the one entry with its upper
  // half. An index by upper half replaces the search: one lookup per word instead of a chain of
  // compares over 16 entries. The dictionary itself is kept as measure_k keeps it (a persistent
  // state is the same either way), and nothing branches on the data.
  void measure_literal(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out) const {
    if (zeros_)
      return dict_ == Dict::fifo ? measure_literal<Dict::fifo, true>(blocks, begin, end, out)
                                 : measure_literal<Dict::deque, true>(blocks, begin, end, out);
    if (dict_ == Dict::fifo) return measure_literal<Dict::fifo, false>(blocks, begin, end, out);
    if (dict_ == Dict::deque) return measure_literal<Dict::deque, false>(blocks, begin, end, out);
    measure_literal<Dict::fill, false>(blocks, begin, end, out);
  }

  template <Dict K, bool Zeros>
  void measure_literal(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out) const {
    // entry[h]: the entry with upper half h != 0 (its own upper half tells it is there, 0 is
    // not), or for h = 0 the last one pushed (0 for the zeros), with `low` entries there.
    thread_local std::vector<std::uint32_t> table(std::size_t{1} << 16);
    std::uint32_t* entry = table.data();
    unsigned low = 0;
    auto add = [&](std::uint32_t e, unsigned on) {  // on = 1: e enters, 0: nothing
      entry[e >> 16] = on ? e : entry[e >> 16];
      low += on & static_cast<unsigned>(e >> 16 == 0);
    };
    auto remove = [&](std::uint32_t e, unsigned on) {
      entry[e >> 16] = on && (e >> 16) ? 0u : entry[e >> 16];
      low -= on & static_cast<unsigned>(e >> 16 == 0);
    };
    constexpr unsigned evicting = K == Dict::fifo || K == Dict::deque ? 1u : 0u;
    const std::uint32_t push_keys = push_keys_;
    const Endian endian = endian_;
    Dictionary d = state_;  // a local copy: stores into the index cannot alias it
    auto index = [&](bool in) {
      for (unsigned k = 0; k < valid(d); ++k) in ? add(d.e[k], 1) : remove(d.e[k], 1);
    };
    if (persistent_) index(true);
    for (std::size_t i = begin; i < end; ++i) {
      if (!persistent_) {
        init(d);
        index(true);
      }
      const std::uint8_t* blk = blocks.block(i);
      std::uint32_t payload = 0, meta = 0;
      for (std::size_t j = 0; j < blocks.block_bytes / 4; ++j) {
        const std::uint32_t w = load<std::uint32_t>(blk + 4 * j, endian), h = w >> 16, e = entry[h];
        const bool has = h ? e >> 16 == h : low > 0;
        const unsigned lm = has ? lz_bytes(w ^ e) : 0u;  // below 2 every code is the same
        const unsigned k = 5 * lm + lz_bytes(w);
        payload += kKeys.payload[k];
        meta += kKeys.meta[k];
        const unsigned p = (push_keys >> k) & static_cast<unsigned>(K != Dict::fill || d.count < kSlots);
        remove(d.e[d.wp], p & evicting & static_cast<unsigned>(Zeros || d.count >= kSlots));
        push<K, Zeros>(d, w, p);
        add(w, p);
      }
      SizeBreakdown s;
      s.payload = payload;
      s.meta = meta;
      out.set(i, s);
      if (!persistent_) index(false);
    }
    if (persistent_) {
      index(false);  // the index is left empty for the next call
      state_ = d;
    }
  }

  /// An empty dictionary, or 16 zero entries.
  void init(Dictionary& d) const {
    d.count = 0;
    d.wp = 0;
    if (zeros_) std::fill(d.e, d.e + kSlots, 0u);
  }
  /// The dictionary a block starts from: the persistent one, or `local` freshly initialised.
  Dictionary& start(Dictionary& local) const {
    if (persistent_) return state_;
    init(local);
    return local;
  }

  void push_any(Dictionary& d, std::uint32_t w, unsigned p) const {
    if (zeros_) {
      if (dict_ == Dict::fifo)
        push<Dict::fifo, true>(d, w, p);
      else
        push<Dict::deque, true>(d, w, p);
      return;
    }
    switch (dict_) {
      case Dict::fifo: push<Dict::fifo, false>(d, w, p); break;
      case Dict::deque: push<Dict::deque, false>(d, w, p); break;
      case Dict::fill: push<Dict::fill, false>(d, w, p); break;
      case Dict::block: push<Dict::block, false>(d, w, p); break;
    }
  }

  /// 1 while zero entries of init=zeros remain (fewer than 16 pushes so far).
  unsigned zero_entry(const Dictionary& d) const { return static_cast<unsigned>(zeros_ && d.count < kSlots); }
  /// Entries an index may name.
  unsigned valid(const Dictionary& d) const { return zeros_ ? kSlots : d.count; }

  /// Physical slot of the entry a stream index names (physical_slot).
  unsigned physical(const Dictionary& d, unsigned idx) const {
    return physical_slot(dict_ == Dict::deque, valid(d), d.wp, idx);
  }

  /// The lowest index whose entry matches w under mask (the caller knows one exists).
  unsigned lowest_index(const Dictionary& d, std::uint32_t w, std::uint32_t mask) const {
    for (unsigned idx = 0; idx < valid(d); ++idx)
      if (((w ^ d.e[physical(d, idx)]) & mask) == 0) return idx;
    return valid(d);  // unreachable for a code from key()
  }

  const CPackSettings s_;
  Endian endian_ = Endian::little;
  std::string push_name_;
  unsigned push_mask_ = 0;       ///< bit c: words coded c are pushed
  std::uint32_t kind_min_ = 0;   ///< set search: the smallest word of the kind that is pushed
  bool set_search_ = false;      ///< measure_sets applies (a fresh dictionary, push not literal)
  std::uint32_t push_keys_ = 0;  ///< the same by key (bit k: kKeys.code[k] is pushed)
  Dict dict_ = Dict::fifo;
  bool zeros_ = false;
  bool persistent_ = false;
  bool mc_ = false;
  mutable Dictionary state_{};   ///< persistent dictionary of batches (they run on one thread)
  mutable Dictionary direct_{};  ///< persistent dictionary of direct measure() calls
};

std::unique_ptr<Codec> make_cpack(const Options& o) { return std::make_unique<CPack>(o); }

}  // namespace

void add_cpack_presets(std::vector<Preset>& out) {
  using S = std::string;
  out.push_back({"cpack.paper",
                 "cpack",
                 "TVLSI'10 codes on the LE word; push xxxx/mmxx/mmmx into a 16-slot FIFO reset per block",
                 "none",
                 {},
                 true,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.mc",
                 "cpack",
                 "cpack.paper with Metadata Consolidation (HPCA'16): all codes, then all index and literal fields",
                 "none",
                 {{"layout", S("mc")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.gem5",
                 "cpack",
                 "gem5 v24 CPack: every word above 0xFF allocated, B/4 slots charged 4 bits, lines above 50 % "
                 "stored whole (threshold(0.5); accounting-only)",
                 "threshold(0.5)",
                 {{"push", S("nonnarrow")}, {"dictionary", S("block")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.kim",
                 "cpack",
                 "scalable-arch C-Pack model: push xxxx only, 16-slot FIFO reset to zeros per line",
                 "none",
                 {{"push", S("literal")}, {"init", S("zeros")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.schreiber",
                 "cpack",
                 "benschreiber/cpack: memory-order bytes, push xxxx only, up to 16 entries",
                 "none",
                 {{"endian", S("big")}, {"push", S("literal")}, {"dictionary", S("fill")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.nap64",
                 "cpack",
                 "NAP64 cpack plugin (= cpack.schreiber), capped at the line as NAP64 reports by default",
                 "threshold(1)",
                 {{"endian", S("big")}, {"push", S("literal")}, {"dictionary", S("fill")}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.skku",
                 "cpack",
                 "SKKU CAL_22-MPC: memory-order bytes, one 16-entry deque of zeros kept across blocks (stateful)",
                 "none",
                 {{"endian", S("big")},
                  {"push", S("literal")},
                  {"dictionary", S("deque")},
                  {"init", S("zeros")},
                  {"persistent", true}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
  out.push_back({"cpack.cal22",
                 "cpack",
                 "the MPC authors' tool (CAL_22-MPC): = cpack.skku (stateful)",
                 "none",
                 {{"endian", S("big")},
                  {"push", S("literal")},
                  {"dictionary", S("deque")},
                  {"init", S("zeros")},
                  {"persistent", true}},
                 false,
                 &make_cpack,
                 &space_of<cpack_table>});
}

}  // namespace memcomp
