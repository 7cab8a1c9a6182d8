// Report policies (SPEC 0.6) and worked examples W2, W3, W16; size columns to report totals.
#include <gtest/gtest.h>

#include "memcomp/core/error.hpp"
#include "memcomp/stats/policy.hpp"
#include "memcomp/stats/size_totals.hpp"

using namespace memcomp;

TEST(Policy, ParseAndCanonicalSpelling) {
  EXPECT_EQ(Policy::parse("none").str(), "none");
  EXPECT_EQ(Policy::parse(" CAP + mag(32) ").str(), "cap+mag(32)");
  EXPECT_EQ(Policy::parse("mag(32,0)").str(), "mag(32,0)");
  EXPECT_EQ(Policy::parse("mag(32,1)").str(), "mag(32)");
  EXPECT_EQ(Policy::parse("threshold(0.5)").str(), "threshold(0.5)");
  EXPECT_EQ(Policy::parse("pow2").str(), "pow2(4)");
  EXPECT_EQ(Policy::parse("cap+bytes").str(), "cap+bytes");
  for (const char* bad : {"", "mag", "mag(0)", "mag(32,2)", "cap+cap", "bytes+cap", "segments(1.5)", "threshold(2)",
                          "frob", "mag(32", "bytes+mag(32)"})
    EXPECT_THROW(Policy::parse(bad), memcomp::invalid_argument) << bad;
}

TEST(Policy, W2RawAndMag) {
  const Policy mag = Policy::parse("mag(32)");
  EXPECT_EQ(mag.charge(65 * 8, 128), 96u * 8);
  EXPECT_EQ(Policy::parse("none").charge(65 * 8, 128), 520u);
}

TEST(Policy, W3MagBands) {
  const Policy mag = Policy::parse("mag(32)");
  const std::uint64_t in[] = {1, 32, 33, 64, 65, 96, 97, 128};
  const std::uint64_t want[] = {32, 32, 64, 64, 96, 96, 128, 128};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(mag.charge(in[i] * 8, 128), want[i] * 8) << in[i];
  EXPECT_EQ(mag.charge(0, 128), 256u);                       // u_min = 1: one burst at least
  EXPECT_EQ(Policy::parse("mag(32,0)").charge(0, 128), 0u);  // tag-only blocks cost 0
  EXPECT_EQ(mag.charge(2000, 128), 1024u);                   // never above the block
}

TEST(Policy, W16Pow2) {
  const Policy p = Policy::parse("pow2");
  EXPECT_EQ(pow2_factor(20 * 8, 64, 4), 4u);
  EXPECT_EQ(pow2_factor(24 * 8, 64, 4), 2u);
  EXPECT_EQ(pow2_factor(33 * 8, 64, 4), 1u);
  EXPECT_EQ(pow2_factor(65 * 8, 64, 4), 1u);
  EXPECT_EQ(pow2_factor(0, 64, 4), 4u);
  EXPECT_EQ(p.charge(20 * 8, 64), 128u);
  EXPECT_EQ(Policy::parse("pow2(8)").charge(8 * 8, 64), 64u);
}

TEST(Policy, FallbacksThenRounding) {
  EXPECT_EQ(Policy::parse("cap").charge(300, 32), 256u);
  EXPECT_EQ(Policy::parse("cap").charge(256, 32), 256u);
  EXPECT_EQ(Policy::parse("cap").charge(255, 32), 255u);
  EXPECT_EQ(Policy::parse("threshold(0.5)").charge(129, 32), 256u);
  EXPECT_EQ(Policy::parse("threshold(0.5)").charge(128, 32), 128u);
  EXPECT_EQ(Policy::parse("bytes").charge(9, 32), 16u);
  EXPECT_EQ(Policy::parse("segments(8)").charge(65, 32), 128u);
  EXPECT_EQ(Policy::parse("cap+bytes").charge(260, 32), 256u);
  EXPECT_EQ(Policy::parse("cap").extra_tag_bits(), 1u);
  EXPECT_EQ(Policy::parse("threshold(0.9)").extra_tag_bits(), 0u);
}

// Size columns to report totals (size_totals.hpp): a hand-counted example, thread counts agree.
TEST(SizeTotals, HistogramModesAndTagBits) {
  const std::vector<std::uint32_t> bits{3, 0, 3, 7}, payload{1, 2, 3, 4}, meta{10, 20, 30, 40}, header{0, 1, 0, 1},
      tag{2, 2, 2, 2};
  const std::vector<std::int16_t> mode{5, -3, 5, 300};
  for (int threads : {1, 2, 4}) {
    const SizeTotals s = size_totals(bits.data(), payload.data(), meta.data(), header.data(), tag.data(), mode.data(),
                                     bits.size(), 8, threads);
    EXPECT_EQ(s.hist, (std::vector<std::int64_t>{1, 0, 0, 2, 0, 0, 0, 1}));
    ASSERT_EQ(s.modes.size(), 3u);  // increasing mode order, one row each
    EXPECT_EQ(s.modes[0], (std::array<std::int64_t, 6>{-3, 1, 2, 20, 1, 2}));
    EXPECT_EQ(s.modes[1], (std::array<std::int64_t, 6>{5, 2, 4, 40, 0, 4}));
    EXPECT_EQ(s.modes[2], (std::array<std::int64_t, 6>{300, 1, 4, 40, 1, 2}));
    EXPECT_EQ(s.tag_bits, 8u);
  }
  EXPECT_THROW(
      size_totals(bits.data(), payload.data(), meta.data(), header.data(), tag.data(), mode.data(), bits.size(), 7, 1),
      memcomp::invalid_argument);
}

TEST(SizeTotals, OracleTiesGoToTheEarlierCodec) {
  const std::vector<std::uint32_t> a{4, 2, 9, 1}, b{4, 1, 3, 1}, c{5, 1, 2, 0};
  for (int threads : {1, 2}) {
    const OracleTotals o = oracle_totals({a.data(), b.data(), c.data()}, a.size(), 6, threads);
    EXPECT_EQ(o.hist, (std::vector<std::int64_t>{1, 1, 1, 0, 1, 0}));
    EXPECT_EQ(o.wins, (std::vector<std::int64_t>{1, 1, 2}));  // block 0: a (tie with b); 1: b (tie with c)
  }
  EXPECT_THROW(oracle_totals({a.data()}, a.size(), 9, 1), memcomp::invalid_argument);
  EXPECT_EQ(oracle_totals({}, 0, 3, 1).hist, (std::vector<std::int64_t>{0, 0, 0}));
}
