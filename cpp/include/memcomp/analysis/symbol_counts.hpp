// memcomp analysis: exact counts of 32-bit values, a mergeable partial result (DESIGN "Analyses
// are monoids"). Frequent-value tables (FVC, SC2, E2MC's MFV tables) are fitted from it.
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

  std::size_t distinct() const noexcept { return used_; }
  std::uint64_t total() const noexcept { return total_; }
  std::uint64_t count(std::uint32_t value) const;
  /// Every (value, count), by ascending value.
  std::vector<Item> items() const;
  /// The k most frequent values: count descending, ties to the smaller value (SPEC 1.7, 1.8).
  std::vector<Item> top(std::size_t k) const;

 private:
  struct Slot {
    std::uint32_t value;
    std::uint64_t count;  // 0 = empty
  };
  std::size_t find(std::uint32_t value) const noexcept;  // slot holding value, or the empty one
  void grow();

  std::vector<Slot> slots_ = std::vector<Slot>(64, Slot{0, 0});
  std::size_t used_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace memcomp
