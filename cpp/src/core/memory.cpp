// memcomp core: huge-page backed batch buffers (memory.hpp).
#include "memcomp/core/memory.hpp"

#include <sys/mman.h>

#include <cstdlib>

namespace memcomp {
namespace {
constexpr std::size_t kHuge = std::size_t{2} << 20;      // a transparent huge page
constexpr std::size_t kHugeFrom = std::size_t{4} << 20;  // smaller buffers stay on malloc's heap
}  // namespace

void* alloc_buffer(std::size_t bytes) {
  void* p = nullptr;
  if (bytes >= kHugeFrom) {
    const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    p = std::aligned_alloc(kHuge, rounded);
#if defined(MADV_HUGEPAGE)
    if (p) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP, plain pages
#endif
  } else {
    p = std::malloc(bytes == 0 ? 1 : bytes);
  }
  if (!p) throw std::bad_alloc();
  return p;
}

void free_buffer(void* p) noexcept { std::free(p); }

}  // namespace memcomp
