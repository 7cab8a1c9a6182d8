// FVC (SPEC 1.7) and the mergeable 32-bit value counts it is fitted from.
#include <gtest/gtest.h>

#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/json.hpp"
#include "memcomp/stats/symbol_counts.hpp"

using namespace memcomp;

namespace {

std::vector<std::uint8_t> words(const std::vector<std::uint32_t>& ws) {
  std::vector<std::uint8_t> b(4 * ws.size());
  for (std::size_t i = 0; i < ws.size(); ++i) store<std::uint32_t>(b.data() + 4 * i, ws[i], Endian::little);
  return b;
}

TEST(ValueCounts32, CountsMergeAndTopWithTies) {
  ValueCounts32 a, b;
  for (std::uint32_t v : {5u, 5u, 9u, 1u, 9u, 7u}) a.add(v);
  b.add(7, 1);
  b.add(0xFFFFFFFFu, 2);
  a.merge(b);
  EXPECT_EQ(a.total(), 9u);
  EXPECT_EQ(a.distinct(), 5u);
  EXPECT_EQ(a.count(7), 2u);
  EXPECT_EQ(a.count(42), 0u);
  // counts: 5:2, 7:2, 9:2, 0xFFFFFFFF:2, 1:1 -> ties go to the smaller value
  const auto top = a.top(3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0], (ValueCounts32::Item{5, 2}));
  EXPECT_EQ(top[1], (ValueCounts32::Item{7, 2}));
  EXPECT_EQ(top[2], (ValueCounts32::Item{9, 2}));
  EXPECT_EQ(a.top(100).size(), 5u);
  EXPECT_EQ(a.items().front(), (ValueCounts32::Item{1, 1}));
}

TEST(ValueCounts32, ManyDistinctValuesAndThreads) {
  std::vector<std::uint32_t> ws;
  for (std::uint32_t i = 0; i < 100000; ++i) ws.push_back(i % 3000 * 2654435761u);
  const auto d = words(ws);
  ValueCounts32 one, two;
  one.add_words({d.data(), d.size() / 32, 32}, Endian::little, 1);
  two.add_words({d.data(), d.size() / 32, 32}, Endian::little, 2);
  EXPECT_EQ(one.distinct(), 3000u);
  EXPECT_EQ(one.items(), two.items());
  EXPECT_EQ(one.count(0), 34u);  // i = 0, 3000, ..., 99000
}

TEST(FVC, FitOrdersByCountThenValueAndCodesWords) {
  // 0 x6, 7 x4, 3 x4, 0xDEADBEEF x2: K = 2 keeps 0 and 3 (ties to the smaller value).
  const auto d = words({0, 0, 0, 0, 0, 0, 7, 7, 7, 7, 3, 3, 3, 3, 0xDEADBEEF, 0xDEADBEEF});
  const auto base = make_codec("fvc", {{"entries", std::int64_t{2}}});
  EXPECT_EQ(base->options().at("code_bits"), OptionValue{std::int64_t{2}});
  const std::string model = base->fit({d.data(), 1, 64}, 1);
  const Json m = Json::parse(model);
  EXPECT_EQ(m["values"].dump(), "[0,3]");
  EXPECT_EQ(m["codec"].as_string(), "fvc");
  const auto c = make_codec("fvc", {{"entries", std::int64_t{2}}, {"model", model}});
  const SizeBreakdown s = c->measure(d.data(), 64);
  EXPECT_EQ(s.meta, 16u * 2u);     // a 2-bit code per word
  EXPECT_EQ(s.payload, 6u * 32u);  // six escaped literals (7 x4, 0xDEADBEEF x2)
  std::vector<std::uint8_t> buf(64);
  BitWriter w(buf.data(), s.inband());
  c->encode(d.data(), 64, w);
  w.finish();
  BitReader r(buf.data(), s.inband());
  EXPECT_EQ(r.read(2), 0u);  // word 0 -> index 0
  for (int i = 0; i < 5; ++i) r.read(2);
  EXPECT_EQ(r.read(2), 2u);   // word 6 = 7 -> escape (code K = 2)
  EXPECT_EQ(r.read(32), 7u);  // then the literal
}

TEST(FVC, ModelValidation) {
  const std::string ok = R"({"format":"memcomp.model/1","codec":"fvc","values":[1,2]})";
  EXPECT_NO_THROW(make_codec("fvc", {{"model", ok}}));
  for (const char* bad :
       {R"({"format":"memcomp.model/2","codec":"fvc","values":[]})",
        R"({"format":"memcomp.model/1","codec":"e2mc","values":[]})", R"({"format":"memcomp.model/1","codec":"fvc"})",
        R"({"format":"memcomp.model/1","codec":"fvc","values":[1,1]})",
        R"({"format":"memcomp.model/1","codec":"fvc","values":[-1]})",
        R"({"format":"memcomp.model/1","codec":"fvc","values":[4294967296]})",
        R"({"format":"memcomp.model/1","codec":"fvc","values":[1,2,3,4,5,6,7,8]})",
        R"({"format":"memcomp.model/1","codec":"fvc","values":[1.5]})", "[1,2]", "{"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(make_codec("fvc", {{"model", std::string(bad)}}), memcomp::invalid_argument);
  }
  EXPECT_THROW(make_codec("fvc", {{"entries", std::int64_t{8}}, {"code_bits", std::int64_t{2}}}),
               memcomp::invalid_argument);
}

TEST(FVC, DecodeRejectsCodesBeyondTheTable) {
  const auto c =
      make_codec("fvc", {{"model", std::string(R"({"format":"memcomp.model/1","codec":"fvc","values":[9]})")}});
  std::uint8_t buf[2] = {0b01000000, 0};  // code 2: neither the one entry (0) nor the escape (7)
  std::uint8_t out[16];
  BitReader r(buf, 12);
  EXPECT_THROW(c->decode(r, 0, out, 16), corrupt_stream);
}

}  // namespace
