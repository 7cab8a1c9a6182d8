// memcomp bindings: MPC analyses and parameter extraction (ratio entropy, guess_dtype, MST,
// residue planes and scan; SPEC 1.12 and 3). Partial results are NumPy arrays that add.
#include <algorithm>
#include <string>

#include "common.hpp"
#include "memcomp/analysis/ratio_entropy.hpp"
#include "memcomp/core/bits.hpp"

namespace memcomp::bindings {

namespace {

RatioOptions ratio_options(const std::string& zeros, const std::string& quantiser, bool is_signed,
                           unsigned elem_bytes) {
  RatioOptions o;
  if (zeros == "buckets")
    o.zeros = RatioZeros::buckets;
  else if (zeros == "exclude")
    o.zeros = RatioZeros::exclude;
  else if (zeros == "as_one")
    o.zeros = RatioZeros::as_one;
  else
    throw py::value_error("zeros must be 'buckets', 'exclude' or 'as_one', got '" + zeros + "'");
  if (quantiser == "floor")
    o.quantiser = RatioQuantiser::floor;
  else if (quantiser == "round")
    o.quantiser = RatioQuantiser::round;
  else
    throw py::value_error("quantiser must be 'floor' or 'round', got '" + quantiser + "'");
  o.is_signed = is_signed;
  o.elem_bytes = elem_bytes;
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4)
    throw py::value_error("elem_bytes must be 1, 2 or 4, got " + std::to_string(elem_bytes));
  return o;
}

// A C-contiguous array of exactly dtype T and the given shape (-1 = any).
template <class T>
const T* typed(const py::array& a, const char* what, std::initializer_list<py::ssize_t> shape) {
  if (!has_dtype<T>(a))
    throw py::type_error(std::string(what) + " must be a NumPy array of dtype " +
                         std::string(py::str(py::dtype::of<T>())) + ", got " + std::string(py::str(a.dtype())));
  if (a.ndim() != static_cast<py::ssize_t>(shape.size()))
    throw py::value_error(std::string(what) + " must have " + std::to_string(shape.size()) + " dimensions");
  py::ssize_t d = 0;
  for (py::ssize_t s : shape) {
    if (s >= 0 && a.shape(d) != s)
      throw py::value_error(
          std::string(what) + " has shape " +
          std::string(py::str(py::tuple(py::cast(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()))))) +
          ", dimension " + std::to_string(d) + " must be " + std::to_string(s));
    ++d;
  }
  if (!(a.flags() & py::array::c_style)) throw py::value_error(std::string(what) + " must be C-contiguous");
  return static_cast<const T*>(a.data());
}

MpcPredictor predictor(int root, const std::vector<int>& base, const std::vector<int>& shift) {
  if (base.size() != 32 || shift.size() != 32) throw py::value_error("base and shift need 32 entries each");
  if (root < 0 || root > 31) throw py::value_error("root must be in [0, 31], got " + std::to_string(root));
  MpcPredictor m;
  m.root = root;
  for (std::size_t j = 0; j < 32; ++j) {
    if (static_cast<int>(j) == root) continue;
    if (base[j] < 0 || base[j] > 31) throw py::value_error("base[" + std::to_string(j) + "] must be in [0, 31]");
    if (shift[j] < -8 || shift[j] > 8) throw py::value_error("shift[" + std::to_string(j) + "] must be in [-8, 8]");
    m.base[j] = base[j];
    m.shift[j] = shift[j];
  }
  return m;
}

std::vector<Edge> edges_of(const py::array& edges, std::size_t n) {
  const int* e = typed<int>(edges, "edges", {static_cast<py::ssize_t>(n) - 1, 2});
  std::vector<Edge> out;
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const int u = e[2 * k], v = e[2 * k + 1];
    if (u < 0 || v < 0 || u >= static_cast<int>(n) || v >= static_cast<int>(n) || u == v)
      throw py::value_error("edge " + std::to_string(k) + " is not a pair of distinct positions");
    out.push_back({std::min(u, v), std::max(u, v), 0.0});
  }
  return out;
}

}  // namespace

void register_mpc(py::module_& m) {
  m.def(
      "ratio_layout",
      [](const std::string& zeros, const std::string& quantiser, bool is_signed, unsigned elem_bytes) {
        const RatioLayout L(ratio_options(zeros, quantiser, is_signed, elem_bytes));
        py::dict d;
        d["q_min"] = L.q_min;
        d["q_max"] = L.q_max;
        d["n_q"] = L.n_q;
        d["buckets"] = L.buckets;
        return d;
      },
      py::arg("zeros") = "buckets", py::arg("quantiser") = "floor", py::arg("signed") = false,
      py::arg("elem_bytes") = 1,
      "Bucket layout: 0 Z00, 1 Z0x, 2 Zx0, then 3 + q - q_min (+ n_q for a negative sign product).");

  m.def(
      "ratio_buckets",
      [](const py::array& a, const py::array& b, const std::string& zeros, const std::string& quantiser, bool is_signed,
         unsigned elem_bytes) {
        const RatioOptions o = ratio_options(zeros, quantiser, is_signed, elem_bytes);
        const RatioLayout L(o);
        const auto* pa = column<std::uint64_t>(a, "a");
        const auto n = static_cast<std::size_t>(a.shape(0));
        const auto* pb = column<std::uint64_t>(b, "b", n);
        const std::uint64_t mask = low_mask(8 * elem_bytes);
        py::array_t<std::uint16_t> out(static_cast<py::ssize_t>(n));
        auto* dst = out.mutable_data();
        for (std::size_t i = 0; i < n; ++i) {
          if ((pa[i] & ~mask) || (pb[i] & ~mask)) throw py::value_error("values exceed elem_bytes");
          dst[i] = static_cast<std::uint16_t>(L.bucket(pa[i], pb[i], o));
        }
        return out;
      },
      py::arg("a").noconvert(), py::arg("b").noconvert(), py::arg("zeros") = "buckets", py::arg("quantiser") = "floor",
      py::arg("signed") = false, py::arg("elem_bytes") = 1, "Bucket of every (target a, base b) pair.");

  m.def(
      "ratio_counts",
      [](const py::array& blocks, const std::string& zeros, const std::string& quantiser, bool is_signed,
         unsigned elem_bytes, const py::object& threads) {
        const RatioOptions o = ratio_options(zeros, quantiser, is_signed, elem_bytes);
        const BlockView v = block_view(blocks);
        const int t = thread_count(threads);
        RatioCounts rc(v.block_bytes, o);
        {
          py::gil_scoped_release nogil;
          rc.add(v, t);
        }
        const auto n = static_cast<py::ssize_t>(rc.positions());
        py::array_t<std::uint64_t> out({n, n, static_cast<py::ssize_t>(rc.buckets())});
        std::copy(rc.counts().begin(), rc.counts().end(), out.mutable_data());
        return out;
      },
      py::arg("blocks").noconvert(), py::arg("zeros") = "buckets", py::arg("quantiser") = "floor",
      py::arg("signed") = false, py::arg("elem_bytes") = 1, py::arg("threads") = py::none(),
      "Joint counts (n, n, K) of the ratio bucket of every (target i, base j) pair; add to merge.");

  m.def(
      "ratio_entropy_matrix",
      [](const py::array& counts, const std::string& zeros) {
        const RatioOptions o = ratio_options(zeros, "floor", false, 1);
        if (counts.ndim() != 3 || counts.shape(0) != counts.shape(1))
          throw py::value_error("counts must have shape (n, n, buckets)");
        const auto n = counts.shape(0), K = counts.shape(2);
        if (K < 4) throw py::value_error("counts need at least 4 buckets");
        const auto* c = typed<std::uint64_t>(counts, "counts", {n, n, K});
        py::array_t<double> out({n, n});
        double* dst = out.mutable_data();
        {
          py::gil_scoped_release nogil;
          ratio_entropy_matrix(c, static_cast<std::size_t>(n), static_cast<unsigned>(K), o.zeros, dst);
        }
        return out;
      },
      py::arg("counts").noconvert(), py::arg("zeros") = "buckets", "RE(i target, j base) in bits; diagonal 0.");

  m.def(
      "mpc_classify",
      [](const py::array& blocks, const py::object& threads) {
        const BlockView v = block_view(blocks);
        if (v.block_bytes != 32)
          throw py::value_error("guess_dtype and MPC classes need 32 B blocks, got " + std::to_string(v.block_bytes) +
                                " B; use memcomp.sectorize(blocks, 32)");
        const int t = thread_count(threads);
        py::array_t<std::int8_t> group(static_cast<py::ssize_t>(v.n_blocks)),
            special(static_cast<py::ssize_t>(v.n_blocks));
        std::int8_t *g = group.mutable_data(), *s = special.mutable_data();
        {
          py::gil_scoped_release nogil;
          classify_blocks(v, g, s, t);
        }
        return py::make_tuple(group, special);
      },
      py::arg("blocks").noconvert(), py::arg("threads") = py::none(),
      "(group 0..4 by guess_dtype, special class 0 all-zero / 1 all-words-same / -1) per 32 B block.");

  m.def(
      "mpc_edge_weights",
      [](const py::array& re, const std::string& how) {
        if (re.ndim() != 2) throw py::value_error("re must be an (n, n) matrix");
        const auto n = re.shape(0);
        const auto* r = typed<double>(re, "re", {n, n});
        EdgeWeight w;
        if (how == "mean")
          w = EdgeWeight::mean;
        else if (how == "cal22")
          w = EdgeWeight::cal22;
        else
          throw py::value_error("weight must be 'mean' or 'cal22', got '" + how + "'");
        auto out = edge_weights(r, static_cast<std::size_t>(n), w);
        return to_numpy(std::move(out)).reshape({n, n});
      },
      py::arg("re").noconvert(), py::arg("weight") = "mean");

  m.def(
      "mpc_mst",
      [](const py::array& w) {
        if (w.ndim() != 2 || w.shape(0) < 2) throw py::value_error("weights must be an (n, n) matrix, n >= 2");
        const auto n = w.shape(0);
        const auto* p = typed<double>(w, "weights", {n, n});
        const auto edges = kruskal_mst(p, static_cast<std::size_t>(n));
        py::array_t<int> out({static_cast<py::ssize_t>(edges.size()), py::ssize_t{2}});
        for (std::size_t k = 0; k < edges.size(); ++k) {
          out.mutable_at(static_cast<py::ssize_t>(k), 0) = edges[k].u;
          out.mutable_at(static_cast<py::ssize_t>(k), 1) = edges[k].v;
        }
        return out;
      },
      py::arg("weights").noconvert(), "Kruskal MST edges (u < v) in the order taken; ties by (w, u, v).");

  m.def(
      "mpc_orient",
      [](const py::array& edges, std::size_t n, const py::object& byte_entropy) {
        if (n < 2) throw py::value_error("n must be at least 2");
        const auto e = edges_of(edges, n);
        const double* h = nullptr;
        py::array hb;
        if (!byte_entropy.is_none()) {
          hb = byte_entropy.cast<py::array>();
          h = column<double>(hb, "byte_entropy", n);
        }
        const Tree t = orient_tree(e, n, h);
        py::dict d;
        d["root"] = t.root;
        d["height"] = t.height;
        d["base"] = t.base;
        d["depth"] = t.depth;
        return d;
      },
      py::arg("edges").noconvert(), py::arg("n"), py::arg("byte_entropy") = py::none(),
      "Root (minimum height, then highest byte entropy, then lowest index) and parents.");

  m.def(
      "mpc_shifts",
      [](const py::array& counts, int root, const std::vector<int>& base, const std::string& zeros,
         const std::string& quantiser, bool is_signed) {
        const RatioOptions o = ratio_options(zeros, quantiser, is_signed, 1);
        const RatioLayout L(o);
        if (counts.ndim() != 3) throw py::value_error("counts must have shape (n, n, buckets)");
        const auto n = counts.shape(0);
        const auto* c = typed<std::uint64_t>(counts, "counts", {n, n, static_cast<py::ssize_t>(L.buckets)});
        if (base.size() != static_cast<std::size_t>(n)) throw py::value_error("base needs n entries");
        std::vector<int> shift(static_cast<std::size_t>(n), 0);
        for (py::ssize_t j = 0; j < n; ++j) {
          const int b = base[static_cast<std::size_t>(j)];
          if (j == root) continue;
          if (b < 0 || b >= n || b == j) throw py::value_error("bad base of position " + std::to_string(j));
          shift[static_cast<std::size_t>(j)] = modal_shift(
              c + (static_cast<std::size_t>(j) * static_cast<std::size_t>(n) + static_cast<std::size_t>(b)) * L.buckets,
              L, o);
        }
        return shift;
      },
      py::arg("counts").noconvert(), py::arg("root"), py::arg("base"), py::arg("zeros") = "buckets",
      py::arg("quantiser") = "floor", py::arg("signed") = false, "Modal shift of every (target, base) pair.");

  m.def(
      "mpc_xor_planes",
      [](const py::array& blocks, int root, const std::vector<int>& base, const std::vector<int>& shift) {
        const BlockView v = block_view(blocks);
        if (v.block_bytes != 32) throw py::value_error("MPC needs 32 B blocks");
        const MpcPredictor p = predictor(root, base, shift);
        py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(v.n_blocks), py::ssize_t{8}, py::ssize_t{32}});
        auto* dst = out.mutable_data();
        {
          py::gil_scoped_release nogil;
          for (std::size_t b = 0; b < v.n_blocks; ++b) {
            const auto x = mpc_xor_planes(v.block(b), p);
            for (std::size_t c = 0; c < 256; ++c)
              dst[b * 256 + c] = static_cast<std::uint8_t>((x[c / 64] >> (c % 64)) & 1u);
          }
        }
        return out;
      },
      py::arg("blocks").noconvert(), py::arg("root"), py::arg("base"), py::arg("shift"),
      "X[p][c] of SPEC 1.12 (transform steps 1-4) per block, shape (n, 8, 32).");

  m.def(
      "mpc_cell_zeros",
      [](const py::array& blocks, int root, const std::vector<int>& base, const std::vector<int>& shift,
         const py::object& threads) {
        const BlockView v = block_view(blocks);
        if (v.block_bytes != 32) throw py::value_error("MPC needs 32 B blocks");
        const MpcPredictor p = predictor(root, base, shift);
        const int t = thread_count(threads);
        CellZeroStats s;
        {
          py::gil_scoped_release nogil;
          s.add(v, p, t);
        }
        py::array_t<std::uint64_t> zeros(256), co({py::ssize_t{256}, py::ssize_t{256}});
        std::copy(s.zeros().begin(), s.zeros().end(), zeros.mutable_data());
        std::copy(s.co_zeros().begin(), s.co_zeros().end(), co.mutable_data());
        return py::make_tuple(zeros, co);
      },
      py::arg("blocks").noconvert(), py::arg("root"), py::arg("base"), py::arg("shift"),
      py::arg("threads") = py::none(), "(zeros[256], co_zeros[256, 256]) of the XORed cells 32p + c; add to merge.");

  m.def(
      "mpc_greedy_scan",
      [](const py::array& zeros, const py::array& co) {
        const auto* z = column<std::uint64_t>(zeros, "zeros", 256);
        const auto* c = typed<std::uint64_t>(co, "co_zeros", {256, 256});
        return greedy_scan(z, c);
      },
      py::arg("zeros").noconvert(), py::arg("co_zeros").noconvert(), "The 256 cells 32p + c in scan order.");
}

}  // namespace memcomp::bindings
