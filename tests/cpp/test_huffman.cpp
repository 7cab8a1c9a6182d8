// Canonical-Huffman machinery (SPEC 1.8, W1): golden vectors from tests/golden/huffman.json,
// then properties of the length limits, the canonical code, the decoder and the JSON tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "json_lite.hpp"
#include "memcomp/codecs/huffman.hpp"
#include "memcomp/core/bitstream.hpp"
#include "memcomp/core/simd.hpp"
#include "memcomp/stats/symbol_counts.hpp"

using namespace memcomp;
using namespace memcomp::huffman;
using memcomp::test::Json;

namespace {

const Json& golden() {
  static const Json g = test::parse_file(std::string(MEMCOMP_GOLDEN_DIR) + "/huffman.json");
  return g;
}

std::uint64_t u64(const Json& v) { return static_cast<std::uint64_t>(v.as_int()); }
unsigned as_uint(const Json& v) { return static_cast<unsigned>(v.as_int()); }

std::vector<Leaf> leaves_of(const Json& arr) {
  std::vector<Leaf> out;
  for (const Json& p : arr.elements()) out.push_back(Leaf{u64(p.at(0)), u64(p.at(1))});
  return out;
}

std::vector<unsigned> uints(const Json& arr) {
  std::vector<unsigned> out;
  for (const Json& v : arr.elements()) out.push_back(as_uint(v));
  return out;
}

std::string bit_string(std::uint64_t code, unsigned len) {
  std::string s;
  for (unsigned i = len; i-- > 0;) s += (code >> i & 1) ? '1' : '0';
  return s;
}

/// The stream bits [0, nbits) as a '0'/'1' string.
std::string stream_string(const std::vector<std::uint8_t>& buf, std::size_t nbits) {
  std::string s;
  for (std::size_t i = 0; i < nbits; ++i) s += (buf[i / 8] >> (7 - i % 8) & 1) ? '1' : '0';
  return s;
}

/// Kraft sum * 2^32 of the non-zero lengths.
std::uint64_t kraft32(const std::vector<unsigned>& len) {
  std::uint64_t k = 0;
  for (unsigned l : len)
    if (l) k += std::uint64_t{1} << (32 - l);
  return k;
}

__extension__ typedef unsigned __int128 u128;  // exact costs of 64-bit weights

u128 cost(const std::vector<Leaf>& leaves, const std::vector<unsigned>& len) {
  u128 c = 0;
  for (std::size_t i = 0; i < leaves.size(); ++i) c += u128{leaves[i].weight} * len[i];
  return c;
}

u128 total_weight(const std::vector<Leaf>& leaves) {
  u128 t = 0;
  for (const Leaf& l : leaves) t += l.weight;
  return t;
}

std::string str(u128 x) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
    x /= 10;
  } while (x);
  return s;
}

long double entropy_bits(const std::vector<Leaf>& leaves) {
  long double total = 0, h = 0;
  for (const Leaf& l : leaves) total += static_cast<long double>(l.weight);
  for (const Leaf& l : leaves) {
    if (l.weight == 0) continue;
    const long double p = static_cast<long double>(l.weight) / total;
    h -= p * std::log2(p);
  }
  return h;
}

/// Textbook Huffman cost: sum of all merged weights, with a plain min-heap.
u128 heap_huffman_cost(const std::vector<Leaf>& leaves) {
  std::priority_queue<u128, std::vector<u128>, std::greater<u128>> q;
  for (const Leaf& l : leaves) q.push(l.weight);
  if (q.size() == 1) return q.top();  // one leaf: length 1
  u128 total = 0;
  while (q.size() > 1) {
    const u128 a = q.top();
    q.pop();
    const u128 b = q.top();
    q.pop();
    total += a + b;
    q.push(a + b);
  }
  return total;
}

std::vector<std::uint64_t> fibonacci_weights(std::size_t n) {
  // Fibonacci weights force the deepest trees; past F(88) (~1.1e18) they repeat the largest.
  std::vector<std::uint64_t> f{1, 1};
  while (f.size() < 88) f.push_back(f[f.size() - 1] + f[f.size() - 2]);
  std::vector<std::uint64_t> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = f[std::min<std::size_t>(i, f.size() - 1)];
  return w;
}

std::vector<Leaf> with_keys(const std::vector<std::uint64_t>& w, std::uint64_t stride = 1) {
  std::vector<Leaf> out;
  for (std::size_t i = 0; i < w.size(); ++i) out.push_back(Leaf{i * stride, w[i]});
  return out;
}

enum class Dist { fibonacci, geometric, flat, near_flat, zipf, random };

std::vector<std::uint64_t> weights(Dist d, std::size_t n, std::mt19937_64& rng) {
  std::vector<std::uint64_t> w(n);
  switch (d) {
    case Dist::fibonacci: return fibonacci_weights(n);
    case Dist::geometric:
      for (std::size_t i = 0; i < n; ++i) w[i] = std::uint64_t{1} << std::min<std::size_t>(i, 62);
      break;
    case Dist::flat: std::fill(w.begin(), w.end(), 1000); break;
    case Dist::near_flat:
      for (auto& x : w) x = 1000 + rng() % 100;
      break;
    case Dist::zipf:
      for (std::size_t i = 0; i < n; ++i) w[i] = 1000000000 / (i + 1) + 1;
      break;
    case Dist::random:
      for (auto& x : w) x = 1 + rng() % (std::uint64_t{1} << (rng() % 40));
      break;
  }
  return w;
}

constexpr std::uint64_t kEsc16 = std::uint64_t{1} << 16;
const LimitMethod kMethods[] = {LimitMethod::floor, LimitMethod::package_merge, LimitMethod::drop};

// ------------------------------------------------------------------------------------ golden

TEST(HuffmanGolden, W1CanonicalExample) {
  const Json& g = golden()["w1_canonical"];
  const unsigned sl = as_uint(g["sl"]);
  std::vector<CanonicalCode::Entry> entries;
  for (const Json& s : g["symbols"].elements())
    entries.push_back({u64(s["key"]), static_cast<unsigned>(s["classic"].as_string().size())});
  const CanonicalCode code(sl, entries);
  for (const Json& s : g["symbols"].elements()) {
    const auto cw = code.code_of(u64(s["key"]));
    EXPECT_EQ(bit_string(cw.code, cw.len), s["canonical"].as_string()) << s["name"].as_string();
  }
  std::vector<std::uint64_t> order;
  for (const auto& e : code.entries()) order.push_back(e.key);
  std::vector<std::uint64_t> want;
  for (const Json& k : g["canonical_order"].elements()) want.push_back(u64(k));
  EXPECT_EQ(order, want);
  for (const Json& row : g["per_length"].elements()) {
    const unsigned l = as_uint(row["len"]);
    EXPECT_EQ(code.count(l), u64(row["count"])) << l;
    EXPECT_EQ(code.first_code(l), u64(row["first_code"])) << l;
    EXPECT_EQ(code.first_index(l), u64(row["first_index"])) << l;
    EXPECT_EQ(code.offset(l), u64(row["offset"])) << l;
  }
  EXPECT_EQ(code.max_len(), 3u);
  EXPECT_EQ(code.min_len(), 1u);
  EXPECT_FALSE(code.complete());  // 1/2 + 1/4 + 1/8
  EXPECT_DOUBLE_EQ(code.kraft(), 0.875);
}

TEST(HuffmanGolden, W1TieBreak) {
  const Json& g = golden()["w1_tie_break"];
  const std::vector<Leaf> leaves = leaves_of(g["leaves"]);
  const std::vector<unsigned> want = uints(g["lengths"]);
  EXPECT_EQ(huffman_lengths(leaves), want);
  for (LimitMethod m : {LimitMethod::floor, LimitMethod::package_merge})
    EXPECT_EQ(limited_lengths(leaves, 8, m), want) << to_string(m);
  const CanonicalCode code = CanonicalCode::from_lengths(as_uint(g["sl"]), leaves, want);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const auto cw = code.code_of(leaves[i].key);
    EXPECT_EQ(bit_string(cw.code, cw.len), g["codes"].at(i).as_string());
  }
}

TEST(HuffmanGolden, LimitCases) {
  for (const Json& c : golden()["limit_cases"].elements()) {
    SCOPED_TRACE(c["name"].as_string());
    const unsigned sl = as_uint(c["sl"]);
    const std::uint64_t esc = std::uint64_t{1} << sl;
    const std::vector<Leaf> leaves = leaves_of(c["leaves"]);
    const unsigned max_len = as_uint(c["max_len"]);
    EXPECT_EQ(huffman_lengths(leaves), uints(c["unlimited"]));
    for (LimitMethod m : kMethods) {
      const Json& want = c[to_string(m)];
      if (want.is_string()) {
        EXPECT_THROW(limited_lengths(leaves, max_len, m, esc), invalid_argument) << to_string(m);
        continue;
      }
      EXPECT_EQ(limited_lengths(leaves, max_len, m, esc), uints(want)) << to_string(m);
    }
  }
}

TEST(HuffmanGolden, Alphabets) {
  for (const Json& c : golden()["alphabets"].elements()) {
    SCOPED_TRACE(c["why"].as_string());
    const unsigned sl = as_uint(c["sl"]);
    const std::size_t k = as_uint(c["k"]);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> counts;
    for (const Json& p : c["counts"].elements()) counts.emplace_back(u64(p.at(0)), u64(p.at(1)));
    const Alphabet a = make_alphabet(sl, counts, k);
    EXPECT_EQ(a.sl, sl);
    EXPECT_EQ(a.has_esc, sl > 8);
    EXPECT_EQ(a.leaves, leaves_of(c["leaves"]));
    if (a.has_esc) {
      EXPECT_EQ(a.leaves.back().key, a.esc_key());
    }
    // the same from ValueCounts32 and, for small SL, from a dense histogram
    ValueCounts32 vc;
    for (const auto& [v, n] : counts)
      if (n) vc.add(static_cast<std::uint32_t>(v), n);
    EXPECT_EQ(make_alphabet(sl, vc, k).leaves, a.leaves);
    if (sl <= 16) {
      std::vector<std::uint64_t> hist(std::size_t{1} << sl, 0);
      for (const auto& [v, n] : counts) hist[v] = n;
      EXPECT_EQ(make_alphabet_dense(sl, hist, k).leaves, a.leaves);
    }
  }
}

TEST(HuffmanGolden, EscapeStream) {
  const Json& g = golden()["escape_stream"];
  const unsigned sl = as_uint(g["sl"]);
  const CanonicalCode code = CanonicalCode::from_json(g["table"], sl);
  EXPECT_EQ(code.to_json().dump(), g["table"].dump());
  std::vector<std::uint8_t> buf(16, 0);
  BitWriter w(buf.data(), 8 * buf.size());
  std::size_t bits = 0;
  for (const Json& v : g["values"].elements()) {
    code.encode_symbol(w, u64(v));
    bits += code.symbol_bits(u64(v));
  }
  const std::size_t n = w.finish();
  EXPECT_EQ(n, u64(g["stream_bits"]));
  EXPECT_EQ(bits, n);
  EXPECT_EQ(stream_string(buf, n), g["stream"].as_string());
  BitReader r(buf.data(), n);
  for (const Json& v : g["values"].elements()) EXPECT_EQ(code.decode_symbol(r), u64(v));
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(HuffmanGolden, ValidAndMalformedTables) {
  for (const Json& c : golden()["valid_tables"].elements()) {
    SCOPED_TRACE(c["why"].as_string());
    const CanonicalCode code = CanonicalCode::from_json(c["table"], as_uint(c["sl"]));
    EXPECT_EQ(CanonicalCode::from_json(code.to_json(), as_uint(c["sl"])), code);
  }
  for (const Json& c : golden()["malformed_tables"].elements()) {
    SCOPED_TRACE(c["table"].dump());
    try {
      CanonicalCode::from_json(c["table"], as_uint(c["sl"]));
      ADD_FAILURE() << "accepted";
    } catch (const json_error& e) {
      EXPECT_NE(std::string(e.what()).find(c["error"].as_string()), std::string::npos) << e.what();
    }
  }
}

// ---------------------------------------------------------------------------------- alphabet

TEST(HuffmanAlphabet, Sl8EveryValueAndErrors) {
  const Alphabet a = make_alphabet(8, std::vector<std::pair<std::uint64_t, std::uint64_t>>{{200, 9}}, 0);
  ASSERT_EQ(a.leaves.size(), 256u);
  EXPECT_FALSE(a.has_esc);
  for (std::uint64_t v = 0; v < 256; ++v) EXPECT_EQ(a.leaves[v], (Leaf{v, v == 200 ? 10u : 1u}));
  // saturating count + 1
  EXPECT_EQ(make_alphabet(4, {{3, ~std::uint64_t{0}}}, 0).leaves[3].weight, ~std::uint64_t{0});
  EXPECT_THROW(make_alphabet(8, {{256, 1}}, 0), invalid_argument);
  EXPECT_THROW(make_alphabet(16, {{1, 1}, {1, 2}}, 4), invalid_argument);
  EXPECT_THROW(make_alphabet(0, {{0, 1}}, 1), invalid_argument);
  EXPECT_THROW(make_alphabet(33, {{0, 1}}, 1), invalid_argument);
  EXPECT_THROW(make_alphabet_dense(4, std::vector<std::uint64_t>(15), 1), invalid_argument);
  // ESC weight saturates instead of wrapping
  const Alphabet big = make_alphabet(16, {{1, ~std::uint64_t{0}}, {2, ~std::uint64_t{0}}, {3, 5}}, 1);
  EXPECT_EQ(big.leaves.back(), (Leaf{kEsc16, ~std::uint64_t{0}}));
}

// ----------------------------------------------------------------------------------- lengths

TEST(HuffmanLengths, SingleLeafAndArgumentErrors) {
  EXPECT_EQ(huffman_lengths({{5, 0}}), std::vector<unsigned>{1});
  EXPECT_EQ(huffman_lengths({{5, 3}, {6, 0}}), (std::vector<unsigned>{1, 1}));
  for (LimitMethod m : kMethods) EXPECT_EQ(limited_lengths({{kEsc16, 3}}, 1, m, kEsc16), std::vector<unsigned>{1});
  EXPECT_THROW(huffman_lengths({}), invalid_argument);
  EXPECT_THROW(huffman_lengths({{1, 1}, {1, 2}}), invalid_argument);
  const std::vector<Leaf> three{{0, 1}, {1, 1}, {2, 1}};
  EXPECT_THROW(limited_lengths(three, 0), invalid_argument);
  EXPECT_THROW(limited_lengths(three, 33), invalid_argument);
  EXPECT_THROW(limited_lengths(three, 1, LimitMethod::floor), invalid_argument);  // 3 > 2^1
  EXPECT_THROW(limited_lengths(three, 1, LimitMethod::package_merge), invalid_argument);
  EXPECT_THROW(limited_lengths(three, 8, LimitMethod::drop), invalid_argument);  // no ESC
  EXPECT_THROW(limited_lengths(three, 8, LimitMethod::drop, 7), invalid_argument);
  EXPECT_EQ(limited_lengths(three, 2, LimitMethod::drop, 2), (std::vector<unsigned>{2, 2, 1}));
  // max_len 1 keeps ESC (here key 0) and at most one symbol
  const std::vector<unsigned> d = limited_lengths(with_keys(fibonacci_weights(30)), 1, LimitMethod::drop, 0);
  EXPECT_EQ(d[0], 1u);
  EXPECT_LE(std::count(d.begin(), d.end(), 1u), 2);
  EXPECT_EQ(std::count(d.begin(), d.end(), 0u) + std::count(d.begin(), d.end(), 1u), 30);
  EXPECT_EQ(parse_limit_method("package_merge"), LimitMethod::package_merge);
  EXPECT_THROW(parse_limit_method("gem5"), invalid_argument);
}

TEST(HuffmanLengths, UnlimitedMatchesHeapReference) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = trial < 250 ? 1 + rng() % 300 : 1025;
    std::vector<Leaf> leaves;
    const unsigned span = 1 + static_cast<unsigned>(rng() % 40);
    for (std::size_t i = 0; i < n; ++i)
      leaves.push_back(Leaf{rng() % 100000 * 1000 + i, 1 + rng() % (std::uint64_t{1} << span)});
    const std::vector<unsigned> len = huffman_lengths(leaves);
    EXPECT_EQ(str(cost(leaves, len)), str(heap_huffman_cost(leaves))) << "n=" << n;
    if (n > 1) {
      EXPECT_EQ(kraft32(len), std::uint64_t{1} << 32);
    }
  }
  // Fibonacci weights: the unlimited tree is a caterpillar, lengths 1..n-1
  const std::vector<unsigned> fib = huffman_lengths(with_keys(fibonacci_weights(60)));
  EXPECT_EQ(*std::max_element(fib.begin(), fib.end()), 59u);
  EXPECT_EQ(str(cost(with_keys(fibonacci_weights(60)), fib)), str(heap_huffman_cost(with_keys(fibonacci_weights(60)))));
}

TEST(HuffmanLengths, LimitsKraftAndOptimalityAcrossDistributions) {
  std::mt19937_64 rng(11);
  int checked = 0;
  for (Dist d : {Dist::fibonacci, Dist::geometric, Dist::flat, Dist::near_flat, Dist::zipf, Dist::random}) {
    for (std::size_t n : {2u, 3u, 17u, 90u, 300u, 1025u}) {
      const std::vector<std::uint64_t> w = weights(d, n, rng);
      // symbols 0..n-2 and ESC (the last leaf), as an SL-16 alphabet
      std::vector<Leaf> leaves = with_keys(w, 37);
      leaves.back().key = kEsc16;
      const std::vector<unsigned> unlimited = huffman_lengths(leaves);
      const unsigned unlimited_max = *std::max_element(unlimited.begin(), unlimited.end());
      const long double h = entropy_bits(leaves);
      const long double total = static_cast<long double>(total_weight(leaves));
      for (unsigned max_len : {8u, 16u, 20u}) {
        SCOPED_TRACE("dist " + std::to_string(static_cast<int>(d)) + " n " + std::to_string(n) + " max_len " +
                     std::to_string(max_len));
        std::map<LimitMethod, std::vector<unsigned>> got;
        for (LimitMethod m : kMethods) {
          if (m != LimitMethod::drop && n > (std::size_t{1} << max_len)) {
            EXPECT_THROW(limited_lengths(leaves, max_len, m, kEsc16), invalid_argument);
            continue;
          }
          const std::vector<unsigned> len = limited_lengths(leaves, max_len, m, kEsc16);
          ASSERT_EQ(len.size(), n);
          EXPECT_LE(*std::max_element(len.begin(), len.end()), max_len) << to_string(m);
          // every method builds a full tree over the leaves it keeps: Kraft sum exactly 1
          const auto coded = std::count_if(len.begin(), len.end(), [](unsigned l) { return l > 0; });
          EXPECT_EQ(kraft32(len), coded > 1 ? std::uint64_t{1} << 32 : std::uint64_t{1} << 31) << to_string(m);
          EXPECT_GT(len.back(), 0u) << "ESC always keeps a code";
          if (m != LimitMethod::drop) {
            EXPECT_EQ(std::count(len.begin(), len.end(), 0u), 0) << to_string(m);
            // nothing below the entropy, nothing below the unlimited Huffman code
            EXPECT_GE(static_cast<long double>(cost(leaves, len)) / total, h - 1e-9L) << to_string(m);
            EXPECT_TRUE(cost(leaves, len) >= cost(leaves, unlimited)) << to_string(m);
          }
          if (unlimited_max <= max_len) {
            EXPECT_EQ(len, unlimited) << to_string(m) << ": the limit does not bind";
          }
          got[m] = len;
          ++checked;
        }
        if (got.count(LimitMethod::floor)) {
          EXPECT_TRUE(cost(leaves, got[LimitMethod::package_merge]) <= cost(leaves, got[LimitMethod::floor]));
        }
        // drop: the result is the unlimited tree over the kept leaves, ESC carrying the dropped
        // weight; a dropped leaf is never heavier than a kept symbol (it was deeper in some round)
        const std::vector<unsigned>& dl = got[LimitMethod::drop];
        std::vector<Leaf> kept;
        std::vector<unsigned> kept_len;
        u128 esc_weight = leaves.back().weight;
        std::uint64_t min_kept = ~std::uint64_t{0}, max_dropped = 0;
        for (std::size_t i = 0; i + 1 < n; ++i) {
          if (dl[i] == 0) {
            esc_weight += leaves[i].weight;
            max_dropped = std::max(max_dropped, leaves[i].weight);
          } else {
            kept.push_back(leaves[i]);
            kept_len.push_back(dl[i]);
            min_kept = std::min(min_kept, leaves[i].weight);
          }
        }
        if (max_dropped == 0) {
          EXPECT_EQ(dl, unlimited);
        }
        if (max_dropped > 0 && min_kept != ~std::uint64_t{0}) {
          EXPECT_LE(max_dropped, min_kept);
        }
        if (esc_weight <= ~std::uint64_t{0}) {
          kept.push_back(Leaf{kEsc16, static_cast<std::uint64_t>(esc_weight)});
          kept_len.push_back(dl.back());
          EXPECT_EQ(huffman_lengths(kept), kept_len);
        }
        // with ESC + 16-bit literals charged, even drop is a prefix code on the values: >= entropy
        const CanonicalCode code = CanonicalCode::from_lengths(16, leaves, dl);
        EXPECT_GE(code.mean_length(leaves, 16), static_cast<double>(h) - 1e-9);
      }
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(HuffmanLengths, PackageMergeMatchesBruteForceOptimum) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 150; ++trial) {
    const std::size_t n = 2 + rng() % 6;  // 2..7 leaves
    unsigned max_len = 1;
    while ((std::size_t{1} << max_len) < n) ++max_len;
    max_len += static_cast<unsigned>(rng() % 3);
    std::vector<Leaf> leaves;
    for (std::size_t i = 0; i < n; ++i) leaves.push_back(Leaf{i, 1 + rng() % (trial % 2 ? 1000 : 4)});
    // every length vector in 1..max_len^n with Kraft <= 1
    u128 best = ~u128{0};
    std::vector<unsigned> len(n, 1);
    for (;;) {
      if (kraft32(len) <= (std::uint64_t{1} << 32)) {
        best = std::min(best, cost(leaves, len));
      }
      std::size_t i = 0;
      while (i < n && len[i] == max_len) len[i++] = 1;
      if (i == n) break;
      ++len[i];
    }
    const std::vector<unsigned> pm = limited_lengths(leaves, max_len, LimitMethod::package_merge);
    EXPECT_EQ(str(cost(leaves, pm)), str(best)) << "n=" << n << " max_len=" << max_len;
    EXPECT_LE(*std::max_element(pm.begin(), pm.end()), max_len);
    const std::vector<unsigned> fl = limited_lengths(leaves, max_len, LimitMethod::floor);
    EXPECT_TRUE(cost(leaves, fl) >= best);
  }
}

TEST(HuffmanLengths, DeterministicAndIndependentOfInputOrder) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 3 + rng() % 600;
    const std::vector<std::uint64_t> fib = fibonacci_weights(n);
    std::vector<Leaf> leaves;
    for (std::size_t i = 0; i < n; ++i) leaves.push_back(Leaf{i * 3, trial % 2 ? 1 + rng() % 4 : fib[i]});
    leaves.push_back(Leaf{kEsc16, 1 + rng() % 4});
    const unsigned max_len = trial % 3 == 0 ? 10 : 12;
    std::map<LimitMethod, std::map<std::uint64_t, unsigned>> first;
    for (int round = 0; round < 3; ++round) {
      std::shuffle(leaves.begin(), leaves.end(), rng);
      for (LimitMethod m : kMethods) {
        const std::vector<unsigned> len = limited_lengths(leaves, max_len, m, kEsc16);
        std::map<std::uint64_t, unsigned> by_key;
        for (std::size_t i = 0; i < leaves.size(); ++i) by_key[leaves[i].key] = len[i];
        if (round == 0)
          first[m] = by_key;
        else
          EXPECT_EQ(by_key, first[m]) << to_string(m);
      }
    }
  }
}

// ---------------------------------------------------------------------------- canonical code

TEST(HuffmanCanonical, CodesAreCanonicalAndTablesConsistent) {
  std::mt19937_64 rng(9);
  for (unsigned sl : {4u, 8u, 12u, 13u, 16u, 32u}) {
    for (LimitMethod m : kMethods) {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> counts;
      const std::uint64_t values = std::min<std::uint64_t>(std::uint64_t{1} << sl, 3000);
      for (std::uint64_t v = 0; v < values; ++v)
        if (rng() % 3)
          counts.emplace_back(sl == 32 ? v * 2654435761u & 0xFFFFFFFFu : v, 1 + 1000000 / (1 + v * v % 977));
      const Alphabet a = make_alphabet(sl, counts, 1024);
      if (m == LimitMethod::drop && !a.has_esc) {
        EXPECT_THROW(build_code(a, 16, m), invalid_argument);
        continue;
      }
      const unsigned max_len = sl == 4 ? 8 : sl == 8 ? 16 : 20;
      const CanonicalCode code = build_code(a, max_len, m);
      EXPECT_LE(code.max_len(), max_len);
      EXPECT_EQ(code.has_esc(), a.has_esc);
      const auto e = code.entries();
      ASSERT_EQ(e.size(), code.size());
      std::uint64_t prev = 0;
      for (std::size_t i = 0; i < e.size(); ++i) {
        const auto cw = code.code_of(e[i].key);
        ASSERT_EQ(cw.len, e[i].len);
        EXPECT_EQ(code.key_at(i), e[i].key);
        if (i == 0) {
          EXPECT_EQ(cw.code, 0u);
        } else {
          EXPECT_TRUE(e[i - 1].len < e[i].len || (e[i - 1].len == e[i].len && e[i - 1].key < e[i].key));
          EXPECT_EQ(cw.code, (prev + 1) << (e[i].len - e[i - 1].len));
        }
        prev = cw.code;
        // P1 §III-F: index = code - offset[len]
        EXPECT_EQ(cw.code - code.offset(cw.len), i);
        EXPECT_LT(cw.code - code.first_code(cw.len), code.count(cw.len));
      }
      std::size_t total = 0;
      for (unsigned l = 1; l <= 32; ++l) total += code.count(l);
      EXPECT_EQ(total, code.size());
      if (a.has_esc) {
        EXPECT_EQ(code.esc().len, code.code_of(a.esc_key()).len);
      }
      for (const Leaf& l : a.leaves) EXPECT_EQ(code.contains(l.key), code.code_of(l.key).len > 0);
      EXPECT_FALSE(code.contains(a.esc_key() + 1));
      if (sl < 32) {
        EXPECT_FALSE(code.contains(a.esc_key() + 12345));
      }
    }
  }
}

#if defined(MEMCOMP_X86_SIMD)
__attribute__((target("avx2"))) void eight_lengths(const CanonicalCode::Lengths& length_of, const std::uint32_t* keys,
                                                   std::uint32_t* out) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      length_of.eight(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys))));
}

// Lengths::eight (AVX2 gathers) equals Lengths::operator() and code_of on every key of a 32-bit
// table and on keys that miss, among them keys whose home and next slots are both taken by
// others (the probing case).
TEST(HuffmanCanonical, GatheredLengthsEqualTheScalarLookup) {
  if (!simd_avx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(21);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> counts;
  for (std::uint64_t v = 0; v < 1024; ++v) counts.emplace_back(rng() & 0xFFFFFFFFu, 1 + rng() % 100000);
  counts.emplace_back(0, 5);
  const CanonicalCode code = build_code(make_alphabet(32, counts, 1024), 20, LimitMethod::package_merge);
  const CanonicalCode::Lengths length_of(code);
  std::vector<std::uint32_t> keys;
  for (const auto& e : code.entries())
    if (e.key < code.esc_key()) keys.push_back(static_cast<std::uint32_t>(e.key));
  // Misses: at 1/16 load about 1 in 250 finds both its first slots taken by others and probes.
  for (int i = 0; i < 200000; ++i) keys.push_back(static_cast<std::uint32_t>(rng()));
  std::shuffle(keys.begin(), keys.end(), rng);
  while (keys.size() % 8) keys.push_back(0);
  std::size_t hits = 0;
  for (std::size_t i = 0; i < keys.size(); i += 8) {
    std::uint32_t out[8];
    eight_lengths(length_of, keys.data() + i, out);
    for (std::size_t j = 0; j < 8; ++j) {
      ASSERT_EQ(out[j], length_of(keys[i + j])) << keys[i + j];
      ASSERT_EQ(out[j], code.code_of(keys[i + j]).len) << keys[i + j];
      hits += out[j] != 0;
    }
  }
  EXPECT_GE(hits, 1000u);
}

// The same on a small table (its minimum of 256 slots) where ESC (2^32, whose home is key 0's)
// and seven keys share one home slot (a chain of eight: distances 0..7), queried with them,
// with misses of the same home and the homes after it, and with key 0.
TEST(HuffmanCanonical, GatheredLengthsEqualTheScalarLookupOnCollisionChains) {
  if (!simd_avx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  auto home = [](std::uint32_t k) { return (k * 0x9E3779B1u) >> 24; };  // 256 slots
  std::mt19937_64 rng(5);
  std::vector<std::uint32_t> same, near, other;
  while (same.size() < 16 || near.size() < 64 || other.size() < 12) {
    const auto k = static_cast<std::uint32_t>(rng());
    const std::uint32_t h = home(k), h0 = home(0);
    if (h == h0 && same.size() < 16)
      same.push_back(k);
    else if (h > h0 && h <= h0 + 9 && near.size() < 64)
      near.push_back(k);
    else if ((h + 40 < h0 || h > h0 + 40) && other.size() < 12)
      other.push_back(k);
  }
  // ESC has the shortest codeword, so it is placed first: in key 0's home slot, where a
  // lookup of 0 (no codeword) must not take it for its own.
  std::vector<CanonicalCode::Entry> entries = {{std::uint64_t{1} << 32, 1}};
  for (std::size_t i = 0; i < 7; ++i) entries.push_back({same[i], 6});
  for (std::size_t i = 0; i < 12; ++i) entries.push_back({other[i], 6});
  const CanonicalCode code(32, entries);
  ASSERT_EQ(code.code_of(0).len, 0u);
  const CanonicalCode::Lengths length_of(code);
  std::vector<std::uint32_t> keys = {0};
  keys.insert(keys.end(), same.begin(), same.end());
  keys.insert(keys.end(), near.begin(), near.end());
  keys.insert(keys.end(), other.begin(), other.end());
  while (keys.size() % 8) keys.push_back(same[keys.size() % 16]);
  std::size_t hits = 0;
  for (std::size_t i = 0; i < keys.size(); i += 8) {
    std::uint32_t out[8];
    eight_lengths(length_of, keys.data() + i, out);
    for (std::size_t j = 0; j < 8; ++j) {
      ASSERT_EQ(out[j], code.code_of(keys[i + j]).len) << keys[i + j];
      ASSERT_EQ(out[j], length_of(keys[i + j])) << keys[i + j];
      hits += out[j] != 0;
    }
  }
  EXPECT_GE(hits, 19u);  // every coded key
}
#endif

TEST(HuffmanCanonical, ConstructorValidation) {
  using E = CanonicalCode::Entry;
  auto throws = [](unsigned sl, std::vector<E> e, const std::string& what) {
    try {
      CanonicalCode c(sl, std::move(e));
      ADD_FAILURE() << "accepted, expected: " << what;
    } catch (const invalid_argument& ex) {
      EXPECT_NE(std::string(ex.what()).find(what), std::string::npos) << ex.what();
    }
  };
  throws(8, {}, "no codewords");
  throws(8, {{1, 1}, {2, 1}, {3, 2}}, "Kraft sum");
  throws(8, {{1, 1}, {1, 2}}, "symbol 1 appears twice");
  throws(8, {{256, 1}, {256, 2}}, "ESC appears twice");
  throws(8, {{257, 1}}, "out of range for SL 8");
  throws(8, {{1, 0}}, "outside 1..32");
  throws(8, {{1, 33}}, "outside 1..32");
  throws(0, {{0, 1}}, "must be in 1..32");
  throws(33, {{0, 1}}, "must be in 1..32");
  EXPECT_THROW(CanonicalCode(8, {{1, 1}}).count(0), invalid_argument);
  EXPECT_THROW(CanonicalCode(8, {{1, 1}}).first_code(33), invalid_argument);
  EXPECT_THROW(CanonicalCode::from_lengths(8, {{1, 1}}, {1, 1}), invalid_argument);
  // a one-symbol code: 1 bit per symbol, and its ESC-free encoder rejects other values
  const CanonicalCode one(8, {{42, 1}});
  EXPECT_EQ(one.symbol_bits(42), 1u);
  EXPECT_THROW(one.symbol_bits(41), invalid_argument);
  EXPECT_THROW(one.symbol_bits(256), invalid_argument);
  const CanonicalCode empty;
  std::uint8_t buf[4] = {};
  BitWriter w(buf, 32);
  EXPECT_THROW(empty.encode_symbol(w, 0), invalid_argument);
  BitReader r(buf, 32);
  EXPECT_THROW(empty.decode(r), invalid_argument);
  EXPECT_FALSE(empty.contains(0));
}

TEST(HuffmanCanonical, MeanLength) {
  // lengths: 4 -> 2, 5 -> 2, ESC -> 2, 2 -> 3, 3 -> 3 (the golden escape table)
  const CanonicalCode code(16, {{4, 2}, {5, 2}, {kEsc16, 2}, {2, 3}, {3, 3}});
  const std::vector<Leaf> leaves{{4, 5}, {5, 8}, {2, 2}, {3, 3}, {0, 1}, {1, 1}, {kEsc16, 1}};
  // code bits only: 5*2 + 8*2 + 2*3 + 3*3 + 3 * 2 (escapes) = 47 over 21
  EXPECT_DOUBLE_EQ(code.mean_length(leaves), 47.0 / 21.0);
  // with 16-bit literals: + 3 * 16
  EXPECT_DOUBLE_EQ(code.mean_length(leaves, 16), (47.0 + 48.0) / 21.0);
  EXPECT_DOUBLE_EQ(code.mean_length({}), 0.0);
  EXPECT_THROW(CanonicalCode(8, {{1, 1}}).mean_length({{2, 1}}), invalid_argument);
}

// ------------------------------------------------------------------------------------ decode

struct Stream {
  std::vector<std::uint8_t> bytes;
  std::size_t bits = 0;
};

Stream encode_all(const CanonicalCode& code, const std::vector<std::uint64_t>& values) {
  std::size_t bits = 0;
  for (std::uint64_t v : values) bits += code.symbol_bits(v);
  Stream s;
  s.bytes.assign((bits + 7) / 8, 0);
  BitWriter w(s.bytes.data(), bits);
  for (std::uint64_t v : values) code.encode_symbol(w, v);
  EXPECT_EQ(w.position(), bits);
  s.bits = w.finish();
  return s;
}

TEST(HuffmanDecode, RoundTripRandomSequences) {
  std::mt19937_64 rng(13);
  for (unsigned sl : {4u, 8u, 16u, 32u}) {
    for (LimitMethod m : kMethods) {
      for (unsigned max_len : {8u, 16u, 20u}) {
        if (m == LimitMethod::drop && sl <= 8) continue;
        const std::uint64_t mask = sl == 32 ? 0xFFFFFFFFull : (std::uint64_t{1} << sl) - 1;
        std::vector<std::uint64_t> sample(20000);
        for (auto& v : sample) {
          const std::uint64_t r = rng();
          v = (r % 4 == 0 ? rng() : (r >> 8) % 1500 * (r % 3 == 0 ? 1 : 7919)) & mask;  // heavy head, long tail
        }
        std::map<std::uint64_t, std::uint64_t> hist;
        for (std::size_t i = 0; i < sample.size() / 2; ++i) ++hist[sample[i]];  // train on the first half
        // K + ESC leaves must fit in max_len bits for floor and package_merge
        const std::size_t top_k = m == LimitMethod::drop ? 1024
                                                         : std::min<std::size_t>(1024, (std::size_t{1} << max_len) - 1);
        const Alphabet a =
            make_alphabet(sl, std::vector<std::pair<std::uint64_t, std::uint64_t>>(hist.begin(), hist.end()), top_k);
        const CanonicalCode code = build_code(a, max_len, m);
        SCOPED_TRACE("sl " + std::to_string(sl) + " " + to_string(m) + " max_len " + std::to_string(max_len));
        const Stream s = encode_all(code, sample);
        BitReader r(s.bytes.data(), s.bits);
        for (std::uint64_t v : sample) ASSERT_EQ(code.decode_symbol(r), v);
        EXPECT_EQ(r.remaining(), 0u);
        // key-level API: code_of + write, decode
        std::vector<std::uint64_t> keys;
        for (const auto& e : code.entries()) keys.push_back(e.key);
        std::vector<std::uint64_t> seq(5000);
        for (auto& k : seq) k = keys[rng() % keys.size()];
        std::size_t bits = 0;
        for (auto k : seq) bits += code.code_of(k).len;
        std::vector<std::uint8_t> buf((bits + 7) / 8);
        BitWriter w(buf.data(), bits);
        for (auto k : seq) w.write(code.code_of(k).code, code.code_of(k).len);
        BitReader r2(buf.data(), w.finish());
        for (auto k : seq) ASSERT_EQ(code.decode(r2), k);
      }
    }
  }
}

TEST(HuffmanDecode, NonCodewordThrows) {
  // codes 0 and 10; 11 is no codeword (Kraft 3/4), caught by the lookup table
  const CanonicalCode short_code(8, {{0, 1}, {1, 2}});
  std::uint8_t b = 0b11000000;
  BitReader r(&b, 8);
  EXPECT_THROW(short_code.decode(r), corrupt_stream);
  // codes 0, 1000000000000, 1000000000001 (13 bits, past the 11-bit table)
  const CanonicalCode long_code(16, {{7, 1}, {8, 13}, {9, 13}});
  EXPECT_EQ(bit_string(long_code.code_of(8).code, 13), "1000000000000");
  std::uint8_t ok[2] = {0b10000000, 0b00001000};  // 1000000000001 then 0
  BitReader r1(ok, 14);
  EXPECT_EQ(long_code.decode(r1), 9u);
  EXPECT_EQ(long_code.decode(r1), 7u);
  std::uint8_t bad[2] = {0b10000000, 0b00010000};  // 1000000000010: a hole behind a table miss
  BitReader r2(bad, 16);
  EXPECT_THROW(long_code.decode(r2), corrupt_stream);
  std::uint8_t bad2[2] = {0b11000000, 0};  // 11...: a hole inside the table
  BitReader r3(bad2, 16);
  EXPECT_THROW(long_code.decode(r3), corrupt_stream);
  // decode_symbol reads ESC's literal; a missing literal is a truncated stream
  const CanonicalCode esc_code(16, {{5, 1}, {kEsc16, 1}});
  std::uint8_t lit[3] = {0b10000000, 0, 0};
  BitReader r4(lit, 17);
  EXPECT_EQ(esc_code.decode_symbol(r4), 0u);
  BitReader r5(lit, 16);
  EXPECT_THROW(esc_code.decode_symbol(r5), corrupt_stream);
}

TEST(HuffmanDecode, TruncatedStreamsThrowWithoutReadingPastTheEnd) {
  // long and short codes (Fibonacci weights, max_len 20) and escapes
  std::vector<std::pair<std::uint64_t, std::uint64_t>> counts;
  const std::vector<std::uint64_t> fw = fibonacci_weights(40);
  for (std::size_t i = 0; i < fw.size(); ++i) counts.emplace_back(i, fw[i]);
  for (LimitMethod m : kMethods) {
    const CanonicalCode code = build_code(make_alphabet(16, counts, 30), 20, m);
    EXPECT_GT(code.max_len(), 11u);
    std::vector<std::uint64_t> values;
    for (std::uint64_t v = 0; v < 45; ++v) values.push_back(v);  // 40..44: escapes
    const Stream s = encode_all(code, values);
    for (std::size_t cut = 0; cut < s.bits; ++cut) {
      // a heap copy of exactly the bytes that hold `cut` bits, so ASan sees any overread
      std::vector<std::uint8_t> part(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>((cut + 7) / 8));
      BitReader r(part.data(), cut);
      EXPECT_THROW(
          {
            for (std::size_t i = 0; i < values.size(); ++i) code.decode_symbol(r);
          },
          corrupt_stream)
          << "cut at " << cut << " of " << s.bits;
      EXPECT_LE(r.position(), cut);
    }
  }
}

// -------------------------------------------------------------------------------------- json

TEST(HuffmanJson, RoundTripThroughText) {
  std::mt19937_64 rng(17);
  for (unsigned sl : {4u, 8u, 16u, 32u}) {
    for (LimitMethod m : kMethods) {
      if (m == LimitMethod::drop && sl <= 8) continue;
      std::vector<std::pair<std::uint64_t, std::uint64_t>> counts;
      for (int i = 0; i < 2000; ++i) {
        const std::uint64_t v = (sl == 32 ? rng() : rng() % 3000) & ((std::uint64_t{1} << sl) - 1);
        if (std::none_of(counts.begin(), counts.end(), [&](const auto& p) { return p.first == v; }))
          counts.emplace_back(v, 1 + rng() % 100000 / (1 + rng() % 100));
      }
      const CanonicalCode code = build_code(make_alphabet(sl, counts, 1024), sl == 4 ? 8 : 16, m);
      const std::string text = code.to_json().dump();
      const CanonicalCode back = CanonicalCode::from_json(Json::parse(text), sl);
      EXPECT_EQ(back, code);
      EXPECT_EQ(back.to_json().dump(), text);
      EXPECT_EQ(back.entries(), code.entries());
      EXPECT_EQ(back.esc().len, code.esc().len);
      const Json j = Json::parse(text);
      EXPECT_EQ(j["symbols"].size(), code.size() - (code.has_esc() ? 1 : 0));
      EXPECT_EQ(static_cast<unsigned>(j["esc_len"].as_int()), code.esc().len);
    }
  }
  // symbol order in the table does not matter; the writer uses canonical order
  const Json t = Json::parse(R"({"symbols":[9,3,5],"lengths":[2,2,1],"esc_len":0})");
  EXPECT_EQ(CanonicalCode::from_json(t, 8).to_json().dump(), R"({"symbols":[5,3,9],"lengths":[1,2,2],"esc_len":0})");
}

}  // namespace

TEST(Huffman, HeapLengthsFollowTheToolsHeap) {
  // cal22.json: [17:2, 31:8, 32:8, 37:2] -> 31 gets the 1-bit code (SPEC 1.8's tree gives it to 32)
  const std::vector<huffman::Leaf> leaves{{32, 8}, {17, 2}, {37, 2}, {31, 8}};
  EXPECT_EQ(huffman::heap_lengths(leaves), (std::vector<unsigned>{2, 3, 3, 1}));
  EXPECT_EQ(huffman::heap_lengths({{5, 9}}), (std::vector<unsigned>{1}));
  std::vector<huffman::Leaf> many;
  for (std::uint64_t k = 0; k < 300; ++k) many.push_back({k, 1 + k % 7});
  const auto len = huffman::heap_lengths(many);
  double kraft = 0;
  for (unsigned l : len) kraft += std::ldexp(1.0, -static_cast<int>(l));
  EXPECT_DOUBLE_EQ(kraft, 1.0);  // a full binary tree
  EXPECT_THROW(huffman::heap_lengths({}), invalid_argument);
}
