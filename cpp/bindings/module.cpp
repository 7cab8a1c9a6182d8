// memcomp bindings: the _core extension module. Each area registers itself here.
#include <utility>

#include "common.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/memory.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp::bindings {
void register_codecs(py::module_& m);
void register_metrics(py::module_& m);
void register_entropy(py::module_& m);
void register_mpc(py::module_& m);
void register_toggles(py::module_& m);
}  // namespace memcomp::bindings

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  m.doc() = "memcomp C++ core (codecs, analyses); use the memcomp package, not this module";
  py::register_exception<memcomp::corrupt_stream>(m, "CorruptStreamError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {  // before invalid_argument's ValueError
    try {
      if (p) std::rethrow_exception(std::move(p));
    } catch (const memcomp::type_error& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    }
  });
  memcomp::bindings::register_codecs(m);
  memcomp::bindings::register_metrics(m);
  memcomp::bindings::register_entropy(m);
  memcomp::bindings::register_mpc(m);
  memcomp::bindings::register_toggles(m);
  m.def("set_simd", &memcomp::set_simd, py::arg("enabled"),
        "Turns the SIMD fast paths on (default, where the CPU has them; the tier set before) or off (the scalar "
        "reference, as MEMCOMP_SIMD=0).");
  m.def("simd_enabled", &memcomp::simd_enabled, "False after set_simd(False) or with MEMCOMP_SIMD=0.");
  m.def("simd_avx2", &memcomp::simd_avx2, "True when the SIMD tier is avx2 or avx512 (simd_tier()).");
  m.def("simd_avx512", &memcomp::simd_avx512,
        "True when the SIMD tier is avx512 (the CPU has AVX-512 F/BW/VL/DQ/VBMI/BITALG/VPOPCNTDQ and GFNI, "
        "SIMD on, not held to AVX2).");
  m.def("set_simd_avx512", &memcomp::set_simd_avx512, py::arg("enabled"),
        "Lets the AVX-512 tier run (default) or holds every fast path to AVX2 at most (as MEMCOMP_SIMD=avx2).");
  m.def(
      "simd_tier", [] { return std::string(memcomp::simd_tier_name(memcomp::simd_tier())); },
      "The SIMD tier the kernels run: 'scalar', 'avx2' or 'avx512' ('scalar' after set_simd(False)).");
  m.def(
      "simd_tier_supported", [] { return std::string(memcomp::simd_tier_name(memcomp::simd_tier_supported())); },
      "The highest SIMD tier this CPU has: 'scalar', 'avx2' or 'avx512'.");
  m.def(
      "set_simd_tier",
      [](const std::string& tier) {
        for (const auto t : {memcomp::SimdTier::scalar, memcomp::SimdTier::avx2, memcomp::SimdTier::avx512})
          if (tier == memcomp::simd_tier_name(t)) return memcomp::set_simd_tier(t);
        throw memcomp::invalid_argument("SIMD tier '" + tier +
                                        "' is none of scalar, avx2, avx512 (this CPU has up to " +
                                        memcomp::simd_tier_name(memcomp::simd_tier_supported()) + ")");
      },
      py::arg("tier"),
      "Runs the kernels of a SIMD tier, 'scalar', 'avx2' or 'avx512' (every tier gives the same bits), and "
      "turns the fast paths on; ValueError for a tier above simd_tier_supported(). 'scalar' keeps the "
      "portable shortcuts; set_simd(False) is the whole scalar reference.");
  m.def("release_buffers", &memcomp::release_buffers,
        "Returns the large output buffers kept for reuse (up to 512 MiB) to the system.");
}
