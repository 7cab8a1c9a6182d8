// memcomp codecs: Frequent Value Compression (Yang, Zhang & Gupta, MICRO'00; SPEC 1.7; R §12).
// A fitted table holds the K most frequent 32-bit words (ties to the smaller value). Each word
// costs a c-bit code: 0..K-1 index the table, K is the escape, followed by the 32-bit literal.
//   fvc.paper: K = 7, c = 3.   fvc.gem5: K = 1024, c = 10 (an escape is c + 32 bits, but no
//   code is left for it, so the preset is accounting-only, as gem5's FrequentValues with
//   max_code_length = 0 counts it).
// Model: {"format": "memcomp.model/1", "codec": "fvc", "values": [...]}; a value's code is its
// position. fit() builds it one of two ways (option `table`):
//   top   the K most frequent words of all blocks, most frequent first (fvc.paper);
//   gem5  gem5 v24's value-frequency table (fvc.gem5): FrequentValues::sampleValues
//         (src/mem/cache/compressors/frequent_values.cc) samples the 32-bit words of the blocks
//         in the order given, a block at a time, until `samples` words are taken (the count is
//         checked after each block, as probeNotify does; num_samples = 100000 in Compressors.py:
//         the first 6,250 blocks of 64 B, 12,500 of 32 B). The table is an AssociativeCache of K
//         entries in K / `ways` sets (Compressors.py: vft_entries = 1024, vft_assoc = 16), set =
//         the value's low log2(sets) bits (tags/indexing_policies/set_associative.cc with
//         entry_size 1), replaced by LFU (replacement_policies/lfu_rp.cc: a hit adds 1 to the
//         entry's count, an insertion sets it to 1, the victim is the first way of the set with
//         the smallest count, an empty way counting 0; no aging). The values are listed in entry
//         order (set, then way; empty entries left out). gem5 then charges log2(vft_entries)
//         bits per hit and that + 32 per miss (FrequentValues::compress without Huffman,
//         max_code_length = 0) and Base::compress stores a line above 50 % whole: the preset's
//         policy threshold(0.5). gem5's default max_code_length = 18 Huffman-codes the entries
//         by count instead; that variant is not reproduced.
// Older models (a plain "values" list) load unchanged under either option.
#include <algorithm>
#include <array>
#include <cstring>

#include "codec_impl.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/codecs/model.hpp"
#include "memcomp/stats/symbol_counts.hpp"

namespace memcomp {
namespace {

struct FvcSettings {
  Endian endian;
  std::uint32_t entries;
  unsigned code_bits;
  bool gem5_table;
  std::uint32_t ways;
  std::uint64_t samples;
  std::string model;
};

const OptionTable<FvcSettings>& fvc_table() {
  using S = FvcSettings;
  static const OptionTable<S> t{
      option_endian(&S::endian), option_int("entries", &S::entries, 7, 1, 1 << 20, "frequent values in the table (K)"),
      option_int("code_bits", &S::code_bits, 0, 0, 24, "bits of a code; 0: enough for K values and the escape"),
      option_choice("table", &S::gem5_table, "top", {{"top", false}, {"gem5", true}},
                    "fit: the K most frequent words, or gem5's set-associative LFU value table"),
      // gem5: vft_assoc 16; at most 256, so a lookup stays cheap
      option_int("ways", &S::ways, 16, 1, 256, "ways of table='gem5' (K / ways sets)"),
      option_int("samples", &S::samples, 100000, 1, std::int64_t{1} << 40,
                 "words table='gem5' samples, whole blocks at a time"),
      option_string("model", &S::model, "", "the fitted table as JSON (memcomp.model/1); empty: not fitted")};
  return t;
}

/// The settings of `o`: code_bits 0 made the width that indexes K values and the escape, tables
/// the codes or the sets cannot hold refused.
FvcSettings fvc_settings(const Options& o) {
  FvcSettings s = fvc_table().parse(o, "fvc");
  if (s.code_bits == 0) s.code_bits = ceil_log2(std::uint64_t{s.entries} + 1);
  if ((std::uint64_t{1} << s.code_bits) < s.entries)
    throw invalid_argument("fvc: code_bits=" + std::to_string(s.code_bits) + " cannot index " +
                           std::to_string(s.entries) + " entries");
  const std::uint32_t sets = s.entries / s.ways;
  if (s.gem5_table && (s.entries % s.ways != 0 || (sets & (sets - 1)) != 0))
    throw invalid_argument("fvc: table=gem5 needs entries / ways to be a power of two of sets, got entries=" +
                           std::to_string(s.entries) + ", ways=" + std::to_string(s.ways));
  return s;
}

class FVC final : public CodecImpl<FVC> {
 public:
  explicit FVC(const Options& o) : s_(fvc_settings(o)) {
    table_.assign(16, Entry{0, s_.entries});
    if (!s_.model.empty()) load_model(s_.model);
  }

  Options options() const override { return fvc_table().write(s_); }
  Capabilities capabilities() const override {
    Capabilities c;
    c.exact = (std::uint64_t{1} << s_.code_bits) > s_.entries;
    c.needs_model = true;
    c.has_model = !s_.model.empty();
    if (!s_.gem5_table) c.counts = {32, false, s_.endian, s_.entries};  // gem5's table samples blocks
    return c;
  }
  void check_block_bytes(std::size_t b) const override { memcomp::check_block_bytes(b); }
  std::uint64_t max_compressed_bits(std::size_t b) const override { return (s_.code_bits + 32) * (b / 4); }
  std::vector<ModeName> modes() const override { return {{0, "fvc"}}; }

  std::string fit(const BlockView& blocks, int threads) const override {
    check_block_bytes(blocks.block_bytes);
    if (s_.gem5_table) return model_of(gem5_table(blocks));
    ValueCounts32 counts;
    counts.add_words(blocks, s_.endian, threads);
    std::vector<std::uint32_t> top;
    for (const auto& [v, n] : counts.top(s_.entries)) top.push_back(v);
    return model_of(top);
  }

  /// The table from 32-bit word counts (the most frequent values, count descending, ties to the
  /// smaller value: ValueCounts32::top's rule); gem5's table samples the blocks themselves.
  std::string fit_counts(const SymbolCounts& c) const override {
    if (s_.gem5_table) throw invalid_argument("fvc: table='gem5' samples the blocks themselves: fit it on blocks");
    if (c.symbol_bits != 32)
      throw invalid_argument("fvc: counts of " + std::to_string(c.symbol_bits) + "-bit symbols for 32-bit words");
    std::vector<std::pair<std::uint64_t, std::uint64_t>> items;
    for (const auto& vc : c.values)
      if (vc.second) items.push_back(vc);
    const std::size_t k = std::min<std::size_t>(s_.entries, items.size());
    std::partial_sort(
        items.begin(), items.begin() + static_cast<std::ptrdiff_t>(k), items.end(),
        [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    std::vector<std::uint32_t> top;
    for (std::size_t i = 0; i < k; ++i) top.push_back(static_cast<std::uint32_t>(items[i].first));
    return model_of(top);
  }

  static std::string model_of(const std::vector<std::uint32_t>& table) {
    Json values = Json::array();
    for (std::uint32_t v : table) values.push(Json::integer(v));
    Json m = new_model("fvc");
    m.set("values", std::move(values));
    return m.dump();
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    const std::size_t n = b / 4;
    std::uint32_t escapes = 0;
    if (small_) {  // up to 8 values: a branch-free membership test
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t v = load<std::uint32_t>(blk + 4 * i, s_.endian);
        bool hit = false;
        for (std::uint32_t t : small_table_) hit |= v == t;
        escapes += !hit;
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) escapes += !member(load<std::uint32_t>(blk + 4 * i, s_.endian));
    }
    SizeBreakdown s;
    s.meta = static_cast<std::uint32_t>(s_.code_bits * n);
    s.payload = 32 * escapes;
    return s;
  }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
    for (std::size_t i = 0; i < b / 4; ++i) {
      const std::uint32_t v = load<std::uint32_t>(blk + 4 * i, s_.endian), k = index(v);
      w.write(k, s_.code_bits);
      if (k == s_.entries) w.write(v, 32);
    }
    return 0;
  }

  void decode(BitReader& in, std::uint32_t, std::uint8_t* out, std::size_t b) const override {
    for (std::size_t i = 0; i < b / 4; ++i) {
      const auto k = static_cast<std::uint32_t>(in.read(s_.code_bits));
      std::uint32_t v;
      if (k == s_.entries)
        v = static_cast<std::uint32_t>(in.read(32));
      else if (k < values_.size())
        v = values_[k];
      else
        throw corrupt_stream("fvc code " + std::to_string(k) + " indexes no table entry");
      store<std::uint32_t>(out + 4 * i, v, s_.endian);
    }
  }

 private:
  // gem5's VFT after sampling `blocks` in order (see the header): valid values in entry order.
  std::vector<std::uint32_t> gem5_table(const BlockView& blocks) const {
    struct Way {
      std::uint32_t value = 0;
      std::uint64_t count = 0;  // LFU refCount; 0 = empty
    };
    const std::uint32_t sets = s_.entries / s_.ways;
    std::vector<Way> vft(s_.entries);
    const std::size_t n = blocks.block_bytes / 4;
    std::uint64_t taken = 0;
    for (std::size_t i = 0; i < blocks.n_blocks && taken < s_.samples; ++i, taken += n) {
      for (std::size_t j = 0; j < n; ++j) {
        const std::uint32_t v = load<std::uint32_t>(blocks.block(i) + 4 * j, s_.endian);
        Way* set = vft.data() + std::size_t{v & (sets - 1)} * s_.ways;
        Way* hit = nullptr;
        Way* victim = set;
        for (Way* w = set; w != set + s_.ways; ++w) {
          if (w->count && w->value == v) hit = w;
          if (w->count < victim->count) victim = w;
        }
        if (hit) {
          ++hit->count;
        } else {
          *victim = Way{v, 1};
        }
      }
    }
    std::vector<std::uint32_t> out;
    for (const Way& w : vft)
      if (w.count) out.push_back(w.value);
    return out;
  }

  void load_model(const std::string& text) {
    const Json m = parse_model(text, "fvc");
    const Json& vals = m["values"];
    if (vals.size() > s_.entries)
      throw json_error("fvc model: " + std::to_string(vals.size()) +
                       " values exceed entries=" + std::to_string(s_.entries));
    for (const Json& v : vals.elements()) {
      const std::int64_t x = v.as_int();
      if (x < 0 || x > 0xFFFFFFFFll) throw json_error("fvc model: values must be 32-bit unsigned integers");
      values_.push_back(static_cast<std::uint32_t>(x));
    }
    std::vector<std::uint32_t> sorted = values_;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw json_error("fvc model: values must be distinct");
    s_.model = m.dump();
    // index lookup: open addressing over a power-of-two table at most half full
    std::size_t cap = 16;
    while (cap < 2 * values_.size()) cap <<= 1;
    table_.assign(cap, Entry{0, s_.entries});
    for (std::uint32_t k = 0; k < values_.size(); ++k) table_[slot(values_[k])] = Entry{values_[k], k};
    // membership buckets: as few as hold every value in kBucket slots, at least 4 slots a value
    std::size_t nb = 1;
    while (nb * kBucket < 4 * values_.size()) nb <<= 1;
    for (bool placed = false; !placed && !values_.empty(); nb <<= 1) {
      buckets_.assign(nb * kBucket, values_[0]);  // a table value: a duplicate changes no membership
      std::vector<std::uint8_t> used(nb, 0);
      placed = true;
      for (const std::uint32_t v : values_) {
        const std::size_t k = bucket(v, nb);
        if (used[k] == kBucket) {
          placed = false;
          break;
        }
        buckets_[k * kBucket + used[k]++] = v;
      }
      if (placed) buckets_n_ = nb;
    }
    small_ = !values_.empty() && values_.size() <= small_table_.size();
    if (small_)  // pad with a table value: duplicates do not change membership
      for (std::size_t k = 0; k < small_table_.size(); ++k) small_table_[k] = values_[std::min(k, values_.size() - 1)];
  }

  struct Entry {
    std::uint32_t value, index;  // index == s_.entries: empty
  };
  std::size_t slot(std::uint32_t v) const noexcept {
    const std::size_t mask = table_.size() - 1;
    std::size_t i = (v * 0x9E3779B1u) >> 8 & mask;
    while (table_[i].index != s_.entries && table_[i].value != v) i = (i + 1) & mask;
    return i;
  }
  // Table index of v, or s_.entries (the escape code).
  std::uint32_t index(std::uint32_t v) const noexcept { return table_[slot(v)].index; }
  // Whether v is a table value (measure): compared with the kBucket values of its bucket at once,
  // no probe loop to mispredict.
  static constexpr std::size_t kBucket = 16;
  static std::size_t bucket(std::uint32_t v, std::size_t nb) noexcept {
    return static_cast<std::size_t>((std::uint64_t{v * 0x9E3779B1u} * nb) >> 32);
  }
  bool member(std::uint32_t v) const noexcept {
    if (buckets_n_ == 0) return false;
    const std::uint32_t* b = buckets_.data() + kBucket * bucket(v, buckets_n_);
#if defined(__GNUC__)  // generic vectors: four lanes a compare on any target (SSE2, NEON, scalar)
    using V = std::uint32_t __attribute__((vector_size(16)));
    V x = {v, v, v, v}, eq = {0, 0, 0, 0};
    for (std::size_t j = 0; j < kBucket; j += 4) {
      V y;
      std::memcpy(&y, b + j, sizeof y);
      eq |= (V)(y == x);
    }
    return (eq[0] | eq[1] | eq[2] | eq[3]) != 0;
#else
    bool hit = false;
    for (std::size_t j = 0; j < kBucket; ++j) hit |= b[j] == v;
    return hit;
#endif
  }

  FvcSettings s_;  ///< the model normalised once loaded
  std::vector<std::uint32_t> values_;
  std::vector<Entry> table_;
  std::vector<std::uint32_t> buckets_;  // buckets_n_ buckets of kBucket values
  std::size_t buckets_n_ = 0;
  bool small_ = false;
  std::array<std::uint32_t, 8> small_table_{};
};

std::unique_ptr<Codec> make_fvc(const Options& o) { return std::make_unique<FVC>(o); }

}  // namespace

void add_fvc_presets(std::vector<Preset>& out) {
  out.push_back({"fvc.paper",
                 "fvc",
                 "frequent-value table of 7 fitted words, 3-bit codes, escape + 32-bit literal",
                 "none",
                 {},
                 true,
                 &make_fvc,
                 &space_of<fvc_table>});
  out.push_back({"fvc.gem5",
                 "fvc",
                 "gem5 v24 FrequentValues without Huffman: fit builds gem5's 64 x 16 LFU table from the first 100,000 "
                 "words; 10-bit codes, escape 10 + 32, lines above 50 % stored whole (threshold(0.5); accounting-only)",
                 "threshold(0.5)",
                 {{"entries", std::int64_t{1024}}, {"code_bits", std::int64_t{10}}, {"table", std::string("gem5")}},
                 false,
                 &make_fvc,
                 &space_of<fvc_table>});
}

}  // namespace memcomp
