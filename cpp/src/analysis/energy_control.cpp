// memcomp analysis: Energy Control, the per-block compressed-or-raw decision (SPEC 2; P2 =
// toggle-aware compression, HPCA'16, §4.2): send compressed iff CR > 1 and (T1 == 0 or
// (g*CR)^k * T0 > alpha * T1). This file checks the inputs and picks the engine (the per-block
// reference, ec_reference.cpp, or the sequential scan, ec_scan.cpp): both give the same result.
#include "memcomp/analysis/energy_control.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "memcomp/analysis/detail/bus_kernels.hpp"
#include "memcomp/analysis/detail/ec_engines.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {

const OptionTable<EcConfig>& ec_table() {
  using C = EcConfig;
  static const OptionTable<C> t{
      option_choice("kind", &C::k, "ec2", {{"ec1", 1u}, {"ec2", 2u}, {"helps", 0u}},
                    "'ec1' (energy x delay), 'ec2' (energy x delay^2) or 'helps' (P2's baseline: compressed iff "
                    "CR > 1, no energy term)"),
      option_float("alpha", &C::alpha, 1.0, 0.0, std::numeric_limits<double>::infinity(),
                   "weight of T1 in ec1/ec2's energy term, a finite number > 0.0"),
      option_choice("ratio", &C::ratio, "units", {{"units", EcRatio::units}, {"bits", EcRatio::bits}},
                    "CR's unit: 'units' (raw transfer units / compressed units: P2's effective bandwidth "
                    "increase) or 'bits' (8B / compressed bits)"),
  };
  return t;
}

EcConfig ec_config(const Options& o) {
  const EcConfig c = ec_table().parse(o, "energy_control");
  if (!(c.alpha > 0.0 && std::isfinite(c.alpha)))
    throw invalid_argument("alpha must be a finite number > 0.0, got " + std::to_string(c.alpha));
  return c;
}

double ec_gain(double bu) {
  if (!(bu >= 0.0 && bu <= 1.0)) throw invalid_argument("bandwidth utilisation must lie in [0, 1]");
  if (bu <= 0.5) return 1.0;
  return 1.0 / (1.0 - std::min(bu, 0.99));
}

bool ec_decide(double t0, double t1, double cr, double g, unsigned k, double alpha) {
  return detail::ec::ec_prefers(cr > 1.0, detail::ec::ec_factor(cr, g, k), t0, t1, alpha);
}

namespace {

using detail::bus::StreamBounds;

/// Checks the inputs; returns the bounds of the streams.
StreamBounds check_ec(const EcConfig& ec, const BlockView& raw, const StreamsView& comp, std::size_t bu_count) {
  if (comp.n_blocks != raw.n_blocks)
    throw invalid_argument("energy control needs one compressed stream per block: " + std::to_string(raw.n_blocks) +
                           " blocks, " + std::to_string(comp.n_blocks) + " streams");
  if (bu_count != 1 && bu_count != raw.n_blocks)
    throw invalid_argument("bu must be a scalar or have one entry per block");
  if (ec.k > 2) throw invalid_argument("energy control k must be 0 (no energy term), 1 (ec1) or 2 (ec2)");
  if (!(ec.alpha > 0.0) || !std::isfinite(ec.alpha)) throw invalid_argument("alpha must be a positive number");
  return detail::bus::checked_bounds(comp);
}

EcTotals run_energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                            const double* bu, std::size_t bu_count, WireState& s, bool close, EcBlock* blocks,
                            const EcColumns* cols) {
  const StreamBounds bounds = check_ec(ec, raw, comp, bu_count);
  c.validate();
  if (raw.n_blocks == 0) {  // nothing to send: a close returns the bus to idle from the state it is in
    EcTotals tot;
    if (close) tot.sent += Bus(c).close(s);
    return tot;
  }
  std::vector<double> gain(bu_count);
  for (std::size_t i = 0; i < bu_count; ++i) gain[i] = ec_gain(bu[i]);
  // The scan sums counts of 32 bits per block in 64 bits: streams shorter than 2^31 bits keep
  // every per-block count exact, as the reference's are.
  const bool scan = c.dbi == Dbi::none && bounds.longest < (1u << 31) &&
                    (ec.path == EcPath::portable || (ec.path == EcPath::best && simd_enabled()));
  if (scan)
    return detail::ec::ec_scan(c, ec, ec.path == EcPath::best, bounds.shortest, raw, comp, gain, s, close, blocks,
                               cols);
  return detail::ec::ec_reference(c, ec, raw, comp, gain, s, close, blocks, cols);
}

}  // namespace

EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, EcBlock* out, bool close) {
  return run_energy_control(c, ec, raw, comp, bu, bu_count, s, close, out, nullptr);
}

EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close) {
  return run_energy_control(c, ec, raw, comp, bu, bu_count, s, close, nullptr, out);
}

}  // namespace memcomp
