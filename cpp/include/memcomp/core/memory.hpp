// memcomp core: buffers for batch outputs. Large ones are backed by transparent huge pages
// where the kernel offers them (a fresh 100 MB stream costs 50 faults instead of 25,000), and
// elements are left uninitialised (every batch writes each one before it is read).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace memcomp {

/// malloc-compatible storage of `bytes` bytes (huge-page backed from 4 MiB); throws bad_alloc.
void* alloc_buffer(std::size_t bytes);
/// Releases what alloc_buffer returned (one of 256 KiB or more may be kept for the next request).
void free_buffer(void* p) noexcept;
/// Returns every kept buffer to the system.
void release_buffers() noexcept;

/// Allocator that leaves new elements uninitialised (resize costs no memset) and takes its
/// storage from alloc_buffer.
template <class T>
struct uninitialized_allocator {
  using value_type = T;
  uninitialized_allocator() noexcept = default;
  template <class U>
  uninitialized_allocator(const uninitialized_allocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(alloc_buffer(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { free_buffer(p); }
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const uninitialized_allocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const uninitialized_allocator<U>&) const noexcept {
    return false;
  }
};

/// A vector of plain values whose resize leaves the new elements uninitialised.
template <class T>
using PodVector = std::vector<T, uninitialized_allocator<T>>;
using ByteBuffer = PodVector<std::uint8_t>;

}  // namespace memcomp
