// memcomp analysis: order-0 symbol statistics and entropy (SPEC 3; P1 §III-B1, §V-A).
//
// Symbols of SL bits (SPEC 0.2): SL 4 = nibble k is bits [4k, 4k+4) of the block read as one
// little-endian integer (the low nibble of byte 0 first; big-endian puts the high nibble first);
// SL 8 = bytes; SL 16/32 = little-endian (or big-endian) elements. A symbol's position is its index
// modulo 32/SL: E2MC builds one table per position for SL 4 and 8 (P1 §III-E).
// The exact counts (SymbolHistogram) are a stats primitive the codecs fit from too
// (memcomp/stats/symbol_histogram.hpp); dumps with too many distinct 32-bit values can use the
// bounded-memory SpaceSaving sketch below instead.
#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "memcomp/core/bits.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/stats/symbol_histogram.hpp"

namespace memcomp {

/// Plug-in entropy in bits per symbol of a histogram (0 log 0 = 0); 0 for an empty one.
double entropy_bits(const std::uint64_t* counts, std::size_t n);

/// Per-block order-0 entropy H_b in bits per symbol (SPEC 3 `block` variant).
void block_entropy(const BlockView& blocks, unsigned symbol_bits, Endian endian, double* out, int threads = 1);
/// block_entropy at SL 4 and 8 in one pass (the same values): nibble counts from the byte counts.
void block_entropy_4_8(const BlockView& blocks, double* out4, double* out8, int threads = 1);

/// Bounded-memory heavy hitters of 32-bit values (Space-Saving, Metwally et al. 2005): at most
/// `capacity` counters; every value with true count > total/capacity is kept, and a kept value's
/// count overestimates its true count by at most its `error`. Merging adds counters and keeps the
/// largest `capacity` (Agarwal et al. 2012), so chunked and threaded runs combine.
class SpaceSaving32 {
 public:
  struct Entry {
    std::uint32_t value;
    std::uint64_t count;  ///< upper bound of the true count
    std::uint64_t error;  ///< count - error is a lower bound
  };
  explicit SpaceSaving32(std::size_t capacity);
  void add(std::uint32_t value, std::uint64_t count = 1);
  void add_words(const BlockView& blocks, Endian endian);
  void merge(const SpaceSaving32& other);
  std::size_t capacity() const noexcept { return capacity_; }
  std::uint64_t total() const noexcept { return total_; }
  /// Entries by count descending, ties to the smaller value.
  std::vector<Entry> entries() const;
  /// A sketch restored from entries() and total() (serialised partial results).
  static SpaceSaving32 restore(std::size_t capacity, std::uint64_t total, const std::vector<Entry>& entries);

 private:
  void sift_down(std::size_t i);
  void sift_up(std::size_t i);
  void swap_nodes(std::size_t i, std::size_t j);

  std::size_t capacity_;
  std::uint64_t total_ = 0;
  std::vector<Entry> heap_;                               // min-heap by (count, value desc)
  std::unordered_map<std::uint32_t, std::size_t> where_;  // value -> heap index
};

}  // namespace memcomp
