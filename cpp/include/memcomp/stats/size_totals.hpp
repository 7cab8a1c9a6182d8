// memcomp stats: a batch's size columns reduced to the mergeable totals a report needs (SPEC 0.5):
// the histogram of in-band bits, each encoding mode's blocks and bits by field (P1 §V's "where the
// bits go"), and the per-block best of several codecs (the oracle row). One pass in C++, so a
// compare of many codecs spends its time in the codecs, not in reducing their columns.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace memcomp {

/// Totals of one codec's batch. `hist[b]` counts blocks of exactly b in-band bits; `modes` holds
/// one row per encoding mode present, in increasing mode order: {mode, blocks, payload bits, meta
/// bits, header bits, tag bits}.
struct SizeTotals {
  std::vector<std::int64_t> hist;
  std::vector<std::array<std::int64_t, 6>> modes;
  std::uint64_t tag_bits = 0;
};

/// SizeTotals gathered a piece of columns at a time (one accumulator per thread, merged after):
/// size_totals and compare's one pass (pipelines/compare_totals.hpp) both add through it.
class SizeAccumulator {
 public:
  explicit SizeAccumulator(std::size_t hist_len) : hist_(hist_len, 0), dense_(kDenseModes, Row{}) {}
  /// Adds n blocks' columns. Throws memcomp::invalid_argument if a block has hist_len bits or more.
  void add(const std::uint32_t* bits, const std::uint32_t* payload, const std::uint32_t* meta,
           const std::uint32_t* header, const std::uint32_t* tag, const std::int16_t* mode, std::size_t n);
  void merge(const SizeAccumulator& other);
  SizeTotals totals() const;

 private:
  using Row = std::array<std::int64_t, 5>;  // blocks, payload, meta, header, tag bits
  static constexpr int kDenseModes = 256;   // modes 0..255 in a flat table, others in a map
  std::vector<std::int64_t> hist_;
  std::vector<Row> dense_;
  std::map<int, Row> sparse_;
};

/// Reduces n blocks' columns (bits, payload, meta, header, tag, mode) into `hist_len` histogram
/// bins. Throws memcomp::invalid_argument (ValueError) if a block has hist_len bits or more.
SizeTotals size_totals(const std::uint32_t* bits, const std::uint32_t* payload, const std::uint32_t* meta,
                       const std::uint32_t* header, const std::uint32_t* tag, const std::int16_t* mode, std::size_t n,
                       std::size_t hist_len, int threads);

/// The per-block best of `k` codecs' in-band bits (`bits[j]` has n entries): `hist[b]` counts
/// blocks whose smallest size is b bits, `wins[j]` the blocks codec j is the first smallest for
/// (ties go to the earlier codec). Throws memcomp::invalid_argument (ValueError) if a minimum is hist_len or more.
struct OracleTotals {
  std::vector<std::int64_t> hist;
  std::vector<std::int64_t> wins;
};
/// OracleTotals gathered a piece at a time, as SizeAccumulator.
class OracleAccumulator {
 public:
  OracleAccumulator(std::size_t members, std::size_t hist_len) : hist_(hist_len, 0), wins_(members, 0) {}
  /// Adds n blocks of each member's in-band bits (bits.size() == members).
  void add(const std::vector<const std::uint32_t*>& bits, std::size_t n);
  void merge(const OracleAccumulator& other);
  OracleTotals totals() const { return {hist_, wins_}; }

 private:
  std::vector<std::int64_t> hist_, wins_;
  std::vector<std::uint32_t> best_, who_;  // scratch of the piece
};
OracleTotals oracle_totals(const std::vector<const std::uint32_t*>& bits, std::size_t n, std::size_t hist_len,
                           int threads);

}  // namespace memcomp
