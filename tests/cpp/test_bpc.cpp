// BPC (SPEC 1.5, W11): sizes, the stream fields of every symbol, base-code boundaries, the
// skku and liu presets, and decoder rejections. Golden vectors: tests/golden/bpc.json.
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
using test::field;
using test::stream_bits;

/// B-byte block of little-endian words; missing words repeat the last one (zero deltas).
std::vector<std::uint8_t> words(std::vector<std::uint32_t> ws, std::size_t B) {
  std::vector<std::uint8_t> b(B, 0);
  for (std::size_t i = 0; i < B / 4; ++i)
    store<std::uint32_t>(b.data() + 4 * i, i < ws.size() ? ws[i] : ws.back(), Endian::little);
  return b;
}

std::vector<std::uint32_t> iota(std::uint32_t n, std::uint32_t step = 1) {
  std::vector<std::uint32_t> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = step * i;
  return v;
}

std::string run(unsigned n) { return n == 1 ? "001" : "01" + field(n - 2, 5); }

/// Bit string -> bytes, zero padded.
std::vector<std::uint8_t> pack(const std::string& bits) {
  std::vector<std::uint8_t> out((bits.size() + 7) / 8 + 8, 0);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i] == '1') out[i / 8] = static_cast<std::uint8_t>(unsigned{out[i / 8]} | (0x80u >> (i % 8)));
  return out;
}

/// Decodes a hand-written stream of one B-byte block with decode_batch.

struct Want {
  std::uint32_t payload, meta, header;
  std::int16_t mode;
};
void expect_size(const Codec& c, const std::vector<std::uint8_t>& blk, Want w) {
  const SizeBreakdown s = c.measure(blk.data(), blk.size());
  EXPECT_EQ(s.payload, w.payload);
  EXPECT_EQ(s.meta, w.meta);
  EXPECT_EQ(s.header, w.header);
  EXPECT_EQ(s.tag, 0u);
  EXPECT_EQ(s.mode, w.mode);
}

// ---- W11 -----------------------------------------------------------------------------------

TEST(BPC, W11) {
  const auto c = make_codec("bpc");
  EXPECT_EQ(c->preset(), "bpc.isca16");
  EXPECT_TRUE(c->exact());
  const auto zeros = words({0}, 128), ramp = words(iota(32), 128), ones = words({0x3F800000u}, 128);
  EXPECT_EQ(c->measure(zeros.data(), 128).inband(), 10u);  // 000 + run of 33
  EXPECT_EQ(c->measure(ramp.data(), 128).inband(), 15u);   // 000 + run of 32 + all ones
  EXPECT_EQ(c->measure(ones.data(), 128).inband(), 40u);   // 1 + 32 + run of 33
  const auto z32 = words({0}, 32), r32 = words(iota(8), 32);
  EXPECT_EQ(c->measure(z32.data(), 32).inband(), 10u);
  EXPECT_EQ(c->measure(r32.data(), 32).inband(), 15u);
  expect_size(*c, ramp, {5, 10, 0, 0});
  expect_size(*c, ones, {37, 3, 0, 0});
  EXPECT_EQ(stream_bits(*c, zeros), "000" + run(33));
  EXPECT_EQ(stream_bits(*c, ramp), "000" + run(32) + "00000");
  EXPECT_EQ(stream_bits(*c, ones), "1" + field(0x3F800000u, 32) + run(33));
  EXPECT_EQ(stream_bits(*c, r32), "000" + run(32) + "00000");
}

// ---- stream fields of every symbol (128 B: m = 31, 5-bit positions, raw 1 + 31) ------------

TEST(BPC, SymbolAllOnesAndDbpZero) {
  // deltas all 2: DBP[1] all ones, DBP[0] = 0: DBX[1] all ones (00000); DBX[0] is all ones too
  // but DBP[0] = 0 comes first in Kim's order (00001).
  const auto c = make_codec("bpc.isca16");
  const auto b = words(iota(32, 2), 128);
  const std::string s = stream_bits(*c, b);
  const auto bytes = pack(s);
  BitReader r(bytes.data(), s.size());
  EXPECT_EQ(r.read(3), 0u);     // base 000
  EXPECT_EQ(r.read(2), 0b01u);  // run of 31 (planes 32..2)
  EXPECT_EQ(r.read(5), 29u);
  EXPECT_EQ(r.read(5), 0b00000u);  // DBX[1] all ones
  EXPECT_EQ(r.read(5), 0b00001u);  // DBX[0]: DBP zero
  EXPECT_EQ(r.remaining(), 0u);
  expect_size(*c, b, {5, 15, 0, 0});
}

TEST(BPC, SymbolSingleOneAndPair) {
  const auto c = make_codec("bpc.isca16");
  // d_5 = 1: a single one at position 4 of DBX[0].
  auto b = words({0, 0, 0, 0, 0, 1}, 128);
  EXPECT_EQ(stream_bits(*c, b), "000" + run(32) + "00011" + "00100");
  expect_size(*c, b, {10, 10, 0, 0});
  // d_3 = d_4 = 1: two adjacent ones at positions 2 and 3 (the lower index is written).
  b = words({0, 0, 0, 1, 2}, 128);
  EXPECT_EQ(stream_bits(*c, b), "000" + run(32) + "00010" + "00010");
  // the highest position of a 31-bit plane: d_31 = 1 -> position 30.
  std::vector<std::uint32_t> w(32, 0);
  w[31] = 1;
  b = words(w, 128);
  EXPECT_EQ(stream_bits(*c, b), "000" + run(32) + "00011" + field(30, 5));
  // two ones that are not adjacent: raw
  b = words({0, 1, 1, 2}, 128);
  EXPECT_EQ(stream_bits(*c, b), "000" + run(32) + "1" + field(0b101, 31));
}

TEST(BPC, SymbolRawPlaneBitOrder) {
  // DBX[0] = 10101b: raw, 1 + 31 bits with bit 30 first.
  const auto c = make_codec("bpc.isca16");
  const auto b = words({0, 1, 1, 2, 2, 3}, 128);
  const std::string s = stream_bits(*c, b);
  EXPECT_EQ(s, "000" + run(32) + "1" + std::string(26, '0') + "10101");
  expect_size(*c, b, {36, 6, 0, 0});
}

TEST(BPC, SymbolSingleZeroPlaneAndRuns) {
  const auto c = make_codec("bpc.isca16");
  // d_1 = 6: DBX[2] single one, DBX[1] = 0 (one zero plane: 001), DBX[0] DBP zero.
  auto b = words({0, 6}, 128);
  EXPECT_EQ(stream_bits(*c, b), "000" + run(30) + "00011" + "00000" + "001" + "00001");
  expect_size(*c, b, {10, 18, 0, 0});
  // d_1 = 1 << 16: DBX[16] single one, DBX[15] DBP zero, then a run of 15 flushed at the end.
  b = words({0, 1u << 16}, 128);
  EXPECT_EQ(stream_bits(*c, b), "000" + run(16) + "00011" + "00000" + "00001" + run(15));
  // d_1 = -1: the sign plane alone is non-zero (DBX[32]), then a run of 32.
  b = words({0, 0xFFFFFFFFu}, 128);
  EXPECT_EQ(stream_bits(*c, b), "000" + std::string("00011") + "00000" + run(32));
}

TEST(BPC, DeltasAreExact33BitValues) {
  // 0x7FFFFFFF -> 0x80000000: signed delta -(2^32 - 1), bits 0 and 32 set.
  const auto c = make_codec("bpc.isca16");
  const auto b = words({0x7FFFFFFFu, 0x80000000u}, 128);
  EXPECT_EQ(stream_bits(*c, b),
            "1" + field(0x7FFFFFFFu, 32) + "00011" + "00000" + "00001" + run(30) + "00011" + "00000");
  expect_size(*c, b, {47, 18, 0, 0});
}

TEST(BPC, CodeMapKimPermutesTheFiveBitCodes) {
  const auto ebpc = make_codec("bpc.isca16"), kim = make_codec("bpc.isca16", {{"code_map", std::string("kim")}});
  EXPECT_EQ(stream_bits(*kim, words(iota(32), 128)), "000" + run(32) + "00011");                      // all ones
  EXPECT_EQ(stream_bits(*kim, words({0, 0, 0, 0, 0, 1}, 128)), "000" + run(32) + "00000" + "00100");  // single
  EXPECT_EQ(stream_bits(*kim, words({0, 0, 0, 1, 2}, 128)), "000" + run(32) + "00001" + "00010");     // pair
  EXPECT_EQ(stream_bits(*kim, words({0, 2}, 128)), "000" + run(31) + "00000" + "00000" + "00010");    // DBP zero
  for (std::size_t B : {std::size_t{16}, std::size_t{64}, std::size_t{256}}) {  // lengths are the same
    const auto data = test::adversarial_blocks(B, 40);
    for (std::size_t i = 0; i < data.size(); i += B)
      EXPECT_EQ(ebpc->measure(data.data() + i, B).inband(), kim->measure(data.data() + i, B).inband());
  }
}

TEST(BPC, SmallBlocksUseTheFirstApplicableRow) {
  // 16 B (m = 3, 2-bit positions): a single one costs 5 + 2 bits although a raw plane is 1 + 3.
  const auto c = make_codec("bpc.isca16");
  const auto b = words({0, 1}, 16);
  EXPECT_EQ(stream_bits(*c, b), "000" + run(32) + "00011" + "00");
  EXPECT_EQ(c->max_compressed_bits(16), 33u + 33u * 7u);
  EXPECT_EQ(c->max_compressed_bits(128), 33u + 33u * 32u);
}

// ---- base word ----------------------------------------------------------------------------

TEST(BPC, BaseCodeBoundaries) {
  const auto c = make_codec("bpc.isca16");
  struct Case {
    std::int32_t v;
    const char* code;
    unsigned n;
  };
  for (const Case& k : {Case{0, "000", 0}, Case{7, "001", 4}, Case{-8, "001", 4}, Case{8, "010", 8}, Case{-9, "010", 8},
                        Case{127, "010", 8}, Case{-128, "010", 8}, Case{128, "011", 16}, Case{-129, "011", 16},
                        Case{32767, "011", 16}, Case{-32768, "011", 16}, Case{32768, "1", 32}, Case{-32769, "1", 32}}) {
    SCOPED_TRACE(k.v);
    const auto b = words({static_cast<std::uint32_t>(k.v)}, 16);  // equal words: zero deltas
    const auto code_bits = static_cast<std::uint32_t>(std::string(k.code).size());
    expect_size(*c, b, {k.n + 5, code_bits + 2, 0, 0});
    EXPECT_EQ(stream_bits(*c, b), std::string(k.code) + field(static_cast<std::uint32_t>(k.v), k.n) + run(33));
    EXPECT_EQ(decode_bits(*c, stream_bits(*c, b), 16), b);
  }
}

TEST(BPC, SkkuChargesEveryBaseSevenBits) {
  const auto skku = make_codec("bpc.skku"), isca = make_codec("bpc.isca16");
  EXPECT_FALSE(skku->exact());
  EXPECT_EQ(skku->options().at("base"), OptionValue(std::string("fixed7")));
  const auto zeros = words({0}, 128), ones = words({0x3F800000u}, 128);
  expect_size(*skku, zeros, {9, 5, 0, 0});  // 3 + 4 instead of 3
  expect_size(*skku, ones, {9, 5, 0, 0});   // 3 + 4 instead of 1 + 32
  // everything but the base is isca16's
  const auto data = test::adversarial_blocks(32, 40);
  for (std::size_t i = 0; i < data.size(); i += 32) {
    const SizeBreakdown a = skku->measure(data.data() + i, 32), b = isca->measure(data.data() + i, 32);
    const auto w0 = static_cast<std::int32_t>(load<std::uint32_t>(data.data() + i, Endian::little));
    const std::uint32_t base = w0 == 0               ? 3
                               : fits_signed(w0, 4)  ? 7
                               : fits_signed(w0, 8)  ? 11
                               : fits_signed(w0, 16) ? 19
                                                     : 33;
    EXPECT_EQ(a.inband() + base, b.inband() + 7);
  }
  std::vector<std::uint8_t> buf(64);
  BitWriter w(buf.data(), 512);
  EXPECT_THROW(skku->encode(zeros.data(), 128, w), memcomp::invalid_argument);
}

// ---- liu ----------------------------------------------------------------------------------

TEST(BPC, LiuFlagChoosesTheSmallerCandidate) {
  const auto c = make_codec("bpc.liu");
  EXPECT_TRUE(c->exact());
  ASSERT_EQ(c->modes().size(), 2u);
  EXPECT_EQ(c->modes()[1].name, "rows");
  // every halfword 0x1234 (64 B): delta 1 + 33 + 7 = 41, rows 1 + 17 + 7 = 25 -> flag 1
  auto b = words({0x12341234u}, 64);
  expect_size(*c, b, {21, 3, 1, 1});
  EXPECT_EQ(stream_bits(*c, b), "1" + std::string("1") + field(0x1234, 16) + run(31));
  // zeros: rows (no base) 1 + 7 beats delta 1 + 3 + 7
  b = words({0}, 64);
  expect_size(*c, b, {5, 2, 1, 1});
  // a tie (41 = 41) goes to delta
  b = words({0x3F800000u}, 128);
  expect_size(*c, b, {37, 3, 1, 0});
  EXPECT_EQ(stream_bits(*c, b), "0" + std::string("1") + field(0x3F800000u, 32) + run(32));
  // 32-bit deltas: 0x7FFFFFFF -> 0x80000000 is +1 (32 planes, no sign plane)
  b = words({0x7FFFFFFFu, 0x80000000u}, 128);
  EXPECT_EQ(stream_bits(*c, b), "0" + std::string("1") + field(0x7FFFFFFFu, 32) + run(31) + "00011" + "00000");
}

TEST(BPC, LiuDecodeRejectsTheCandidateTheEncoderDoesNotChoose) {
  const auto c = make_codec("bpc.liu");
  EXPECT_EQ(decode_bits(*c, "1" + run(32), 64), words({0}, 64));
  EXPECT_THROW(decode_bits(*c, "0" + std::string("000") + run(32), 64), corrupt_stream);  // rows is smaller
  // a tie belongs to delta: 32 x 0x3F800000 written as rows (raw row 31, run of 31) is rejected
  EXPECT_EQ(decode_bits(*c, "0" + std::string("1") + field(0x3F800000u, 32) + run(32), 128), words({0x3F800000u}, 128));
  EXPECT_THROW(decode_bits(*c, "1" + std::string("1") + field(0x3F800000u, 32) + run(31), 128), corrupt_stream);
}

TEST(BPC, LiuTestsSingleOneBeforeDbpZero) {
  // d_1 = 2 at 64 B: DBX[0] = 1 with DBP[0] = 0. isca16: DBP zero (5); liu: single one (5 + 4).
  const auto b = words({0, 2}, 64);
  EXPECT_EQ(stream_bits(*make_codec("bpc.isca16"), b), "000" + run(31) + "00011" + "0000" + "00001");
  EXPECT_EQ(stream_bits(*make_codec("bpc.liu"), b),
            "0" + std::string("000") + run(30) + "00011" + "0000" + "00011" + "0000");
}

TEST(BPC, LiuRowsAreLittleEndianHalfwordsAt64Bytes) {
  // rows mode codes halfword 31 first; at 64 B a row is bytes 62..63 read little-endian.
  std::vector<std::uint8_t> b(64, 0);
  b[62] = 0x01;  // row 31 = 0x0001: single one at 0; then row 30 = 0: DBX[30] = 1 with DBP 0
  const auto c = make_codec("bpc.liu");
  EXPECT_EQ(stream_bits(*c, b), "1" + std::string("00011") + "0000" + "00011" + "0000" + run(30));
  b[62] = 0;
  b[63] = 0x80;  // row 31 = 0x8000: single one at 15 (a 16-bit row has positions 0..15)
  EXPECT_EQ(stream_bits(*c, b), "1" + std::string("00011") + "1111" + "00011" + "1111" + run(30));
  const auto big = make_codec("bpc.liu", {{"endian", std::string("big")}});
  EXPECT_EQ(stream_bits(*big, b), "1" + std::string("00011") + "0111" + "00011" + "0111" + run(30));
}

TEST(BPC, OptionVariantsRoundTrip) {
  for (const Options& o : {Options{{"code_map", std::string("kim")}}, Options{{"endian", std::string("big")}},
                           Options{{"alt_mode", std::string("planes")}}, Options{{"alt_mode", std::string("rows")}},
                           Options{{"precedence", std::string("liu")}}, Options{{"delta_bits", std::int64_t{32}}}}) {
    const auto c = make_codec("bpc.isca16", o);
    for (std::size_t B : {std::size_t{16}, std::size_t{32}, std::size_t{64}, std::size_t{128}, std::size_t{256}}) {
      SCOPED_TRACE(B);
      const auto data = test::adversarial_blocks(B, 60);
      const std::size_t n = data.size() / B;
      const EncodedBlocks enc = c->encode_batch(BlockView{data.data(), n, B}, 1);
      std::vector<std::uint8_t> out(data.size());
      c->decode_batch(EncodedView{enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(),
                                  enc.tags.data(), n, B},
                      out.data(), 1);
      EXPECT_EQ(out, data);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(enc.bit_lengths[i], c->measure(data.data() + i * B, B).inband());
    }
  }
  EXPECT_THROW(make_codec("bpc", {{"delta_bits", std::int64_t{31}}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("bpc", {{"code_map", std::string("ours")}}), memcomp::invalid_argument);
}

// ---- decoder rejections -------------------------------------------------------------------

TEST(BPC, DecodeRejectsPositionsOutsideThePlane) {
  const auto c = make_codec("bpc.isca16");
  const std::string head = "000" + run(32);
  std::vector<std::uint32_t> w(32, 0);
  w[31] = 1;
  EXPECT_EQ(decode_bits(*c, head + "00011" + field(30, 5), 128), words(w, 128));      // the last valid position
  EXPECT_THROW(decode_bits(*c, head + "00011" + field(31, 5), 128), corrupt_stream);  // single one at m = 31
  EXPECT_THROW(decode_bits(*c, head + "00010" + field(30, 5), 128), corrupt_stream);  // pair needs bit 31
  EXPECT_NO_THROW(decode_bits(*c, head + "00010" + field(29, 5), 128));
  // 32 B: m = 7, positions 3 bits: 7 is outside
  EXPECT_THROW(decode_bits(*c, head + "00011" + field(7, 3), 32), corrupt_stream);
  // liu rows at 64 B: 16-bit rows take position 15, but not a pair at 15
  const auto liu = make_codec("bpc.liu");
  EXPECT_NO_THROW(decode_bits(*liu, "1" + std::string("00011") + "1111" + "00011" + "1111" + run(30), 64));
  EXPECT_THROW(decode_bits(*liu, "1" + std::string("00010") + "1111" + run(31), 64), corrupt_stream);
}

TEST(BPC, DecodeRejectsRunsPastThePlanesAndSplitRuns) {
  const auto c = make_codec("bpc.isca16");
  EXPECT_NO_THROW(decode_bits(*c, "000" + run(33), 32));
  EXPECT_THROW(decode_bits(*c, "000" + std::string("00011") + "000" + run(33), 32), corrupt_stream);  // 1 + 33 planes
  EXPECT_THROW(decode_bits(*c, "000" + run(31) + run(2), 32), corrupt_stream);  // one run written as two
  EXPECT_THROW(decode_bits(*c, "000" + run(32) + run(1), 32), corrupt_stream);
  EXPECT_THROW(decode_bits(*c, "000" + run(30), 32), corrupt_stream);  // planes missing: truncated
}

TEST(BPC, DecodeRejectsNonCanonicalSymbols) {
  const auto c = make_codec("bpc.isca16");
  EXPECT_THROW(decode_bits(*c, "001" + field(0, 4) + run(33), 16), corrupt_stream);        // base 0 needs 000
  EXPECT_THROW(decode_bits(*c, "010" + field(7, 8) + run(33), 16), corrupt_stream);        // 7 fits 4 bits
  EXPECT_THROW(decode_bits(*c, "1" + field(100, 32) + run(33), 16), corrupt_stream);       // fits 8 bits
  EXPECT_THROW(decode_bits(*c, "000" + run(32) + "1" + field(1, 3), 16), corrupt_stream);  // raw single one
  EXPECT_THROW(decode_bits(*c, "000" + run(32) + "1" + field(0, 3), 16), corrupt_stream);  // raw zero plane
  EXPECT_THROW(decode_bits(*c, "000" + run(33) + "0", 16), corrupt_stream);                // trailing bit
  // DBP zero with a zero plane above is a zero DBX
  EXPECT_THROW(decode_bits(*c, "000" + run(32) + "00001", 16), corrupt_stream);
  // a delta leaving the signed 32-bit range: 0x7FFFFFFF + 1
  EXPECT_THROW(decode_bits(*c, "1" + field(0x7FFFFFFFu, 32) + run(32) + "00011" + "00", 16), corrupt_stream);
  EXPECT_EQ(decode_bits(*c, "1" + field(0x7FFFFFFEu, 32) + run(32) + "00011" + "00", 16),
            words({0x7FFFFFFEu, 0x7FFFFFFFu}, 16));
}

TEST(BPC, EveryTruncationOfAValidStreamThrows) {
  for (const char* preset : {"bpc.isca16", "bpc.liu"}) {
    const auto c = make_codec(preset);
    for (std::size_t B : {std::size_t{16}, std::size_t{128}}) {
      const auto data = test::adversarial_blocks(B, 8);
      for (std::size_t i = 0; i < data.size(); i += 7 * B) {
        const std::vector<std::uint8_t> blk(data.begin() + static_cast<std::ptrdiff_t>(i),
                                            data.begin() + static_cast<std::ptrdiff_t>(i + B));
        const std::string s = stream_bits(*c, blk);
        EXPECT_EQ(decode_bits(*c, s, B), blk);
        for (std::size_t len = 0; len < s.size(); ++len)
          EXPECT_THROW(decode_bits(*c, s.substr(0, len), B), corrupt_stream) << preset << " len " << len;
      }
    }
  }
}

// ---- golden file --------------------------------------------------------------------------

TEST(BPC, FastKernelsEqualScalar) {
  using S = std::string;
  for (const Options& o : std::vector<Options>{{},
                                               {{"code_map", S("kim")}, {"endian", S("big")}},
                                               {{"precedence", S("liu")}},
                                               {{"delta_bits", std::int64_t{32}}},
                                               {{"alt_mode", S("planes")}}}) {
    const auto c = make_codec("bpc.isca16", o);
    test::check_lane_encoder(*c);
    test::check_lane_decoder(*c);
  }
}

TEST(BPC, GoldenFile) {
  const auto g = test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/bpc.json");
  std::size_t checked = 0;
  for (const auto& c : g["cases"].elements()) {
    SCOPED_TRACE(c["id"].as_string());
    const std::string hex = c["block"].as_string();
    std::vector<std::uint8_t> blk(hex.size() / 2);
    for (std::size_t i = 0; i < blk.size(); ++i)
      blk[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    ASSERT_EQ(static_cast<std::int64_t>(blk.size()), c["block_bytes"].as_int());
    for (const auto& e : c["expected"].elements()) {
      Options o;
      if (const auto* opts = e.find("options"))
        for (const auto& [key, value] : opts->items()) o[key] = value.as_string();
      const auto codec = make_codec(e["preset"].as_string(), o);
      SCOPED_TRACE(codec->preset());
      const SizeBreakdown s = codec->measure(blk.data(), blk.size());
      EXPECT_EQ(std::int64_t{s.payload}, e["payload_bits"].as_int());
      EXPECT_EQ(std::int64_t{s.meta}, e["meta_bits"].as_int());
      EXPECT_EQ(std::int64_t{s.header}, e["header_bits"].as_int());
      EXPECT_EQ(std::int64_t{s.tag}, e["tag_bits"].as_int());
      EXPECT_EQ(s.mode, e["mode"].as_int());
      EXPECT_EQ(std::int64_t{s.inband()}, e["bits"].as_int());
      if (const auto* st = e.find("stream")) {
        EXPECT_EQ(stream_bits(*codec, blk), st->as_string());
        EXPECT_EQ(decode_bits(*codec, st->as_string(), blk.size()), blk);
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 40u);
}

}  // namespace
