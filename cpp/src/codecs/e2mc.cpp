// memcomp codecs: E2MC, entropy-encoding memory compression (Lal, Lucas & Juurlink, IPDPS'17 =
// P1; SPEC 1.10) and SC2 (Arelakis & Stenstrom, ISCA'14; SPEC 1.9) on the shared canonical Huffman
// machinery (SPEC 1.8).
//
// A block is S = 8B/SL symbols of SL bits (SPEC 0.2). Each symbol is coded with the canonical
// code of its table: one table for SL 16/32 (K most frequent values + ESC; an escaped symbol is
// ESC's codeword followed by the SL-bit literal), one table per position in a 32-bit word for
// SL 4/8 (all values coded, no ESC; P1 §III-E). With n parallel decoding ways (PDWs, P1 §III-F1)
// the symbols are split into n segments, segment k holding symbols [kS/n, (k+1)S/n):
//
//   stream = [P2..Pn: (n-1) x log2(B) bits][seg1][pad to byte][seg2] ... [pad to byte][segn]
//
// P_k is segment k's byte offset from the block start; pointers and pads are header bits.
// Raw rule (P1 §III-E): the block is stored compressed iff its in-band bits are <= 8(B - MAG)
// (< 8B when B < 2 MAG), otherwise raw; the tag, max(1, ceil(log2(B/MAG))) bits kept in the
// metadata cache (P1 §III-D), holds bursts - 1 for a compressed block and all ones for raw.
// Pointers and pads are relative to the codec's own first bit, so the stream is the same wherever
// it starts (a best-of hybrid writes its selector first).
// mode = MAG bursts of a compressed block (1 .. B/MAG - 1), 0 = raw; SC2, which has no raw mode
// or tags, reports mode 0 for every block.
//
// Model: {"format", "codec", "sl", "positions", "max_len", "tables": [{symbols, lengths, esc_len}]}.
//
// SLC (Lal, Lucas & Juurlink, DATE'19 = P4; SPEC 1.11), MAG-aware selective lossy compression, is
// the same stream with a header in front of the pointers (P4 §III-G):
//
//   stream = [m:1][ss: ceil(log2 S)][len-1: 4][P2..Pn][seg1][pad]...[segn]
//
// Budget (P4 §III-B/C), by the option budget: comp = the in-band bits of SLC's lossless stream
// (m = 0, ss = len = 0; compact_lossless leaves out ss and len) for "stream" and "gain", the sum of
// the block's code bits for "codes" (P4 §III-C: "the comp size can be easily calculated by just
// adding all code lengths"). comp > 8B -> raw; else if the block is approximable and comp >=
// 8 MAG, budget = the largest MAG multiple <= comp and extra = comp - budget; 0 < extra <= 8T
// (threshold T bytes) -> lossy; otherwise lossless, where E2MC's raw rule still applies. "gain"
// (the default, SPEC 1.11 Revised) goes lossy only if the budget is fewer bursts than E2MC takes
// for the same block (E2MC's header is 21 bits where SLC's is 32: without this a block can go
// lossy only to pay for the longer header). Lossy (P4 §III-D, §III-F): the candidate nodes are
// runs of s consecutive symbols starting at multiples of s, s = 1, 2, 4, 8, 16 (len is 4 bits),
// plus for `opt` runs of 6 at 8q and of 12 at 16q; a node's weight is the sum of its symbols' code
// bits. The smallest span whose weight >= extra wins, ties to the lowest start; its symbols emit
// nothing (segments keep their original symbol ranges) and the block is re-laid out; with
// "stream" and "gain", if pads push it above the budget the next candidate in that order is
// tried, and if none fits the block stays lossless; with "codes" the first node is taken and the
// block is charged what its stream takes (raw if that breaks E2MC's raw rule). Decoding (P4
// §III-E) fills the truncated symbols with 0 (`simp`) or predicts them from a kept value (`pred`,
// `opt`), never from a symbol inside the run: predict="word" (default) copies the first kept whole
// 32-bit word, word 0 if the run starts at or after its end, else the first whole word after the
// run, symbol by symbol (symbol i takes the symbol at i's place in the word, so a float's high half
// is predicted from a high half); predict="symbol" copies one symbol everywhere, P4's "the value
// of the first non-truncated symbol of the block": symbol 0 if ss > 0, else symbol ss + len (the
// same as "word" for SL 32). Threshold 0 disables lossy mode and the header with it: the stream is
// E2MC's. SLC's model is an E2MC model. mode: 0 raw, 1 lossless, 2 lossy.
#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "codec_impl.hpp"
#include "kernels/e2mc.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/codecs/huffman.hpp"
#include "memcomp/codecs/model.hpp"
#include "memcomp/core/simd.hpp"
#include "memcomp/core/symbols.hpp"
#include "memcomp/stats/symbol_histogram.hpp"

namespace memcomp {
namespace {

using huffman::CanonicalCode;

constexpr std::int16_t kRawMode = 0;

unsigned default_max_len(unsigned sl) { return sl == 4 ? 8 : sl == 8 ? 16 : 20; }  // P1 §III-B2c

enum class Variant { simp, pred, opt };     // SLC's candidate nodes and decoding (P4 §III-F)
enum class Budget { gain, stream, codes };  // what SLC's comp counts (SPEC 1.11)

struct E2mcSettings {
  Endian endian;
  unsigned sl;
  std::size_t mfv;
  std::int64_t max_len;  // -1: P1's limit for the symbol length; 0: unlimited (capped at 32)
  huffman::LimitMethod limit;
  bool per_position;
  unsigned pdw, mag;
  bool raw, flag_miss, heap_tree, cal22_sample;
  Variant variant;  // SLC (family "slc") only, to budget
  unsigned threshold;
  bool compact, word_predict;
  Budget budget;
  std::string model;
};

const OptionTable<E2mcSettings>& e2mc_table() {
  using S = E2mcSettings;
  using huffman::LimitMethod;
  static const OptionTable<S> t{
      option_endian(&S::endian),
      option_int("symbol_bits", &S::sl, 16, {4, 8, 16, 32}, "symbol length SL in bits (P1 §III-B)"),
      option_int("mfv", &S::mfv, 1024, 1, 1 << 20, "values a 16/32-bit table codes; the others escape"),
      option_int("max_len", &S::max_len, -1, -1, huffman::kMaxCodeLen,
                 "longest codeword in bits; -1: P1's for the SL (8, 16, 20), 0: unlimited (32)"),
      option_choice("limit", &S::limit, "floor",
                    {{huffman::to_string(LimitMethod::floor), LimitMethod::floor},
                     {huffman::to_string(LimitMethod::package_merge), LimitMethod::package_merge},
                     {huffman::to_string(LimitMethod::drop), LimitMethod::drop}},
                    "how code lengths are limited; drop moves long codes to ESC (gem5)"),
      option_bool("per_position", &S::per_position, true, "SL 4/8: one table per position in a word (P1 §III-E)"),
      option_int("pdw", &S::pdw, 4, 1, 8, "parallel decoding ways: 1, 2, 4 or 8 (P1 §III-F1)"),
      option_int("mag", &S::mag, 32, 1, 4096, "memory access granularity in bytes (P1 §III-D)"),
      option_bool("raw", &S::raw, true, "a block saving no MAG burst is stored raw (P1 §III-E)"),
      option_choice("miss", &S::flag_miss, "escape", {{"escape", false}, {"flag", true}},
                    "a value outside the table: ESC codeword + literal, or a 1-bit flag + literal"),
      option_choice("tree", &S::heap_tree, "spec", {{"spec", false}, {"heap", true}},
                    "the Huffman tree of SPEC 1.8, or CAL_22-MPC's heap tree (no ESC)"),
      option_choice("sample", &S::cal22_sample, "all", {{"all", false}, {"cal22", true}},
                    "fit on every block, or on CAL_22-MPC's first max(10^4, min(N/100, 10^6))"),
      option_string("model", &S::model, "", "the fitted tables as JSON (memcomp.model/1); empty: not fitted")};
  return t;
}

/// E2MC's options and SLC's own (P4).
const OptionTable<E2mcSettings>& slc_table() {
  using S = E2mcSettings;
  static const OptionTable<S> t{
      e2mc_table(),
      {option_choice("variant", &S::variant, "opt",
                     {{"simp", Variant::simp}, {"pred", Variant::pred}, {"opt", Variant::opt}},
                     "truncated symbols decoded as 0 (simp) or predicted (pred); opt adds span-6/12 nodes"),
       option_int("threshold_bytes", &S::threshold, 16, 0, 256,
                  "lossy when at most this many bytes above a MAG multiple; 0: lossless (P4)"),
       option_bool("compact_lossless", &S::compact, false, "a lossless block's header leaves out ss and len"),
       option_choice("predict", &S::word_predict, "word", {{"word", true}, {"symbol", false}},
                     "truncated symbols copy the first kept whole word, or one symbol (P4 §III-E)"),
       option_choice("budget", &S::budget, "gain",
                     {{"gain", Budget::gain}, {"stream", Budget::stream}, {"codes", Budget::codes}},
                     "comp: the lossless stream, the same when lossy saves a burst (gain), or the code bits")}};
  return t;
}

/// The longest codeword the options allow.
unsigned code_len_limit(const E2mcSettings& s) {
  return s.max_len < 0    ? default_max_len(s.sl)
         : s.max_len == 0 ? huffman::kMaxCodeLen
                          : static_cast<unsigned>(s.max_len);
}

/// The settings of `o` for `family` (e2mc, sc2 or slc), combinations no stream can hold refused.
E2mcSettings e2mc_settings(const Options& o, const std::string& family) {
  const bool slc = family == "slc";
  E2mcSettings s = (slc ? slc_table() : e2mc_table()).parse(o, family);
  check_symbol_bits(s.sl);
  if (s.pdw & (s.pdw - 1)) throw invalid_argument(family + ": pdw must be 1, 2, 4 or 8");
  if (slc && (!s.raw || s.flag_miss))
    throw invalid_argument("slc: the budget logic needs E2MC's raw rule (raw=True) and escapes (miss='escape')");
  if (s.heap_tree && (!s.flag_miss || s.sl <= 8))
    throw invalid_argument(family +
                           ": tree='heap' builds no ESC codeword: it needs miss='flag' and 16- or 32-bit symbols");
  if (s.heap_tree && s.max_len != 0)
    throw invalid_argument(family +
                           ": tree='heap' builds its code without a length limit (CAL_22-MPC's heap): it "
                           "needs max_len=0, got max_len=" +
                           std::to_string(s.max_len));
  if (slc && (s.mag > 256 || (s.mag & (s.mag - 1))))
    throw invalid_argument("slc: the MAG must divide a block (16 to 256 B): a power of two up to 256 B, got " +
                           std::to_string(s.mag));
  if (s.pdw > 1 && !s.raw)
    throw invalid_argument(family + ": parallel decoding ways need the raw rule (pointers must fit log2(B) bits)");
  if (s.flag_miss && s.sl <= 8) throw invalid_argument(family + ": miss='flag' needs 16- or 32-bit symbols");
  if (s.limit == huffman::LimitMethod::drop && s.sl <= 8)
    throw invalid_argument(family + ": limit='drop' moves symbols to ESC, which 4- and 8-bit tables do not have; "
                                    "use 'floor' or 'package_merge'");
  // A table codes up to 2^SL values (SL <= 8, no ESC) or mfv values + ESC: max_len must leave
  // room for them all (drop moves what does not fit to ESC, but SL <= 8 tables have none).
  const std::uint64_t leaves = s.sl <= 8 ? std::uint64_t{1} << s.sl
                                         : std::min<std::uint64_t>(s.mfv, std::uint64_t{1} << std::min(s.sl, 31u)) + 1;
  const unsigned need = s.limit == huffman::LimitMethod::drop && s.sl > 8 ? 1 : ceil_log2(leaves);
  if (!s.heap_tree && code_len_limit(s) < need)
    throw invalid_argument(family + ": max_len " + std::to_string(code_len_limit(s)) + " cannot code " +
                           std::to_string(leaves) + " symbols (at least " + std::to_string(need) +
                           " bits; lower mfv or raise max_len)");
  return s;
}

class E2MC final : public CodecImpl<E2MC> {
 public:
  E2MC(const Options& o, std::string family)
      : family_(std::move(family)), s_(e2mc_settings(o, family_)), slc_(family_ == "slc") {
    max_len_ = code_len_limit(s_);
    positions_ = s_.per_position && s_.sl <= 8 ? 32 / s_.sl : 1;  // a power of two: position = index & (positions - 1)
    if (slc_) {
      variant_ = s_.variant;
      threshold_ = s_.threshold;
      compact_ = s_.compact;
      word_predict_ = s_.word_predict;
      budget_ = s_.budget;
    }
    if (!s_.model.empty()) load_model(s_.model);
  }

  Options options() const override { return (slc_ ? slc_table() : e2mc_table()).write(s_); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.exact = !s_.flag_miss;
    c.lossy = approximates();
    c.needs_model = true;
    c.has_model = !tables_.empty();
    // The MPC authors' sample of the first lines needs the block count first; a 32-bit heap tree
    // breaks ties to the larger value, which a summary of the most frequent values does not keep.
    if (!s_.cal22_sample && !(s_.sl == 32 && s_.heap_tree))
      c.counts = {s_.sl, count_positions() > 1, s_.endian, s_.sl == 32 ? s_.mfv : 0};
    return c;
  }
  /// SLC with a threshold approximates blocks (Capabilities::lossy; read per block, so not through the record).
  bool approximates() const { return slc_ && threshold_ > 0; }
  /// Rows of the histogram a fit counts: a table per position, or one (heap trees: one).
  std::size_t count_positions() const { return s_.heap_tree ? 1 : positions_; }
  void check_block_bytes(std::size_t b) const override {
    memcomp::check_block_bytes(b);
    if ((8 * b) % (std::size_t{s_.sl} * s_.pdw))
      throw invalid_argument(family_ + ": 8B must be divisible by SL x PDW (SPEC 0.1), got B=" + std::to_string(b));
    if (slc_ && b % s_.mag)
      throw invalid_argument("slc: the MAG (" + std::to_string(s_.mag) + " B) must divide the block (" +
                             std::to_string(b) + " B): its budgets are whole bursts");
  }
  std::uint64_t max_compressed_bits(std::size_t b) const override {
    if (s_.raw) return 8 * b;  // larger streams are stored raw
    return (8 * b / s_.sl) * (max_len_ + s_.sl + 1);
  }
  std::vector<ModeName> modes() const override {
    if (slc_) return {{kRawMode, "raw"}, {1, "lossless"}, {2, "lossy"}};
    if (!s_.raw) return {{0, family_}};
    std::vector<ModeName> m{{kRawMode, "raw"}};
    std::uint64_t most = 1;
    for (std::size_t b : {std::size_t{16}, std::size_t{32}, std::size_t{64}, std::size_t{128}, std::size_t{256}})
      most = std::max(most, max_bursts(b));
    for (std::uint64_t k = 1; k <= most; ++k)
      m.push_back({static_cast<std::int16_t>(k), std::to_string(k) + (k == 1 ? " burst" : " bursts")});
    return m;
  }

  std::string fit(const BlockView& all, int threads) const override {
    check_block_bytes(all.block_bytes);
    BlockView blocks = all;
    if (s_.cal22_sample)  // the MPC authors' SC2 samples the first max(10^4, min(N/100, 10^6)) lines
      blocks.n_blocks =
          std::min(all.n_blocks, std::max<std::size_t>(10000, std::min<std::size_t>(all.n_blocks / 100, 1000000)));
    SymbolCounts c;
    c.symbol_bits = s_.sl;
    if (s_.sl == 32) {  // the alphabet straight from the exact counts: no copy of millions of values
      ValueCounts32 counts;
      counts.add_words(blocks, s_.endian, threads);
      return model_of(c, &counts);
    }
    SymbolHistogram h(s_.sl, count_positions() > 1, s_.endian);
    h.add(blocks, threads);
    c.positions = count_positions();
    c.dense = h.dense();
    return fit_counts(c);
  }

  /// The tables from the counts fit() gathers: SL 32 (value, count) pairs, else a histogram per
  /// position (count_positions rows).
  std::string fit_counts(const SymbolCounts& c) const override { return model_of(c, nullptr); }

  // fit_counts, the SL 32 values taken from `exact` where given (fit's own counts), else from c.
  std::string model_of(const SymbolCounts& c, const ValueCounts32* exact) const {
    const auto alphabet32 = [&](huffman::TopK rule) {
      return exact ? huffman::make_alphabet(32, *exact, s_.mfv, rule)
                   : huffman::make_alphabet(32, c.values, s_.mfv, rule, c.uncounted);
    };
    if (c.symbol_bits != s_.sl)
      throw invalid_argument(family_ + ": counts of " + std::to_string(c.symbol_bits) + "-bit symbols for SL " +
                             std::to_string(s_.sl));
    const std::size_t v = std::size_t{1} << (s_.sl == 32 ? 0 : s_.sl);
    if (s_.sl < 32 && (c.positions != count_positions() || c.dense.size() != c.positions * v))
      throw invalid_argument(family_ + ": SL " + std::to_string(s_.sl) + " counts need " +
                             std::to_string(count_positions()) + " rows of " + std::to_string(v) + " values");
    std::vector<std::pair<std::uint64_t, std::uint64_t>> nonzero;  // SL 16 heap trees: the dense row's
    if (s_.sl == 16 && s_.heap_tree)
      for (std::size_t x = 0; x < v; ++x)
        if (c.dense[x]) nonzero.emplace_back(x, c.dense[x]);
    Json tables = Json::array();
    if (s_.sl >= 16 && s_.heap_tree) {
      const huffman::Alphabet a = s_.sl == 32
                                      ? alphabet32({true, false})
                                      : huffman::make_alphabet(s_.sl, nonzero, s_.mfv, {true, false}, c.uncounted);
      tables.push(huffman::CanonicalCode::from_lengths(s_.sl, a.leaves, huffman::heap_lengths(a.leaves)).to_json());
    } else if (s_.sl == 32) {
      tables.push(huffman::build_code(alphabet32({}), max_len_, s_.limit).to_json());
    } else {
      for (std::size_t p = 0; p < c.positions; ++p) {
        const std::vector<std::uint64_t> row(c.dense.begin() + static_cast<std::ptrdiff_t>(p * v),
                                             c.dense.begin() + static_cast<std::ptrdiff_t>((p + 1) * v));
        tables.push(
            huffman::build_code(huffman::make_alphabet_dense(s_.sl, row, s_.mfv), max_len_, s_.limit).to_json());
      }
    }
    Json m = new_model(model_family());
    m.set("sl", Json::integer(s_.sl));
    m.set("positions", Json::integer(positions_));
    m.set("max_len", Json::integer(max_len_));
    m.set("tables", std::move(tables));
    return m.dump();
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override { return plan(blk, b, true).size; }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
    return write(blk, b, w, plan(blk, b, true));
  }
  std::uint32_t encode_block(const BlockView& v, std::size_t i, BitWriter& w) const override {
    return write(v.block(i), v.block_bytes, w, plan(v.block(i), v.block_bytes, v.may_approximate(i)));
  }

  void decode(BitReader& in, std::uint32_t tag, std::uint8_t* out, std::size_t b) const override {
    if (s_.raw && tag == raw_tag(b)) {
      in.read_bytes(out, b);
      return;
    }
    const std::size_t origin = in.position(), bits = in.remaining(), n = 8 * b / s_.sl;
    if (s_.raw && tag != bursts(bits) - 1)
      throw corrupt_stream(family_ + " tag " + std::to_string(tag) + " does not match a " + std::to_string(bits) +
                           "-bit stream");
    std::size_t cut = 0, cut_len = 0;  // truncated symbols [cut, cut + cut_len) of a lossy block
    if (head_bits(b, false)) {
      const bool m = in.read_bit();
      if (m || !compact_) {
        cut = static_cast<std::size_t>(in.read(ss_bits(b)));
        cut_len = static_cast<std::size_t>(in.read(4)) + 1;
        if (!m && (cut != 0 || cut_len != 1)) throw corrupt_stream("slc lossless block with a start or length field");
        if (m && !is_node(cut, cut_len, n))
          throw corrupt_stream("slc symbols [" + std::to_string(cut) + ", " + std::to_string(cut + cut_len) +
                               ") are not a node of the " + variant_name() + " tree");
        if (!m) cut_len = 0;
      }
    }
    const unsigned ptr_bits = ceil_log2(b);
    std::array<std::size_t, 8> start{};
    for (unsigned k = 1; k < s_.pdw; ++k) start[k] = 8 * static_cast<std::size_t>(in.read(ptr_bits));
    std::memset(out, 0, b);
    if (s_.pdw > 1 && cut_len == 0 && simd_enabled()) return decode_ways(in, origin, start, out, b);
    for (unsigned k = 0; k < s_.pdw; ++k) {
      if (k) {
        const std::size_t pos = in.position() - origin, aligned = (pos + 7) / 8 * 8;
        if (start[k] != aligned)
          throw corrupt_stream(family_ + " segment " + std::to_string(k + 1) + " pointer " +
                               std::to_string(start[k] / 8) + " is not where segment " + std::to_string(k) + " ends");
        if (in.read(static_cast<unsigned>(aligned - pos)) != 0)
          throw corrupt_stream(family_ + " non-zero alignment pad");
      }
      const std::size_t lo = k * n / s_.pdw, hi = (k + 1) * n / s_.pdw;
      with_symbol_bits(s_.sl, [&](auto SL) {
        for (std::size_t i = lo; i < hi; ++i)
          if (i < cut || i >= cut + cut_len)
            put_symbol<SL()>(out, i, static_cast<std::uint32_t>(table(i).decode_symbol(in)), s_.endian);
      });
    }
    if (cut_len && variant_ != Variant::simp) {  // value-similarity prediction (P4 §III-E)
      // The first kept value, never a symbol of the run: predict="word" copies the first whole
      // 32-bit word kept (word 0 if the run starts at or after its end, else the first whole word
      // after the run) word by word, the symbol at the same place in the word; predict="symbol"
      // copies P4's "first non-truncated symbol of the block" (symbol 0 if ss > 0, else ss + len).
      const std::size_t per = s_.sl < 32 ? 32 / s_.sl : 1;  // symbols per 32-bit word
      const std::size_t first = cut >= per ? 0 : (cut + cut_len + per - 1) / per * per;
      with_symbol_bits(s_.sl, [&](auto SL) {
        for (std::size_t i = cut; i < cut + cut_len; ++i) {
          const std::size_t src = word_predict_ ? first + i % per : (cut > 0 ? 0 : cut_len);
          put_symbol<SL()>(out, i, src < n ? symbol_at<SL()>(out, src, s_.endian) : 0u, s_.endian);
        }
      });
    }
  }

 protected:
  void measure_range(const BlockView& v, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
    for (std::size_t i = begin; i < end; ++i) out.set(i, plan(v.block(i), v.block_bytes, v.may_approximate(i)).size);
  }

 private:
  const CanonicalCode& table(std::size_t i) const { return tables_[i & (positions_ - 1)]; }

  // Bits of symbol value v at index i (SC2's kim preset: a hit costs its code, a miss 1 + SL).
  unsigned cost(std::uint32_t v, std::size_t i) const {
    if (!lut_.empty()) return lut_[(i & (positions_ - 1)) << s_.sl | v];
    const CanonicalCode& t = table(i);
    if (s_.flag_miss) {
      const auto cw = t.code_of(v);
      return cw.len ? cw.len : 1 + s_.sl;
    }
    return t.symbol_bits(v);
  }
  void put(BitWriter& w, std::uint32_t v, std::size_t i) const { table(i).encode_symbol(w, v); }

  std::uint64_t bursts(std::uint64_t bits) const {
    return std::max<std::uint64_t>(1, ceil_div(bits, 8 * std::uint64_t{s_.mag}));
  }
  std::uint32_t raw_tag(std::size_t b) const { return (1u << tag_bits(b)) - 1; }
  // Bursts a compressed block can take: up to B - MAG bytes, or below B when B < 2 MAG.
  std::uint64_t max_bursts(std::size_t b) const {
    return 2 * s_.mag <= b ? ceil_div(b - s_.mag, s_.mag) : ceil_div(b, s_.mag);
  }
  // Enough bits for bursts - 1 of every compressed block plus the all-ones raw value:
  // ceil(log2(B/MAG)) for power-of-two B/MAG (P1 §III-D: 2 bits at 128/32).
  unsigned tag_bits(std::size_t b) const { return std::max(1u, ceil_log2(max_bursts(b) + 1)); }

  // Bits of the pointers, pads and segments behind `head` header bits: header = head + pointers
  // + pads, payload = the segments.
  struct Lay {
    std::uint32_t payload = 0, header = 0;
    std::uint64_t bits() const { return std::uint64_t{payload} + header; }
  };
  Lay lay(const std::array<std::uint32_t, 8>& seg, std::size_t b, unsigned head) const {
    Lay l;
    std::uint32_t at = head + (s_.pdw - 1) * ceil_log2(b);
    l.header = at;
    for (unsigned k = 0; k < s_.pdw; ++k) {
      if (k) {
        const std::uint32_t aligned = (at + 7) / 8 * 8;
        l.header += aligned - at;
        at = aligned;
      }
      l.payload += seg[k];
      at += seg[k];
    }
    return l;
  }
  // E2MC's raw rule (P1 §III-E): compressed iff bits <= 8(B - MAG), or < 8B when B < 2 MAG.
  bool fits_compressed(std::uint64_t bits, std::size_t b) const {
    const std::uint64_t full = 8 * std::uint64_t{b};
    return 2 * s_.mag <= b ? bits <= full - 8 * std::uint64_t{s_.mag} : bits < full;
  }

  // What encode writes for a block: raw, lossless, or lossy with symbols [cut, cut + cut_len)
  // truncated; `seg` are the segment bits written and `size` the breakdown measure reports.
  struct Plan {
    SizeBreakdown size;
    std::array<std::uint32_t, 8> seg{};
    bool raw = false, lossy = false;
    std::size_t cut = 0, cut_len = 0;
    unsigned head = 0;
  };

  static Plan& raw_plan(Plan& p, std::size_t b) {
    p.raw = true;
    p.size.payload = static_cast<std::uint32_t>(8 * b);
    p.size.header = 0;
    p.size.mode = kRawMode;
    return p;
  }
  // Bursts E2MC takes for a block with these segments (no SLC header; B when stored raw).
  std::uint64_t e2mc_bursts(const std::array<std::uint32_t, 8>& seg, std::size_t b) const {
    const std::uint64_t bits = lay(seg, b, 0).bits();
    return fits_compressed(bits, b) ? bursts(bits) : ceil_div(b, s_.mag);
  }

  Plan plan(const std::uint8_t* blk, std::size_t b, bool approximable) const {
    Plan p;
    const std::size_t n = 8 * b / s_.sl;
    std::uint8_t c[512];  // bits of every symbol (S <= 512), kept only when a block may go lossy
    const bool keep = approximates() && approximable;
    const auto bits32 = e2mc_kernels().bits32;  // the kernel table of the active tier (kernels/e2mc.hpp)
    if (bits32 != nullptr && s_.sl == 32 && positions_ == 1 && !tables_[0].empty() &&
        (s_.flag_miss || tables_[0].has_esc())) {
      const std::uint32_t total = bits32(tables_[0], s_.endian == Endian::big, blk, n,
                                         s_.flag_miss ? 1 + s_.sl : tables_[0].esc().len + s_.sl, c);
      p.seg[0] = total;  // one segment (SC2), else each segment's from c
      for (unsigned k = 0; k < s_.pdw && s_.pdw > 1; ++k) {
        std::uint32_t sum = 0;
        for (std::size_t i = k * n / s_.pdw, hi = (k + 1) * n / s_.pdw; i < hi; ++i) sum += c[i];
        p.seg[k] = sum;
      }
    } else
      with_symbol_bits(s_.sl, [&](auto SL) {
        // Each segment's bits: a dense table per position, or one table's lookup (no position).
        auto segments = [&](auto bits_of) {
          const unsigned pdw = s_.pdw;
          for (unsigned k = 0; k < pdw; ++k) {
            std::uint32_t sum = 0;
            const std::size_t lo = k * n / pdw, hi = (k + 1) * n / pdw;  // bounds hoisted: no division per symbol
            for (std::size_t i = lo; i < hi; ++i) {
              const unsigned bits = bits_of(symbol_at<SL()>(blk, i, s_.endian), i);
              if (keep) c[i] = static_cast<std::uint8_t>(bits);
              sum += bits;
            }
            p.seg[k] = sum;
          }
        };
        if (!lut_.empty()) {
          if constexpr (SL() == 16) {
            if (positions_ == 1 && n % (4 * s_.pdw) == 0 && simd_enabled())
              return segments16(blk, n, keep ? c : nullptr, p.seg);
          }
          const std::uint8_t* lut = lut_.data();
          const std::size_t pm = positions_ - 1;
          segments([&](std::uint32_t v, std::size_t i) -> unsigned { return lut[(i & pm) << s_.sl | v]; });
        } else if (positions_ == 1 && !s_.flag_miss && tables_[0].has_esc()) {
          // symbol_bits without its checks: an sl-bit value is below ESC's key, and ESC exists.
          const CanonicalCode::Lengths length_of(tables_[0]);
          const unsigned esc_bits = tables_[0].esc().len + s_.sl;
          segments([&](std::uint32_t v, std::size_t) {
            const unsigned len = length_of(v);
            return len ? len : esc_bits;
          });
        } else if (positions_ == 1 && !s_.flag_miss) {
          const CanonicalCode& t = tables_[0];
          segments([&](std::uint32_t v, std::size_t) { return t.symbol_bits(v); });
        } else {
          segments([&](std::uint32_t v, std::size_t i) { return cost(v, i); });
        }
      });
    p.head = head_bits(b, false);
    Lay l = lay(p.seg, b, p.head);
    const std::uint64_t comp = l.bits(), full = 8 * std::uint64_t{b}, burst = 8 * std::uint64_t{s_.mag};
    if (slc_) p.size.mode = 1;
    if (s_.raw) p.size.tag = tag_bits(b);
    // SLC's comp (SPEC 1.11): the lossless stream's bits, or P4 §III-C's "adding all code lengths".
    const std::uint64_t slc_comp = budget_ == Budget::codes ? l.payload : comp;
    if (keep && slc_comp <= full && slc_comp >= burst) {
      const std::uint64_t budget = slc_comp / burst * burst, extra = slc_comp - budget;
      if (extra > 0 && extra <= 8 * std::uint64_t{threshold_} &&
          (budget_ != Budget::gain || budget / burst < e2mc_bursts(p.seg, b))) {
        Plan q = p;  // "codes" charges the lossy stream, which E2MC's raw rule may refuse: then lossless
        if (choose_cut(c, n, b, extra, budget, q) && fits_compressed(q.size.inband(), b)) return q;
      }
    }
    if (s_.raw && !fits_compressed(comp, b)) return raw_plan(p, b);
    p.size.payload = l.payload;
    p.size.header = l.header;
    if (!slc_ && s_.raw) p.size.mode = static_cast<std::int16_t>(bursts(comp));
    return p;
  }

  // Each segment's bits for SL 16 with one table (E2MC16): four symbols per 8-byte load, one
  // dense-table load each; the symbols' bits also go to c unless it is null. A fast path (off
  // with the SIMD kernels) of the generic loop in plan.
  void segments16(const std::uint8_t* blk, std::size_t n, std::uint8_t* c, std::array<std::uint32_t, 8>& seg) const {
    const std::uint8_t* lut = lut_.data();
    const bool big = s_.endian == Endian::big;
    const unsigned pdw = s_.pdw;
    for (unsigned k = 0; k < pdw; ++k) {
      std::uint32_t sum = 0;
      for (std::size_t i = k * n / pdw, hi = (k + 1) * n / pdw; i < hi; i += 4) {
        std::uint64_t x = load<std::uint64_t>(blk + 2 * i, Endian::little);
        if (big) x = (x & 0x00FF00FF00FF00FFu) << 8 | ((x >> 8) & 0x00FF00FF00FF00FFu);
        const unsigned b0 = lut[x & 0xFFFFu], b1 = lut[(x >> 16) & 0xFFFFu], b2 = lut[(x >> 32) & 0xFFFFu],
                       b3 = lut[x >> 48];
        if (c) {
          c[i] = static_cast<std::uint8_t>(b0);
          c[i + 1] = static_cast<std::uint8_t>(b1);
          c[i + 2] = static_cast<std::uint8_t>(b2);
          c[i + 3] = static_cast<std::uint8_t>(b3);
        }
        sum += b0 + b1 + b2 + b3;
      }
      seg[k] = sum;
    }
  }

  // The first candidate node (span ascending, start ascending) whose weight covers `extra` and
  // whose re-laid-out stream fits the budget; sets the plan's lossy fields.
  bool choose_cut(const std::uint8_t* c, std::size_t n, std::size_t b, std::uint64_t extra, std::uint64_t budget,
                  Plan& p) const {
    std::uint32_t prefix[513];
    prefix[0] = 0;
    for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + c[i];
    const unsigned head = head_bits(b, true);
    for (const unsigned span : spans()) {
      if (span > n) break;
      const std::size_t step = span == 6 ? 8 : span == 12 ? 16 : span;
      for (std::size_t ss = 0; ss + span <= n; ss += step) {
        if (prefix[ss + span] - prefix[ss] < extra) continue;
        std::array<std::uint32_t, 8> seg = p.seg;
        for (unsigned k = 0; k < s_.pdw; ++k) {
          const std::size_t lo = std::max(ss, k * n / s_.pdw),
                            hi = std::min<std::size_t>(ss + span, (k + 1) * n / s_.pdw);
          if (lo < hi) seg[k] -= prefix[hi] - prefix[lo];
        }
        const Lay l = lay(seg, b, head);
        if (budget_ != Budget::codes && l.bits() > budget) continue;  // "codes": charged what it takes
        p.lossy = true;
        p.seg = seg;
        p.cut = ss;
        p.cut_len = span;
        p.head = head;
        p.size.payload = l.payload;
        p.size.header = l.header;
        p.size.mode = 2;
        return true;
      }
    }
    return false;
  }

  std::uint32_t write(const std::uint8_t* blk, std::size_t b, BitWriter& w, const Plan& p) const {
    if (p.raw) {
      w.write_bytes(blk, b);
      return raw_tag(b);
    }
    const std::size_t origin = w.position();
    if (p.head) {
      w.write_bit(p.lossy);
      if (p.lossy || !compact_) {
        w.write(p.cut, ss_bits(b));
        w.write(p.lossy ? p.cut_len - 1 : 0, 4);
      }
    }
    const unsigned ptr_bits = ceil_log2(b);
    std::size_t at = p.head + (s_.pdw - 1) * ptr_bits + p.seg[0];
    for (unsigned k = 1; k < s_.pdw; ++k) {  // P_k: byte offset of segment k
      at = (at + 7) / 8 * 8;
      w.write(at / 8, ptr_bits);
      at += p.seg[k];
    }
    const std::size_t n = 8 * b / s_.sl, cut_end = p.cut + p.cut_len;
    const bool fields = positions_ == 1 && tables_[0].has_esc();  // one table's fields, hoisted
    for (unsigned k = 0; k < s_.pdw; ++k) {
      if (k) w.write(0, static_cast<unsigned>((8 - (w.position() - origin) % 8) % 8));
      const std::size_t lo = k * n / s_.pdw, hi = (k + 1) * n / s_.pdw;
      with_symbol_bits(s_.sl, [&](auto SL) {
        if (fields && !p.lossy) {
          const CanonicalCode::Fields field_of(tables_[0]);
          for (std::size_t i = lo; i < hi; ++i) {
            const auto f = field_of(symbol_at<SL()>(blk, i, s_.endian));
            w.write(f.code, f.len);
          }
          return;
        }
        for (std::size_t i = lo; i < hi; ++i)
          if (!p.lossy || i < p.cut || i >= cut_end) put(w, symbol_at<SL()>(blk, i, s_.endian), i);
      });
    }
    return s_.raw ? static_cast<std::uint32_t>(bursts(w.position() - origin) - 1) : 0u;
  }

  // The PDW segments of a block without a cut decoded side by side (P1 §III-D: the pointers
  // let the decoder start every segment at once), one symbol of each in turn: their dependency
  // chains (a codeword's length before the next one's bits) overlap. Accepts what the one-way
  // loop accepts: every segment ends at most 7 zero pad bits before the next one's start, and
  // the last at the stream's end.
  void decode_ways(BitReader& in, std::size_t origin, const std::array<std::size_t, 8>& start, std::uint8_t* out,
                   std::size_t b) const {
    const std::size_t n = 8 * b / s_.sl, per = n / s_.pdw, here = in.position() - origin, bits = in.size() - origin;
    std::array<BitReader, 8> way{in, in, in, in, in, in, in, in};
    for (unsigned k = 0; k < s_.pdw; ++k) {
      const std::size_t from = k ? start[k] : here, to = k + 1 < s_.pdw ? start[k + 1] : bits;
      if (from > to || to > bits || (k && from < here))
        throw corrupt_stream(family_ + " segment " + std::to_string(k + 1) + " pointer " + std::to_string(from / 8) +
                             " lies outside the block's stream or before an earlier segment");
      way[k] = in.sub(origin + from, origin + to);
    }
    // Symbols into a local array first (byte stores into `out` could alias the readers and pin
    // them to memory); PDW known at compile time keeps every reader's position in a register.
    // Where the buffer holds every bit the ways' symbols could take, the reads go unchecked and
    // the ends are checked once after (a way that ran past its end is read again, checked, for
    // the error).
    std::uint32_t sym[2048];  // n <= 8 * 256 B / 1
    bool raw = positions_ == 1 && !tables_[0].empty();
    if (raw) {
      const CanonicalCode& t = tables_[0];
      const std::size_t most = per * std::max<std::size_t>(t.max_len(), t.esc().len + s_.sl) + 64;
      for (unsigned k = 0; k < s_.pdw; ++k) raw &= way[k].raw_room() >= most;
    }
    auto run = [&](auto Raw) {
      switch (s_.pdw) {
        case 2: decode_interleaved<2, Raw()>(way.data(), per, sym); break;
        case 4: decode_interleaved<4, Raw()>(way.data(), per, sym); break;
        default: decode_interleaved<8, Raw()>(way.data(), per, sym); break;
      }
    };
    if (raw) {
      const std::array<BitReader, 8> first = way;
      try {
        run(std::true_type{});
        for (unsigned k = 0; k < s_.pdw; ++k) raw &= !way[k].overran();
      } catch (const corrupt_stream&) {
        raw = false;
      }
      if (!raw) way = first;
    }
    if (!raw) run(std::false_type{});
    with_symbol_bits(s_.sl, [&](auto SL) {
      for (std::size_t i = 0; i < n; ++i) put_symbol<SL()>(out, i, sym[i], s_.endian);
    });
    for (unsigned k = 0; k + 1 < s_.pdw; ++k) {
      const std::size_t pad = way[k].remaining();
      if (pad > 7)
        throw corrupt_stream(family_ + " segment " + std::to_string(k + 2) + " pointer " +
                             std::to_string(start[k + 1] / 8) + " is not where segment " + std::to_string(k + 1) +
                             " ends");
      if (way[k].read(static_cast<unsigned>(pad)) != 0) throw corrupt_stream(family_ + " non-zero alignment pad");
    }
    if (way[s_.pdw - 1].remaining() != 0)
      throw corrupt_stream(std::to_string(way[s_.pdw - 1].remaining()) + " trailing bits after the last field");
    in.skip(static_cast<unsigned>(in.remaining()));
  }

  template <std::size_t... K>
  static std::array<BitReader, sizeof...(K)> copies(const BitReader* r, std::index_sequence<K...>) {
    return {{r[K]...}};
  }
  // Raw: BitReader's unchecked reads (one table only; the caller checks the ends).
  template <unsigned PDW, bool Raw>
  void decode_interleaved(BitReader* way, std::size_t per, std::uint32_t* sym) const {
    std::array<BitReader, PDW> w = copies(way, std::make_index_sequence<PDW>());
    if (positions_ == 1) {  // one table: its decoder's pointers in registers
      const CanonicalCode::Symbols decode(tables_[0]);
      for (std::size_t j = 0; j < per; ++j)
        for (unsigned k = 0; k < PDW; ++k) sym[k * per + j] = static_cast<std::uint32_t>(decode.operator()<Raw>(w[k]));
    } else {
      for (std::size_t j = 0; j < per; ++j)
        for (unsigned k = 0; k < PDW; ++k) {
          const std::size_t i = k * per + j;
          sym[i] = static_cast<std::uint32_t>(table(i).decode_symbol(w[k]));
        }
    }
    for (unsigned k = 0; k < PDW; ++k) way[k] = w[k];
  }

  // SLC header bits in front of the pointers (0 for E2MC, SC2 and threshold 0).
  unsigned head_bits(std::size_t b, bool lossy_block) const {
    if (!approximates()) return 0;
    return 1 + (lossy_block || !compact_ ? ss_bits(b) + 4 : 0);
  }
  unsigned ss_bits(std::size_t b) const { return ceil_log2(8 * b / s_.sl); }
  // Spans of the candidate nodes, smallest first (P4 §III-D; opt adds 6 and 12, §III-F).
  const std::vector<unsigned>& spans() const {
    static const std::vector<unsigned> tree{1, 2, 4, 8, 16}, opt{1, 2, 4, 6, 8, 12, 16};
    return variant_ == Variant::opt ? opt : tree;
  }
  bool is_node(std::size_t ss, std::size_t span, std::size_t n) const {
    const auto& sp = spans();
    if (std::find(sp.begin(), sp.end(), span) == sp.end() || ss + span > n) return false;
    const std::size_t step = span == 6 ? 8 : span == 12 ? 16 : span;
    return ss % step == 0;
  }
  std::string variant_name() const {
    return variant_ == Variant::simp ? "simp" : variant_ == Variant::pred ? "pred" : "opt";
  }
  std::string model_family() const { return slc_ ? "e2mc" : family_; }

  void load_model(const std::string& text) {
    const Json m = parse_model(text, model_family());
    if (m["sl"].as_int() != s_.sl)
      throw json_error(family_ + " model: sl " + m["sl"].dump() + " differs from symbol_bits " + std::to_string(s_.sl));
    if (m["positions"].as_int() != positions_)
      throw json_error(family_ + " model: positions " + m["positions"].dump() + " differs from " +
                       std::to_string(positions_));
    const Json& tables = m["tables"];
    if (tables.size() != positions_)
      throw json_error(family_ + " model: expected " + std::to_string(positions_) + " tables");
    for (const Json& t : tables.elements()) {
      CanonicalCode c = CanonicalCode::from_json(t, s_.sl);
      if (c.max_len() > max_len_)
        throw json_error(family_ + " model: a code of " + std::to_string(c.max_len()) + " bits exceeds max_len " +
                         std::to_string(max_len_));
      if (s_.sl <= 8 && (c.has_esc() || c.size() != (std::size_t{1} << s_.sl)))
        throw json_error(family_ + " model: SL <= 8 tables code every value and have no ESC (SPEC 1.8)");
      if (s_.sl > 8 && !c.has_esc() && !s_.heap_tree)
        throw json_error(family_ + " model: SL >= 16 tables need an ESC codeword (tree='heap' tables have none)");
      tables_.push_back(std::move(c));
    }
    s_.model = m.dump();
    if (s_.sl <= 16) {  // dense cost table: one load per symbol in measure
      const std::size_t v = std::size_t{1} << s_.sl;
      lut_.resize(positions_ * v);
      for (unsigned p = 0; p < positions_; ++p)
        for (std::size_t x = 0; x < v; ++x) {
          const auto cw = tables_[p].code_of(x);
          lut_[p * v + x] =
              static_cast<std::uint8_t>(cw.len ? cw.len : (s_.flag_miss ? 1 : tables_[p].esc().len) + s_.sl);
        }
    }
  }

  std::string family_;
  E2mcSettings s_;  ///< the model normalised once loaded
  unsigned max_len_ = 20, positions_ = 1;
  bool slc_ = false, compact_ = false, word_predict_ = true;
  Variant variant_ = Variant::opt;
  Budget budget_ = Budget::gain;
  unsigned threshold_ = 0;  // SLC lossy threshold in bytes
  std::vector<CanonicalCode> tables_;
  std::vector<std::uint8_t> lut_;  // bits per (position, value) for SL <= 16
};

std::unique_ptr<Codec> make_e2mc(const Options& o) { return std::make_unique<E2MC>(o, "e2mc"); }
std::unique_ptr<Codec> make_sc2(const Options& o) { return std::make_unique<E2MC>(o, "sc2"); }
std::unique_ptr<Codec> make_slc(const Options& o) { return std::make_unique<E2MC>(o, "slc"); }

}  // namespace

void add_e2mc_presets(std::vector<Preset>& out) {
  out.push_back({"e2mc.paper",
                 "e2mc",
                 "E2MC16 (IPDPS'17): 1K MFVs + escape, codes <= 20 bits, 4 PDWs, raw above 96 B of 128 B, 32 B MAG",
                 "none",
                 {},
                 true,
                 &make_e2mc,
                 &space_of<e2mc_table>});
  out.push_back(
      {"sc2.paper",
       "sc2",
       "SC2 (ISCA'14) as a preset of the same machinery: 32-bit symbols, 1K values, codes <= 16 bits, "
       "no pointers, no raw mode",
       "none",
       {{"symbol_bits", std::int64_t{32}}, {"max_len", std::int64_t{16}}, {"pdw", std::int64_t{1}}, {"raw", false}},
       true,
       &make_sc2,
       &space_of<e2mc_table>});
  out.push_back({"sc2.cal22",
                 "sc2",
                 "the MPC authors' tool (CAL_22-MPC): 1000 MFVs (ties at the cut-off keep the larger words), its heap "
                 "Huffman tree, no length limit and no ESC, a miss costs 32 + 1 bits, fitted on the first "
                 "max(10^4, min(N/100, 10^6)) blocks (accounting-only)",
                 "none",
                 {{"symbol_bits", std::int64_t{32}},
                  {"mfv", std::int64_t{1000}},
                  {"max_len", std::int64_t{0}},
                  {"pdw", std::int64_t{1}},
                  {"raw", false},
                  {"miss", std::string("flag")},
                  {"tree", std::string("heap")},
                  {"sample", std::string("cal22")}},
                 false,
                 &make_sc2,
                 &space_of<e2mc_table>});
  out.push_back({"slc.opt",
                 "slc",
                 "SLC (DATE'19) on E2MC16: lossy when at most 16 B above a MAG multiple, tree nodes plus the extra "
                 "span-6/12 nodes, value-similarity prediction (TSLC-OPT)",
                 "none",
                 {},
                 true,
                 &make_slc,
                 &space_of<slc_table>});
  out.push_back({"slc.pred",
                 "slc",
                 "SLC with the plain tree and value-similarity prediction (TSLC-PRED)",
                 "none",
                 {{"variant", std::string("pred")}},
                 false,
                 &make_slc,
                 &space_of<slc_table>});
  out.push_back({"slc.simp",
                 "slc",
                 "SLC with the plain tree, truncated symbols decoded as 0 (TSLC-SIMP)",
                 "none",
                 {{"variant", std::string("simp")}},
                 false,
                 &make_slc,
                 &space_of<slc_table>});
  out.push_back({"sc2.kim",
                 "sc2",
                 "SKKU SC2 model: unlimited code lengths, a miss costs 32 + 1 bits (accounting-only)",
                 "none",
                 {{"symbol_bits", std::int64_t{32}},
                  {"max_len", std::int64_t{0}},
                  {"pdw", std::int64_t{1}},
                  {"raw", false},
                  {"miss", std::string("flag")}},
                 false,
                 &make_sc2,
                 &space_of<e2mc_table>});
}

}  // namespace memcomp
