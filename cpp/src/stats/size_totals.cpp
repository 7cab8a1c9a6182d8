// memcomp stats: size columns to report totals (see size_totals.hpp).
#include "memcomp/stats/size_totals.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"

namespace memcomp {

namespace {

constexpr std::size_t kMinChunk = 1 << 16;  // blocks per thread, at least: below it one thread is faster
constexpr int kDenseModes = 256;            // modes 0..255 in a flat table, others in a map

[[noreturn]] void too_large(std::uint32_t b, std::size_t hist_len) {
  throw memcomp::invalid_argument("a block of " + std::to_string(b) +
                                  " bits exceeds the codec's max_compressed_bits (" + std::to_string(hist_len - 1) +
                                  ")");
}

}  // namespace

SizeTotals size_totals(const std::uint32_t* bits, const std::uint32_t* payload, const std::uint32_t* meta,
                       const std::uint32_t* header, const std::uint32_t* tag, const std::int16_t* mode, std::size_t n,
                       std::size_t hist_len, int threads) {
  using Row = std::array<std::int64_t, 5>;
  SizeTotals out;
  out.hist.assign(hist_len, 0);
  std::vector<Row> dense(kDenseModes, Row{});
  std::map<int, Row> sparse;
  std::mutex merge;
  parallel_for(n, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
    std::vector<std::int64_t> hist(hist_len, 0);
    std::vector<Row> d(kDenseModes, Row{});
    std::map<int, Row> s;
    for (std::size_t i = b; i < e; ++i) {
      if (bits[i] >= hist_len) too_large(bits[i], hist_len);
      ++hist[bits[i]];
      const int m = mode[i];
      Row& r = (m >= 0 && m < kDenseModes) ? d[static_cast<std::size_t>(m)] : s[m];
      r[0] += 1;
      r[1] += payload[i];
      r[2] += meta[i];
      r[3] += header[i];
      r[4] += tag[i];
    }
    const std::lock_guard<std::mutex> lock(merge);
    for (std::size_t k = 0; k < hist_len; ++k) out.hist[k] += hist[k];
    for (std::size_t m = 0; m < d.size(); ++m)
      for (std::size_t f = 0; f < 5; ++f) dense[m][f] += d[m][f];
    for (const auto& [m, r] : s)
      for (std::size_t f = 0; f < 5; ++f) sparse[m][f] += r[f];
  });
  for (std::size_t m = 0; m < dense.size(); ++m)
    if (dense[m][0]) sparse[static_cast<int>(m)] = dense[m];
  for (const auto& [m, r] : sparse) {
    out.modes.push_back({m, r[0], r[1], r[2], r[3], r[4]});
    out.tag_bits += static_cast<std::uint64_t>(r[4]);
  }
  return out;
}

OracleTotals oracle_totals(const std::vector<const std::uint32_t*>& bits, std::size_t n, std::size_t hist_len,
                           int threads) {
  const std::size_t k = bits.size();
  OracleTotals out{std::vector<std::int64_t>(hist_len, 0), std::vector<std::int64_t>(k, 0)};
  if (k == 0) return out;
  std::mutex merge;
  parallel_for(n, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
    std::vector<std::int64_t> hist(hist_len, 0), wins(k, 0);
    std::vector<std::uint32_t> best(e - b), who(e - b, 0);
    std::copy(bits[0] + b, bits[0] + e, best.begin());
    for (std::size_t j = 1; j < k; ++j) {  // codec by codec: each column read in order
      const std::uint32_t* col = bits[j] + b;
      for (std::size_t i = 0; i < e - b; ++i) {
        const bool less = col[i] < best[i];  // strictly: ties keep the earlier codec
        best[i] = less ? col[i] : best[i];
        who[i] = less ? static_cast<std::uint32_t>(j) : who[i];
      }
    }
    for (std::size_t i = 0; i < e - b; ++i) {
      if (best[i] >= hist_len) too_large(best[i], hist_len);
      ++hist[best[i]];
      ++wins[who[i]];
    }
    const std::lock_guard<std::mutex> lock(merge);
    for (std::size_t x = 0; x < hist_len; ++x) out.hist[x] += hist[x];
    for (std::size_t j = 0; j < k; ++j) out.wins[j] += wins[j];
  });
  return out;
}

}  // namespace memcomp
