// memcomp fuzzing: every model loader (E2MC, SC2, SLC, FVC, MPC and hybrid model JSON, SPEC 0.7
// item 5) on hostile text. A model is rejected with invalid_argument (json_error is one) or
// accepted, and an accepted model must give a codec whose streams round-trip and whose measure
// equals encode. Input: preset index (among presets with a "model" option), block-size index,
// then the model text.
#include "fuzz_common.hpp"

using namespace memcomp;
using namespace memcomp::fuzz;

namespace {

const std::vector<std::string>& model_presets() {
  static const std::vector<std::string> names =
      preset_names([](const Preset& p) { return option_space(p.name).count("model") != 0; });
  return names;
}

void make_seeds(const std::function<void(const std::string&, const std::vector<std::uint8_t>&)>& put) {
  for (std::size_t k = 0; k < model_presets().size(); ++k) {
    for (std::size_t B : kBlockSizes) {
      const Codec* c = codec_for(model_presets()[k], {}, B);
      if (!c) continue;
      const std::string text = std::get<std::string>(c->options().at("model"));
      Writer w;
      w.byte(static_cast<unsigned>(k));
      w.byte(block_size_index(B));
      w.bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
      put(model_presets()[k] + "-" + std::to_string(B), w.out);
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
  const std::string& name = model_presets()[in.byte() % model_presets().size()];
  const std::size_t B = block_size(in.byte());
  const std::string text(reinterpret_cast<const char*>(in.rest()), in.rest_size());
  std::unique_ptr<Codec> c;
  try {
    c = make_codec(name, {{"model", text}});
    c->check_block_bytes(B);
    if (!c->has_model()) return 0;  // an empty model text means "not fitted yet"
  } catch (const invalid_argument&) {
    return 0;
  } catch (const std::exception& e) {
    finding(name + " model loading threw something other than invalid_argument: " + e.what());
  }
  const auto blocks = golden_blocks(B);
  std::vector<std::uint8_t> flat;
  for (std::size_t i = 0; i < blocks.size() && i < 16; ++i) flat.insert(flat.end(), blocks[i].begin(), blocks[i].end());
  const BlockView view{flat.data(), flat.size() / B, B, nullptr};
  try {
    if (c->exact()) {
      check_round_trip(*c, view, name + " with a fuzzed model");
    } else {
      std::vector<std::uint32_t> bits(view.n_blocks), payload(view.n_blocks), meta(view.n_blocks),
          header(view.n_blocks), tag(view.n_blocks);
      std::vector<std::int16_t> mode(view.n_blocks);
      c->measure_batch(
          view, SizeColumns{bits.data(), payload.data(), meta.data(), header.data(), tag.data(), mode.data()}, 1);
    }
  } catch (const invalid_argument&) {
    // A model that only fails when used (e.g. for another block size) is reported clearly: fine.
  }
  return 0;
}
