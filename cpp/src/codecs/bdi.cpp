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
#include <limits>

#include "codec_impl.hpp"
#include "kernels/bdi.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/core/simd.hpp"
#include "memcomp/stats/policy.hpp"

namespace memcomp {
namespace {

using namespace bdi;  // the encodings (kernels/bdi.hpp)

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
    f_ = {c_.encoding == EncBits::inband, c_.encoding == EncBits::tag, c_.zero_bits, c_.repeat4, c_.endian};
    for (std::size_t i = 0; i < 5; ++i) ranked_[i] = rank(std::size_t{16} << i);
    prepare_fast();
  }

  Options options() const override { return bdi_table().write(c_); }

  Capabilities capabilities() const override {
    return exact_only(c_.encoding != EncBits::none && c_.mask && c_.bases == 1 && c_.delta_fit != Fit::magnitude);
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
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
    const std::size_t si = ceil_log2(blocks.block_bytes) - 4;
    if (const auto kernel = classify_ok_ ? bdi_kernels().measure_range(blocks.block_bytes, sym(), big()) : nullptr)
      return kernel(winner_[si], sizes_[si], blocks, begin, end, out);
    CodecImpl<BDI>::measure_range(blocks, begin, end, out, nullptr);
  }
  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc, CodecState*) const override {
    const std::size_t si = ceil_log2(blocks.block_bytes) - 4;
    if (const auto kernel = classify_ok_ ? bdi_kernels().encode_range(blocks.block_bytes, sym(), big()) : nullptr)
      return kernel(f_, winner_[si], blocks, begin, end, buf, max_bytes, enc);
    return CodecImpl<BDI>::encode_range(blocks, begin, end, buf, max_bytes, enc, nullptr);
  }
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                    CodecState*) const override {
    if (const auto kernel = bdi_kernels().decode_range(enc.block_bytes, big()))
      begin = kernel(f_, enc, out, begin, end);  // stops at a corrupt block, which the loop below names
    CodecImpl<BDI>::decode_range(enc, out, begin, end, nullptr);
  }

 public:
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
    const BdiKernels& k = bdi_kernels();
    if (const auto classify = classify_ok_ ? k.classify(b, sym(), big()) : nullptr) {
      // encode_as with the kernels' classification and delta writer
      const int id = classify(winner_[ceil_log2(b) - 4], blk);
      if (const Delta* x = f_.encode_head(id, blk, b, w)) k.write_deltas(b, sym(), big())(x->id, blk, w);
      return f_.tag_of(id);
    }
    return encode_as(choose(blk, b), blk, b, w);
  }

  // The stream of encoding id (which fits the block).
  std::uint32_t encode_as(int id, const std::uint8_t* blk, std::size_t b, BitWriter& w) const {
    if (const Delta* x = f_.encode_head(id, blk, b, w)) encode_deltas(*x, blk, b, w);
    return f_.tag_of(id);
  }

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
    const Delta* x = f_.decode_head(in, tag, out, b);
    if (!x) return;
    if (const auto kernel = bdi_kernels().read_deltas(b, big())) return kernel(x->id, in, out);
    decode_deltas(*x, in, out, b);
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
    if (const auto classify = classify_ok_ ? bdi_kernels().classify(b, sym(), big()) : nullptr)
      return classify(winner_[ceil_log2(b) - 4], blk);
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
  // winner of every mask per block size from the ranking, the sizes per encoding id, and whether
  // the configuration takes the kernels' classification (kernels/bdi.hpp; B >= 32).
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
    // The kernels' classification holds for sign-extended immediates and a signed or symmetric fit.
    classify_ok_ = c_.immediates == Ext::sign && c_.delta_fit != Fit::magnitude;
  }

  bool sym() const { return c_.delta_fit == Fit::symmetric; }
  bool big() const { return c_.endian == Endian::big; }

  Config c_;
  Framing f_;                 // the stream around the deltas (kernels/bdi.hpp)
  bool classify_ok_ = false;  // the kernels' classification holds for this configuration
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
// The unsigned type of k-byte elements, and a block's zero / repeated-word test on 8-byte words.
template <unsigned K>
using Elem = std::conditional_t<
    K == 1, std::uint8_t,
    std::conditional_t<K == 2, std::uint16_t, std::conditional_t<K == 4, std::uint32_t, std::uint64_t>>>;
/// 0 when every byte of the block is zero; else the smallest k in {1, 2, 4, 8} whose k-byte
/// pattern repeats over the whole block (b a multiple of 8), or 16 when none does.
inline unsigned repeat_width(const std::uint8_t* blk, std::size_t b) {
  const std::uint64_t w0 = load<std::uint64_t>(blk, Endian::little);
  std::uint64_t any = w0, diff = 0;
  for (std::size_t i = 8; i < b; i += 8) {
    const std::uint64_t w = load<std::uint64_t>(blk + i, Endian::little);
    any |= w;
    diff |= w ^ w0;
  }
  if (any == 0) return 0;
  if (diff != 0) return 16;
  if ((w0 >> 32) != (w0 & 0xFFFFFFFFu)) return 8;  // a repeat of k bytes repeats every multiple of k
  if ((w0 >> 16 & 0xFFFFu) != (w0 & 0xFFFFu)) return 4;
  return (w0 >> 8 & 0xFFu) != (w0 & 0xFFu) ? 2 : 1;
}

class BdiCal22 final : public CodecImpl<BdiCal22> {
 public:
  explicit BdiCal22(const Options& o) { no_options().parse(o, "bdi"); }
  Options options() const override { return no_options().write({}); }
  Capabilities capabilities() const override { return exact_only(false); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 8 * b + 4; }
  std::vector<ModeName> modes() const override {
    return {{0, "zeros"}, {1, "rep8"}, {2, "b8d1"}, {3, "b8d2"}, {4, "b8d4"},
            {5, "b4d1"},  {6, "b4d2"}, {7, "b2d1"}, {15, "raw"}};
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    s.header = 4;
    const unsigned r = repeat_width(blk, b);
    const bool zero = r == 0, rep = r <= 8;
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
    switch (x.k) {
      case 2: return candidate<2>(blk, b, x.d, meta, payload);
      case 4: return candidate<4>(blk, b, x.d, meta, payload);
      default: return candidate<8>(blk, b, x.d, meta, payload);
    }
  }
  template <unsigned K>
  static void candidate(const std::uint8_t* blk, std::size_t b, unsigned d, std::uint32_t& meta,
                        std::uint32_t& payload) {
    const std::size_t n = b / K;
    std::size_t m = 0, i = 0;
    for (; i < n; ++i) {  // immediates up to the first element that does not fit: the base
      if (!fits(load<Elem<K>>(blk + i * K, Endian::little), d)) break;
      ++m;
    }
    bool all_fit = true;
    if (i < n) {
      const std::uint64_t base = load<Elem<K>>(blk + i * K, Endian::little);
      for (++i; i < n; ++i) {
        const std::uint64_t v = load<Elem<K>>(blk + i * K, Endian::little);
        const bool imm = fits(v, d);
        m += imm;
        all_fit = all_fit && (imm || fits(base - v, d));
      }
    }
    meta = static_cast<std::uint32_t>(n);
    payload = static_cast<std::uint32_t>(all_fit ? 8 * (K + (n - 1) * d) : 8 * (m * d + (n - m) * K));
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
  // The smallest and largest k-byte element of each byte order, found once per block: a
  // candidate without immediates fits iff they lie within 2^(8d) - 1 of each other.
  struct Ranges {
    std::uint64_t span[9][2];  // [k][big]: largest - smallest
    bool known[9][2] = {};
  };
  template <unsigned K, bool Big>
  static std::uint64_t span(const std::uint8_t* blk, std::size_t b) {
    constexpr Endian e = Big ? Endian::big : Endian::little;
    Elem<K> lo = memcomp::load<Elem<K>>(blk, e), hi = lo;
    for (std::size_t i = K; i < b; i += K) {
      const Elem<K> v = memcomp::load<Elem<K>>(blk + i, e);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    return std::uint64_t{hi} - lo;
  }
  static std::uint64_t span_of(const Cand& c, const std::uint8_t* blk, std::size_t b, Ranges& r) {
    if (!r.known[c.k][c.big]) {
      std::uint64_t s = 0;
      switch (c.k * 2 + c.big) {
        case 4: s = span<2, false>(blk, b); break;
        case 5: s = span<2, true>(blk, b); break;
        case 8: s = span<4, false>(blk, b); break;
        case 9: s = span<4, true>(blk, b); break;
        case 16: s = span<8, false>(blk, b); break;
        default: s = span<8, true>(blk, b); break;
      }
      r.span[c.k][c.big] = s;
      r.known[c.k][c.big] = true;
    }
    return r.span[c.k][c.big];
  }
  // Immediates: the base by the running choice, then every element above the immediate range
  // within 2^(8d) - 1 above it (bdicompress). Unrolled, the running choice is the smallest
  // element above the range (element 0 when there is none), so the candidate fits iff those
  // elements span at most 2^(8d) - 1 (and element 0 is nonzero when all are immediates); the
  // big-endian b4d2i, whose choice reads the little-endian values, runs the loop as written.
  template <unsigned K, bool Big>
  static bool fits_imm(const Cand& c, const std::uint8_t* blk, std::size_t b) {
    constexpr Endian e = Big ? Endian::big : Endian::little;
    const Elem<K> lim = static_cast<Elem<K>>(low_mask(8 * c.d));
    if (c.code == 24) {
      std::uint64_t base = memcomp::load<Elem<K>>(blk, e);
      for (std::size_t i = K; i < b; i += K) {
        const std::uint64_t v = memcomp::load<Elem<K>>(blk + i, e);
        if (memcomp::load<Elem<K>>(blk + i, Endian::little) > lim) base = (base < v && base > lim) ? base : v;
      }
      if (base == 0) return false;  // bdi.h's `if (!!B8D1i)`: the base doubles as the flag
      for (std::size_t i = 0; i < b; i += K) {
        const Elem<K> v = memcomp::load<Elem<K>>(blk + i, e);
        if (v > lim && static_cast<Elem<K>>(v - base) > lim) return false;
      }
      return true;
    }
    Elem<K> lo = std::numeric_limits<Elem<K>>::max(), hi = 0;  // over the elements above the range
    for (std::size_t i = 0; i < b; i += K) {
      const Elem<K> v = memcomp::load<Elem<K>>(blk + i, e);
      lo = v > lim ? std::min(lo, v) : lo;
      hi = v > lim ? std::max(hi, v) : hi;
    }
    // All immediates: the base is element 0 (never reached in the tool's order: the plain candidate
    // of the same k, d and byte order comes first and fits).
    if (hi == 0) return memcomp::load<Elem<K>>(blk, e) != 0;
    return static_cast<Elem<K>>(hi - lo) <= lim;
  }
  static bool fits(const Cand& c, const std::uint8_t* blk, std::size_t b, Ranges& r) {
    if (!c.imm) return span_of(c, blk, b, r) <= low_mask(8 * c.d);
    switch (c.k * 2 + c.big) {
      case 4: return fits_imm<2, false>(c, blk, b);
      case 5: return fits_imm<2, true>(c, blk, b);
      case 8: return fits_imm<4, false>(c, blk, b);
      case 9: return fits_imm<4, true>(c, blk, b);
      case 16: return fits_imm<8, false>(c, blk, b);
      default: return fits_imm<8, true>(c, blk, b);
    }
  }
  static int choose(const std::uint8_t* blk, std::size_t b) {
    const unsigned r = repeat_width(blk, b);
    if (r == 0) return 0;
    if (r <= 8) return static_cast<int>(__builtin_ctz(r)) + 1;  // rep1, rep2, rep4, rep8: codes 1..4
    Ranges ranges;
    for (const Cand& c : kCands)
      if (bytes_of(c, b) < b && fits(c, blk, b, ranges)) return c.code;
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
