// Exact 32-bit value counts (ValueCounts32) against a sort-and-count reference: random,
// adversarial and dump-like words, both byte orders, every thread count; and a timing report.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "memcomp/stats/symbol_counts.hpp"

using namespace memcomp;

namespace {

using Items = std::vector<ValueCounts32::Item>;

/// 32-bit random words (std::mt19937 returns them in a wider type).
struct Rng {
  std::mt19937 g;
  explicit Rng(unsigned seed) : g(seed) {}
  std::uint32_t operator()() { return static_cast<std::uint32_t>(g()); }
};

std::vector<std::uint8_t> bytes_of(const std::vector<std::uint32_t>& ws, Endian e) {
  std::vector<std::uint8_t> b(4 * ws.size());
  for (std::size_t i = 0; i < ws.size(); ++i) store<std::uint32_t>(b.data() + 4 * i, ws[i], e);
  return b;
}

Items reference(std::vector<std::uint32_t> ws) {
  std::sort(ws.begin(), ws.end());
  Items out;
  for (std::size_t i = 0; i < ws.size();) {
    std::size_t j = i;
    while (j < ws.size() && ws[j] == ws[i]) ++j;
    out.emplace_back(ws[i], j - i);
    i = j;
  }
  return out;
}

Items counted(const std::vector<std::uint8_t>& b, Endian e, int threads, std::size_t block_bytes = 4) {
  ValueCounts32 c;
  c.add_words({b.data(), b.size() / block_bytes, block_bytes}, e, threads);
  EXPECT_EQ(c.total(), b.size() / 4);
  return c.items();
}

/// Both byte orders, 1 to 4 threads and all hardware threads give the reference counts.
void expect_exact(const std::vector<std::uint32_t>& ws, const char* what) {
  const Items want = reference(ws);
  for (Endian e : {Endian::little, Endian::big}) {
    const auto b = bytes_of(ws, e);
    for (int t : {1, 2, 3, 4, 0}) {
      const Items got = counted(b, e, t);
      ASSERT_EQ(got.size(), want.size()) << what << " threads " << t << " big " << (e == Endian::big);
      EXPECT_TRUE(got == want) << what << " threads " << t << " big " << (e == Endian::big);
    }
  }
}

std::vector<std::uint32_t> random_words(std::size_t n, unsigned seed) {
  Rng rng(seed);
  std::vector<std::uint32_t> ws(n);
  for (auto& w : ws) w = rng();
  return ws;
}

/// Words shaped like a memory dump: 4 KiB pages of zeros, small integers, indices, float
/// activations (mostly zero), constants interleaved with counters, pointers and random bytes.
std::vector<std::uint32_t> dump_like(std::size_t n, unsigned seed) {
  Rng rng(seed);
  std::vector<std::uint32_t> ws;
  ws.reserve(n + 1024);
  std::normal_distribution<float> gauss(0.0f, 0.05f);
  while (ws.size() < n) {
    const unsigned kind = rng() % 7;
    for (std::size_t i = 0; i < 1024; ++i) {
      std::uint32_t w = 0;
      switch (kind) {
        case 0: break;                                                  // zero page
        case 1: w = rng() % 64; break;                                  // small integers
        case 2: w = static_cast<std::uint32_t>(rng() % 300000); break;  // indices (dense prefixes)
        case 3: {                                                       // activations, 2/3 zero
          const float f = rng() % 3 ? 0.0f : gauss(rng.g);
          std::memcpy(&w, &f, 4);
          break;
        }
        case 4: w = i % 2 ? 0x17997C40u : static_cast<std::uint32_t>(i); break;  // records
        case 5: w = 0x7F3A0000u + 8 * (rng() % 4096); break;                     // pointers
        default: w = rng(); break;                                               // random
      }
      ws.push_back(w);
    }
  }
  ws.resize(n);
  return ws;
}

}  // namespace

TEST(SymbolCounts, EmptyAndTinyInputs) {
  for (int t : {1, 2}) {
    ValueCounts32 c;
    c.add_words({nullptr, 0, 4}, Endian::little, t);
    EXPECT_EQ(c.total(), 0u);
    EXPECT_EQ(c.distinct(), 0u);
  }
  // every length around the 8-word groups and the 16-word lines
  Rng rng(5);
  for (std::size_t n = 1; n <= 70; ++n) {
    std::vector<std::uint32_t> ws(n);
    for (auto& w : ws) w = rng() % 3 == 0 ? 7u : rng() % 5;
    expect_exact(ws, ("tiny n=" + std::to_string(n)).c_str());
  }
}

TEST(SymbolCounts, RandomWords) {
  expect_exact(random_words(1000, 1), "random 1000");
  expect_exact(random_words(100003, 2), "random 100003");
  expect_exact(random_words(250001, 3), "random 250001");
  // a small alphabet: every value repeats many times, never in a run for long
  auto ws = random_words(200000, 4);
  for (auto& w : ws) w %= 1000;
  expect_exact(ws, "random mod 1000");
}

TEST(SymbolCounts, AllEqualAndAllDistinct) {
  expect_exact(std::vector<std::uint32_t>(150000, 0u), "all zero");
  expect_exact(std::vector<std::uint32_t>(150001, 0xDEADBEEFu), "all equal");
  expect_exact(std::vector<std::uint32_t>(150000, 0xFFFFFFFFu), "all ones");
  std::vector<std::uint32_t> ws(200000);
  for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = static_cast<std::uint32_t>(i * 2654435761u);
  expect_exact(ws, "distinct, scattered");
  for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = static_cast<std::uint32_t>(ws.size() - i);
  expect_exact(ws, "distinct, descending");
}

TEST(SymbolCounts, AlternationAndRuns) {
  std::vector<std::uint32_t> ws(200000);
  for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = i % 2 ? 0x12345678u : 0u;
  expect_exact(ws, "alternating");
  for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = static_cast<std::uint32_t>(i / 2 * 40503u);
  expect_exact(ws, "pairs of distinct values");
  // runs of every length from 1 to 40 (across the 8-word groups), values revisited later
  Rng rng(7);
  ws.clear();
  for (std::uint32_t k = 0; ws.size() < 300000; ++k) {
    const std::size_t len = 1 + k % 40;
    const std::uint32_t v = rng() % 4 == 0 ? 0u : static_cast<std::uint32_t>(rng() % 5000 * 977u);
    ws.insert(ws.end(), len, v);
  }
  expect_exact(ws, "runs 1..40");
  // one run covering the whole input but the first and last word
  ws.assign(250000, 42u);
  ws.front() = 1;
  ws.back() = 1;
  expect_exact(ws, "one long run");
}

TEST(SymbolCounts, BucketEdgesAndSharedBits) {
  Rng rng(11);
  std::vector<std::uint32_t> ws;
  // values that share their low 16 bits (different prefixes) or their prefix (dense counting),
  // and the extremes of every 16-bit prefix
  for (std::size_t i = 0; i < 200000; ++i) {
    const std::uint32_t r = rng();
    switch (i % 5) {
      case 0: ws.push_back((r % 4096) << 16 | 0xABCDu); break;
      case 1: ws.push_back(0x00030000u | (r & 0xFFFFu)); break;
      case 2: ws.push_back((r % 65536) << 16 | (r % 2 ? 0xFFFFu : 0u)); break;
      case 3: ws.push_back(r % 2 ? 0xFFFFFFFFu - r % 70000 : r % 70000); break;
      default: ws.push_back(r); break;
    }
  }
  expect_exact(ws, "shared bits");
  // one 16-bit prefix with many words but few values (a dense bucket that is mostly empty)
  for (auto& w : ws) w = 0x17990000u | (w % 3 == 0 ? 0x7C40u : w % 7);
  expect_exact(ws, "few values in one prefix");
}

TEST(SymbolCounts, SkewedHalves) {
  // The first half is small integers, the second random: buckets fitted to a sample of both.
  auto ws = random_words(300000, 13);
  for (std::size_t i = 0; i < ws.size() / 2; ++i) ws[i] %= 200000;
  expect_exact(ws, "skewed halves");
  // mostly zeros with a sprinkle of distinct values
  for (std::size_t i = 0; i < ws.size(); ++i)
    if (i % 97) ws[i] = 0;
  expect_exact(ws, "sparse");
}

TEST(SymbolCounts, DumpLikeWords) {
  const auto ws = dump_like(1 << 19, 17);
  expect_exact(ws, "dump-like");
  // block sizes other than 4 B see the same words
  const auto b = bytes_of(ws, Endian::little);
  EXPECT_TRUE(counted(b, Endian::little, 2, 128) == reference(ws));
}

TEST(SymbolCounts, AddsMergesAndFoldsSingleValues) {
  const auto ws = dump_like(300000, 19);
  const auto b = bytes_of(ws, Endian::little);
  const std::size_t half = b.size() / 2;
  ValueCounts32 a, c, d;
  a.add_words({b.data(), half / 4, 4}, Endian::little, 2);
  a.add_words({b.data() + half, (b.size() - half) / 4, 4}, Endian::little, 3);
  c.add_words({b.data() + half, (b.size() - half) / 4, 4}, Endian::little, 1);
  for (std::size_t i = 0; i < ws.size() / 2; ++i) d.add(ws[i]);
  d.merge(c);
  const Items want = reference(ws);
  EXPECT_TRUE(a.items() == want);
  EXPECT_TRUE(d.items() == want);
  EXPECT_EQ(a.total(), ws.size());
  EXPECT_EQ(d.total(), ws.size());
  std::map<std::uint32_t, std::uint64_t> m;
  for (std::uint32_t w : ws) ++m[w];
  for (std::uint32_t v : {0u, 0x17997C40u, 5u, 0x12345u, 0xFFFFFFFFu}) EXPECT_EQ(a.count(v), m.count(v) ? m[v] : 0u);
  // top(k): count descending, ties to the smaller value
  Items by_count = want;
  std::sort(by_count.begin(), by_count.end(), [](const auto& x, const auto& y) {
    return x.second != y.second ? x.second > y.second : x.first < y.first;
  });
  by_count.resize(10);
  EXPECT_TRUE(a.top(10) == by_count);

  std::vector<std::uint32_t> v = ws;
  Items runs;
  count_runs(v, runs);
  EXPECT_TRUE(runs == want);
}

TEST(SymbolCounts, KeysAreABijectionOntoShards) {
  for (std::uint32_t v : {0u, 1u, 7u, 0x3F800000u, 0xFFFFFFFFu, 0x9E3779B1u}) {
    EXPECT_EQ(value_of_key(key_of(v)), v);
    EXPECT_EQ(shard_of(v, 8), key_of(v) >> 24);
  }
}

TEST(SymbolCounts, WordKeysAreTheCountsByKey) {
  // count_word_keys: the reference counts with each value replaced by its key, sorted by key,
  // for dump-like and random words, both byte orders and 1 to 3 threads.
  for (const auto& ws : {dump_like(200000, 31), random_words(100000, 37)}) {
    Items want;
    for (const auto& [v, c] : reference(ws)) want.emplace_back(key_of(v), c);
    std::sort(want.begin(), want.end());
    for (Endian e : {Endian::little, Endian::big}) {
      const auto b = bytes_of(ws, e);
      for (int t : {1, 2, 3}) {
        const auto got = count_word_keys({b.data(), b.size() / 64, 64}, e, t);
        EXPECT_TRUE(Items(got.begin(), got.end()) == want) << "threads " << t << " big " << (e == Endian::big);
      }
    }
  }
  EXPECT_TRUE(count_word_keys({nullptr, 0, 64}, Endian::little, 1).empty());
  std::vector<std::uint8_t> six(12);
  EXPECT_THROW(count_word_keys({six.data(), 2, 6}, Endian::little, 1), std::invalid_argument);
}

TEST(SymbolCounts, KeyRunSummariesAreTheSumsOfTheRuns) {
  // Runs of overlapping keys (some counts of 4096 and more, some past 2^32, some in 32 bits):
  // the summary equals one of the merged counts, whatever k.
  Rng rng(41);
  std::vector<std::vector<std::uint32_t>> keys(5);
  std::vector<std::vector<std::uint64_t>> wide(5);
  std::vector<std::vector<std::uint32_t>> narrow(5);
  std::map<std::uint32_t, std::uint64_t> sum;
  for (std::size_t r = 0; r < keys.size(); ++r) {
    std::map<std::uint32_t, std::uint64_t> run;
    for (int i = 0; i < 20000; ++i) {
      const std::uint32_t key = i % 3 ? rng() : rng() % 5000;  // keys shared between runs, and keys of every range
      const std::uint64_t c = i % 97 == 0   ? (std::uint64_t{1} << 33) + rng() % 7
                              : i % 11 == 0 ? 4000 + rng() % 200
                                            : 1 + rng() % 3;
      run[key] = r % 2 ? std::min<std::uint64_t>(c, 0xFFFFFFFFu) : c;
    }
    for (const auto& [key, c] : run) {
      keys[r].push_back(key);
      (r % 2 ? narrow[r].emplace_back(static_cast<std::uint32_t>(c)) : wide[r].emplace_back(c));
      sum[key] += c;
    }
  }
  std::vector<KeyRunView> views;
  for (std::size_t r = 0; r < keys.size(); ++r)
    views.push_back(
        {keys[r].data(), r % 2 ? narrow[r].data() : nullptr, r % 2 ? nullptr : wide[r].data(), keys[r].size()});
  using CountCounts = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  std::map<std::uint64_t, std::uint64_t> count_counts;
  std::uint64_t total = 0;
  Items by_count;
  for (const auto& [key, c] : sum) {
    total += c;
    ++count_counts[c];
    by_count.emplace_back(value_of_key(key), c);
  }
  std::sort(by_count.begin(), by_count.end(), [](const auto& x, const auto& y) {
    return x.second != y.second ? x.second > y.second : x.first < y.first;
  });
  for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{100}, by_count.size() + 5}) {
    const KeyRunSummary s = summarize_key_runs(views, k);
    EXPECT_EQ(s.total, total);
    EXPECT_EQ(s.distinct, sum.size());
    EXPECT_TRUE(s.count_counts == CountCounts(count_counts.begin(), count_counts.end()));
    EXPECT_TRUE(s.top ==
                Items(by_count.begin(), by_count.begin() + static_cast<std::ptrdiff_t>(std::min(k, by_count.size()))));
  }
  const KeyRunSummary none = summarize_key_runs({}, 10);
  EXPECT_EQ(none.total, 0u);
  EXPECT_TRUE(none.top.empty() && none.count_counts.empty());
}

#if defined(__SANITIZE_ADDRESS__)
#define MEMCOMP_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMCOMP_TEST_SANITIZED 1
#endif
#endif

TEST(SymbolCounts, ReportsSpeed) {
  // Prints GB/s (never asserted: shared machines are noisy) on 64 MiB of dump-like and of
  // random words, at 1 and 2 threads, the best of 3 runs; 1 MiB in debug and sanitizer builds.
#if defined(NDEBUG) && !defined(MEMCOMP_TEST_SANITIZED)
  const std::size_t n = std::size_t{16} << 20;
#else
  const std::size_t n = std::size_t{1} << 18;
#endif
  for (const char* kind : {"dump-like", "random"}) {
    const auto ws = kind[0] == 'd' ? dump_like(n, 23) : random_words(n, 29);
    const auto b = bytes_of(ws, Endian::little);
    for (int t : {1, 2}) {
      double best = 1e30;
      std::size_t distinct = 0;
      for (int r = 0; r < 3; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        ValueCounts32 c;
        c.add_words({b.data(), b.size() / 128, 128}, Endian::little, t);
        distinct = c.view().size();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::printf("[ speed    ] %-9s %d thread(s): %.3f GB/s (%zu distinct of %zu words)\n", kind, t,
                  static_cast<double>(b.size()) / best / 1e9, distinct, ws.size());
    }
  }
}
