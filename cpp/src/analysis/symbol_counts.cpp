// memcomp analysis: exact 32-bit value counts as sorted (value, count) runs.
#include "memcomp/analysis/symbol_counts.hpp"

#include <algorithm>
#include <array>

#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"

namespace memcomp {

namespace {
// Stable LSD radix sort of v[lo, hi) on bits [0, 24) in 12-bit digits (the bucket fits in cache).
void sort_low24(std::uint32_t* v, std::uint32_t* tmp, std::size_t n) {
  for (unsigned shift = 0; shift < 24; shift += 12) {
    std::array<std::uint32_t, 4096> start{};
    for (std::size_t i = 0; i < n; ++i) ++start[(v[i] >> shift) & 4095u];
    std::uint32_t sum = 0;
    for (auto& c : start) {
      const std::uint32_t x = c;
      c = sum;
      sum += x;
    }
    for (std::size_t i = 0; i < n; ++i) tmp[start[(v[i] >> shift) & 4095u]++] = v[i];
    std::copy(tmp, tmp + n, v);
  }
}
}  // namespace

void count_runs(std::vector<std::uint32_t>& v, std::vector<ValueCounts32::Item>& out) {
  // One MSD pass on the top byte, then each of the 256 buckets (cache-sized for typical chunks)
  // is sorted on its low 24 bits and run-length counted.
  std::vector<std::uint32_t> tmp(v.size());
  std::array<std::size_t, 257> start{};
  for (std::uint32_t x : v) ++start[(x >> 24) + 1];
  for (std::size_t b = 1; b <= 256; ++b) start[b] += start[b - 1];
  std::array<std::size_t, 256> at{};
  std::copy(start.begin(), start.end() - 1, at.begin());
  for (std::uint32_t x : v) tmp[at[x >> 24]++] = x;
  v.swap(tmp);
  out.reserve(out.size() + v.size() / 2);
  for (std::size_t b = 0; b < 256; ++b) {
    const std::size_t lo = start[b], hi = start[b + 1];
    if (hi - lo > 1) sort_low24(v.data() + lo, tmp.data(), hi - lo);
    for (std::size_t i = lo; i < hi;) {
      std::size_t j = i + 1;
      while (j < hi && v[j] == v[i]) ++j;
      out.emplace_back(v[i], j - i);
      i = j;
    }
  }
}

namespace {
std::vector<ValueCounts32::Item> merge_runs(const std::vector<ValueCounts32::Item>& a,
                                            const std::vector<ValueCounts32::Item>& b) {
  std::vector<ValueCounts32::Item> out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      out.push_back(b[j++]);
    } else {
      out.emplace_back(a[i].first, a[i].second + b[j].second);
      ++i;
      ++j;
    }
  }
  return out;
}
}  // namespace

void ValueCounts32::merge_sorted(const std::vector<Item>& run) {
  if (items_ref().empty()) {
    items_ = run;
    return;
  }
  items_ = merge_runs(items_, run);
}

void ValueCounts32::merge_sorted(std::vector<Item>&& run) {
  if (items_ref().empty()) {
    items_ = std::move(run);
    return;
  }
  items_ = merge_runs(items_, run);
}

const std::vector<ValueCounts32::Item>& ValueCounts32::items_ref() const {
  if (!pending_.empty()) {
    std::vector<Item> run;
    count_runs(pending_, run);
    pending_.clear();
    items_ = merge_runs(items_, run);
  }
  return items_;
}

void ValueCounts32::add(std::uint32_t value, std::uint64_t count) {
  if (count == 0) return;
  total_ += count;
  if (count == 1) {
    pending_.push_back(value);
    if (pending_.size() >= (std::size_t{1} << 20)) items_ref();
  } else {
    merge_sorted({{value, count}});
  }
}

void ValueCounts32::add_words(const BlockView& blocks, Endian endian, int threads) {
  if (blocks.block_bytes % 4) throw invalid_argument("32-bit words need a block size that is a multiple of 4");
  const std::size_t words = blocks.n_blocks * blocks.block_bytes / 4;
  if (words == 0) return;
  const unsigned t =
      std::max(1u, std::min<unsigned>(resolve_threads(threads), static_cast<unsigned>(words / 65536 + 1)));
  std::vector<std::vector<Item>> parts(t);
  parallel_for(t, static_cast<int>(t), 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t p = b; p < e; ++p) {
      const std::size_t lo = words * p / t, hi = words * (p + 1) / t;
      std::vector<std::uint32_t> v(hi - lo);
      for (std::size_t w = lo; w < hi; ++w) v[w - lo] = load<std::uint32_t>(blocks.data + 4 * w, endian);
      count_runs(v, parts[p]);
    }
  });
  for (auto& p : parts) merge_sorted(std::move(p));
  total_ += words;
}

void ValueCounts32::merge(const ValueCounts32& other) {
  merge_sorted(other.items_ref());
  total_ += other.total_;
}

std::uint64_t ValueCounts32::count(std::uint32_t value) const {
  const auto& it = items_ref();
  auto p = std::lower_bound(it.begin(), it.end(), Item{value, 0});
  return p != it.end() && p->first == value ? p->second : 0;
}

std::vector<ValueCounts32::Item> ValueCounts32::top(std::size_t k) const {
  std::vector<Item> out = items_ref();
  auto better = [](const Item& a, const Item& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  if (k < out.size()) {
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(), better);
    out.resize(k);
  } else {
    std::sort(out.begin(), out.end(), better);
  }
  return out;
}

}  // namespace memcomp
