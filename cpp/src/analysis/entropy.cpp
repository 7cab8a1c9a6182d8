// memcomp analysis: entropy and the Space-Saving sketch (SPEC 3; P1 = E2MC, IPDPS'17, §III-B1);
// the symbol histograms are in memcomp/stats/symbol_histogram.hpp.
#include "memcomp/analysis/entropy.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "kernels/block_entropy.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"
#include "memcomp/core/symbols.hpp"

namespace memcomp {

double entropy_bits(const std::uint64_t* counts, std::size_t n) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i) total += counts[i];
  if (total == 0) return 0.0;
  // H = log2(N) - (1/N) sum c log2 c
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (counts[i]) s += static_cast<double>(counts[i]) * std::log2(static_cast<double>(counts[i]));
  const double nn = static_cast<double>(total);
  return std::max(0.0, std::log2(nn) - s / nn);
}

namespace {

/// Per-block entropies of bytes (into out8) and, if out4, of nibbles, blocks [lo, hi): dense
/// counts per byte value, the values present, in order, from a bitmap. Four tables and bitmaps,
/// byte j into table j % 4: a run of one value (a zero block) is four chains of increments a
/// quarter as long, not one. A nibble's count is the sum over the bytes present holding it, low
/// or high; both sums run in value order, as each entropy's own path adds them.
template <class Finish, class Finish4>
void byte_and_nibble_entropy(const BlockView& blocks, std::size_t lo, std::size_t hi, const std::vector<double>& clog,
                             Finish finish, double* out8, double* out4, const std::vector<double>& clog4,
                             Finish4 finish4) {
  const std::size_t b = blocks.block_bytes;
  std::vector<std::uint32_t> dense(4 * 256, 0);
  for (std::size_t i = lo; i < hi; ++i) {
    std::uint64_t seen[4][4] = {};
    const std::uint8_t* p = blocks.block(i);
    std::size_t j = 0;
    for (; j + 4 <= b; j += 4)
      for (unsigned t = 0; t < 4; ++t) {
        const unsigned v = p[j + t];
        ++dense[256 * t + v];
        seen[t][v >> 6] |= std::uint64_t{1} << (v & 63);
      }
    for (; j < b; ++j) {
      ++dense[p[j]];
      seen[0][p[j] >> 6] |= std::uint64_t{1} << (p[j] & 63);
    }
    double sum = 0.0;
    std::uint32_t nib[16] = {};
    for (unsigned w = 0; w < 4; ++w)
      for (std::uint64_t bits = seen[0][w] | seen[1][w] | seen[2][w] | seen[3][w]; bits != 0; bits &= bits - 1) {
        const std::size_t v = 64 * w + static_cast<unsigned>(__builtin_ctzll(bits));
        const std::uint32_t c = dense[v] + dense[256 + v] + dense[512 + v] + dense[768 + v];
        sum += clog[c];
        nib[v & 0xFu] += c;
        nib[v >> 4] += c;
        dense[v] = dense[256 + v] = dense[512 + v] = dense[768 + v] = 0;
      }
    out8[i] = b ? finish(sum) : 0.0;
    if (out4) {
      double sum4 = 0.0;
      for (const std::uint32_t c : nib) sum4 += clog4[c];  // in value order; clog4[0] = 0
      out4[i] = b ? finish4(sum4) : 0.0;
    }
  }
}

/// c log2 c for c = 0..n (0 log 0 = 0): a block's terms, looked up instead of computed.
std::vector<double> clog_table(std::size_t n) {
  std::vector<double> clog(n + 1, 0.0);
  for (std::size_t c = 1; c <= n; ++c) clog[c] = static_cast<double>(c) * std::log2(static_cast<double>(c));
  return clog;
}

}  // namespace

void block_entropy_4_8(const BlockView& blocks, double* out4, double* out8, int threads) {
  const std::size_t b = blocks.block_bytes;
  const std::vector<double> clog8 = clog_table(b), clog4 = clog_table(2 * b);
  const double n8 = static_cast<double>(b), n4 = static_cast<double>(2 * b);
  const double log8 = std::log2(n8), log4 = std::log2(n4);
  auto finish8 = [&](double sum) { return std::max(0.0, log8 - sum / n8); };
  auto finish4 = [&](double sum) { return std::max(0.0, log4 - sum / n4); };
  parallel_for(blocks.n_blocks, threads, 2048, [&](std::size_t lo, std::size_t hi) {
    byte_and_nibble_entropy(blocks, lo, hi, clog8, finish8, out8, out4, clog4, finish4);
  });
}

void block_entropy(const BlockView& blocks, unsigned sl, Endian endian, double* out, int threads) {
  check_symbol_bits(sl, blocks.block_bytes);
  const std::size_t b = blocks.block_bytes, n_sym = 8 * b / sl;
  // entropy_bits over each block's counts, its terms c log2 c from a table (a block's counts are
  // at most n_sym) and log2 N computed once: no log2 per distinct symbol. The terms are summed in
  // value order, but at SL 16 and 32 in order of first appearance (no sort; a sum in another order
  // can differ in the last bit).
  constexpr std::size_t kPairwise = 64;  // SL-32 symbols per block counted by all-pairs compares
  const std::vector<double> clog = clog_table(n_sym);
  const double nn = static_cast<double>(n_sym), log_n = std::log2(nn);
  auto finish = [&](double sum) { return std::max(0.0, log_n - sum / nn); };
  parallel_for(blocks.n_blocks, threads, 2048, [&](std::size_t lo, std::size_t hi) {
    if (sl == 4) {  // both nibbles of each byte (their order is irrelevant to counts) into four tables in turn
      for (std::size_t i = lo; i < hi; ++i) {
        std::uint32_t t[4][16] = {};
        const std::uint8_t* p = blocks.block(i);
        std::size_t j = 0;
        for (; j + 2 <= b; j += 2) {
          ++t[0][p[j] & 0xFu];
          ++t[1][p[j] >> 4];
          ++t[2][p[j + 1] & 0xFu];
          ++t[3][p[j + 1] >> 4];
        }
        for (; j < b; ++j) {
          ++t[0][p[j] & 0xFu];
          ++t[1][p[j] >> 4];
        }
        double sum = 0.0;
        for (unsigned v = 0; v < 16; ++v) sum += clog[t[0][v] + t[1][v] + t[2][v] + t[3][v]];  // clog[0] = 0
        out[i] = n_sym ? finish(sum) : 0.0;
      }
      return;
    }
    if (sl == 8) {
      byte_and_nibble_entropy(blocks, lo, hi, clog, finish, out, nullptr, clog, finish);
      return;
    }
    std::vector<std::uint32_t> syms(n_sym);
    if (sl == 16) {  // a dense count per value (256 KiB, in cache), summed in order of first appearance
      std::vector<std::uint32_t> dense(std::size_t{1} << 16, 0);
      for (std::size_t i = lo; i < hi; ++i) {
        std::size_t k = 0;
        for_each_symbol<16>(blocks.block(i), b, endian, [&](std::uint32_t v, unsigned) {
          syms[k] = v;
          k += dense[v]++ == 0;  // the distinct values, as they first appear
        });
        double sum = 0.0;
        for (std::size_t j = 0; j < k; ++j) {
          sum += clog[dense[syms[j]]];
          dense[syms[j]] = 0;
        }
        out[i] = n_sym ? finish(sum) : 0.0;
      }
      return;
    }
    const auto first_counts = block_entropy_kernels().first_counts;
    std::vector<std::uint32_t> first(n_sym);
    for (std::size_t i = lo; i < hi; ++i) {
      std::size_t k = 0;
      for_each_symbol<32>(blocks.block(i), b, endian, [&](std::uint32_t v, unsigned) { syms[k++] = v; });
      double sum = 0.0;
      if (n_sym <= kPairwise) {  // each value's count where it first appears (kernels/block_entropy.hpp)
        first_counts(syms.data(), n_sym, first.data());
        for (std::size_t j = 0; j < n_sym; ++j) sum += clog[first[j]];  // clog[0] = 0
      } else {                                                          // sorted: runs in value order
        std::sort(syms.begin(), syms.end());
        for (std::size_t j = 0; j < n_sym;) {
          std::size_t r = j + 1;
          while (r < n_sym && syms[r] == syms[j]) ++r;
          sum += clog[r - j];
          j = r;
        }
      }
      out[i] = n_sym ? finish(sum) : 0.0;
    }
  });
}

// --- Space-Saving ------------------------------------------------------------------------------

namespace {
// Heap order: smaller count first; on equal counts the larger value is evicted first.
inline bool before(const SpaceSaving32::Entry& a, const SpaceSaving32::Entry& b) {
  return a.count != b.count ? a.count < b.count : a.value > b.value;
}
}  // namespace

SpaceSaving32::SpaceSaving32(std::size_t capacity) : capacity_(capacity) {
  if (capacity == 0 || capacity > (std::size_t{1} << 26))
    throw invalid_argument("sketch capacity must be in [1, 2^26]");
  heap_.reserve(capacity);
  where_.reserve(capacity);
}

void SpaceSaving32::swap_nodes(std::size_t i, std::size_t j) {
  std::swap(heap_[i], heap_[j]);
  where_[heap_[i].value] = i;
  where_[heap_[j].value] = j;
}

void SpaceSaving32::sift_up(std::size_t i) {
  while (i > 0 && before(heap_[i], heap_[(i - 1) / 2])) {
    swap_nodes(i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

void SpaceSaving32::sift_down(std::size_t i) {
  for (;;) {
    std::size_t m = i;
    const std::size_t l = 2 * i + 1, r = l + 1;
    if (l < heap_.size() && before(heap_[l], heap_[m])) m = l;
    if (r < heap_.size() && before(heap_[r], heap_[m])) m = r;
    if (m == i) return;
    swap_nodes(i, m);
    i = m;
  }
}

void SpaceSaving32::add(std::uint32_t v, std::uint64_t count) {
  if (count == 0) return;
  total_ += count;
  auto it = where_.find(v);
  if (it != where_.end()) {
    heap_[it->second].count += count;  // a larger count moves towards the leaves
    sift_down(it->second);
  } else if (heap_.size() < capacity_) {
    heap_.push_back({v, count, 0});
    where_[v] = heap_.size() - 1;
    sift_up(heap_.size() - 1);
  } else {  // replace the smallest counter: the newcomer inherits its count as error
    Entry& min = heap_.front();
    where_.erase(min.value);
    min = Entry{v, min.count + count, min.count};
    where_[v] = 0;
    sift_down(0);
  }
}

void SpaceSaving32::add_words(const BlockView& blocks, Endian endian) {
  if (blocks.block_bytes % 4) throw invalid_argument("32-bit words need a block size that is a multiple of 4");
  const std::size_t words = blocks.n_blocks * blocks.block_bytes / 4;
  for (std::size_t w = 0; w < words; ++w) add(load<std::uint32_t>(blocks.data + 4 * w, endian));
}

void SpaceSaving32::merge(const SpaceSaving32& o) {
  std::unordered_map<std::uint32_t, Entry> all;
  for (const std::vector<Entry>* h : {&std::as_const(heap_), &o.heap_})
    for (const Entry& e : *h) {
      auto [it, fresh] = all.try_emplace(e.value, e);
      if (!fresh) {
        it->second.count += e.count;
        it->second.error += e.error;
      }
    }
  std::vector<Entry> keep;
  keep.reserve(all.size());
  for (const auto& kv : all) keep.push_back(kv.second);
  std::sort(keep.begin(), keep.end(), [](const Entry& a, const Entry& b) { return before(b, a); });
  if (keep.size() > capacity_) keep.resize(capacity_);
  const std::uint64_t total = total_ + o.total_;
  heap_.clear();
  where_.clear();
  for (const Entry& e : keep) {
    heap_.push_back(e);
    where_[e.value] = heap_.size() - 1;
    sift_up(heap_.size() - 1);
  }
  total_ = total;
}

SpaceSaving32 SpaceSaving32::restore(std::size_t capacity, std::uint64_t total, const std::vector<Entry>& entries) {
  if (entries.size() > capacity) throw invalid_argument("more sketch entries than its capacity");
  SpaceSaving32 s(capacity);
  for (const Entry& e : entries) {
    if (e.error > e.count || s.where_.count(e.value)) throw invalid_argument("malformed sketch entries");
    s.heap_.push_back(e);
    s.where_[e.value] = s.heap_.size() - 1;
    s.sift_up(s.heap_.size() - 1);
  }
  s.total_ = total;
  return s;
}

std::vector<SpaceSaving32::Entry> SpaceSaving32::entries() const {
  std::vector<Entry> out = heap_;
  std::sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return before(b, a); });
  return out;
}

}  // namespace memcomp
