// memcomp codecs: C-Pack's kernel table (private; kernels/kernels.hpp), and the format's tables,
// the dictionaries and their pushes, defined here once for the codec (cpack.cpp) and its kernels
// (cpack_avx2.cpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels.hpp"
#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/bits.hpp"
#include "memcomp/core/bitstream.hpp"

namespace memcomp {
namespace cpack {

enum Code : unsigned { kZZZZ = 0, kXXXX = 1, kMMMM = 2, kMMXX = 3, kZZZX = 4, kMMMX = 5 };

inline constexpr unsigned kMeta[6] = {2, 2, 2, 4, 4, 4};
inline constexpr unsigned kPayload[6] = {0, 32, 4, 20, 8, 12};
inline constexpr unsigned kPrefix[6] = {0b00, 0b01, 0b10, 0b1100, 0b1101, 0b1110};
inline constexpr unsigned kLowBits[6] = {0, 32, 0, 16, 8, 8};  // literal low bits after the index
inline constexpr std::uint32_t kMatchMask[6] = {0, 0, 0xFFFFFFFFu, 0xFFFF0000u, 0, 0xFFFFFF00u};

constexpr bool has_index(unsigned c) { return c == kMMMM || c == kMMXX || c == kMMMX; }

inline constexpr unsigned kMaxToken = kMeta[kXXXX] + kPayload[kXXXX];  // bits of the longest token (xxxx)
inline constexpr unsigned kBadCode = 6;                                // prefix 1111
/// The code of a token by its first 4 bits.
inline constexpr unsigned kTopCode[16] = {kZZZZ, kZZZZ, kZZZZ, kZZZZ, kXXXX, kXXXX, kXXXX, kXXXX,
                                          kMMMM, kMMMM, kMMMM, kMMMM, kMMXX, kZZZX, kMMMX, kBadCode};

inline constexpr unsigned bit(unsigned c) { return 1u << c; }

enum class Dict { fifo, deque, fill, block };

inline constexpr unsigned kSlots = 16;
inline constexpr unsigned kMaxEntries = 64;  // block dictionary at B = 256

/// A block's words as encode() writes them: each word's code, index and low bits together
/// (layout interleaved), or with the mc layout every code first, then every field. Kept until
/// finish(), which writes them with BitWriter::write_fields.
struct WordWriter {
  BitWriter* out;
  bool mc;
  std::size_t n = 0;
  unsigned char codes[kMaxEntries];
  std::uint64_t v[kMaxEntries];  // interleaved: [code][index][low bits]; mc: [index][low bits]
  std::uint8_t len[kMaxEntries];

  WordWriter(BitWriter& w, bool mc_layout) : out(&w), mc(mc_layout) {}
  void put(unsigned c, std::uint64_t field) {
    codes[n] = static_cast<unsigned char>(c);
    v[n] = mc ? field : std::uint64_t{kPrefix[c]} << kPayload[c] | field;
    len[n++] = static_cast<std::uint8_t>(mc ? kPayload[c] : kMeta[c] + kPayload[c]);
  }
  void finish() {
    BitWriter& w = *out;
    if (mc) {
      std::uint32_t prefix[kMaxEntries] = {};
      std::uint8_t meta[kMaxEntries] = {};
      for (std::size_t i = 0; i < n; ++i) {
        prefix[i] = kPrefix[codes[i]];
        meta[i] = static_cast<std::uint8_t>(kMeta[codes[i]]);
      }
      w.write_fields(prefix, meta, n);
    }
    w.write_fields(v, len, n);
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
/// The key of a word with lw leading zero bytes whose best match leaves lm (kKeys).
constexpr unsigned key_of(unsigned lm, unsigned lw) { return 5 * lm + lw; }

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
inline constexpr KeyTable kKeys;

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
  return key_of(lz_bytes(m), lz_bytes(w));
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

/// A fresh dictionary: empty, or (zeros) full of zero entries.
inline void init(Dictionary& d, bool zeros) {
  d.count = 0;
  d.wp = 0;
  if (zeros) std::fill(d.e, d.e + kSlots, 0u);
}

}  // namespace cpack

/// The codec options a kernel reads, and the dictionary of a persistent batch.
struct CpackShape {
  bool big, zeros, mc, persistent, set_search;
  cpack::Dict dict;
  unsigned push_mask;        // bit c: words coded c are pushed
  std::uint32_t push_keys;   // the same by key
  std::uint32_t kind_min;    // set search: the smallest word of the kind that is pushed
  cpack::Dictionary* state;  // a persistent batch's dictionary (its session's state); else null
};

/// Sets blocks [i, i + k)'s sizes from a lane kernel's payload and meta bits of each.
inline void set_lane_sizes(const SizeColumns& out, std::size_t i, std::size_t k, const std::uint32_t* payload,
                           const std::uint32_t* meta) {
  for (std::size_t j = 0; j < k; ++j) {
    SizeBreakdown s;
    s.payload = payload[j];
    s.meta = meta[j];
    out.set(i + j, s);
  }
}

/// Blocks the lane decoder takes at a time.
inline constexpr std::size_t kCpackDecodeLanes = 24;

struct CpackKernels {
  /// Codec::measure_range (16-slot dictionaries, blocks of 16 bytes or more).
  void (*measure_range)(const CpackShape&, const Codec&, const BlockView&, std::size_t begin, std::size_t end,
                        const SizeColumns& out) = nullptr;
  /// Codec::measure_range of fresh dictionaries (any but a persistent one) for blocks of 32 to
  /// 256 bytes, 8 side by side, except where measure_range's set search applies: the index of
  /// the first block left to the caller (begin when it takes none).
  std::size_t (*measure_groups)(const CpackShape&, const Codec&, const BlockView&, std::size_t begin, std::size_t end,
                                const SizeColumns& out) = nullptr;
  /// Codec::encode_range (fresh 16-slot dictionaries, blocks of 16 to 256 bytes): 8 blocks side
  /// by side, each word searched over the earlier words still in its dictionary; the codec's
  /// encode() writes the blocks past the last group.
  std::size_t (*encode_range)(const CpackShape&, const Codec&, const BlockView&, std::size_t begin, std::size_t end,
                              std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc) = nullptr;
  /// encode() by the set search (fresh dictionaries that never evict, B = 16 to 64).
  std::uint32_t (*encode_sets)(const CpackShape&, const Codec&, const std::uint8_t* blk, std::size_t b,
                               BitWriter& out) = nullptr;
  /// encode() of a 16-slot dictionary from d, which it updates.
  void (*encode_block)(const CpackShape&, const Codec&, const std::uint8_t* blk, std::size_t b, BitWriter& out,
                       cpack::Dictionary& d) = nullptr;
  /// Decodes kCpackDecodeLanes blocks of n words, b bytes (fresh dictionaries, layout interleaved),
  /// block k's stream as bits [pos[k], end[k]) from base, into buf, with the lanes' dictionaries in
  /// dict (16 slots each and a spare one, zeroed for init=zeros); true when every stream was valid.
  bool (*decode_lanes)(const CpackShape&, const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* end,
                       unsigned n, unsigned b, std::uint8_t* buf, std::uint32_t* dict) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD)
extern const CpackKernels kCpackAvx2;    // cpack_avx2.cpp
extern const CpackKernels kCpackAvx512;  // cpack_avx2.cpp: the AVX2 table with the two below
/// measure_groups and encode_range with 16 blocks side by side (cpack_avx512.cpp).
std::size_t cpack_measure_groups_avx512(const CpackShape& s, const Codec& c, const BlockView& blocks, std::size_t begin,
                                        std::size_t end, const SizeColumns& out);
std::size_t cpack_encode_range_avx512(const CpackShape& s, const Codec& c, const BlockView& blocks, std::size_t begin,
                                      std::size_t end, std::uint8_t* buf, std::size_t max_bytes, EncodedBlocks& enc);
#endif

/// The table of the active tier.
inline const CpackKernels& cpack_kernels() noexcept {
  static constexpr CpackKernels scalar{};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kCpackAvx2, &kCpackAvx512);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
