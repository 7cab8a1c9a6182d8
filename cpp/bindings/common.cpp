// memcomp bindings: shared conversions.
#include "common.hpp"

namespace memcomp::bindings {

BlockView block_view(const py::array& a, const char* what) {
  if (!has_dtype<std::uint8_t>(a))
    throw py::type_error(std::string(what) + " must have dtype uint8, got " + std::string(py::str(a.dtype())) +
                         "; reinterpret the bytes with memcomp.as_blocks(array, block_bytes)");
  if (a.ndim() != 2)
    throw py::value_error(std::string(what) + " must be 2-D (n_blocks, block_bytes), got " + std::to_string(a.ndim()) +
                          "-D; use memcomp.as_blocks(array, block_bytes)");
  if (!(a.flags() & py::array::c_style))
    throw py::value_error(std::string(what) +
                          " must be C-contiguous; copy explicitly with np.ascontiguousarray if you mean to");
  const auto b = static_cast<std::size_t>(a.shape(1));
  check_block_bytes(b);
  return BlockView{static_cast<const std::uint8_t*>(a.data()), static_cast<std::size_t>(a.shape(0)), b};
}

namespace {

std::string type_name(py::handle v) { return py::str(py::type::handle_of(v).attr("__name__")); }

/// The NumPy dtype kind of a NumPy scalar ('b', 'i', 'u', 'f', ...), '\0' for anything else.
char numpy_kind(py::handle v) {
  if (!py::hasattr(v, "dtype") || py::isinstance<py::array>(v)) return '\0';
  const std::string k = py::str(v.attr("dtype").attr("kind"));
  return k.size() == 1 ? k[0] : '\0';
}

bool is_bool(py::handle v) { return PyBool_Check(v.ptr()) || numpy_kind(v) == 'b'; }

/// `v` as a C++ integer if it is a Python or NumPy integer (not a bool), else false; ValueError
/// naming `what` if it does not fit in 64 bits.
bool index_value(py::handle v, const std::string& what, long long& out) {
  if (is_bool(v) || !(PyLong_Check(v.ptr()) || numpy_kind(v) == 'i' || numpy_kind(v) == 'u')) return false;
  const py::int_ i = py::reinterpret_borrow<py::object>(v);
  int overflow = 0;
  out = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow) throw py::value_error(what + " is out of range: " + std::string(py::str(i)));
  return true;
}

}  // namespace

Options to_options(const py::dict& d) {
  Options o;
  for (auto item : d) {
    if (!py::isinstance<py::str>(item.first))
      throw py::type_error("option names must be str, got " + type_name(item.first));
    const std::string key = py::cast<std::string>(item.first);
    py::handle v = item.second;
    long long iv = 0;
    if (is_bool(v))
      o[key] = PyObject_IsTrue(v.ptr()) == 1;
    else if (index_value(v, "option '" + key + "'", iv))
      o[key] = static_cast<std::int64_t>(iv);
    else if (PyFloat_Check(v.ptr()) || numpy_kind(v) == 'f')
      o[key] = PyFloat_AsDouble(py::float_(py::reinterpret_borrow<py::object>(v)).ptr());
    else if (py::isinstance<py::str>(v))
      o[key] = v.cast<std::string>();
    else
      throw py::type_error("option '" + key + "' must be a bool, int, float or str, got " + type_name(v));
  }
  return o;
}

py::dict from_options(const Options& o) {
  py::dict d;
  for (const auto& kv : o) std::visit([&](const auto& x) { d[py::str(kv.first)] = x; }, kv.second);
  return d;
}

py::dict option_space_dict(const OptionSpace& space) {
  py::dict out;
  for (const auto& [key, d] : space) {
    py::dict e;
    e["kind"] = d.kind;
    std::visit([&](const auto& x) { e["default"] = x; }, d.dflt);
    if (d.kind == "int") {
      e["lo"] = static_cast<std::int64_t>(d.lo);
      e["hi"] = static_cast<std::int64_t>(d.hi);
      if (!d.choices.empty()) {  // only these values
        py::list values;
        for (const std::string& c : d.choices) values.append(std::stoll(c));
        e["values"] = values;
      }
    } else if (d.kind == "float") {
      e["lo"] = d.lo;
      e["hi"] = d.hi;
    }
    if (d.kind == "choice") e["choices"] = d.choices;
    e["help"] = d.help;
    out[py::str(key)] = e;
  }
  return out;
}

int thread_count(const py::object& threads) {
  if (threads.is_none()) return 0;
  long long t = 0;
  if (!index_value(threads, "threads", t))
    throw py::type_error("threads must be None or a positive int, got " + type_name(threads));
  if (t < 1 || t > 4096) throw py::value_error("threads must be None or an int in [1, 4096], got " + std::to_string(t));
  return static_cast<int>(t);
}

}  // namespace memcomp::bindings
