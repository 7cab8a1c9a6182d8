// Best-of hybrids (SPEC 1.15).
#include <gtest/gtest.h>

#include "memcomp/codecs/registry.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

TEST(BestOf, PicksTheSmallestMemberPlusSelector) {
  const auto best = make_codec("bestof.bdi_fpc");
  const auto bdi = make_codec("bdi.paper"), fpc = make_codec("fpc.paper");
  for (std::size_t B : valid_block_sizes) {
    const auto data = test::adversarial_blocks(B, 50);
    for (std::size_t i = 0; i < data.size() / B; ++i) {
      const std::uint8_t* blk = data.data() + i * B;
      const SizeBreakdown a = bdi->measure(blk, B), f = fpc->measure(blk, B), s = best->measure(blk, B);
      const bool first = a.inband() <= f.inband();  // ties go to the earlier member
      ASSERT_EQ(s.inband(), std::min(a.inband(), f.inband()) + 1u);
      ASSERT_EQ(s.header, (first ? a.header : f.header) + 1u);
      ASSERT_EQ(s.tag, first ? a.tag : f.tag);
      ASSERT_EQ(s.mode, first ? a.mode : static_cast<std::int16_t>(256 + f.mode));
    }
  }
}

// measure_batch runs each member's batch path a piece of 2048 blocks at a time: the same sizes as
// measure() block by block, for every key and selector, across piece boundaries.
TEST(BestOf, BatchEqualsBlockByBlock) {
  const std::vector<Options> configs = {
      {},
      {{"members", std::string("zca.paper,bdi.paper,fpc.paper")}, {"selector", std::string("tag")}},
      {{"members", std::string("fpc.paper,bdi.paper,cpack.paper")}, {"key", std::string("mag")}},
      {{"members", std::string("bdi.paper,fpc.paper")}, {"key", std::string("pow2")}}};
  for (const Options& o : configs) {
    const auto c = make_codec("bestof", o);
    for (std::size_t B : valid_block_sizes) {
      const auto one = test::adversarial_blocks(B, 400);
      std::vector<std::uint8_t> data;
      while (data.size() / B < 4500) data.insert(data.end(), one.begin(), one.end());
      const std::size_t n = data.size() / B;
      test::Columns got(n);
      c->measure_batch({data.data(), n, B}, got.view(), 2);
      for (std::size_t i = 0; i < n; ++i) {
        const SizeBreakdown s = c->measure(data.data() + i * B, B);
        ASSERT_EQ(got.bits[i], s.inband()) << i;
        ASSERT_EQ(got.payload[i], s.payload) << i;
        ASSERT_EQ(got.meta[i], s.meta) << i;
        ASSERT_EQ(got.header[i], s.header) << i;
        ASSERT_EQ(got.tag[i], s.tag) << i;
        ASSERT_EQ(got.mode[i], s.mode) << i;
      }
    }
  }
}

TEST(BestOf, SelectorInTagsAndMagKey) {
  const auto c = make_codec("bestof", {{"members", std::string("zca.paper,bdi.paper,fpc.paper")},
                                       {"selector", std::string("tag")},
                                       {"key", std::string("mag")}});
  EXPECT_EQ(c->max_compressed_bits(128), 1024u + 96u);  // FPC's worst case, no in-band selector
  std::vector<std::uint8_t> z(128, 0);
  const SizeBreakdown s = c->measure(z.data(), 128);
  EXPECT_EQ(s.mode, 1);       // zca (member 0) zero mode
  EXPECT_EQ(s.tag, 1u + 2u);  // zca's tag bit + 2 selector bits
  EXPECT_EQ(s.inband(), 0u);
  const auto enc = c->encode_batch({z.data(), 1, 128}, 1);
  EXPECT_EQ(enc.tags[0], (0u << 24) | 1u);
  std::vector<std::uint8_t> out(128, 1);
  c->decode_batch(
      {enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(), enc.tags.data(), 1, 128},
      out.data(), 1);
  EXPECT_EQ(out, z);
  const std::uint32_t bad_tag = 3u << 24;
  const std::uint64_t off = 0;
  const std::uint32_t len = 0;
  EXPECT_THROW(c->decode_batch({enc.data.data(), 0, &off, &len, &bad_tag, 1, 128}, out.data(), 1), corrupt_stream);
}

TEST(BestOf, Pow2KeyComparesFactorsNotBits) {
  // 64 B block: word 0 = 0x0102, the rest zero. fpc.paper: 19 + 6 + 6 = 31 bits; bdi.paper:
  // B8D1 = 8 + 64 + 64 = 136 bits. Both reach gem5's factor cap of 4, so pow2 keeps the earlier
  // member (bdi) while the bits key takes fpc.
  std::vector<std::uint8_t> b(64, 0);
  b[0] = 0x02;
  b[1] = 0x01;
  const auto pow2 =
      make_codec("bestof", {{"members", std::string("bdi.paper,fpc.paper")}, {"key", std::string("pow2")}});
  const auto bits = make_codec("bestof", {{"members", std::string("bdi.paper,fpc.paper")}});
  EXPECT_EQ(pow2->measure(b.data(), 64).mode, 2);  // member 0, B8D1
  EXPECT_EQ(pow2->measure(b.data(), 64).inband(), 137u);
  EXPECT_EQ(bits->measure(b.data(), 64).mode, 256);  // member 1, fpc
  EXPECT_EQ(bits->measure(b.data(), 64).inband(), 32u);
}

TEST(BestOf, MembersAsJsonConfigsAndErrors) {
  const auto c =
      make_codec("bestof", {{"members", std::string(R"(["bdi.paper",{"preset":"fpc.paper","endian":"big"}])")}});
  const std::string members = std::get<std::string>(c->options().at("members"));
  EXPECT_EQ(members, R"(["bdi.paper",{"preset":"fpc.paper","endian":"big"}])");
  EXPECT_EQ(std::get<std::string>(make_codec("bestof.bdi_fpc")->options().at("members")), "bdi.paper,fpc.paper");
  EXPECT_THROW(make_codec("bestof", {{"members", std::string("bdi.paper,nope")}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("bestof", {{"members", std::string("[1]")}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("bestof", {{"members", std::string("[{\"endian\":\"big\"}]")}}), memcomp::invalid_argument);
  const auto fvc = make_codec("bestof", {{"members", std::string("bdi.paper,fvc.paper")}});
  EXPECT_TRUE(fvc->needs_model());
  EXPECT_FALSE(fvc->has_model());
}

}  // namespace
