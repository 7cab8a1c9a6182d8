// The SIMD tier switch (core/simd.hpp) and the codecs' kernel tables (src/codecs/kernels/): a
// tier above the CPU's is refused, each table holds kernels exactly at the tiers that have them,
// and every table of every tier the CPU has measures, encodes and decodes as the scalar code.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "analysis/kernels/block_entropy.hpp"
#include "analysis/kernels/bus.hpp"
#include "analysis/kernels/cell_zeros.hpp"
#include "analysis/kernels/ec_run.hpp"
#include "codecs/kernels/bdi.hpp"
#include "codecs/kernels/bpc.hpp"
#include "codecs/kernels/cpack.hpp"
#include "codecs/kernels/e2mc.hpp"
#include "codecs/kernels/fibonacci.hpp"
#include "codecs/kernels/fpc.hpp"
#include "codecs/kernels/lzss.hpp"
#include "codecs/kernels/mpc.hpp"
#include "memcomp/analysis/entropy.hpp"
#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/simd.hpp"
#include "test_util.hpp"

namespace memcomp {
namespace {

const SimdTier kTiers[] = {SimdTier::scalar, SimdTier::avx2, SimdTier::avx512};

/// The tiers this CPU has, lowest first.
std::vector<SimdTier> supported() {
  std::vector<SimdTier> out;
  for (const SimdTier t : kTiers)
    if (t <= simd_tier_supported()) out.push_back(t);
  return out;
}

/// Puts the switch back as the process started it (the CPU's highest tier, fast paths on).
struct RestoreTier {
  ~RestoreTier() {
    detail::simd_limit_cpu(SimdTier::avx512);
    set_simd_tier(simd_tier_supported());
  }
};

TEST(SimdTier, NamesAndOrder) {
  EXPECT_STREQ(simd_tier_name(SimdTier::scalar), "scalar");
  EXPECT_STREQ(simd_tier_name(SimdTier::avx2), "avx2");
  EXPECT_STREQ(simd_tier_name(SimdTier::avx512), "avx512");
  EXPECT_EQ(simd_tier(), simd_tier_supported());  // the default: the CPU's highest
}

TEST(SimdTier, SetGetAndTheOldSwitches) {
  const RestoreTier restore;
  for (const SimdTier t : supported()) {
    set_simd_tier(t);
    EXPECT_EQ(simd_tier(), t);
    EXPECT_TRUE(simd_enabled());
    EXPECT_EQ(simd_avx2(), t >= SimdTier::avx2);
    EXPECT_EQ(simd_avx512(), t == SimdTier::avx512);
    set_simd(false);  // the whole scalar reference, whatever the tier
    EXPECT_EQ(simd_tier(), SimdTier::scalar);
    EXPECT_FALSE(simd_avx2());
    set_simd(true);  // back to the tier set before
    EXPECT_EQ(simd_tier(), t);
  }
  set_simd_tier(simd_tier_supported());
  set_simd_avx512(false);  // at most AVX2
  EXPECT_EQ(simd_tier(), std::min(simd_tier_supported(), SimdTier::avx2));
  set_simd_avx512(true);
  EXPECT_EQ(simd_tier(), simd_tier_supported());
  set_simd_tier(SimdTier::scalar);
  set_simd_avx512(false);  // holding to AVX2 never raises a lower tier
  EXPECT_EQ(simd_tier(), SimdTier::scalar);
}

TEST(SimdTier, AboveTheCpuIsRefused) {
  const RestoreTier restore;
  for (const SimdTier cpu : supported()) {
    detail::simd_limit_cpu(cpu);
    EXPECT_EQ(simd_tier_supported(), cpu);
    EXPECT_LE(simd_tier(), cpu);
    for (const SimdTier t : kTiers) {
      if (t <= cpu) {
        EXPECT_NO_THROW(set_simd_tier(t));
        EXPECT_EQ(simd_tier(), t);
        continue;
      }
      try {
        set_simd_tier(t);
        ADD_FAILURE() << simd_tier_name(t) << " on a CPU of " << simd_tier_name(cpu);
      } catch (const invalid_argument& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(std::string("tier ") + simd_tier_name(t)), std::string::npos) << msg;
        EXPECT_NE(msg.find(std::string("highest, ") + simd_tier_name(cpu)), std::string::npos) << msg;
      }
      EXPECT_LE(simd_tier(), cpu);  // a refused tier changes nothing
    }
  }
  EXPECT_THROW(set_simd_tier(static_cast<SimdTier>(3)), invalid_argument);
}

/// Sizes, streams and decoded blocks of c on x (blocks of B bytes) at tier t (scalar with
/// reference: set_simd(false)).
struct Outcome {
  explicit Outcome(std::size_t n) : sizes(n) {}
  test::Columns sizes;
  std::vector<std::uint8_t> stream, decoded;
  std::vector<std::uint32_t> lengths;
};
Outcome run_at(const Codec& c, const std::vector<std::uint8_t>& x, std::size_t B, SimdTier t, bool reference) {
  set_simd_tier(t);
  if (reference) set_simd(false);
  const BlockView v{x.data(), x.size() / B, B};
  Outcome o(v.n_blocks);
  c.measure_batch(v, o.sizes.view(), 1);
  if (!c.exact()) return o;  // accounting-only: sizes
  const EncodedBlocks e = c.encode_batch(v, 1);
  o.stream.assign(e.data.begin(), e.data.end());
  o.lengths.assign(e.bit_lengths.begin(), e.bit_lengths.end());
  o.decoded.resize(x.size());
  c.decode_batch(
      {e.data.data(), e.data.size(), e.bit_offsets.data(), e.bit_lengths.data(), e.tags.data(), v.n_blocks, B},
      o.decoded.data(), 1);
  return o;
}

/// Every tier the CPU has equals the scalar reference on adversarial and random blocks of every
/// size the codec takes (measure, encode, decode).
void expect_tiers_equal(const std::string& preset, const Options& o = {},
                        const std::vector<std::size_t>& sizes = {16, 32, 64, 128, 256}) {
  const RestoreTier restore;
  const auto c = make_codec(preset, o);
  for (const std::size_t B : sizes) {
    auto x = test::adversarial_blocks(B, 300, static_cast<unsigned>(B));
    const Outcome ref = run_at(*c, x, B, SimdTier::scalar, true);
    if (c->exact()) {
      EXPECT_EQ(ref.decoded, x) << preset << " " << B;
    }
    for (const SimdTier t : supported()) {
      const Outcome got = run_at(*c, x, B, t, false);
      EXPECT_TRUE(got.sizes == ref.sizes) << preset << " " << B << " " << simd_tier_name(t);
      EXPECT_EQ(got.stream, ref.stream) << preset << " " << B << " " << simd_tier_name(t);
      EXPECT_EQ(got.lengths, ref.lengths) << preset << " " << B << " " << simd_tier_name(t);
      EXPECT_EQ(got.decoded, ref.decoded) << preset << " " << B << " " << simd_tier_name(t);
    }
  }
}

/// The entries of a table (entries(): whether each is set, for the active tier): all null at
/// scalar and after set_simd(false), all set from tier `lowest` on.
void expect_table(const std::function<std::vector<bool>()>& entries, SimdTier lowest) {
  const RestoreTier restore;
  for (const SimdTier t : supported()) {
    set_simd_tier(t);
    for (const bool e : entries()) EXPECT_EQ(e, t >= lowest) << simd_tier_name(t);
  }
  set_simd(false);
  for (const bool e : entries()) EXPECT_FALSE(e);
}

TEST(KernelTables, Fpc) {
  expect_table(
      [] {
        const FpcKernels& k = fpc_kernels();
        return std::vector<bool>{k.measure_range != nullptr, k.encode_range != nullptr, k.decode_lanes != nullptr};
      },
      SimdTier::avx2);
  expect_tiers_equal("fpc.paper");
  expect_tiers_equal("fpc.paper", {{"endian", std::string("big")}});
  expect_tiers_equal("fpc.gem5");
  expect_tiers_equal("fpc.mc");
  expect_tiers_equal("fpc.skku");  // accounting-only: measure
}

TEST(KernelTables, Bdi) {
  expect_table(
      [] {
        const BdiKernels& k = bdi_kernels();
        std::vector<bool> set;
        for (const std::size_t b : {32u, 64u, 128u, 256u})
          for (const bool sym : {false, true}) {
            for (const bool big : {false, true})
              set.insert(set.end(), {k.measure_range(b, sym, big) != nullptr, k.classify(b, sym, big) != nullptr,
                                     k.write_deltas(b, sym, big) != nullptr, k.read_deltas(b, big) != nullptr});
          }
        return set;
      },
      SimdTier::avx2);
  EXPECT_EQ(bdi_kernels().measure_range(16, false, false), nullptr);  // no kernel below 32 B
  expect_tiers_equal("bdi.paper");
  expect_tiers_equal("bdi.paper", {{"endian", std::string("big")}, {"encoding", std::string("inband")}});
  expect_tiers_equal("bdi.paper", {{"delta_fit", std::string("symmetric")}});
  expect_tiers_equal("bdi.paper", {{"immediates", std::string("zero")}, {"repeat4", true}});
}

TEST(KernelTables, Bpc) {
  expect_table(
      [] {
        const BpcKernels& k = bpc_kernels();
        return std::vector<bool>{k.measure_block != nullptr, k.measure_range != nullptr, k.transpose33 != nullptr,
                                 k.encode_planes != nullptr, k.decode_one != nullptr,    k.decode_pair != nullptr};
      },
      SimdTier::avx2);
  for (const char* preset : {"bpc.isca16", "bpc.liu", "bpc.nap64", "bpc.skku", "bpc.cal22"}) expect_tiers_equal(preset);
  expect_tiers_equal("bpc.isca16", {{"endian", std::string("big")}, {"code_map", std::string("kim")}});
  expect_tiers_equal("bpc.isca16", {{"delta_bits", std::int64_t{32}}, {"alt_mode", std::string("planes")}});
  expect_tiers_equal("bpc.liu", {{"endian", std::string("big")}, {"precedence", std::string("kim")}});
}

/// Blocks whose words come back after P others (P = 12 to 20), whole or with their low byte or
/// half changed, so matches meet the 16-slot dictionaries' evictions at and past the edge.
std::vector<std::uint8_t> cyclic_blocks(std::size_t B) {
  std::vector<std::uint8_t> x;
  for (unsigned P = 12; P <= 20; ++P)
    for (unsigned change = 0; change < 4; ++change)
      for (unsigned zeros = 0; zeros < 2; ++zeros) {
        const std::size_t at = x.size();
        x.resize(at + B);
        for (std::size_t i = 0; i < B / 4; ++i) {
          std::uint32_t w = 0x01000000u * static_cast<std::uint32_t>(i % P + 1) + 0x00ABCD00u;
          const bool later = i >= P && (i / P) % 2 == 1;
          if (later && change == 1) w ^= 0x5Au;
          if (later && change == 2) w ^= 0x5A5Au;
          if (later && change == 3) w ^= 0x5A0000u;
          if (zeros && i % 5 == 2) w = i % 10 == 2 ? 0u : 0x7Fu;
          store<std::uint32_t>(x.data() + at + 4 * i, w, Endian::little);
        }
      }
  return x;
}

TEST(KernelTables, Cpack) {
  expect_table(
      [] {
        const CpackKernels& k = cpack_kernels();
        return std::vector<bool>{k.measure_range != nullptr, k.measure_groups != nullptr, k.encode_range != nullptr,
                                 k.encode_sets != nullptr,   k.encode_block != nullptr,   k.decode_lanes != nullptr};
      },
      SimdTier::avx2);
  for (const char* push : {"unmatched", "literal", "nonzero", "nonnarrow"})
    for (const char* dict : {"fifo", "deque", "fill"}) {
      const Options o{{"push", std::string(push)}, {"dictionary", std::string(dict)}};
      expect_tiers_equal("cpack.paper", o);
      Options big = o;
      big["endian"] = std::string("big");
      big["layout"] = std::string("mc");
      expect_tiers_equal("cpack.paper", big);
    }
  expect_tiers_equal("cpack.paper", {{"init", std::string("zeros")}, {"dictionary", std::string("deque")}});
  expect_tiers_equal("cpack.paper", {{"init", std::string("zeros")}, {"layout", std::string("mc")}});  // fifo
  expect_tiers_equal("cpack.paper", {{"persistent", true}});
  for (const char* push : {"literal", "nonzero"})  // zero entries that pushes evict (measure_groups)
    expect_tiers_equal("cpack.paper", {{"init", std::string("zeros")}, {"push", std::string(push)}});
  expect_tiers_equal("cpack.gem5");  // the block dictionary: sizes only
  expect_tiers_equal("cpack.gem5", {{"endian", std::string("big")}, {"push", std::string("nonzero")}});
  const RestoreTier restore;
#if defined(MEMCOMP_X86_SIMD)
  for (const SimdTier t : supported()) {  // the AVX-512 tier's own 16-lane measure; the AVX2 entries else
    set_simd_tier(t);
    if (t == SimdTier::avx512) {
      EXPECT_EQ(&cpack_kernels(), &kCpackAvx512);
      EXPECT_EQ(cpack_kernels().measure_groups, &cpack_measure_groups_avx512);
      EXPECT_EQ(cpack_kernels().encode_range, &cpack_encode_range_avx512);
      EXPECT_EQ(cpack_kernels().decode_lanes, kCpackAvx2.decode_lanes);
    }
  }
#endif
  for (const std::size_t B : {32u, 64u, 128u, 256u}) {
    const auto x = cyclic_blocks(B);
    for (const char* dict : {"fifo", "deque", "fill", "block"})
      for (const char* push : {"unmatched", "literal", "nonnarrow", "nonzero"})
        for (const char* init : {"empty", "zeros"}) {
          if (std::string(init) == "zeros" && (std::string(dict) == "fill" || std::string(dict) == "block")) continue;
          const auto c =
              make_codec("cpack.paper",
                         {{"dictionary", std::string(dict)}, {"push", std::string(push)}, {"init", std::string(init)}});
          const Outcome ref = run_at(*c, x, B, SimdTier::scalar, true);
          for (const SimdTier t : supported())
            EXPECT_TRUE(run_at(*c, x, B, t, false).sizes == ref.sizes)
                << dict << " " << push << " " << init << " " << B << " " << simd_tier_name(t);
        }
  }
}

TEST(KernelTables, BlockEntropy) {
  // The scalar tier runs the portable all-pairs loop; every other tier its own table.
  const RestoreTier restore;
  for (const SimdTier t : supported()) {
    set_simd_tier(t);
    EXPECT_EQ(block_entropy_kernels().first_counts == &detail::block_entropy::first_counts, t == SimdTier::scalar)
        << simd_tier_name(t);
  }
  // Each tier's SL-32 block entropies equal the scalar all-pairs reference, bit for bit: on
  // adversarial blocks and blocks of 1 to 5 distinct words, in either byte order.
  std::mt19937_64 rng(11);
  for (const std::size_t B : {16u, 32u, 64u, 128u, 256u}) {
    auto x = test::adversarial_blocks(B, 100, static_cast<unsigned>(B));
    for (std::size_t k = 0; k < 300; ++k)
      for (std::size_t i = 0; i < B / 4; ++i) {
        const auto w = static_cast<std::uint32_t>(rng() % (1 + k % 5)) * 0x01000193u;
        x.insert(x.end(), {static_cast<std::uint8_t>(w), static_cast<std::uint8_t>(w >> 8),
                           static_cast<std::uint8_t>(w >> 16), static_cast<std::uint8_t>(w >> 24)});
      }
    const BlockView v{x.data(), x.size() / B, B};
    for (const Endian e : {Endian::little, Endian::big}) {
      set_simd_tier(SimdTier::scalar);
      std::vector<double> ref(v.n_blocks), got(v.n_blocks);
      block_entropy(v, 32, e, ref.data(), 1);
      for (const SimdTier t : supported()) {
        set_simd_tier(t);
        block_entropy(v, 32, e, got.data(), 2);
        EXPECT_EQ(got, ref) << B << " " << simd_tier_name(t);
      }
    }
  }
}

TEST(KernelTables, E2mc) {
  expect_table([] { return std::vector<bool>{e2mc_kernels().bits32 != nullptr}; }, SimdTier::avx2);
  const RestoreTier restore;
  const auto x = test::adversarial_blocks(128, 300, 4);
  for (const char* endian : {"little", "big"})  // SL 32, one table, trained on the blocks
    for (const std::int64_t pdw : {1, 4}) {     // one segment (the sum), or each from the symbols' bits
      const Options o{{"symbol_bits", std::int64_t{32}}, {"endian", std::string(endian)}, {"pdw", pdw}};
      auto c = make_codec("e2mc.paper", o);
      c = c->fitted(BlockView{x.data(), x.size() / 128, 128}, 1);
      for (const SimdTier t : supported()) {
        set_simd_tier(t);
        test::Columns got(x.size() / 128), ref(x.size() / 128);
        c->measure_batch(BlockView{x.data(), x.size() / 128, 128}, got.view(), 1);
        set_simd(false);
        c->measure_batch(BlockView{x.data(), x.size() / 128, 128}, ref.view(), 1);
        EXPECT_TRUE(got == ref) << endian << " " << pdw << " " << simd_tier_name(t);
      }
    }
}

TEST(KernelTables, Mpc) {
  expect_table(
      [] {
        const MpcKernels& k = mpc_kernels();
        return std::vector<bool>{k.measure_range != nullptr, k.choose != nullptr, k.inverse != nullptr};
      },
      SimdTier::avx2);
#if defined(MEMCOMP_X86_SIMD)
  {
    const RestoreTier restore;  // each tier its own kernels
    for (const SimdTier t : supported()) {
      set_simd_tier(t);
      const MpcKernels* want = t == SimdTier::avx512 ? &kMpcAvx512 : t == SimdTier::avx2 ? &kMpcAvx2 : nullptr;
      if (want != nullptr) {
        EXPECT_EQ(mpc_kernels().measure_range, want->measure_range) << simd_tier_name(t);
        EXPECT_EQ(mpc_kernels().choose, want->choose) << simd_tier_name(t);
        EXPECT_EQ(mpc_kernels().inverse, want->inverse) << simd_tier_name(t);
      }
    }
  }
#endif
  for (const char* select : {"rtl", "min_bits"})
    expect_tiers_equal("mpc.cal22_rtl", {{"select", std::string(select)}}, {32});
}

TEST(KernelTables, Fibonacci) {
  expect_table(
      [] {
        const FibKernels& k = fib_kernels();
        return std::vector<bool>{k.encode_range != nullptr, k.decode_lanes != nullptr};
      },
      SimdTier::avx2);
  expect_tiers_equal("fib.ours");
  expect_tiers_equal("fib.ours", {{"endian", std::string("big")}});
}

// LZSS's tiers parse over equality masks where the scalar code walks hash chains: the same tokens
// for every option, on adversarial blocks and on blocks of 1 to 4 distinct units (long matches,
// many sources of equal length: the nearest must win).
TEST(KernelTables, Lzss) {
  expect_table([] { return std::vector<bool>{lzss_kernels().rows != nullptr}; }, SimdTier::avx2);
  const std::vector<Options> configs = {
      {},
      {{"min_match", std::int64_t{1}}},
      {{"min_match", std::int64_t{2}}, {"length_bits", std::int64_t{1}}},
      {{"min_match", std::int64_t{5}}, {"length_bits", std::int64_t{8}}},
      {{"min_match", std::int64_t{16}}, {"length_bits", std::int64_t{2}}},
      {{"token_bytes", std::int64_t{4}}},
      {{"token_bytes", std::int64_t{4}}, {"min_match", std::int64_t{3}}, {"length_bits", std::int64_t{8}}},
      {{"token_bytes", std::int64_t{4}}, {"endian", std::string("big")}, {"length_bits", std::int64_t{1}}}};
  std::mt19937_64 rng(7);
  for (const Options& o : configs) {
    expect_tiers_equal("lzss.block", o);
    const RestoreTier restore;
    const auto c = make_codec("lzss.block", o);
    for (const std::size_t B : {16u, 32u, 64u, 128u, 256u}) {
      std::vector<std::uint8_t> x(B * 400);
      for (std::size_t i = 0; i < x.size(); i += 4) {
        const unsigned alphabet = 1 + static_cast<unsigned>(i / B % 4);  // 1 to 4 distinct units per block
        const std::uint32_t word = static_cast<std::uint32_t>(rng() % alphabet) * 0x01010101u;
        for (unsigned k = 0; k < 4; ++k) x[i + k] = static_cast<std::uint8_t>(i / B % 8 < 4 ? word : rng() % alphabet);
      }
      const Outcome ref = run_at(*c, x, B, SimdTier::scalar, true);
      EXPECT_EQ(ref.decoded, x);
      for (const SimdTier t : supported()) {
        const Outcome got = run_at(*c, x, B, t, false);
        EXPECT_TRUE(got.sizes == ref.sizes) << B << " " << simd_tier_name(t);
        EXPECT_EQ(got.stream, ref.stream) << B << " " << simd_tier_name(t);
      }
    }
  }
#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
  const LzssKernels* own[] = {nullptr, &kLzssAvx2, &kLzssAvx512};
  for (const SimdTier t : supported()) {
    set_simd_tier(t);
    if (own[static_cast<int>(t)] != nullptr) {
      EXPECT_EQ(&lzss_kernels(), own[static_cast<int>(t)]);
    }
  }
  set_simd_tier(simd_tier_supported());
#endif
}

#if defined(MEMCOMP_X86_SIMD) && defined(__x86_64__)
TEST(KernelTables, EnergyControlRuns) {
  const RestoreTier restore;
  const EcRunKernels* table[] = {nullptr, &kEcRunAvx2, &kEcRunAvx512};
  const detail::ec::RunFn portable = detail::ec::run_kernel(true, false);
  std::mt19937_64 rng(5);
  std::vector<std::uint8_t> d(4099);
  for (auto& v : d) v = static_cast<std::uint8_t>(rng());
  for (const SimdTier t : supported()) {
    set_simd_tier(t);
    const auto k = static_cast<std::size_t>(t);
    // The scan takes the active tier's kernel on the best path, the portable one otherwise.
    EXPECT_EQ(detail::ec::run_kernel(true, false), portable) << simd_tier_name(t);
    if (table[k] != nullptr) {
      EXPECT_EQ(detail::ec::run_kernel(true, true), table[k]->fast_pop) << simd_tier_name(t);
      EXPECT_EQ(detail::ec::run_kernel(false, true), table[k]->generic) << simd_tier_name(t);
    } else {
      EXPECT_EQ(detail::ec::run_kernel(true, true), portable);
    }
    // Its sums equal the portable kernel's: every length around the vector widths, units 1..64.
    for (std::size_t len : {1u, 31u, 32u, 33u, 64u, 65u, 127u, 128u, 129u, 1000u, 4096u})
      for (std::size_t u : {1u, 4u, 32u, 64u}) {
        if (u >= len) continue;
        std::uint64_t t0 = 0, o0 = 0, t1 = 0, o1 = 0;
        portable(d.data() + 3, len, u, t0, o0);
        detail::ec::run_kernel(true, true)(d.data() + 3, len, u, t1, o1);
        EXPECT_EQ(t1, t0) << simd_tier_name(t) << " " << len << " " << u;
        EXPECT_EQ(o1, o0) << simd_tier_name(t) << " " << len << " " << u;
      }
  }
}

TEST(KernelTables, CellZeros) {
  const RestoreTier restore;
  const CellZeroKernels* table[] = {nullptr, &kCellZeroAvx2, &kCellZeroAvx512};
  std::mt19937_64 rng(9);
  for (const SimdTier t : supported()) {
    set_simd_tier(t);
    const auto k = static_cast<std::size_t>(t);
    if (table[k] != nullptr) {
      EXPECT_EQ(cell_zero_kernels().co_zero, table[k]->co_zero) << simd_tier_name(t);
    }
    // The portable sums at every tile width (a tail of 1..7 words past the eight-word steps).
    for (std::size_t w : {1u, 3u, 7u, 8u, 9u, 15u, 16u, 63u, 64u}) {
      std::vector<std::uint64_t> z(256 * w);
      for (auto& v : z) v = rng() & rng();  // about a quarter of the bits set
      std::vector<std::uint64_t> want(256 * 256, 1), got(256 * 256, 1);
      detail::cell_zeros::co_zero(z.data(), w, want.data(), detail::cell_zeros::pop_generic);
      cell_zero_kernels().co_zero(z.data(), w, got.data());
      EXPECT_EQ(got, want) << simd_tier_name(t) << " w=" << w;
      EXPECT_EQ(got[1 * 256 + 0], 1u);  // below the diagonal: untouched
    }
  }
}

TEST(KernelTables, BusStreamBounds) {
  expect_table([] { return std::vector<bool>{bus_kernels().stream_bounds == kBusAvx2.stream_bounds}; }, SimdTier::avx2);
  const RestoreTier restore;
  const std::vector<std::uint64_t> off = {0, 8, 64, 1024, 40};
  const std::vector<std::uint32_t> len = {8, 56, 960, 3, 0};
  const StreamsView v{nullptr, 200, off.data(), len.data(), off.size()};
  for (const SimdTier t : supported()) {
    set_simd_tier(t);
    const detail::bus::StreamBounds b = bus_kernels().stream_bounds(v);
    EXPECT_EQ(b.low, 0u | 8u | 64u | 1024u | 40u);
    EXPECT_EQ(b.max_off, 1024u);
    EXPECT_EQ(b.max_end, 1027u);
    EXPECT_EQ(b.longest, 960u);
    EXPECT_EQ(b.shortest, 0u);
  }
}
#endif

}  // namespace
}  // namespace memcomp
