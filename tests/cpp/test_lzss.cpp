// Block-local LZSS (SPEC 1.13): hand-worked token streams (overlap, ties, the 18-byte split,
// literal-only blocks, word tokens), a naive greedy reference on many small blocks, corrupt streams.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "memcomp/codecs/registry.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

using test::encode_one;
using test::Stream;

struct Token {
  bool match;
  std::uint32_t value;  // literal unit, or distance
  std::uint32_t length;
  bool operator==(const Token& o) const { return match == o.match && value == o.value && length == o.length; }
};
Token lit(std::uint32_t v) { return {false, v, 0}; }
Token mt(std::uint32_t d, std::uint32_t len) { return {true, d, len}; }

std::ostream& operator<<(std::ostream& os, const Token& t) {
  return t.match ? os << "match(" << t.value << "," << t.length << ")" : os << "lit(" << t.value << ")";
}

std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

/// Reads tokens back with an independent parser: units of `unit` bytes, D-bit distances.
std::vector<Token> parse(const Stream& s, std::size_t n_units, unsigned unit = 1, unsigned length_bits = 4,
                         unsigned min_match = 3) {
  unsigned d_bits = 0;
  while ((std::size_t{1} << d_bits) < n_units) ++d_bits;
  BitReader r(s.buf.data(), s.bits);
  std::vector<Token> out;
  std::size_t covered = 0;
  while (covered < n_units) {
    if (r.read(1) == 0) {
      out.push_back(lit(static_cast<std::uint32_t>(r.read(8 * unit))));
      ++covered;
    } else {
      const auto d = static_cast<std::uint32_t>(r.read(d_bits)) + 1;
      const auto len = static_cast<std::uint32_t>(r.read(length_bits)) + min_match;
      out.push_back(mt(d, len));
      covered += len;
    }
  }
  EXPECT_EQ(r.remaining(), 0u);
  return out;
}

void expect_round_trip(const Codec& c, const std::vector<std::uint8_t>& blk) {
  const Stream s = encode_one(c, blk);
  EXPECT_EQ(s.bits, c.measure(blk.data(), blk.size()).inband());
  std::vector<std::uint8_t> out(blk.size(), 0xA5);
  BitReader r(s.buf.data(), s.bits);
  c.decode(r, 0, out.data(), blk.size());
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(out, blk);
}

/// Naive greedy parse (every distance, longest first, nearest on ties) in units of `unit` bytes.
std::vector<Token> naive(const std::vector<std::uint8_t>& b, unsigned unit = 1, unsigned min_match = 3,
                         unsigned length_bits = 4) {
  const std::size_t n = b.size() / unit;
  const std::size_t max_len = min_match + (std::size_t{1} << length_bits) - 1;
  auto same = [&](std::size_t x, std::size_t y) {
    for (unsigned k = 0; k < unit; ++k)
      if (b[unit * x + k] != b[unit * y + k]) return false;
    return true;
  };
  std::vector<Token> out;
  for (std::size_t i = 0; i < n;) {
    std::size_t best = 0, dist = 0;
    for (std::size_t d = 1; d <= i; ++d) {
      std::size_t len = 0;
      while (len < max_len && i + len < n && same(i + len - d, i + len)) ++len;
      if (len > best) {
        best = len;
        dist = d;
      }
    }
    if (best >= min_match) {
      out.push_back(mt(static_cast<std::uint32_t>(dist), static_cast<std::uint32_t>(best)));
      i += best;
    } else {
      out.push_back(lit(unit == 1 ? b[i] : load<std::uint32_t>(b.data() + 4 * i, Endian::little)));
      ++i;
    }
  }
  return out;
}

TEST(LZSS, OverlappingMatch) {
  const auto c = make_codec("lzss");
  std::string s;
  for (int k = 0; k < 16; ++k) s += "ab";
  const auto blk = bytes(s);
  EXPECT_EQ(parse(encode_one(*c, blk), 32), (std::vector<Token>{lit('a'), lit('b'), mt(2, 18), mt(2, 12)}));
  const SizeBreakdown sz = c->measure(blk.data(), 32);
  EXPECT_EQ(sz.payload, 2u * 8u + 2u * (5u + 4u));
  EXPECT_EQ(sz.meta, 4u);
  EXPECT_EQ(sz.inband(), 38u);
  // exact bits: 0 01100001 | 0 01100010 | 1 00001 1111 | 1 00001 1001
  const Stream st = encode_one(*c, blk);
  EXPECT_EQ(st.bits, 38u);
  EXPECT_EQ(st.buf[0], 0x30);  // 0 0110000
  EXPECT_EQ(st.buf[1], 0x98);  // 1 0 011000
  EXPECT_EQ(st.buf[2], 0xA1);  // 10 1 00001
  EXPECT_EQ(st.buf[3], 0xF8);  // 1111 1 000
  EXPECT_EQ(st.buf[4], 0x64);  // 01 1001 (+ padding)
  expect_round_trip(*c, blk);
}

TEST(LZSS, TieGoesToTheSmallestDistance) {
  const auto c = make_codec("lzss");
  // At byte 8, "abc" is 3 long at distance 4 ("abcX") and at distance 8 ("abcd").
  const auto blk = bytes("abcdabcXabcY1234");
  const auto t = parse(encode_one(*c, blk), 16);
  EXPECT_EQ(t, (std::vector<Token>{lit('a'), lit('b'), lit('c'), lit('d'), mt(4, 3), lit('X'), mt(4, 3), lit('Y'),
                                   lit('1'), lit('2'), lit('3'), lit('4')}));
  EXPECT_EQ(c->measure(blk.data(), 16).inband(), 10u * 9u + 2u * 9u);
  expect_round_trip(*c, blk);
}

TEST(LZSS, LongestMatchBeatsNearest) {
  const auto c = make_codec("lzss");
  // At byte 9, "abcd" is 4 long at distance 9, "abc" only 3 at distance 4.
  const auto blk = bytes("abcdXabcQabcdZZZ");
  EXPECT_EQ(parse(encode_one(*c, blk), 16),
            (std::vector<Token>{lit('a'), lit('b'), lit('c'), lit('d'), lit('X'), mt(5, 3), lit('Q'), mt(9, 4),
                                lit('Z'), lit('Z'), lit('Z')}));
  EXPECT_EQ(c->measure(blk.data(), 16).inband(), 99u);
}

TEST(LZSS, EighteenByteMaximumSplitsRuns) {
  const auto c = make_codec("lzss");
  const std::vector<std::uint8_t> z64(64, 0), z128(128, 0), z256(256, 0);
  EXPECT_EQ(parse(encode_one(*c, z64), 64), (std::vector<Token>{lit(0), mt(1, 18), mt(1, 18), mt(1, 18), mt(1, 9)}));
  EXPECT_EQ(c->measure(z64.data(), 64).inband(), 9u + 4u * 11u);
  // 127 = 7 x 18 + 1: the last byte cannot start a 3-byte match
  auto t = parse(encode_one(*c, z128), 128);
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t.back(), lit(0));
  EXPECT_EQ(c->measure(z128.data(), 128).inband(), 2u * 9u + 7u * 12u);  // SPEC: 12 bits per match at 128 B
  // 255 = 14 x 18 + 3
  t = parse(encode_one(*c, z256), 256);
  ASSERT_EQ(t.size(), 16u);
  EXPECT_EQ(t.back(), mt(1, 3));
  EXPECT_EQ(c->measure(z256.data(), 256).inband(), 9u + 15u * 13u);
  expect_round_trip(*c, z256);
}

TEST(LZSS, LiteralOnlyBlocksCostNineBitsPerByte) {
  const auto c = make_codec("lzss");
  std::mt19937 rng(3);
  for (std::size_t B : valid_block_sizes) {
    std::vector<std::uint8_t> distinct(B);
    for (std::size_t i = 0; i < B; ++i) distinct[i] = static_cast<std::uint8_t>(i);
    EXPECT_EQ(c->measure(distinct.data(), B).inband(), 9u * B);
    // random bytes without a repeated 3-byte string
    std::vector<std::uint8_t> r(B);
    for (bool repeats = true; repeats;) {
      for (auto& x : r) x = static_cast<std::uint8_t>(rng());
      repeats = false;
      for (std::size_t i = 0; i + 2 < B && !repeats; ++i)
        for (std::size_t j = 0; j < i && !repeats; ++j)
          repeats = r[i] == r[j] && r[i + 1] == r[j + 1] && r[i + 2] == r[j + 2];
    }
    const SizeBreakdown s = c->measure(r.data(), B);
    EXPECT_EQ(s.inband(), 9u * B) << B;
    EXPECT_EQ(s.meta, B);
    EXPECT_EQ(s.inband(), c->max_compressed_bits(B));
    expect_round_trip(*c, r);
  }
}

TEST(LZSS, WordTokens) {
  const auto c = make_codec("lzss", {{"token_bytes", std::int64_t{4}}});
  EXPECT_EQ(std::get<std::int64_t>(c->options().at("min_match")), 1);
  std::vector<std::uint8_t> blk(32);
  for (std::size_t i = 0; i < 8; ++i)
    store<std::uint32_t>(blk.data() + 4 * i, i % 2 ? 0x55667788u : 0x11223344u, Endian::little);
  EXPECT_EQ(parse(encode_one(*c, blk), 8, 4, 4, 1), (std::vector<Token>{lit(0x11223344), lit(0x55667788), mt(2, 6)}));
  EXPECT_EQ(c->measure(blk.data(), 32).inband(), 2u * 33u + 1u + 3u + 4u);  // distance field: log2(8) = 3 bits
  expect_round_trip(*c, blk);
  const std::vector<std::uint8_t> z256(256, 0);
  EXPECT_EQ(parse(encode_one(*c, z256), 64, 4, 4, 1),
            (std::vector<Token>{lit(0), mt(1, 16), mt(1, 16), mt(1, 16), mt(1, 15)}));
  // big-endian word literals: the same stream length, the word's memory bytes MSB first
  const auto be = make_codec("lzss", {{"token_bytes", std::int64_t{4}}, {"endian", std::string("big")}});
  EXPECT_EQ(parse(encode_one(*be, blk), 8, 4, 4, 1), (std::vector<Token>{lit(0x44332211), lit(0x88776655), mt(2, 6)}));
  expect_round_trip(*be, blk);
}

TEST(LZSS, OptionsChangeTheFields) {
  const std::vector<std::uint8_t> z32(32, 0);
  const auto c = make_codec("lzss", {{"length_bits", std::int64_t{2}}});  // lengths 3..6
  EXPECT_EQ(parse(encode_one(*c, z32), 32, 1, 2, 3),
            (std::vector<Token>{lit(0), mt(1, 6), mt(1, 6), mt(1, 6), mt(1, 6), mt(1, 6), lit(0)}));
  EXPECT_EQ(c->measure(z32.data(), 32).inband(), 2u * 9u + 5u * 8u);
  const auto m4 = make_codec("lzss", {{"min_match", std::int64_t{4}}});
  const auto blk = bytes("abcdabcXabcY1234");
  EXPECT_EQ(m4->measure(blk.data(), 16).inband(), 16u * 9u);
  EXPECT_THROW(make_codec("lzss", {{"token_bytes", std::int64_t{2}}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("lzss", {{"length_bits", std::int64_t{0}}}), memcomp::invalid_argument);
  EXPECT_EQ(make_codec("lzss")->preset(), "lzss.block");
  EXPECT_EQ(make_codec("lzss")->options().size(), 4u);
}

TEST(LZSS, MatchesANaiveGreedyParse) {
  std::mt19937_64 rng(11);
  struct Cfg {
    unsigned unit, mm, lb;
  };
  for (const Cfg cfg : {Cfg{1, 3, 4}, Cfg{1, 2, 3}, Cfg{1, 5, 2}, Cfg{4, 1, 4}, Cfg{4, 2, 2}}) {
    const auto c = make_codec("lzss", {{"token_bytes", std::int64_t{cfg.unit}},
                                       {"min_match", std::int64_t{cfg.mm}},
                                       {"length_bits", std::int64_t{cfg.lb}}});
    for (std::size_t B : valid_block_sizes) {
      for (int trial = 0; trial < 60; ++trial) {
        std::vector<std::uint8_t> blk(B);
        const unsigned alphabet = 1u + static_cast<unsigned>(trial % 4);  // 1..4 symbols: long matches, many ties
        for (auto& x : blk) x = static_cast<std::uint8_t>(rng() % alphabet);
        if (cfg.unit == 4)  // repeat whole words so word matches occur
          for (std::size_t i = 4; i < B; ++i) blk[i] = rng() % 2 ? blk[i - 4] : blk[i];
        const auto want = naive(blk, cfg.unit, cfg.mm, cfg.lb);
        const auto got = parse(encode_one(*c, blk), B / cfg.unit, cfg.unit, cfg.lb, cfg.mm);
        ASSERT_EQ(got, want) << "B=" << B << " unit=" << cfg.unit << " mm=" << cfg.mm;
        expect_round_trip(*c, blk);
      }
    }
  }
}

// ---- corrupt streams -----------------------------------------------------------------------------

void decode_bits(const std::string& bits, std::size_t B) {
  std::vector<std::uint8_t> buf(bits.size() / 8 + 1, 0);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i] == '1') buf[i / 8] = static_cast<std::uint8_t>(buf[i / 8] | (0x80u >> (i % 8)));
  std::vector<std::uint8_t> out(B);
  BitReader r(buf.data(), bits.size());
  make_codec("lzss")->decode(r, 0, out.data(), B);
}

TEST(LZSS, DecoderRejectsCorruptDistanceAndLength) {
  const std::string a = "0"
                        "01100001";
  EXPECT_THROW(decode_bits("1"
                           "0000"
                           "0000",
                           16),
               corrupt_stream);  // a match at byte 0
  EXPECT_THROW(decode_bits(a + "1"
                               "0001"
                               "1100",
                           16),
               corrupt_stream);  // distance 2 at byte 1
  EXPECT_THROW(decode_bits(a + "1"
                               "0000"
                               "1111",
                           16),
               corrupt_stream);  // 18 bytes from byte 1 of 16
  EXPECT_NO_THROW(decode_bits(a + "1"
                                  "0000"
                                  "1100",
                              16));  // exactly 15 more
  const std::string ok = a + "1"
                             "0000"
                             "1100";
  for (std::size_t cut = 0; cut < ok.size(); ++cut) EXPECT_THROW(decode_bits(ok.substr(0, cut), 16), corrupt_stream);
}

}  // namespace
