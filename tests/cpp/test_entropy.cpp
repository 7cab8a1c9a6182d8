// Symbol statistics, entropy and the Space-Saving sketch (SPEC 3).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "memcomp/analysis/entropy.hpp"

using namespace memcomp;

TEST(Entropy, PlugInEstimate) {
  const std::uint64_t uniform[4] = {5, 5, 5, 5}, skew[3] = {2, 1, 1}, none[2] = {0, 0}, one[3] = {0, 9, 0};
  EXPECT_DOUBLE_EQ(entropy_bits(uniform, 4), 2.0);
  EXPECT_NEAR(entropy_bits(skew, 3), 1.5, 1e-12);
  EXPECT_EQ(entropy_bits(none, 2), 0.0);
  EXPECT_EQ(entropy_bits(one, 3), 0.0);
}

TEST(SymbolHistogram, CountsEverySymbolLength) {
  std::vector<std::uint8_t> b(32);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i % 3 == 0 ? 0x21 : 0);
  const BlockView v{b.data(), 1, 32};
  SymbolHistogram h4(4, true), h8(8), h16(16), h32(32);
  h4.add(v);
  h8.add(v);
  h16.add(v);
  h32.add(v);
  EXPECT_EQ(h4.total(), 64u);
  EXPECT_EQ(h8.total(), 32u);
  EXPECT_EQ(h16.total(), 16u);
  EXPECT_EQ(h32.total(), 8u);
  EXPECT_EQ(h8.dense()[0x21], 11u);       // bytes 0, 3, ..., 30
  EXPECT_EQ(h4.dense()[0 * 16 + 1], 3u);  // byte 0 of words 0, 3, 6 (positions 0/1 = byte 0's nibbles)
  EXPECT_EQ(h4.dense()[1 * 16 + 2], 3u);
  EXPECT_EQ(h16.dense()[0x0021], 6u);  // even byte offsets 0, 6, 12, 18, 24, 30
  std::uint64_t sum32 = 0;
  for (const auto& [value, count] : h32.table().items()) sum32 += count;
  EXPECT_EQ(sum32, 8u);
  EXPECT_THROW(SymbolHistogram(12), memcomp::invalid_argument);
  EXPECT_THROW(SymbolHistogram(16, true), memcomp::invalid_argument);
  SymbolHistogram a(8), other(16);
  EXPECT_THROW(a.merge(other), memcomp::invalid_argument);
}

TEST(SymbolHistogram, ThreadsAndMergeAreExact) {
  std::mt19937 rng(3);
  std::vector<std::uint8_t> data(1 << 20);
  for (auto& x : data) x = static_cast<std::uint8_t>(rng() % 7 == 0 ? rng() : 0);
  for (unsigned sl : {4u, 8u, 16u, 32u}) {
    SymbolHistogram one(sl), two(sl), half(sl), rest(sl);
    one.add({data.data(), data.size() / 64, 64}, 1);
    two.add({data.data(), data.size() / 64, 64}, 2);
    half.add({data.data(), data.size() / 128, 64}, 1);
    rest.add({data.data() + data.size() / 2, data.size() / 128, 64}, 1);
    half.merge(rest);
    EXPECT_EQ(one.dense(), two.dense()) << sl;
    EXPECT_EQ(one.dense(), half.dense()) << sl;
    EXPECT_EQ(one.table().items(), two.table().items()) << sl;
    EXPECT_EQ(one.table().items(), half.table().items()) << sl;
  }
}

TEST(BlockEntropy, PerBlock) {
  std::vector<std::uint8_t> b(64, 0);
  for (std::size_t i = 32; i < 64; ++i) b[i] = static_cast<std::uint8_t>(i);  // block 1: 32 distinct bytes
  double h[2];
  block_entropy({b.data(), 2, 32}, 8, Endian::little, h, 1);
  EXPECT_EQ(h[0], 0.0);
  EXPECT_NEAR(h[1], 5.0, 1e-12);
}

TEST(BlockEntropy, NibblesAndBytesInOnePassEqualEachOnItsOwn) {
  // block_entropy_4_8 gives block_entropy's values at SL 4 and 8, bit for bit, at every block
  // size: uniform, two-valued, skewed and random blocks.
  std::mt19937 rng(5);
  for (std::size_t bb : {16u, 32u, 64u, 128u, 256u}) {
    const std::size_t n = 300;
    std::vector<std::uint8_t> b(n * bb);
    for (std::size_t i = 0; i < b.size(); ++i) {
      const std::size_t blk = i / bb;
      const auto r = static_cast<std::uint8_t>(rng());
      b[i] = blk % 4 == 0   ? 0
             : blk % 4 == 1 ? static_cast<std::uint8_t>(r & 0x11)
             : blk % 4 == 2 ? static_cast<std::uint8_t>(r % 5)
                            : r;
    }
    const BlockView v{b.data(), n, bb};
    std::vector<double> want4(n), want8(n), got4(n), got8(n);
    block_entropy(v, 4, Endian::little, want4.data(), 1);
    block_entropy(v, 8, Endian::little, want8.data(), 1);
    block_entropy_4_8(v, got4.data(), got8.data(), 2);
    EXPECT_TRUE(got4 == want4) << bb;
    EXPECT_TRUE(got8 == want8) << bb;
  }
}

TEST(SpaceSaving, ExactBelowCapacityAndBoundedAbove) {
  SpaceSaving32 s(4);
  for (std::uint32_t v : {7u, 7u, 7u, 1u, 2u, 7u, 3u}) s.add(v);
  auto e = s.entries();
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].value, 7u);
  EXPECT_EQ(e[0].count, 4u);
  EXPECT_EQ(e[0].error, 0u);
  s.add(9);  // evicts the smallest counter (count 1, largest value first: 3)
  e = s.entries();
  bool has9 = false;
  for (const auto& x : e) {
    if (x.value == 9) {
      has9 = true;
      EXPECT_EQ(x.count, 2u);
      EXPECT_EQ(x.error, 1u);
    }
    EXPECT_NE(x.value, 3u);
  }
  EXPECT_TRUE(has9);
  EXPECT_EQ(s.total(), 8u);
  const auto r = SpaceSaving32::restore(4, s.total(), s.entries());
  EXPECT_EQ(r.entries().size(), 4u);
  EXPECT_THROW(SpaceSaving32(0), memcomp::invalid_argument);
  EXPECT_THROW(SpaceSaving32::restore(1, 0, e), memcomp::invalid_argument);
}
