// memcomp analysis: exact counts of 32-bit values, a mergeable partial result (DESIGN "Analyses
// are monoids"). Frequent-value tables (FVC, SC2, E2MC's MFV tables) are fitted from it.
// Counts live as (value, count) runs sorted by value. add_words drops repeats of the previous
// word, scatters the rest into value buckets planned from a sample (16-bit prefix ranges) and
// counts each bucket in cache: a dense table for a crowded prefix, else an LSD radix sort and a
// run-length pass. That stays fast for dumps with millions of distinct values (a hash table there
// is bound by cache misses), and the counts never depend on the plan or the thread count.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "memcomp/core/bits.hpp"
#include "memcomp/core/blocks.hpp"

namespace memcomp {

class ValueCounts32 {
 public:
  using Item = std::pair<std::uint32_t, std::uint64_t>;  // (value, count)

  void add(std::uint32_t value, std::uint64_t count = 1);
  /// Counts every 32-bit word of the blocks (B must be a multiple of 4), over `threads` threads.
  void add_words(const BlockView& blocks, Endian endian, int threads = 1);
  void merge(const ValueCounts32& other);

  std::size_t distinct() const { return items_ref().size(); }
  std::uint64_t total() const noexcept { return total_; }
  std::uint64_t count(std::uint32_t value) const;
  /// Every (value, count), by ascending value.
  std::vector<Item> items() const { return items_ref(); }
  /// The same without a copy (valid until the next add or merge).
  const std::vector<Item>& view() const { return items_ref(); }
  /// The k most frequent values: count descending, ties to the smaller value (SPEC 1.7, 1.8).
  std::vector<Item> top(std::size_t k) const;

 private:
  const std::vector<Item>& items_ref() const;  // folds pending single adds first
  void merge_sorted(const std::vector<Item>& run);
  void merge_sorted(std::vector<Item>&& run);

  mutable std::vector<Item> items_;             // sorted by value, counts > 0
  mutable std::vector<std::uint32_t> pending_;  // single adds of count 1, not yet folded
  std::uint64_t total_ = 0;
};

/// Appends the (value, count) runs of `values` by ascending value (values is left as it was).
void count_runs(std::vector<std::uint32_t>& values, std::vector<ValueCounts32::Item>& out);

}  // namespace memcomp
