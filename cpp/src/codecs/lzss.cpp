// memcomp codecs: block-local LZSS (SPEC 1.13; every choice here is [ours], R §10).
// A block of B bytes is a sequence of n units (bytes, or 4-byte words with token_bytes=4). The
// window is every earlier unit of the block; nothing is pre-filled.
//
//   token     fields                                           bits
//   literal   0, the unit (8 bits, or the 32-bit word)         1 + 8u
//   match     1, distance - 1 (D bits), length - min_match     1 + D + length_bits
//             (length_bits bits)
//
// D = ceil(log2 n). Byte tokens (default): min_match 3, length_bits 4, so lengths 3..18 and a
// match costs 1 + log2(B) + 4 bits (12 at B = 128) against 9 per literal byte. Word tokens
// (token_bytes=4): units are 4-byte words, a literal is 1 + 32 bits, min_match defaults to 1
// word and length_bits to 4 (lengths 1..16 words); a match then costs at most 1 + 6 + 4 = 11
// bits (B = 256), less than the 33 of the single literal it replaces at the minimum length.
// A word literal is the word's value in the `endian` view (byte tokens ignore `endian`).
//
// Greedy parse: at each position take the longest match of min_match..max units (overlap
// allowed: the source may run into the match itself); ties go to the smallest distance; no
// match of min_match units gives a literal. The scalar reference finds candidates in hash chains
// over the first min(min_match, 4) bytes (or the first word), rebuilt per block; a chain lists
// every earlier position in decreasing order, so the first candidate reaching a length is the
// nearest. The SIMD tiers parse the same way over equality masks (kernels/lzss.hpp).
// Stream: the tokens in order. A distance reaching before the block start or a match running
// past its end is corrupt.
#include <algorithm>
#include <cstring>

#include "codec_impl.hpp"
#include "kernels/lzss.hpp"
#include "memcomp/codecs/families.hpp"

namespace memcomp {
namespace {

using lzss::kMaxUnits;

/// ceil(log2 n) for n >= 1, without a loop.
inline unsigned log2_ceil(std::size_t n) {
#if defined(__GNUC__)
  return n <= 1 ? 0u : static_cast<unsigned>(64 - __builtin_clzll(static_cast<unsigned long long>(n - 1)));
#else
  return ceil_log2(n);
#endif
}

/// Index of the lowest set bit of x != 0.
inline unsigned lowest_bit(std::uint64_t x) {
#if defined(__GNUC__)
  return static_cast<unsigned>(__builtin_ctzll(x));
#else
  unsigned k = 0;
  while (!(x >> k & 1u)) ++k;
  return k;
#endif
}

/// Parses n units (bytes or words) greedily and calls sink.literal(i) / sink.match(dist, len).
/// Candidates come from hash chains keyed by the first KeyUnits units of each position.
template <class U, unsigned KeyUnits>
class Parser {
  static constexpr unsigned kHashBits = sizeof(U) == 1 && KeyUnits == 1 ? 8 : 9;  // one byte: exact

 public:
  Parser(const U* u, std::size_t n, unsigned min_match, unsigned max_len)
      : u_(u), n_(n), mm_(min_match), max_len_(max_len) {
    std::fill(head_, head_ + (1u << kHashBits), std::uint16_t{0});
  }

  template <class Sink>
  void run(Sink& sink) {
    std::size_t i = 0, inserted = 0;
    const std::size_t keyed = n_ >= KeyUnits ? n_ - KeyUnits + 1 : 0;  // positions with a full key
    for (std::size_t p = 0; p < keyed; ++p) hashes_[p] = static_cast<std::uint16_t>(hash(key(p)));  // once each
    while (i < n_) {
      for (const std::size_t stop = std::min(i, keyed); inserted < stop; ++inserted) insert(inserted);
      unsigned best = 0;
      std::size_t best_dist = 0;
      if (n_ - i >= mm_) find(i, best, best_dist);
      if (best >= mm_) {
        sink.match(best_dist, best);
        i += best;
      } else {
        sink.literal(i);
        ++i;
      }
    }
  }

 private:
  // REQUIRES p + KeyUnits <= n.
  std::uint32_t key(std::size_t p) const {
    if constexpr (sizeof(U) == 1) {
      if (p + 4 <= n_)
        return load<std::uint32_t>(u_ + p, Endian::little) & static_cast<std::uint32_t>(low_mask(8 * KeyUnits));
      std::uint32_t v = 0;
      for (unsigned k = 0; k < KeyUnits; ++k) v |= std::uint32_t{u_[p + k]} << (8 * k);
      return v;
    } else {
      return static_cast<std::uint32_t>(u_[p]);
    }
  }
  static unsigned hash(std::uint32_t v) {
    if constexpr (sizeof(U) == 1 && KeyUnits == 1) return v;
    return static_cast<unsigned>((v * 0x9E3779B1u) >> (32 - kHashBits));
  }
  void insert(std::size_t p) {
    const unsigned h = hashes_[p];
    prev_[p] = head_[h];
    head_[h] = static_cast<std::uint16_t>(p + 1);
  }

  // Longest match at i (length >= min_match), nearest first among equals.
  void find(std::size_t i, unsigned& best, std::size_t& best_dist) const {
    const std::size_t lim = std::min<std::size_t>(max_len_, n_ - i);
    std::size_t len_best = mm_ - 1;  // a candidate must beat this
    std::uint16_t c = head_[hashes_[i]];
    while (c != 0) {
      const std::size_t j = c - 1u;
      c = prev_[j];
      if (u_[j + len_best] != u_[i + len_best]) continue;  // cannot be longer than the best
      const std::size_t len = common(j, i, lim);
      if (len > len_best) {
        len_best = len;
        best_dist = i - j;
        if (len == lim) break;
      }
    }
    best = len_best >= mm_ ? static_cast<unsigned>(len_best) : 0u;
  }

  // Length of the common prefix of the units at j and i (j < i), at most lim (i + lim <= n).
  std::size_t common(std::size_t j, std::size_t i, std::size_t lim) const {
    std::size_t len = 0;
    if constexpr (sizeof(U) == 1) {  // 8 bytes at a time: the first differing byte ends it
      for (; len + 8 <= lim; len += 8) {
        const std::uint64_t x = load<std::uint64_t>(u_ + j + len, Endian::little) ^
                                load<std::uint64_t>(u_ + i + len, Endian::little);
        if (x != 0) return len + lowest_bit(x) / 8;
      }
    }
    while (len < lim && u_[j + len] == u_[i + len]) ++len;
    return len;
  }

  const U* u_;
  std::size_t n_;
  unsigned mm_, max_len_;
  std::uint16_t head_[1u << kHashBits];  // position + 1 of the newest entry per hash, 0 = none
  std::uint16_t prev_[kMaxUnits];
  std::uint16_t hashes_[kMaxUnits];  // hash of the key at each keyed position
};

struct LzssSettings {
  unsigned unit;
  unsigned min_match;
  unsigned length_bits;
  Endian endian;
};

const OptionTable<LzssSettings>& lzss_table() {
  using S = LzssSettings;
  static const OptionTable<S> t{
      option_int("token_bytes", &S::unit, 1, {1, 4}, "bytes per unit: byte-wise or 32-bit word-wise tokens"),
      with_default<S>(option_int("min_match", &S::min_match, 3, 1, 16,
                                 "shortest match in units (default: 3 for bytes, 1 for words)"),
                      [](const S& s) { return OptionValue{std::int64_t{s.unit == 1 ? 3 : 1}}; }),
      option_int("length_bits", &S::length_bits, 4, 1, 8, "bits of a match length field"),
      option_endian(&S::endian, "byte order of the words of token_bytes=4")};
  return t;
}

class LZSS final : public CodecImpl<LZSS> {
 public:
  explicit LZSS(const Options& o) : s_(lzss_table().parse(o, "lzss")) {
    max_len_ = s_.min_match + (1u << s_.length_bits) - 1;
  }

  Options options() const override { return lzss_table().write(s_); }
  /// A literal costs 1 + 8u per unit, a match of >= min_match units at most
  /// ceil((1 + D + length_bits) / min_match) per unit.
  std::uint64_t max_compressed_bits(std::size_t b) const override {
    const std::size_t n = units(b);
    return n * std::max<std::uint64_t>(1 + 8 * s_.unit, ceil_div(1 + log2_ceil(n) + s_.length_bits, s_.min_match));
  }
  std::vector<ModeName> modes() const override { return {{0, "lzss"}}; }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    struct Count {
      std::uint32_t literals = 0, matches = 0;
      void literal(std::size_t) { ++literals; }
      void match(std::size_t, unsigned) { ++matches; }
    } count;
    parse(blk, b, count);
    SizeBreakdown s;
    s.meta = count.literals + count.matches;
    s.payload = count.literals * 8 * s_.unit + count.matches * (log2_ceil(units(b)) + s_.length_bits);
    return s;
  }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
    struct Write {
      const LZSS& c;
      const std::uint8_t* blk;
      BitWriter& out;
      unsigned dist_bits;
      void literal(std::size_t i) {
        if (c.s_.unit == 1) {
          out.write(blk[i], 9);  // flag 0 + the byte
        } else {
          out.write(0, 1);
          out.write(load<std::uint32_t>(blk + 4 * i, c.s_.endian), 32);
        }
      }
      void match(std::size_t dist, unsigned len) {
        out.write(1, 1);
        out.write(dist - 1, dist_bits);
        out.write(len - c.s_.min_match, c.s_.length_bits);
      }
    } w{*this, blk, out, log2_ceil(units(b))};
    parse(blk, b, w);
    return 0;
  }

  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    const std::size_t n = units(b);
    const unsigned dist_bits = log2_ceil(n);
    std::size_t i = 0;
    while (i < n) {
      if (in.read(1) == 0) {
        if (s_.unit == 1)
          out[i] = static_cast<std::uint8_t>(in.read(8));
        else
          store<std::uint32_t>(out + 4 * i, static_cast<std::uint32_t>(in.read(32)), s_.endian);
        ++i;
        continue;
      }
      const std::size_t dist = static_cast<std::size_t>(in.read(dist_bits)) + 1;
      const std::size_t len = static_cast<std::size_t>(in.read(s_.length_bits)) + s_.min_match;
      if (dist > i)
        throw corrupt_stream("lzss match distance " + std::to_string(dist) + " at unit " + std::to_string(i) +
                             " reaches before the block start");
      if (len > n - i)
        throw corrupt_stream("lzss match of " + std::to_string(len) + " units at unit " + std::to_string(i) +
                             " runs past the block end (" + std::to_string(n) + " units)");
      // Forward copy, byte by byte: an overlapping source reads what this match just wrote.
      std::uint8_t* dst = out + s_.unit * i;
      const std::uint8_t* src = dst - s_.unit * dist;
      for (std::size_t k = 0; k < s_.unit * len; ++k) dst[k] = src[k];
      i += len;
    }
  }

 private:
  template <class Sink>
  void parse(const std::uint8_t* blk, std::size_t b, Sink& sink) const {
    if (const auto rows = lzss_kernels().rows) return parse_rows(rows, blk, b, sink);
    if (s_.unit == 1) {
      switch (std::min(s_.min_match, 4u)) {
        case 1: return run<std::uint8_t, 1>(blk, b, sink);
        case 2: return run<std::uint8_t, 2>(blk, b, sink);
        case 3: return run<std::uint8_t, 3>(blk, b, sink);
        default: return run<std::uint8_t, 4>(blk, b, sink);
      }
    }
    std::uint32_t words[kMaxUnits / 4];
    std::memcpy(words, blk, b);  // equality only: the host byte order is irrelevant
    run<std::uint32_t, 1>(words, b / 4, sink);
  }
  // The SIMD tiers: the block's mask rows and starts from the kernel, then lzss::parse_rows.
  template <class Sink>
  void parse_rows(decltype(LzssKernels::rows) rows, const std::uint8_t* blk, std::size_t b, Sink& sink) const {
    const std::size_t n = units(b), pad = lzss::pad_units(n) * s_.unit;
    std::uint8_t padded[lzss::pad_units(kMaxUnits) + kMaxUnits];
    std::uint64_t mask[kMaxUnits * lzss::mask_words(kMaxUnits) + lzss::kRowTail], starts[kMaxUnits / 64];
    std::memset(padded, 0, pad);
    std::memcpy(padded + pad, blk, b);
    rows(padded, n, s_.unit, s_.min_match, mask, starts);
    switch (s_.unit == 4 ? 1 : lzss::mask_words(n)) {
      case 1: return lzss::parse_rows<1>(mask, starts, n, s_.min_match, max_len_, sink);
      case 2: return lzss::parse_rows<2>(mask, starts, n, s_.min_match, max_len_, sink);
      default: return lzss::parse_rows<4>(mask, starts, n, s_.min_match, max_len_, sink);
    }
  }
  template <class U, unsigned KeyUnits, class Sink>
  void run(const U* u, std::size_t n, Sink& sink) const {
    Parser<U, KeyUnits> p(u, n, s_.min_match, max_len_);
    p.run(sink);
  }
  std::size_t units(std::size_t b) const { return s_.unit == 1 ? b : b / 4; }

  const LzssSettings s_;
  unsigned max_len_ = 18;
};

std::unique_ptr<Codec> make_lzss(const Options& o) { return std::make_unique<LZSS>(o); }

}  // namespace

void add_lzss_presets(std::vector<Preset>& out) {
  out.push_back({"lzss.block",
                 "lzss",
                 "block-local LZSS: byte tokens, window = earlier bytes of the block, lengths 3-18, greedy",
                 "none",
                 {},
                 true,
                 &make_lzss,
                 &space_of<lzss_table>});
}

}  // namespace memcomp
