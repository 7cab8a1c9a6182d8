// memcomp fuzzing: what the libFuzzer harnesses share. The byte cursor that turns fuzz input into
// a preset, a block size, options and data; the fixed fit sample (data-driven codecs are fitted on
// it once per configuration, so seeds and fuzz inputs see the same model); the golden blocks the
// seed corpora start from; and the invariant checks (a finding aborts, so libFuzzer reports it).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "memcomp/codecs/codec.hpp"
#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/json.hpp"

namespace memcomp::fuzz {

/// A finding: print what broke and abort (libFuzzer saves the input as a crash artifact).
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "memcomp fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

#define MEMCOMP_FUZZ_CHECK(cond, what)                                         \
  do {                                                                         \
    if (!(cond)) ::memcomp::fuzz::finding(std::string(what) + " [" #cond "]"); \
  } while (0)

/// Consumes fuzz input front to back; reads past the end give zeros.
class Cursor {
 public:
  Cursor(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
  std::uint8_t byte() { return pos_ < n_ ? p_[pos_++] : 0; }
  std::uint32_t u16() { return static_cast<std::uint32_t>(byte() | byte() << 8); }
  std::uint32_t u32() { return u16() | u16() << 16; }
  const std::uint8_t* rest() const { return p_ + (pos_ < n_ ? pos_ : n_); }
  std::size_t rest_size() const { return pos_ < n_ ? n_ - pos_ : 0; }
  void skip(std::size_t k) { pos_ = k > rest_size() ? n_ : pos_ + k; }

 private:
  const std::uint8_t* p_;
  std::size_t n_, pos_ = 0;
};

/// Appends little-endian fields (how seeds are written in the cursor's format).
struct Writer {
  std::vector<std::uint8_t> out;
  void byte(unsigned v) { out.push_back(static_cast<std::uint8_t>(v)); }
  void u16(std::uint32_t v) { byte(v & 0xFF), byte(v >> 8 & 0xFF); }
  void u32(std::uint32_t v) { u16(v & 0xFFFF), u16(v >> 16); }
  void bytes(const std::uint8_t* p, std::size_t n) { out.insert(out.end(), p, p + n); }
};

inline constexpr std::size_t kBlockSizes[] = {16, 32, 64, 128, 256};
inline std::size_t block_size(std::uint8_t selector) { return kBlockSizes[selector % 5]; }
inline std::uint8_t block_size_index(std::size_t b) {
  for (std::uint8_t i = 0; i < 5; ++i)
    if (kBlockSizes[i] == b) return i;
  return 0;
}

/// Preset names, in registry order, that pass `keep`.
template <class Keep>
std::vector<std::string> preset_names(Keep keep) {
  std::vector<std::string> out;
  for (const Preset& p : presets())
    if (keep(p)) out.push_back(p.name);
  return out;
}

/// `n` blocks of B bytes with zeros, repeats, small deltas, FP-like and random words: what
/// data-driven codecs are fitted on (deterministic, so every run fits the same model).
inline std::vector<std::uint8_t> fit_sample(std::size_t B, std::size_t n = 96) {
  std::vector<std::uint8_t> out(B * n, 0);
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return s;
  };
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t* b = out.data() + i * B;
    for (std::size_t w = 0; w < B / 4; ++w) {
      std::uint32_t v = 0;
      switch (i % 6) {
        case 0: v = 0; break;
        case 1: v = 0x3F800000u + static_cast<std::uint32_t>(next() % 4096); break;
        case 2: v = static_cast<std::uint32_t>(i * 7 + w); break;
        case 3: v = static_cast<std::uint32_t>(next() % 256); break;
        case 4: v = 0xDEADBEEFu; break;
        default: v = static_cast<std::uint32_t>(next()); break;
      }
      std::memcpy(b + 4 * w, &v, 4);
    }
  }
  return out;
}

/// The codec `name` with `options` on B-byte blocks, fitted on fit_sample(B) if data-driven and
/// given no model; null if the configuration is rejected (invalid_argument: not a finding).
/// Cached: fitting per fuzz input would make every execution slow.
inline const Codec* codec_for(const std::string& name, const Options& options, std::size_t B) {
  static std::map<std::string, std::unique_ptr<Codec>> cache;
  std::string key = name + "/" + std::to_string(B);
  for (const auto& kv : options) key += "/" + kv.first + "=" + to_string(kv.second);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second.get();
  std::unique_ptr<Codec> c;
  try {
    c = make_codec(name, options);
    c->check_block_bytes(B);
    if (c->needs_model() && !c->has_model()) {
      const std::vector<std::uint8_t> sample = fit_sample(B);
      c = c->fitted(BlockView{sample.data(), sample.size() / B, B, nullptr}, 1);
    }
  } catch (const invalid_argument&) {
    c.reset();
  }
  if (cache.size() > 4096) cache.clear();
  return (cache[key] = std::move(c)).get();
}

/// Blocks of B bytes found in the golden vectors (hex fields "block"/"hex" of 16..256 bytes,
/// tiled or cut to B), then the fit sample's: what seed corpora start from.
inline std::vector<std::vector<std::uint8_t>> golden_blocks(std::size_t B) {
  std::vector<std::vector<std::uint8_t>> out;
  auto from_hex = [](const std::string& h, std::vector<std::uint8_t>& bytes) {
    if (h.size() % 2) return false;
    for (std::size_t i = 0; i < h.size(); i += 2) {
      char* end = nullptr;
      const std::string pair = h.substr(i, 2);
      const long v = std::strtol(pair.c_str(), &end, 16);
      if (end != pair.c_str() + 2) return false;
      bytes.push_back(static_cast<std::uint8_t>(v));
    }
    return true;
  };
  std::vector<const Json*> stack;
  std::vector<Json> docs;
#ifdef MEMCOMP_GOLDEN_DIR
  for (const auto& entry : std::filesystem::directory_iterator(MEMCOMP_GOLDEN_DIR)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream f(entry.path());
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    docs.push_back(Json::parse(text));
  }
#endif
  for (const Json& d : docs) stack.push_back(&d);
  while (!stack.empty()) {
    const Json* j = stack.back();
    stack.pop_back();
    if (j->is_array()) {
      for (const Json& e : j->elements()) stack.push_back(&e);
    } else if (j->is_object()) {
      for (const auto& kv : j->items()) {
        std::vector<std::uint8_t> bytes;
        if ((kv.first == "block" || kv.first == "hex") && kv.second.is_string() &&
            from_hex(kv.second.as_string(), bytes) && bytes.size() >= 16 && bytes.size() <= 256) {
          std::vector<std::uint8_t> b(B);
          for (std::size_t i = 0; i < B; ++i) b[i] = bytes[i % bytes.size()];
          out.push_back(std::move(b));
        } else {
          stack.push_back(&kv.second);
        }
      }
    }
  }
  const std::vector<std::uint8_t> sample = fit_sample(B, 12);
  for (std::size_t i = 0; i < 12; ++i) out.emplace_back(sample.data() + i * B, sample.data() + (i + 1) * B);
  std::sort(out.begin(), out.end());  // blocks tiled to B repeat: keep each once
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// Writes seed files `<dir>/<name>` when MEMCOMP_FUZZ_WRITE_SEEDS names a directory; returns
/// whether it did (the harness then exits: seeding is a mode of the harness binary, so seeds use
/// exactly the harness's codecs and models).
template <class MakeSeeds>
bool write_seeds_if_asked(MakeSeeds make) {
  const char* dir = std::getenv("MEMCOMP_FUZZ_WRITE_SEEDS");
  if (!dir || !*dir) return false;
  std::filesystem::create_directories(dir);
  std::size_t n = 0;
  make([&](const std::string& name, const std::vector<std::uint8_t>& bytes) {
    std::ofstream f(std::filesystem::path(dir) / name, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ++n;
  });
  std::fprintf(stderr, "wrote %zu seeds to %s\n", n, dir);
  return true;
}

/// Encodes, checks measure == encode per block, decodes and checks the round trip (bit-exact,
/// except blocks a lossy codec was allowed to approximate: those keep their size).
inline void check_round_trip(const Codec& c, const BlockView& blocks, const std::string& what) {
  const std::size_t n = blocks.n_blocks, B = blocks.block_bytes;
  const EncodedBlocks enc = c.encode_batch(blocks, 1);
  MEMCOMP_FUZZ_CHECK(enc.bit_offsets.size() == n && enc.bit_lengths.size() == n && enc.tags.size() == n,
                     what + ": encode_batch returned the wrong number of blocks");
  const std::uint64_t max_bits = c.max_compressed_bits(B);
  std::vector<std::uint32_t> bits(n), payload(n), meta(n), header(n), tag(n);
  std::vector<std::int16_t> mode(n);
  const SizeColumns cols{bits.data(), payload.data(), meta.data(), header.data(), tag.data(), mode.data()};
  c.measure_batch(blocks, cols, 2);
  for (std::size_t i = 0; i < n; ++i) {
    MEMCOMP_FUZZ_CHECK(bits[i] == enc.bit_lengths[i], what + ": measure disagrees with encode");
    MEMCOMP_FUZZ_CHECK(enc.bit_lengths[i] <= max_bits, what + ": a stream exceeds max_compressed_bits");
    if (!c.stateful() && !c.lossy())
      MEMCOMP_FUZZ_CHECK(c.measure(blocks.block(i), B).inband() == bits[i],
                         what + ": measure of one block disagrees with measure_batch");
  }
  std::vector<std::uint8_t> back(n * B, 0xA5);
  const EncodedView view{enc.data.data(),
                         enc.data.size(),
                         enc.bit_offsets.data(),
                         enc.bit_lengths.data(),
                         enc.tags.data(),
                         n,
                         B,
                         enc.entry_state.empty() ? nullptr : enc.entry_state.data(),
                         enc.entry_state.size()};
  try {
    c.decode_batch(view, back.data(), 1);
  } catch (const std::exception& e) {
    finding(what + ": its own stream does not decode: " + e.what());
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!c.lossy() || !blocks.may_approximate(i))
      MEMCOMP_FUZZ_CHECK(std::memcmp(back.data() + i * B, blocks.block(i), B) == 0,
                         what + ": block " + std::to_string(i) + " does not round-trip");
}

}  // namespace memcomp::fuzz
