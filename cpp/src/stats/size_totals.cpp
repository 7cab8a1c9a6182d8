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

[[noreturn]] void too_large(std::uint32_t b, std::size_t hist_len) {
  throw memcomp::invalid_argument("a block of " + std::to_string(b) +
                                  " bits exceeds the codec's max_compressed_bits (" + std::to_string(hist_len - 1) +
                                  ")");
}

}  // namespace

void SizeAccumulator::add(const std::uint32_t* bits, const std::uint32_t* payload, const std::uint32_t* meta,
                          const std::uint32_t* header, const std::uint32_t* tag, const std::int16_t* mode,
                          std::size_t n) {
  const std::size_t hist_len = hist_.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (bits[i] >= hist_len) too_large(bits[i], hist_len);
    ++hist_[bits[i]];
    const int m = mode[i];
    Row& r = (m >= 0 && m < kDenseModes) ? dense_[static_cast<std::size_t>(m)] : sparse_[m];
    r[0] += 1;
    r[1] += payload[i];
    r[2] += meta[i];
    r[3] += header[i];
    r[4] += tag[i];
  }
}

void SizeAccumulator::merge(const SizeAccumulator& o) {
  for (std::size_t k = 0; k < hist_.size(); ++k) hist_[k] += o.hist_[k];
  for (std::size_t m = 0; m < dense_.size(); ++m)
    for (std::size_t f = 0; f < 5; ++f) dense_[m][f] += o.dense_[m][f];
  for (const auto& [m, r] : o.sparse_)
    for (std::size_t f = 0; f < 5; ++f) sparse_[m][f] += r[f];
}

SizeTotals SizeAccumulator::totals() const {
  SizeTotals out;
  out.hist = hist_;
  std::map<int, Row> all = sparse_;
  for (std::size_t m = 0; m < dense_.size(); ++m)
    if (dense_[m][0]) all[static_cast<int>(m)] = dense_[m];
  for (const auto& [m, r] : all) {
    out.modes.push_back({m, r[0], r[1], r[2], r[3], r[4]});
    out.tag_bits += static_cast<std::uint64_t>(r[4]);
  }
  return out;
}

SizeTotals size_totals(const std::uint32_t* bits, const std::uint32_t* payload, const std::uint32_t* meta,
                       const std::uint32_t* header, const std::uint32_t* tag, const std::int16_t* mode, std::size_t n,
                       std::size_t hist_len, int threads) {
  SizeAccumulator total(hist_len);
  std::mutex merge;
  parallel_for(n, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
    SizeAccumulator part(hist_len);
    part.add(bits + b, payload + b, meta + b, header + b, tag + b, mode + b, e - b);
    const std::lock_guard<std::mutex> lock(merge);
    total.merge(part);
  });
  return total.totals();
}

void OracleAccumulator::add(const std::vector<const std::uint32_t*>& bits, std::size_t n) {
  const std::size_t k = bits.size(), hist_len = hist_.size();
  if (k == 0 || n == 0) return;
  best_.assign(bits[0], bits[0] + n);
  who_.assign(n, 0);
  for (std::size_t j = 1; j < k; ++j) {  // codec by codec: each column read in order
    const std::uint32_t* col = bits[j];
    for (std::size_t i = 0; i < n; ++i) {
      const bool less = col[i] < best_[i];  // strictly: ties keep the earlier codec
      best_[i] = less ? col[i] : best_[i];
      who_[i] = less ? static_cast<std::uint32_t>(j) : who_[i];
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (best_[i] >= hist_len) too_large(best_[i], hist_len);
    ++hist_[best_[i]];
    ++wins_[who_[i]];
  }
}

void OracleAccumulator::merge(const OracleAccumulator& o) {
  for (std::size_t x = 0; x < hist_.size(); ++x) hist_[x] += o.hist_[x];
  for (std::size_t j = 0; j < wins_.size(); ++j) wins_[j] += o.wins_[j];
}

OracleTotals oracle_totals(const std::vector<const std::uint32_t*>& bits, std::size_t n, std::size_t hist_len,
                           int threads) {
  const std::size_t k = bits.size();
  OracleAccumulator total(k, hist_len);
  if (k == 0) return total.totals();
  std::mutex merge;
  parallel_for(n, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
    std::vector<const std::uint32_t*> part(k);
    for (std::size_t j = 0; j < k; ++j) part[j] = bits[j] + b;
    OracleAccumulator acc(k, hist_len);
    acc.add(part, e - b);
    const std::lock_guard<std::mutex> lock(merge);
    total.merge(acc);
  });
  return total.totals();
}

}  // namespace memcomp
