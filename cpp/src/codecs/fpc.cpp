// memcomp codecs: Frequent Pattern Compression (Alameldeen & Wood, UW TR-1500, 2004; SPEC 1.2;
// R §3). Each 32-bit word takes the first matching row; zero words form runs of 1..8.
//
//   prefix  pattern                                   payload
//   000     run of 1-8 zero words (field = run - 1)   3
//   001     signed in [-8, 7]                         4
//   010     signed in [-128, 127]                     8
//   011     signed in [-2^15, 2^15 - 1]               16
//   100     low halfword zero (field = high half)     16
//   101     both halfwords signed bytes               16 (high half's byte, then low half's)
//           (halfwords="gem5": both halfwords in 0..127, see below)
//   110     four equal bytes                          8
//   111     uncompressed                              32
//
// Stream: [prefix:3][payload] per token, in word order (layout "interleaved", the default), or
// with layout "mc" (Metadata Consolidation, P2 §4.3, SPEC 2) all prefixes in token order, then
// all payload fields in token order: the same bits, so the same size. The MC decoder reads
// prefixes until 3k + (payload bits of those k prefixes) reaches the stream length (that sum
// grows by >= 6 per token, so exactly one k matches), then the payloads.
// halfwords="gem5" reproduces gem5 v24 (src/mem/cache/compressors/fpc.hh,
// SignExtendedTwoHalfwords::isPattern): it compares an int16_t halfword with the uint16_t image of
// its sign-extended low byte, so a negative halfword never matches and only 0..127 qualify
// (the decoder is the same: a byte below 0x80 sign-extends to itself). gem5's other rows are the
// table's (fpc.hh: SignExtendedPattern<4|8|16>, MaskedValuePattern<0, 0x0000FFFF>, RepBytes;
// fpc.cc FPCCompData::addEntry: a run's first zero costs 3 + zero_run_bits = 6 bits, runs of at
// most mask(3) + 1 = 8 words). gem5's Base::compress (base.cc) then stores a line whose size
// exceeds size_threshold_percentage = 50 % (Compressors.py) of the line as the full line: the
// fpc.gem5 preset's policy threshold(0.5).
// Presets: `paper` (= kim sizes), `mc` (paper with layout mc),
// `skku` (one 6-bit token per maximal zero run, accounting-only) and `cmu` (the CMU-SAFARI
// byte approximation, accounting-only).
#include <cstring>

#include "codec_impl.hpp"
#include "kernels/fpc.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace {

constexpr const auto& kPayload = kFpcPayload;

// Prefix 1..7 of a non-zero word: the first row of the table that matches, without branches.
// u7: the halfword row takes only halfwords 0..127 (gem5).
inline unsigned pattern(std::uint32_t w, bool u7) {
  constexpr std::uint32_t h4 = fpc_signed_half(1), h8 = fpc_signed_half(2), h16 = fpc_signed_half(3);
  const bool s4 = w + h4 < 2 * h4, s8 = w + h8 < 2 * h8, s16 = w + h16 < 2 * h16;  // signed ranges
  const bool low0 = (w & 0xFFFFu) == 0;
  const bool halves = u7 ? (w & 0xFF80FF80u) == 0
                         : ((w + 0x00800000u) & 0xFF000000u) == 0 && ((w + 0x80u) & 0xFF00u) == 0;
  const bool rep = w == (w & 0xFFu) * 0x01010101u;
  unsigned p = rep ? 6u : 7u;
  p = halves ? 5u : p;
  p = low0 ? 4u : p;
  p = s16 ? 3u : p;
  p = s8 ? 2u : p;
  return s4 ? 1u : p;
}

// Field of a non-zero word of prefix p: the low bits of the sign-extended value or of the
// repeated byte, the high half (4), or both halves' bytes (5).
inline std::uint32_t field_of(std::uint32_t w, unsigned p) {
  std::uint32_t f = p == 4 ? w >> 16 : w;
  f = p == 5 ? ((w >> 16) & 0xFFu) << 8 | (w & 0xFFu) : f;
  return static_cast<std::uint32_t>(f & low_mask(kPayload[p]));
}

// Payload bits of a non-zero word.
inline unsigned pattern_bits(std::uint32_t w, bool u7) { return kPayload[pattern(w, u7)]; }

// CMU-SAFARI FPCCompress bytes of one word (|x| tests on int32, halves unsigned).
inline unsigned cmu_bytes(std::uint32_t w) {
  const auto s = static_cast<std::int32_t>(w);
  const std::uint32_t mag = s < 0 ? 0u - w : w;
  if (w == 0 || mag <= 0xFFu) return 1;
  if (mag <= 0xFFFFu) return 2;
  if ((w & 0xFFFFu) == 0) return 2;
  if ((w & 0xFFFFu) <= 0xFFu && (w >> 16) <= 0xFFu) return 2;
  if (w == (w & 0xFFu) * 0x01010101u) return 1;
  return 4;
}

struct FpcSettings {
  Endian endian;
  bool unbounded, cmu, mc, gem5_halfwords;
};

const OptionTable<FpcSettings>& fpc_table() {
  using S = FpcSettings;
  static const OptionTable<S> t{
      option_endian(&S::endian),
      option_choice("zero_run", &S::unbounded, "bounded", {{"bounded", false}, {"unbounded", true}},
                    "a zero-run token covers 1-8 words (bounded) or a whole run (unbounded, SKKU)"),
      option_choice("size_model", &S::cmu, "bits", {{"bits", false}, {"cmu", true}},
                    "sizes in bits of the pattern table, or CMU-SAFARI's byte approximation"),
      option_choice("layout", &S::mc, "interleaved", {{"interleaved", false}, {"mc", true}},
                    "prefix and payload per word, or all prefixes first (Metadata Consolidation, HPCA'16)"),
      option_choice("halfwords", &S::gem5_halfwords, "signed", {{"signed", false}, {"gem5", true}},
                    "two-halfword row: sign-extended bytes, or gem5's halfwords 0..127 only")};
  return t;
}

class FPC final : public CodecImpl<FPC> {
 public:
  explicit FPC(const Options& o) : s_(fpc_table().parse(o, "fpc")) {}

  Options options() const override { return fpc_table().write(s_); }
  Capabilities capabilities() const override { return exact_only(!s_.unbounded && !s_.cmu); }
  void check_block_bytes(std::size_t b) const override { memcomp::check_block_bytes(b); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return kFpcMaxToken * (b / 4); }
  std::vector<ModeName> modes() const override { return {{0, "fpc"}}; }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    const std::size_t n = b / 4;
    if (s_.cmu) {
      std::uint32_t bytes = 0;
      for (std::size_t i = 0; i < n; ++i) bytes += cmu_bytes(load<std::uint32_t>(blk + 4 * i, s_.endian));
      s.payload = 8 * bytes;
      s.meta = static_cast<std::uint32_t>(8 * (3 * n / 8));
      return s;
    }
    // Branch-light: a zero word opens a token when it starts a run or (bounded runs) when the
    // run passes a multiple of 8; every other word is one token.
    const unsigned period = s_.unbounded ? 0u : 7u;
    unsigned run = 0;
    std::uint32_t tokens = 0, payload = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, s_.endian);
      const bool z = w == 0;
      run = z ? run + 1 : 0;
      const bool opens = z && (run == 1 || (period && (run & period) == 1));
      tokens += z ? static_cast<std::uint32_t>(opens) : 1u;
      payload += z ? (opens ? 3u : 0u) : pattern_bits(w, s_.gem5_halfwords);
    }
    s.payload = payload;
    s.meta = 3 * tokens;
    return s;
  }

  // Through the kernel table of the active tier (kernels/fpc.hpp), where it has a kernel.
 protected:
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
    const auto kernel = fpc_kernels().measure_range;
    if (kernel != nullptr && !s_.cmu && blocks.block_bytes >= 32) return kernel(shape(), blocks, begin, end, out);
    CodecImpl<FPC>::measure_range(blocks, begin, end, out, nullptr);
  }

  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc, CodecState*) const override {
    const auto kernel = fpc_kernels().encode_range;
    if (kernel != nullptr && blocks.block_bytes >= 32) return kernel(shape(), blocks, begin, end, buf, max_bytes, enc);
    return CodecImpl<FPC>::encode_range(blocks, begin, end, buf, max_bytes, enc, nullptr);
  }

 private:
  FpcShape shape() const { return {s_.endian == Endian::big, s_.gem5_halfwords, s_.unbounded, s_.mc}; }

 public:
  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
    const std::size_t n = b / 4;
    // Interleaved: every token goes out as it is formed; mc: prefixes first, then the fields.
    Tokens t;
    const auto emit = [&](unsigned p, std::uint32_t f) {
      if (s_.mc)
        t.add(p, f);
      else
        out.write(std::uint64_t{p} << kPayload[p] | f, 3 + kPayload[p]);
    };
    unsigned run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, s_.endian);
      if (w == 0) {
        if (++run == 8) {
          emit(0, 7);
          run = 0;
        }
        continue;
      }
      if (run) emit(0, run - 1);
      run = 0;
      const unsigned p = pattern(w, s_.gem5_halfwords);
      emit(p, field_of(w, p));
    }
    if (run) emit(0, run - 1);
    if (s_.mc) {
      for (std::size_t k = 0; k < t.n; ++k) out.write(t.prefix[k], 3);
      for (std::size_t k = 0; k < t.n; ++k) out.write(t.field[k], kPayload[t.prefix[k]]);
    }
    return 0;
  }

  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    const std::size_t n = b / 4;
    if (s_.mc) return decode_mc(in, out, n);
    for (std::size_t i = 0; i < n;) i = read_token(in, out, i, n);
  }

 protected:
  // Layout interleaved: each block's tokens form a chain through their prefixes, so independent
  // blocks are decoded side by side: 24 at a time as vector lanes (AVX2), the rest two at a time.
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                    CodecState*) const override {
    if (s_.mc || !simd_enabled()) return CodecImpl<FPC>::decode_range(enc, out, begin, end, nullptr);
    if (const auto lanes = fpc_kernels().decode_lanes) {
      // Groups of kFpcDecodeLanes blocks; a group whose streams are not all valid, or too near the
      // end of the data for its reads, is decoded one block at a time (which names the first bad
      // block).
      const FpcShape s = shape();
      const auto n = static_cast<unsigned>(enc.block_bytes / 4), b = static_cast<unsigned>(enc.block_bytes);
      begin = decode_groups<kFpcDecodeLanes>(
          enc, out, begin, end, kFpcMaxToken,
          [&](const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* stop, std::uint8_t* buf) {
            return lanes(s, base, pos, stop, n, b, buf);
          });
    }
    const std::size_t n = enc.block_bytes / 4;
    decode_pairs(
        enc, out, begin, end,
        [&](BitReader& ra, std::uint8_t* oa, BitReader& rb, std::uint8_t* ob) {
          std::size_t ia = 0, ib = 0;
          while (ia < n && ib < n) {
            ia = read_token(ra, oa, ia, n);
            ib = read_token(rb, ob, ib, n);
          }
          while (ia < n) ia = read_token(ra, oa, ia, n);
          while (ib < n) ib = read_token(rb, ob, ib, n);
        },
        [&](BitReader& r, std::uint32_t tag, std::uint8_t* o, std::size_t b) { decode(r, tag, o, b); });
  }

 private:
  /// Reads one token (layout interleaved) and writes its words at word i; the next word index.
  std::size_t read_token(BitReader& in, std::uint8_t* out, std::size_t i, std::size_t n) const {
    const std::uint64_t head = in.peek(kFpcMaxToken);  // a whole token: 3 prefix bits and up to 32 field bits
    const auto p = static_cast<unsigned>(head >> (kFpcMaxToken - 3));
    in.skip(3 + kPayload[p]);
    return put_token(p, static_cast<std::uint32_t>((head >> (32 - kPayload[p])) & low_mask(kPayload[p])), out, i, n);
  }

  /// The tokens of one block (at most one per word), in order.
  struct Tokens {
    unsigned char prefix[64];
    std::uint32_t field[64];
    std::size_t n = 0;
    void add(unsigned p, std::uint32_t f) {
      prefix[n] = static_cast<unsigned char>(p);
      field[n++] = f;
    }
  };

  /// Writes the words of token (p, f) at word i; returns the next word index.
  std::size_t put_token(unsigned p, std::uint32_t f, std::uint8_t* out, std::size_t i, std::size_t n) const {
    if (p == 0) {
      const std::size_t run = f + 1;
      if (run > n - i) throw corrupt_stream("fpc zero run of " + std::to_string(run) + " words overruns the block");
      for (std::size_t j = 0; j < run; ++j) store<std::uint32_t>(out + 4 * (i + j), 0, s_.endian);
      return i + run;
    }
    if (i >= n) throw corrupt_stream("fpc stream holds more tokens than the block has words");
    std::uint32_t w;
    switch (p) {
      case 4: w = f << 16; break;
      case 5:
        w = static_cast<std::uint32_t>(sign_extend(f >> 8, 8)) << 16 |
            (static_cast<std::uint32_t>(sign_extend(f & 0xFFu, 8)) & 0xFFFFu);
        break;
      case 6: w = f * 0x01010101u; break;
      case 7: w = f; break;
      default: w = static_cast<std::uint32_t>(sign_extend(f, kPayload[p])); break;
    }
    store<std::uint32_t>(out + 4 * i, w, s_.endian);
    return i + 1;
  }

  /// Layout mc: the prefixes, then the payload fields.
  void decode_mc(BitReader& in, std::uint8_t* out, std::size_t n) const {
    const std::size_t total = in.remaining();
    unsigned char prefix[64];
    std::size_t t = 0, used = 0;  // tokens read, bits their prefixes and payloads take
    while (used < total) {
      if (t == n) throw corrupt_stream("fpc mc stream: more prefixes than words, or a length that fits none");
      prefix[t] = static_cast<unsigned char>(in.read(3));
      used += 3 + kPayload[prefix[t]];
      ++t;
    }
    if (used != total) throw corrupt_stream("fpc mc stream: prefixes and stream length disagree");
    std::size_t i = 0;
    for (std::size_t k = 0; k < t; ++k)
      i = put_token(prefix[k], static_cast<std::uint32_t>(in.read(kPayload[prefix[k]])), out, i, n);
    if (i != n)
      throw corrupt_stream("fpc mc stream: tokens cover " + std::to_string(i) + " of " + std::to_string(n) + " words");
  }

  const FpcSettings s_;
};

std::unique_ptr<Codec> make_fpc(const Options& o) { return std::make_unique<FPC>(o); }

}  // namespace

void add_fpc_presets(std::vector<Preset>& out) {
  using S = std::string;
  out.push_back({"fpc.paper",
                 "fpc",
                 "UW TR-1500 pattern table, zero runs of 1-8 words, sizes in bits",
                 "none",
                 {},
                 true,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.mc",
                 "fpc",
                 "fpc.paper with Metadata Consolidation (HPCA'16): all prefixes, then all payloads",
                 "none",
                 {{"layout", S("mc")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.gem5",
                 "fpc",
                 "gem5 v24 FPC: fpc.paper with halfwords 0..127 only in the two-halfword row, lines above 50 % "
                 "stored whole (threshold(0.5))",
                 "threshold(0.5)",
                 {{"halfwords", S("gem5")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.kim",
                 "fpc",
                 "scalable-arch FPC model: the same sizes as fpc.paper",
                 "none",
                 {},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.skku",
                 "fpc",
                 "SKKU MPC tools: one 6-bit token per maximal zero run (accounting-only)",
                 "none",
                 {{"zero_run", S("unbounded")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.cal22",
                 "fpc",
                 "the MPC authors' tool (CAL_22-MPC): = fpc.skku, one 6-bit token per maximal zero run "
                 "(accounting-only)",
                 "none",
                 {{"zero_run", S("unbounded")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
  out.push_back({"fpc.cmu",
                 "fpc",
                 "CMU-SAFARI byte approximation with unsigned-magnitude tests (accounting-only)",
                 "cap",
                 {{"size_model", S("cmu")}},
                 false,
                 &make_fpc,
                 &space_of<fpc_table>});
}

}  // namespace memcomp
