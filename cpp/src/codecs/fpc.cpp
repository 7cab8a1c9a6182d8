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
//   110     four equal bytes                          8
//   111     uncompressed                              32
//
// Stream: [prefix:3][payload] per token, in word order (layout "interleaved", the default), or
// with layout "mc" (Metadata Consolidation, P2 §4.3, SPEC 2) all prefixes in token order, then
// all payload fields in token order: the same bits, so the same size. The MC decoder reads
// prefixes until 3k + (payload bits of those k prefixes) reaches the stream length (that sum
// grows by >= 6 per token, so exactly one k matches), then the payloads.
// Presets: `paper` (= gem5, kim sizes), `mc` (paper with layout mc),
// `skku` (one 6-bit token per maximal zero run, accounting-only) and `cmu` (the CMU-SAFARI
// byte approximation, accounting-only).
#include "memcomp/codecs/families.hpp"

namespace memcomp {
namespace {

constexpr unsigned kPayload[8] = {3, 4, 8, 16, 16, 16, 8, 32};

inline bool in_range(std::int32_t v, std::int32_t lo, std::int32_t hi) { return v >= lo && v <= hi; }

// Prefix 1..7 of a non-zero word.
inline unsigned pattern(std::uint32_t w) {
  const auto s = static_cast<std::int32_t>(w);
  if (in_range(s, -8, 7)) return 1;
  if (in_range(s, -128, 127)) return 2;
  if (in_range(s, -32768, 32767)) return 3;
  if ((w & 0xFFFFu) == 0) return 4;
  if (in_range(static_cast<std::int16_t>(w >> 16), -128, 127) &&
      in_range(static_cast<std::int16_t>(w & 0xFFFFu), -128, 127))
    return 5;
  if (w == (w & 0xFFu) * 0x01010101u) return 6;
  return 7;
}

// Payload bits of a non-zero word, without branches on the pattern.
inline unsigned pattern_bits(std::uint32_t w) {
  const auto s = static_cast<std::int32_t>(w);
  const auto u = static_cast<std::uint32_t>(s);
  const bool s4 = u + 8u < 16u, s8 = u + 128u < 256u, s16 = u + 32768u < 65536u;
  const bool low0 = (w & 0xFFFFu) == 0;
  const bool halves = ((w + 0x00800000u) & 0xFF000000u) == 0 && ((w + 0x80u) & 0xFF00u) == 0;
  const bool rep = w == (w & 0xFFu) * 0x01010101u;
  return s4 ? 4u : s8 ? 8u : (s16 || low0 || halves) ? 16u : rep ? 8u : 32u;
}

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

class FPC final : public CodecImpl<FPC> {
 public:
  explicit FPC(const Options& o) {
    OptionReader r(o, "fpc");
    endian_ = r.get_choice("endian", "little", {"little", "big"}) == "big" ? Endian::big : Endian::little;
    unbounded_ = r.get_choice("zero_run", "bounded", {"bounded", "unbounded"}) == "unbounded";
    cmu_ = r.get_choice("size_model", "bits", {"bits", "cmu"}) == "cmu";
    mc_ = r.get_choice("layout", "interleaved", {"interleaved", "mc"}) == "mc";
    r.finish();
  }

  Options options() const override {
    return {{"endian", std::string(endian_ == Endian::big ? "big" : "little")},
            {"zero_run", std::string(unbounded_ ? "unbounded" : "bounded")},
            {"size_model", std::string(cmu_ ? "cmu" : "bits")},
            {"layout", std::string(mc_ ? "mc" : "interleaved")}};
  }
  bool exact() const override { return !unbounded_ && !cmu_; }
  void check_block_bytes(std::size_t b) const override { memcomp::check_block_bytes(b); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return 35 * (b / 4); }
  std::vector<ModeName> modes() const override { return {{0, "fpc"}}; }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    SizeBreakdown s;
    const std::size_t n = b / 4;
    if (cmu_) {
      std::uint32_t bytes = 0;
      for (std::size_t i = 0; i < n; ++i) bytes += cmu_bytes(load<std::uint32_t>(blk + 4 * i, endian_));
      s.payload = 8 * bytes;
      s.meta = static_cast<std::uint32_t>(8 * (3 * n / 8));
      return s;
    }
    // Branch-light: a zero word opens a token when it starts a run or (bounded runs) when the
    // run passes a multiple of 8; every other word is one token.
    const unsigned period = unbounded_ ? 0u : 7u;
    unsigned run = 0;
    std::uint32_t tokens = 0, payload = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, endian_);
      const bool z = w == 0;
      run = z ? run + 1 : 0;
      const bool opens = z && (run == 1 || (period && (run & period) == 1));
      tokens += z ? static_cast<std::uint32_t>(opens) : 1u;
      payload += z ? (opens ? 3u : 0u) : pattern_bits(w);
    }
    s.payload = payload;
    s.meta = 3 * tokens;
    return s;
  }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& out) const override {
    const std::size_t n = b / 4;
    Tokens t;
    unsigned run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = load<std::uint32_t>(blk + 4 * i, endian_);
      if (w == 0) {
        if (++run == 8) flush_run(t, run);
        continue;
      }
      if (run) flush_run(t, run);
      const unsigned p = pattern(w);
      std::uint64_t field = w;  // low bits: the sign-extended value or the repeated byte
      if (p == 4) field = w >> 16;
      if (p == 5) field = ((w >> 16) & 0xFFu) << 8 | (w & 0xFFu);
      t.add(p, static_cast<std::uint32_t>(field & low_mask(kPayload[p])));
    }
    if (run) flush_run(t, run);
    if (mc_) {
      for (std::size_t k = 0; k < t.n; ++k) out.write(t.prefix[k], 3);
      for (std::size_t k = 0; k < t.n; ++k) out.write(t.field[k], kPayload[t.prefix[k]]);
    } else {
      for (std::size_t k = 0; k < t.n; ++k)
        out.write(std::uint64_t{t.prefix[k]} << kPayload[t.prefix[k]] | t.field[k], 3 + kPayload[t.prefix[k]]);
    }
    return 0;
  }

  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    const std::size_t n = b / 4;
    if (mc_) return decode_mc(in, out, n);
    std::size_t i = 0;
    while (i < n) {
      const auto p = static_cast<unsigned>(in.read(3));
      const auto f = static_cast<std::uint32_t>(in.read(kPayload[p]));
      i = put_token(p, f, out, i, n);
    }
  }

 private:
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
  static void flush_run(Tokens& t, unsigned& run) {
    t.add(0, run - 1);
    run = 0;
  }

  /// Writes the words of token (p, f) at word i; returns the next word index.
  std::size_t put_token(unsigned p, std::uint32_t f, std::uint8_t* out, std::size_t i, std::size_t n) const {
    if (p == 0) {
      const std::size_t run = f + 1;
      if (run > n - i) throw corrupt_stream("fpc zero run of " + std::to_string(run) + " words overruns the block");
      for (std::size_t j = 0; j < run; ++j) store<std::uint32_t>(out + 4 * (i + j), 0, endian_);
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
    store<std::uint32_t>(out + 4 * i, w, endian_);
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

  Endian endian_ = Endian::little;
  bool unbounded_ = false;
  bool cmu_ = false;
  bool mc_ = false;
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
                 &make_fpc});
  out.push_back({"fpc.mc",
                 "fpc",
                 "fpc.paper with Metadata Consolidation (HPCA'16): all prefixes, then all payloads",
                 "none",
                 {{"layout", S("mc")}},
                 false,
                 &make_fpc});
  out.push_back(
      {"fpc.gem5", "fpc", "gem5 FPC: the same sizes as fpc.paper (zero_run_bits=3)", "none", {}, false, &make_fpc});
  out.push_back(
      {"fpc.kim", "fpc", "scalable-arch FPC model: the same sizes as fpc.paper", "none", {}, false, &make_fpc});
  out.push_back({"fpc.skku",
                 "fpc",
                 "SKKU MPC tools: one 6-bit token per maximal zero run (accounting-only)",
                 "none",
                 {{"zero_run", S("unbounded")}},
                 false,
                 &make_fpc});
  out.push_back({"fpc.cal22",
                 "fpc",
                 "the MPC authors' tool (CAL_22-MPC): = fpc.skku, one 6-bit token per maximal zero run "
                 "(accounting-only)",
                 "none",
                 {{"zero_run", S("unbounded")}},
                 false,
                 &make_fpc});
  out.push_back({"fpc.cmu",
                 "fpc",
                 "CMU-SAFARI byte approximation with unsigned-magnitude tests (accounting-only)",
                 "cap",
                 {{"size_model", S("cmu")}},
                 false,
                 &make_fpc});
}

}  // namespace memcomp
