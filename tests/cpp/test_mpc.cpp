// MPC (P3; SPEC 1.12, W7): row encoder, classes, module choice, the RTL preset's parameters,
// round trips for the preset and random valid models, corrupt streams and model validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "json_lite.hpp"
#include "memcomp/codecs/mpc.hpp"
#include "memcomp/codecs/registry.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

std::uint16_t hex16(const std::string& s) { return static_cast<std::uint16_t>(std::stoul(s, nullptr, 16)); }

std::vector<std::uint8_t> hex_bytes(const std::string& s) {
  std::vector<std::uint8_t> v;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2)
    v.push_back(static_cast<std::uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
  return v;
}

std::string rows_code(const mpc::Rows& r) {
  std::vector<std::uint8_t> buf(64, 0);
  BitWriter w(buf.data(), 512);
  mpc::write_rows(r, w);
  const std::size_t n = w.finish();
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += ((buf[i / 8] >> (7 - i % 8)) & 1) ? '1' : '0';
  return s;
}

std::vector<std::uint8_t> pack(const std::string& bits) {
  std::vector<std::uint8_t> v((bits.size() + 7) / 8 + 8, 0);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i] == '1') v[i / 8] = static_cast<std::uint8_t>(v[i / 8] | (0x80 >> (i % 8)));
  return v;
}

// Decodes one 32 B block from a '0'/'1' stream.
std::vector<std::uint8_t> decode_bits(const Codec& c, const std::string& bits) {
  const auto data = pack(bits);
  const std::uint64_t off = 0;
  const auto len = static_cast<std::uint32_t>(bits.size());
  const std::uint32_t tag = 0;
  std::vector<std::uint8_t> out(32);
  c.decode_batch({data.data(), data.size(), &off, &len, &tag, 1, 32}, out.data(), 1);
  return out;
}

std::string bits_of(std::uint64_t v, unsigned n) {
  std::string s;
  for (unsigned i = n; i-- > 0;) s += ((v >> i) & 1) ? '1' : '0';
  return s;
}

mpc::Model preset_model() {
  return mpc::parse_model_text(std::get<std::string>(make_codec("mpc.cal22_rtl")->options().at("model")));
}

// A random valid module: random spanning tree towards a random root, shifts, scan permutation.
mpc::Module random_module(std::mt19937& rng, int cls) {
  mpc::Module m;
  m.cls = cls;
  m.root = static_cast<int>(rng() % 32);
  std::vector<std::uint8_t> order(32);
  std::iota(order.begin(), order.end(), std::uint8_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  std::iter_swap(order.begin(), std::find(order.begin(), order.end(), m.root));
  for (std::size_t k = 0; k < 32; ++k) {
    m.base[order[k]] = k == 0 ? order[0] : order[rng() % k];
    m.shift[order[k]] = static_cast<std::int8_t>(static_cast<int>(rng() % 17) - 8);
  }
  std::vector<int> cells(256);
  std::iota(cells.begin(), cells.end(), 0);
  std::shuffle(cells.begin(), cells.end(), rng);
  for (std::size_t t = 0; t < 256; ++t) {
    m.scan_row[t] = static_cast<std::uint8_t>(cells[t] / 32);
    m.scan_col[t] = static_cast<std::uint8_t>(cells[t] % 32);
  }
  return m;
}

mpc::Model random_model(std::mt19937& rng) {
  std::vector<int> classes{2, 3, 4, 5, 6};
  std::shuffle(classes.begin(), classes.end(), rng);
  mpc::Model m;
  const std::size_t n = 1 + rng() % 5;
  for (std::size_t k = 0; k < n; ++k) m.modules.push_back(random_module(rng, classes[k]));
  return m;
}

void expect_roundtrip(const Codec& c, const std::vector<std::uint8_t>& blocks) {
  const BlockView v{blocks.data(), blocks.size() / 32, 32};
  const EncodedBlocks e = c.encode_batch(v, 1);
  std::vector<std::uint8_t> out(blocks.size());
  c.decode_batch(
      {e.data.data(), e.data.size(), e.bit_offsets.data(), e.bit_lengths.data(), e.tags.data(), v.n_blocks, 32},
      out.data(), 1);
  ASSERT_EQ(out, blocks);
  for (std::size_t i = 0; i < v.n_blocks; ++i) {
    const SizeBreakdown s = c.measure(v.block(i), 32);
    ASSERT_EQ(s.inband(), e.bit_lengths[i]) << "block " << i;
    ASSERT_EQ(s.header, 3u);
    ASSERT_LE(s.inband(), 259u);
  }
}

std::string model_text_with(const std::function<void(Json&)>& edit) {
  Json j = Json::parse(std::get<std::string>(make_codec("mpc.cal22_rtl")->options().at("model")));
  edit(j);
  return j.dump();
}

Json int_array(std::vector<std::int64_t> v) {
  Json a = Json::array();
  for (auto x : v) a.push(Json::integer(x));
  return a;
}

}  // namespace

TEST(MPC, W7RowLengthsFromGolden) {
  const Json g = test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/mpc.json");
  for (const Json& c : g["rows"].elements()) {
    const std::uint16_t r = hex16(c["row"].as_string());
    const auto bits = static_cast<unsigned>(c["bits"].as_int());
    if (r) {
      EXPECT_EQ(mpc::row_bits(r), bits) << c["kind"].as_string();
    }
    mpc::Rows rows{};
    rows[0] = r;
    rows[1] = 0xFFFF;  // a following row keeps a zero row a run of one
    EXPECT_EQ(rows_code(rows).substr(0, bits), c["code"].as_string()) << c["kind"].as_string();
  }
  for (const Json& c : g["row_arrays"].elements()) {
    mpc::Rows rows{};
    for (std::size_t i = 0; i < 16; ++i) rows[i] = hex16(c["rows"].at(i).as_string());
    EXPECT_EQ(mpc::encoded_bits(rows), c["bits"].as_int());
    const mpc::RowSplit sp = mpc::split_bits(rows);
    EXPECT_EQ(sp.meta, c["meta"].as_int());
    EXPECT_EQ(sp.payload, c["payload"].as_int());
    EXPECT_EQ(mpc::leading_zero_rows(rows), c["leading_zero_rows"].as_int());
    const std::string code = rows_code(rows);
    EXPECT_EQ(code, c["code"].as_string());
    const auto data = pack(code);
    BitReader r(data.data(), code.size());
    EXPECT_EQ(mpc::read_rows(r), rows);
    EXPECT_EQ(r.remaining(), 0u);
  }
}

TEST(MPC, W7SevenRowTypesByHand) {
  // 4, 7, 7, 8, 12, 12, 17: zero row, run, single one, two adjacent, front half, back half, default
  mpc::Rows r{};
  r[1] = 0x0400;  // single one at position 5
  r[4] = 0x0060;  // two adjacent at 9, 10
  r[5] = 0x0081;  // positions 0-7 zero
  r[6] = 0x8100;  // positions 8-15 zero
  r[7] = 0x8001;  // default
  for (std::size_t i = 8; i < 16; ++i) r[i] = 0x0001;
  // row 0: one zero row (4); rows 2-3: run of 2 (7)
  EXPECT_EQ(mpc::encoded_bits(r), 4u + 7 + 7 + 8 + 12 + 12 + 17 + 8 * 7);
  EXPECT_EQ(rows_code(r).substr(0, 4 + 7 + 7), "0011"
                                               "0110101"
                                               "0100001");
  EXPECT_EQ(mpc::row_bits(0x0060), 8u);
  EXPECT_EQ(mpc::row_bits(0x0081), 12u);
  EXPECT_EQ(mpc::row_bits(0x8100), 12u);
  EXPECT_EQ(mpc::row_bits(0x0180), 8u);  // adjacent across the halves
  EXPECT_EQ(mpc::row_bits(0x0050), 12u);
  EXPECT_EQ(mpc::row_bits(0x0140), 17u);  // ones in both halves
  EXPECT_EQ(mpc::row_bits(0x8001), 17u);
}

TEST(MPC, BlockClassesFromGolden) {
  const auto c = make_codec("mpc.cal22_rtl");
  const Json g = test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/mpc.json");
  for (const Json& b : g["blocks"].elements()) {
    const auto blk = hex_bytes(b["block"].as_string());
    ASSERT_EQ(blk.size(), 32u);
    const SizeBreakdown s = c->measure(blk.data(), 32);
    EXPECT_EQ(s.mode, b["class"].as_int());
    EXPECT_EQ(s.inband(), b["bits"].as_int());
    EXPECT_EQ(s.header, b["header"].as_int());
    EXPECT_EQ(s.meta, b["meta"].as_int());
    EXPECT_EQ(s.payload, b["payload"].as_int());
    EXPECT_EQ(test::stream_bits(*c, blk), b["stream"].as_string());
    EXPECT_EQ(decode_bits(*c, b["stream"].as_string()), blk);
  }
}

TEST(MPC, Class7IsTheRawBlock) {
  const auto c = make_codec("mpc.cal22_rtl");
  std::mt19937 rng(3);
  std::vector<std::uint8_t> blk(32);
  for (auto& x : blk) x = static_cast<std::uint8_t>(rng());
  const SizeBreakdown s = c->measure(blk.data(), 32);
  EXPECT_EQ(s.mode, 7);
  EXPECT_EQ(s.payload, 256u);
  EXPECT_EQ(s.meta, 0u);
  EXPECT_EQ(s.inband(), 259u);
  std::string want = "111";
  for (auto x : blk) want += bits_of(x, 8);
  EXPECT_EQ(test::stream_bits(*c, blk), want);
}

TEST(MPC, ModuleClassIsStreamClassAndRowsFollow) {
  const auto c = make_codec("mpc.cal22_rtl");
  const mpc::Model m = preset_model();
  std::vector<std::uint8_t> blk(32);
  for (std::size_t i = 0; i < 8; ++i) blk[4 * i] = static_cast<std::uint8_t>(i + 1);  // narrow ints
  const SizeBreakdown s = c->measure(blk.data(), 32);
  ASSERT_GE(s.mode, 2);
  ASSERT_LE(s.mode, 6);
  const mpc::Module* mod = nullptr;
  unsigned best = 0;
  for (const auto& x : m.modules) {
    const unsigned lz = mpc::leading_zero_rows(mpc::transform(x, blk.data()));
    if (!mod || lz >= best) best = lz, mod = &x;
  }
  ASSERT_EQ(mod->cls, s.mode);
  const mpc::Rows rows = mpc::transform(*mod, blk.data());
  EXPECT_EQ(test::stream_bits(*c, blk), bits_of(static_cast<std::uint64_t>(s.mode), 3) + rows_code(rows));
  EXPECT_EQ(s.inband(), 3 + mpc::encoded_bits(rows));
}

TEST(MPC, ModuleChoiceTiesGoToTheHigherClass) {
  mpc::Model m = preset_model();
  mpc::Model two;
  two.modules = {m.modules[0], m.modules[0]};  // the same module as class 2 and class 5
  two.modules[1].cls = 5;
  const auto c = make_codec("mpc.cal22_rtl", {{"model", mpc::dump_model(two)}});
  std::mt19937 rng(5);
  for (int n = 0; n < 50; ++n) {
    std::vector<std::uint8_t> blk(32);
    for (auto& x : blk) x = static_cast<std::uint8_t>(rng() % 4);
    const auto s = c->measure(blk.data(), 32);
    if (s.mode >= 2 && s.mode <= 6) {
      EXPECT_EQ(s.mode, 5);
    }
  }
  // min_bits ties go to the higher class too
  const auto cm = make_codec("mpc.cal22_rtl", {{"model", mpc::dump_model(two)}, {"select", std::string("min_bits")}});
  std::vector<std::uint8_t> blk(32, 0);
  blk[3] = 9;
  EXPECT_EQ(cm->measure(blk.data(), 32).mode, 5);
}

TEST(MPC, RtlChoiceIsNotMinBitsButMinBitsNeverLoses) {
  const auto rtl = make_codec("mpc.cal22_rtl");
  const auto mb = make_codec("mpc.cal22_rtl", {{"select", std::string("min_bits")}});
  const auto blocks = test::adversarial_blocks(32, 400);
  std::size_t smaller = 0;
  for (std::size_t i = 0; i < blocks.size() / 32; ++i) {
    const auto a = rtl->measure(blocks.data() + 32 * i, 32), b = mb->measure(blocks.data() + 32 * i, 32);
    EXPECT_LE(b.inband(), a.inband());
    smaller += b.inband() < a.inband();
  }
  EXPECT_GT(smaller, 0u);
  expect_roundtrip(*mb, blocks);
}

TEST(MPC, PresetParametersMatchTheSpecTable) {
  const mpc::Model m = preset_model();
  ASSERT_EQ(m.modules.size(), 5u);
  const int roots[] = {8, 16, 19, 15, 8};
  const unsigned heights[] = {3, 7, 5, 6, 10};
  const std::set<int> shifts[] = {{0, 3}, {0}, {0, 7}, {0, 1, 2}, {0, 1, 6}};
  for (std::size_t k = 0; k < 5; ++k) {
    const mpc::Module& x = m.modules[k];
    EXPECT_EQ(x.cls, static_cast<int>(k + 2));
    EXPECT_EQ(x.root, roots[k]);
    unsigned h = 0;
    std::set<int> s;
    for (int j = 0; j < 32; ++j) {
      if (j == x.root) continue;
      s.insert(x.shift[static_cast<std::size_t>(j)]);
      unsigned d = 0;
      for (int at = j; at != x.root; at = x.base[static_cast<std::size_t>(at)]) ++d;
      h = std::max(h, d);
    }
    EXPECT_EQ(h, heights[k]) << "class " << x.cls;
    EXPECT_EQ(s, shifts[k]) << "class " << x.cls;
  }
  EXPECT_EQ(mpc::parse_model_text(mpc::dump_model(m)), m);
}

TEST(MPC, PresetRoundTrip) {
  const auto c = make_codec("mpc.cal22_rtl");
  EXPECT_TRUE(c->needs_model());
  EXPECT_TRUE(c->has_model());
  expect_roundtrip(*c, test::adversarial_blocks(32, 800));
}

TEST(MPC, RandomModelsRoundTrip) {
  std::mt19937 rng(11);
  const auto blocks = test::adversarial_blocks(32, 200, 7);
  for (int n = 0; n < 30; ++n) {
    const mpc::Model m = random_model(rng);
    ASSERT_NO_THROW(mpc::validate_model(m));
    const std::string text = mpc::dump_model(m);
    EXPECT_EQ(mpc::parse_model_text(text), m);
    for (const char* sel : {"rtl", "min_bits"}) {
      const auto c = make_codec("mpc.cal22_rtl", {{"model", text}, {"select", std::string(sel)}});
      expect_roundtrip(*c, blocks);
    }
    // the transform alone, and its fast form
    for (const auto& x : m.modules) {
      const mpc::Compiled fast(x);
      for (std::size_t i = 0; i < blocks.size() / 32; i += 7) {
        const mpc::Rows r = mpc::transform(x, blocks.data() + 32 * i);
        EXPECT_EQ(fast.transform(blocks.data() + 32 * i), r);
        EXPECT_EQ(fast.leading_zero_rows(fast.cells(blocks.data() + 32 * i)), mpc::leading_zero_rows(r));
        std::uint8_t out[32];
        const std::vector<std::uint8_t> want(blocks.begin() + 32 * static_cast<std::ptrdiff_t>(i),
                                             blocks.begin() + 32 * static_cast<std::ptrdiff_t>(i + 1));
        mpc::inverse_transform(x, r, out);
        EXPECT_EQ(std::vector<std::uint8_t>(out, out + 32), want);
        fast.inverse(r, out);
        EXPECT_EQ(std::vector<std::uint8_t>(out, out + 32), want);
      }
    }
  }
}

TEST(MPC, TransformStepsBySpec) {
  // a module predicting every byte from byte 0 (root) with shift 0, identity scan
  mpc::Module m;
  m.root = 0;
  for (std::size_t t = 0; t < 256; ++t)
    m.scan_row[t] = static_cast<std::uint8_t>(t / 32), m.scan_col[t] = static_cast<std::uint8_t>(t % 32);
  std::vector<std::uint8_t> b(32, 0x41);
  b[5] = 0x42;  // residue 1 at column 5
  const auto R = mpc::residues(m, b.data());
  EXPECT_EQ(R[0], 0x41);
  EXPECT_EQ(R[5], 1);
  EXPECT_EQ(R[4], 0);
  const mpc::Planes P = mpc::bit_planes(R.data());
  EXPECT_EQ(P[7], (1u << 0) | (1u << 5));  // LSB plane: root bit 0 and the residue
  EXPECT_EQ(P[1], 1u);                     // 0x41 has bit 6
  const mpc::Planes X = mpc::xor_planes(P);
  EXPECT_EQ(X[7], (1u << 0) | (1u << 5));  // column 0 passes through; col 5: 1 ^ 0
  EXPECT_EQ(mpc::unxor_planes(X), P);
  // shifts: left mod 256, right, and the +-8 extremes
  EXPECT_EQ(mpc::predict(0x81, 1), 0x02);
  EXPECT_EQ(mpc::predict(0x81, -1), 0x40);
  EXPECT_EQ(mpc::predict(0xFF, 8), 0);
  EXPECT_EQ(mpc::predict(0xFF, -8), 0);
  EXPECT_EQ(mpc::predict(0x11, 0), 0x11);
}

TEST(MPC, CorruptStreams) {
  mpc::Model m = preset_model();
  m.modules.resize(1);  // class 2 only
  const auto c = make_codec("mpc.cal22_rtl", {{"model", mpc::dump_model(m)}});
  const std::string one_row = "0111000";                                                // single one at position 8
  EXPECT_THROW(decode_bits(*c, "011" + one_row + "0101110"), corrupt_stream);           // class 3: no module
  EXPECT_THROW(decode_bits(*c, "010" + one_row + "0101111"), corrupt_stream);           // run of 16 after a row
  EXPECT_THROW(decode_bits(*c, "010" + one_row + "0011" + "0101101"), corrupt_stream);  // two runs in a row
  EXPECT_THROW(decode_bits(*c, "010" + one_row), corrupt_stream);                       // truncated rows
  EXPECT_THROW(decode_bits(*c, "111" + std::string(100, '1')), corrupt_stream);         // truncated raw
  EXPECT_THROW(decode_bits(*c, "000" + std::string(5, '0')), corrupt_stream);           // trailing bits
  EXPECT_THROW(decode_bits(*c, "001" + std::string(32, '0')), corrupt_stream);          // class 1 of zeros
  EXPECT_THROW(decode_bits(*c, "111" + std::string(256, '0')), corrupt_stream);         // class 7 of zeros
  EXPECT_THROW(decode_bits(*c, "010" + std::string("00001111") + "0101110"), corrupt_stream);  // adjacent at 15
  EXPECT_THROW(decode_bits(*c, "010" + std::string("1") + bits_of(0x8000, 16) + "0101110"),
               corrupt_stream);  // 17-bit single one
  EXPECT_THROW(decode_bits(*c, "010" + std::string("0001") + bits_of(0x01, 8) + "0101110"),
               corrupt_stream);  // 12-bit single one
  // a valid class-2 stream decodes: row 0 single one, then a run of 15
  const auto out = decode_bits(*c, "010" + one_row + "0101110");
  EXPECT_EQ(out.size(), 32u);
  EXPECT_EQ(c->measure(out.data(), 32).mode, 2);
  EXPECT_EQ(test::stream_bits(*c, out), "010" + one_row + "0101110");
}

TEST(MPC, BlockSizeIs32Only) {
  const auto c = make_codec("mpc.cal22_rtl");
  for (std::size_t b : {16u, 64u, 128u, 256u}) {
    try {
      c->check_block_bytes(b);
      ADD_FAILURE() << b;
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("sectorize"), std::string::npos);
    }
  }
  EXPECT_NO_THROW(c->check_block_bytes(32));
  std::vector<std::uint8_t> blk(64, 0);
  EXPECT_THROW(c->encode_batch({blk.data(), 1, 64}, 1), invalid_argument);
}

TEST(MPC, ModelValidation) {
  auto expect_error = [](const std::string& text, const std::string& what) {
    try {
      make_codec("mpc.cal22_rtl", {{"model", text}});
      ADD_FAILURE() << "accepted: " << what;
    } catch (const json_error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const mpc::Model good = preset_model();
  {  // a cycle: two non-root bytes pointing at each other
    mpc::Model m = good;
    m.modules[0].base[0] = 1;
    m.modules[0].base[1] = 0;
    expect_error(mpc::dump_model(m), "cycle");
  }
  {  // a scan cell twice
    mpc::Model m = good;
    m.modules[1].scan_row[1] = m.modules[1].scan_row[0];
    m.modules[1].scan_col[1] = m.modules[1].scan_col[0];
    expect_error(mpc::dump_model(m), "permutation");
  }
  {  // duplicate class
    mpc::Model m = good;
    m.modules[4].cls = 2;
    expect_error(mpc::dump_model(m), "two modules");
  }
  expect_error(model_text_with([](Json& j) {
                 Json mods = j["modules"];
                 Json m0 = mods.at(0);
                 std::vector<std::int64_t> s(32, 0);
                 s[3] = 9;
                 m0.set("shift", int_array(s));
                 Json arr = Json::array({m0});
                 j.set("modules", arr);
               }),
               "shift[3] = 9");
  expect_error(model_text_with([](Json& j) {
                 Json m0 = j["modules"].at(0);
                 m0.set("class", Json::integer(7));
                 j.set("modules", Json::array({m0}));
               }),
               "class 7");
  expect_error(model_text_with([](Json& j) {
                 Json m0 = j["modules"].at(0);
                 m0.set("base", int_array(std::vector<std::int64_t>(31, 0)));
                 j.set("modules", Json::array({m0}));
               }),
               "31 entries");
  expect_error(model_text_with([](Json& j) { j.set("version", Json::integer(2)); }), "version");
  expect_error(model_text_with([](Json& j) { j.set("modules", Json::array()); }), "1 to 5 modules");
  expect_error(model_text_with([](Json& j) { j.set("codec", Json::string("fvc")); }), "codec");
  EXPECT_THROW(mpc::validate_model(mpc::Model{}), json_error);
  // no model: measuring needs one
  const auto none = make_codec("mpc.cal22_rtl", {{"model", std::string()}});
  EXPECT_FALSE(none->has_model());
  std::vector<std::uint8_t> blk(32, 1);
  EXPECT_THROW(none->encode_batch({blk.data(), 1, 32}, 1), invalid_argument);
}

// The row codes read unchecked where the buffer holds the longest ones, checked elsewhere, with
// the same outcome.
TEST(MPC, UncheckedRowReadsEqualChecked) {
  test::check_unchecked_reads(*make_codec("mpc.cal22_rtl"), test::adversarial_blocks(32), 32);
}

// The AVX-512 and AVX2 forms of the modules (byte permutes, affine maps and bit shuffles; the
// vector search over rows) measure, encode and decode as the scalar reference does, for the
// preset and random models under both rules, on every tier this CPU has.
TEST(MPC, FastTiersEqualTheScalarReference) {
  std::mt19937 rng(5);
  const auto blocks = test::adversarial_blocks(32, 400, 3);
  const BlockView v{blocks.data(), blocks.size() / 32, 32};
  for (int n = 0; n < 16; ++n) {
    const std::string model = n == 0 ? std::string() : mpc::dump_model(random_model(rng));
    for (const char* sel : {"rtl", "min_bits"}) {
      Options o{{"select", std::string(sel)}};
      if (!model.empty()) o["model"] = model;
      const auto c = make_codec("mpc.cal22_rtl", o);
      std::vector<test::Columns> sizes;
      std::vector<std::vector<std::uint8_t>> streams, decoded;
      for (const int tier : {0, 1, 2}) {  // scalar, AVX2, the best
        set_simd(tier > 0);
        set_simd_avx512(tier > 1);
        sizes.emplace_back(v.n_blocks);
        c->measure_batch(v, sizes.back().view(), 1);
        const EncodedBlocks e = c->encode_batch(v, 1);
        streams.emplace_back(e.data.begin(), e.data.end());
        decoded.emplace_back(blocks.size());
        c->decode_batch(
            {e.data.data(), e.data.size(), e.bit_offsets.data(), e.bit_lengths.data(), e.tags.data(), v.n_blocks, 32},
            decoded.back().data(), 1);
      }
      set_simd(true);
      set_simd_avx512(true);
      for (std::size_t t = 1; t < 3; ++t) {
        EXPECT_TRUE(sizes[t] == sizes[0]) << n << " " << sel << " tier " << t;
        EXPECT_EQ(streams[t], streams[0]) << n << " " << sel << " tier " << t;
        EXPECT_EQ(decoded[t], blocks) << n << " " << sel << " tier " << t;
      }
    }
  }
}
