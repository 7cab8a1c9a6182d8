// memcomp stats: exact 32-bit value counts as sorted (value, count) runs.
//
// add_words in three steps, each over `threads` threads:
//  1. plan: a sample of the words sets value buckets (ranges of 16-bit prefixes) of about
//     kBucketTarget words each; a prefix that alone holds kDenseMin words is a bucket of its own;
//  2. scatter: each thread drops repeats of the previous word (runs go to a side list of extra
//     counts) and appends every other word to its bucket, in blocks of an arena of its own;
//  3. count: each thread takes a range of buckets in value order and counts each one: a dense
//     65536-entry table for a one-prefix bucket with many words, otherwise an LSD radix sort of
//     the low bits in cache and a run-length pass. The side counts are folded in on the way out.
// The counts are exact whatever the plan and the thread count, so the result never depends on
// either; a poor plan (a sample unlike the rest) only costs time (a bucket sorted out of cache).
#include "memcomp/stats/symbol_counts.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "memcomp/core/best_k.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"

namespace memcomp {

namespace {

using Item = ValueCounts32::Item;
using Table = ValueCounts32::Table;

/// Count descending, ties to the smaller value (SPEC 1.7, 1.8).
inline bool more_frequent(const Item& a, const Item& b) {
  return a.second != b.second ? a.second > b.second : a.first < b.first;
}

constexpr std::size_t kSliceWords = std::size_t{1} << 30;  // per pass; keeps every count below 2^32
constexpr std::size_t kPlanMin = std::size_t{1} << 16;     // fewer words: one bucket, no sample
constexpr std::size_t kSampleRuns = 1024, kSampleRunWords = 64;
constexpr double kBucketTarget = 48 << 10;  // words per sorted bucket: keys and scratch fit in L2
constexpr double kDenseMin = 12 << 10;      // expected words that make a prefix a dense bucket
constexpr std::size_t kDenseUse = 4096;     // actual words a one-prefix bucket needs to count densely
constexpr std::size_t kMaxBuckets = 1536;   // scatter destinations
constexpr std::uint32_t kMaxSpan = 256;     // prefixes a sorted bucket spans: 24 bits, two LSD passes
constexpr unsigned kMaxDigitBits = 12;      // LSD digit width limit (4096 counters; 2 passes to 24 bits)
constexpr std::size_t kSmallSort = 128;     // fewer words in a bucket: std::sort
constexpr std::size_t kBlockWords = 2048;   // arena block of a bucket

/// Scratch of the size of the input: a batch buffer (memory.hpp), uninitialised, huge-page
/// backed and reused by the next call instead of faulted in afresh.
struct FreeBuffer {
  void operator()(void* p) const noexcept { free_buffer(p); }
};
template <class T>
using Buffer = std::unique_ptr<T[], FreeBuffer>;

template <class T>
Buffer<T> raw_buffer(std::size_t n) {
  return Buffer<T>(static_cast<T*>(alloc_buffer(n * sizeof(T))));
}

/// The word at p as it is counted: its value, or its key (key_of) when Keyed. Equal words have
/// equal keys, so runs of repeats are found on the bytes either way.
template <Endian E, bool Keyed>
inline std::uint32_t word_at(const std::uint8_t* p) {
  const std::uint32_t v = load<std::uint32_t>(p, E);
  return Keyed ? key_of(v) : v;
}

// ---- plan ---------------------------------------------------------------------------------------

/// Buckets b = [lo[b], lo[b + 1]) of 16-bit prefixes, in value order, and the bucket of each prefix.
struct Plan {
  std::vector<std::uint32_t> lo;
  std::vector<std::uint16_t> bucket_of;
  std::size_t buckets() const { return lo.size() - 1; }
};

Plan one_bucket() {
  Plan plan;
  plan.lo = {0, 65536};
  plan.bucket_of.assign(65536, 0);
  return plan;
}

template <Endian E, bool Keyed>
Plan make_plan(const std::uint8_t* src, std::size_t n) {
  if (n < kPlanMin) return one_bucket();
  // Runs of words spread evenly over the input, repeats dropped as the scatter drops them.
  std::vector<std::uint32_t> est(65536);
  const std::size_t runs = std::min(kSampleRuns, n / kSampleRunWords);
  for (std::size_t r = 0; r < runs; ++r) {
    const std::uint8_t* p = src + 4 * ((n - kSampleRunWords) * r / (runs - 1));
    std::uint32_t prev = ~word_at<E, Keyed>(p);
    for (std::size_t i = 0; i < kSampleRunWords; ++i) {
      const std::uint32_t v = word_at<E, Keyed>(p + 4 * i);
      est[v >> 16] += v != prev;
      prev = v;
    }
  }
  const double scale = static_cast<double>(n) / static_cast<double>(runs * kSampleRunWords);
  for (double grow = 1;; grow *= 2) {
    Plan plan;
    plan.bucket_of.resize(65536);
    double acc = 0;
    bool open = false;
    for (std::uint32_t p = 0; p < 65536; ++p) {
      const double e = est[p] * scale;
      if (e >= kDenseMin * grow) {
        plan.lo.push_back(p);
        open = false;
      } else {
        if (open && (acc + e > kBucketTarget * grow || p - plan.lo.back() >= kMaxSpan)) open = false;
        if (!open) {
          plan.lo.push_back(p);
          acc = 0;
          open = true;
        }
        acc += e;
      }
      plan.bucket_of[p] = static_cast<std::uint16_t>(plan.lo.size() - 1);
    }
    plan.lo.push_back(65536);
    if (plan.buckets() <= kMaxBuckets) return plan;
  }
}

// ---- scatter ------------------------------------------------------------------------------------

constexpr std::size_t kLineBytes = 128, kLineWords = kLineBytes / 4;  // a bucket's buffer: two lines

struct alignas(kLineBytes) Line {
  std::uint32_t w[kLineWords];
};

/// Copies a bucket's buffer to memory around the caches (a scatter to hundreds of buckets
/// otherwise waits on a read-for-ownership of every destination line).
inline void stream_line(std::uint32_t* dst, const std::uint32_t* src) {
#if defined(__SSE2__)
  for (std::size_t i = 0; i < kLineWords; i += 4)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_load_si128(reinterpret_cast<const __m128i*>(src + i)));
#else
  std::memcpy(dst, src, kLineWords * sizeof(std::uint32_t));
#endif
}

/// One thread's share of the input, by bucket: blocks of kBlockWords words in its own arena, and
/// the runs it dropped, folded to (value, extra count) by value.
struct Part {
  Buffer<std::uint32_t> arena_mem;
  std::uint32_t* arena = nullptr;                 // next free block
  std::vector<std::uint32_t*> blk, end, limit;    // per bucket: its current block, next word, block end
  std::vector<std::vector<std::uint32_t*>> full;  // per bucket: its full blocks, in order
  Table extras;

  std::uint32_t* next_block(std::size_t b) {
    if (blk[b]) full[b].push_back(blk[b]);
    blk[b] = arena;
    arena += kBlockWords;
    limit[b] = arena;
    return blk[b];
  }
  std::size_t words(std::size_t b) const {
    return full[b].size() * kBlockWords + static_cast<std::size_t>(end[b] - blk[b]);
  }
};

/// Sorts x by its high 32 bits (LSD radix, 8-bit digits) and appends (high, sum of low) per value.
void fold_runs(std::uint64_t* x, std::size_t n, Table& out) {
  if (n == 0) return;
  Buffer<std::uint64_t> tmp;
  if (n < 256) {
    std::sort(x, x + n);
  } else {
    tmp = raw_buffer<std::uint64_t>(n);
    std::uint64_t *a = x, *b = tmp.get();
    std::array<std::array<std::size_t, 256>, 4> h{};
    for (std::size_t i = 0; i < n; ++i)
      for (unsigned d = 0; d < 4; ++d) ++h[d][(x[i] >> (32 + 8 * d)) & 255u];
    for (unsigned d = 0; d < 4; ++d) {
      if (h[d][(a[0] >> (32 + 8 * d)) & 255u] == n) continue;  // one digit value: in order
      std::size_t sum = 0;
      for (auto& c : h[d]) {
        const std::size_t t = c;
        c = sum;
        sum += t;
      }
      for (std::size_t i = 0; i < n; ++i) b[h[d][(a[i] >> (32 + 8 * d)) & 255u]++] = a[i];
      std::swap(a, b);
    }
    x = a;
  }
  for (std::size_t i = 0; i < n;) {
    const auto v = static_cast<std::uint32_t>(x[i] >> 32);
    std::uint64_t c = 0;
    for (; i < n && static_cast<std::uint32_t>(x[i] >> 32) == v; ++i) c += x[i] & 0xFFFFFFFFu;
    out.emplace_back(v, c);
  }
}

/// Bit k set where word k of the 8 at p equals the word before it (p[-1] is readable).
inline unsigned repeats8(const std::uint8_t* p) {
#if defined(__SSE2__)
  const auto* q = reinterpret_cast<const __m128i*>(p);
  const auto* r = reinterpret_cast<const __m128i*>(p - 4);
  const __m128i lo = _mm_cmpeq_epi32(_mm_loadu_si128(q), _mm_loadu_si128(r));
  const __m128i hi = _mm_cmpeq_epi32(_mm_loadu_si128(q + 1), _mm_loadu_si128(r + 1));
  return static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(lo)) | _mm_movemask_ps(_mm_castsi128_ps(hi)) << 4);
#else
  unsigned m = 0;
  for (unsigned k = 0; k < 8; ++k) m |= static_cast<unsigned>(std::memcmp(p + 4 * k, p + 4 * k - 4, 4) == 0) << k;
  return m;
#endif
}

/// Appends words to their buckets' buffers, writing each buffer out when it fills.
class Scatterer {
 public:
  Scatterer(const Plan& plan, Part& part)
      : part_(part), bucket_of_(plan.bucket_of.data()), lines_(plan.buckets()), cur_(plan.buckets()) {
    for (std::size_t b = 0; b < lines_.size(); ++b) cur_[b] = lines_[b].w;
    last_p_ = cur_[0];
  }

  /// Appends v, or only rewrites the slot it would take if `hold` (a repeat, counted elsewhere).
  void put(std::uint32_t v, bool hold = false) {
    const std::size_t b = bucket_of_[v >> 16];
    // The last bucket's fill pointer stays in a register: consecutive words of one bucket then
    // wait on no store-to-load forwarding (its slot is written back for the next bucket's load).
    std::uint32_t* q = cur_[b];
    cur_[last_b_] = last_p_;
    std::uint32_t* p = b == last_b_ ? last_p_ : q;
    *p = v;
    p += !hold;
    if (((reinterpret_cast<std::uintptr_t>(p) & (kLineBytes - 1)) | hold) == 0) {  // the buffer is full
      p -= kLineWords;
      std::uint32_t* d = part_.end[b];
      if (d == part_.limit[b]) d = part_.next_block(b);
      stream_line(d, p);
      part_.end[b] = d + kLineWords;
    }
    last_b_ = b;
    last_p_ = p;
  }

  /// Writes out the partial buffers (after the last put).
  void finish() {
    cur_[last_b_] = last_p_;
#if defined(__SSE2__)
    _mm_sfence();
#endif
    for (std::size_t b = 0; b < lines_.size(); ++b) {
      const auto k = static_cast<std::size_t>(cur_[b] - lines_[b].w);
      if (k == 0) continue;
      std::uint32_t* d = part_.end[b];
      if (d == part_.limit[b]) d = part_.next_block(b);
      std::copy(lines_[b].w, lines_[b].w + k, d);
      part_.end[b] = d + k;
    }
  }

 private:
  Part& part_;
  const std::uint16_t* bucket_of_;
  std::vector<Line> lines_;  // one buffer per bucket, in cache
  std::vector<std::uint32_t*> cur_;
  std::size_t last_b_ = 0;
  std::uint32_t* last_p_ = nullptr;
};

template <Endian E, bool Keyed>
void scatter(const std::uint8_t* src, std::size_t n, const Plan& plan, Part& part) {
  const std::size_t nb = plan.buckets();
  // Every block but the last of each bucket is full.
  const std::size_t blocks = n / kBlockWords + nb + 1;
  part.arena_mem = raw_buffer<std::uint32_t>(blocks * kBlockWords + kLineWords);
  const auto at = reinterpret_cast<std::uintptr_t>(part.arena_mem.get());
  part.arena = part.arena_mem.get() + (64 - at % 64) % 64 / sizeof(std::uint32_t);
  part.blk.assign(nb, nullptr);
  part.end.assign(nb, nullptr);
  part.limit.assign(nb, nullptr);
  part.full.assign(nb, {});
  // Runs of 2+ equal words as (value << 32 | words after the first), gathered a chunk at a time.
  constexpr std::size_t kChunk = std::size_t{1} << 16;
  std::unique_ptr<std::uint64_t[]> side(new std::uint64_t[kChunk / 2 + 2]);
  std::vector<std::uint64_t> runs;
  std::size_t s = 0;
  Scatterer out(plan, part);
  std::uint32_t prev = word_at<E, Keyed>(src), run = 0;
  out.put(prev);
  // One word with its repeat flag, branch-free: the side slot is rewritten until a run ends.
  auto step = [&](std::uint32_t v, bool repeat) {
    side[s] = std::uint64_t{prev} << 32 | run;
    s += !repeat & (run != 0);
    run = repeat ? run + 1 : 0;
    out.put(v, repeat);
    prev = v;
  };
  for (std::size_t i = 1; i < n;) {
    const std::size_t stop = std::min(n, i + kChunk);
    for (; i + 8 <= stop; i += 8) {
      const std::uint8_t* p = src + 4 * i;
      const unsigned rep = repeats8(p);
      if (rep == 0) {  // eight new words: the common case
        if (run) {
          side[s++] = std::uint64_t{prev} << 32 | run;
          run = 0;
        }
        for (unsigned k = 0; k < 8; ++k) out.put(word_at<E, Keyed>(p + 4 * k));
        prev = word_at<E, Keyed>(p + 28);
      } else if (rep == 0xFFu) {  // the run goes on
        run += 8;
      } else {
        for (unsigned k = 0; k < 8; ++k) step(word_at<E, Keyed>(p + 4 * k), (rep >> k) & 1u);
      }
    }
    for (; i < stop; ++i) {
      const std::uint32_t v = word_at<E, Keyed>(src + 4 * i);
      step(v, v == prev);
    }
    runs.insert(runs.end(), side.get(), side.get() + s);
    s = 0;
  }
  if (run) runs.push_back(std::uint64_t{prev} << 32 | run);
  out.finish();
  fold_runs(runs.data(), runs.size(), part.extras);
}

// ---- count --------------------------------------------------------------------------------------

/// The words of one bucket: contiguous pieces from every thread's blocks.
struct Piece {
  const std::uint32_t* p;
  std::size_t n;
};

void pieces_of(const std::vector<Part>& parts, std::size_t b, std::vector<Piece>& out) {
  out.clear();
  for (const Part& part : parts) {
    for (const std::uint32_t* f : part.full[b]) out.push_back({f, kBlockWords});
    if (part.end[b] != part.blk[b]) out.push_back({part.blk[b], static_cast<std::size_t>(part.end[b] - part.blk[b])});
  }
}

/// Writes (value, count) in value order into a table's room, with the bucket's side counts added.
class Emitter {
 public:
  Emitter(Item* out, const Item* x, const Item* x_end) : out_(out), x_(x), x_end_(x_end) {}
  void operator()(std::uint32_t v, std::uint64_t c) {
    if (x_ != x_end_ && x_->first == v) c += (x_++)->second;
    ::new (static_cast<void*>(out_++)) Item(v, c);
  }
  Item* end() const { return out_; }

 private:
  Item* out_;
  const Item* x_;
  const Item* x_end_;
};

/// Per-thread scratch of the count step.
struct Counter {
  std::vector<std::uint32_t> keys, spare;  // sort keys and their ping-pong buffer
  std::unique_ptr<std::uint32_t[]> dense;  // 65536 counters, zero between buckets
  std::vector<Piece> pieces;

  Emitter count_dense(std::uint32_t prefix, Emitter emit) {
    if (!dense) {
      dense.reset(new std::uint32_t[65536]);
      std::fill(dense.get(), dense.get() + 65536, 0u);
    }
    std::uint32_t* c = dense.get();
    for (const Piece& pc : pieces)
      for (std::size_t i = 0; i < pc.n; ++i) ++c[pc.p[i] & 0xFFFFu];
    const std::uint32_t base = prefix << 16;
    for (std::uint32_t lo = 0; lo < 65536; lo += 4) {
      std::uint64_t any[2];
      std::memcpy(any, c + lo, sizeof(any));
      if ((any[0] | any[1]) == 0) continue;
      for (std::uint32_t j = lo; j < lo + 4; ++j) {
        if (c[j]) emit(base | j, c[j]);
        c[j] = 0;
      }
    }
    return emit;
  }

  /// Sorts the bucket's words less `base` into keys (LSD radix, P digits of `width` bits): one
  /// pass counts every digit, the first scatter reads the bucket's blocks.
  template <unsigned P>
  void sort_keys(std::size_t m, std::uint32_t base, unsigned width) {
    const std::uint32_t mask = (1u << width) - 1;
    std::array<std::array<std::uint32_t, std::size_t{1} << kMaxDigitBits>, P> h;
    for (auto& hd : h) std::fill_n(hd.data(), mask + 1, 0u);
    for (const Piece& pc : pieces) {
      for (std::size_t i = 0; i < pc.n; ++i) {
        const std::uint32_t x = pc.p[i] - base;
        for (unsigned d = 0; d < P; ++d) ++h[d][(x >> (d * width)) & mask];
      }
    }
    const std::uint32_t any = pieces[0].p[0] - base;
    std::uint32_t *from = nullptr, *to = keys.data();
    for (unsigned d = 0; d < P; ++d) {
      const unsigned shift = d * width;
      if (h[d][(any >> shift) & mask] == m) continue;  // one digit value: already in order
      std::uint32_t sum = 0;
      for (std::uint32_t j = 0; j <= mask; ++j) {
        const std::uint32_t t = h[d][j];
        h[d][j] = sum;
        sum += t;
      }
      std::uint32_t* hd = h[d].data();
      if (!from) {
        for (const Piece& pc : pieces) {
          for (std::size_t i = 0; i < pc.n; ++i) {
            const std::uint32_t x = pc.p[i] - base;
            to[hd[(x >> shift) & mask]++] = x;
          }
        }
      } else {
        for (std::size_t i = 0; i < m; ++i) to[hd[(from[i] >> shift) & mask]++] = from[i];
      }
      from = to;
      to = to == keys.data() ? spare.data() : keys.data();
    }
    if (!from) {  // every word of the bucket is the same
      std::fill_n(keys.data(), m, any);
    } else if (from != keys.data()) {
      keys.swap(spare);
    }
  }

  Emitter count_sorted(std::size_t m, std::uint32_t lo_prefix, std::uint32_t span, Emitter emit) {
    if (keys.size() < m) {
      keys.resize(m);
      spare.resize(m);
    }
    const std::uint32_t base = lo_prefix << 16;
    if (m < kSmallSort) {
      std::uint32_t* k = keys.data();
      for (const Piece& pc : pieces) k = std::copy(pc.p, pc.p + pc.n, k);
      std::sort(keys.data(), k);
      for (std::size_t i = 0; i < m;) {
        std::size_t j = i + 1;
        while (j < m && keys[j] == keys[i]) ++j;
        emit(keys[i], j - i);
        i = j;
      }
      return emit;
    }
    const unsigned bits = 16 + ceil_log2(span);
    const unsigned passes = (bits + kMaxDigitBits - 1) / kMaxDigitBits;
    const unsigned width = (bits + passes - 1) / passes;
    switch (passes) {
      case 2: sort_keys<2>(m, base, width); break;
      default: sort_keys<3>(m, base, width); break;
    }
    const std::uint32_t* k = keys.data();
    for (std::size_t i = 0; i < m;) {
      std::size_t j = i + 1;
      while (j < m && k[j] == k[i]) ++j;
      emit(k[i] + base, j - i);
      i = j;
    }
    return emit;
  }

  /// Counts bucket b; returns the emitter moved past its values (passed by value: it lives in
  /// registers in the hot loops).
  Emitter count_bucket(const std::vector<Part>& parts, const Plan& plan, std::size_t b, Emitter emit) {
    pieces_of(parts, b, pieces);
    std::size_t m = 0;
    for (const Piece& pc : pieces) m += pc.n;
    if (m == 0) return emit;
    const std::uint32_t lo = plan.lo[b], span = plan.lo[b + 1] - lo;
    if (span == 1 && m >= kDenseUse) return count_dense(lo, emit);
    return count_sorted(m, lo, span, emit);
  }
};

std::size_t bucket_words(const std::vector<Part>& parts, std::size_t b) {
  std::size_t m = 0;
  for (const Part& part : parts) m += part.words(b);
  return m;
}

/// Merges two lists of (value, count) by value, adding the counts of a value in both.
Table merge_runs(const Table& a, const Table& b) {
  Table out;
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

/// Copies parts 1.. of `out` (their first got[t] items) behind the got[0] items of part 0, on
/// `threads` threads, and trims part 0 to the whole.
void join(std::vector<Table>& out, const std::vector<std::size_t>& got, unsigned threads) {
  std::vector<std::size_t> at(out.size() + 1, 0);  // where each part goes
  for (std::size_t t = 0; t < out.size(); ++t) at[t + 1] = at[t] + got[t];
  Item* dst = out[0].data();
  parallel_for(at.back() - got[0], static_cast<int>(threads), std::size_t{1} << 16, [&](std::size_t b, std::size_t e) {
    for (std::size_t t = 1; t < out.size(); ++t) {  // [b, e) counts from at[1]
      const std::size_t lo = std::max(b + got[0], at[t]), hi = std::min(e + got[0], at[t + 1]);
      if (lo < hi) std::copy(out[t].data() + (lo - at[t]), out[t].data() + (hi - at[t]), dst + lo);
    }
  });
  out[0].resize(at.back());
}

template <Endian E, bool Keyed>
Table count_slice(const std::uint8_t* src, std::size_t n, unsigned threads) {
  const Plan plan = make_plan<E, Keyed>(src, n);
  const std::size_t nb = plan.buckets();
  std::vector<Part> parts(threads);
  parallel_for(threads, static_cast<int>(threads), 1, [&](std::size_t tb, std::size_t te) {
    for (std::size_t t = tb; t < te; ++t) {
      const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      scatter<E, Keyed>(src + 4 * lo, hi - lo, plan, parts[t]);
    }
  });
  Table extras;
  for (Part& part : parts) extras = extras.empty() ? std::move(part.extras) : merge_runs(extras, part.extras);

  // Bucket ranges of about equal work per thread, in value order (measured on dumps: a word
  // costs a dense bucket a twelfth of what it costs a sorted one, plus its table's scan); room
  // for as many values as each bucket can hold (its words, and no more than its prefixes span).
  std::vector<std::size_t> work(nb), room(nb), cut(threads + 1, nb);
  std::size_t total = 0, total_room = 0;
  for (std::size_t b = 0; b < nb; ++b) {
    const std::size_t m = bucket_words(parts, b), span = plan.lo[b + 1] - plan.lo[b];
    total += work[b] = span == 1 && m >= kDenseUse ? m + 65536 : 12 * m;
    total_room += room[b] = std::min<std::size_t>(m, span << 16);
  }
  cut[0] = 0;
  for (std::size_t b = 0, t = 1, acc = 0; b < nb && t < threads; ++b) {
    acc += work[b];
    while (t < threads && acc * threads >= total * t) cut[t++] = b + 1;
  }
  // Each thread writes its values in place: thread 0 in the table that is returned (with room
  // for every thread's), the others in tables of their own, joined after.
  std::vector<Table> out(threads);
  std::vector<std::size_t> got(threads, 0);
  parallel_for(threads, static_cast<int>(threads), 1, [&](std::size_t tb, std::size_t te) {
    for (std::size_t t = tb; t < te; ++t) {
      std::size_t m = 0;
      for (std::size_t b = cut[t]; b < cut[t + 1]; ++b) m += room[b];
      out[t].resize(t == 0 ? total_room : m);  // no initialisation (CountsAllocator)
      if (cut[t] == cut[t + 1]) continue;
      const std::uint32_t v0 = plan.lo[cut[t]] << 16;
      const Item* x = std::lower_bound(extras.data(), extras.data() + extras.size(), Item{v0, 0});
      Emitter emit(out[t].data(), x, extras.data() + extras.size());
      Counter counter;
      for (std::size_t b = cut[t]; b < cut[t + 1]; ++b) emit = counter.count_bucket(parts, plan, b, emit);
      got[t] = static_cast<std::size_t>(emit.end() - out[t].data());
    }
  });
  join(out, got, threads);
  return std::move(out[0]);
}

/// Counts n words (their keys if `keyed`) at src, one slice of at most kSliceWords at a time.
Table count_words(const std::uint8_t* src, std::size_t n, Endian endian, unsigned threads, bool keyed = false) {
  constexpr auto kLittle = Endian::little, kBig = Endian::big;
  Table all;
  for (std::size_t at = 0; at < n; at += kSliceWords) {
    const std::size_t k = std::min(kSliceWords, n - at);
    const unsigned t = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(k / 65536 + 1)));
    const std::uint8_t* p = src + 4 * at;
    Table run = endian == kLittle ? (keyed ? count_slice<kLittle, true>(p, k, t) : count_slice<kLittle, false>(p, k, t))
                                  : (keyed ? count_slice<kBig, true>(p, k, t) : count_slice<kBig, false>(p, k, t));
    all = all.empty() ? std::move(run) : merge_runs(all, run);
  }
  return all;
}

Table count_values(const std::vector<std::uint32_t>& v) {
  const Endian host = detail::host_is_little() ? Endian::little : Endian::big;
  return count_words(reinterpret_cast<const std::uint8_t*>(v.data()), v.size(), host, 1);
}

}  // namespace

void count_runs(std::vector<std::uint32_t>& v, std::vector<ValueCounts32::Item>& out) {
  if (v.empty()) return;
  const Table run = count_values(v);
  out.insert(out.end(), run.begin(), run.end());
}

void ValueCounts32::merge_sorted(const Table& run) {
  if (items_ref().empty()) {
    items_ = run;
    return;
  }
  items_ = merge_runs(items_, run);
}

void ValueCounts32::merge_sorted(Table&& run) {
  if (items_ref().empty()) {
    items_ = std::move(run);
    return;
  }
  items_ = merge_runs(items_, run);
}

const ValueCounts32::Table& ValueCounts32::items_ref() const {
  if (!pending_.empty()) {
    Table run = count_values(pending_);
    pending_.clear();
    items_ = items_.empty() ? std::move(run) : merge_runs(items_, run);
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
  merge_sorted(count_words(blocks.data, words, endian, resolve_threads(threads)));
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
  std::vector<Item> out(items_ref().begin(), items_ref().end());
  if (k < out.size()) {
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(), more_frequent);
    out.resize(k);
  } else {
    std::sort(out.begin(), out.end(), more_frequent);
  }
  return out;
}

// --- runs by key, and their sums (the runs memcomp/_counts.py keeps on disk) -------------------

ValueCounts32::Table count_word_keys(const BlockView& blocks, Endian endian, int threads) {
  if (blocks.block_bytes % 4) throw invalid_argument("32-bit words need a block size that is a multiple of 4");
  const std::size_t words = blocks.n_blocks * blocks.block_bytes / 4;
  if (words == 0) return {};
  return count_words(blocks.data, words, endian, resolve_threads(threads), true);
}

namespace {

/// Adds up the counts of the keys of one window of kWindowKeys keys (offsets from its base) in a
/// dense table in cache, with a bitmap of the keys present, then hands each key's sum to `out` in
/// key order and empties both: no branch per key added, none per absent key drained.
class WindowSums {
 public:
  static constexpr std::uint32_t kWindowKeys = 1u << 15;

  template <class Count>
  std::size_t add(const std::uint32_t* keys, const Count* counts, std::size_t i, std::size_t n, std::uint64_t base) {
    const std::uint64_t end = base + kWindowKeys;
    for (; i < n && keys[i] < end; ++i) {
      const auto o = static_cast<std::uint32_t>(keys[i] - base);
      counts_[o] += counts[i];
      seen_[o >> 6] |= std::uint64_t{1} << (o & 63u);
    }
    return i;
  }
  template <class F>
  void drain(std::uint64_t base, F&& out) {
    for (std::size_t w = 0; w < seen_.size(); ++w) {
      for (std::uint64_t bits = seen_[w]; bits != 0; bits &= bits - 1) {
        const std::size_t o = 64 * w + static_cast<unsigned>(__builtin_ctzll(bits));
        out(static_cast<std::uint32_t>(base + o), counts_[o]);
        counts_[o] = 0;
      }
      seen_[w] = 0;
    }
  }

 private:
  std::vector<std::uint64_t> counts_ = std::vector<std::uint64_t>(kWindowKeys, 0);
  std::vector<std::uint64_t> seen_ = std::vector<std::uint64_t>(kWindowKeys / 64, 0);
};

}  // namespace

KeyRunSummary summarize_key_runs(const std::vector<KeyRunView>& runs, std::size_t k) {
  constexpr std::uint64_t kSmallCounts = 4096, kNone = ~std::uint64_t{0};
  KeyRunSummary out;
  std::vector<std::size_t> at(runs.size(), 0);
  std::vector<std::uint64_t> small(kSmallCounts, 0);
  std::vector<std::uint64_t> large;
  WindowSums sums;
  BestK<Item, decltype(&more_frequent)> top(k, &more_frequent);
  for (;;) {
    // the window of the smallest key not yet added (windows without keys are skipped)
    std::uint64_t next = kNone;
    for (std::size_t j = 0; j < runs.size(); ++j)
      if (at[j] < runs[j].n) next = std::min<std::uint64_t>(next, runs[j].keys[at[j]]);
    if (next == kNone) break;
    const std::uint64_t base = next & ~std::uint64_t{WindowSums::kWindowKeys - 1};
    for (std::size_t j = 0; j < runs.size(); ++j) {
      const KeyRunView& r = runs[j];
      at[j] = r.counts64 ? sums.add(r.keys, r.counts64, at[j], r.n, base)
                         : sums.add(r.keys, r.counts32, at[j], r.n, base);
    }
    sums.drain(base, [&](std::uint32_t key, std::uint64_t c) {
      out.total += c;
      ++out.distinct;
      if (c < kSmallCounts) {
        ++small[c];
      } else {
        large.push_back(c);
      }
      top.offer(Item{value_of_key(key), c});
    });
  }
  for (std::uint64_t c = 1; c < kSmallCounts; ++c)
    if (small[c]) out.count_counts.emplace_back(c, small[c]);
  std::sort(large.begin(), large.end());
  for (std::size_t i = 0; i < large.size();) {
    std::size_t j = i;
    while (j < large.size() && large[j] == large[i]) ++j;
    out.count_counts.emplace_back(large[i], j - i);
    i = j;
  }
  out.top = top.sorted();
  return out;
}

namespace {

CountRun merge_two(const CountRunView& a, const CountRunView& b) {
  CountRun out;
  out.values.resize(a.n + b.n);
  out.counts.resize(a.n + b.n);
  std::size_t i = 0, j = 0, k = 0;
  while (i < a.n && j < b.n) {
    const std::uint32_t va = a.values[i], vb = b.values[j];
    if (va < vb) {
      out.values[k] = va;
      out.counts[k++] = a.counts[i++];
    } else if (vb < va) {
      out.values[k] = vb;
      out.counts[k++] = b.counts[j++];
    } else {
      out.values[k] = va;
      out.counts[k++] = a.counts[i++] + b.counts[j++];
    }
  }
  for (; i < a.n; ++i, ++k) out.values[k] = a.values[i], out.counts[k] = a.counts[i];
  for (; j < b.n; ++j, ++k) out.values[k] = b.values[j], out.counts[k] = b.counts[j];
  out.values.resize(k);
  out.counts.resize(k);
  return out;
}

CountRunView view_of(const CountRun& r) { return {r.values.data(), r.counts.data(), r.values.size()}; }

}  // namespace

namespace {

/// `r` sorted by value with equal values' counts added (a run read across shards is sorted only
/// inside each shard).
CountRun sorted_run(const CountRunView& r) {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> items(r.n);
  for (std::size_t i = 0; i < r.n; ++i) items[i] = {r.values[i], r.counts[i]};
  std::sort(items.begin(), items.end());
  CountRun out;
  for (const auto& [v, c] : items) {
    if (!out.values.empty() && out.values.back() == v) {
      out.counts.back() += c;
    } else {
      out.values.push_back(v);
      out.counts.push_back(c);
    }
  }
  return out;
}

bool strictly_increasing(const CountRunView& r) {
  for (std::size_t i = 1; i < r.n; ++i)
    if (r.values[i] <= r.values[i - 1]) return false;
  return true;
}

}  // namespace

CountRun merge_count_runs(const std::vector<CountRunView>& in) {
  std::vector<CountRun> owned;  // the runs that had to be sorted first
  owned.reserve(in.size());
  std::vector<CountRunView> runs;
  runs.reserve(in.size());
  for (const CountRunView& r : in) {
    if (strictly_increasing(r)) {
      runs.push_back(r);
    } else {
      owned.push_back(sorted_run(r));
      runs.push_back(view_of(owned.back()));
    }
  }
  return merge_sorted_runs(runs);
}

CountRun merge_sorted_runs(const std::vector<CountRunView>& runs) {
  if (runs.empty()) return {};
  if (runs.size() == 1) {
    const CountRunView& r = runs[0];
    return {{r.values, r.values + r.n}, {r.counts, r.counts + r.n}};
  }
  if (runs.size() == 2) return merge_two(runs[0], runs[1]);
  const std::size_t half = runs.size() / 2;
  const CountRun left = merge_sorted_runs({runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(half)});
  const CountRun right = merge_sorted_runs({runs.begin() + static_cast<std::ptrdiff_t>(half), runs.end()});
  return merge_two(view_of(left), view_of(right));
}

}  // namespace memcomp
