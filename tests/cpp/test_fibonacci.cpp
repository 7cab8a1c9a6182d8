// Fibonacci codec (SPEC 1.14, W15): codewords, limits, stream layout and decoder rejections.
// Golden vectors: tests/golden/fibonacci.json.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "json_lite.hpp"
#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/bitstream.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

using test::decode_bits;
using test::stream_bits;

std::vector<std::uint8_t> words(std::vector<std::uint32_t> ws) {
  std::vector<std::uint8_t> b(4 * ws.size());
  for (std::size_t i = 0; i < ws.size(); ++i) store<std::uint32_t>(b.data() + 4 * i, ws[i], Endian::little);
  return b;
}

const std::string kZero32(32, '0');

// The signed delta whose zigzag value is u (0, -1, 1, -2, ... <- 0, 1, 2, 3, ...).
std::uint32_t delta_of(std::uint64_t u) {
  return u % 2 == 0 ? static_cast<std::uint32_t>(u / 2)
                    : static_cast<std::uint32_t>(0u - static_cast<std::uint32_t>((u + 1) / 2));
}

/// The codeword of n: the second word of [0, delta(n - 1), same, same].
std::string codeword(const Codec& c, std::uint64_t n) {
  const std::uint32_t d = delta_of(n - 1);
  const std::string s = stream_bits(c, words({0, d, d, d}));
  EXPECT_EQ(s.substr(0, 32), kZero32);
  EXPECT_EQ(s.substr(s.size() - 4), "1111");  // two zero deltas: Fib(1) = 11 each
  return s.substr(32, s.size() - 36);
}

TEST(Fibonacci, W15) {
  const auto c = make_codec("fib");
  EXPECT_EQ(c->preset(), "fib.ours");
  EXPECT_TRUE(c->exact());
  EXPECT_EQ(codeword(*c, 1), "11");
  EXPECT_EQ(codeword(*c, 2), "011");
  EXPECT_EQ(codeword(*c, 3), "0011");
  EXPECT_EQ(codeword(*c, 4), "1011");
  EXPECT_EQ(codeword(*c, 5), "00011");
  EXPECT_EQ(codeword(*c, std::uint64_t{1} << 32).size(), 47u);
}

TEST(Fibonacci, CodewordsOneToTwenty) {
  // Zeckendorf terms over F2 = 1, F3 = 2, F4 = 3, F5 = 5, F6 = 8, F7 = 13, lowest first, then 1.
  const char* want[21] = {"",        "11",      "011",     "0011",    "1011",    "00011",   "10011",
                          "01011",   "000011",  "100011",  "010011",  "001011",  "101011",  "0000011",
                          "1000011", "0100011", "0010011", "1010011", "0001011", "1001011", "0101011"};
  const auto c = make_codec("fib");
  for (std::uint64_t n = 1; n <= 20; ++n) {
    SCOPED_TRACE(n);
    const std::string code = codeword(*c, n);
    EXPECT_EQ(code, want[n]);
    const SizeBreakdown s = c->measure(words({0, delta_of(n - 1), delta_of(n - 1), delta_of(n - 1)}).data(), 16);
    EXPECT_EQ(s.payload, 32u + code.size() + 4u);
    EXPECT_EQ(s.meta + s.header + s.tag, 0u);
    EXPECT_EQ(s.mode, 0);
  }
}

TEST(Fibonacci, Limits) {
  const auto c = make_codec("fib");
  // u = 0: equal words, 2 bits each
  EXPECT_EQ(c->measure(words({5, 5, 5, 5}).data(), 16).payload, 32u + 3u * 2u);
  // u = 2^32 - 1 (delta -2^31) and u = 2^32 - 2 (delta 2^31 - 1): n = 2^32 and 2^32 - 1, both 47 bits
  EXPECT_EQ(c->measure(words({0, 0x80000000u, 0x80000000u, 0x80000000u}).data(), 16).payload, 32u + 47u + 4u);
  EXPECT_EQ(c->measure(words({0, 0x7FFFFFFFu, 0x7FFFFFFFu, 0x7FFFFFFFu}).data(), 16).payload, 32u + 47u + 4u);
  // n = F(47) - 1 (46 bits) and F(47) (47): u = 2971215071 and 2971215072
  EXPECT_EQ(codeword(*c, 2971215072u).size(), 46u);
  EXPECT_EQ(codeword(*c, 2971215073u).size(), 47u);
  // the largest block: every delta +-2^31
  const auto worst = words({0, 0x80000000u, 0, 0x80000000u});
  EXPECT_EQ(c->measure(worst.data(), 16).payload, 32u + 3u * 47u);
  EXPECT_EQ(c->max_compressed_bits(16), 32u + 3u * 47u);
  EXPECT_EQ(c->max_compressed_bits(256), 32u + 63u * 47u);
  EXPECT_EQ(decode_bits(*c, stream_bits(*c, worst), 16), worst);
}

TEST(Fibonacci, FirstWordRawAndDeltasWrap) {
  const auto c = make_codec("fib");
  // 0xFFFFFFFF -> 0: delta +1 mod 2^32 (u = 2, n = 3: 0011)
  const auto b = words({0xFFFFFFFFu, 0, 0, 0});
  EXPECT_EQ(stream_bits(*c, b), std::string(32, '1') + "0011" + "11" + "11");
  const auto big = make_codec("fib", {{"endian", std::string("big")}});
  // big-endian words 0x12345678, 0x12345679, 0x12345679, 0x12345679: deltas +1, 0, 0
  const std::vector<std::uint8_t> be = {0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x79,
                                        0x12, 0x34, 0x56, 0x79, 0x12, 0x34, 0x56, 0x79};
  EXPECT_EQ(stream_bits(*big, be), "00010010001101000101011001111000" + std::string("0011") + "11" + "11");
}

TEST(Fibonacci, DecodeRejectsBadCodewords) {
  const auto c = make_codec("fib");
  EXPECT_EQ(decode_bits(*c, kZero32 + "11" + "0011" + "1011", 16), words({0, 0, 1, 0xFFFFFFFFu}));
  // 12 zero bits and no terminator: the stream ends inside a codeword
  EXPECT_THROW(decode_bits(*c, kZero32 + std::string(12, '0'), 16), corrupt_stream);
  EXPECT_THROW(decode_bits(*c, kZero32 + "11" + "11" + "1", 16), corrupt_stream);
  // 47 bits without a terminator: longer than any codeword
  EXPECT_THROW(decode_bits(*c, kZero32 + std::string(60, '0') + "11" + "11" + "11", 16), corrupt_stream);
  std::string alt;
  for (int i = 0; i < 46; ++i) alt += i % 2 ? '0' : '1';  // 1010...10: no terminator in 46 bits
  EXPECT_THROW(decode_bits(*c, kZero32 + alt + "0" + "11" + "11" + "11", 16), corrupt_stream);
  // a 47-bit codeword above 2^32: F47 + F45 + F43 = 4539612680
  std::string over(46, '0');
  over[45] = over[43] = over[41] = '1';
  EXPECT_THROW(decode_bits(*c, kZero32 + over + "1" + "11" + "11", 16), corrupt_stream);
  // 2^32 itself (F47 F45 F41 F36 F34 F32 F28 F26 F22 F14 F10 F7 F4 F2) is the largest value
  std::string max(46, '0');
  for (int k : {47, 45, 41, 36, 34, 32, 28, 26, 22, 14, 10, 7, 4, 2}) max[static_cast<std::size_t>(k - 2)] = '1';
  EXPECT_EQ(decode_bits(*c, kZero32 + max + "1" + "11" + "11", 16), words({0, 0x80000000u, 0x80000000u, 0x80000000u}));
  // trailing bits after the last codeword
  EXPECT_THROW(decode_bits(*c, kZero32 + "11" + "11" + "11" + "0", 16), corrupt_stream);
  EXPECT_THROW(decode_bits(*c, kZero32 + "11" + "11" + "11" + "11", 16), corrupt_stream);
}

TEST(Fibonacci, EveryTruncationThrows) {
  const auto c = make_codec("fib");
  for (std::size_t B : {std::size_t{16}, std::size_t{64}}) {
    const auto data = test::adversarial_blocks(B, 8);
    for (std::size_t i = 0; i < data.size(); i += 5 * B) {
      const std::vector<std::uint8_t> blk(data.begin() + static_cast<std::ptrdiff_t>(i),
                                          data.begin() + static_cast<std::ptrdiff_t>(i + B));
      const std::string s = stream_bits(*c, blk);
      EXPECT_EQ(decode_bits(*c, s, B), blk);
      for (std::size_t len = 0; len < s.size(); ++len)
        EXPECT_THROW(decode_bits(*c, s.substr(0, len), B), corrupt_stream);
    }
  }
}

TEST(Fibonacci, GoldenFile) {
  const auto g = test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/fibonacci.json");
  const auto c = make_codec("fib.ours");
  ASSERT_EQ(g["codewords"].size(), 20u);
  for (const auto& w : g["codewords"].elements()) {
    SCOPED_TRACE(w["n"].as_int());
    EXPECT_EQ(codeword(*c, static_cast<std::uint64_t>(w["n"].as_int())), w["code"].as_string());
    EXPECT_EQ(static_cast<std::int64_t>(delta_of(static_cast<std::uint64_t>(w["u"].as_int()))),
              static_cast<std::int64_t>(static_cast<std::uint32_t>(w["delta"].as_int())));
  }
  for (const auto& l : g["lengths"].elements())
    EXPECT_EQ(static_cast<std::int64_t>(codeword(*c, static_cast<std::uint64_t>(l["n"].as_int())).size()),
              l["bits"].as_int());
  EXPECT_EQ(codeword(*c, std::uint64_t{1} << 32), g["max_codeword"]["code"].as_string());
  for (const auto& b : g["blocks"].elements()) {
    SCOPED_TRACE(b["id"].as_string());
    const std::string hex = b["block"].as_string();
    std::vector<std::uint8_t> blk(hex.size() / 2);
    for (std::size_t i = 0; i < blk.size(); ++i)
      blk[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    EXPECT_EQ(std::int64_t{c->measure(blk.data(), blk.size()).payload}, b["bits"].as_int());
    EXPECT_EQ(stream_bits(*c, blk), b["stream"].as_string());
    EXPECT_EQ(decode_bits(*c, b["stream"].as_string(), blk.size()), blk);
  }
}

TEST(Fibonacci, LaneKernelsEqualScalar) {
  for (const char* endian : {"little", "big"}) {
    const auto c = make_codec("fib.ours", {{"endian", std::string(endian)}});
    test::check_lane_encoder(*c);
    test::check_lane_decoder(*c);
  }
}

}  // namespace
