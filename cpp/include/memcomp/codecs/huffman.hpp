// memcomp codecs: the canonical-Huffman machinery shared by E2MC, SC2 and SLC (SPEC 1.8).
//   * Alphabet (SPEC 1.8; P1 §III-B2b): SL >= 9 (the spec's SL 16/32) keeps the top-K symbols plus
//     an escape ESC; SL <= 8 keeps all 2^SL values with weight count + 1 and no ESC.
//   * Code lengths: a deterministic Huffman tree (two minima by (weight, key)), limited to
//     max_len by `floor` (our reading of P1 §III-B2c's "minimum probability"), `package_merge`
//     (the optimal length-limited code) or `drop` (gem5: too-long symbols move into ESC).
//   * Canonical code (P1 §III-B2c): symbols sorted by (length, key), consecutive codes per length.
//   * Decoder tables (P1 §III-F): first_code, first_index, offset = first_code - first_index per
//     length; decode() uses them, after a lookup table over the first bits.
//   * Escape: the ESC codeword followed by the SL-bit literal (SPEC 1.8).
//   * One table as JSON: {"symbols": [...], "lengths": [...], "esc_len": n} (SPEC 1.8 model);
//     codes are always rebuilt from the lengths.
// Keys: a symbol's key is its value (< 2^SL); ESC's key is 2^SL.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memcomp/core/bitstream.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/json.hpp"
#include "memcomp/core/simd.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>
#endif

namespace memcomp {

class ValueCounts32;

namespace huffman {

/// Longest code length a CanonicalCode accepts (and the largest max_len of a limited code).
inline constexpr unsigned kMaxCodeLen = 32;
/// Largest symbol length: symbols are SL-bit values, SL in 1..32.
inline constexpr unsigned kMaxSymbolBits = 32;

/// A leaf of the code tree: a symbol value (or ESC = 2^SL) and its weight.
struct Leaf {
  std::uint64_t key = 0;
  std::uint64_t weight = 0;
  friend bool operator==(const Leaf& a, const Leaf& b) { return a.key == b.key && a.weight == b.weight; }
};

/// The leaves a table is built from (SPEC 1.8).
struct Alphabet {
  unsigned sl = 0;       ///< symbol length in bits, 1..32
  bool has_esc = false;  ///< true iff the last leaf is ESC
  /// SL <= 8: values 0..2^SL-1 in order, weight count + 1.
  /// SL >= 9: the top-K values (count descending, ties to the smaller value), then ESC.
  std::vector<Leaf> leaves;
  std::uint64_t esc_key() const noexcept { return std::uint64_t{1} << sl; }
};

/// How the top-K values of an SL >= 9 alphabet are chosen and whether an ESC leaf follows.
struct TopK {
  bool ties_to_larger = false;  ///< among equal counts keep the larger values (CAL_22-MPC's sort)
  bool esc = true;              ///< append ESC (SPEC 1.8); false: misses have no codeword
};

/// Builds the alphabet from (value, count) pairs (values distinct and < 2^sl, any order).
///   sl <= 8: every value 0..2^sl-1 with weight count + 1 (saturating); k is ignored; no ESC.
///   sl >= 9: the min(k, #values with count > 0) most frequent values by count descending, ties
///            to the smaller value (rule.ties_to_larger: the larger), weight = count; then ESC
///            (key 2^sl) with weight max(1, total count of all other values) (saturating at
///            2^64 - 1), unless rule.esc is false.
/// `uncounted` symbols were counted without being listed (a summary's values beyond its top K):
/// they add to the total only, so to ESC's weight.
/// Throws invalid_argument for sl outside 1..32, a value >= 2^sl, or a repeated value.
Alphabet make_alphabet(unsigned sl, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& counts, std::size_t k,
                       TopK rule = {}, std::uint64_t uncounted = 0);
/// The same from a dense histogram: histogram[v] is the count of v; size must be 2^sl (sl <= 24).
Alphabet make_alphabet_dense(unsigned sl, const std::vector<std::uint64_t>& histogram, std::size_t k);
/// The same from exact value counts (every counted value must be < 2^sl).
Alphabet make_alphabet(unsigned sl, const ValueCounts32& counts, std::size_t k, TopK rule = {});

/// How code lengths are limited to max_len (SPEC 1.8).
enum class LimitMethod : std::uint8_t {
  /// ★ Start with f = 1 (the unlimited tree); while some length exceeds max_len: f <- 2f, every
  /// leaf's weight <- max(original weight, f), rebuild. Needs #leaves <= 2^max_len.
  floor = 0,
  /// The optimal length-limited code (Larmore-Hirschberg package-merge; leaves ordered by
  /// (weight, key), a leaf before a package of equal weight). If the unlimited tree already fits,
  /// it is returned unchanged, so all methods agree when the limit does not bind.
  /// Needs #leaves <= 2^max_len.
  package_merge = 1,
  /// gem5: build the unlimited tree; if some length exceeds max_len, every non-ESC leaf longer
  /// than max_len is removed and its weight added to ESC's (exactly: tree weights are 128-bit);
  /// rebuild over the remaining leaves; repeat until every length fits. Removed leaves get length 0 (no code; they
  /// are sent as ESC + literal). Needs an ESC leaf (esc_key), even when nothing is dropped.
  drop = 2,
};

/// "floor", "package_merge", "drop"; throws invalid_argument for another name.
LimitMethod parse_limit_method(const std::string& name);
const char* to_string(LimitMethod m) noexcept;

/// Code lengths of the unlimited Huffman tree of SPEC 1.8, aligned with `leaves`: repeatedly
/// merge the two minima by (weight, key), where internal nodes have keys above every leaf key, in
/// creation order. A single leaf gets length 1 (a one-symbol code still spends one bit per
/// symbol). The result does not depend on the order of `leaves`. Lengths may exceed 32.
/// Throws invalid_argument for no leaves or repeated keys.
std::vector<unsigned> huffman_lengths(const std::vector<Leaf>& leaves);

/// Code lengths as the MPC authors' tool builds its SC2 tree (scalable-arch/CAL_22-MPC SC2.cpp),
/// aligned with `leaves`: the leaves in ascending key order fill an array heap on weight, made a
/// min-heap bottom-up (a child replaces its parent only if strictly lighter, left tested first);
/// then, while two or more nodes remain, extract the minimum twice (the last node moves to the
/// root and sifts down) and append their sum, sifting it up while its parent is strictly heavier;
/// the first extracted becomes the left child. A length is the leaf's depth. A single leaf gets
/// length 1 (the tool: 0, a code of no bits). Throws invalid_argument for no leaves, repeated
/// keys, or a depth above 32.
std::vector<unsigned> heap_lengths(const std::vector<Leaf>& leaves);

/// Lengths limited to max_len (1..32) by `method`, aligned with `leaves`; 0 only for leaves that
/// `drop` moved into ESC. esc_key names the ESC leaf (needed by drop; ignored otherwise).
/// Throws invalid_argument for no leaves, repeated keys, max_len outside 1..32, more leaves than
/// 2^max_len (floor, package_merge), or drop without an ESC leaf.
std::vector<unsigned> limited_lengths(const std::vector<Leaf>& leaves, unsigned max_len,
                                      LimitMethod method = LimitMethod::floor,
                                      std::uint64_t esc_key = ~std::uint64_t{0});

class CanonicalCode;
/// Alphabet -> limited lengths -> canonical code (dropped leaves omitted).
CanonicalCode build_code(const Alphabet& alphabet, unsigned max_len, LimitMethod method = LimitMethod::floor);

/// A canonical prefix code over SL-bit symbols and, optionally, ESC (key 2^SL). Immutable.
class CanonicalCode {
  // A decoder lookup entry (declared first: the batch views below hold pointers to them).
  struct LutEntry {
    std::uint32_t index = 0;
    std::uint8_t len = 0;  // 0: no codeword starts with these bits; kLongCode: a longer code does
  };
  static constexpr std::uint8_t kLongCode = 0xFF;

 public:
  struct Entry {
    std::uint64_t key = 0;
    unsigned len = 0;
    friend bool operator==(const Entry& a, const Entry& b) { return a.key == b.key && a.len == b.len; }
  };
  /// A codeword: the low `len` bits of `code`, written MSB first; len == 0 means "no codeword".
  struct Codeword {
    std::uint32_t code = 0;
    std::uint32_t len = 0;
  };

  CanonicalCode() = default;  ///< empty: only for assignment later; encode/decode throw
  /// Builds the canonical code of (key, length) pairs in any order. Validates: sl in 1..32; at
  /// least one entry; every key <= 2^sl (2^sl is ESC); distinct keys; lengths in 1..32; Kraft
  /// sum <= 1. Throws invalid_argument naming the offending entry.
  CanonicalCode(unsigned sl, std::vector<Entry> entries);
  /// From lengths aligned with leaves (as returned by limited_lengths); length 0 leaves are skipped.
  static CanonicalCode from_lengths(unsigned sl, const std::vector<Leaf>& leaves, const std::vector<unsigned>& lengths);

  unsigned sl() const noexcept { return sl_; }
  std::uint64_t esc_key() const noexcept { return std::uint64_t{1} << sl_; }
  /// Number of codewords, ESC included.
  std::size_t size() const noexcept { return keys_.size(); }
  bool empty() const noexcept { return keys_.empty(); }
  unsigned max_len() const noexcept { return max_len_; }
  unsigned min_len() const noexcept { return min_len_; }
  /// Kraft sum of the lengths, in (0, 1]; 1 iff every bit pattern starts with a codeword.
  double kraft() const noexcept;
  bool complete() const noexcept { return kraft_num_ == (std::uint64_t{1} << kMaxCodeLen); }

  /// Codeword of a key (a value, or esc_key()); len == 0 if the key has none. O(1).
  Codeword code_of(std::uint64_t key) const noexcept {
    if (!dense_.empty()) return key < dense_.size() ? dense_[key] : Codeword{};
    if (hash_.empty()) return Codeword{};
    const std::size_t mask = hash_.size() - 1;
    for (std::size_t i = slot(key);; i = (i + 1) & mask) {
      const std::uint64_t s = hash_[i];
      if (s == 0) return Codeword{};
      if ((s >> kKeyShift) == key) {
        const std::size_t at = (s & low_mask(kIndexBits)) - 1;
        return Codeword{codes_[at], lens_[at]};
      }
    }
  }
  /// code_of(key).len for a batch loop: the table's pointers in a small value (locals of the
  /// loop, never reloaded), and no branch on whether a key has a codeword: a hit or an empty
  /// slot among the key's first two decides; only a key behind two others probes on.
  /// Valid while the code lives.
  class Lengths {
   public:
    explicit Lengths(const CanonicalCode& c) noexcept
        : code_(&c),
          dense_(c.dense_.empty() ? nullptr : c.dense_.data()),
          hash_(c.hash_.empty() ? nullptr : c.hash_.data()),
          tags_(c.tags_.empty() ? nullptr : c.tags_.data()),
          dense_size_(c.dense_.size()),
          mask_(c.hash_.empty() ? 0 : c.hash_.size() - 1),
          shift_(c.hash_shift_) {}
    [[gnu::always_inline]] unsigned operator()(std::uint64_t key) const noexcept {
      if (dense_) return key < dense_size_ ? dense_[key].len : 0u;
      if (!hash_) return 0;
      const std::size_t i = hash_slot(key, shift_);
      const std::uint64_t s0 = hash_[i], s1 = hash_[(i + 1) & mask_];
      // An empty slot reads as key 0 with length 0: right either way (key 0 would sit there).
      const bool hit0 = (s0 >> kKeyShift) == key, hit1 = (s1 >> kKeyShift) == key;
      if (!hit0 && !hit1 && s0 != 0 && s1 != 0) return code_->code_of(key).len;
      return static_cast<unsigned>(((hit0 ? s0 : hit1 ? s1 : 0) >> kIndexBits) & 63u);
    }
#if defined(MEMCOMP_X86_SIMD)
    /// The lengths of eight keys below 2^32 (32-bit lanes) at once, the same as operator(): both
    /// of each key's first two slots of the 4-byte mirror of the table (tags_) gathered, the hit
    /// selected by masks; a key behind two others (rare at 1/8 load) probes on in scalar code.
    /// REQUIRES: a hashed code (no dense table) and AVX2.
    MEMCOMP_AVX2 __m256i eight(__m256i keys) const noexcept {
      const __m256i h = _mm256_mullo_epi32(keys, _mm256_set1_epi32(static_cast<int>(kHashMultiplier32)));
      const __m128i shift = _mm_cvtsi32_si128(static_cast<int>(shift_));
      const __m256i idx = _mm256_srl_epi32(h, shift);
      const __m256i next =
          _mm256_and_si256(_mm256_add_epi32(idx, _mm256_set1_epi32(1)), _mm256_set1_epi32(static_cast<int>(mask_)));
      // The tag a key's slot holds at distance 0 and 1 from its home: its hash below the slot bits.
      const __m256i home = _mm256_slli_epi32(_mm256_sub_epi32(h, _mm256_sll_epi32(idx, shift)), kTagShift);
      const __m256i away = _mm256_or_si256(home, _mm256_set1_epi32(1 << kLenBits));
      const auto* base = reinterpret_cast<const int*>(tags_);
      const __m256i s0 = _mm256_i32gather_epi32(base, idx, 4), s1 = _mm256_i32gather_epi32(base, next, 4);
      const __m256i len_mask = _mm256_set1_epi32((1 << kLenBits) - 1), zero = _mm256_setzero_si256();
      const __m256i hit0 = _mm256_cmpeq_epi32(_mm256_andnot_si256(len_mask, s0), home);
      const __m256i hit1 = _mm256_cmpeq_epi32(_mm256_andnot_si256(len_mask, s1), away);
      const __m256i open = _mm256_or_si256(_mm256_cmpeq_epi32(s0, zero), _mm256_cmpeq_epi32(s1, zero));
      const __m256i decided = _mm256_or_si256(_mm256_or_si256(hit0, hit1), open);
      const unsigned probe = ~static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(decided))) & 0xFFu;
      const __m256i out =
          _mm256_and_si256(_mm256_or_si256(_mm256_and_si256(hit0, s0), _mm256_and_si256(hit1, s1)), len_mask);
      if (__builtin_expect(probe == 0, 1)) return out;
      alignas(32) std::uint32_t k[8], l[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(k), keys);
      _mm256_store_si256(reinterpret_cast<__m256i*>(l), out);
      for (unsigned j = 0; j < 8; ++j)
        if ((probe >> j) & 1u) l[j] = code_->code_of(k[j]).len;
      return _mm256_load_si256(reinterpret_cast<const __m256i*>(l));
    }
#endif

   private:
    const CanonicalCode* code_;
    const Codeword* dense_;
    const std::uint64_t* hash_;
    const std::uint32_t* tags_;
    std::size_t dense_size_, mask_;
    unsigned shift_;
  };
  unsigned length_of(std::uint64_t key) const noexcept { return Lengths(*this)(key); }

  /// encode_symbol's field for a batch loop, as one (code, length) pair: the codeword, or ESC's
  /// followed by the sl-bit literal. REQUIRES: value < esc_key() and, for a value without a
  /// codeword, an ESC (the caller checked has_esc() or that every value is coded).
  class Fields {
   public:
    explicit Fields(const CanonicalCode& c) noexcept
        : code_(&c), dense_(c.dense_.empty() ? nullptr : c.dense_.data()), esc_(c.esc_), sl_(c.sl_) {}
    struct Field {
      std::uint64_t code;
      unsigned len;  ///< at most 64
    };
    [[gnu::always_inline]] Field operator()(std::uint64_t value) const noexcept {
      const Codeword cw = dense_ ? dense_[value] : code_->code_of(value);
      return cw.len ? Field{cw.code, cw.len} : Field{std::uint64_t{esc_.code} << sl_ | value, esc_.len + sl_};
    }

   private:
    const CanonicalCode* code_;
    const Codeword* dense_;
    Codeword esc_;
    unsigned sl_;
  };
  bool contains(std::uint64_t key) const noexcept { return code_of(key).len != 0; }
  bool has_esc() const noexcept { return esc_.len != 0; }
  /// ESC's codeword (len == 0 if the code has no ESC).
  Codeword esc() const noexcept { return esc_; }

  /// Entries in canonical order: (length, key) ascending; entry i has the i-th codeword.
  std::vector<Entry> entries() const;
  /// Key at canonical index i (the De-LUT of P1 §III-F).
  std::uint64_t key_at(std::size_t i) const { return keys_.at(i); }

  // Decoder tables (P1 §III-F), for l in 1..32 (lengths without codewords included): count[l]
  // codewords of length l; the first is first_code[l] and has canonical index first_index[l];
  // a length-l codeword c has index c - offset[l]. Throws invalid_argument for l outside 1..32.
  std::uint32_t count(unsigned l) const;
  std::uint64_t first_code(unsigned l) const;
  std::uint32_t first_index(unsigned l) const;
  std::uint64_t offset(unsigned l) const { return first_code(l) - first_index(l); }

  /// Reads one codeword and returns its key (possibly esc_key()). Throws corrupt_stream if the
  /// bits are no codeword (possible when kraft() < 1) or the stream ends inside a codeword; it
  /// never reads past the reader's end.
  std::uint64_t decode(BitReader& in) const { return Symbols(*this).key(in); }

  /// Bits a value (< 2^sl) costs: its code length, or ESC's + sl. Throws invalid_argument if the
  /// value is out of range or has no codeword and there is no ESC.
  unsigned symbol_bits(std::uint64_t value) const {
    if (value >= esc_key()) unencodable(value);
    const unsigned len = length_of(value);
    if (len == 0 && esc_.len == 0) unencodable(value);
    return len == 0 ? esc_.len + sl_ : len;
  }
  /// Writes a value: its codeword, or ESC's codeword followed by the sl-bit literal (SPEC 1.8).
  /// Throws invalid_argument as symbol_bits does.
  void encode_symbol(BitWriter& out, std::uint64_t value) const {
    const Codeword cw = symbol_code(value);
    if (cw.len != 0) {
      out.write(cw.code, cw.len);
    } else {
      out.write(esc_.code, esc_.len);
      out.write(value, sl_);
    }
  }
  /// decode_symbol for a batch loop: the tables' pointers in a small value (locals of the loop,
  /// never reloaded). Valid while the code lives.
  class Symbols {
   public:
    explicit Symbols(const CanonicalCode& c) noexcept
        : code_(&c),
          lut_(c.lut_.empty() ? nullptr : c.lut_.data()),
          keys_(c.keys_.data()),
          esc_(c.esc_key()),
          lut_bits_(c.lut_bits_),
          sl_(c.sl_) {}
    /// decode(): the next codeword's key. Raw: through BitReader's unchecked reads (the caller
    /// checks overran() afterwards; a long codeword past the end throws corrupt_stream).
    template <bool Raw = false>
    [[gnu::always_inline]] std::uint64_t key(BitReader& in) const {
      // Fast path: a codeword of at most lut_bits bits that lies inside the stream (peek pads
      // with zeros past the end, so the length check decides).
      const std::uint64_t head = Raw ? in.peek_raw(lut_bits_) : in.peek(lut_bits_);
      const LutEntry e = lut_ ? lut_[static_cast<std::size_t>(head)] : LutEntry{};
      if (e.len != 0 && e.len != kLongCode && (Raw || e.len <= in.remaining())) {
        if (Raw)
          in.skip_raw(e.len);
        else
          in.skip(e.len);
        return keys_[e.index];
      }
      if (Raw && in.overran()) throw corrupt_stream("huffman codeword past the end of the stream");
      return code_->decode_slow(in);
    }
    /// decode_symbol(): a value.
    template <bool Raw = false>
    [[gnu::always_inline]] std::uint64_t operator()(BitReader& in) const {
      const std::uint64_t key = this->key<Raw>(in);
      if (key != esc_) return key;
      if (Raw) {
        const std::uint64_t literal = in.peek_raw(sl_);
        in.skip_raw(sl_);
        return literal;
      }
      const std::uint64_t literal = in.peek(sl_);  // sl <= 32; skip throws past the end as read would
      in.skip(sl_);
      return literal;
    }

   private:
    const CanonicalCode* code_;
    const LutEntry* lut_;
    const std::uint64_t* keys_;
    std::uint64_t esc_;
    unsigned lut_bits_, sl_;
  };
  /// Reads what encode_symbol wrote and returns the value.
  std::uint64_t decode_symbol(BitReader& in) const { return Symbols(*this)(in); }

  /// Mean bits per leaf weight: sum(w * cost) / sum(w). A key with a codeword costs its length
  /// (ESC's key: esc length + literal_bits); a key without one costs esc length + literal_bits
  /// (invalid_argument without ESC). For a package_merge code over an alphabet's leaves and
  /// literal_bits = sl, this is SPEC §3's L*.
  /// Returns 0 for a zero total weight.
  double mean_length(const std::vector<Leaf>& leaves, unsigned literal_bits = 0) const;

  /// {"symbols": [...], "lengths": [...], "esc_len": n}: symbols (ESC excluded) in canonical
  /// order, esc_len 0 without ESC.
  Json to_json() const;
  /// Parses one table for symbol length sl. Throws json_error (an invalid_argument) for a
  /// malformed table: not an object, missing or unknown keys, non-integers, length-count mismatch,
  /// a symbol outside 0..2^sl-1, repeated symbols, a length outside 1..32 (esc_len 0..32), no
  /// codeword at all, or Kraft sum > 1. It does not apply SPEC 1.8's per-SL alphabet rule (no ESC
  /// and every value coded for SL <= 8): the codec checks has_esc() and size() as it needs.
  static CanonicalCode from_json(const Json& table, unsigned sl);

  friend bool operator==(const CanonicalCode& a, const CanonicalCode& b) {
    return a.sl_ == b.sl_ && a.keys_ == b.keys_ && a.lens_ == b.lens_;
  }
  friend bool operator!=(const CanonicalCode& a, const CanonicalCode& b) { return !(a == b); }

 private:
  // A hash slot: key << 28 | length << 22 | (canonical index + 1); 0 = empty. Keys are at most
  // 2^32 (esc_key() for sl = 32) and lengths at most 32.
  static constexpr unsigned kIndexBits = 22, kKeyShift = 28;
  // tags_[s] mirrors hash_[s] in 4 bytes for Lengths::eight: the key's 32-bit hash below the
  // slot bits << 8 | distance from its home slot << 6 | length; 0 = empty. Distance 2 stands
  // for farther and for ESC (2^32 shares key 0's hash): a tag no lookup matches. Tables have at
  // least 2^8 slots, so the tag fits.
  static constexpr unsigned kLenBits = 6, kTagShift = 8, kMinHashBits = 8;
  static constexpr std::uint32_t kHashMultiplier32 = 0x9E3779B1u;  // Fibonacci hashing of the low 32 bits
  static constexpr unsigned kLutBits = 11;                         // decode lookup over the first min(11, max_len) bits
  static constexpr unsigned kDenseBits = 16;                       // code_of is a direct array for sl <= 16

  // The home slot of a key in a table of 2^(32 - shift) slots (esc_key() 2^32 shares key 0's).
  static std::size_t hash_slot(std::uint64_t key, unsigned shift) noexcept {
    return static_cast<std::size_t>((static_cast<std::uint32_t>(key) * kHashMultiplier32) >> shift);
  }
  std::size_t slot(std::uint64_t key) const noexcept { return hash_slot(key, hash_shift_); }
  // The value's own codeword, or len 0 if it must be escaped; throws if it cannot be coded.
  Codeword symbol_code(std::uint64_t value) const {
    if (value >= esc_key()) unencodable(value);
    const Codeword cw = code_of(value);
    if (cw.len == 0 && esc_.len == 0) unencodable(value);
    return cw;
  }
  [[noreturn]] void unencodable(std::uint64_t value) const;
  // decode() past the table: longer codewords, and every error.
  std::uint64_t decode_slow(BitReader& in) const;

  unsigned sl_ = 0;
  unsigned max_len_ = 0, min_len_ = 0;
  std::uint64_t kraft_num_ = 0;       // Kraft sum * 2^32
  std::vector<std::uint64_t> keys_;   // canonical order
  std::vector<std::uint8_t> lens_;    // canonical order
  std::vector<std::uint32_t> codes_;  // canonical order
  std::uint32_t count_[kMaxCodeLen + 2] = {};
  std::uint64_t first_code_[kMaxCodeLen + 2] = {};
  std::uint32_t first_index_[kMaxCodeLen + 2] = {};
  Codeword esc_;
  std::vector<Codeword> dense_;      // key -> codeword, for sl <= kDenseBits
  std::vector<std::uint64_t> hash_;  // open addressing, power-of-two size, at most 1/8 full
  std::vector<std::uint32_t> tags_;  // hash_ in 4 bytes a slot, lengths only
  unsigned hash_shift_ = 32;
  unsigned lut_bits_ = 0;
  std::vector<LutEntry> lut_;  // first lut_bits_ bits -> codeword
};

}  // namespace huffman
}  // namespace memcomp
