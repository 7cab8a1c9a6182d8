// memcomp bindings: shared conversions.
#include "common.hpp"

namespace memcomp::bindings {

BlockView block_view(const py::array& a, const char* what) {
  if (!has_dtype<std::uint8_t>(a))
    throw py::type_error(std::string(what) + " must have dtype uint8, got " + std::string(py::str(a.dtype())) +
                         "; reinterpret the bytes with memcomp.as_blocks(array, block_bytes)");
  if (a.ndim() != 2)
    throw py::value_error(std::string(what) + " must be 2-D (n_blocks, block_bytes), got " +
                          std::to_string(a.ndim()) + "-D; use memcomp.as_blocks(array, block_bytes)");
  if (!(a.flags() & py::array::c_style))
    throw py::value_error(std::string(what) +
                          " must be C-contiguous; copy explicitly with np.ascontiguousarray if you mean to");
  const auto b = static_cast<std::size_t>(a.shape(1));
  check_block_bytes(b);
  return BlockView{static_cast<const std::uint8_t*>(a.data()), static_cast<std::size_t>(a.shape(0)), b};
}

Options to_options(const py::dict& d) {
  Options o;
  for (auto item : d) {
    const std::string key = py::cast<std::string>(item.first);
    py::handle v = item.second;
    if (py::isinstance<py::bool_>(v))
      o[key] = v.cast<bool>();
    else if (py::isinstance<py::int_>(v))
      o[key] = v.cast<std::int64_t>();
    else if (py::isinstance<py::float_>(v))
      o[key] = v.cast<double>();
    else if (py::isinstance<py::str>(v))
      o[key] = v.cast<std::string>();
    else
      throw py::type_error("option '" + key + "' must be a bool, int, float or str, got " +
                           std::string(py::str(py::type::handle_of(v).attr("__name__"))));
  }
  return o;
}

py::dict from_options(const Options& o) {
  py::dict d;
  for (const auto& kv : o) std::visit([&](const auto& x) { d[py::str(kv.first)] = x; }, kv.second);
  return d;
}

int thread_count(const py::object& threads) {
  if (threads.is_none()) return 0;
  if (py::isinstance<py::bool_>(threads) || !py::isinstance<py::int_>(threads))
    throw py::type_error("threads must be None or a positive int");
  const auto t = threads.cast<long long>();
  if (t < 1 || t > 4096) throw py::value_error("threads must be None or a positive int, got " + std::to_string(t));
  return static_cast<int>(t);
}

}  // namespace memcomp::bindings
