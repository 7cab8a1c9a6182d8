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
/// (memcomp/_counts.py), and a run is sorted by the key of its values: key_of(v) = v * 0x9E3779B1
/// mod 2^32, a bijection (value_of_key undoes it) whose top `shard_bits` bits are the shard. A run
/// sorted by key is therefore sorted by shard too, and values that cluster (small integers, the
/// floats of one exponent) spread evenly over the shards.
constexpr std::uint32_t kKeyMultiplier = 0x9E3779B1u;
namespace detail {
constexpr std::uint32_t odd_inverse(std::uint32_t a) {
  std::uint32_t x = a;  // Newton's iteration doubles the correct low bits: 3 -> 6 -> ... -> 96
  for (int i = 0; i < 5; ++i) x *= 2u - a * x;
  return x;
}
}  // namespace detail
constexpr std::uint32_t kKeyInverse = detail::odd_inverse(kKeyMultiplier);
static_assert(kKeyMultiplier * kKeyInverse == 1u, "the key is a bijection");

constexpr std::uint32_t key_of(std::uint32_t v) noexcept { return v * kKeyMultiplier; }
constexpr std::uint32_t value_of_key(std::uint32_t k) noexcept { return k * kKeyInverse; }
inline std::uint32_t shard_of(std::uint32_t v, unsigned shard_bits) noexcept { return key_of(v) >> (32 - shard_bits); }

/// Counts every 32-bit word of the blocks (B a multiple of 4) as add_words does, but as (key, count)
/// runs sorted by key: the run a shard at a time needs, without a reordering pass.
ValueCounts32::Table count_word_keys(const BlockView& blocks, Endian endian, int threads = 1);

/// A run of (key, count) sorted by key with each key once; counts in 32 or 64 bits (one is null).
struct KeyRunView {
  const std::uint32_t* keys;
  const std::uint32_t* counts32;
  const std::uint64_t* counts64;
  std::size_t n;
  std::uint64_t count(std::size_t i) const noexcept { return counts64 ? counts64[i] : counts32[i]; }
};

/// What the entropy bounds need of the sum of key runs (SPEC 3): the total, the distinct values,
/// how many values have each count (so that sum c log2 c can be added up exactly elsewhere), and
/// the k most frequent values (count descending, ties to the smaller value).
struct KeyRunSummary {
  std::uint64_t total = 0, distinct = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> count_counts;  // (count, values with it), ascending
  std::vector<ValueCounts32::Item> top;                               // (value, count)
};

/// Sums the runs key by key without merging them into one: window by window of 2^15 keys, in
/// a dense table in cache (a window without keys costs nothing).
KeyRunSummary summarize_key_runs(const std::vector<KeyRunView>& runs, std::size_t k);

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
