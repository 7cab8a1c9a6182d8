// memcomp codecs: best-of hybrids (HyComp-style oracle selection; SPEC 1.15). Every member
// encodes the block and the one with the smallest key wins (ties go to the earlier member); a
// ceil(log2 |members|)-bit selector names it, in-band by default or in the tags.
//   keys: bits (in-band bits), mag (bytes charged at MAG, P1 §V), pow2 (gem5's factor).
//   mode: (member index << 8) | member mode, so reports can count each member's wins.
// Presets: bestof.bdi_fpc = [bdi.paper, fpc.paper], the BDI+FPC pairing of P2 §3; bestof.hycomp =
// [zrep, bdi.paper, sc2.paper] (SPEC 1.15; fp-h is not modelled), an oracle upper bound.
// Members are preset names ("bdi.paper,fpc.gem5") or a JSON array whose entries are names or
// configs {"preset": ..., options..., "model": {...}} (fitted data-driven members).
#include <algorithm>

#include "codec_impl.hpp"
#include "memcomp/codecs/families.hpp"
#include "memcomp/core/json.hpp"
#include "memcomp/stats/policy.hpp"

namespace memcomp {
namespace {

// A member config as JSON: its preset name if it has no overrides, else {"preset", overrides}.
Json member_config(const Codec& c) {
  const Options base = make_codec(c.preset())->options();
  Json obj = Json::object({{"preset", Json::string(c.preset())}});
  for (const auto& [k, v] : c.options()) {
    auto it = base.find(k);
    if (it != base.end() && it->second == v) continue;
    if (const auto* b = std::get_if<bool>(&v))
      obj.set(k, Json::boolean(*b));
    else if (const auto* i = std::get_if<std::int64_t>(&v))
      obj.set(k, Json::integer(*i));
    else if (const auto* d = std::get_if<double>(&v))
      obj.set(k, Json::number(*d));
    else {
      const std::string& str = std::get<std::string>(v);
      const bool nested = (k == "model" || k == "members") && !str.empty() && (str[0] == '{' || str[0] == '[');
      obj.set(k, nested ? Json::parse(str) : Json::string(str));  // models and member lists stay JSON
    }
  }
  return obj.size() == 1 ? Json::string(c.preset()) : obj;
}

std::unique_ptr<Codec> member_from(const Json& j) {
  if (j.is_string()) return make_codec(j.as_string());
  if (!j.is_object()) throw invalid_argument("bestof: a member is a preset name or a config object");
  Options o;
  std::string preset;
  for (const auto& [k, v] : j.items()) {
    if (k == "preset")
      preset = v.as_string();
    else if (k == "id")
      continue;
    else if (v.is_string())
      o[k] = v.as_string();
    else if (v.is_object() || v.is_array())
      o[k] = v.dump();  // models and nested member lists
    else if (v.is_null())
      throw invalid_argument("bestof: member option '" + k + "' is null");
    else if (v.dump() == "true" || v.dump() == "false")
      o[k] = v.as_bool();
    else if (v.dump().find_first_of(".eE") == std::string::npos)
      o[k] = v.as_int();
    else
      o[k] = v.as_double();
  }
  if (preset.empty()) throw invalid_argument("bestof: a member config needs a 'preset'");
  return make_codec(preset, o);
}

enum class Key { bits, mag, pow2 };  // what a member's stream is compared by

struct BestOfSettings {
  std::string members;
  Key key;
  bool tag_selector;
  unsigned mag, fmax;
};

const OptionTable<BestOfSettings>& bestof_table() {
  using S = BestOfSettings;
  static const OptionTable<S> t{
      option_string("members", &S::members, "bdi.paper,fpc.paper",
                    "preset names separated by commas, or a JSON array of names and configs"),
      option_choice("key", &S::key, "bits", {{"bits", Key::bits}, {"mag", Key::mag}, {"pow2", Key::pow2}},
                    "the smallest wins by in-band bits, bytes charged at the MAG, or power-of-two factor"),
      option_choice("selector", &S::tag_selector, "inband", {{"inband", false}, {"tag", true}},
                    "the ceil(log2 members)-bit selector in the stream or in the tag"),
      option_int("mag", &S::mag, 32, 1, 4096, "memory access granularity in bytes of key='mag'"),
      option_int("fmax", &S::fmax, 4, 1, 1024, "largest factor key='pow2' credits")};
  return t;
}

class BestOf final : public CodecImpl<BestOf> {
 public:
  explicit BestOf(const Options& o) : s_(bestof_table().parse(o, "bestof")) {
    const std::string& members = s_.members;
    mag_.rounding = Policy::Rounding::mag;
    mag_.mag_bytes = s_.mag;
    if (!members.empty() && members.front() == '[') {
      const Json list = Json::parse(members);
      for (const Json& j : list.elements()) members_.push_back(member_from(j));
    } else {
      std::size_t start = 0;
      while (start <= members.size()) {
        const std::size_t comma = std::min(members.find(',', start), members.size());
        members_.push_back(make_codec(members.substr(start, comma - start)));
        start = comma + 1;
      }
    }
    if (members_.empty() || members_.size() > 256) throw invalid_argument("bestof: give 1 to 256 members");
    for (const auto& m : members_) {
      if (m->stateful()) throw invalid_argument("bestof: stateful member " + m->preset() + " is not supported");
      if (m->lossy())
        throw invalid_argument("bestof: lossy member " + m->preset() +
                               " is not supported (a hybrid picks among "
                               "lossless encodings)");
    }
    sel_bits_ = ceil_log2(members_.size());
  }

  /// The members as given, or as a JSON list when one has options of its own.
  Options options() const override {
    Json list = Json::array();
    bool plain = true;
    for (const auto& m : members_) {
      list.push(member_config(*m));
      plain = plain && list.elements().back().is_string();
    }
    BestOfSettings s = s_;
    s.members.clear();
    if (plain) {
      for (const Json& j : list.elements()) s.members += (s.members.empty() ? "" : ",") + j.as_string();
    } else {
      s.members = list.dump();
    }
    return bestof_table().write(s);
  }
  /// Exact and fitted when every member is, data-driven when any is (members are lossless and
  /// stateless).
  Capabilities capabilities() const override {
    Capabilities c;
    for (const auto& m : members_) {
      const Capabilities k = m->capabilities();
      c.exact = c.exact && k.exact;
      c.needs_model = c.needs_model || k.needs_model;
      c.has_model = c.has_model && k.has_model;
    }
    return c;
  }
  void check_block_bytes(std::size_t b) const override {
    for (const auto& m : members_) m->check_block_bytes(b);
  }
  std::unique_ptr<Codec> fitted(const BlockView& blocks, int threads) const override {
    Json list = Json::array();
    for (const auto& m : members_)
      list.push(member_config(m->needs_model() && !m->has_model() ? *m->fitted(blocks, threads) : *m));
    Options o = options();
    o["members"] = list.dump();
    return make_codec(preset(), o);
  }
  std::uint64_t max_compressed_bits(std::size_t b) const override {
    std::uint64_t mx = 0;
    for (const auto& m : members_) mx = std::max(mx, m->max_compressed_bits(b));
    return mx + (s_.tag_selector ? 0 : sel_bits_);
  }
  std::vector<ModeName> modes() const override {
    std::vector<ModeName> out;
    for (std::size_t i = 0; i < members_.size(); ++i)
      for (const ModeName& mn : members_[i]->modes())
        out.push_back({mode_of(i, mn.mode), members_[i]->preset() + ":" + mn.name});
    return out;
  }

  SizeBreakdown measure(const std::uint8_t* blk, std::size_t b) const override {
    std::size_t idx;
    SizeBreakdown s = choose(blk, b, idx);
    (s_.tag_selector ? s.tag : s.header) += sel_bits_;
    s.mode = mode_of(idx, s.mode);
    return s;
  }

  /// Each member measures a piece of blocks through its own batch path (its SIMD kernels), then
  /// each block takes the smallest key: measure() a piece at a time.
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
    constexpr std::size_t kPiece = 2048;
    const std::size_t most = std::min(kPiece, end - begin);  // a small range allocates little
    SizeBuffers best(most), next(most);                      // the best so far and the next member's
    std::vector<std::uint64_t> best_key(most);
    std::vector<std::uint8_t> idx(most);
    const std::size_t b = blocks.block_bytes;
    for (std::size_t start = begin; start < end; start += kPiece) {
      const std::size_t n = std::min(kPiece, end - start);
      const BlockView piece = blocks.slice(start, n);
      const SizeColumns bv = best.view(), nv = next.view();
      std::fill(idx.begin(), idx.end(), std::uint8_t{0});
      members_[0]->measure_batch(piece, bv, 1);
      for (std::size_t k = 0; k < n; ++k) best_key[k] = key(bv.bits[k], b);
      for (std::size_t m = 1; m < members_.size(); ++m) {
        members_[m]->measure_batch(piece, nv, 1);
        for (std::size_t k = 0; k < n; ++k) {
          const std::uint64_t kk = key(nv.bits[k], b);
          if (kk >= best_key[k]) continue;  // ties go to the earlier member
          best_key[k] = kk;
          idx[k] = static_cast<std::uint8_t>(m);
          bv.payload[k] = nv.payload[k];
          bv.meta[k] = nv.meta[k];
          bv.header[k] = nv.header[k];
          bv.tag[k] = nv.tag[k];
          bv.mode[k] = nv.mode[k];
        }
      }
      for (std::size_t k = 0; k < n; ++k) {
        SizeBreakdown s{bv.payload[k], bv.meta[k], bv.header[k], bv.tag[k], mode_of(idx[k], bv.mode[k])};
        (s_.tag_selector ? s.tag : s.header) += sel_bits_;
        out.set(start + k, s);
      }
    }
  }

  std::uint32_t encode(const std::uint8_t* blk, std::size_t b, BitWriter& w) const override {
    std::size_t idx;
    choose(blk, b, idx);
    if (!s_.tag_selector) w.write(idx, sel_bits_);
    const std::uint32_t tag = members_[idx]->encode(blk, b, w);
    if (tag >> 24) throw std::logic_error("bestof: member tag does not fit 24 bits");
    return s_.tag_selector ? static_cast<std::uint32_t>(idx << 24) | tag : tag;
  }

  void decode(BitReader& in, std::uint32_t tag, std::uint8_t* out, std::size_t b) const override {
    const std::size_t idx = s_.tag_selector ? tag >> 24 : static_cast<std::size_t>(in.read(sel_bits_));
    if (idx >= members_.size()) throw corrupt_stream("bestof selector " + std::to_string(idx) + " names no member");
    members_[idx]->decode(in, s_.tag_selector ? tag & 0xFFFFFFu : tag, out, b);
  }

 private:
  static std::int16_t mode_of(std::size_t idx, std::int16_t mode) {
    return static_cast<std::int16_t>(idx << 8 | (static_cast<unsigned>(mode) & 0xFFu));
  }

  std::uint64_t key(std::uint32_t bits, std::size_t b) const {
    switch (s_.key) {
      case Key::bits: return bits;
      case Key::mag: return mag_.charge(bits, b);
      default: return 1024 - pow2_factor(bits, b, s_.fmax);
    }
  }

  SizeBreakdown choose(const std::uint8_t* blk, std::size_t b, std::size_t& idx) const {
    SizeBreakdown best = members_[0]->measure(blk, b);
    std::uint64_t best_key = key(best.inband(), b);
    idx = 0;
    for (std::size_t i = 1; i < members_.size(); ++i) {
      const SizeBreakdown s = members_[i]->measure(blk, b);
      const std::uint64_t k = key(s.inband(), b);
      if (k < best_key) {
        best = s;
        best_key = k;
        idx = i;
      }
    }
    return best;
  }

  const BestOfSettings s_;
  std::vector<std::unique_ptr<Codec>> members_;
  Policy mag_;
  unsigned sel_bits_ = 1;
};

std::unique_ptr<Codec> make_bestof(const Options& o) { return std::make_unique<BestOf>(o); }

}  // namespace

void add_bestof_presets(std::vector<Preset>& out) {
  out.push_back({"bestof.bdi_fpc",
                 "bestof",
                 "per block the smaller of bdi.paper and fpc.paper, 1-bit selector in-band (P2's BDI+FPC)",
                 "none",
                 {{"members", std::string("bdi.paper,fpc.paper")}},
                 true,
                 &make_bestof,
                 &space_of<bestof_table>});
  out.push_back({"bestof.hycomp",
                 "bestof",
                 "HyComp-style oracle upper bound: per block the best of zrep, bdi.paper and sc2.paper, 2-bit selector "
                 "(real HyComp predicts the type instead of trying all)",
                 "none",
                 {{"members", std::string("zrep.ours,bdi.paper,sc2.paper")}},
                 false,
                 &make_bestof,
                 &space_of<bestof_table>});
}

}  // namespace memcomp
