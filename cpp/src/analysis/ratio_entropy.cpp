// memcomp analysis: ratio entropy, guess_dtype and MPC parameter extraction (P3 §2.3, §3.1-3.2;
// SPEC 1.12 and 3).
#include "memcomp/analysis/ratio_entropy.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <numeric>
#include <queue>
#include <string>
#include <tuple>

#include "kernels/cell_zeros.hpp"
#include "memcomp/analysis/entropy.hpp"
#include "memcomp/core/bits.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {
namespace {

__extension__ using u128 = unsigned __int128;

unsigned bitlen(std::uint64_t v) noexcept {
  unsigned n = 0;
  while (v) {
    ++n;
    v >>= 1;
  }
  return n;
}

// Blocks per uint16 accumulation round (no counter can overflow): 2 bytes a counter keep a
// sector's pair counts in L1.
constexpr std::size_t kRound = 0xFFFF;

// Table of the byte path: for positions i < j, the combined id of (bucket(D[i], D[j]),
// bucket(D[j], D[i])) indexed by D[i] * 256 + D[j], and the two buckets of every id.
struct PairTable {
  std::vector<std::uint8_t> id;
  std::vector<std::pair<unsigned, unsigned>> pairs;
};

PairTable make_pair_table(const RatioLayout& L, const RatioOptions& o) {
  PairTable t;
  t.id.resize(256 * 256);
  std::vector<int> seen(std::size_t{L.buckets} * L.buckets, -1);
  for (unsigned a = 0; a < 256; ++a)
    for (unsigned b = 0; b < 256; ++b) {
      const unsigned k1 = L.bucket(a, b, o), k2 = L.bucket(b, a, o);
      int& s = seen[std::size_t{k1} * L.buckets + k2];
      if (s < 0) {
        s = static_cast<int>(t.pairs.size());
        t.pairs.emplace_back(k1, k2);
      }
      t.id[a * 256 + b] = static_cast<std::uint8_t>(s);
    }
  if (t.pairs.size() > 256) throw std::logic_error("ratio pair table overflow");
  return t;
}

// Byte path: every unordered pair once through the combined table, into uint16 counts of
// [pair (i < j)][id], then unpacked into out (n x n x K) every kRound blocks.
void add_bytes(const BlockView& v, std::size_t b0, std::size_t b1, const PairTable& t, unsigned K, std::uint64_t* out) {
  const std::size_t n = v.block_bytes, P = t.pairs.size(), npairs = n * (n - 1) / 2;
  std::vector<std::uint16_t> local(npairs * P);
  for (std::size_t r0 = b0; r0 < b1; r0 += kRound) {
    const std::size_t r1 = std::min(b1, r0 + kRound);
    std::fill(local.begin(), local.end(), 0u);
    for (std::size_t b = r0; b < r1; ++b) {
      const std::uint8_t* d = v.block(b);
      std::uint16_t* c = local.data();
      for (std::size_t i = 0; i + 1 < n; ++i) {
        const std::uint8_t* row = t.id.data() + (std::size_t{d[i]} << 8);
        for (std::size_t j = i + 1; j < n; ++j, c += P) ++c[row[d[j]]];
      }
    }
    const std::uint16_t* c = local.data();
    for (std::size_t i = 0; i + 1 < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j, c += P)
        for (std::size_t s = 0; s < P; ++s) {
          if (!c[s]) continue;
          out[(i * n + j) * K + t.pairs[s].first] += c[s];
          out[(j * n + i) * K + t.pairs[s].second] += c[s];
        }
  }
}

// Generic path (wider elements): both directions computed directly.
void add_elements(const BlockView& v, std::size_t b0, std::size_t b1, const RatioLayout& L, const RatioOptions& o,
                  std::uint64_t* out) {
  const unsigned w = o.elem_bytes;
  const std::size_t n = v.block_bytes / w, K = L.buckets;
  std::vector<std::uint64_t> e(n);
  for (std::size_t b = b0; b < b1; ++b) {
    const std::uint8_t* d = v.block(b);
    for (std::size_t i = 0; i < n; ++i) e[i] = load_k(d + i * w, w, Endian::little);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (i != j) ++out[(i * n + j) * K + L.bucket(e[i], e[j], o)];
  }
}

}  // namespace

// ---------------------------------------------------------------- quantisers

void check_ratio_options(const RatioOptions& o) {
  if (o.elem_bytes != 1 && o.elem_bytes != 2 && o.elem_bytes != 4)
    throw invalid_argument("elem_bytes must be 1, 2 or 4, got " + std::to_string(o.elem_bytes));
}

int ratio_floor_log2(std::uint64_t a, std::uint64_t b) noexcept {
  const int e = static_cast<int>(bitlen(a)) - static_cast<int>(bitlen(b));
  const u128 lhs = static_cast<u128>(a) << (e < 0 ? -e : 0);
  const u128 rhs = static_cast<u128>(b) << (e > 0 ? e : 0);
  return lhs >= rhs ? e : e - 1;
}

int ratio_round_log2(std::uint64_t a, std::uint64_t b) noexcept {
  // q = floor(log2(a/b)), so a/b is in [2^q, 2^(q+1)); the nearest integer is q iff
  // a/b < 2^(q + 1/2), i.e. a^2 < 2 b^2 4^q (never equal: sqrt 2 is irrational).
  const int q = ratio_floor_log2(a, b);
  u128 x = a, y = b;
  if (q >= 0)
    y <<= q;
  else
    x <<= -q;
  return x * x < 2 * y * y ? q : q + 1;
}

RatioLayout::RatioLayout(const RatioOptions& o) {
  check_ratio_options(o);
  const int bits = static_cast<int>(8 * o.elem_bytes);
  q_min = -bits;
  q_max = o.quantiser == RatioQuantiser::floor ? bits - 1 : bits;
  n_q = static_cast<unsigned>(q_max - q_min + 1);
  buckets = 3 + n_q * (o.is_signed ? 2u : 1u);
}

unsigned RatioLayout::bucket(std::uint64_t a, std::uint64_t b, const RatioOptions& o) const noexcept {
  bool negative = false;
  if (o.is_signed) {
    const unsigned bits = 8 * o.elem_bytes;
    const std::uint64_t half = std::uint64_t{1} << (bits - 1), full = low_mask(bits);
    const bool na = a >= half, nb = b >= half;
    if (na) a = ((~a) & full) + 1;
    if (nb) b = ((~b) & full) + 1;
    negative = na != nb;
  }
  if (o.zeros == RatioZeros::as_one) {
    a = a ? a : 1;
    b = b ? b : 1;
  }
  if (!a) return b ? kZ0x : kZ00;
  if (!b) return kZx0;
  const int q = o.quantiser == RatioQuantiser::floor ? ratio_floor_log2(a, b) : ratio_round_log2(a, b);
  return 3 + static_cast<unsigned>(q - q_min) + (negative ? n_q : 0u);
}

int RatioLayout::q_of(unsigned k) const noexcept {
  unsigned r = k - 3;
  if (r >= n_q) r -= n_q;
  return q_min + static_cast<int>(r);
}

// ---------------------------------------------------------------- RatioCounts

RatioCounts::RatioCounts(std::size_t block_bytes, const RatioOptions& o)
    : block_bytes_(block_bytes), opt_(o), layout_(o) {
  if (block_bytes == 0 || block_bytes % o.elem_bytes)
    throw invalid_argument("block size " + std::to_string(block_bytes) +
                           " B is not a positive multiple of elem_bytes " + std::to_string(o.elem_bytes));
  n_ = block_bytes / o.elem_bytes;
  if (n_ < 2) throw invalid_argument("ratio entropy needs at least two elements per block");
  counts_.assign(n_ * n_ * layout_.buckets, 0);
}

void RatioCounts::add(const BlockView& v, int threads) {
  if (v.block_bytes != block_bytes_)
    throw invalid_argument("blocks of " + std::to_string(v.block_bytes) + " B given to ratio counts of " +
                           std::to_string(block_bytes_) + " B blocks");
  if (v.n_blocks == 0) return;
  const PairTable table = opt_.elem_bytes == 1 ? make_pair_table(layout_, opt_) : PairTable{};
  std::mutex mu;
  parallel_for(v.n_blocks, threads, 4096, [&](std::size_t b0, std::size_t b1) {
    std::vector<std::uint64_t> part(counts_.size(), 0);
    if (opt_.elem_bytes == 1)
      add_bytes(v, b0, b1, table, layout_.buckets, part.data());
    else
      add_elements(v, b0, b1, layout_, opt_, part.data());
    std::lock_guard<std::mutex> lock(mu);
    for (std::size_t i = 0; i < part.size(); ++i) counts_[i] += part[i];
  });
  blocks_ += v.n_blocks;
}

void RatioCounts::merge(const RatioCounts& o) {
  if (o.block_bytes_ != block_bytes_ || o.opt_.elem_bytes != opt_.elem_bytes || o.opt_.zeros != opt_.zeros ||
      o.opt_.quantiser != opt_.quantiser || o.opt_.is_signed != opt_.is_signed)
    throw invalid_argument("cannot merge ratio counts of different block sizes or options");
  add_counts(o.counts_.data(), o.blocks_);
}

void RatioCounts::add_counts(const std::uint64_t* c, std::uint64_t n_blocks) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += c[i];
  blocks_ += n_blocks;
}

void RatioCounts::entropy(double* out) const {
  ratio_entropy_matrix(counts_.data(), n_, layout_.buckets, opt_.zeros, out);
}

void ratio_entropy_matrix(const std::uint64_t* counts, std::size_t n, unsigned K, RatioZeros zeros, double* out) {
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> re(
      out, static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  const std::size_t skip = zeros == RatioZeros::exclude ? 3 : 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      re(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          i == j ? 0.0 : entropy_bits(counts + (i * n + j) * K + skip, K - skip);
}

// ---------------------------------------------------------------- guess_dtype

namespace {

// guess_dtype: which element width describes the block in the fewest bits, then float or
// integer at that width (the rules are listed in ratio_entropy.hpp).
constexpr unsigned kBlockBits = 256;
constexpr unsigned kNone = 1u << 20;  // a description that does not apply

/// Bits of the shortest two's complement form of every value whose sign-folded forms
/// (x ^ (x >> 63)) OR to `folded`: the widest of them (1 for 0 and -1).
inline unsigned widest_bits(std::uint64_t folded) noexcept {
  return (folded ? 64u - static_cast<unsigned>(__builtin_clzll(folded)) : 0u) + 1u;
}
inline std::uint64_t fold(std::int64_t v) noexcept { return static_cast<std::uint64_t>(v ^ (v >> 63)); }

/// The 32 / w elements of width w bytes (little-endian), unsigned.
struct Elements {
  std::uint64_t u[32];
  unsigned n, w;
  Elements(const std::uint8_t* p, unsigned width) noexcept : n(32 / width), w(width) {
    for (unsigned k = 0; k < n; ++k) u[k] = load_k(p + k * w, w, Endian::little);
  }
  std::int64_t s(std::uint64_t x) const noexcept { return sign_extend(x, 8 * w); }
  /// Nonzero elements all sit at one index residue mod k, one in every run of k elements, for
  /// a wider element k*w <= 8 bytes: the zeros are that wider element's high part, not sparsity.
  bool structured(std::uint32_t nz) const noexcept {
    const unsigned count = static_cast<unsigned>(__builtin_popcount(nz));
    for (unsigned k = 2; k * w <= 8; k *= 2) {
      if (count != n / k) continue;
      for (unsigned r = 0; r < k; ++r) {  // the residue r pattern: bits r, r + k, ...
        std::uint32_t pattern = 0;
        for (unsigned i = r; i < n; i += k) pattern |= 1u << i;
        if (nz == pattern) return true;
      }
    }
    return false;
  }
};

/// Integers of width w: the fewest bits of (a) every element at the widest element's width,
/// (b) a zero mask plus the nonzero elements at their widest width, (c) differences from the
/// element `stride` places before (the first `stride` elements stored whole).
template <unsigned... Strides>
unsigned integer_bits(const Elements& e) noexcept {
  std::uint64_t all = 0, nonzero = 0;
  std::uint32_t nz = 0;
  for (unsigned k = 0; k < e.n; ++k) {
    const std::uint64_t f = fold(e.s(e.u[k]));
    all |= f;
    if (e.u[k]) {
      nonzero |= f;
      nz |= 1u << k;
    }
  }
  unsigned best = e.n * widest_bits(all);
  if (!e.structured(nz))
    best = std::min(best, e.n + static_cast<unsigned>(__builtin_popcount(nz)) * widest_bits(nonzero));
  for (const unsigned s : {Strides...}) {
    std::uint64_t d = 0;
    for (unsigned k = s; k < e.n; ++k) d |= fold(e.s(e.u[k] - e.u[k - s]));
    best = std::min(best, 8 * e.w * s + (e.n - s) * widest_bits(d));
  }
  return best;
}

/// Floats with E exponent and M mantissa bits: a zero mask if any element is +-0, then per
/// nonzero element a sign bit (if signs differ), the exponent within the block's range and the
/// mantissa without the trailing zeros every element shares.
unsigned float_bits(const Elements& e, unsigned E, unsigned M) noexcept {
  unsigned emin = ~0u, emax = 0, signs = 0;
  std::uint64_t mantissas = 0;
  std::uint32_t nz = 0;
  for (unsigned k = 0; k < e.n; ++k) {
    const std::uint64_t m = e.u[k] & low_mask(M);
    const auto ex = static_cast<unsigned>((e.u[k] >> M) & low_mask(E));
    if (ex == 0 && m == 0) continue;
    nz |= 1u << k;
    emin = std::min(emin, ex);
    emax = std::max(emax, ex);
    mantissas |= m;
    signs |= 1u << ((e.u[k] >> (E + M)) & 1u);
  }
  const unsigned count = static_cast<unsigned>(__builtin_popcount(nz));
  if (count == 0) return 0;
  const bool any_zero = count < e.n;
  if (any_zero && e.structured(nz)) return kNone;
  const unsigned tz = mantissas ? std::min(M, static_cast<unsigned>(__builtin_ctzll(mantissas))) : M;
  const unsigned per = (signs == 3 ? 1 : 0) + ceil_log2(emax - emin + 1) + (M - tz);
  return (any_zero ? e.n : 0) + count * per;
}

/// At most half of the nonzero elements have their top `top` bits all 0 or all 1 (what a
/// sign-extended integer has).
bool mostly_floats(const Elements& e, unsigned top) noexcept {
  unsigned nz = 0, intlike = 0;
  for (unsigned k = 0; k < e.n; ++k) {
    if (!e.u[k]) continue;
    ++nz;
    const std::uint64_t hi = e.u[k] >> (8 * e.w - top);
    intlike += hi == 0 || hi == low_mask(top);
  }
  return 2 * intlike <= nz;
}

}  // namespace

int guess_dtype_block(const std::uint8_t* p) noexcept {
  if (std::all_of(p, p + 32, [](std::uint8_t x) { return x == 0; })) return 0;
  const Elements e1(p, 1), e2(p, 2), e4(p, 4), e8(p, 8);
  const unsigned bits[4] = {
      integer_bits<1, 3, 4>(e1),  // bytes; byte, RGB and RGBA neighbours
      std::min({integer_bits<1, 2>(e2), float_bits(e2, 5, 10), float_bits(e2, 8, 7)}),  // INT16, FP16, BF16
      std::min(integer_bits<1>(e4), float_bits(e4, 8, 23)),
      std::min(integer_bits<1>(e8), float_bits(e8, 11, 52)),
  };
  int width = -1;
  for (int w = 0; w < 4; ++w)  // ties go to the narrower element
    if (bits[w] + kGuessMinSaving <= kBlockBits && (width < 0 || bits[w] < bits[width])) width = w;
  switch (width) {
    case 1: return 1;
    case 2: return mostly_floats(e4, 9) ? 3 : 2;
    case 3: return mostly_floats(e8, 12) ? 4 : 2;
    default: return 0;  // bytes, or nothing shorter than the block
  }
}

int mpc_special_class(const std::uint8_t* p) noexcept {
  bool zero = true, rep = true;
  for (int i = 0; i < 32; ++i) {
    zero = zero && p[i] == 0;
    rep = rep && p[i] == p[i % 4];
  }
  return zero ? 0 : rep ? 1 : -1;
}

void classify_blocks(const BlockView& v, std::int8_t* group, std::int8_t* special, int threads) {
  if (v.block_bytes != 32)
    throw invalid_argument("guess_dtype and MPC classes are defined on 32 B blocks, got " +
                           std::to_string(v.block_bytes) + " B; use sectorize(blocks, 32)");
  parallel_for(v.n_blocks, threads, 1 << 14, [&](std::size_t b0, std::size_t b1) {
    for (std::size_t b = b0; b < b1; ++b) {
      if (group) group[b] = static_cast<std::int8_t>(guess_dtype_block(v.block(b)));
      if (special) special[b] = static_cast<std::int8_t>(mpc_special_class(v.block(b)));
    }
  });
}

// ---------------------------------------------------------------- MST and tree

std::vector<double> edge_weights(const double* re, std::size_t n, EdgeWeight how) {
  using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const auto N = static_cast<Eigen::Index>(n);
  Eigen::Map<const Mat> r(re, N, N);
  std::vector<double> out(n * n);
  Eigen::Map<Mat> w(out.data(), N, N);
  if (how == EdgeWeight::mean) {
    w = (r + r.transpose()) / 2.0;
  } else {
    // RE(max, min): the higher position is the target.
    Mat lower = r.triangularView<Eigen::StrictlyLower>();
    w = lower + lower.transpose();
  }
  w.diagonal().setZero();
  return out;
}

std::vector<Edge> kruskal_mst(const double* w, std::size_t n) {
  std::vector<Edge> all;
  all.reserve(n * (n - 1) / 2);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) all.push_back({static_cast<int>(i), static_cast<int>(j), w[i * n + j]});
  std::stable_sort(all.begin(), all.end(),
                   [](const Edge& a, const Edge& b) { return std::tie(a.w, a.u, a.v) < std::tie(b.w, b.u, b.v); });
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<Edge> tree;
  for (const Edge& e : all) {
    const std::size_t a = find(static_cast<std::size_t>(e.u)), b = find(static_cast<std::size_t>(e.v));
    if (a == b) continue;
    parent[std::max(a, b)] = std::min(a, b);
    tree.push_back(e);
    if (tree.size() + 1 == n) break;
  }
  return tree;
}

namespace {
// BFS from r: parent and depth of every node (parents unique in a tree).
void bfs(const std::vector<Edge>& edges, std::size_t n, int r, std::vector<int>& par, std::vector<int>& depth) {
  std::vector<std::vector<int>> adj(n);
  for (const Edge& e : edges) {
    adj[static_cast<std::size_t>(e.u)].push_back(e.v);
    adj[static_cast<std::size_t>(e.v)].push_back(e.u);
  }
  par.assign(n, -1);
  depth.assign(n, -1);
  std::queue<int> q;
  q.push(r);
  par[static_cast<std::size_t>(r)] = r;
  depth[static_cast<std::size_t>(r)] = 0;
  while (!q.empty()) {
    const int x = q.front();
    q.pop();
    for (int y : adj[static_cast<std::size_t>(x)])
      if (depth[static_cast<std::size_t>(y)] < 0) {
        depth[static_cast<std::size_t>(y)] = depth[static_cast<std::size_t>(x)] + 1;
        par[static_cast<std::size_t>(y)] = x;
        q.push(y);
      }
  }
  for (int d : depth)
    if (d < 0) throw invalid_argument("the edges do not span all positions");
}
}  // namespace

int tree_height(const std::vector<Edge>& edges, std::size_t n, int r) {
  std::vector<int> par, depth;
  bfs(edges, n, r, par, depth);
  return *std::max_element(depth.begin(), depth.end());
}

Tree orient_tree(const std::vector<Edge>& edges, std::size_t n, const double* byte_entropy) {
  if (n == 0 || edges.size() + 1 != n) throw invalid_argument("a spanning tree of n positions has n - 1 edges");
  int best = -1, best_h = 0;
  for (int r = 0; r < static_cast<int>(n); ++r) {
    const int h = tree_height(edges, n, r);
    bool take = best < 0 || h < best_h;
    if (!take && h == best_h && byte_entropy)
      take = byte_entropy[static_cast<std::size_t>(r)] > byte_entropy[static_cast<std::size_t>(best)];
    if (take) {
      best = r;
      best_h = h;
    }
  }
  Tree t;
  t.root = best;
  t.height = best_h;
  bfs(edges, n, best, t.base, t.depth);
  return t;
}

int modal_shift(const std::uint64_t* c, const RatioLayout& L, const RatioOptions&) {
  std::vector<std::uint64_t> byq(L.n_q, 0);
  std::uint64_t total = 0;
  for (unsigned k = 0; k < L.buckets; ++k) total += c[k];
  for (unsigned k = 3; k < L.buckets; ++k) byq[static_cast<std::size_t>(L.q_of(k) - L.q_min)] += c[k];
  const bool base_mostly_zero = 2 * (c[kZ00] + c[kZx0]) > total;
  int shift = 0;
  std::uint64_t best = 0;
  if (!base_mostly_zero && c[kZ0x] > 0) {  // "target zero": predict 0
    shift = -8;
    best = c[kZ0x];
  }
  for (unsigned r = 0; r < L.n_q; ++r) {
    const int s = std::clamp(L.q_min + static_cast<int>(r), -8, 8);
    if (byq[r] > best || (byq[r] == best && best > 0 && s < shift)) {
      best = byq[r];
      shift = s;
    }
  }
  return shift;
}

// ---------------------------------------------------------------- residue planes and scan

std::array<std::uint64_t, 4> mpc_xor_planes(const std::uint8_t* b, const MpcPredictor& m) noexcept {
  std::uint8_t R[32];
  R[0] = b[m.root];
  for (int j = 0, c = 1; j < 32; ++j) {
    if (j == m.root) continue;
    const unsigned v = b[m.base[static_cast<std::size_t>(j)]];
    const int s = m.shift[static_cast<std::size_t>(j)];
    const unsigned pred = s > 0 ? (v << s) & 0xFFu : s < 0 ? v >> (-s) : v;
    R[c++] = static_cast<std::uint8_t>(b[j] - pred);
  }
  std::uint32_t plane[8] = {};
  for (unsigned c = 0; c < 32; ++c)
    for (unsigned p = 0; p < 8; ++p) plane[p] |= ((static_cast<std::uint32_t>(R[c]) >> (7 - p)) & 1u) << c;
  std::array<std::uint64_t, 4> x{};
  for (unsigned p = 0; p < 8; ++p) {
    const std::uint32_t xp = p == 0 ? plane[0] : plane[p] ^ (plane[p - 1] & ~1u);
    x[p / 2] |= static_cast<std::uint64_t>(xp) << (32 * (p % 2));
  }
  return x;
}

namespace {

/// Transposes a 64 x 64 bit matrix in place: bit j of a[i] becomes bit i of a[j] (bit 0 the
/// lowest), by swapping ever smaller blocks (Hacker's Delight 7-3).
void transpose64(std::uint64_t* a) {
  std::uint64_t mask = 0x00000000FFFFFFFFULL;
  for (unsigned j = 32; j != 0; j >>= 1, mask ^= mask << j)
    for (unsigned k = 0; k < 64; k = ((k | j) + 1) & ~j) {
      const std::uint64_t t = ((a[k] >> j) ^ a[k | j]) & mask;
      a[k] ^= t << j;
      a[k | j] ^= t;
    }
}

}  // namespace

void CellZeroStats::add(const BlockView& v, const MpcPredictor& m, int threads) {
  if (v.block_bytes != 32) throw invalid_argument("MPC residue planes need 32 B blocks");
  if (m.root < 0 || m.root > 31) throw invalid_argument("root must be in [0, 31]");
  for (int j = 0; j < 32; ++j) {
    const auto js = static_cast<std::size_t>(j);
    if (j != m.root && (m.base[js] < 0 || m.base[js] > 31 || m.shift[js] < -8 || m.shift[js] > 8))
      throw invalid_argument("base must be in [0, 31] and shift in [-8, 8]");
  }
  std::mutex mu;
  parallel_for(v.n_blocks, threads, 4096, [&](std::size_t b0, std::size_t b1) {
    constexpr std::size_t kWords = 64;  // tile of 4096 blocks
    std::vector<std::uint64_t> z(256 * kWords), co(256 * 256, 0), zeros(256, 0);
    for (std::size_t t0 = b0; t0 < b1; t0 += 64 * kWords) {
      const std::size_t t1 = std::min(b1, t0 + 64 * kWords), nb = t1 - t0, w = (nb + 63) / 64;
      for (std::size_t k = 0; k < w; ++k) {  // 64 blocks: their zero cells, as rows of cells
        std::uint64_t rows[4][64];           // rows[q][r]: cells 64q.. of block 64k + r zero
        const std::size_t first = t0 + 64 * k, count = std::min<std::size_t>(64, t1 - first);
        for (std::size_t r = 0; r < 64; ++r) {
          if (r < count) {
            const auto x = mpc_xor_planes(v.block(first + r), m);
            for (std::size_t q = 0; q < 4; ++q) rows[q][r] = ~x[q];
          } else {
            for (auto& row : rows) row[r] = 0;  // no block: no zero
          }
        }
        for (std::size_t q = 0; q < 4; ++q) {
          transpose64(rows[q]);  // rows[q][c]: bit r set if block 64k + r has cell 64q + c zero
          for (std::size_t c = 0; c < 64; ++c) z[(64 * q + c) * w + k] = rows[q][c];
        }
      }
      for (std::size_t c = 0; c < 256; ++c)
        for (std::size_t k = 0; k < w; ++k) zeros[c] += detail::cell_zeros::pop_generic(z[c * w + k]);
      cell_zero_kernels().co_zero(z.data(), w, co.data());
    }
    std::lock_guard<std::mutex> lock(mu);
    for (std::size_t i = 0; i < 256; ++i) zeros_[i] += zeros[i];
    for (std::size_t c1 = 0; c1 < 256; ++c1)
      for (std::size_t c2 = c1; c2 < 256; ++c2) {
        co_[c1 * 256 + c2] += co[c1 * 256 + c2];
        if (c2 != c1) co_[c2 * 256 + c1] += co[c1 * 256 + c2];
      }
  });
  blocks_ += v.n_blocks;
}

void CellZeroStats::merge(const CellZeroStats& o) {
  for (std::size_t i = 0; i < zeros_.size(); ++i) zeros_[i] += o.zeros_[i];
  for (std::size_t i = 0; i < co_.size(); ++i) co_[i] += o.co_[i];
  blocks_ += o.blocks_;
}

std::vector<int> greedy_scan(const std::uint64_t* zeros, const std::uint64_t* co) {
  std::vector<int> order;
  std::vector<bool> used(256, false);
  int prev = 0;
  for (int c = 1; c < 256; ++c)
    if (zeros[c] > zeros[prev]) prev = c;
  order.push_back(prev);
  used[static_cast<std::size_t>(prev)] = true;
  while (order.size() < 256) {
    int best = -1;
    for (int c = 0; c < 256; ++c) {
      if (used[static_cast<std::size_t>(c)]) continue;
      if (best < 0 || co[static_cast<std::size_t>(prev) * 256 + static_cast<std::size_t>(c)] >
                          co[static_cast<std::size_t>(prev) * 256 + static_cast<std::size_t>(best)])
        best = c;
    }
    order.push_back(best);
    used[static_cast<std::size_t>(best)] = true;
    prev = best;
  }
  return order;
}

}  // namespace memcomp
