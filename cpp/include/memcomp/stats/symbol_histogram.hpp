// memcomp stats: exact histograms of SL-bit symbols (SPEC 0.2, 3; P1 = E2MC, IPDPS'17,
// §III-B1, §III-E), below both layers that use them: E2MC fits its code tables from them and the
// entropy analyses (memcomp/analysis/entropy.hpp) turn them into bits per symbol.
//
// Symbols of SL bits (SPEC 0.2): SL 4 = nibble k is bits [4k, 4k+4) of the block read as one
// little-endian integer (the low nibble of byte 0 first; big-endian puts the high nibble first);
// SL 8 = bytes; SL 16/32 = little-endian (or big-endian) elements. A symbol's position is its index
// modulo 32/SL: E2MC builds one table per position for SL 4 and 8 (P1 §III-E). Counts are exact
// and merge by addition (DESIGN "Analyses are monoids").
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memcomp/core/bits.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/stats/symbol_counts.hpp"

namespace memcomp {

/// Throws invalid_argument unless symbol_bits is 4, 8, 16 or 32 and divides the block's bits.
void check_symbol_bits(unsigned symbol_bits, std::size_t block_bytes = 0);

/// Counts of each byte value at each byte position of the blocks: out[j * 256 + v] += the blocks
/// whose byte j is v (out has block_bytes * 256 entries; MPC's per-byte entropies, P3 §3).
void byte_position_counts(const BlockView& blocks, std::uint64_t* out, int threads = 1);

/// Exact counts of SL-bit symbols, optionally one histogram per position (SL 4 and 8 only).
class SymbolHistogram {
 public:
  SymbolHistogram(unsigned symbol_bits, bool per_position = false, Endian endian = Endian::little);

  unsigned symbol_bits() const noexcept { return sl_; }
  unsigned positions() const noexcept { return positions_; }
  Endian endian() const noexcept { return endian_; }
  std::uint64_t total() const noexcept { return total_; }

  void add(const BlockView& blocks, int threads = 1);
  void merge(const SymbolHistogram& other);

  /// SL <= 16: positions() x 2^SL counts, position-major.
  const std::vector<std::uint64_t>& dense() const noexcept { return dense_; }
  /// SL 32: the exact (value, count) table.
  const ValueCounts32& table() const noexcept { return table_; }

 private:
  unsigned sl_, positions_ = 1;
  Endian endian_;
  std::uint64_t total_ = 0;
  std::vector<std::uint64_t> dense_;
  ValueCounts32 table_;
};

}  // namespace memcomp
