// memcomp fuzzing: every decoder of every exact preset on hostile streams (DESIGN "Contracts":
// decode consumes exactly the stream or throws corrupt_stream, never reads out of bounds).
// Input: preset index, block-size index, flags, block count, then per block a tag (u32) and a
// bit length (u16), explicit bit offsets (u32 each) if flags bit 0, an entry state (u16 length +
// bytes) if flags bit 1, and the stream bytes. Whatever decodes must re-encode and round-trip,
// and the fast paths (SIMD, and the lane decoders that take 24 blocks at a time) must decode it
// to the same blocks, or refuse it naming the same block, as the scalar reference.
#include "fuzz_common.hpp"
#include "memcomp/core/simd.hpp"

using namespace memcomp;
using namespace memcomp::fuzz;

namespace {

const std::vector<std::string>& decodable() {
  static const std::vector<std::string> names = preset_names([](const Preset& p) {
    std::unique_ptr<Codec> c = p.make(p.options);
    return c->exact();
  });
  return names;
}

void make_seeds(const std::function<void(const std::string&, const std::vector<std::uint8_t>&)>& put) {
  const auto& names = decodable();
  for (std::size_t k = 0; k < names.size(); ++k) {
    for (std::size_t B : kBlockSizes) {
      const Codec* c = codec_for(names[k], {}, B);
      if (!c) continue;
      const auto blocks = golden_blocks(B);
      // Each seed: consecutive golden blocks, encoded by the codec itself: up to 3 at a time,
      // and the first 32 (a group of lanes and more).
      auto seed = [&](std::size_t g, std::size_t n, const std::string& label) {
        std::vector<std::uint8_t> data;
        for (std::size_t i = 0; i < n; ++i) data.insert(data.end(), blocks[g + i].begin(), blocks[g + i].end());
        const EncodedBlocks enc = c->encode_batch(BlockView{data.data(), n, B, nullptr}, 1);
        Writer w;
        w.byte(static_cast<unsigned>(k));
        w.byte(block_size_index(B));
        w.byte(enc.entry_state.empty() ? 0 : 2);
        w.byte(static_cast<unsigned>(n - 1));
        for (std::size_t i = 0; i < n; ++i) w.u32(enc.tags[i]), w.u16(enc.bit_lengths[i]);
        if (!enc.entry_state.empty()) {
          w.u16(static_cast<std::uint32_t>(enc.entry_state.size()));
          w.bytes(enc.entry_state.data(), enc.entry_state.size());
        }
        w.bytes(enc.data.data(), enc.data.size());
        put(names[k] + "-" + std::to_string(B) + "-" + label, w.out);
      };
      for (std::size_t g = 0; g < blocks.size(); g += 3)
        seed(g, std::min<std::size_t>(3, blocks.size() - g), std::to_string(g / 3));
      seed(0, std::min<std::size_t>(32, blocks.size()), "lanes");
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
  const auto& names = decodable();
  const std::string& name = names[in.byte() % names.size()];
  const std::size_t B = block_size(in.byte());
  const std::uint8_t flags = in.byte();
  const std::size_t n = 1 + in.byte() % 32;  // up to a group of lanes and more
  const Codec* c = codec_for(name, {}, B);
  if (!c) return 0;

  std::vector<std::uint32_t> tags(n), lengths(n);
  std::vector<std::uint64_t> offsets(n);
  for (std::size_t i = 0; i < n; ++i) tags[i] = in.u32(), lengths[i] = in.u16();
  if (flags & 1) {
    for (std::size_t i = 0; i < n; ++i) offsets[i] = in.u32();
  } else {  // packed as the encoder packs them: each block starts on a byte boundary
    std::uint64_t at = 0;
    for (std::size_t i = 0; i < n; ++i) offsets[i] = at, at += (lengths[i] + 7) / 8 * 8;
  }
  std::vector<std::uint8_t> state;
  if (flags & 2) {
    const std::size_t want = in.u16();  // read before rest_size(): argument order is unspecified
    const std::size_t k = std::min(want, in.rest_size());
    state.assign(in.rest(), in.rest() + k);
    in.skip(k);
  }
  // The stream in a buffer of its own size, so ASan sees any read past it.
  const std::vector<std::uint8_t> stream(in.rest(), in.rest() + in.rest_size());
  const EncodedView view{stream.data(),
                         stream.size(),
                         offsets.data(),
                         lengths.data(),
                         tags.data(),
                         n,
                         B,
                         (flags & 2) ? state.data() : nullptr,
                         state.size()};
  // The blocks, or "error: " and the message.
  auto decode = [&](bool simd, std::vector<std::uint8_t>& out) -> std::string {
    set_simd(simd);
    out.assign(n * B, 0);
    std::string error;
    try {
      c->decode_batch(view, out.data(), 1);
    } catch (const corrupt_stream& e) {
      error = std::string("error: ") + e.what();
    } catch (const std::exception& e) {
      finding(name + " decode threw something other than corrupt_stream: " + e.what());
    }
    set_simd(true);
    return error;
  };
  // The block an error names (its detail may differ: a kernel reads its fields its own way).
  auto named = [](const std::string& e) {
    const std::size_t at = e.find("block ");
    return at == std::string::npos ? e : e.substr(0, e.find(':', at));
  };
  std::vector<std::uint8_t> out, ref;
  const std::string error = decode(true, out), ref_error = decode(false, ref);
  if (named(error) != named(ref_error) || (error.empty() && out != ref))
    finding(name + " fast and scalar decoders disagree: '" + error + "' vs '" + ref_error + "'");
  if (!error.empty()) return 0;
  check_round_trip(*c, BlockView{out.data(), n, B, nullptr}, name + " (re-encoding a decoded stream)");
  return 0;
}
