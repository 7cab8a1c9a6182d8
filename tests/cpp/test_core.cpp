// The core's plumbing: the persistent thread pool behind parallel_for, the batch buffers, and
// the BitReader peek/skip pair.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "memcomp/core/bitstream.hpp"
#include "memcomp/core/memory.hpp"
#include "memcomp/core/parallel.hpp"

using namespace memcomp;

TEST(ParallelFor, EveryIndexOnceForAnySplit) {
  for (std::size_t n : {1u, 2u, 7u, 1000u, 4097u}) {
    for (int threads : {1, 2, 3, 8}) {
      for (std::size_t min_chunk : {1u, 3u, 4096u}) {
        std::vector<std::atomic<int>> hits(n);
        parallel_for(n, threads, min_chunk, [&](std::size_t b, std::size_t e) {
          ASSERT_LT(b, e);
          for (std::size_t i = b; i < e; ++i) hits[i].fetch_add(1);
        });
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << n << " " << threads << " " << min_chunk;
      }
    }
  }
}

TEST(ParallelFor, RethrowsTheFirstRangesException) {
  try {
    parallel_for(100, 4, 1, [](std::size_t b, std::size_t) { throw std::runtime_error("range " + std::to_string(b)); });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "range 0");
  }
  // The pool is still usable afterwards.
  std::atomic<std::size_t> sum{0};
  parallel_for(100, 4, 1, [&](std::size_t b, std::size_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 100u);
}

TEST(ParallelFor, NestedCallsRunInline) {
  std::vector<std::atomic<int>> hits(64 * 64);
  parallel_for(64, 4, 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i)
      parallel_for(64, 4, 1, [&](std::size_t b2, std::size_t e2) {
        for (std::size_t j = b2; j < e2; ++j) hits[64 * i + j].fetch_add(1);
      });
  });
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(ParallelFor, ConcurrentCallersShareThePool) {
  constexpr int kCallers = 6;
  std::vector<std::size_t> sums(kCallers, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int rep = 0; rep < 50; ++rep) {
        std::vector<std::size_t> part(3, 0);
        parallel_for(3000, 3, 1000, [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) part[b / 1000] += i;
        });
        sums[static_cast<std::size_t>(c)] += part[0] + part[1] + part[2];
      }
    });
  for (auto& t : callers) t.join();
  for (std::size_t s : sums) EXPECT_EQ(s, 50u * (2999u * 3000u / 2));
}

TEST(Buffers, SmallAndLargeHoldTheirBytes) {
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{5} << 20}) {
    auto* p = static_cast<std::uint8_t*>(alloc_buffer(bytes));
    ASSERT_NE(p, nullptr);
    if (bytes) {
      std::memset(p, 0xA5, bytes);
      EXPECT_EQ(p[bytes - 1], 0xA5);
    }
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 16, 0u);
    free_buffer(p);
  }
  free_buffer(nullptr);
  EXPECT_THROW(alloc_buffer(~std::size_t{0}), std::bad_alloc);
}

TEST(Buffers, AFreedLargeBufferServesTheNextSimilarRequest) {
  release_buffers();  // none kept from earlier tests
  void* a = alloc_buffer(std::size_t{9} << 20);
  free_buffer(a);
  void* b = alloc_buffer(std::size_t{8} << 20);  // holds it without wasting half
  EXPECT_EQ(a, b);
  void* c = alloc_buffer(std::size_t{9} << 20);  // the cache has none left: a fresh one
  EXPECT_NE(b, c);
  free_buffer(b);
  free_buffer(c);
  void* d = alloc_buffer(std::size_t{40} << 20);  // much larger than any cached: fresh
  EXPECT_NE(d, b);
  EXPECT_NE(d, c);
  free_buffer(d);
  release_buffers();
}

TEST(Buffers, MidSizedBuffersAreKeptToo) {
  release_buffers();
  // A size column of a 16 MiB batch (2 MiB): kept, page aligned, and served again.
  void* a = alloc_buffer(std::size_t{2} << 20);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 4096, 0u);
  std::memset(a, 1, std::size_t{2} << 20);
  free_buffer(a);
  void* b = alloc_buffer((std::size_t{2} << 20) - 100);
  EXPECT_EQ(a, b);
  free_buffer(b);
  // One of 5 MiB (huge-page backed) holds a 3 MiB request without wasting half; 1 MiB does not fit it.
  void* h = alloc_buffer(std::size_t{5} << 20);
  free_buffer(h);
  void* m = alloc_buffer(std::size_t{1} << 20);
  EXPECT_NE(m, h);
  void* k = alloc_buffer(std::size_t{3} << 20);
  EXPECT_EQ(k, h);
  std::memset(k, 2, std::size_t{3} << 20);
  free_buffer(m);
  free_buffer(k);
  release_buffers();
}

TEST(Buffers, AFullCacheDropsTheBufferFreedLongestAgo) {
  release_buffers();
  const auto mib = [](std::size_t n) { return n << 20; };
  std::vector<void*> p;
  for (std::size_t k = 0; k < 17; ++k) p.push_back(alloc_buffer(mib(4 + 2 * k)));  // 4, 6, ..., 36 MiB
  for (void* q : p) free_buffer(q);  // sixteen slots: the seventeenth free drops the 4 MiB one
  void* a = alloc_buffer(mib(4));
  EXPECT_EQ(a, p[1]);  // the smallest that holds it is now the 6 MiB one
  void* b = alloc_buffer(mib(36));
  EXPECT_EQ(b, p[16]);
  free_buffer(a);
  free_buffer(b);
  release_buffers();
  // The byte limit (512 MiB) too: a second 300 MiB buffer takes the first one's place.
  void* c = alloc_buffer(mib(300));
  void* d = alloc_buffer(mib(300));
  free_buffer(c);
  free_buffer(d);
  void* e = alloc_buffer(mib(300));
  EXPECT_EQ(e, d);
  free_buffer(e);
  release_buffers();
}

TEST(Buffers, PodVectorLeavesGrowthUninitialisedButKeepsValues) {
  PodVector<std::uint32_t> v(3);
  v[0] = 1;
  v[1] = 2;
  v[2] = 3;
  v.resize(3u << 20);  // large: moves to a huge-page buffer, the first values copied
  EXPECT_EQ(v[0], 1u);
  EXPECT_EQ(v[2], 3u);
  v.resize(2);
  EXPECT_EQ(v[1], 2u);
}

TEST(BitReader, PeekPadsWithZerosAndSkipChecksTheEnd) {
  const std::uint8_t buf[2] = {0xB5, 0xC0};  // 1011 0101 11
  BitReader r(buf, 0, 10);
  EXPECT_EQ(r.peek(4), 0xBu);
  EXPECT_EQ(r.position(), 0u);
  r.skip(4);
  EXPECT_EQ(r.peek(6), 0x17u);       // 0101 11
  EXPECT_EQ(r.peek(9), 0x17u << 3);  // past the end: zeros
  EXPECT_THROW(r.skip(7), corrupt_stream);
  r.skip(6);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_EQ(r.peek(5), 0u);
}
