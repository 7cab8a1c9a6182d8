// SLC (P4; SPEC 1.11, W13): the golden blocks of tests/golden/slc.json (W13, issue 33's
// prediction block, the budget rules, TSLC-OPT's extra nodes), the approximable mask, and decode
// of a lossy block, on the C++ core directly.
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

// A one-table SL-16 E2MC model coding values[i] with lengths[i] bits.
std::string model_of(const std::vector<int>& values, const std::vector<int>& lengths, int esc_len) {
  std::string syms, lens;
  for (std::size_t i = 0; i < values.size(); ++i) {
    syms += (i ? "," : "") + std::to_string(values[i]);
    lens += (i ? "," : "") + std::to_string(lengths[i]);
  }
  return R"({"format":"memcomp.model/1","codec":"e2mc","sl":16,"positions":1,"max_len":20,"tables":[{"symbols":[)" +
         syms + R"(],"lengths":[)" + lens + R"(],"esc_len":)" + std::to_string(esc_len) + "}]}";
}

std::vector<std::uint8_t> block_of(const std::vector<std::pair<int, int>>& runs) {  // (value, count)
  std::vector<std::uint8_t> b;
  for (const auto& [v, k] : runs)
    for (int i = 0; i < k; ++i) {
      b.push_back(static_cast<std::uint8_t>(v & 0xFF));
      b.push_back(static_cast<std::uint8_t>(v >> 8));
    }
  return b;
}

struct Lossy {
  SizeBreakdown size;
  unsigned ss = 0, len = 0;
  std::vector<std::uint8_t> out;
};
Lossy run(const Options& o, const std::vector<std::uint8_t>& blk) {
  const auto c = make_codec("slc", o);
  Lossy r;
  r.size = c->measure(blk.data(), 128);
  const EncodedBlocks e = c->encode_batch({blk.data(), 1, 128}, 1);
  EXPECT_EQ(e.bit_lengths[0], r.size.inband());
  const auto h = load<std::uint16_t>(e.data.data(), Endian::big);
  if (r.size.mode == 2) r.ss = (h >> 9) & 0x3F, r.len = ((h >> 5) & 0xF) + 1;
  r.out.resize(128);
  c->decode_batch({e.data.data(), e.data.size(), e.bit_offsets.data(), e.bit_lengths.data(), e.tags.data(), 1, 128},
                  r.out.data(), 1);
  return r;
}

// Issue 33: the truncated run [1, 2) starts inside word 0 (golden "prediction").
TEST(SLC, PredictionNeverCopiesATruncatedSymbol) {
  const std::string m = model_of({0x1111, 0x2222, 0x3333}, {8, 12, 11}, 2);
  const auto blk = block_of({{0x1111, 1}, {0xBEEF, 1}, {0x2222, 36}, {0x3333, 26}});
  for (const char* how : {"symbol", "word"}) {
    const Lossy r = run({{"variant", std::string("pred")},
                         {"budget", std::string("stream")},
                         {"predict", std::string(how)},
                         {"model", m}},
                        blk);
    ASSERT_EQ(r.size.mode, 2);
    EXPECT_EQ(r.size.inband(), 760u);
    EXPECT_EQ(r.ss, 1u);
    EXPECT_EQ(r.len, 1u);
    // "symbol": P4's first non-truncated symbol, symbol 0; "word": word 1 (symbols 2, 3), symbol 3
    EXPECT_EQ(load<std::uint16_t>(r.out.data() + 2, Endian::little), std::string(how) == "word" ? 0x2222 : 0x1111);
  }
}

// Golden "prediction" and "budget_codes_w13_mag16": what each budget rule decides.
TEST(SLC, BudgetRules) {
  const std::string m = model_of({0x1111, 0x2222, 0x3333}, {8, 12, 11}, 2);
  const auto blk = block_of({{0x1111, 1}, {0xBEEF, 1}, {0x2222, 36}, {0x3333, 26}});
  for (const char* b : {"gain", "codes"}) {  // no burst to save against E2MC's 768 bits / 744 code bits
    const SizeBreakdown s = make_codec("slc", {{"budget", std::string(b)}, {"model", m}})->measure(blk.data(), 128);
    EXPECT_EQ(s.mode, 0) << b;
    EXPECT_EQ(s.inband(), 1024u) << b;
  }
  EXPECT_EQ(make_codec("slc", {{"model", m}})->options().at("budget"), OptionValue(std::string("gain")));
  const Lossy r = run({{"variant", std::string("pred")},
                       {"budget", std::string("codes")},
                       {"mag", std::int64_t{16}},
                       {"model", w13_model()}},
                      w13_block());
  EXPECT_EQ(r.size.mode, 2);
  EXPECT_EQ(r.size.inband(), 784u);  // above the 768-bit budget: charged what it takes
  EXPECT_EQ(r.ss, 0u);
  EXPECT_EQ(r.len, 4u);
  // At MAG 32 the same 784-bit lossy stream breaks E2MC's raw rule (> 768): lossless, 832 bits: raw
  const SizeBreakdown s =
      make_codec("slc", {{"variant", std::string("pred")}, {"budget", std::string("codes")}, {"model", w13_model()}})
          ->measure(w13_block().data(), 128);
  EXPECT_EQ(s.mode, 0);
  EXPECT_EQ(s.inband(), 1024u);
  EXPECT_THROW(make_codec("slc", {{"budget", std::string("bits")}}), invalid_argument);
}

// Golden "opt_nodes": TSLC-OPT's span-6 nodes start at 8q, its span-12 nodes at 16q (SPEC 1.11).
TEST(SLC, OptExtraNodesStartAt8qAnd16q) {
  const std::string m6 = model_of({0x0A0A, 0x0C0C, 0x0D0D}, {16, 8, 13}, 1);
  const auto b6 = block_of({{0x0C0C, 8}, {0x0A0A, 8}, {0x0D0D, 48}});
  const std::string m12 = model_of({0x0A0A, 0x0C0C, 0x0D0D}, {14, 8, 16}, 1);
  const auto b12 = block_of({{0x0C0C, 16}, {0x0A0A, 12}, {0x0D0D, 36}});
  struct Case {
    const std::string& model;
    const std::vector<std::uint8_t>& blk;
    std::int64_t threshold;
    const char* variant;
    unsigned ss, len, bits;
  };
  for (const Case& c : {Case{m6, b6, 16, "opt", 8, 6, 752}, Case{m6, b6, 16, "pred", 8, 8, 720},
                        Case{m12, b12, 32, "opt", 16, 12, 736}, Case{m12, b12, 32, "pred", 16, 16, 672}}) {
    const Lossy r =
        run({{"variant", std::string(c.variant)}, {"threshold_bytes", c.threshold}, {"model", c.model}}, c.blk);
    EXPECT_EQ(r.size.mode, 2) << c.variant << c.ss;
    EXPECT_EQ(r.ss, c.ss) << c.variant;
    EXPECT_EQ(r.len, c.len) << c.variant;
    EXPECT_EQ(r.size.inband(), c.bits) << c.variant;
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
