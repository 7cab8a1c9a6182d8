// Bus energy (SPEC 2): toggles, DRAM zeros and transitions, DBI, Energy Control, and Metadata
// Consolidation layouts. Counts are checked against a bit-by-bit simulation of the wires, the
// worked examples W8/W8b/W8c/W9/W10 against tests/golden/toggles.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "json_lite.hpp"
#include "memcomp/analysis/toggles.hpp"
#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/simd.hpp"
#include "memcomp/pipelines/encode_energy_control.hpp"
#include "test_util.hpp"

using namespace memcomp;
using memcomp::test::Json;

namespace {

Json golden() { return test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/toggles.json"); }

std::vector<std::uint8_t> hex(const std::string& h) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoul(h.substr(i, 2), nullptr, 16)));
  return out;
}

Options options_of(const Json& o) {
  Options r;
  for (const auto& [k, v] : o.items()) {
    if (v.is_string())
      r[k] = v.as_string();
    else
      r[k] = v.as_int();
  }
  return r;
}

// ---- bit-by-bit reference --------------------------------------------------------------------

struct Ref {
  std::uint64_t units = 0, beats = 0, t01 = 0, t10 = 0, zeros = 0, ones = 0;
  std::uint64_t pin_t01 = 0, pin_t10 = 0, pin_zeros = 0, pin_ones = 0, inversions = 0;
};

int stream_bit(const std::uint8_t* p, std::uint64_t t) { return (p[t / 8] >> (7 - t % 8)) & 1; }

/// One transfer on wires `state` (W bits) and pins (one per lane); returns the counts.
Ref ref_transfer(const BusConfig& c, std::vector<int>& state, std::vector<int>& pins, bool& idle, const std::uint8_t* p,
                 std::uint64_t nbits, bool close_after) {
  Ref r;
  const std::uint64_t W = c.width_bits;
  const bool dram = c.channel == Channel::dram;
  if (nbits > 0) {
    std::uint64_t n = (nbits + W - 1) / W;
    r.units = n;
    if (dram) {
      r.units = (n + c.burst_length - 1) / c.burst_length;
      n = r.units * c.burst_length;
    }
    r.beats = n;
    std::vector<int> bits(n * W);
    for (std::uint64_t t = 0; t < n * W; ++t) {
      if (t < nbits)
        bits[t] = stream_bit(p, t);
      else
        bits[t] = c.pad == Pad::zero ? 0 : c.pad == Pad::one ? 1 : (t >= W ? bits[t - W] : state[t]);
    }
    const int asserted = c.idle_high ? 0 : 1;
    for (std::uint64_t k = 0; k < n; ++k) {
      std::vector<int> beat(bits.begin() + static_cast<std::ptrdiff_t>(k * W),
                            bits.begin() + static_cast<std::ptrdiff_t>((k + 1) * W));
      std::vector<int> new_pins = pins;
      if (dram && c.dbi != Dbi::none) {
        for (std::uint64_t l = 0; l < W / 8; ++l) {
          int ones = 0, diff = 0;
          for (std::uint64_t j = 0; j < 8; ++j) {
            ones += beat[8 * l + j];
            diff += beat[8 * l + j] != state[8 * l + j];
          }
          bool inv;
          if (c.dbi == Dbi::dc) {
            inv = c.idle_high ? 8 - ones > 4 : ones > 4;
          } else if (k == 0 && idle && c.ac_first_no_invert) {
            inv = false;
          } else if (c.ac_count_pin) {
            inv = (8 - diff) + (pins[l] != asserted) < diff + (pins[l] == asserted);
          } else {
            inv = diff > static_cast<int>(c.ac_threshold);
          }
          if (inv)
            for (std::uint64_t j = 0; j < 8; ++j) beat[8 * l + j] ^= 1;
          r.inversions += inv;
          new_pins[l] = inv ? asserted : 1 - asserted;
        }
        for (std::uint64_t l = 0; l < W / 8; ++l) {
          r.pin_t01 += pins[l] == 0 && new_pins[l] == 1;
          r.pin_t10 += pins[l] == 1 && new_pins[l] == 0;
          r.pin_ones += new_pins[l] == 1;
          r.pin_zeros += new_pins[l] == 0;
        }
        pins = new_pins;
      }
      for (std::uint64_t t = 0; t < W; ++t) {
        r.t01 += state[t] == 0 && beat[t] == 1;
        r.t10 += state[t] == 1 && beat[t] == 0;
        r.ones += beat[t] == 1;
        r.zeros += beat[t] == 0;
      }
      state = beat;
    }
    idle = false;
  }
  if (dram && !idle && (c.isolated || close_after)) {
    const int level = c.idle_high ? 1 : 0;
    for (std::uint64_t t = 0; t < W; ++t) {
      r.t01 += state[t] == 0 && level == 1;
      r.t10 += state[t] == 1 && level == 0;
      state[t] = level;
    }
    for (auto& pn : pins) {
      r.pin_t01 += pn == 0 && level == 1;
      r.pin_t10 += pn == 1 && level == 0;
      pn = level;
    }
    idle = true;
  }
  return r;
}

/// Per-block counts of a batch, as rows.
struct Table {
  explicit Table(std::size_t n) : v(14, std::vector<std::uint32_t>(n)) {
    std::size_t k = 0;
#define MEMCOMP_T(f) cols.f = v[k++].data();
    MEMCOMP_BUS_FIELDS(MEMCOMP_T)
#undef MEMCOMP_T
  }
  BusCounts operator[](std::size_t i) const {
    BusCounts r;
#define MEMCOMP_T(f) r.f = cols.f[i];
    MEMCOMP_BUS_FIELDS(MEMCOMP_T)
#undef MEMCOMP_T
    return r;
  }
  std::vector<std::vector<std::uint32_t>> v;
  BusColumns cols;
};

void expect_same(const BusCounts& got, const Ref& want, const std::string& what) {
  EXPECT_EQ(got.units, want.units) << what;
  EXPECT_EQ(got.beats, want.beats) << what;
  EXPECT_EQ(got.t01, want.t01) << what;
  EXPECT_EQ(got.t10, want.t10) << what;
  EXPECT_EQ(got.toggles, want.t01 + want.t10) << what;
  EXPECT_EQ(got.zeros, want.zeros) << what;
  EXPECT_EQ(got.ones, want.ones) << what;
  EXPECT_EQ(got.pin_t01, want.pin_t01) << what;
  EXPECT_EQ(got.pin_t10, want.pin_t10) << what;
  EXPECT_EQ(got.pin_zeros, want.pin_zeros) << what;
  EXPECT_EQ(got.pin_ones, want.pin_ones) << what;
  EXPECT_EQ(got.inversions, want.inversions) << what;
}

/// Random streams of random lengths (0..2100 bits), byte-aligned in one buffer.
struct RandomStreams {
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint32_t> lengths;
  StreamsView view() const { return {data.data(), data.size(), offsets.data(), lengths.data(), offsets.size()}; }
};
RandomStreams random_streams(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  RandomStreams s;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t len = i % 7 == 0 ? static_cast<std::uint32_t>(rng() % 3)
                                         : static_cast<std::uint32_t>(rng() % 2100);
    s.offsets.push_back(8 * s.data.size());
    s.lengths.push_back(len);
    const int kind = static_cast<int>(rng() % 3);
    for (std::uint32_t b = 0; b < (len + 7) / 8; ++b)
      s.data.push_back(static_cast<std::uint8_t>(kind == 0 ? rng() : kind == 1 ? (rng() % 4 == 0 ? rng() : 0) : 0xF0));
  }
  return s;
}

void check_against_reference(const BusConfig& c, const RandomStreams& rs, const std::string& what) {
  WireState s = initial_state(c);
  Table got(rs.offsets.size());
  const BusTotals tot = bus_count_streams(c, rs.view(), s, &got.cols, true);
  const WireState init = initial_state(c);
  std::vector<int> wires(c.width_bits), pins(c.lanes());
  bool idle = true;
  auto reset = [&] {
    for (unsigned t = 0; t < c.width_bits; ++t) wires[t] = (init.wires[t / 8] >> (7 - t % 8)) & 1;
    for (unsigned l = 0; l < c.lanes() && l < init.pins.size(); ++l) pins[l] = init.pins[l];
    idle = true;
  };
  reset();
  std::uint64_t sum_toggles = 0;
  for (std::size_t i = 0; i < rs.offsets.size(); ++i) {
    if (c.isolated) reset();
    const Ref r = ref_transfer(c, wires, pins, idle, rs.data.data() + rs.offsets[i] / 8, rs.lengths[i],
                               i + 1 == rs.offsets.size());
    expect_same(got[i], r, what + " block " + std::to_string(i));
    sum_toggles += r.t01 + r.t10;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(tot.toggles, sum_toggles) << what;
}

/// Energy Control by its definition: per block both forms from the same state through a Bus,
/// the decision, and the state of the form sent.
EcTotals reference_ec(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                      const std::vector<double>& bu, WireState& s, std::vector<EcBlock>& out, bool close) {
  Bus bus(c);
  EcTotals tot;
  out.assign(raw.n_blocks, EcBlock{});
  const std::uint64_t bits = 8 * std::uint64_t{raw.block_bytes};
  for (std::size_t i = 0; i < raw.n_blocks; ++i) {
    const bool last = close && i + 1 == raw.n_blocks;
    EcBlock& b = out[i];
    WireState s1 = s;
    b.raw = bus.transfer(s, raw.block(i), bits, last);
    b.comp = bus.transfer(s1, comp.data + comp.bit_offsets[i] / 8, comp.bit_lengths[i], last);
    const double inf = std::numeric_limits<double>::infinity();
    b.cr = ec.ratio == EcRatio::units ? (b.comp.units ? static_cast<double>(b.raw.units) / b.comp.units : inf)
                                      : (comp.bit_lengths[i] ? static_cast<double>(bits) / comp.bit_lengths[i] : inf);
    b.compressed = ec_decide(b.raw.energy, b.comp.energy, b.cr, ec_gain(bu[bu.size() == 1 ? 0 : i]), ec.k, ec.alpha);
    if (b.compressed) s = s1;
    const BusCounts& sent = b.compressed ? b.comp : b.raw;
    tot.blocks += 1;
    tot.compressed += b.compressed;
    tot.raw_bits += bits;
    tot.sent_bits += sent.bits;
    tot.raw_units += b.raw.units;
    tot.sent_units += sent.units;
    tot.sent += sent;
  }
  return tot;
}

void expect_same_counts(const BusCounts& a, const BusCounts& b, const std::string& what) {
#define MEMCOMP_T(f) EXPECT_EQ(a.f, b.f) << what << " field " #f;
  MEMCOMP_BUS_FIELDS(MEMCOMP_T)
#undef MEMCOMP_T
}

/// Raw blocks of B bytes (some all zeros, some ones, some random) and streams of random lengths
/// (some empty, some longer than the block), one per block.
struct EcCase {
  std::vector<std::uint8_t> raw;
  RandomStreams comp;
  BlockView view(std::size_t B) const { return {raw.data(), raw.size() / B, B}; }
};
EcCase ec_case(std::size_t B, std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  EcCase e;
  e.comp = random_streams(n, seed + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const int kind = static_cast<int>(rng() % 4);
    for (std::size_t j = 0; j < B; ++j)
      e.raw.push_back(static_cast<std::uint8_t>(kind == 0 ? 0 : kind == 1 ? 0xFF : kind == 2 ? rng() % 4 : rng()));
    e.comp.lengths[i] %= static_cast<std::uint32_t>(8 * B + 200);  // mostly shorter than the block
  }
  return e;
}

void check_ec_against_reference(const BusConfig& c, const EcCase& e, std::size_t B, const std::string& what) {
  const BlockView v = e.view(B);
  const StreamsView sv = e.comp.view();
  for (bool close : {false, true})
    for (unsigned kr = 0; kr < 4; ++kr) {
      const unsigned k = 1 + kr % 2;
      std::vector<double> bu = k == 1 ? std::vector<double>{0.0} : std::vector<double>(v.n_blocks);
      for (std::size_t i = 0; i < bu.size() && k == 2; ++i) bu[i] = static_cast<double>(i % 3) * 0.4;
      WireState s_ref = initial_state(c), s_got = initial_state(c);
      std::vector<EcBlock> want, got(v.n_blocks);
      const EcConfig ec{k, k == 1 ? 1.0 : 0.75, kr < 2 ? EcRatio::units : EcRatio::bits};
      const EcTotals tw = reference_ec(c, ec, v, sv, bu, s_ref, want, close);
      const EcTotals tg = energy_control(c, ec, v, sv, bu.data(), bu.size(), s_got, got.data(), close);
      const std::string w =
          what + (close ? " close" : " open") + " k" + std::to_string(k) + (kr < 2 ? " units" : " bits");
      for (std::size_t i = 0; i < v.n_blocks; ++i) {
        EXPECT_EQ(got[i].compressed, want[i].compressed) << w << " block " << i;
        EXPECT_EQ(got[i].cr, want[i].cr) << w << " block " << i;
        expect_same_counts(got[i].raw, want[i].raw, w + " raw block " + std::to_string(i));
        expect_same_counts(got[i].comp, want[i].comp, w + " comp block " + std::to_string(i));
        if (::testing::Test::HasFailure()) return;
      }
      EXPECT_EQ(tg.compressed, tw.compressed) << w;
      EXPECT_EQ(tg.sent_bits, tw.sent_bits) << w;
      EXPECT_EQ(tg.sent_units, tw.sent_units) << w;
      EXPECT_EQ(tg.raw_units, tw.raw_units) << w;
      BusCounts a, b;  // totals fit 32 bits here
      a += tg.sent;
      b += tw.sent;
      expect_same_counts(a, b, w + " totals");
      EXPECT_EQ(s_got.idle, s_ref.idle) << w;
      EXPECT_TRUE(std::equal(s_got.wires.begin(), s_got.wires.begin() + c.unit_bytes(), s_ref.wires.begin())) << w;
      if (c.dbi != Dbi::none) {
        EXPECT_TRUE(std::equal(s_got.pins.begin(), s_got.pins.begin() + std::min(c.lanes(), 8u), s_ref.pins.begin()))
            << w;
      }
    }
}

}  // namespace

TEST(Toggles, EnergyControlMatchesItsDefinitionOnChip) {
  for (std::size_t B : {32u, 128u, 24u}) {
    const EcCase e = ec_case(B, 150, static_cast<unsigned>(B));
    for (unsigned flit : {1u, 3u, 4u, 8u, 16u, 32u, 64u})
      for (Pad pad : {Pad::zero, Pad::one, Pad::hold})
        for (bool isolated : {false, true}) {
          BusConfig c;
          c.width_bits = 8 * flit;
          c.pad = pad;
          c.isolated = isolated;
          c.init_ones = flit == 4;
          check_ec_against_reference(c, e, B,
                                     "B " + std::to_string(B) + " flit " + std::to_string(flit) + " pad " +
                                         std::to_string(static_cast<int>(pad)) + (isolated ? " iso" : " stream"));
          if (::testing::Test::HasFailure()) return;
        }
  }
}

TEST(Toggles, EnergyControlMatchesItsDefinitionOnDram) {
  for (std::size_t B : {32u, 128u, 24u}) {
    const EcCase e = ec_case(B, 120, static_cast<unsigned>(B) + 5);
    for (unsigned bus : {8u, 16u, 32u, 64u})
      for (unsigned bl : {1u, 4u, 8u})
        for (Dbi dbi : {Dbi::none, Dbi::dc, Dbi::ac})
          for (Pad pad : {Pad::zero, Pad::one, Pad::hold})
            for (bool idle_high : {true, false})
              for (bool isolated : {false, true}) {
                BusConfig c;
                c.channel = Channel::dram;
                c.width_bits = bus;
                c.burst_length = bl;
                c.dbi = dbi;
                c.pad = pad;
                c.idle_high = idle_high;
                c.isolated = isolated;
                check_ec_against_reference(c, e, B,
                                           "B " + std::to_string(B) + " dram " + std::to_string(bus) + " bl " +
                                               std::to_string(bl) + " dbi " + std::to_string(static_cast<int>(dbi)) +
                                               " pad " + std::to_string(static_cast<int>(pad)) +
                                               (idle_high ? " high" : " low") + (isolated ? " iso" : " stream"));
                if (::testing::Test::HasFailure()) return;
              }
  }
}

TEST(Toggles, NocMatchesBitReference) {
  const RandomStreams rs = random_streams(120, 7);
  for (unsigned flit : {1u, 2u, 4u, 8u, 16u, 32u, 3u})
    for (Pad pad : {Pad::zero, Pad::one, Pad::hold})
      for (bool isolated : {false, true})
        for (bool init_ones : {false, true}) {
          BusConfig c;
          c.width_bits = 8 * flit;
          c.pad = pad;
          c.isolated = isolated;
          c.init_ones = init_ones;
          check_against_reference(c, rs,
                                  "noc flit " + std::to_string(flit) + " pad " + std::to_string(static_cast<int>(pad)) +
                                      (isolated ? " iso" : " stream"));
        }
}

TEST(Toggles, DramMatchesBitReference) {
  const RandomStreams rs = random_streams(80, 11);
  for (unsigned bus : {8u, 16u, 32u, 64u})
    for (Dbi dbi : {Dbi::none, Dbi::dc, Dbi::ac})
      for (bool idle_high : {true, false})
        for (bool isolated : {false, true})
          for (int ac_variant = 0; ac_variant < (dbi == Dbi::ac ? 3 : 1); ++ac_variant) {
            BusConfig c;
            c.channel = Channel::dram;
            c.width_bits = bus;
            c.burst_length = bus == 16 ? 4 : 8;
            c.dbi = dbi;
            c.idle_high = idle_high;
            c.isolated = isolated;
            c.pad = bus == 64 ? Pad::hold : Pad::zero;
            c.ac_first_no_invert = ac_variant == 1;
            c.ac_count_pin = ac_variant == 2;
            check_against_reference(c, rs,
                                    "dram " + std::to_string(bus) + " dbi " + std::to_string(static_cast<int>(dbi)) +
                                        " v" + std::to_string(ac_variant) + (isolated ? " iso" : " stream"));
          }
}

TEST(Toggles, RawBlocksEqualTheirBytesAsStreams) {
  const std::vector<std::uint8_t> flat = test::adversarial_blocks(128, 50);
  const BlockView v{flat.data(), flat.size() / 128, 128};
  std::vector<std::uint64_t> off(v.n_blocks);
  std::vector<std::uint32_t> len(v.n_blocks, 1024);
  for (std::size_t i = 0; i < v.n_blocks; ++i) off[i] = 8 * 128 * i;
  for (Channel ch : {Channel::noc, Channel::dram}) {
    BusConfig c;
    c.channel = ch;
    c.width_bits = ch == Channel::noc ? 256 : 32;
    WireState s1 = initial_state(c), s2 = initial_state(c);
    const BusTotals a = bus_count_raw(c, v, s1, nullptr, true);
    const BusTotals b =
        bus_count_streams(c, {flat.data(), flat.size(), off.data(), len.data(), v.n_blocks}, s2, nullptr, true);
    EXPECT_EQ(a.toggles, b.toggles);
    EXPECT_EQ(a.zeros, b.zeros);
    EXPECT_EQ(a.units, (ch == Channel::noc ? 4u : 4u) * v.n_blocks);
  }
}

TEST(Toggles, ChunksAddUpInStreamMode) {
  const RandomStreams rs = random_streams(60, 3);
  BusConfig c;
  c.width_bits = 128;
  WireState whole = initial_state(c);
  const BusTotals all = bus_count_streams(c, rs.view(), whole, nullptr, true);
  WireState s = initial_state(c);
  StreamsView a = rs.view(), b = rs.view();
  a.n_blocks = 25;
  b.bit_offsets += 25;
  b.bit_lengths += 25;
  b.n_blocks = rs.offsets.size() - 25;
  BusTotals parts = bus_count_streams(c, a, s, nullptr, false);
  parts += bus_count_streams(c, b, s, nullptr, true);
  EXPECT_EQ(parts.toggles, all.toggles);
  EXPECT_EQ(parts.ones, all.ones);
}

TEST(Toggles, GoldenDbiW8) {
  const Json g = golden();
  for (const Json& e : g["dbi"].elements()) {
    const std::string id = e["id"].as_string();
    Bus bus(bus_config(options_of(e["bus"])));
    bus.keep_driven = true;
    const std::vector<std::uint8_t> data = hex(e["data"].as_string());
    WireState s = initial_state(bus.config());
    const BusCounts r = bus.transfer(s, data.data(), 8 * data.size(), false);
    EXPECT_EQ(bus.driven(), hex(e["sent"].as_string())) << id;
    std::vector<std::uint8_t> pins;
    for (const Json& p : e["pins"].elements()) pins.push_back(static_cast<std::uint8_t>(p.as_int()));
    EXPECT_EQ(bus.pin_levels(), pins) << id;
    const BusTotals t = [&] {
      BusTotals x;
      x += r;
      return x;
    }();
    for (const auto& [k, v] : e["expected"].items()) {
      const std::uint64_t want = static_cast<std::uint64_t>(v.as_int());
      const std::uint64_t got = k == "inversions"  ? t.inversions
                                : k == "t10"       ? t.t10
                                : k == "t01"       ? t.t01
                                : k == "zeros"     ? t.zeros
                                : k == "ones"      ? t.ones
                                : k == "pin_zeros" ? t.pin_zeros
                                : k == "pin_ones"  ? t.pin_ones
                                : k == "pin_t10"   ? t.pin_t10
                                : k == "pin_t01"   ? t.pin_t01
                                : k == "energy"    ? t.energy
                                                   : ~std::uint64_t{0};
      EXPECT_EQ(got, want) << id << " " << k;
    }
    EXPECT_TRUE(s.idle) << id;  // isolated: back to idle
  }
}

TEST(Toggles, GoldenW9MetadataConsolidation) {
  const Json w9 = golden()["w9"];
  const std::vector<std::uint8_t> blk = hex(w9["block"].as_string());
  const Options bus = options_of(w9["bus"]);
  for (const Json& e : w9["raw_toggles"].elements()) {
    Options o = bus;
    o["flit_bytes"] = e["flit_bytes"].as_int();
    WireState s = initial_state(bus_config(o));
    const BusTotals t = bus_count_raw(bus_config(o), {blk.data(), 1, blk.size()}, s, nullptr, true);
    EXPECT_EQ(t.toggles, static_cast<std::uint64_t>(e["toggles"].as_int()));
  }
  for (const auto& [preset, bits] : w9["streams"].items()) {
    const auto codec = make_codec(preset);
    EXPECT_EQ(test::stream_bits(*codec, blk), bits.as_string()) << preset;
    EXPECT_EQ(test::decode_bits(*codec, bits.as_string(), blk.size()), blk) << preset;
    const EncodedBlocks enc = codec->encode_batch({blk.data(), 1, blk.size()}, 1);
    for (const Json& e : w9["toggles"].elements()) {
      Options o = bus;
      o["flit_bytes"] = e["flit_bytes"].as_int();
      WireState s = initial_state(bus_config(o));
      const BusTotals t = bus_count_streams(
          bus_config(o), {enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(), 1}, s,
          nullptr, true);
      EXPECT_EQ(t.toggles, static_cast<std::uint64_t>(e[preset].as_int())) << preset;
    }
  }
}

TEST(Toggles, GoldenW10EnergyControl) {
  const Json w10 = golden()["w10"];
  const double t0 = w10["t0"].as_double(), t1 = w10["t1"].as_double();
  for (const Json& e : w10["cases"].elements()) {
    const double g = ec_gain(e["bu"].as_double());
    EXPECT_EQ(ec_decide(t0, t1, e["cr"].as_double(), g, 1, 1.0), e["ec1"].as_bool()) << e["cr"].as_double();
    EXPECT_EQ(ec_decide(t0, t1, e["cr"].as_double(), g, 2, 1.0), e["ec2"].as_bool()) << e["cr"].as_double();
  }
  EXPECT_DOUBLE_EQ(ec_gain(0.75), 4.0);
  EXPECT_DOUBLE_EQ(ec_gain(0.5), 1.0);
  EXPECT_NEAR(ec_gain(1.0), 100.0, 1e-9);       // clamped at 0.99
  EXPECT_TRUE(ec_decide(5, 0, 1.5, 1, 2, 1));   // T1 = 0 compresses
  EXPECT_FALSE(ec_decide(5, 0, 1.0, 1, 2, 1));  // CR must exceed 1
  EXPECT_THROW(ec_gain(1.5), invalid_argument);
}

// k = 0, P2's baseline without an energy term: compressed iff CR > 1, whatever T0 and T1.
TEST(Toggles, NoEnergyTermDecidesOnTheRatioAlone) {
  for (const double t0 : {0.0, 5.0, 1e9})
    for (const double t1 : {0.0, 7.0, 1e12})
      for (const double cr : {0.5, 1.0, 1.0001, 4.0}) {
        EXPECT_EQ(ec_decide(t0, t1, cr, 1.0, 0, 1.0), cr > 1.0) << t0 << " " << t1 << " " << cr;
        EXPECT_EQ(ec_decide(t0, t1, cr, ec_gain(0.9), 0, 3.0), cr > 1.0) << t0 << " " << t1 << " " << cr;
      }
  EXPECT_FALSE(ec_decide(0, 9, 4.0, 1, 2, 1));  // where an energy term sends raw: T0 = 0 < T1
  EXPECT_TRUE(ec_decide(0, 9, 4.0, 1, 0, 1));
}

TEST(Toggles, EnergyControlNeverLosesInIsolatedMode) {
  const std::vector<std::uint8_t> flat = test::adversarial_blocks(128, 300);
  const BlockView v{flat.data(), flat.size() / 128, 128};
  for (const char* preset : {"fpc", "cpack", "bdi", "fpc.mc"})
    for (Channel ch : {Channel::noc, Channel::dram})
      for (unsigned k : {1u, 2u})
        for (double bu : {0.0, 0.8}) {
          const auto codec = make_codec(preset);
          const EncodedBlocks enc = codec->encode_batch(v, 1);
          const StreamsView sv{enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(),
                               v.n_blocks};
          BusConfig c;
          c.channel = ch;
          c.width_bits = ch == Channel::noc ? 256 : 32;
          c.isolated = true;
          c.dbi = ch == Channel::dram ? Dbi::dc : Dbi::none;
          WireState s = initial_state(c);
          std::vector<EcBlock> out(v.n_blocks);
          const EcTotals t = energy_control(c, EcConfig{k, 1.0}, v, sv, &bu, 1, s, out.data(), false);
          const double g = ec_gain(bu);
          double cost_ec = 0, cost_raw = 0, cost_comp = 0;
          std::uint64_t sent_energy = 0;
          for (const EcBlock& b : out) {
            // E x D^k per block: raw D = 1; compressed D = 1 / (g CR) (sent compressed iff CR > 1).
            const double raw = b.raw.energy;
            const double comp = b.cr > 1 ? b.comp.energy / std::pow(g * b.cr, k) : raw;
            cost_raw += raw;
            cost_comp += comp;
            cost_ec += b.compressed ? comp : raw;
            sent_energy += b.compressed ? b.comp.energy : b.raw.energy;
            if (b.compressed) {
              EXPECT_GT(b.cr, 1.0);
            }
          }
          EXPECT_LE(cost_ec, cost_raw * (1 + 1e-12)) << preset;
          EXPECT_LE(cost_ec, cost_comp * (1 + 1e-12)) << preset;
          EXPECT_EQ(t.sent.energy, sent_energy);
          EXPECT_EQ(t.blocks, v.n_blocks);
        }
}

TEST(Toggles, MetadataConsolidationRoundTripsWithTheSameSize) {
  for (std::size_t B : {16u, 32u, 64u, 128u, 256u}) {
    const std::vector<std::uint8_t> flat = test::adversarial_blocks(B, 100);
    const BlockView v{flat.data(), flat.size() / B, B};
    for (const auto& [base, mc] :
         {std::pair<const char*, const char*>{"fpc.paper", "fpc.mc"}, {"cpack.paper", "cpack.mc"}}) {
      const auto a = make_codec(base), b = make_codec(mc);
      const EncodedBlocks ea = a->encode_batch(v, 1), eb = b->encode_batch(v, 1);
      EXPECT_EQ(ea.bit_lengths, eb.bit_lengths) << mc << " B=" << B;
      std::vector<std::uint8_t> back(flat.size());
      b->decode_batch(
          {eb.data.data(), eb.data.size(), eb.bit_offsets.data(), eb.bit_lengths.data(), eb.tags.data(), v.n_blocks, B},
          back.data(), 1);
      EXPECT_EQ(back, flat) << mc << " B=" << B;
    }
  }
}

TEST(Toggles, MetadataConsolidationLayoutIsMetasThenPayloads) {
  // C-Pack words 0, 12345678, 12345678, FF: codes 00, 01, 10, 1101; fields -, 32 bits, index 0, FF.
  std::vector<std::uint8_t> blk(16, 0);
  const std::uint32_t words[4] = {0, 0x12345678u, 0x12345678u, 0xFFu};
  for (int i = 0; i < 4; ++i) store<std::uint32_t>(blk.data() + 4 * i, words[i], Endian::little);
  const std::string metas = "00"
                            "01"
                            "10"
                            "1101";
  const std::string payloads = test::field(0x12345678u, 32) + "0000" + "11111111";
  EXPECT_EQ(test::stream_bits(*make_codec("cpack.mc"), blk), metas + payloads);
  EXPECT_EQ(test::decode_bits(*make_codec("cpack.mc"), metas + payloads, 16), blk);
  // FPC: a zero run then a raw word: prefixes 000 111, then run-1 = 2 and the word.
  std::vector<std::uint8_t> f(16, 0);
  store<std::uint32_t>(f.data() + 12, 0xDEADBEEFu, Endian::little);
  EXPECT_EQ(test::stream_bits(*make_codec("fpc.mc"), f), "000111" + test::field(2, 3) + test::field(0xDEADBEEFu, 32));
}

TEST(Toggles, MetadataConsolidationRejectsCorruptStreams) {
  std::vector<std::uint8_t> blk(32);
  for (std::size_t i = 0; i < blk.size(); ++i) blk[i] = static_cast<std::uint8_t>(i * 37 + 1);
  for (const char* preset : {"fpc.mc", "cpack.mc"}) {
    const auto c = make_codec(preset);
    const std::string bits = test::stream_bits(*c, blk);
    EXPECT_THROW(test::decode_bits(*c, bits.substr(0, bits.size() - 3), 32), corrupt_stream) << preset;
    EXPECT_THROW(test::decode_bits(*c, bits + "000000", 32), corrupt_stream) << preset;
  }
  EXPECT_THROW(test::decode_bits(*make_codec("fpc.mc"), "000111000", 16), corrupt_stream);
}

TEST(Toggles, BadInput) {
  EXPECT_THROW(bus_config({{"channel", std::string("pcie")}}), invalid_argument);
  EXPECT_THROW(bus_config({{"dbi", std::string("dc")}}), invalid_argument);  // noc
  EXPECT_THROW(bus_config({{"channel", std::string("dram")}, {"bus_bits", std::int64_t{24}}}), invalid_argument);
  EXPECT_THROW(bus_config({{"flit_byte", std::int64_t{8}}}), invalid_argument);
  EXPECT_THROW(bus_config({{"flit_bytes", std::int64_t{0}}}), invalid_argument);
  std::vector<std::uint8_t> data(16);
  const std::uint64_t off = 4;
  const std::uint32_t len = 8;
  BusConfig c;
  WireState s = initial_state(c);
  EXPECT_THROW(bus_count_streams(c, {data.data(), data.size(), &off, &len, 1}, s, nullptr, true), invalid_argument);
  const std::uint64_t off2 = 64;
  const std::uint32_t len2 = 200;
  EXPECT_THROW(bus_count_streams(c, {data.data(), data.size(), &off2, &len2, 1}, s, nullptr, true), invalid_argument);
  const double bu = 0;
  EXPECT_THROW(energy_control(c, EcConfig{3, 1.0}, {data.data(), 1, 16}, {data.data(), data.size(), &off2, &len, 1},
                              &bu, 1, s, static_cast<EcBlock*>(nullptr), true),
               invalid_argument);
}

// ---- Energy Control: the scan (EcPath::best, ::portable) equals the per-block reference ---------

namespace {

/// How a call asks for its output.
enum class EcOut { blocks, columns, some_columns, flags, none, null };
constexpr EcOut kEcOuts[] = {EcOut::blocks, EcOut::columns, EcOut::some_columns,
                             EcOut::flags,  EcOut::none,    EcOut::null};

/// Everything EC hands back over the chunks of one run.
struct EcRunOut {
  std::vector<EcTotals> totals;
  std::vector<WireState> states;  // after each chunk
  std::vector<EcBlock> blocks;
  std::vector<std::uint8_t> flags;
  std::vector<double> cr;
  std::vector<std::vector<std::uint32_t>> u32;  // t0, t1, units_raw, units_comp, bits_comp, sent.*
};

/// Blocks encoded inside EC (encode_energy_control) instead of streams given: the codec, its
/// chunk size and threads.
struct Fused {
  const Codec* codec = nullptr;
  std::size_t chunk_blocks = 0;
  int threads = 1;
};

/// EC over v and sv (or v encoded by fused.codec) in `chunks` consecutive calls (the state
/// carried, the bus closed after the last only, a stateful codec's stream in one session),
/// starting from `start`.
EcRunOut run_ec(const BusConfig& c, EcConfig ec, EcPath path, const BlockView& v, const StreamsView& sv,
                const std::vector<double>& bu, bool close, EcOut how, std::size_t chunks, const WireState& start,
                const Fused& fused = {}) {
  ec.path = path;
  const std::size_t n = v.n_blocks;
  EcRunOut r;
  const bool cols = how == EcOut::columns || how == EcOut::some_columns || how == EcOut::flags;
  if (how == EcOut::blocks) r.blocks.assign(n, EcBlock{});
  if (cols) r.flags.assign(n, 7);
  if (how == EcOut::columns || how == EcOut::some_columns) {
    r.cr.assign(n, -1.0);
    r.u32.assign(19, std::vector<std::uint32_t>(n, 0xDEADBEEFu));
  }
  WireState s = start;
  std::unique_ptr<Session> stream;
  if (fused.codec) stream = std::make_unique<Session>(*fused.codec);
  for (std::size_t k = 0; k < chunks; ++k) {
    const std::size_t b = n * k / chunks, e = n * (k + 1) / chunks;
    const BlockView cv = v.slice(b, e - b);
    const StreamsView cs{sv.data, sv.data_bytes, sv.bit_offsets + b, sv.bit_lengths + b, e - b};
    const bool scalar_bu = bu.size() == 1;
    const double* bp = scalar_bu ? bu.data() : bu.data() + b;
    const std::size_t bn = scalar_bu ? 1 : e - b;
    const bool last = close && k + 1 == chunks;
    auto columns = [&](const EcColumns* o) {
      return fused.codec ? encode_energy_control(*fused.codec, c, ec, cv, bp, bn, s, o, last, fused.threads,
                                                 stream.get(), fused.chunk_blocks)
                         : energy_control(c, ec, cv, cs, bp, bn, s, o, last);
    };
    EcTotals t;
    if (how == EcOut::blocks) {
      t = energy_control(c, ec, cv, cs, bp, bn, s, r.blocks.data() + b, last);
    } else if (how == EcOut::null) {
      t = columns(nullptr);
    } else {
      EcColumns o;
      if (cols) o.compressed = r.flags.data() + b;
      if (how == EcOut::columns) {
        o.cr = r.cr.data() + b;
        o.t0 = r.u32[0].data() + b;
        o.t1 = r.u32[1].data() + b;
        o.units_raw = r.u32[2].data() + b;
        o.units_comp = r.u32[3].data() + b;
        o.bits_comp = r.u32[4].data() + b;
        std::size_t j = 5;
#define MEMCOMP_T(f) o.sent.f = r.u32[j++].data() + b;
        MEMCOMP_BUS_FIELDS(MEMCOMP_T)
#undef MEMCOMP_T
      } else if (how == EcOut::some_columns) {
        o.t1 = r.u32[1].data() + b;
        o.sent.energy = r.u32[18].data() + b;
        o.sent.t01 = r.u32[9].data() + b;
      }
      t = columns(&o);
    }
    r.totals.push_back(t);
    r.states.push_back(s);
  }
  return r;
}

void expect_same_totals(const BusTotals& a, const BusTotals& b, const std::string& what) {
#define MEMCOMP_T(f) EXPECT_EQ(a.f, b.f) << what << " field " #f;
  MEMCOMP_BUS_FIELDS(MEMCOMP_T)
#undef MEMCOMP_T
}

void expect_same_state(const WireState& a, const WireState& b, const std::string& what) {
  EXPECT_TRUE(a.wires == b.wires) << what << " wires";
  EXPECT_TRUE(a.pins == b.pins) << what << " pins";
  EXPECT_EQ(a.idle, b.idle) << what << " idle";
  EXPECT_EQ(a.bus, b.bus) << what << " bus";
}

void expect_same_run(const EcRunOut& got, const EcRunOut& want, const std::string& what) {
  ASSERT_EQ(got.totals.size(), want.totals.size()) << what;
  for (std::size_t k = 0; k < got.totals.size(); ++k) {
    const EcTotals &a = got.totals[k], &b = want.totals[k];
    const std::string w = what + " chunk " + std::to_string(k);
    EXPECT_EQ(a.blocks, b.blocks) << w;
    EXPECT_EQ(a.compressed, b.compressed) << w;
    EXPECT_EQ(a.raw_bits, b.raw_bits) << w;
    EXPECT_EQ(a.sent_bits, b.sent_bits) << w;
    EXPECT_EQ(a.raw_units, b.raw_units) << w;
    EXPECT_EQ(a.sent_units, b.sent_units) << w;
    expect_same_totals(a.sent, b.sent, w);
    expect_same_state(got.states[k], want.states[k], w);
  }
  EXPECT_EQ(got.flags, want.flags) << what << " flags";
  ASSERT_EQ(got.cr.size(), want.cr.size()) << what;
  for (std::size_t i = 0; i < got.cr.size(); ++i) EXPECT_EQ(got.cr[i], want.cr[i]) << what << " cr " << i;
  for (std::size_t j = 0; j < got.u32.size(); ++j) EXPECT_EQ(got.u32[j], want.u32[j]) << what << " column " << j;
  ASSERT_EQ(got.blocks.size(), want.blocks.size()) << what;
  for (std::size_t i = 0; i < got.blocks.size(); ++i) {
    EXPECT_EQ(got.blocks[i].compressed, want.blocks[i].compressed) << what << " block " << i;
    EXPECT_EQ(got.blocks[i].cr, want.blocks[i].cr) << what << " block " << i;
    expect_same_counts(got.blocks[i].raw, want.blocks[i].raw, what + " raw block " + std::to_string(i));
    expect_same_counts(got.blocks[i].comp, want.blocks[i].comp, what + " comp block " + std::to_string(i));
    if (::testing::Test::HasFailure()) return;
  }
}

/// A wire state with random wires, pins and idle flag (what a C++ caller may hand in).
WireState random_state(const BusConfig& c, unsigned seed) {
  std::mt19937 rng(seed);
  WireState s = initial_state(c);
  for (auto& w : s.wires) w = static_cast<std::uint8_t>(rng());
  for (auto& p : s.pins) p = static_cast<std::uint8_t>(rng() % 2);
  s.idle = rng() % 2 == 0;
  return s;
}

/// Lengths on every edge the scan cuts at: empty, one bit, byte and unit edges, the CR threshold
/// by units and by bits, the block's bits, longer than the block; the data runs out with the
/// last stream (no slack after it), raw blocks of patterns and random bytes.
EcCase edge_case(const BusConfig& c, std::size_t B, unsigned seed) {
  std::mt19937 rng(seed);
  const std::uint32_t W = c.width_bits, bits = static_cast<std::uint32_t>(8 * B);
  const std::uint32_t unit = c.channel == Channel::dram ? W * c.burst_length : W;
  const std::uint32_t raw_units = (bits + unit - 1) / unit;
  std::vector<std::uint32_t> lens = {0,        1,        7,     8,         9,        W - 1,
                                     W,        W + 1,    2 * W, 2 * W + 3, unit - 1, unit,
                                     unit + 1, bits - 1, bits,  bits + 1,  bits + W, 3 * bits + 5};
  for (std::uint32_t u = 1; u <= raw_units + 1; ++u)
    for (std::uint32_t d : {0u, 1u, 2u}) {
      lens.push_back(u * unit - 1 + d);  // at, below and above a unit boundary
    }
  EcCase e;
  const std::uint8_t patterns[] = {0x00, 0xFF, 0xAA, 0x55, 0x0F, 0x80, 0x01};
  for (std::size_t rep = 0; rep < 3; ++rep)
    for (std::uint32_t len : lens) {
      e.comp.offsets.push_back(8 * e.comp.data.size());
      e.comp.lengths.push_back(len);
      const int kind = static_cast<int>(rng() % 9);
      for (std::uint32_t b = 0; b < (len + 7) / 8; ++b)
        e.comp.data.push_back(kind < 7 ? patterns[kind] : static_cast<std::uint8_t>(rng()));
      const int rk = static_cast<int>(rng() % 9);
      for (std::size_t j = 0; j < B; ++j)
        e.raw.push_back(rk < 7 ? patterns[rk] : static_cast<std::uint8_t>(rng() % (rk == 7 ? 4 : 256)));
    }
  // Shuffle the blocks (streams keep their bytes; their order in the buffer stays).
  std::vector<std::size_t> order(e.comp.lengths.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  EcCase s;
  s.comp.data = e.comp.data;
  for (std::size_t i : order) {
    s.comp.offsets.push_back(e.comp.offsets[i]);
    s.comp.lengths.push_back(e.comp.lengths[i]);
    s.raw.insert(s.raw.end(), e.raw.begin() + static_cast<std::ptrdiff_t>(i * B),
                 e.raw.begin() + static_cast<std::ptrdiff_t>((i + 1) * B));
  }
  return s;  // (the buffer ends with the last stream's bytes)
}

/// Codec streams of adversarial and random blocks (realistic lengths and contents).
EcCase codec_case(const char* preset, std::size_t B) {
  EcCase e;
  e.raw = test::adversarial_blocks(B, 150, 3);
  const auto codec = make_codec(preset);
  const EncodedBlocks enc = codec->encode_batch({e.raw.data(), e.raw.size() / B, B}, 1);
  e.comp.data.assign(enc.data.begin(), enc.data.end());
  e.comp.offsets.assign(enc.bit_offsets.begin(), enc.bit_offsets.end());
  e.comp.lengths.assign(enc.bit_lengths.begin(), enc.bit_lengths.end());
  return e;
}

/// Every path against the reference on one case, over k, the ratio, close, alpha, bu, output
/// kinds, chunking and start states.
void check_ec_paths(const BusConfig& c, const EcCase& e, std::size_t B, unsigned seed, const std::string& what) {
  const BlockView v = e.view(B);
  const StreamsView sv = e.comp.view();
  std::size_t variant = seed;
  for (unsigned k : {0u, 1u, 2u})
    for (EcRatio ratio : {EcRatio::units, EcRatio::bits})
      for (bool close : {false, true}) {
        ++variant;
        const EcOut how = kEcOuts[variant % 6];
        const std::size_t chunks = 1 + variant % 3;
        const double alpha = variant % 4 == 0 ? 1.0 : variant % 4 == 1 ? 0.75 : variant % 4 == 2 ? 2.5 : 1.0;
        std::vector<double> bu{variant % 2 ? 0.0 : 0.8};
        if (variant % 3 == 1) {
          bu.resize(v.n_blocks);
          for (std::size_t i = 0; i < bu.size(); ++i) bu[i] = static_cast<double>((i * 7 + variant) % 11) / 10.0;
        }
        const WireState start = variant % 4 == 3 ? random_state(c, seed + static_cast<unsigned>(variant))
                                                 : initial_state(c);
        const EcConfig ec{k, alpha, ratio};
        const EcRunOut want = run_ec(c, ec, EcPath::reference, v, sv, bu, close, how, chunks, start);
        for (EcPath path : {EcPath::best, EcPath::portable}) {
          const std::string w = what + (path == EcPath::best ? " best" : " portable") + " k" + std::to_string(k) +
                                (ratio == EcRatio::units ? " units" : " bits") + (close ? " close" : " open") +
                                " out " + std::to_string(static_cast<int>(how)) + " chunks " + std::to_string(chunks) +
                                " alpha " + std::to_string(alpha) +
                                (bu.size() == 1 ? " bu " + std::to_string(bu[0]) : " bu per block") +
                                (variant % 4 == 3 ? " random start" : "");
          expect_same_run(run_ec(c, ec, path, v, sv, bu, close, how, chunks, start), want, w);
          if (::testing::Test::HasFailure()) return;
        }
      }
}

}  // namespace

TEST(Toggles, EnergyControlPathsAgreeOnChip) {
  for (std::size_t B : {32u, 128u, 24u, 8u, 64u})
    for (unsigned flit : {1u, 3u, 4u, 8u, 16u, 24u, 32u, 64u})
      for (Pad pad : {Pad::zero, Pad::one, Pad::hold})
        for (bool isolated : {false, true})
          for (bool init_ones : {false, true}) {
            BusConfig c;
            c.width_bits = 8 * flit;
            c.pad = pad;
            c.isolated = isolated;
            c.init_ones = init_ones;
            const std::string what = "noc B " + std::to_string(B) + " flit " + std::to_string(flit) + " pad " +
                                     std::to_string(static_cast<int>(pad)) + (isolated ? " iso" : " stream") +
                                     (init_ones ? " init 1" : " init 0");
            const auto seed = static_cast<unsigned>(B * 131 + flit * 7 + static_cast<unsigned>(pad) * 3 + isolated);
            check_ec_paths(c, ec_case(B, 90, seed), B, seed, what + " random");
            check_ec_paths(c, edge_case(c, B, seed), B, seed + 1, what + " edges");
            if (::testing::Test::HasFailure()) return;
          }
}

TEST(Toggles, EnergyControlPathsAgreeOnDram) {
  for (std::size_t B : {32u, 128u, 24u})
    for (unsigned bus : {8u, 16u, 32u, 64u})
      for (unsigned bl : {1u, 2u, 8u, 32u})
        for (Dbi dbi : {Dbi::none, Dbi::dc, Dbi::ac})
          for (Pad pad : {Pad::zero, Pad::one, Pad::hold})
            for (bool idle_high : {true, false})
              for (bool isolated : {false, true}) {
                if (dbi != Dbi::none && (bl == 2 || bus == 16 || pad == Pad::one)) continue;  // (the reference anyway)
                BusConfig c;
                c.channel = Channel::dram;
                c.width_bits = bus;
                c.burst_length = bl;
                c.dbi = dbi;
                c.pad = pad;
                c.idle_high = idle_high;
                c.isolated = isolated;
                const std::string what = "dram B " + std::to_string(B) + " bus " + std::to_string(bus) + " bl " +
                                         std::to_string(bl) + " dbi " + std::to_string(static_cast<int>(dbi)) +
                                         " pad " + std::to_string(static_cast<int>(pad)) +
                                         (idle_high ? " high" : " low") + (isolated ? " iso" : " stream");
                const auto seed = static_cast<unsigned>(B * 17 + bus * 5 + bl + static_cast<unsigned>(pad) * 3);
                check_ec_paths(c, ec_case(B, 70, seed), B, seed, what + " random");
                check_ec_paths(c, edge_case(c, B, seed), B, seed + 1, what + " edges");
                if (::testing::Test::HasFailure()) return;
              }
}

TEST(Toggles, EnergyControlPathsAgreeOnCodecStreams) {
  for (std::size_t B : {32u, 64u, 128u})
    for (const char* preset : {"bdi.paper", "fpc.paper", "cpack.paper", "fpc.mc"}) {
      const EcCase e = codec_case(preset, B);
      for (Channel ch : {Channel::noc, Channel::dram})
        for (unsigned w : {32u, 64u, 256u})
          for (Pad pad : {Pad::zero, Pad::hold})
            for (bool isolated : {false, true}) {
              if (ch == Channel::dram && w > 64) continue;
              BusConfig c;
              c.channel = ch;
              c.width_bits = w;
              c.pad = pad;
              c.isolated = isolated;
              check_ec_paths(c, e, B, static_cast<unsigned>(B + w),
                             std::string(preset) + " B " + std::to_string(B) +
                                 (ch == Channel::noc ? " noc " : " dram ") + std::to_string(w) +
                                 (isolated ? " iso" : " stream"));
              if (::testing::Test::HasFailure()) return;
            }
    }
}

TEST(Toggles, EncodeAndEnergyControlInOnePassEqualsEcOverTheStreams) {
  for (std::size_t B : {32u, 128u})
    for (const char* preset : {"bdi.paper", "fpc.paper", "cpack.skku", "bpc.isca16"}) {
      const EcCase e = codec_case(preset, B);  // the streams of one encode_batch over all blocks
      const auto codec = make_codec(preset);
      const BlockView v = e.view(B);
      std::vector<double> bu(v.n_blocks);
      for (std::size_t i = 0; i < bu.size(); ++i) bu[i] = static_cast<double>(i % 11) / 10.0;
      for (Channel ch : {Channel::noc, Channel::dram})
        for (EcOut how : {EcOut::columns, EcOut::some_columns, EcOut::flags, EcOut::null})
          for (std::size_t chunk_blocks : {0u, 1u, 7u, 64u}) {
            BusConfig c;
            c.channel = ch;
            c.width_bits = ch == Channel::noc ? 128 : 32;
            const EcConfig ec{2, 1.0, EcRatio::bits};
            const EcRunOut want = run_ec(c, ec, EcPath::best, v, e.comp.view(), bu, true, how, 1, initial_state(c));
            const int threads = chunk_blocks == 64 ? 2 : 1;
            const std::string what = std::string(preset) + " B " + std::to_string(B) +
                                     (ch == Channel::noc ? " noc" : " dram") + " out " +
                                     std::to_string(static_cast<int>(how)) + " chunk " + std::to_string(chunk_blocks);
            expect_same_run(run_ec(c, ec, EcPath::best, v, {}, bu, true, how, 1, initial_state(c),
                                   {codec.get(), chunk_blocks, threads}),
                            want, what);
            if (::testing::Test::HasFailure()) return;
          }
    }
}

TEST(Toggles, EncodeAndEnergyControlInOnePassRejectsBadInput) {
  const auto codec = make_codec("bdi.paper");
  const std::vector<std::uint8_t> raw(32 * 10, 1);
  const BusConfig c;
  WireState s = initial_state(c);
  const std::vector<double> bu(3, 0.0);
  EXPECT_THROW(encode_energy_control(*codec, c, EcConfig{}, {raw.data(), 10, 32}, bu.data(), 3, s, nullptr, true, 1),
               invalid_argument);
  EXPECT_THROW(
      encode_energy_control(*codec, c, EcConfig{3, 1.0}, {raw.data(), 10, 32}, bu.data(), 1, s, nullptr, true, 1),
      invalid_argument);
  EXPECT_THROW(encode_energy_control(*make_codec("mpc.cal22_rtl"), c, EcConfig{}, {raw.data(), 2, 160}, bu.data(), 1, s,
                                     nullptr, true, 1),
               invalid_argument);
}

TEST(Toggles, EnergyControlLongRunsOfRawBlocks) {
  // Long runs of blocks sent raw whatever the state (the run kernel), broken by empty streams
  // and by blocks EC decides, at every unit size that divides the block.
  std::mt19937 rng(5);
  for (std::size_t B : {32u, 128u}) {
    const std::size_t n = 3000;
    EcCase e;
    e.raw.resize(n * B);
    for (std::size_t i = 0; i < e.raw.size(); ++i)
      e.raw[i] = static_cast<std::uint8_t>(i / B % 5 == 0 ? 0 : i / B % 5 == 1 ? rng() & 0x0F : rng());
    for (std::size_t i = 0; i < n; ++i) {
      const auto r = rng() % 100;
      const auto len = static_cast<std::uint32_t>(r < 2 ? 0 : r < 6 ? rng() % (8 * B) : 8 * B + r);
      e.comp.offsets.push_back(8 * e.comp.data.size());
      e.comp.lengths.push_back(len);
      for (std::uint32_t b = 0; b < (len + 7) / 8; ++b) e.comp.data.push_back(static_cast<std::uint8_t>(rng()));
    }
    for (unsigned flit : {1u, 2u, 4u, 8u, 16u, 32u, 64u}) {
      if (B % flit) continue;
      BusConfig c;
      c.width_bits = 8 * flit;
      check_ec_paths(c, e, B, flit, "noc long runs B " + std::to_string(B) + " flit " + std::to_string(flit));
      if (::testing::Test::HasFailure()) return;
    }
    for (unsigned bus : {8u, 32u, 64u}) {
      BusConfig c;
      c.channel = Channel::dram;
      c.width_bits = bus;
      c.burst_length = 4;
      check_ec_paths(c, e, B, bus, "dram long runs B " + std::to_string(B) + " bus " + std::to_string(bus));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(Toggles, EnergyControlRunKernelsAgree) {
  std::mt19937 rng(9);
  std::vector<std::uint8_t> d(5000);
  for (auto& x : d) x = static_cast<std::uint8_t>(rng() % 3 == 0 ? 0 : rng());
  for (std::size_t u : {1u, 2u, 3u, 4u, 8u, 16u, 24u, 32u, 64u})
    for (std::size_t len = u; len <= d.size(); len += len < 300 ? 1 : 97)
      for (std::size_t start : {0u, 1u, 7u}) {
        if (start + len > d.size()) continue;
        std::uint64_t tog0 = 11, ones0 = 13;  // the kernels add to what is there
        ASSERT_TRUE(detail::ec_run_kernel(0, d.data() + start, len, u, tog0, ones0));
        std::uint64_t tog_ref = 11, ones_ref = 13;
        for (std::size_t p = 0; p + u < len; ++p) {
          tog_ref += static_cast<std::uint64_t>(__builtin_popcount(d[start + p] ^ d[start + p + u]));
          ones_ref += static_cast<std::uint64_t>(__builtin_popcount(d[start + p + u]));
        }
        ASSERT_EQ(tog0, tog_ref) << "u " << u << " len " << len;
        ASSERT_EQ(ones0, ones_ref) << "u " << u << " len " << len;
        for (unsigned isa : {1u, 2u}) {
          std::uint64_t tog = 11, ones = 13;
          if (!detail::ec_run_kernel(isa, d.data() + start, len, u, tog, ones)) continue;  // not on this CPU
          ASSERT_EQ(tog, tog_ref) << "isa " << isa << " u " << u << " len " << len;
          ASSERT_EQ(ones, ones_ref) << "isa " << isa << " u " << u << " len " << len;
        }
      }
  std::uint64_t t = 0, o = 0;
  EXPECT_FALSE(detail::ec_run_kernel(3, d.data(), 64, 8, t, o));
}

TEST(Toggles, EnergyControlWithSimdOffIsTheReference) {
  // The SIMD switch off turns the best path into the reference (its portable equal).
  const EcCase e = ec_case(32, 200, 77);
  BusConfig c;
  const BlockView v = e.view(32);
  const std::vector<double> bu{0.0};
  const EcRunOut want =
      run_ec(c, EcConfig{}, EcPath::reference, v, e.comp.view(), bu, true, EcOut::blocks, 2, initial_state(c));
  const bool was = simd_enabled();
  set_simd(false);
  const EcRunOut got =
      run_ec(c, EcConfig{}, EcPath::best, v, e.comp.view(), bu, true, EcOut::blocks, 2, initial_state(c));
  set_simd(was);
  expect_same_run(got, want, "simd off");
}

// The bus options' table: defaults and a full non-default set written back exactly, parse(write(c))
// == c, and a state marked with the whole configuration (expected maps written by hand, SPEC 2).
TEST(BusConfigTable, RoundTrip) {
  const Options defaults{
      {"channel", std::string("noc")},   {"flit_bytes", std::int64_t{32}},       {"bus_bits", std::int64_t{32}},
      {"burst_length", std::int64_t{8}}, {"pad", std::string("zero")},           {"mode", std::string("stream")},
      {"init", std::int64_t{0}},         {"idle", std::string("high")},          {"dbi", std::string("none")},
      {"ac_threshold", std::int64_t{4}}, {"ac_first", std::string("threshold")}, {"ac_count_pin", false}};
  const BusConfig d = bus_config({});
  EXPECT_EQ(bus_options(d), defaults);
  EXPECT_EQ(d.width_bits, 256u);  // 8 * 32 flit bytes
  const Options dram{{"channel", std::string("dram")},
                     {"flit_bytes", std::int64_t{32}},  // not read on DRAM
                     {"bus_bits", std::int64_t{16}},
                     {"burst_length", std::int64_t{4}},
                     {"pad", std::string("hold")},
                     {"mode", std::string("isolated")},
                     {"init", std::int64_t{1}},
                     {"idle", std::string("low")},
                     {"dbi", std::string("ac")},
                     {"ac_threshold", std::int64_t{2}},
                     {"ac_first", std::string("no_invert")},
                     {"ac_count_pin", true}};
  const BusConfig c = bus_config(dram);
  EXPECT_EQ(c.channel, Channel::dram);
  EXPECT_EQ(c.width_bits, 16u);
  EXPECT_EQ(c.burst_length, 4u);
  EXPECT_EQ(c.pad, Pad::hold);
  EXPECT_TRUE(c.isolated && c.init_ones && !c.idle_high && c.ac_first_no_invert && c.ac_count_pin);
  EXPECT_EQ(c.dbi, Dbi::ac);
  EXPECT_EQ(c.ac_threshold, 2u);
  EXPECT_EQ(bus_options(c), dram);
  EXPECT_EQ(bus_config(bus_options(c)), c);
  EXPECT_NE(c, d);
  // the width option of the other channel is accepted (in range) and changes nothing
  Options other = dram;
  other["flit_bytes"] = std::int64_t{8};
  EXPECT_EQ(bus_config(other), c);
  EXPECT_EQ(bus_options(bus_config({{"flit_bytes", std::int64_t{8}}, {"bus_bits", std::int64_t{64}}}))["bus_bits"],
            OptionValue{std::int64_t{32}});
  EXPECT_THROW(bus_config({{"flit_bytes", std::int64_t{8}}, {"bus_bits", std::int64_t{128}}}), invalid_argument);
  // every key of the table, in its domain, with help
  const OptionSpace space = bus_table().space();
  ASSERT_EQ(space.size(), defaults.size());
  for (const auto& kv : defaults) {
    ASSERT_EQ(space.count(kv.first), 1u) << kv.first;
    EXPECT_EQ(space.at(kv.first).dflt, kv.second) << kv.first;
    EXPECT_FALSE(space.at(kv.first).help.empty()) << kv.first;
  }
  EXPECT_EQ(space.at("dbi").choices, (std::vector<std::string>{"none", "dc", "ac"}));
  EXPECT_THROW(bus_config({{"burst_length", std::string("8")}}), type_error);
  // a configuration differing in any one option is another bus, and a state says which it is on
  for (const auto& kv : dram) {
    if (kv.first == "flit_bytes") continue;
    Options one = dram;
    one[kv.first] = defaults.at(kv.first);
    if (kv.first == "channel") one["dbi"] = std::string("none");  // DBI is DRAM's only
    EXPECT_NE(bus_config(one), c) << kv.first;
  }
  EXPECT_EQ(initial_state(c).bus, c);
}

TEST(EcConfigTable, KindsAlphaAndRatioComeFromTheTable) {
  // the names map to the decision's power of CR, and back
  const std::vector<std::pair<std::string, unsigned>> kinds{{"ec1", 1u}, {"ec2", 2u}, {"helps", 0u}};
  for (const auto& [name, k] : kinds) {
    const EcConfig c = ec_config({{"kind", name}});
    EXPECT_EQ(c.k, k) << name;
    EXPECT_EQ(std::get<std::string>(ec_table().write(c).at("kind")), name);
  }
  const EcConfig d = ec_config({});
  EXPECT_EQ(d.k, 2u);
  EXPECT_EQ(d.alpha, 1.0);
  EXPECT_EQ(d.ratio, EcRatio::units);
  EXPECT_EQ(ec_config({{"ratio", std::string("bits")}, {"alpha", 2.5}}).ratio, EcRatio::bits);
  EXPECT_EQ(ec_config({{"alpha", 2.5}}).alpha, 2.5);
  // refused: an unknown kind or ratio, an option that is not EC's, alpha <= 0 or not finite
  EXPECT_THROW(ec_config({{"kind", std::string("ec3")}}), invalid_argument);
  EXPECT_THROW(ec_config({{"ratio", std::string("bytes")}}), invalid_argument);
  EXPECT_THROW(ec_config({{"bu", 0.5}}), invalid_argument);
  for (double a : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")})
    EXPECT_THROW(ec_config({{"alpha", a}}), invalid_argument) << a;
  const OptionSpace space = ec_table().space();
  EXPECT_EQ(space.at("kind").choices, (std::vector<std::string>{"ec1", "ec2", "helps"}));
  EXPECT_EQ(space.at("ratio").choices, (std::vector<std::string>{"units", "bits"}));
}
