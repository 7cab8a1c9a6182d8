// memcomp analysis: ratio entropy (P3 §2.3, SPEC 3) and MPC parameter extraction (SPEC 1.12).
//
// RE(i, j) is the entropy of the quantised ratio q(D[i], D[j]) over a data set, i the target and
// j the base position of an element inside a block. Buckets of one pair, in this order:
//   0 Z00 (both zero), 1 Z0x (target zero), 2 Zx0 (base zero), then the ratio buckets
//   3 + (q - q_min) [+ n_q for a negative sign product when signed].
// `floor` q = floor(log2(a/b)) in [-8w, 8w - 1] for w-byte elements (exact, SPEC 3);
// `round` q = the integer nearest log2(a/b), in [-8w, 8w] (exact; no ties exist).
// zeros: `buckets` keeps Z00/Z0x/Zx0 (19 symbols for bytes); `exclude` still counts them but leaves
// them out of RE (only pairs with both elements non-zero); `as_one` reads a zero as 1 (the public
// extractor), so the zero buckets stay empty. `signed` reads elements as two's complement, uses
// |a| and |b|, and splits every ratio bucket by sign(a)·sign(b).
// Counts are exact, merge by addition and do not depend on the thread count.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memcomp/core/blocks.hpp"

namespace memcomp {

enum class RatioZeros { buckets, exclude, as_one };
enum class RatioQuantiser { floor, round };

struct RatioOptions {
  RatioZeros zeros = RatioZeros::buckets;
  RatioQuantiser quantiser = RatioQuantiser::floor;
  bool is_signed = false;
  unsigned elem_bytes = 1;  ///< 1, 2 or 4
};

/// Throws invalid_argument for a bad elem_bytes.
void check_ratio_options(const RatioOptions& o);

/// floor(log2(a/b)) for a, b > 0, exactly (SPEC 3).
int ratio_floor_log2(std::uint64_t a, std::uint64_t b) noexcept;
/// The integer nearest log2(a/b) for a, b > 0, exactly (compares a^2 with b^2 2^(2k±1)).
int ratio_round_log2(std::uint64_t a, std::uint64_t b) noexcept;

/// Bucket layout of one option set.
struct RatioLayout {
  int q_min = 0, q_max = 0;  ///< ratio range
  unsigned n_q = 0;          ///< q_max - q_min + 1
  unsigned buckets = 0;      ///< 3 + n_q (x2 when signed)
  explicit RatioLayout(const RatioOptions& o);
  /// Bucket of target a and base b (raw element values, zero-extended to 64 bits).
  unsigned bucket(std::uint64_t a, std::uint64_t b, const RatioOptions& o) const noexcept;
  /// q of a ratio bucket (>= 3); the sign half is ignored.
  int q_of(unsigned bucket) const noexcept;
};

inline constexpr unsigned kZ00 = 0, kZ0x = 1, kZx0 = 2;

/// Mergeable joint counts of the ratio bucket of every ordered pair (i target, j base) of element
/// positions: counts()[(i n + j) K + k], n = block_bytes / elem_bytes, K = buckets; the diagonal
/// stays zero.
class RatioCounts {
 public:
  RatioCounts(std::size_t block_bytes, const RatioOptions& o = {});

  std::size_t positions() const noexcept { return n_; }
  std::size_t block_bytes() const noexcept { return block_bytes_; }
  unsigned buckets() const noexcept { return layout_.buckets; }
  const RatioOptions& options() const noexcept { return opt_; }
  const RatioLayout& layout() const noexcept { return layout_; }
  std::uint64_t blocks() const noexcept { return blocks_; }

  /// Adds blocks; threads split the blocks (0 = all hardware threads).
  void add(const BlockView& blocks, int threads = 1);
  /// Adds another partial result of the same shape and options.
  void merge(const RatioCounts& other);
  /// Adds raw counts (n x n x K) and a block count, e.g. a partial result read back from NumPy.
  void add_counts(const std::uint64_t* counts, std::uint64_t n_blocks);

  const std::vector<std::uint64_t>& counts() const noexcept { return counts_; }
  /// RE matrix, row-major n x n: out[i n + j] = RE(i target, j base); diagonal 0.
  void entropy(double* out) const;

 private:
  std::size_t block_bytes_, n_ = 0;
  RatioOptions opt_;
  RatioLayout layout_;
  std::uint64_t blocks_ = 0;
  std::vector<std::uint64_t> counts_;
};

/// RE matrix of raw counts (n x n x K) with the option's zero handling.
void ratio_entropy_matrix(const std::uint64_t* counts, std::size_t n, unsigned buckets, RatioZeros zeros, double* out);

// ---------------------------------------------------------------- guess_dtype (SPEC 1.12)

/// Groups of SPEC 1.12: 0 Bool/INT8, 1 INT16, 2 INT32/64, 3 FP32, 4 FP64.
inline constexpr int kGroups = 5;

/// guess_dtype (SPEC 1.12, revised; ours): the element width that describes the block in the
/// fewest bits, then float or integer at that width.
///  1. For each width w of 1, 2, 4 and 8 bytes, the fewest bits of these descriptions:
///     integers: every element at the block's widest two's complement width; a zero mask plus
///     the nonzero elements at their widest width; differences from the element s places back
///     (bytes: s = 1, 3, 4; halfwords: 1, 2; words and double words: 1). Floats (FP16 and BF16
///     at 2 bytes, FP32 at 4, FP64 at 8): a zero mask if any element is +-0, then per nonzero
///     element a sign bit if signs differ, the exponent within the block's exponent range and
///     the mantissa less the trailing zeros all share. Masks do not apply when the nonzero
///     elements fill exactly one index residue mod k (those zeros are the high part of a wider
///     element).
///  2. A width counts if it saves at least kGuessMinSaving bits of the 256; the one with the
///     fewest bits wins, ties to the narrower. None (and an all-zero block): Bool/INT8.
///  3. 1 byte: Bool/INT8; 2 bytes: INT16 (FP16 and BF16 too); 4 and 8 bytes: FP32 / FP64 if at
///     most half of the nonzero elements have their top 9 / 12 bits all equal (a sign-extended
///     integer's), else INT32/64.
int guess_dtype_block(const std::uint8_t* block) noexcept;
inline constexpr unsigned kGuessMinSaving = 24;
/// MPC's fixed classes: 0 all bytes zero, 1 byte[i] == byte[i mod 4] for all i, -1 otherwise.
int mpc_special_class(const std::uint8_t* block) noexcept;
/// Both, for 32 B blocks (throws invalid_argument otherwise); either output may be null.
void classify_blocks(const BlockView& blocks, std::int8_t* group, std::int8_t* special, int threads = 1);

// ---------------------------------------------------------------- extraction (SPEC 1.12 table)

enum class EdgeWeight { mean, cal22 };

struct Edge {
  int u, v;  ///< u < v
  double w;
};

/// Undirected edge weights of an RE matrix (n x n row-major): mean = (RE(i,j) + RE(j,i)) / 2,
/// cal22 = RE(max, min). Returned as an n x n symmetric matrix.
std::vector<double> edge_weights(const double* re, std::size_t n, EdgeWeight how);
/// Kruskal on a symmetric weight matrix; ties by (w, min, max). Returns the n - 1 edges in the
/// order they were taken.
std::vector<Edge> kruskal_mst(const double* w, std::size_t n);

struct Tree {
  int root = 0;
  std::vector<int> base;   ///< parent (base) of every position; base[root] = root
  std::vector<int> depth;  ///< depth below the root
  int height = 0;
};

/// Height of the tree rooted at r.
int tree_height(const std::vector<Edge>& edges, std::size_t n, int r);
/// The root of SPEC 1.12: minimum height, ties to the highest byte entropy (if given), then the
/// lowest index; edges oriented away from it.
Tree orient_tree(const std::vector<Edge>& edges, std::size_t n, const double* byte_entropy = nullptr);

/// shift of target i with base j from the pair's bucket counts (K buckets, layout of `o`):
/// the modal ratio q (ties to the lowest q); "target zero" (Z0x, or q <= -8) gives -8. If the base
/// is mostly zero (Z00 + Zx0 > half), the mode over ratio buckets only. No evidence: 0. Clamped
/// to [-8, 8].
int modal_shift(const std::uint64_t* pair_counts, const RatioLayout& layout, const RatioOptions& o);

// ---------------------------------------------------------------- residue planes and scan

struct MpcPredictor {
  int root = 0;
  std::array<int, 32> base{};
  std::array<int, 32> shift{};
};

/// SPEC 1.12 transform steps 1-4 of one 32 B block: bit 32p + c of the result is X[p][c].
std::array<std::uint64_t, 4> mpc_xor_planes(const std::uint8_t* block, const MpcPredictor& m) noexcept;

/// Mergeable zero statistics of the 256 XORed cells: zeros[c] and co-zeros[c1 * 256 + c2].
class CellZeroStats {
 public:
  CellZeroStats() : zeros_(256, 0), co_(256 * 256, 0) {}
  void add(const BlockView& blocks, const MpcPredictor& m, int threads = 1);
  void merge(const CellZeroStats& o);
  std::uint64_t blocks() const noexcept { return blocks_; }
  const std::vector<std::uint64_t>& zeros() const noexcept { return zeros_; }
  const std::vector<std::uint64_t>& co_zeros() const noexcept { return co_; }

 private:
  std::uint64_t blocks_ = 0;
  std::vector<std::uint64_t> zeros_, co_;
};

/// Greedy chain of SPEC 1.12: the cell with most zeros, then repeatedly the unvisited cell with the
/// most co-zeros with the previous one; ties to the lowest index 32p + c. Returns the 256 cells.
std::vector<int> greedy_scan(const std::uint64_t* zeros, const std::uint64_t* co_zeros);

}  // namespace memcomp
