// memcomp bindings: NumPy <-> core conversions shared by the register_* files. Input arrays are
// never converted: a wrong dtype, shape or layout raises TypeError/ValueError with what to do.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "memcomp/core/blocks.hpp"
#include "memcomp/core/memory.hpp"
#include "memcomp/core/options.hpp"
#include "memcomp/stats/size_totals.hpp"

namespace memcomp::bindings {

namespace py = pybind11;

/// A (n, B) C-contiguous uint8 ndarray as a BlockView (no copy). `what` names the argument.
BlockView block_view(const py::array& a, const char* what = "blocks");

/// True if `a` holds exactly T in native byte order. Dtypes are compared by value: equal dtype
/// objects are not always the same object (an unpickled array's, an .npz member's).
template <class T>
bool has_dtype(const py::array& a) {
  return py::isinstance<py::array_t<T>>(a) && a.dtype().normalized_num() == py::dtype::of<T>().normalized_num();
}

/// A 1-D C-contiguous ndarray of exactly dtype T, with `n` entries unless n == SIZE_MAX.
template <class T>
const T* column(const py::array& a, const char* what, std::size_t n = static_cast<std::size_t>(-1)) {
  if (!has_dtype<T>(a))
    throw py::type_error(std::string(what) + " must be a NumPy array of dtype " +
                         std::string(py::str(py::dtype::of<T>())) + ", got " + std::string(py::str(a.dtype())));
  if (a.ndim() != 1) throw py::value_error(std::string(what) + " must be 1-D");
  if (!(a.flags() & py::array::c_style)) throw py::value_error(std::string(what) + " must be C-contiguous");
  if (n != static_cast<std::size_t>(-1) && static_cast<std::size_t>(a.shape(0)) != n)
    throw py::value_error(std::string(what) + " must have " + std::to_string(n) + " entries, got " +
                          std::to_string(a.shape(0)));
  return static_cast<const T*>(a.data());
}

/// An uninitialised C-contiguous array on memcomp's batch buffers (memory.hpp: huge pages, and
/// large buffers reused once freed), for outputs the core writes in full.
template <class T>
py::array_t<T> output_array(std::initializer_list<py::ssize_t> shape) {
  std::size_t n = 1;
  for (auto d : shape) n *= static_cast<std::size_t>(d);
  void* p = alloc_buffer(n * sizeof(T));
  py::capsule owner;
  try {
    owner = py::capsule(p, [](void* q) { free_buffer(q); });
  } catch (...) {
    free_buffer(p);
    throw;
  }
  return py::array_t<T>(std::vector<py::ssize_t>(shape), static_cast<T*>(p), owner);
}

/// Moves a vector into a 1-D NumPy array without copying its data.
template <class T, class A>
py::array_t<T> to_numpy(std::vector<T, A>&& v) {
  auto* heap = new std::vector<T, A>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T, A>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(heap->size())}, {static_cast<py::ssize_t>(sizeof(T))}, heap->data(),
                        owner);
}

Options to_options(const py::dict& d);
py::dict from_options(const Options& o);
/// An option table's domains as Python sees them: per key its kind, default, lo/hi (numbers),
/// values (an int taking only some), choices and help.
py::dict option_space_dict(const OptionSpace& space);

/// threads: None -> all hardware threads (0), else a positive int.
int thread_count(const py::object& threads);

/// SizeTotals as (hist, rows of (mode, blocks, payload, meta, header, tag bits), tag bits).
py::tuple totals_tuple(SizeTotals&& s);

}  // namespace memcomp::bindings
