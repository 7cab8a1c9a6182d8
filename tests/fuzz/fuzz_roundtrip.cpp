// memcomp fuzzing: arbitrary blocks through every preset under every option combination it
// accepts (DESIGN "Contracts": measure == encode bit for bit, decode(encode(x)) == x).
// Input: preset index, block-size index, one selector byte per option of the preset's option
// space (0 keeps the preset's value, else a value drawn from the option's domain with the next
// byte), an approximable-mask byte (lossy codecs), then block bytes (up to 8 blocks).
#include "fuzz_common.hpp"

using namespace memcomp;
using namespace memcomp::fuzz;

namespace {

const std::vector<std::string>& all_presets() {
  static const std::vector<std::string> names = preset_names([](const Preset&) { return true; });
  return names;
}

/// Options the fuzzer may set: everything but free text (models, member lists).
const std::vector<std::pair<std::string, OptionDomain>>& domains(std::size_t k) {
  static std::vector<std::vector<std::pair<std::string, OptionDomain>>> all = [] {
    std::vector<std::vector<std::pair<std::string, OptionDomain>>> out;
    for (const std::string& name : all_presets()) {
      out.emplace_back();
      for (const auto& kv : option_space(name))
        if (kv.second.kind != "string") out.back().emplace_back(kv.first, kv.second);
    }
    return out;
  }();
  return all[k];
}

OptionValue pick(const OptionDomain& d, std::uint8_t v) {
  if (d.kind == "bool") return (v & 1) != 0;
  if (d.kind == "choice") return d.choices[v % d.choices.size()];
  if (d.kind == "int" && !d.choices.empty())
    return static_cast<std::int64_t>(std::stoll(d.choices[v % d.choices.size()]));
  if (d.kind == "int") {
    const double span = d.hi - d.lo;  // small domains: every value; large ones: edges and spread
    if (span < 256)
      return static_cast<std::int64_t>(d.lo + static_cast<double>(v % (static_cast<std::int64_t>(span) + 1)));
    if (v < 4) return static_cast<std::int64_t>(v < 2 ? d.lo + v : d.hi - (v - 2));
    return static_cast<std::int64_t>(d.lo + span * (v / 255.0));
  }
  return d.lo + (d.hi - d.lo) * (v / 255.0);  // float
}

void make_seeds(const std::function<void(const std::string&, const std::vector<std::uint8_t>&)>& put) {
  for (std::size_t k = 0; k < all_presets().size(); ++k) {
    for (std::size_t B : kBlockSizes) {
      if (!codec_for(all_presets()[k], {}, B)) continue;
      const auto blocks = golden_blocks(B);
      for (std::size_t g = 0; g < blocks.size(); g += 4) {
        Writer w;
        w.byte(static_cast<unsigned>(k));
        w.byte(block_size_index(B));
        for (std::size_t o = 0; o < domains(k).size(); ++o) w.byte(0);
        w.byte(0x55);
        for (std::size_t i = g; i < std::min(g + 4, blocks.size()); ++i) w.bytes(blocks[i].data(), B);
        put(all_presets()[k] + "-" + std::to_string(B) + "-" + std::to_string(g / 4), w.out);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (write_seeds_if_asked(make_seeds)) std::exit(0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Cursor in(data, size);
  const std::size_t k = in.byte() % all_presets().size();
  const std::string& name = all_presets()[k];
  const std::size_t B = block_size(in.byte());
  Options opts;
  std::string what = name;
  for (const auto& [key, domain] : domains(k)) {
    if (in.byte() == 0) continue;
    opts[key] = pick(domain, in.byte());
    what += " " + key + "=" + to_string(opts[key]);
  }
  const std::uint8_t mask_bits = in.byte();
  const std::size_t n = std::min<std::size_t>(8, in.rest_size() / B);
  if (n == 0) return 0;
  const Codec* c = codec_for(name, opts, B);
  if (!c) return 0;
  const std::vector<std::uint8_t> blocks(in.rest(), in.rest() + n * B);
  std::vector<std::uint8_t> mask(n);
  for (std::size_t i = 0; i < n; ++i) mask[i] = static_cast<std::uint8_t>(mask_bits >> i & 1);
  const BlockView view{blocks.data(), n, B, c->lossy() ? mask.data() : nullptr};
  if (!c->exact()) {  // accounting-only presets: measure must agree with itself and stay in bounds
    std::vector<std::uint32_t> bits(n), payload(n), meta(n), header(n), tag(n);
    std::vector<std::int16_t> mode(n);
    c->measure_batch(view,
                     SizeColumns{bits.data(), payload.data(), meta.data(), header.data(), tag.data(), mode.data()}, 1);
    for (std::size_t i = 0; i < n; ++i) {
      MEMCOMP_FUZZ_CHECK(bits[i] == payload[i] + meta[i] + header[i], what + ": sizes do not add up");
      MEMCOMP_FUZZ_CHECK(bits[i] <= c->max_compressed_bits(B), what + ": size exceeds max_compressed_bits");
    }
    return 0;
  }
  check_round_trip(*c, view, what + " (B=" + std::to_string(B) + ")");
  return 0;
}
