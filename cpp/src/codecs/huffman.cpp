// memcomp codecs: canonical-Huffman machinery (SPEC 1.8; P1 §III-B2c codes, §III-F decoder
// tables). See memcomp/codecs/huffman.hpp for the rules; this file holds the algorithms:
//   * the (weight, key) Huffman tree as a two-queue merge (internal nodes are created with
//     non-decreasing weights, so their creation order is their (weight, key) order);
//   * floor, package-merge and drop length limiting;
//   * canonical codes, decoder tables and a lookup-table decoder.
// Tree weights are 128-bit, so sums of 64-bit weights never overflow.
#include "memcomp/codecs/huffman.hpp"

#include <algorithm>
#include <numeric>

#include "memcomp/core/best_k.hpp"
#include "memcomp/stats/symbol_counts.hpp"

namespace memcomp::huffman {
namespace {

__extension__ using u128 = unsigned __int128;

constexpr std::uint64_t kU64Max = ~std::uint64_t{0};

std::uint64_t saturate(u128 x) { return x > kU64Max ? kU64Max : static_cast<std::uint64_t>(x); }

void check_sl(unsigned sl, const char* who) {
  if (sl < 1 || sl > kMaxSymbolBits)
    throw invalid_argument(std::string(who) + ": symbol length sl=" + std::to_string(sl) + " must be in 1..32");
}

void check_leaves(const std::vector<Leaf>& leaves) {
  if (leaves.empty()) throw invalid_argument("huffman: a code needs at least one leaf");
  std::vector<std::uint64_t> keys(leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) keys[i] = leaves[i].key;
  std::sort(keys.begin(), keys.end());
  const auto dup = std::adjacent_find(keys.begin(), keys.end());
  if (dup != keys.end()) throw invalid_argument("huffman: repeated leaf key " + std::to_string(*dup));
}

// Leaf indices ordered by (weight, key).
std::vector<std::uint32_t> order_by_weight(const std::vector<u128>& w, const std::vector<std::uint64_t>& key) {
  std::vector<std::uint32_t> order(w.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return w[a] != w[b] ? w[a] < w[b] : key[a] < key[b]; });
  return order;
}

// Depths of the leaves of the SPEC 1.8 tree: merge the two minima by (weight, key), internal
// nodes keyed above every leaf in creation order. REQUIRES: w.size() == key.size() >= 1, keys
// distinct.
std::vector<unsigned> tree_lengths(const std::vector<u128>& w, const std::vector<std::uint64_t>& key) {
  const std::size_t n = w.size();
  if (n == 1) return {1};
  const std::vector<std::uint32_t> order = order_by_weight(w, key);
  // Nodes 0..n-1 are the leaves (input order), n + j is the j-th internal node.
  std::vector<std::uint32_t> parent(2 * n - 1, 0);
  std::vector<u128> iw(n - 1);
  std::size_t next_leaf = 0, next_internal = 0, created = 0;
  auto pick = [&](u128& weight) -> std::size_t {
    // On equal weight the leaf wins: its key is below every internal key.
    if (next_leaf < n && (next_internal == created || w[order[next_leaf]] <= iw[next_internal])) {
      const std::uint32_t i = order[next_leaf++];
      weight = w[i];
      return i;
    }
    weight = iw[next_internal];
    return n + next_internal++;
  };
  for (std::size_t j = 0; j + 1 < n; ++j) {
    u128 wa = 0, wb = 0;
    const std::size_t a = pick(wa);
    const std::size_t b = pick(wb);
    iw[j] = wa + wb;
    parent[a] = parent[b] = static_cast<std::uint32_t>(n + j);
    ++created;
  }
  // A parent is created after its children: walk internal nodes from the root down.
  std::vector<unsigned> depth(2 * n - 1, 0);
  for (std::size_t j = n - 1; j-- > 0;) {
    const std::size_t node = n + j;
    if (node != 2 * n - 2) depth[node] = depth[parent[node]] + 1;
  }
  std::vector<unsigned> len(n);
  for (std::size_t i = 0; i < n; ++i) len[i] = depth[parent[i]] + 1;
  return len;
}

unsigned max_of(const std::vector<unsigned>& v) { return *std::max_element(v.begin(), v.end()); }

std::vector<u128> wide_weights(const std::vector<Leaf>& leaves) {
  std::vector<u128> w(leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) w[i] = leaves[i].weight;
  return w;
}

std::vector<std::uint64_t> keys_of(const std::vector<Leaf>& leaves) {
  std::vector<std::uint64_t> k(leaves.size());
  for (std::size_t i = 0; i < leaves.size(); ++i) k[i] = leaves[i].key;
  return k;
}

std::vector<unsigned> floor_lengths(const std::vector<Leaf>& leaves, unsigned max_len) {
  const std::vector<std::uint64_t> key = keys_of(leaves);
  std::vector<u128> w = wide_weights(leaves);
  std::vector<unsigned> len = tree_lengths(w, key);
  // Terminates: once f exceeds every weight all weights are equal, and n equal weights give
  // lengths ceil(log2 n) <= max_len.
  for (u128 f = 2; max_of(len) > max_len; f <<= 1) {
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::max<u128>(leaves[i].weight, f);
    len = tree_lengths(w, key);
  }
  return len;
}

std::vector<unsigned> drop_lengths(const std::vector<Leaf>& leaves, unsigned max_len, std::uint64_t esc_key) {
  const std::size_t n = leaves.size();
  std::size_t esc = n;
  for (std::size_t i = 0; i < n; ++i)
    if (leaves[i].key == esc_key) esc = i;
  if (esc == n)
    throw invalid_argument("huffman: the drop length limit needs an ESC leaf (key " + std::to_string(esc_key) + ")");
  std::vector<std::size_t> active(n);
  std::iota(active.begin(), active.end(), std::size_t{0});
  u128 esc_weight = leaves[esc].weight;
  std::vector<unsigned> out(n, 0);
  for (;;) {
    std::vector<u128> w(active.size());
    std::vector<std::uint64_t> key(active.size());
    for (std::size_t j = 0; j < active.size(); ++j) {
      w[j] = active[j] == esc ? esc_weight : u128{leaves[active[j]].weight};
      key[j] = leaves[active[j]].key;
    }
    const std::vector<unsigned> len = tree_lengths(w, key);
    if (max_of(len) <= max_len) {
      for (std::size_t j = 0; j < active.size(); ++j) out[active[j]] = len[j];
      return out;
    }
    // The deepest level holds two sibling leaves, so at least one non-ESC leaf is dropped.
    std::vector<std::size_t> kept;
    for (std::size_t j = 0; j < active.size(); ++j) {
      if (len[j] > max_len && active[j] != esc)
        esc_weight += leaves[active[j]].weight;
      else
        kept.push_back(active[j]);
    }
    active.swap(kept);
  }
}

// Larmore-Hirschberg package-merge. REQUIRES: 2 <= n <= 2^max_len.
std::vector<unsigned> package_merge_lengths(const std::vector<Leaf>& leaves, unsigned max_len) {
  const std::size_t n = leaves.size();
  const std::vector<u128> w = wide_weights(leaves);
  const std::vector<std::uint32_t> order = order_by_weight(w, keys_of(leaves));
  struct Item {
    u128 weight;
    std::uint32_t leaf;   // leaf index, or kPackage
    std::uint32_t first;  // a package's first child: items first, first + 1 of the next level
  };
  constexpr std::uint32_t kPackage = ~std::uint32_t{0};
  // lists[d] is the list at depth d + 1; lists[max_len - 1] holds the leaves only.
  std::vector<std::vector<Item>> lists(max_len);
  for (std::uint32_t i : order) lists[max_len - 1].push_back(Item{w[i], i, 0});
  for (unsigned d = max_len - 1; d-- > 0;) {
    const std::vector<Item>& below = lists[d + 1];
    std::vector<Item>& cur = lists[d];
    cur.reserve(n + below.size() / 2);
    std::size_t li = 0, pi = 0;
    const std::size_t packages = below.size() / 2;
    while (li < n || pi < packages) {
      const bool take_leaf = pi == packages ||
                             (li < n && w[order[li]] <= below[2 * pi].weight + below[2 * pi + 1].weight);
      if (take_leaf) {
        cur.push_back(Item{w[order[li]], order[li], 0});
        ++li;
      } else {
        cur.push_back(
            Item{below[2 * pi].weight + below[2 * pi + 1].weight, kPackage, static_cast<std::uint32_t>(2 * pi)});
        ++pi;
      }
      // Every level selects a prefix of at most 2n - 2 items (the selection shrinks with depth).
      if (cur.size() == 2 * n - 2) break;
    }
  }
  if (lists[0].size() < 2 * n - 2) throw std::logic_error("huffman: package-merge found too few items");
  // Select the 2n - 2 cheapest items at depth 1; a leaf's length is how often it is selected,
  // counting the contents of selected packages.
  std::vector<unsigned> len(n, 0);
  std::vector<std::pair<unsigned, std::uint32_t>> stack;  // (depth index, item index)
  for (std::uint32_t i = 0; i < 2 * n - 2; ++i) stack.emplace_back(0u, i);
  while (!stack.empty()) {
    const auto [d, i] = stack.back();
    stack.pop_back();
    const Item& it = lists[d][i];
    if (it.leaf != kPackage) {
      ++len[it.leaf];
    } else {
      stack.emplace_back(d + 1, it.first);
      stack.emplace_back(d + 1, it.first + 1);
    }
  }
  return len;
}

template <class E>
[[noreturn]] void fail(const std::string& who, const std::string& what) {
  throw E(who + ": " + what);
}

// Validates (key, length) entries; throws E with `who` as the message prefix.
template <class E>
void check_entries(unsigned sl, const std::vector<CanonicalCode::Entry>& entries, const std::string& who) {
  if (sl < 1 || sl > kMaxSymbolBits) fail<E>(who, "symbol length sl=" + std::to_string(sl) + " must be in 1..32");
  if (entries.empty()) fail<E>(who, "no codewords (at least one symbol or ESC is needed)");
  const std::uint64_t esc = std::uint64_t{1} << sl;
  std::vector<std::uint64_t> keys;
  keys.reserve(entries.size());
  std::uint64_t kraft = 0;  // * 2^32
  for (const auto& e : entries) {
    const std::string name = e.key == esc ? std::string("ESC") : "symbol " + std::to_string(e.key);
    if (e.key > esc)
      fail<E>(who, "symbol " + std::to_string(e.key) + " is out of range for SL " + std::to_string(sl) + " (0.." +
                       std::to_string(esc - 1) + ", ESC is " + std::to_string(esc) + ")");
    if (e.len < 1 || e.len > kMaxCodeLen)
      fail<E>(who, "code length " + std::to_string(e.len) + " of " + name + " is outside 1..32");
    kraft += std::uint64_t{1} << (kMaxCodeLen - e.len);
    if (kraft > (std::uint64_t{1} << kMaxCodeLen))
      fail<E>(who, "the Kraft sum of the code lengths exceeds 1, so no prefix code has them");
    keys.push_back(e.key);
  }
  std::sort(keys.begin(), keys.end());
  const auto dup = std::adjacent_find(keys.begin(), keys.end());
  if (dup != keys.end())
    fail<E>(who, (*dup == esc ? std::string("ESC") : "symbol " + std::to_string(*dup)) + " appears twice");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Alphabet

namespace {

/// The alphabet of (value, count) items sorted by value, each value once and < 2^sl: every
/// value at SL <= 8; else the k most frequent (count descending, ties by `rule`), chosen in one
/// pass with a bounded heap (its top the worst kept, so most items cost one comparison), then
/// ESC weighted by what the rest and `uncounted` add up to.
template <class Items>
Alphabet alphabet_of_sorted(unsigned sl, const Items& items, std::size_t k, TopK rule, std::uint64_t uncounted) {
  const std::uint64_t limit = std::uint64_t{1} << sl;
  Alphabet a;
  a.sl = sl;
  if (sl <= 8) {  // every value, weight count + 1, no ESC
    a.leaves.resize(limit);
    for (std::uint64_t v = 0; v < limit; ++v) a.leaves[v] = Leaf{v, 1};
    for (const auto& [v, n] : items) a.leaves[v].weight = saturate(u128{n} + 1);
    return a;
  }
  using VC = std::pair<std::uint64_t, std::uint64_t>;
  auto better = [&](const VC& x, const VC& y) {
    return x.second != y.second ? x.second > y.second : rule.ties_to_larger ? x.first > y.first : x.first < y.first;
  };
  u128 total = uncounted;
  BestK<VC, decltype(better)> best(k, better);
  best.reserve(items.size());
  for (const auto& [v, n] : items) {
    total += n;
    if (n != 0) best.offer(VC{v, n});
  }
  const std::vector<VC> kept = best.sorted();
  u128 sum = 0;
  for (const auto& [v, n] : kept) {
    a.leaves.push_back(Leaf{v, n});
    sum += n;
  }
  if (!rule.esc) {
    if (a.leaves.empty()) throw invalid_argument("huffman alphabet: no value was counted");
    return a;
  }
  a.leaves.push_back(Leaf{limit, std::max<std::uint64_t>(1, saturate(total - sum))});
  a.has_esc = true;
  return a;
}

}  // namespace

Alphabet make_alphabet(unsigned sl, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& counts, std::size_t k,
                       TopK rule, std::uint64_t uncounted) {
  check_sl(sl, "huffman alphabet");
  const std::uint64_t limit = std::uint64_t{1} << sl;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sorted;
  const auto* c = &counts;
  if (!std::is_sorted(counts.begin(), counts.end())) {  // exact counts come sorted: no copy then
    sorted = counts;
    std::sort(sorted.begin(), sorted.end());
    c = &sorted;
  }
  for (std::size_t i = 0; i < c->size(); ++i) {
    if ((*c)[i].first >= limit)
      throw invalid_argument("huffman alphabet: value " + std::to_string((*c)[i].first) + " is out of range for SL " +
                             std::to_string(sl));
    if (i > 0 && (*c)[i].first == (*c)[i - 1].first)
      throw invalid_argument("huffman alphabet: value " + std::to_string((*c)[i].first) + " is counted twice");
  }
  return alphabet_of_sorted(sl, *c, k, rule, uncounted);
}

Alphabet make_alphabet_dense(unsigned sl, const std::vector<std::uint64_t>& histogram, std::size_t k) {
  check_sl(sl, "huffman alphabet");
  if (sl > 24) throw invalid_argument("huffman alphabet: a dense histogram needs sl <= 24");
  if (histogram.size() != (std::size_t{1} << sl))
    throw invalid_argument("huffman alphabet: the histogram has " + std::to_string(histogram.size()) + " entries, SL " +
                           std::to_string(sl) + " needs " + std::to_string(std::size_t{1} << sl));
  std::vector<std::pair<std::uint64_t, std::uint64_t>> counts;
  for (std::size_t v = 0; v < histogram.size(); ++v)
    if (histogram[v] != 0) counts.emplace_back(v, histogram[v]);
  return make_alphabet(sl, counts, k);
}

Alphabet make_alphabet(unsigned sl, const ValueCounts32& counts, std::size_t k, TopK rule) {
  check_sl(sl, "huffman alphabet");
  const ValueCounts32::Table& items = counts.view();  // sorted by value, each once: no copy
  if (!items.empty() && sl < 32 && items.back().first >> sl != 0)
    throw invalid_argument("huffman alphabet: value " + std::to_string(items.back().first) +
                           " is out of range for SL " + std::to_string(sl));
  return alphabet_of_sorted(sl, items, k, rule, 0);
}

// ---------------------------------------------------------------------------------------------
// Lengths

LimitMethod parse_limit_method(const std::string& name) {
  if (name == "floor") return LimitMethod::floor;
  if (name == "package_merge") return LimitMethod::package_merge;
  if (name == "drop") return LimitMethod::drop;
  throw invalid_argument("huffman: unknown length-limit method \"" + name + "\" (floor, package_merge, drop)");
}

const char* to_string(LimitMethod m) noexcept {
  switch (m) {
    case LimitMethod::floor: return "floor";
    case LimitMethod::package_merge: return "package_merge";
    case LimitMethod::drop: return "drop";
  }
  return "?";
}

std::vector<unsigned> huffman_lengths(const std::vector<Leaf>& leaves) {
  check_leaves(leaves);
  return tree_lengths(wide_weights(leaves), keys_of(leaves));
}

std::vector<unsigned> heap_lengths(const std::vector<Leaf>& leaves) {
  check_leaves(leaves);
  struct Node {
    std::uint64_t weight;
    std::int64_t left, right;  // children, -1 for a leaf
  };
  std::vector<std::size_t> order(leaves.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return leaves[a].key < leaves[b].key; });
  std::vector<Node> nodes;
  nodes.reserve(2 * leaves.size());
  std::vector<std::size_t> heap;  // node indices
  for (const std::size_t i : order) {
    heap.push_back(nodes.size());
    nodes.push_back({leaves[i].weight, -1, -1});
  }
  std::size_t size = heap.size();
  auto w = [&](std::size_t slot) { return nodes[heap[slot]].weight; };
  auto sift_down = [&](std::size_t i) {
    for (;;) {
      std::size_t m = i;
      const std::size_t l = 2 * i + 1, r = 2 * i + 2;
      if (l < size && w(l) < w(m)) m = l;
      if (r < size && w(r) < w(m)) m = r;
      if (m == i) return;
      std::swap(heap[i], heap[m]);
      i = m;
    }
  };
  for (std::size_t i = size / 2; i-- > 0;) sift_down(i);
  auto extract = [&] {
    const std::size_t top = heap[0];
    std::swap(heap[0], heap[size - 1]);
    --size;
    sift_down(0);
    return top;
  };
  while (size > 1) {
    const std::size_t a = extract(), b = extract();
    nodes.push_back({nodes[a].weight + nodes[b].weight, static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)});
    heap[size] = nodes.size() - 1;
    for (std::size_t i = size++; i > 0 && w((i - 1) / 2) > w(i); i = (i - 1) / 2) std::swap(heap[i], heap[(i - 1) / 2]);
  }
  std::vector<unsigned> depth(nodes.size(), 0);
  for (std::size_t v = nodes.size(); v-- > 0;)  // children are created before their parent
    if (nodes[v].left >= 0) {
      depth[static_cast<std::size_t>(nodes[v].left)] = depth[v] + 1;
      depth[static_cast<std::size_t>(nodes[v].right)] = depth[v] + 1;
    }
  std::vector<unsigned> out(leaves.size());
  for (std::size_t j = 0; j < order.size(); ++j) {
    const unsigned d = leaves.size() == 1 ? 1 : depth[j];
    if (d > kMaxCodeLen)
      throw invalid_argument("huffman: the heap tree puts a symbol at depth " + std::to_string(d) + ", above 32 bits");
    out[order[j]] = d;
  }
  return out;
}

std::vector<unsigned> limited_lengths(const std::vector<Leaf>& leaves, unsigned max_len, LimitMethod method,
                                      std::uint64_t esc_key) {
  check_leaves(leaves);
  if (max_len < 1 || max_len > kMaxCodeLen)
    throw invalid_argument("huffman: max_len=" + std::to_string(max_len) + " must be in 1..32");
  if (method == LimitMethod::drop) return drop_lengths(leaves, max_len, esc_key);
  if (method != LimitMethod::floor && method != LimitMethod::package_merge)
    throw invalid_argument("huffman: unknown length-limit method");
  if (leaves.size() > (std::uint64_t{1} << max_len))
    throw invalid_argument("huffman: " + std::to_string(leaves.size()) + " leaves cannot all get codes of at most " +
                           std::to_string(max_len) + " bits");
  if (method == LimitMethod::floor) return floor_lengths(leaves, max_len);
  std::vector<unsigned> len = tree_lengths(wide_weights(leaves), keys_of(leaves));
  if (max_of(len) <= max_len) return len;  // the limit does not bind: keep the SPEC tree
  return package_merge_lengths(leaves, max_len);
}

CanonicalCode build_code(const Alphabet& alphabet, unsigned max_len, LimitMethod method) {
  const std::uint64_t esc = alphabet.has_esc ? alphabet.esc_key() : ~std::uint64_t{0};
  return CanonicalCode::from_lengths(alphabet.sl, alphabet.leaves,
                                     limited_lengths(alphabet.leaves, max_len, method, esc));
}

// ---------------------------------------------------------------------------------------------
// Canonical code

CanonicalCode::CanonicalCode(unsigned sl, std::vector<Entry> entries) {
  check_entries<invalid_argument>(sl, entries, "huffman code");
  sl_ = sl;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.len != b.len ? a.len < b.len : a.key < b.key; });
  const std::size_t n = entries.size();
  keys_.resize(n);
  lens_.resize(n);
  codes_.resize(n);
  min_len_ = entries.front().len;
  max_len_ = entries.back().len;
  // P1 §III-B2c: the first code is all zeros; code_i = (code_{i-1} + 1) << (len_i - len_{i-1}).
  std::uint64_t code = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) code = (code + 1) << (entries[i].len - entries[i - 1].len);
    keys_[i] = entries[i].key;
    lens_[i] = static_cast<std::uint8_t>(entries[i].len);
    codes_[i] = static_cast<std::uint32_t>(code);  // < 2^len by the Kraft inequality
    kraft_num_ += std::uint64_t{1} << (kMaxCodeLen - entries[i].len);
    ++count_[entries[i].len];
  }
  // P1 §III-F: per-length first codeword and its De-LUT index.
  for (unsigned l = 1; l <= kMaxCodeLen; ++l) {
    first_code_[l + 1] = (first_code_[l] + count_[l]) << 1;
    first_index_[l + 1] = first_index_[l] + count_[l];
  }
  // Encoder lookup.
  const std::uint64_t esc = esc_key();
  if (sl <= kDenseBits) {
    dense_.assign(static_cast<std::size_t>(esc) + 1, Codeword{});
    for (std::size_t i = 0; i < n; ++i) dense_[keys_[i]] = Codeword{codes_[i], lens_[i]};
  } else {
    if (n >= (std::size_t{1} << kIndexBits) - 1)
      throw invalid_argument("a canonical code over " + std::to_string(sl) + "-bit symbols may hold at most " +
                             std::to_string((std::size_t{1} << kIndexBits) - 2) + " codewords, not " +
                             std::to_string(n));
    // At most 1/8 full: a lookup, hit or miss (ESC), probes ~1.1 slots of 8 bytes.
    unsigned bits = kMinHashBits;
    while ((std::size_t{1} << bits) < 8 * n) ++bits;
    hash_.assign(std::size_t{1} << bits, 0);
    hash_shift_ = 32 - bits;
    const std::size_t mask = hash_.size() - 1;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t s = slot(keys_[i]);
      while (hash_[s] != 0) s = (s + 1) & mask;
      hash_[s] = keys_[i] << kKeyShift | std::uint64_t{lens_[i]} << kIndexBits | (i + 1);
    }
    tags_.assign(hash_.size(), 0);
    for (std::size_t s = 0; s < hash_.size(); ++s) {
      if (hash_[s] == 0) continue;
      const std::uint64_t key = hash_[s] >> kKeyShift;
      const std::size_t home = slot(key), away = (s - home) & mask;
      const std::uint32_t tag = (static_cast<std::uint32_t>(key) * kHashMultiplier32) &
                                static_cast<std::uint32_t>(low_mask(hash_shift_));
      const std::uint32_t len = static_cast<std::uint32_t>(hash_[s] >> kIndexBits) & low_mask(kLenBits);
      tags_[s] = tag << kTagShift | std::uint32_t(key == esc || away > 1 ? 2 : away) << kLenBits | len;
    }
  }
  esc_ = code_of(esc);
  // Decoder lookup over the first lut_bits_ bits.
  lut_bits_ = std::min(max_len_, kLutBits);
  lut_.assign(std::size_t{1} << lut_bits_, LutEntry{});
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned len = lens_[i];
    if (len <= lut_bits_) {
      const std::size_t from = std::size_t{codes_[i]} << (lut_bits_ - len);
      const std::size_t span = std::size_t{1} << (lut_bits_ - len);
      for (std::size_t j = 0; j < span; ++j) lut_[from + j] = LutEntry{static_cast<std::uint32_t>(i), lens_[i]};
    } else {
      lut_[codes_[i] >> (len - lut_bits_)].len = kLongCode;
    }
  }
}

CanonicalCode CanonicalCode::from_lengths(unsigned sl, const std::vector<Leaf>& leaves,
                                          const std::vector<unsigned>& lengths) {
  if (leaves.size() != lengths.size())
    throw invalid_argument("huffman code: " + std::to_string(lengths.size()) + " lengths for " +
                           std::to_string(leaves.size()) + " leaves");
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < leaves.size(); ++i)
    if (lengths[i] != 0) entries.push_back(Entry{leaves[i].key, lengths[i]});
  return CanonicalCode(sl, std::move(entries));
}

double CanonicalCode::kraft() const noexcept {
  return static_cast<double>(kraft_num_) / static_cast<double>(std::uint64_t{1} << kMaxCodeLen);
}

std::vector<CanonicalCode::Entry> CanonicalCode::entries() const {
  std::vector<Entry> out(keys_.size());
  for (std::size_t i = 0; i < keys_.size(); ++i) out[i] = Entry{keys_[i], lens_[i]};
  return out;
}

namespace {
void check_length_index(unsigned l) {
  if (l < 1 || l > kMaxCodeLen)
    throw invalid_argument("huffman code: length " + std::to_string(l) + " is outside 1..32");
}
}  // namespace

std::uint32_t CanonicalCode::count(unsigned l) const {
  check_length_index(l);
  return count_[l];
}
std::uint64_t CanonicalCode::first_code(unsigned l) const {
  check_length_index(l);
  return first_code_[l];
}
std::uint32_t CanonicalCode::first_index(unsigned l) const {
  check_length_index(l);
  return first_index_[l];
}

std::uint64_t CanonicalCode::decode_slow(BitReader& in) const {
  if (keys_.empty()) throw invalid_argument("huffman code: decode with an empty code");
  const unsigned t = lut_bits_;
  const std::size_t left = in.remaining();
  const unsigned k = left < t ? static_cast<unsigned>(left) : t;
  BitReader probe = in;  // peek at up to t bits, never past the end
  const std::uint64_t prefix = probe.read(k) << (t - k);
  const LutEntry e = lut_[static_cast<std::size_t>(prefix)];
  if (e.len == 0) {
    throw corrupt_stream(k < t ? "truncated stream: the last " + std::to_string(left) + " bits at bit " +
                                     std::to_string(in.position()) + " are no complete huffman codeword"
                               : "huffman: the bits at bit " + std::to_string(in.position()) + " are no codeword");
  }
  if (e.len != kLongCode) {
    if (e.len > k) {
      throw corrupt_stream("truncated stream: a " + std::to_string(e.len) + "-bit huffman codeword at bit " +
                           std::to_string(in.position()) + " runs past the end");
    }
    in.read(e.len);
    return keys_[e.index];
  }
  if (k < t) {
    throw corrupt_stream("truncated stream: a huffman codeword longer than " + std::to_string(t) + " bits at bit " +
                         std::to_string(in.position()) + " runs past the end");
  }
  const std::size_t start = in.position();
  // Canonical decoding past the table (P1 §III-F): a length-l code c is valid iff
  // first_code[l] <= c < first_code[l] + count[l]; its De-LUT index is c - offset[l].
  const std::uint64_t bits = in.peek(max_len_);  // zeros past the end
  for (unsigned l = t + 1; l <= max_len_; ++l) {
    if (l > in.remaining()) in.skip(l);  // the stream ends inside the codeword: throws
    const std::uint64_t code = bits >> (max_len_ - l);
    const std::uint64_t d = code - first_code_[l];
    if (d < count_[l]) {
      in.skip(l);  // throws if the codeword runs past the end
      return keys_[first_index_[l] + d];
    }
  }
  throw corrupt_stream("huffman: the bits at bit " + std::to_string(start) + " are no codeword");
}

void CanonicalCode::unencodable(std::uint64_t value) const {
  if (keys_.empty()) throw invalid_argument("huffman code: encode with an empty code");
  if (value >= esc_key())
    throw invalid_argument("huffman code: value " + std::to_string(value) + " is out of range for SL " +
                           std::to_string(sl_));
  throw invalid_argument("huffman code: value " + std::to_string(value) + " has no codeword and the code has no ESC");
}

double CanonicalCode::mean_length(const std::vector<Leaf>& leaves, unsigned literal_bits) const {
  long double bits = 0, total = 0;
  for (const Leaf& l : leaves) {
    const Codeword cw = code_of(l.key);
    unsigned cost = cw.len;
    if (cw.len == 0 || l.key == esc_key()) {
      if (esc_.len == 0)
        throw invalid_argument("huffman code: key " + std::to_string(l.key) +
                               " has no codeword and the code has no ESC");
      cost = esc_.len + literal_bits;
    }
    bits += static_cast<long double>(l.weight) * cost;
    total += static_cast<long double>(l.weight);
  }
  return total == 0 ? 0.0 : static_cast<double>(bits / total);
}

// ---------------------------------------------------------------------------------------------
// JSON

Json CanonicalCode::to_json() const {
  Json symbols = Json::array(), lengths = Json::array();
  const std::uint64_t esc = esc_key();
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == esc) continue;
    symbols.push(Json::integer(static_cast<std::int64_t>(keys_[i])));
    lengths.push(Json::integer(lens_[i]));
  }
  return Json::object(
      {{"symbols", std::move(symbols)}, {"lengths", std::move(lengths)}, {"esc_len", Json::integer(esc_.len)}});
}

CanonicalCode CanonicalCode::from_json(const Json& table, unsigned sl) {
  const std::string who = "huffman table";
  if (sl < 1 || sl > kMaxSymbolBits)
    fail<json_error>(who, "symbol length sl=" + std::to_string(sl) + " must be in 1..32");
  if (!table.is_object()) fail<json_error>(who, "expected an object {symbols, lengths, esc_len}");
  for (const auto& kv : table.items())
    if (kv.first != "symbols" && kv.first != "lengths" && kv.first != "esc_len")
      fail<json_error>(who, "unknown key \"" + kv.first + "\"");
  for (const char* key : {"symbols", "lengths", "esc_len"})
    if (!table.find(key)) fail<json_error>(who, std::string("missing key \"") + key + "\"");
  const Json& syms = table["symbols"];
  const Json& lens = table["lengths"];
  if (!syms.is_array()) fail<json_error>(who, "\"symbols\" must be an array");
  if (!lens.is_array()) fail<json_error>(who, "\"lengths\" must be an array");
  if (syms.size() != lens.size())
    fail<json_error>(who, std::to_string(syms.size()) + " symbols but " + std::to_string(lens.size()) + " lengths");
  const std::int64_t limit = std::int64_t{1} << sl;
  auto integer = [&](const Json& v, const char* what) {
    try {
      return v.as_int();
    } catch (const json_error&) {
      fail<json_error>(who, std::string(what) + " must be integers");
    }
  };
  std::vector<Entry> entries;
  entries.reserve(syms.size() + 1);
  for (std::size_t i = 0; i < syms.size(); ++i) {
    const std::int64_t s = integer(syms.at(i), "symbols");
    const std::int64_t l = integer(lens.at(i), "lengths");
    if (s < 0 || s >= limit)
      fail<json_error>(who, "symbol " + std::to_string(s) + " is out of range for SL " + std::to_string(sl) + " (0.." +
                                std::to_string(limit - 1) + ")");
    if (l < 1 || l > static_cast<std::int64_t>(kMaxCodeLen))
      fail<json_error>(who, "length " + std::to_string(l) + " of symbol " + std::to_string(s) + " is outside 1..32");
    entries.push_back(Entry{static_cast<std::uint64_t>(s), static_cast<unsigned>(l)});
  }
  const std::int64_t esc_len = integer(table["esc_len"], "esc_len");
  if (esc_len < 0 || esc_len > static_cast<std::int64_t>(kMaxCodeLen))
    fail<json_error>(who, "esc_len " + std::to_string(esc_len) + " is outside 0..32 (0: no ESC)");
  if (esc_len > 0) entries.push_back(Entry{static_cast<std::uint64_t>(limit), static_cast<unsigned>(esc_len)});
  check_entries<json_error>(sl, entries, who);
  return CanonicalCode(sl, std::move(entries));
}

}  // namespace memcomp::huffman
