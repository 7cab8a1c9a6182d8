// FPC (SPEC 1.2, W5): pattern sizes, zero runs, stream fields and the accounting presets.
#include <gtest/gtest.h>

#include <string>

#include "memcomp/codecs/registry.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

std::vector<std::uint8_t> words(std::initializer_list<std::uint32_t> ws, std::size_t B = 32) {
  std::vector<std::uint8_t> b(B, 0);
  std::size_t i = 0;
  for (auto w : ws) store<std::uint32_t>(b.data() + 4 * i++, w, Endian::little);
  return b;
}

TEST(FPC, W5ZeroRunSizes) {
  const auto c = make_codec("fpc.paper");
  const std::vector<std::uint8_t> z32(32, 0), z64(64, 0);
  EXPECT_EQ(c->measure(z32.data(), 32).inband(), 6u);   // 8 zero words: one run
  EXPECT_EQ(c->measure(z64.data(), 64).inband(), 12u);  // 16 zero words: two runs
  // 9 zero words then raw words: runs of 8 and 1
  std::vector<std::uint8_t> b(64, 0);
  for (std::size_t i = 9; i < 16; ++i) store<std::uint32_t>(b.data() + 4 * i, 0x12345678u, Endian::little);
  EXPECT_EQ(c->measure(b.data(), 64).inband(), 12u + 7u * 35u);
}

TEST(FPC, SkkuChargesOneTokenPerMaximalRun) {
  const std::vector<std::uint8_t> z64(64, 0);
  EXPECT_EQ(make_codec("fpc.skku")->measure(z64.data(), 64).inband(), 6u);
}

TEST(FPC, StreamFieldsOfPattern101) {
  const auto c = make_codec("fpc.paper");
  // 0x007F0012: halves 0x007F and 0x0012 are sign-extended bytes -> 101, fields 7F then 12.
  const auto b = words({0x007F0012u, 0xFF80FFFFu}, 16);
  const SizeBreakdown s = c->measure(b.data(), 16);
  EXPECT_EQ(s.inband(), 19u + 19u + 6u);
  std::vector<std::uint8_t> buf(8);
  BitWriter w(buf.data(), s.inband());
  c->encode(b.data(), 16, w);
  w.finish();
  BitReader r(buf.data(), s.inband());
  EXPECT_EQ(r.read(3), 5u);
  EXPECT_EQ(r.read(16), 0x7F12u);
  EXPECT_EQ(r.read(3), 5u);
  EXPECT_EQ(r.read(16), 0x80FFu);
  EXPECT_EQ(r.read(3), 0u);
  EXPECT_EQ(r.read(3), 1u);  // run of 2 zero words
}

TEST(FPC, CmuByteModel) {
  // zero, |v| <= 0xFF, <= 0xFFFF, low half zero, unsigned halves <= 0xFF, repeated bytes, raw:
  const auto b = words({0, 0xFFFFFF01u, 0x00001234u, 0x12340000u, 0x00120034u, 0xABABABABu, 0x12345678u, 200});
  const SizeBreakdown s = make_codec("fpc.cmu")->measure(b.data(), 32);
  EXPECT_EQ(s.payload, 8u * (1 + 1 + 2 + 2 + 2 + 1 + 4 + 1));
  EXPECT_EQ(s.meta, 8u * 3u);  // floor(3 * 8 words / 8) bytes of prefixes
}

TEST(FPC, DecodeRejectsOverlongZeroRun) {
  const auto c = make_codec("fpc.paper");
  // 16-byte block = 4 words; a run field of 8 words is corrupt.
  std::uint8_t buf[1] = {0b00011100};  // prefix 000, field 111 (run 8)
  std::uint8_t out[16];
  BitReader r(buf, 6);
  EXPECT_THROW(c->decode(r, 0, out, 16), corrupt_stream);
}

TEST(FPC, LaneKernelsEqualScalar) {
  for (const char* endian : {"little", "big"}) {
    const auto c = make_codec("fpc.paper", {{"endian", std::string(endian)}});
    test::check_lane_encoder(*c);
    test::check_lane_decoder(*c);
  }
}

}  // namespace
