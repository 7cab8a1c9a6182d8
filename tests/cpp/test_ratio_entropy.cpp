// Ratio entropy, guess_dtype and MPC extraction (SPEC 1.12, 3; W12) against plain oracles and
// tests/golden/mpc_analysis.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "json_lite.hpp"
#include "memcomp/analysis/entropy.hpp"
#include "memcomp/analysis/ratio_entropy.hpp"

using namespace memcomp;

namespace {

Json golden() { return test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/mpc_analysis.json"); }

// floor(log2(a/b)): the largest k with b 2^k <= a, by exact integer search.
int floor_oracle(std::uint64_t a, std::uint64_t b) {
  int best = -100;
  for (int k = -40; k <= 40; ++k) {
    const bool le = k >= 0 ? (b << k) <= a : b <= (a << -k);
    if (le) best = k;
  }
  return best;
}

// nearest integer to log2(a/b): 4^k / 2 <= a^2 / b^2 < 2 4^k, with long double squares.
int round_oracle(std::uint64_t a, std::uint64_t b) {
  const long double r = static_cast<long double>(a) * a / (static_cast<long double>(b) * b);
  for (int k = -40; k <= 40; ++k)
    if (r >= std::ldexp(1.0L, 2 * k - 1) && r < std::ldexp(1.0L, 2 * k + 1)) return k;
  return 999;
}

std::vector<std::uint8_t> random_blocks(std::size_t n, std::size_t B, unsigned seed, int zero_pct = 20) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v(n * B);
  for (auto& x : v) x = static_cast<std::uint8_t>(static_cast<int>(rng() % 100) < zero_pct ? 0 : rng() % 256);
  return v;
}

std::vector<std::uint64_t> naive_counts(const std::vector<std::uint8_t>& data, std::size_t B, const RatioOptions& o) {
  const RatioLayout L(o);
  const std::size_t w = o.elem_bytes, n = B / w, nb = data.size() / B;
  std::vector<std::uint64_t> c(n * n * L.buckets, 0);
  for (std::size_t b = 0; b < nb; ++b)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j) continue;
        std::uint64_t x = 0, y = 0;
        for (std::size_t k = 0; k < w; ++k) {
          x |= std::uint64_t{data[b * B + i * w + k]} << (8 * k);
          y |= std::uint64_t{data[b * B + j * w + k]} << (8 * k);
        }
        ++c[(i * n + j) * L.buckets + L.bucket(x, y, o)];
      }
  return c;
}

}  // namespace

TEST(RatioEntropy, QuantisersExactOnAllBytePairs) {
  for (std::uint64_t a = 1; a < 256; ++a)
    for (std::uint64_t b = 1; b < 256; ++b) {
      ASSERT_EQ(ratio_floor_log2(a, b), floor_oracle(a, b)) << a << "/" << b;
      ASSERT_EQ(ratio_round_log2(a, b), round_oracle(a, b)) << a << "/" << b;
    }
  std::mt19937_64 rng(7);
  for (int t = 0; t < 20000; ++t) {
    const std::uint64_t a = (rng() >> (rng() % 64)) % 0xFFFFFFFFu + 1, b = (rng() >> (rng() % 64)) % 0xFFFFFFFFu + 1;
    ASSERT_EQ(ratio_floor_log2(a, b), floor_oracle(a, b)) << a << "/" << b;
    ASSERT_EQ(ratio_round_log2(a, b), round_oracle(a, b)) << a << "/" << b;
  }
}

TEST(RatioEntropy, GoldenQuantisersBucketsLayouts) {
  const Json g = golden();
  for (const Json& c : g["floor"].elements())
    EXPECT_EQ(
        ratio_floor_log2(static_cast<std::uint64_t>(c.at(0).as_int()), static_cast<std::uint64_t>(c.at(1).as_int())),
        c.at(2).as_int());
  for (const Json& c : g["round"].elements())
    EXPECT_EQ(
        ratio_round_log2(static_cast<std::uint64_t>(c.at(0).as_int()), static_cast<std::uint64_t>(c.at(1).as_int())),
        c.at(2).as_int());
  for (const Json& c : g["buckets"].elements()) {
    RatioOptions o;
    const std::string z = c["zeros"].as_string();
    o.zeros = z == "buckets" ? RatioZeros::buckets : z == "exclude" ? RatioZeros::exclude : RatioZeros::as_one;
    o.quantiser = c["quantiser"].as_string() == "floor" ? RatioQuantiser::floor : RatioQuantiser::round;
    o.is_signed = c["signed"].as_bool();
    EXPECT_EQ(RatioLayout(o).bucket(static_cast<std::uint64_t>(c["a"].as_int()),
                                    static_cast<std::uint64_t>(c["b"].as_int()), o),
              static_cast<std::uint64_t>(c["bucket"].as_int()));
  }
  for (const Json& c : g["layouts"].elements()) {
    RatioOptions o;
    o.quantiser = c["quantiser"].as_string() == "floor" ? RatioQuantiser::floor : RatioQuantiser::round;
    o.is_signed = c["signed"].as_bool();
    o.elem_bytes = static_cast<unsigned>(static_cast<std::uint64_t>(c["elem_bytes"].as_int()));
    EXPECT_EQ(RatioLayout(o).buckets, static_cast<std::uint64_t>(c["buckets"].as_int()));
  }
}

TEST(RatioEntropy, CountsMatchNaiveForEveryOption) {
  for (unsigned w : {1u, 2u, 4u})
    for (auto z : {RatioZeros::buckets, RatioZeros::exclude, RatioZeros::as_one})
      for (auto q : {RatioQuantiser::floor, RatioQuantiser::round})
        for (bool s : {false, true}) {
          RatioOptions o;
          o.zeros = z;
          o.quantiser = q;
          o.is_signed = s;
          o.elem_bytes = w;
          const std::size_t B = w == 1 ? 16 : 32;
          const auto data = random_blocks(300, B, 3 + w);
          RatioCounts rc(B, o);
          rc.add({data.data(), 300, B}, 3);
          ASSERT_EQ(rc.counts(), naive_counts(data, B, o));
          ASSERT_EQ(rc.blocks(), 300u);
        }
}

TEST(RatioEntropy, MergeEqualsWholeAndThreadsDoNotMatter) {
  const auto data = random_blocks(20000, 32, 11);
  RatioCounts whole(32), a(32), b(32), t4(32);
  whole.add({data.data(), 20000, 32}, 1);
  a.add({data.data(), 7000, 32}, 1);
  b.add({data.data() + 7000 * 32, 13000, 32}, 2);
  a.merge(b);
  t4.add({data.data(), 20000, 32}, 4);
  EXPECT_EQ(a.counts(), whole.counts());
  EXPECT_EQ(t4.counts(), whole.counts());
  RatioOptions other;
  other.quantiser = RatioQuantiser::round;
  EXPECT_THROW(a.merge(RatioCounts(32, other)), invalid_argument);
  EXPECT_THROW(a.add({data.data(), 10, 16}, 1), invalid_argument);
}

// The byte path counts in 16-bit rounds of 65,535 blocks: 140,000 copies of one sector (three
// rounds on one thread) count 140,000 in each pair's bucket, as the sector counted alone times that.
TEST(RatioEntropy, CountsPastA16BitRound) {
  const auto one = random_blocks(1, 32, 3);
  std::vector<std::uint8_t> data;
  for (int k = 0; k < 140000; ++k) data.insert(data.end(), one.begin(), one.end());
  RatioCounts many(32), single(32);
  many.add({data.data(), 140000, 32}, 1);
  single.add({one.data(), 1, 32}, 1);
  for (std::size_t i = 0; i < single.counts().size(); ++i) ASSERT_EQ(many.counts()[i], 140000u * single.counts()[i]);
}

TEST(RatioEntropy, MatrixIsEntropyOfEachPairAndExcludeDropsZeroBuckets) {
  const auto data = random_blocks(2000, 32, 5, 40);
  for (auto z : {RatioZeros::buckets, RatioZeros::exclude}) {
    RatioOptions o;
    o.zeros = z;
    RatioCounts rc(32, o);
    rc.add({data.data(), 2000, 32});
    std::vector<double> re(32 * 32);
    rc.entropy(re.data());
    for (std::size_t i = 0; i < 32; ++i)
      for (std::size_t j = 0; j < 32; ++j) {
        if (i == j) {
          EXPECT_EQ(re[i * 32 + j], 0.0);
          continue;
        }
        // oracle: entropy over the pairs kept by the option
        std::map<unsigned, double> h;
        double n = 0;
        const RatioLayout L(o);
        for (std::size_t b = 0; b < 2000; ++b) {
          const unsigned k = L.bucket(data[b * 32 + i], data[b * 32 + j], o);
          if (z == RatioZeros::exclude && k < 3) continue;
          h[k] += 1;
          n += 1;
        }
        double e = 0;
        for (const auto& [k, c] : h) e -= c / n * std::log2(c / n);
        EXPECT_NEAR(re[i * 32 + j], e, 1e-9);
      }
  }
}

TEST(GuessDtype, GoldenBlocks) {
  const Json gold = golden();
  for (const Json& c : gold["guess_dtype"].elements()) {
    const std::string hex = c["hex"].as_string();
    std::uint8_t blk[32];
    for (std::size_t i = 0; i < 32; ++i)
      blk[i] = static_cast<std::uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
    EXPECT_EQ(guess_dtype_block(blk), c["group"].as_int()) << hex;
    EXPECT_EQ(mpc_special_class(blk), c["special"].as_int()) << hex;
  }
  std::vector<std::uint8_t> b16(16);
  std::int8_t g;
  EXPECT_THROW(classify_blocks({b16.data(), 1, 16}, &g, nullptr), invalid_argument);
}

TEST(Mst, KruskalMatchesBruteForceOnSmallGraphs) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 2 + rng() % 5;  // up to 6 nodes: <= 15 edges
    std::vector<double> w(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) w[i * n + j] = w[j * n + i] = static_cast<double>(rng() % 4);  // ties
    const auto tree = kruskal_mst(w.data(), n);
    ASSERT_EQ(tree.size(), n - 1);
    double got = 0;
    for (const Edge& e : tree) got += w[static_cast<std::size_t>(e.u) * n + static_cast<std::size_t>(e.v)];
    // brute force over all edge subsets of size n - 1 that span
    std::vector<std::pair<std::size_t, std::size_t>> all;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) all.emplace_back(i, j);
    double best = 1e300;
    for (std::uint32_t mask = 0; mask < (1u << all.size()); ++mask) {
      if (static_cast<std::size_t>(__builtin_popcount(mask)) != n - 1) continue;
      std::vector<std::size_t> p(n);
      for (std::size_t k = 0; k < n; ++k) p[k] = k;
      auto find = [&](std::size_t x) {
        while (p[x] != x) x = p[x];
        return x;
      };
      bool ok = true;
      double s = 0;
      for (std::size_t k = 0; k < all.size() && ok; ++k)
        if (mask >> k & 1u) {
          const std::size_t a = find(all[k].first), b = find(all[k].second);
          if (a == b) ok = false;
          p[a] = b;
          s += w[all[k].first * n + all[k].second];
        }
      if (ok) best = std::min(best, s);
    }
    ASSERT_EQ(got, best);
  }
}

TEST(Mst, RootIsMinimumHeightThenEntropyThenIndex) {
  // path 0-1-2-3-4: centre 2
  std::vector<Edge> path{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 4, 0}};
  Tree t = orient_tree(path, 5);
  EXPECT_EQ(t.root, 2);
  EXPECT_EQ(t.height, 2);
  EXPECT_EQ(t.base, (std::vector<int>{1, 2, 2, 2, 3}));
  // path 0-1-2-3: centres 1 and 2; lowest index without entropies, the higher entropy with them
  std::vector<Edge> p4{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}};
  EXPECT_EQ(orient_tree(p4, 4).root, 1);
  const double h[4] = {8, 1, 2, 8};
  EXPECT_EQ(orient_tree(p4, 4, h).root, 2);
  EXPECT_EQ(tree_height(p4, 4, 0), 3);
}

TEST(Mst, ModalShift) {
  RatioOptions o;
  const RatioLayout L(o);
  std::vector<std::uint64_t> c(L.buckets, 0);
  auto at = [&](int q) -> std::uint64_t& { return c[3 + static_cast<std::size_t>(q - L.q_min)]; };
  at(2) = 10;
  at(-1) = 10;
  EXPECT_EQ(modal_shift(c.data(), L, o), -1);  // ties to the lowest
  c[kZ0x] = 11;
  EXPECT_EQ(modal_shift(c.data(), L, o), -8);  // target zero
  c[kZ00] = 40;                                // base mostly zero: ratio buckets only
  EXPECT_EQ(modal_shift(c.data(), L, o), -1);
  std::fill(c.begin(), c.end(), 0);
  EXPECT_EQ(modal_shift(c.data(), L, o), 0);
}

TEST(Mpc, XorPlanesFollowSpecSteps) {
  std::mt19937 rng(2);
  MpcPredictor m;
  m.root = 5;
  for (int j = 0; j < 32; ++j) {
    m.base[static_cast<std::size_t>(j)] = j == 5 ? 5 : static_cast<int>(rng() % 32);
    m.shift[static_cast<std::size_t>(j)] = static_cast<int>(rng() % 17) - 8;
  }
  for (int t = 0; t < 50; ++t) {
    std::uint8_t b[32];
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    std::vector<int> R{b[5]};
    for (int j = 0; j < 32; ++j) {
      if (j == 5) continue;
      const int s = m.shift[static_cast<std::size_t>(j)], v = b[m.base[static_cast<std::size_t>(j)]];
      const int pred = s > 0 ? (v << s) & 255 : s < 0 ? v >> -s : v;
      R.push_back((b[j] - pred) & 255);
    }
    const auto x = mpc_xor_planes(b, m);
    for (int p = 0; p < 8; ++p)
      for (int c = 0; c < 32; ++c) {
        const int P = (R[static_cast<std::size_t>(c)] >> (7 - p)) & 1;
        const int Pu = p ? (R[static_cast<std::size_t>(c)] >> (8 - p)) & 1 : 0;
        const int X = (p == 0 || c == 0) ? P : P ^ Pu;
        const unsigned cell = static_cast<unsigned>(32 * p + c);
        ASSERT_EQ(static_cast<int>((x[cell / 64] >> (cell % 64)) & 1u), X);
      }
  }
}

TEST(Mpc, CellZerosAndGreedyScan) {
  const auto data = random_blocks(5000, 32, 21, 60);
  MpcPredictor m;
  m.root = 0;
  for (int j = 1; j < 32; ++j) m.base[static_cast<std::size_t>(j)] = j - 1;
  CellZeroStats s, s2;
  s.add({data.data(), 5000, 32}, m, 1);
  s2.add({data.data(), 5000, 32}, m, 3);
  EXPECT_EQ(s.co_zeros(), s2.co_zeros());
  std::vector<std::uint64_t> zeros(256, 0), co(256 * 256, 0);
  for (std::size_t b = 0; b < 5000; ++b) {
    const auto x = mpc_xor_planes(data.data() + 32 * b, m);
    for (std::size_t c1 = 0; c1 < 256; ++c1) {
      const bool z1 = !((x[c1 / 64] >> (c1 % 64)) & 1u);
      zeros[c1] += z1;
      for (std::size_t c2 = 0; c2 < 256; ++c2) co[c1 * 256 + c2] += z1 && !((x[c2 / 64] >> (c2 % 64)) & 1u);
    }
  }
  EXPECT_EQ(s.zeros(), zeros);
  EXPECT_EQ(s.co_zeros(), co);
  const auto order = greedy_scan(zeros.data(), co.data());
  ASSERT_EQ(order.size(), 256u);
  EXPECT_EQ(std::set<int>(order.begin(), order.end()).size(), 256u);
  // first: most zeros (lowest index on ties); then the best co-zero successor of each
  const auto first = static_cast<int>(std::max_element(zeros.begin(), zeros.end()) - zeros.begin());
  EXPECT_EQ(order[0], first);
  std::set<int> used{order[0]};
  for (std::size_t t = 1; t < 256; ++t) {
    const auto prev = static_cast<std::size_t>(order[t - 1]);
    for (int c = 0; c < 256; ++c)
      if (!used.count(c)) {
        const auto better = co[prev * 256 + static_cast<std::size_t>(c)] >
                            co[prev * 256 + static_cast<std::size_t>(order[t])];
        const auto tie_lower = co[prev * 256 + static_cast<std::size_t>(c)] ==
                                   co[prev * 256 + static_cast<std::size_t>(order[t])] &&
                               c < order[t];
        ASSERT_FALSE(better || tie_lower) << t;
      }
    used.insert(order[t]);
  }
}

TEST(Mpc, W12SyntheticExtraction) {
  // byte 4q + c = byte c; bytes 0..3 random non-zero
  std::mt19937 rng(12);
  const std::size_t N = 4000;
  std::vector<std::uint8_t> data(N * 32);
  for (std::size_t b = 0; b < N; ++b)
    for (std::size_t c = 0; c < 4; ++c) {
      const auto v = static_cast<std::uint8_t>(1 + rng() % 255);
      for (std::size_t q = 0; q < 8; ++q) data[b * 32 + 4 * q + c] = v;
    }
  RatioCounts rc(32);
  rc.add({data.data(), N, 32});
  std::vector<double> re(32 * 32);
  rc.entropy(re.data());
  for (std::size_t i = 0; i < 32; ++i)
    for (std::size_t j = 0; j < 32; ++j) {
      if (i % 4 == j % 4) {
        EXPECT_EQ(re[i * 32 + j], 0.0);
      } else {
        EXPECT_GT(re[i * 32 + j], 1.0);
      }
    }
  const auto w = edge_weights(re.data(), 32, EdgeWeight::mean);
  const auto edges = kruskal_mst(w.data(), 32);
  std::set<std::pair<int, int>> es;
  for (const Edge& e : edges) es.insert({e.u, e.v});
  const Json g = golden();
  for (const Json& s : g["w12"]["stars"].elements())
    EXPECT_TRUE(es.count({static_cast<int>(s.at(0).as_int()), static_cast<int>(s.at(1).as_int())}));
  const Tree t = orient_tree(edges, 32);
  MpcPredictor m;
  m.root = t.root;
  for (std::size_t j = 0; j < 32; ++j) {
    m.base[j] = t.base[j];
    if (static_cast<int>(j) == t.root) continue;
    m.shift[j] = modal_shift(rc.counts().data() + (j * 32 + static_cast<std::size_t>(t.base[j])) * rc.buckets(),
                             rc.layout(), rc.options());
    if (static_cast<int>(j) % 4 == t.base[j] % 4) {
      EXPECT_EQ(m.shift[j], 0) << j;
    }
  }
  // intra-class residues are zero: every column whose byte has a same-class base is all zero
  for (std::size_t b = 0; b < 200; ++b) {
    const auto x = mpc_xor_planes(data.data() + 32 * b, m);
    int c = 1;
    for (int j = 0; j < 32; ++j) {
      if (j == t.root) continue;
      if (j % 4 == t.base[static_cast<std::size_t>(j)] % 4)
        for (int p = 0; p < 8; ++p) {
          const unsigned cell = static_cast<unsigned>(32 * p + c);
          EXPECT_EQ((x[cell / 64] >> (cell % 64)) & 1u, 0u);
        }
      ++c;
    }
  }
}
