// Report policies (SPEC 0.6) and worked examples W2, W3, W16.
#include <gtest/gtest.h>

#include "memcomp/core/error.hpp"
#include "memcomp/stats/policy.hpp"

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
