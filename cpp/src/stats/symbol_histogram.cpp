// memcomp stats: exact histograms of SL-bit symbols (SPEC 0.2, 3; P1 = E2MC, IPDPS'17, §III-B1).
#include "memcomp/stats/symbol_histogram.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"
#include "memcomp/core/symbols.hpp"

namespace memcomp {
namespace {

// Counts of each byte value at each byte position in a 32-bit word (t[k][v]: byte j with
// j % 4 == k; n < 2^32), loaded 8 bytes at a time into four tables, which also breaks the
// store-to-load chains of repeated bytes.
void byte_counts(const std::uint8_t* p, std::size_t n, std::array<std::array<std::uint32_t, 256>, 4>& t) {
  for (auto& row : t) row.fill(0u);
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const std::uint64_t w = load<std::uint64_t>(p + j, Endian::little);  // byte j + i in bits 8i
    ++t[0][w & 0xFF];
    ++t[1][(w >> 8) & 0xFF];
    ++t[2][(w >> 16) & 0xFF];
    ++t[3][(w >> 24) & 0xFF];
    ++t[0][(w >> 32) & 0xFF];
    ++t[1][(w >> 40) & 0xFF];
    ++t[2][(w >> 48) & 0xFF];
    ++t[3][w >> 56];
  }
  for (; j < n; ++j) ++t[j % 4][p[j]];
}

// Dense counts of one byte range (starting on a word boundary) into `out` (positions x 2^SL).
// SL 4 and 8 come from the bytes' counts by position: nibble 2k + h of a word is the low or the
// high nibble of byte k (h = 0: the low one, little-endian; the high one, big-endian).
template <unsigned SL>
void count_dense(const std::uint8_t* p, std::size_t n, Endian e, bool per_pos, std::uint64_t* out) {
  constexpr std::size_t V = std::size_t{1} << SL;
  constexpr std::size_t kStep = std::size_t{1} << 28;  // bytes per uint32 round (no overflow)
  if constexpr (SL <= 8) {
    auto t = std::make_unique<std::array<std::array<std::uint32_t, 256>, 4>>();
    for (std::size_t base = 0; base < n; base += kStep) {
      byte_counts(p + base, std::min(kStep, n - base), *t);
      for (unsigned k = 0; k < 4; ++k)
        for (unsigned v = 0; v < 256; ++v) {
          const std::uint64_t c = (*t)[k][v];
          if (SL == 8) {
            out[(per_pos ? k * V : 0) + v] += c;
          } else {
            const unsigned first = e == Endian::little ? v & 0xFu : v >> 4,
                           second = e == Endian::little ? v >> 4 : v & 0xFu;
            out[(per_pos ? (2 * k) * V : 0) + first] += c;
            out[(per_pos ? (2 * k + 1) * V : 0) + second] += c;
          }
        }
    }
  } else {
    std::vector<std::uint32_t> local(V);
    for (std::size_t base = 0; base < n; base += kStep) {
      const std::size_t len = std::min(kStep, n - base);
      std::fill(local.begin(), local.end(), 0u);
      for_each_symbol<SL>(p + base, len, e, [&](std::uint32_t s, unsigned) { ++local[s]; });
      for (std::size_t i = 0; i < local.size(); ++i) out[i] += local[i];
    }
  }
}

}  // namespace

void byte_position_counts(const BlockView& blocks, std::uint64_t* out, int threads) {
  const std::size_t b = blocks.block_bytes, cells = b * 256;
  std::mutex merge;
  parallel_for(blocks.n_blocks, threads, 1 << 14, [&](std::size_t lo, std::size_t hi) {
    std::vector<std::uint32_t> local(cells, 0);
    constexpr std::size_t kRound = std::size_t{1} << 31;  // blocks per uint32 round (no overflow)
    for (std::size_t r = lo; r < hi; r += kRound) {
      const std::size_t end = std::min(hi, r + kRound);
      for (std::size_t i = r; i < end; ++i) {
        const std::uint8_t* p = blocks.block(i);
        for (std::size_t j = 0; j < b; ++j) ++local[j * 256 + p[j]];  // a row per position: no chains
      }
      const std::lock_guard<std::mutex> lock(merge);
      for (std::size_t k = 0; k < cells; ++k) out[k] += local[k];
      std::fill(local.begin(), local.end(), 0u);
    }
  });
}

void check_symbol_bits(unsigned sl, std::size_t block_bytes) {
  if (sl != 4 && sl != 8 && sl != 16 && sl != 32)
    throw invalid_argument("symbol length must be 4, 8, 16 or 32 bits, got " + std::to_string(sl));
  if (block_bytes && (8 * block_bytes) % sl)
    throw invalid_argument(std::to_string(sl) + "-bit symbols do not divide " + std::to_string(block_bytes) +
                           " B blocks");
}

SymbolHistogram::SymbolHistogram(unsigned sl, bool per_position, Endian endian) : sl_(sl), endian_(endian) {
  check_symbol_bits(sl);
  if (per_position) {
    if (sl > 8) throw invalid_argument("per-position histograms are defined for 4- and 8-bit symbols (P1 §III-E)");
    positions_ = 32 / sl;
  }
  if (sl <= 16) dense_.assign(std::size_t{positions_} << sl, 0);
}

void SymbolHistogram::add(const BlockView& blocks, int threads) {
  check_symbol_bits(sl_, blocks.block_bytes);
  const std::size_t bytes = blocks.n_blocks * blocks.block_bytes;
  if (bytes == 0) return;
  if (sl_ == 32) {
    table_.add_words(blocks, endian_, threads);
  } else {
    const unsigned t =
        std::max(1u, std::min<unsigned>(resolve_threads(threads), static_cast<unsigned>(bytes >> 20) + 1));
    std::vector<std::vector<std::uint64_t>> parts(t, std::vector<std::uint64_t>(dense_.size(), 0));
    const bool pp = positions_ > 1;
    parallel_for(t, static_cast<int>(t), 1, [&](std::size_t b, std::size_t e) {
      for (std::size_t k = b; k < e; ++k) {
        // split on 4-byte boundaries so positions stay aligned with words
        const std::size_t lo = bytes / 4 * k / t * 4, hi = k + 1 == t ? bytes : bytes / 4 * (k + 1) / t * 4;
        const std::uint8_t* p = blocks.data + lo;
        switch (sl_) {
          case 4: count_dense<4>(p, hi - lo, endian_, pp, parts[k].data()); break;
          case 8: count_dense<8>(p, hi - lo, endian_, pp, parts[k].data()); break;
          default: count_dense<16>(p, hi - lo, endian_, pp, parts[k].data()); break;
        }
      }
    });
    for (const auto& part : parts)
      for (std::size_t i = 0; i < dense_.size(); ++i) dense_[i] += part[i];
  }
  total_ += bytes * 8 / sl_;
}

void SymbolHistogram::merge(const SymbolHistogram& o) {
  if (o.sl_ != sl_ || o.positions_ != positions_ || o.endian_ != endian_)
    throw invalid_argument("cannot merge histograms of different symbol lengths, positions or byte orders");
  for (std::size_t i = 0; i < dense_.size(); ++i) dense_[i] += o.dense_[i];
  table_.merge(o.table_);
  total_ += o.total_;
}

}  // namespace memcomp
