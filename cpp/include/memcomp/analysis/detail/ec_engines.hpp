// memcomp analysis internals: what the two Energy Control engines share (SPEC 2; P2 =
// toggle-aware compression, HPCA'16, §4.2): the decision rule, the footprint of a transfer, and
// the engines' entry points. energy_control() (energy_control.cpp) checks the inputs and picks
// the engine: the per-block reference (ec_reference.cpp) or the sequential scan (ec_scan.cpp,
// whose run kernels are in ec_run_kernels.cpp). Both give the same result, bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "memcomp/analysis/bus.hpp"
#include "memcomp/analysis/bus_config.hpp"
#include "memcomp/analysis/detail/bus_kernels.hpp"
#include "memcomp/analysis/energy_control.hpp"
#include "memcomp/core/blocks.hpp"

namespace memcomp::detail::ec {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// (g CR)^k, the weight of T0 in the decision; k = 0 (no energy term) weighs T0 without bound.
MEMCOMP_INLINE double ec_factor(double cr, double g, unsigned k) {
  if (k == 0) return kInf;
  const double gcr = g * cr;
  double f = gcr;
  for (unsigned i = 1; i < k; ++i) f *= gcr;
  return f;
}

/// The decision with the weight f = ec_factor(CR, g, k) and cr_ok = CR > 1. An unbounded weight
/// (k = 0, P2's baseline) decides on CR alone, whatever T0 and T1 (for k = 1, 2 f is finite, or
/// infinite only for an empty compressed form, whose T1 is 0).
MEMCOMP_INLINE bool ec_prefers(bool cr_ok, double f, double t0, double t1, double alpha) {
  return cr_ok && (t1 == 0.0 || f == kInf || f * t0 > alpha * t1);
}

/// Blocks per run (the engines' unit of per-block scratch).
inline constexpr std::size_t kEcRun = 256;

/// log2(d) for a power of two, else -1.
inline int shift_of(std::uint64_t d) {
  int sh = 0;
  while ((std::uint64_t{1} << sh) < d) ++sh;
  return (std::uint64_t{1} << sh) == d ? sh : -1;
}
/// x / d, by a shift when d is a power of two (sh = shift_of(d) >= 0).
MEMCOMP_INLINE std::uint64_t div_by(std::uint64_t x, std::uint64_t d, int sh) { return sh >= 0 ? x >> sh : x / d; }

/// The wire units a transfer of nbits stream bits takes: `full` whole beats of w bits, `beats`
/// beats in all (a DRAM transfer rounded up to whole bursts) and `units` (bursts, or flits).
struct Footprint {
  std::uint64_t full, beats;
  std::uint32_t units;
};
MEMCOMP_INLINE Footprint footprint(std::uint64_t nbits, std::uint64_t w, int wsh, bool dram, unsigned burst, int bsh) {
  Footprint f{div_by(nbits, w, wsh), div_by(nbits + w - 1, w, wsh), 0};
  if (dram) {
    const std::uint64_t bursts = div_by(f.beats + burst - 1, burst, bsh);
    f.units = static_cast<std::uint32_t>(bursts);
    f.beats = bursts * burst;
  } else {
    f.units = static_cast<std::uint32_t>(f.beats);
  }
  return f;
}

/// True when the columns ask for more than the decisions.
inline bool wants_counts(const EcColumns& o) {
  bool any = o.cr || o.t0 || o.t1 || o.units_raw || o.units_comp || o.bits_comp;
#define MEMCOMP_EC_ANY(f) any = any || o.sent.f;
  MEMCOMP_BUS_FIELDS(MEMCOMP_EC_ANY)
#undef MEMCOMP_EC_ANY
  return any;
}

/// The scan's run kernel: tog += popcount(d[p] ^ d[p+u]) and ones += popcount(d[p+u]) over p in
/// [0, len - u) (the toggles and ones of the units after the first).
using RunFn = void (*)(const std::uint8_t*, std::size_t, std::size_t, std::uint64_t&, std::uint64_t&);
/// The run kernel of a path (ec_run_kernels.cpp): with PopFast's popcount (fast_pop) or the
/// portable one; SIMD (AVX-512 VPOPCNTDQ, else AVX2) only if `simd` and the CPU and the switch allow.
RunFn run_kernel(bool fast_pop, bool simd);

/// The per-block reference (ec_reference.cpp); gain: g per block, or one for all.
EcTotals ec_reference(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                      const std::vector<double>& gain, WireState& s, bool close, EcBlock* blocks,
                      const EcColumns* cols);
/// The sequential scan (ec_scan.cpp), without DBI; shortest: the shortest compressed stream.
EcTotals ec_scan(const BusConfig& c, const EcConfig& ec, bool simd, std::uint32_t shortest, const BlockView& raw,
                 const StreamsView& comp, const std::vector<double>& gain, WireState& s, bool close, EcBlock* blocks,
                 const EcColumns* cols);

}  // namespace memcomp::detail::ec
