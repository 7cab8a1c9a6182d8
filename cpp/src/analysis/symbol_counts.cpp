// memcomp analysis: exact 32-bit value counts as sorted (value, count) runs.
#include "memcomp/analysis/symbol_counts.hpp"

#include <algorithm>
#include <array>

#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"

namespace memcomp {

void count_runs(std::vector<std::uint32_t>& v, std::vector<ValueCounts32::Item>& out) {
  std::vector<std::uint32_t> tmp(v.size());
  for (unsigned shift = 0; shift < 32; shift += 11) {
    std::array<std::size_t, 2048> start{};
    for (std::uint32_t x : v) ++start[(x >> shift) & 2047u];
    std::size_t sum = 0;
    for (auto& s : start) {
      const std::size_t c = s;
      s = sum;
      sum += c;
    }
    for (std::uint32_t x : v) tmp[start[(x >> shift) & 2047u]++] = x;
    v.swap(tmp);
  }
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i + 1;
    while (j < v.size() && v[j] == v[i]) ++j;
    out.emplace_back(v[i], j - i);
    i = j;
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

void ValueCounts32::merge_sorted(const std::vector<Item>& run) { items_ = merge_runs(items_ref(), run); }

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
  const unsigned t = std::max(1u, std::min<unsigned>(resolve_threads(threads), static_cast<unsigned>(words / 65536 + 1)));
  std::vector<std::vector<Item>> parts(t);
  parallel_for(t, static_cast<int>(t), 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t p = b; p < e; ++p) {
      const std::size_t lo = words * p / t, hi = words * (p + 1) / t;
      std::vector<std::uint32_t> v(hi - lo);
      for (std::size_t w = lo; w < hi; ++w) v[w - lo] = load<std::uint32_t>(blocks.data + 4 * w, endian);
      count_runs(v, parts[p]);
    }
  });
  for (const auto& p : parts) merge_sorted(p);
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
  auto better = [](const Item& a, const Item& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; };
  if (k < out.size()) {
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(), better);
    out.resize(k);
  } else {
    std::sort(out.begin(), out.end(), better);
  }
  return out;
}

}  // namespace memcomp
