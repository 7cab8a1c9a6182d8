// SLC (P4; SPEC 1.11, W13): the golden block of tests/golden/slc.json, the approximable mask, and
// decode of a lossy block, on the C++ core directly.
#include <gtest/gtest.h>

#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/bits.hpp"

using namespace memcomp;

namespace {

// W13's table: value 1000 + i coded with 13 bits (i < 32) or 12 bits, ESC 1 bit.
std::string w13_model() {
  std::string syms, lens;
  for (int i = 0; i < 64; ++i) {
    syms += (i ? "," : "") + std::to_string(1000 + i);
    lens += (i ? "," : "") + std::string(i < 32 ? "13" : "12");
  }
  return R"({"format":"memcomp.model/1","codec":"e2mc","sl":16,"positions":1,"max_len":20,"tables":[{"symbols":[)" +
         syms + R"(],"lengths":[)" + lens + R"(],"esc_len":1}]})";
}

std::vector<std::uint8_t> w13_block() {
  std::vector<std::uint8_t> b(128);
  for (int i = 0; i < 64; ++i)
    store<std::uint16_t>(b.data() + 2 * i, static_cast<std::uint16_t>(1000 + i), Endian::little);
  return b;
}

TEST(SLC, W13SizesAndNodes) {
  const auto blk = w13_block();
  for (const char* v : {"simp", "pred", "opt"}) {
    const auto c = make_codec("slc", {{"variant", std::string(v)}, {"model", w13_model()}});
    const SizeBreakdown s = c->measure(blk.data(), 128);
    const bool opt = std::string(v) == "opt";
    EXPECT_EQ(s.inband(), opt ? 760u : 728u) << v;  // comp 832, budget 768, extra 64
    EXPECT_EQ(s.mode, 2);
    EXPECT_EQ(s.header, opt ? 38u : 32u);  // 1 + 6 + 4 + 21 (+ a 6-bit pad for opt)
    const EncodedBlocks e = c->encode_batch({blk.data(), 1, 128}, 1);
    ASSERT_EQ(e.bit_lengths[0], s.inband());
    EXPECT_EQ(e.tags[0], 2u);  // 3 bursts
    const auto h = load<std::uint16_t>(e.data.data(), Endian::big);
    EXPECT_EQ(h >> 15, 1u);                          // m
    EXPECT_EQ((h >> 9) & 0x3F, 0u);                  // ss
    EXPECT_EQ(((h >> 5) & 0xF) + 1, opt ? 6u : 8u);  // len
    std::vector<std::uint8_t> out(128);
    c->decode_batch({e.data.data(), e.data.size(), e.bit_offsets.data(), e.bit_lengths.data(), e.tags.data(), 1, 128},
                    out.data(), 1);
    const std::size_t len = opt ? 6 : 8;
    for (std::size_t i = 0; i < 64; ++i) {
      const auto got = load<std::uint16_t>(out.data() + 2 * i, Endian::little);
      if (i >= len)
        EXPECT_EQ(got, 1000 + i);
      else if (std::string(v) == "simp")
        EXPECT_EQ(got, 0);
      else
        EXPECT_EQ(got, 1000 + len + i % 2);  // the first kept word, word by word
    }
  }
}

TEST(SLC, MaskKeepsBlocksLosslessAndLosslessCodecsRefuseIt) {
  const auto blk = w13_block();
  const auto c = make_codec("slc", {{"model", w13_model()}});
  const std::uint8_t no = 0;
  BlockView v{blk.data(), 1, 128, &no};
  std::uint32_t bits, payload, meta, header, tag;
  std::int16_t mode;
  c->measure_batch(v, {&bits, &payload, &meta, &header, &tag, &mode}, 1);
  EXPECT_EQ(mode, 0);  // 832 lossless bits > 768: E2MC's raw rule stores it raw
  EXPECT_EQ(bits, 1024u);
  const auto bdi = make_codec("bdi");
  EXPECT_THROW(bdi->measure_batch(v, {&bits, &payload, &meta, &header, &tag, &mode}, 1), invalid_argument);
  EXPECT_THROW(make_codec("bestof", {{"members", std::string("bdi,slc")}}), invalid_argument);
}

}  // namespace
