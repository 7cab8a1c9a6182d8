// memcomp analysis: exact 32-bit value counts (open addressing, linear probing).
#include "memcomp/analysis/symbol_counts.hpp"

#include <algorithm>

#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"

namespace memcomp {

std::size_t ValueCounts32::find(std::uint32_t value) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = (value * 0x9E3779B1u) & mask;
  while (slots_[i].count != 0 && slots_[i].value != value) i = (i + 1) & mask;
  return i;
}

void ValueCounts32::grow() {
  std::vector<Slot> old(slots_.size() * 2, Slot{0, 0});
  old.swap(slots_);
  for (const Slot& s : old)
    if (s.count) slots_[find(s.value)] = s;
}

void ValueCounts32::add(std::uint32_t value, std::uint64_t count) {
  if (count == 0) return;
  std::size_t i = find(value);
  if (slots_[i].count == 0) {
    if (2 * (used_ + 1) > slots_.size()) {
      grow();
      i = find(value);
    }
    slots_[i].value = value;
    ++used_;
  }
  slots_[i].count += count;
  total_ += count;
}

void ValueCounts32::add_words(const BlockView& blocks, Endian endian, int threads) {
  if (blocks.block_bytes % 4) throw invalid_argument("32-bit words need a block size that is a multiple of 4");
  const std::size_t words = blocks.n_blocks * blocks.block_bytes / 4;
  const unsigned t = std::max(1u, std::min<unsigned>(resolve_threads(threads), static_cast<unsigned>(words / 65536 + 1)));
  std::vector<ValueCounts32> parts(t);
  parallel_for(t, static_cast<int>(t), 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t p = b; p < e; ++p) {
      const std::size_t lo = words * p / t, hi = words * (p + 1) / t;
      for (std::size_t w = lo; w < hi; ++w) parts[p].add(load<std::uint32_t>(blocks.data + 4 * w, endian));
    }
  });
  for (const auto& p : parts) merge(p);
}

void ValueCounts32::merge(const ValueCounts32& other) {
  for (const Slot& s : other.slots_)
    if (s.count) add(s.value, s.count);
}

std::uint64_t ValueCounts32::count(std::uint32_t value) const { return slots_[find(value)].count; }

std::vector<ValueCounts32::Item> ValueCounts32::items() const {
  std::vector<Item> out;
  out.reserve(used_);
  for (const Slot& s : slots_)
    if (s.count) out.emplace_back(s.value, s.count);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<ValueCounts32::Item> ValueCounts32::top(std::size_t k) const {
  std::vector<Item> out = items();
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
