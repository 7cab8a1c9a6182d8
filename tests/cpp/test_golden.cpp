// Golden vectors (tests/golden/*.json, SPEC §4 worked examples) against the C++ core. The same
// files are checked from Python by tests/python/test_golden.py; this suite mirrors its coverage
// and also compares every size field present in the files and round-trips the exact codecs.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "digest.hpp"
#include "json_lite.hpp"
#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/bitstream.hpp"
#include "memcomp/stats/policy.hpp"

using namespace memcomp;
using memcomp::test::Json;

namespace {

Json load(const std::string& name) { return test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/" + name); }

std::vector<std::uint8_t> from_hex(const std::string& hex) {
  auto nibble = [&](char c) -> unsigned {
    if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
    if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
    throw std::runtime_error("bad hex digit in '" + hex + "'");
  };
  if (hex.size() % 2 != 0) throw std::runtime_error("odd-length hex '" + hex + "'");
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  return out;
}

std::uint32_t u32(const Json& v) { return static_cast<std::uint32_t>(v.as_int()); }

/// "none" stays "none"; ["mag", 32, 1] -> "mag(32,1)"; ["threshold", 0.5] -> "threshold(0.5)".
std::string policy_str(const Json& p) {
  if (p.is_string()) return p.as_string();
  std::string s = p.at(0).as_string();
  for (std::size_t i = 1; i < p.size(); ++i) {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, p.at(i).as_double());  // shortest round trip
    s += (i == 1 ? "(" : ",") + std::string(buf, r.ptr);
  }
  return p.size() > 1 ? s + ")" : s;
}

/// encode_batch -> decode_batch of one block gives the block back, in measure().inband() bits.
void expect_round_trip(const Codec& codec, const std::vector<std::uint8_t>& blk) {
  const std::size_t B = blk.size();
  const EncodedBlocks enc = codec.encode_batch(BlockView{blk.data(), 1, B}, 1);
  ASSERT_EQ(enc.bit_lengths.size(), 1u);
  ASSERT_EQ(enc.bit_offsets.size(), 1u);
  ASSERT_EQ(enc.tags.size(), 1u);
  EXPECT_EQ(enc.bit_lengths[0], codec.measure(blk.data(), B).inband());
  std::vector<std::uint8_t> out(B, 0xA5);
  codec.decode_batch(EncodedView{enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(),
                                 enc.tags.data(), 1, B},
                     out.data(), 1);
  EXPECT_EQ(out, blk);
}

/// The field of a SizeBreakdown a golden key names ("payload" or "payload_bits", ..., "bits" = in-band).
std::int64_t field(const SizeBreakdown& s, std::string key) {
  if (key.size() > 5 && key.compare(key.size() - 5, 5, "_bits") == 0) key.resize(key.size() - 5);
  if (key == "mode") return s.mode;
  if (key == "payload") return s.payload;
  if (key == "meta") return s.meta;
  if (key == "header") return s.header;
  if (key == "tag") return s.tag;
  if (key == "bits" || key == "inband") return s.inband();
  throw std::runtime_error("unknown size field '" + key + "'");
}

using Want = std::vector<std::pair<std::string, std::int64_t>>;

/// The (field, value) pairs of a golden object: all of them, or just `keys`.
Want fields_of(const Json& obj) {
  Want w;
  for (const auto& [key, value] : obj.items()) w.emplace_back(key, value.as_int());
  return w;
}
Want fields_of(const Json& obj, std::initializer_list<const char*> keys) {
  Want w;
  for (const char* key : keys) w.emplace_back(key, obj[key].as_int());
  return w;
}

/// Measures blk with `preset` and compares each wanted field; exact codecs must also round-trip.
void check_record(const std::string& preset, const std::vector<std::uint8_t>& blk, const Want& want) {
  SCOPED_TRACE(preset);
  const auto codec = make_codec(preset);
  const SizeBreakdown s = codec->measure(blk.data(), blk.size());
  for (const auto& [key, value] : want) EXPECT_EQ(field(s, key), value) << "field " << key;
  if (codec->exact()) expect_round_trip(*codec, blk);
}

// ---- json_lite itself -----------------------------------------------------------------------

TEST(JsonLite, StringEscapesDecodeToUtf8) {
  const Json v = Json::parse(R"(["a\"b\\c\/d", "\b\f\n\r\t", "\u0041\u00e9\u20AC", "\ud83d\ude00", ""])");
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v.at(0).as_string(), "a\"b\\c/d");
  EXPECT_EQ(v.at(1).as_string(), "\b\f\n\r\t");
  EXPECT_EQ(v.at(2).as_string(), "A\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(v.at(3).as_string(), "\xF0\x9F\x98\x80");
  EXPECT_EQ(v.at(4).as_string(), "");
}

TEST(JsonLite, NestingOrderAndScalars) {
  const Json v = Json::parse(
      R"( {"z": {"a": [1, [2, {"b": null}]], "t": true}, "f": false, "n": -0.25e1, "big": 9007199254740993, "a": []} )");
  ASSERT_TRUE(v.is_object());
  std::vector<std::string> keys;
  for (const auto& kv : v.items()) keys.push_back(kv.first);
  EXPECT_EQ(keys, (std::vector<std::string>{"z", "f", "n", "big", "a"}));  // file order, not sorted
  EXPECT_EQ(v["z"]["a"].at(0).as_int(), 1);
  EXPECT_TRUE(v["z"]["a"].at(1).at(1)["b"].is_null());
  EXPECT_TRUE(v["z"]["t"].as_bool());
  EXPECT_FALSE(v["f"].as_bool());
  EXPECT_EQ(v["n"].as_double(), -2.5);
  EXPECT_EQ(v["big"].as_int(), 9007199254740993);  // exact beyond 2^53
  EXPECT_EQ(v["a"].size(), 0u);
  EXPECT_THROW(v["missing"], memcomp::json_error);
  EXPECT_THROW(v["f"].as_int(), memcomp::json_error);
  EXPECT_THROW(v["a"].at(0), memcomp::json_error);
  try {
    (void)v["z"]["nope"];
    FAIL() << "no throw";
  } catch (const memcomp::json_error& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
  }
}

TEST(JsonLite, MalformedInputThrowsWithOffset) {
  for (const char* bad : {"",
                          "{",
                          "[1,]",
                          "{\"a\":1,}",
                          "{\"a\" 1}",
                          "{a:1}",
                          "[01]",
                          "[1.]",
                          "[.5]",
                          "[1e]",
                          "[+1]",
                          "\"abc",
                          "\"a\nb\"",
                          "\"\\x\"",
                          "\"\\u12G4\"",
                          "\"\\ud800\"",
                          "\"\\udc00\"",
                          "tru",
                          "nul",
                          "[1] 2",
                          "{\"a\":1,\"a\":2}",
                          "[NaN]",
                          "'x'",
                          "[1e999]"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(Json::parse(bad), memcomp::json_error);
  }
  try {
    Json::parse("[1, 2, x]");
    FAIL() << "no throw";
  } catch (const memcomp::json_error& e) {
    EXPECT_NE(std::string(e.what()).find("at byte 7"), std::string::npos) << e.what();
  }
  EXPECT_THROW(test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/no_such_file.json"), memcomp::json_error);
}

TEST(JsonLite, AsIntIsExact) {
  const Json v = Json::parse("[3, -7, 2.0, 1e2, 2.5, 1e30, \"3\"]");
  EXPECT_EQ(v.at(0).as_int(), 3);
  EXPECT_EQ(v.at(1).as_int(), -7);
  EXPECT_EQ(v.at(2).as_int(), 2);  // integral value written as a fraction
  EXPECT_EQ(v.at(3).as_int(), 100);
  EXPECT_THROW(v.at(4).as_int(), memcomp::json_error);
  EXPECT_THROW(v.at(5).as_int(), memcomp::json_error);  // beyond int64
  EXPECT_THROW(v.at(6).as_int(), memcomp::json_error);  // a string is not a number
  EXPECT_DOUBLE_EQ(v.at(4).as_double(), 2.5);
}

// ---- BDI ------------------------------------------------------------------------------------

TEST(Golden, BdiW4) {
  const Json g = load("bdi_w4.json");
  const std::string preset = g["preset"].as_string();
  ASSERT_GT(g["cases"].size(), 0u);
  for (const Json& c : g["cases"].elements()) {
    SCOPED_TRACE(c["id"].as_string());
    const auto blk = from_hex(c["block"].as_string());
    ASSERT_EQ(static_cast<std::int64_t>(blk.size()), c["block_bytes"].as_int());
    check_record(preset, blk,
                 fields_of(c, {"mode", "payload_bits", "meta_bits", "header_bits", "tag_bits", "inband_bits"}));
    if (blk.size() == 32 || blk.size() == 64) {  // the SPEC table: the named encoding and Table 2 payloads
      EXPECT_EQ(c["mode"].as_int(), c["named_encoding"].as_int());
      EXPECT_EQ(c["payload_bits"].as_int(), c["named_payload_bits"].as_int());
    }
  }
}

TEST(Golden, BdiPresetEdges) {
  const Json g = load("bdi_presets_edge.json");
  ASSERT_GT(g["cases"].size(), 0u);
  for (const Json& c : g["cases"].elements()) {
    SCOPED_TRACE(c["id"].as_string());
    const auto blk = from_hex(c["block"].as_string());
    ASSERT_EQ(static_cast<std::int64_t>(blk.size()), c["block_bytes"].as_int());
    ASSERT_GT(c["expected"].size(), 0u);
    for (const auto& [preset, want] : c["expected"].items()) check_record(preset, blk, fields_of(want));
  }
}

// ---- FPC ------------------------------------------------------------------------------------

TEST(Golden, FpcW5Words) {
  const Json g = load("fpc_w5.json");
  ASSERT_GT(g["words"].size(), 0u);
  const auto codec = make_codec("fpc.paper");
  for (const Json& w : g["words"].elements()) {
    const std::string hex = w["word"].as_string();
    SCOPED_TRACE("word " + hex);
    const auto be = from_hex(hex);  // MSB first
    ASSERT_EQ(be.size(), 4u);
    // the word (little-endian) then 3 zero words: the word's bits plus one 6-bit zero-run token
    std::vector<std::uint8_t> blk(16, 0);
    for (std::size_t i = 0; i < 4; ++i) blk[i] = be[3 - i];
    const SizeBreakdown s = codec->measure(blk.data(), blk.size());
    EXPECT_EQ(s.inband(), u32(w["bits"]) + 6);
    EXPECT_EQ(s.meta, u32(w["meta_bits"]) + 3);
    EXPECT_EQ(s.payload, u32(w["payload_bits"]) + 3);
    EXPECT_EQ(w["bits"].as_int(), w["payload_bits"].as_int() + w["meta_bits"].as_int());
    // the stream starts with the word's 3-bit prefix
    const std::string prefix = w["prefix"].as_string();
    ASSERT_EQ(prefix.size(), 3u);
    const EncodedBlocks enc = codec->encode_batch(BlockView{blk.data(), 1, blk.size()}, 1);
    ASSERT_GE(enc.bit_lengths.at(0), 3u);
    BitReader r(enc.data.data(), enc.bit_offsets.at(0), enc.bit_offsets[0] + enc.bit_lengths[0], enc.data.size());
    EXPECT_EQ(r.read(3), std::stoul(prefix, nullptr, 2)) << "prefix " << prefix;
    if (codec->exact()) expect_round_trip(*codec, blk);
  }
}

TEST(Golden, FpcZeroRuns) {
  const Json g = load("fpc_w5.json");
  std::size_t checked = 0;
  for (const Json& run : g["zero_runs"].elements()) {
    if (run["block"].is_null()) continue;  // no block of only that many zero words exists
    SCOPED_TRACE(std::to_string(run["zero_words"].as_int()) + " zero words");
    const auto blk = from_hex(run["block"].as_string());
    ASSERT_EQ(static_cast<std::int64_t>(blk.size()), 4 * run["zero_words"].as_int());
    for (const auto& [preset, bits] : run["bits"].items()) check_record(preset, blk, {{"bits", bits.as_int()}});
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(Golden, FpcBlocks) {
  const Json g = load("fpc_w5.json");
  ASSERT_GT(g["blocks"].size(), 0u);
  for (const Json& c : g["blocks"].elements()) {
    SCOPED_TRACE(c["id"].as_string());
    const auto blk = from_hex(c["block"].as_string());
    ASSERT_EQ(static_cast<std::int64_t>(blk.size()), c["block_bytes"].as_int());
    ASSERT_EQ(4 * c["words"].size(), blk.size());
    for (std::size_t i = 0; i < c["words"].size(); ++i) {  // the listed words are the block's words
      const auto be = from_hex(c["words"].at(i).as_string());
      ASSERT_EQ(be.size(), 4u);
      EXPECT_TRUE(be[0] == blk[4 * i + 3] && be[1] == blk[4 * i + 2] && be[2] == blk[4 * i + 1] && be[3] == blk[4 * i])
          << "word " << i;
    }
    for (const auto& [preset, want] : c["expected"].items()) check_record(preset, blk, fields_of(want));
  }
}

// ---- metrics --------------------------------------------------------------------------------

std::uint64_t charge(const Json& policy, std::int64_t bits, std::int64_t block_bytes) {
  return Policy::parse(policy_str(policy))
      .charge(static_cast<std::uint64_t>(bits), static_cast<std::size_t>(block_bytes));
}

/// "a/b" == num/den as fractions.
void expect_fraction(const Json& text, std::int64_t num, std::int64_t den) {
  const std::string s = text.as_string();
  const auto slash = s.find('/');
  ASSERT_NE(slash, std::string::npos) << s;
  EXPECT_EQ(std::stoll(s.substr(0, slash)) * den, num * std::stoll(s.substr(slash + 1))) << s;
}

TEST(Golden, MetricsW2) {
  const Json w = load("metrics_w2_w3_w16.json")["W2"];
  const std::int64_t B = w["block_bytes"].as_int(), bits = w["bits"].as_int(), charged = w["charged_bits"].as_int();
  SCOPED_TRACE("W2 " + policy_str(w["policy"]));
  EXPECT_EQ(charge(Json::parse("\"none\""), bits, B), static_cast<std::uint64_t>(bits));
  EXPECT_EQ(charge(w["policy"], bits, B), static_cast<std::uint64_t>(charged));
  EXPECT_EQ(8 * w["compressed_bytes"].as_int(), bits);
  EXPECT_EQ(8 * w["charged_bytes"].as_int(), charged);
  EXPECT_DOUBLE_EQ(static_cast<double>(8 * B) / static_cast<double>(bits), w["raw_cr"].as_double());
  EXPECT_DOUBLE_EQ(static_cast<double>(8 * B) / static_cast<double>(charged), w["cr_mag"].as_double());
  expect_fraction(w["raw_cr_fraction"], 8 * B, bits);
  expect_fraction(w["cr_mag_fraction"], 8 * B, charged);
}

TEST(Golden, MetricsW3AndW16) {
  const Json m = load("metrics_w2_w3_w16.json");
  for (const char* key : {"W3", "W16"}) {
    const Json& g = m[key];
    const std::int64_t B = g["block_bytes"].as_int();
    ASSERT_GT(g["cases"].size(), 0u);
    for (const Json& c : g["cases"].elements()) {
      const std::int64_t bits = c["bits"].as_int(), charged = c["charged_bits"].as_int();
      SCOPED_TRACE(std::string(key) + " " + policy_str(g["policy"]) + " bits=" + std::to_string(bits));
      EXPECT_EQ(charge(g["policy"], bits, B), static_cast<std::uint64_t>(charged));
      EXPECT_EQ(8 * c["compressed_bytes"].as_int(), bits);
      EXPECT_EQ(8 * c["charged_bytes"].as_int(), charged);
      if (const Json* cr = c.find("raw_cr")) {
        EXPECT_DOUBLE_EQ(static_cast<double>(8 * B) / static_cast<double>(bits), cr->as_double());
      }
      if (const Json* cr = c.find("cr_mag")) {
        EXPECT_DOUBLE_EQ(static_cast<double>(8 * B) / static_cast<double>(charged), cr->as_double());
      }
      if (const Json* f = c.find("f")) {  // W16: gem5's compression factor
        const Policy p = Policy::parse(policy_str(g["policy"]));
        EXPECT_EQ(pow2_factor(static_cast<std::uint64_t>(bits), static_cast<std::size_t>(B), p.fmax),
                  static_cast<std::uint64_t>(f->as_int()));
      }
    }
  }
}

TEST(Golden, MetricsPolicies) {
  const Json m = load("metrics_w2_w3_w16.json");
  ASSERT_GT(m["policies"].size(), 0u);
  for (const Json& c : m["policies"].elements()) {
    const std::int64_t bits = c["bits"].as_int();
    const std::int64_t B = c["block_bytes"].as_int();
    SCOPED_TRACE(policy_str(c["policy"]) + " B=" + std::to_string(B) + " bits=" + std::to_string(bits));
    EXPECT_EQ(charge(c["policy"], bits, B), static_cast<std::uint64_t>(c["charged_bits"].as_int()));
  }
}

}  // namespace

TEST(Golden, Cal22BdiAndBpcLines) {
  const Json g = load("cal22.json");
  const auto bdi = make_codec("bdi.cal22");
  for (const Json& c : g["bdi.cal22"].elements()) {
    const auto blk = from_hex(c["hex"].as_string());
    const SizeBreakdown s = bdi->measure(blk.data(), blk.size());
    EXPECT_EQ(s.inband(), u32(c["bits"])) << c["hex"].as_string();
    std::string mode;
    for (const ModeName& m : bdi->modes())
      if (m.mode == s.mode) mode = m.name;
    EXPECT_EQ(mode, c["mode"].as_string());
  }
  const Json& b = g["bpc.cal22"].elements()[0];
  const auto blk = from_hex(b["hex"].as_string());
  EXPECT_EQ(make_codec("bpc.cal22")->measure(blk.data(), blk.size()).inband(), u32(b["bits"]));
  EXPECT_EQ(make_codec("bpc.skku")->measure(blk.data(), blk.size()).inband(), u32(b["bpc.skku_bits"]));
}

// ---- frozen stream formats (tests/golden/streams.json, tests/python/make_frozen_streams.py) ------
// Every preset x block size x workload: the same digests as tests/python/test_frozen_streams.py,
// recomputed from the stored input blocks and models by the C++ core.

namespace {

TEST(FrozenStreams, Sha256AndBase64KnownAnswers) {
  // FIPS 180-4 examples (one and two blocks) and the empty message; RFC 4648 section 10.
  const std::string abc = "abc", two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  auto sha = [](const std::string& s) {
    return test::sha256_hex(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
  };
  EXPECT_EQ(sha(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha(abc), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  auto b64 = [](const std::string& s) {
    const auto v = test::base64_decode(s);
    return std::string(v.begin(), v.end());
  };
  EXPECT_EQ(b64(""), "");
  EXPECT_EQ(b64("Zg=="), "f");
  EXPECT_EQ(b64("Zm8="), "fo");
  EXPECT_EQ(b64("Zm9v"), "foo");
  EXPECT_EQ(b64("Zm9vYmFy"), "foobar");
  EXPECT_THROW(b64("Zm9"), std::runtime_error);
  EXPECT_THROW(b64("Zg==Zm9v"), std::runtime_error);
}

const Json& frozen() {
  static const Json table = load("streams.json");
  return table;
}

/// The stored bytes of a workload, checked against their SHA-256.
const std::vector<std::uint8_t>& workload(const std::string& name) {
  static std::map<std::string, std::vector<std::uint8_t>> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  for (const Json& w : frozen()["workloads"].elements()) {
    if (w["name"].as_string() != name) continue;
    auto raw = test::base64_decode(w["base64"].as_string());
    if (raw.size() != static_cast<std::size_t>(w["n_bytes"].as_int()) ||
        test::sha256_hex(raw.data(), raw.size()) != w["sha256"].as_string())
      throw std::runtime_error("streams.json: workload " + name + " does not match its sha256");
    return cache.emplace(name, std::move(raw)).first->second;
  }
  throw std::runtime_error("streams.json: no workload " + name);
}

/// The digest streams.json keeps: the first digest_hex hex digits of the SHA-256.
std::string digest(const std::uint8_t* data, std::size_t n) {
  return test::sha256_hex(data, n).substr(0, static_cast<std::size_t>(frozen()["digest_hex"].as_int()));
}
std::string digest_u32(const std::uint32_t* v, std::size_t n) {  // as uint32 little-endian
  std::vector<std::uint8_t> bytes;
  for (std::size_t i = 0; i < n; ++i)
    for (int s = 0; s < 32; s += 8) bytes.push_back(static_cast<std::uint8_t>(v[i] >> s));
  return digest(bytes.data(), bytes.size());
}

using Record = std::map<std::string, std::string>;

/// What streams.json records of a preset on the blocks (as make_frozen_streams.record does).
Record record(const Codec& codec, const BlockView& v) {
  const std::size_t n = v.n_blocks;
  std::vector<std::uint32_t> bits(n), payload(n), meta(n), header(n), tag(n);
  std::vector<std::int16_t> mode(n);
  codec.measure_batch(v, SizeColumns{bits.data(), payload.data(), meta.data(), header.data(), tag.data(), mode.data()},
                      1);
  std::uint64_t total = 0;
  for (const std::uint32_t b : bits) total += b;
  Record r{
      {"n_blocks", std::to_string(n)}, {"total_bits", std::to_string(total)}, {"bits", digest_u32(bits.data(), n)}};
  if (!codec.exact()) return r;
  const EncodedBlocks enc = codec.encode_batch(v, 1);
  EXPECT_EQ(std::vector<std::uint32_t>(enc.bit_lengths.begin(), enc.bit_lengths.end()), bits) << "encode vs measure";
  r["stream"] = digest(enc.data.data(), enc.data.size());
  r["tags"] = digest_u32(enc.tags.data(), n);
  if (codec.stateful()) r["entry_state"] = digest(enc.entry_state.data(), enc.entry_state.size());
  // Decoding: a lossy codec's output is frozen too; a lossless one's must be the blocks (a
  // "decode" key, absent from the table, says what went wrong).
  std::vector<std::uint8_t> out(n * v.block_bytes);
  EncodedView ev{enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(), enc.tags.data(), n,
                 v.block_bytes};
  ev.entry_state = enc.entry_state.data();
  ev.entry_state_bytes = enc.entry_state.size();
  try {
    codec.decode_batch(ev, out.data(), 1);
    if (codec.lossy())
      r["decoded"] = digest(out.data(), out.size());
    else if (!std::equal(out.begin(), out.end(), v.data))
      r["decode"] = "differs from the blocks";
  } catch (const std::exception& ex) {
    r[codec.lossy() ? "decoded" : "decode"] = std::string("threw: ") + ex.what();
  }
  return r;
}

TEST(FrozenStreams, TheTableHoldsEveryPresetBlockSizeAndWorkload) {
  std::set<std::tuple<std::string, std::size_t, std::string>> want, got;
  for (const Preset& p : presets()) {
    const auto codec = make_codec(p.name);
    for (const std::size_t B : {32u, 64u, 128u, 256u}) {
      try {
        codec->check_block_bytes(B);
      } catch (const std::invalid_argument&) {
        continue;
      }
      for (const Json& w : frozen()["workloads"].elements()) want.emplace(p.name, B, w["name"].as_string());
    }
  }
  for (const Json& e : frozen()["entries"].elements())
    got.emplace(e["preset"].as_string(), static_cast<std::size_t>(e["block_bytes"].as_int()),
                e["workload"].as_string());
  EXPECT_EQ(got.size(), frozen()["entries"].size());
  EXPECT_EQ(got, want);
}

TEST(FrozenStreams, EveryEntryEncodesAsFrozen) {
  const Json& table = frozen();
  ASSERT_EQ(table["entries"].size(), 495u);  // (41 presets x 4 sizes + mpc.cal22_rtl at 32 B) x 3 workloads
  for (const Json& e : table["entries"].elements()) {
    const std::string preset = e["preset"].as_string(), name = e["workload"].as_string();
    const auto B = static_cast<std::size_t>(e["block_bytes"].as_int());
    SCOPED_TRACE(preset + " " + std::to_string(B) + " B " + name);
    Options options;
    if (!e["model"].is_null()) {
      const Json& m = table["models"][e["model"].as_string()];
      options[m["option"].as_string()] = m["text"].as_string();
    }
    const auto codec = make_codec(preset, options);
    const auto& raw = workload(name);
    Record want;
    for (const auto& [key, value] : e.items())
      if (key != "preset" && key != "block_bytes" && key != "workload" && key != "model")
        want[key] = value.is_string() ? value.as_string() : std::to_string(value.as_int());
    EXPECT_EQ(record(*codec, BlockView{raw.data(), raw.size() / B, B}), want);
  }
}

}  // namespace
