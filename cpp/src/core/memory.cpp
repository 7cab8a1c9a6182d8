// memcomp core: huge-page backed batch buffers (memory.hpp), and a small cache of freed ones.
// A sweep encodes, decodes and measures batch after batch; each fresh buffer would cost the
// kernel a page fault and a page of zeros per 4 KiB (or 2 MiB) before a byte is written, and
// malloc maps every request above its threshold afresh (size columns of a few MB included). The
// last few freed buffers from 256 KiB up are kept for the next request of a similar size
// instead; when the cache is full, the buffer freed longest ago makes room (a sweep repeats its
// latest requests).
#include "memcomp/core/memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace memcomp {
namespace {
constexpr std::size_t kHuge = std::size_t{2} << 20;                  // a transparent huge page
constexpr std::size_t kHugeFrom = std::size_t{4} << 20;              // smaller buffers: plain pages
constexpr std::size_t kCachedFrom = std::size_t{256} << 10;          // smaller buffers: malloc's heap
constexpr std::size_t kPage = 4096, kGrain = std::size_t{64} << 10;  // a plain-page buffer's room and rounding
constexpr std::size_t kCacheSlots = 16;
constexpr std::size_t kCacheBytes = std::size_t{512} << 20;  // at most this much kept idle

struct Block {
  void* p = nullptr;
  std::size_t bytes = 0;    // rounded to kGrain or kHuge
  std::uint64_t freed = 0;  // when (a count of frees)
};

// Freed large buffers (never shared with a forked child: its copy starts empty).
struct Cache {
  std::mutex mu;
  Block slot[kCacheSlots];
  std::size_t total = 0;
  std::uint64_t frees = 0;
  pid_t pid = getpid();
};
Cache g_cache;

// Every buffer's size and the room in front of it (0: a malloc chunk starting 16 bytes earlier;
// else a page, or a huge page, so the buffer itself is page aligned) sit in the 16 bytes in front
// of it.
constexpr std::size_t kHeader = 16;
std::size_t* header(void* p) { return static_cast<std::size_t*>(static_cast<void*>(static_cast<char*>(p) - kHeader)); }
bool cache_usable() { return g_cache.pid == getpid(); }
// Returns a page-aligned buffer (with its room) to the system.
void release(void* p) noexcept { std::free(static_cast<char*>(p) - header(p)[1]); }
}  // namespace

void* alloc_buffer(std::size_t bytes) {
  if (bytes < kCachedFrom) {
    void* base = std::malloc(kHeader + bytes);
    if (!base) throw std::bad_alloc();
    void* p = static_cast<char*>(base) + kHeader;
    header(p)[0] = bytes;
    header(p)[1] = 0;
    return p;
  }
  if (bytes > (std::size_t{1} << 48)) throw std::bad_alloc();
  const bool huge = bytes >= kHugeFrom;
  const std::size_t grain = huge ? kHuge : kGrain, room = huge ? kHuge : kPage;
  const std::size_t rounded = (bytes + grain - 1) / grain * grain;
  if (cache_usable()) {  // the smallest cached buffer that holds it without wasting half
    std::lock_guard<std::mutex> lock(g_cache.mu);
    Block* best = nullptr;
    for (Block& b : g_cache.slot)
      if (b.p && b.bytes >= rounded && b.bytes <= 2 * rounded && (!best || b.bytes < best->bytes)) best = &b;
    if (best) {
      void* p = best->p;
      g_cache.total -= best->bytes;
      *best = Block{};
      return p;
    }
  }
  void* base = std::aligned_alloc(room, rounded + room);  // the room, then the buffer
  if (!base) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  if (huge) madvise(static_cast<char*>(base) + room, rounded, MADV_HUGEPAGE);  // advice only: else plain pages
#endif
  void* p = static_cast<char*>(base) + room;
  header(p)[0] = rounded;
  header(p)[1] = room;
  return p;
}

void free_buffer(void* p) noexcept {
  if (!p) return;
  const std::size_t bytes = header(p)[0];
  if (header(p)[1] == 0) {
    std::free(static_cast<char*>(p) - kHeader);
    return;
  }
  void* drop[kCacheSlots + 1] = {};  // released after the lock
  std::size_t n_drop = 0;
  if (cache_usable() && bytes <= kCacheBytes) {
    std::lock_guard<std::mutex> lock(g_cache.mu);
    for (;;) {  // room for it: a free slot within the byte limit, evicting the oldest until there is
      Block* empty = nullptr;
      Block* oldest = nullptr;
      for (Block& b : g_cache.slot) {
        if (!b.p)
          empty = &b;
        else if (!oldest || b.freed < oldest->freed)
          oldest = &b;
      }
      if (empty && g_cache.total + bytes <= kCacheBytes) {
        *empty = Block{p, bytes, ++g_cache.frees};
        g_cache.total += bytes;
        p = nullptr;
        break;
      }
      drop[n_drop++] = oldest->p;  // (some slot is taken: else the first test held)
      g_cache.total -= oldest->bytes;
      *oldest = Block{};
    }
  }
  for (std::size_t i = 0; i < n_drop; ++i) release(drop[i]);
  if (p) release(p);
}

void release_buffers() noexcept {
  if (!cache_usable()) return;
  std::lock_guard<std::mutex> lock(g_cache.mu);
  for (Block& b : g_cache.slot) {
    if (b.p) release(b.p);
    b = Block{};
  }
  g_cache.total = 0;
}

}  // namespace memcomp
