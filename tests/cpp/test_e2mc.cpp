// E2MC and SC2 (P1; SPEC 1.9, 1.10): layout, raw rule, tags, model validation, corrupt streams.
#include <gtest/gtest.h>

#include <random>

#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/json.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

// A fitted codec: 16-bit symbols whose table holds 0 and 1 (and ESC).
std::unique_ptr<Codec> fitted(const char* preset, Options extra = {}) {
  std::vector<std::uint8_t> train(4096, 0);
  for (std::size_t i = 0; i < train.size(); i += 4) train[i] = 1;
  auto c = make_codec(preset, extra);
  extra["model"] = c->fit({train.data(), train.size() / 128, 128}, 1);
  return make_codec(preset, extra);
}

// The segments decoded side by side read unchecked where the buffer holds a whole block's
// worth of bits past every segment's start, checked elsewhere, with the same outcome.
TEST(E2MC, WaysDecoderUncheckedReadsEqualChecked) {
  const auto x = test::adversarial_blocks(128);
  for (const std::int64_t pdw : {2, 4, 8}) {
    Options o{{"pdw", pdw}};
    o["model"] = make_codec("e2mc.paper", o)->fit({x.data(), x.size() / 128, 128}, 1);
    test::check_unchecked_reads(*make_codec("e2mc.paper", o), x, 128);
  }
}

TEST(E2MC, W14PointerBitsAndSegmentAlignment) {
  const auto four = fitted("e2mc.paper");
  const auto one = fitted("e2mc.paper", {{"pdw", std::int64_t{1}}});
  std::vector<std::uint8_t> z(128, 0);
  const SizeBreakdown s4 = four->measure(z.data(), 128), s1 = one->measure(z.data(), 128);
  EXPECT_EQ(s1.header, 0u);
  // 64 zero symbols of one codeword length each: 16 per segment; pointers 3 x 7 = 21 bits (W14)
  const std::uint32_t seg = s1.payload / 4;
  std::uint32_t at = 21 + seg, pads = 0;
  for (int k = 1; k < 4; ++k) {
    pads += (8 - at % 8) % 8;
    at = (at + 7) / 8 * 8 + seg;
  }
  EXPECT_EQ(s4.header, 21u + pads);
  EXPECT_EQ(s4.payload, s1.payload);
  EXPECT_EQ(s4.tag, 2u);  // 128 B / 32 B MAG: 2 tag bits
  EXPECT_EQ(s4.mode, 1);  // one burst
  const EncodedBlocks e = four->encode_batch({z.data(), 1, 128}, 1);
  EXPECT_EQ(e.tags[0], 0u);  // bursts - 1
  BitReader r(e.data.data(), e.bit_lengths[0]);
  std::uint64_t p2 = r.read(7), p3 = r.read(7), p4 = r.read(7);
  EXPECT_EQ(p2, (21 + seg + 7) / 8);
  EXPECT_LT(p2, p3);
  EXPECT_LT(p3, p4);
}

TEST(E2MC, RawRuleAndTags) {
  const auto c = fitted("e2mc.paper");
  std::vector<std::uint8_t> rnd(128);
  std::mt19937 rng(1);
  for (auto& x : rnd) x = static_cast<std::uint8_t>(rng());
  const SizeBreakdown s = c->measure(rnd.data(), 128);  // escapes everywhere: far above 96 B
  EXPECT_EQ(s.mode, 0);                                 // raw
  EXPECT_EQ(s.payload, 1024u);
  EXPECT_EQ(s.header, 0u);
  EXPECT_EQ(s.tag, 2u);
  const EncodedBlocks e = c->encode_batch({rnd.data(), 1, 128}, 1);
  EXPECT_EQ(e.tags[0], 3u);  // 11 = stored uncompressed (P1 §III-D)
  EXPECT_EQ(std::vector<std::uint8_t>(e.data.begin(), e.data.end()), rnd);
  // 32 B blocks at 32 B MAG: 1 tag bit, compressed only when smaller than the block
  const auto small = fitted("e2mc.paper", {{"pdw", std::int64_t{1}}});
  std::vector<std::uint8_t> z(32, 0);
  EXPECT_EQ(small->measure(z.data(), 32).tag, 1u);
  EXPECT_EQ(small->measure(z.data(), 32).mode, 1);
  EXPECT_EQ(small->measure(rnd.data(), 32).mode, 0);
}

TEST(E2MC, DecodeRejectsCorruption) {
  const auto c = fitted("e2mc.paper");
  std::vector<std::uint8_t> z(128, 0);
  z[5] = 1;
  const EncodedBlocks e = c->encode_batch({z.data(), 1, 128}, 1);
  std::vector<std::uint8_t> out(128);
  auto decode = [&](std::vector<std::uint8_t> data, std::uint32_t tag) {
    const std::uint64_t off = 0;
    const std::uint32_t len = e.bit_lengths[0];
    c->decode_batch({data.data(), data.size(), &off, &len, &tag, 1, 128}, out.data(), 1);
  };
  const std::vector<std::uint8_t> good(e.data.begin(), e.data.end());
  decode(good, e.tags[0]);
  EXPECT_EQ(out, z);
  EXPECT_THROW(decode(good, 1), corrupt_stream);  // tag says 2 bursts for a 1-burst stream
  auto bad_ptr = good;
  bad_ptr[0] ^= 0x02;  // P2 off by one
  EXPECT_THROW(decode(bad_ptr, e.tags[0]), corrupt_stream);
}

TEST(E2MC, SymbolLengthsAndBlockSizes) {
  std::vector<std::uint8_t> d(8192);
  std::mt19937 rng(5);
  for (auto& x : d) x = static_cast<std::uint8_t>(rng() % 4);
  for (std::int64_t sl : {4, 8, 16, 32}) {
    auto c = make_codec("e2mc", {{"symbol_bits", sl}});
    const std::string model = c->fit({d.data(), d.size() / 64, 64}, 1);
    const Json m = Json::parse(model);
    EXPECT_EQ(m["sl"].as_int(), sl);
    EXPECT_EQ(m["positions"].as_int(), sl <= 8 ? 32 / sl : 1);
    EXPECT_EQ(m["max_len"].as_int(), sl == 4 ? 8 : sl == 8 ? 16 : 20);
    EXPECT_EQ(m["tables"].size(), static_cast<std::size_t>(sl <= 8 ? 32 / sl : 1));
  }
  EXPECT_THROW(make_codec("e2mc", {{"symbol_bits", std::int64_t{32}}, {"pdw", std::int64_t{8}}})->check_block_bytes(16),
               memcomp::invalid_argument);  // 128 bits do not split into 8 ways of 32-bit symbols
  EXPECT_THROW(make_codec("e2mc", {{"pdw", std::int64_t{3}}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("e2mc", {{"symbol_bits", std::int64_t{12}}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("e2mc", {{"raw", false}}), memcomp::invalid_argument);  // pointers need the raw rule
}

TEST(E2MC, OptionsOnlyAFitCouldRefuseAreRefusedWhenMade) {
  // SC2's heap tree (CAL_22-MPC) has no length limit, so a model fitted with it would break any
  // max_len but 0 (unlimited); SLC's MAG must divide a block of 16 to 256 B.
  EXPECT_THROW(make_codec("sc2.cal22", {{"max_len", std::int64_t{6}}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("sc2.kim", {{"tree", std::string("heap")}, {"max_len", std::int64_t{-1}}}),
               memcomp::invalid_argument);
  EXPECT_NO_THROW(make_codec("sc2.kim", {{"tree", std::string("heap")}}));
  for (std::int64_t mag : {3, 34, 48, 512}) EXPECT_THROW(make_codec("slc", {{"mag", mag}}), memcomp::invalid_argument);
  for (std::int64_t mag : {1, 16, 256}) {
    const auto c = make_codec("slc", {{"mag", mag}});
    EXPECT_NO_THROW(c->check_block_bytes(256));
  }
}

TEST(E2MC, ModelValidation) {
  auto c = make_codec("e2mc");
  std::vector<std::uint8_t> d(4096, 0);
  const Json good = Json::parse(c->fit({d.data(), 32, 128}, 1));
  auto with = [&](const char* key, Json v) {
    Json m = good;
    m.set(key, std::move(v));
    return m.dump();
  };
  EXPECT_NO_THROW(make_codec("e2mc", {{"model", good.dump()}}));
  EXPECT_THROW(make_codec("e2mc", {{"model", with("sl", Json::integer(8))}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("e2mc", {{"model", with("positions", Json::integer(2))}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("e2mc", {{"model", with("tables", Json::array())}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("e2mc", {{"model", with("codec", Json::string("sc2"))}}), memcomp::invalid_argument);
  const Json no_esc = Json::parse(R"({"symbols":[0,1],"lengths":[1,1],"esc_len":0})");
  EXPECT_THROW(make_codec("e2mc", {{"model", with("tables", Json::array({no_esc}))}}), memcomp::invalid_argument);
  const Json too_long = Json::parse(R"({"symbols":[0],"lengths":[1],"esc_len":21})");
  EXPECT_THROW(make_codec("e2mc", {{"model", with("tables", Json::array({too_long}))}}), memcomp::invalid_argument);
}

TEST(SC2, NoPointersNoTagsAndKimMisses) {
  const auto paper = fitted("sc2.paper");
  std::vector<std::uint8_t> b(64, 0);
  store<std::uint32_t>(b.data(), 0xDEADBEEF, Endian::little);  // one miss
  const SizeBreakdown s = paper->measure(b.data(), 64);
  EXPECT_EQ(s.header, 0u);
  EXPECT_EQ(s.tag, 0u);
  EXPECT_EQ(s.mode, 0);
  const auto kim = fitted("sc2.kim");
  const SizeBreakdown k = kim->measure(b.data(), 64);
  const SizeBreakdown z = kim->measure(std::vector<std::uint8_t>(64, 0).data(), 64);
  EXPECT_EQ(k.inband() - z.inband() + z.inband() / 16, 33u);  // the miss: 32 + 1 instead of a hit
  EXPECT_FALSE(kim->exact());
}

}  // namespace
