// memcomp stats: exact counts of 32-bit values, a mergeable partial result (DESIGN "Analyses
// are monoids"), below both layers that use it: frequent-value tables (FVC, SC2, E2MC's MFV
// tables) are fitted from it, and the entropy analyses count with it (P1 §III-B1).
// Counts live as (value, count) runs sorted by value. add_words drops repeats of the previous
// word, scatters the rest into value buckets planned from a sample (16-bit prefix ranges) and
// counts each bucket in cache: a dense table for a crowded prefix, else an LSD radix sort and a
// run-length pass. That stays fast for dumps with millions of distinct values (a hash table there
// is bound by cache misses), and the counts never depend on the plan or the thread count.
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include "memcomp/core/bits.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/core/memory.hpp"

namespace memcomp {

namespace detail {
/// Storage of count tables: batch buffers (memory.hpp: huge pages, reused once freed), and a
/// resize that leaves new elements unset, even std::pairs (the counting threads fill their
/// ranges of the table in place).
template <class T>
struct CountsAllocator {
  using value_type = T;
  CountsAllocator() noexcept = default;
  template <class U>
  CountsAllocator(const CountsAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    return static_cast<T*>(alloc_buffer(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept { free_buffer(p); }
  template <class U>
  void construct(U*) noexcept {}
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const CountsAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const CountsAllocator<U>&) const noexcept {
    return false;
  }
};
}  // namespace detail

class ValueCounts32 {
 public:
  using Item = std::pair<std::uint32_t, std::uint64_t>;  // (value, count)
  using Table = std::vector<Item, detail::CountsAllocator<Item>>;

  void add(std::uint32_t value, std::uint64_t count = 1);
  /// Counts every 32-bit word of the blocks (B must be a multiple of 4), over `threads` threads.
  void add_words(const BlockView& blocks, Endian endian, int threads = 1);
  void merge(const ValueCounts32& other);

  std::size_t distinct() const { return items_ref().size(); }
  std::uint64_t total() const noexcept { return total_; }
  std::uint64_t count(std::uint32_t value) const;
  /// Every (value, count), by ascending value.
  std::vector<Item> items() const {
    const Table& t = items_ref();
    return {t.begin(), t.end()};
  }
  /// The same without a copy (valid until the next add or merge).
  const Table& view() const { return items_ref(); }
  /// The k most frequent values: count descending, ties to the smaller value (SPEC 1.7, 1.8).
  std::vector<Item> top(std::size_t k) const;

 private:
  const Table& items_ref() const;  // folds pending single adds first
  void merge_sorted(const Table& run);
  void merge_sorted(Table&& run);

  mutable Table items_;                         // sorted by value, counts > 0
  mutable std::vector<std::uint32_t> pending_;  // single adds of count 1, not yet folded
  std::uint64_t total_ = 0;
};

/// Appends the (value, count) runs of `values` by ascending value (values is left as it was).
void count_runs(std::vector<std::uint32_t>& values, std::vector<ValueCounts32::Item>& out);

/// Counts on disk are kept by shard, so that bounded memory merges them a shard at a time
/// (memcomp/_counts.py): the shard of v is the top `shard_bits` bits of v * 0x9E3779B1 mod 2^32.
inline std::uint32_t shard_of(std::uint32_t v, unsigned shard_bits) noexcept {
  return static_cast<std::uint32_t>(v * 0x9E3779B1u) >> (32 - shard_bits);
}

/// Reorders n (value, count) pairs, sorted by value, by shard (a stable counting sort: values stay
/// ascending inside each shard) into out_values / out_counts; offsets (2^shard_bits + 1 entries)
/// gets where each shard starts. shard_bits in [1, 16].
void shard_partition(const std::uint32_t* values, const std::uint64_t* counts, std::size_t n, unsigned shard_bits,
                     std::uint32_t* out_values, std::uint64_t* out_counts, std::int64_t* offsets);

/// Merges runs of (value, count) into one run sorted by value with each value once, the counts
/// of equal values added: runs sorted by value with each value once (the common case) pairwise,
/// in a balanced tree of linear merges; any other run is sorted first.
struct CountRun {
  std::vector<std::uint32_t> values;
  std::vector<std::uint64_t> counts;
};
struct CountRunView {
  const std::uint32_t* values;
  const std::uint64_t* counts;
  std::size_t n;
};
CountRun merge_count_runs(const std::vector<CountRunView>& runs);
/// The same for runs all sorted by value with each value once (unchecked).
CountRun merge_sorted_runs(const std::vector<CountRunView>& runs);

}  // namespace memcomp
