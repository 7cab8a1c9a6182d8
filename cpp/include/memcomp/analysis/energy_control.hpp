// memcomp analysis: Energy Control (EC), the per-block compressed-or-raw decision (SPEC 2; P2 =
// toggle-aware compression, HPCA'16, §4.2, with the bus of §5.1-§5.3).
//
// Two engines give the same result, bit for bit: the per-block reference (ec_reference.cpp) and
// the sequential scan (ec_scan.cpp, with its run kernels in ec_run_kernels.cpp); EcPath picks one.
#pragma once
#include <cstddef>
#include <cstdint>

#include "memcomp/analysis/bus.hpp"
#include "memcomp/analysis/bus_config.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/core/options.hpp"

namespace memcomp {

/// The compression ratio EC weighs (P2 §4.2): `units`, the effective bandwidth increase (raw
/// transfer units / compressed units, at most 4 for 128 B in 32 B flits or bursts; P2 §6 "compression
/// ratio, defined as the effective bandwidth increase"), or `bits` (8B / compressed bits), which
/// lets EC1 and EC2 differ where whole bursts leave CR at a few values.
enum class EcRatio : std::uint8_t { units, bits };

/// Which implementation runs EC (every one gives the same result, bit for bit).
///   best       the sequential scan (one pass over the blocks in order, the state a pointer to the
///              unit last sent; runs of blocks that are sent raw whatever the state counted as one
///              stream), with SIMD kernels where the CPU has them; with SIMD switched off
///              (set_simd(false), MEMCOMP_SIMD=0) the reference, as every fast path's switch does
///   portable   the sequential scan with portable kernels only
///   reference  the per-block reference: both forms of every block prepared, decided under both
///              candidate states, then a scan picks the decision that held
/// The scan covers buses without DBI (and streams shorter than 2^31 bits); elsewhere every choice
/// runs the reference.
enum class EcPath : std::uint8_t { best, portable, reference };

struct EcConfig {
  unsigned k = 2;      ///< 1: ec1 (energy x delay); 2: ec2 (energy x delay^2); 0: no energy term (CR > 1)
  double alpha = 1.0;  ///< weight of T1
  EcRatio ratio = EcRatio::units;
  EcPath path = EcPath::best;
};

/// Energy Control's settings as options, declared once (parse, defaults, domains and help):
/// kind ("ec1", "ec2", "helps": k = 1, 2, 0), alpha and ratio. BU is a per-block input, not an option.
const OptionTable<EcConfig>& ec_table();
/// An EcConfig from options (absent ones at their defaults); invalid_argument for an alpha that
/// is not a finite number > 0.
EcConfig ec_config(const Options& o);

/// g = 1 / (1 - BU) for BU > 0.5 (BU clamped to <= 0.99), else 1. Throws for BU outside [0, 1].
double ec_gain(double bu);
/// Send compressed iff CR > 1 and (T1 == 0 or (g*CR)^k * T0 > alpha * T1); k = 0: iff CR > 1 (P2's
/// baseline, "compress only where it helps": no energy term).
bool ec_decide(double t0, double t1, double cr, double g, unsigned k, double alpha);

struct EcBlock {
  std::uint8_t compressed = 0;  ///< the EC flag (one side-band tag bit)
  double cr = 0;                ///< the EcRatio of the block (inf for an empty compressed form)
  BusCounts raw, comp;          ///< both forms from the same wire state (T0 = raw.energy)
};

struct EcTotals {
  std::uint64_t blocks = 0, compressed = 0;
  std::uint64_t raw_bits = 0, sent_bits = 0;    ///< in-band bits, 8B per raw block
  std::uint64_t raw_units = 0, sent_units = 0;  ///< flits or bursts
  BusTotals sent;                               ///< counts of the forms actually sent
};

/// Per-block EC output columns (null: not wanted); `sent` gets the counts of the form sent.
struct EcColumns {
  std::uint8_t* compressed = nullptr;
  double* cr = nullptr;
  std::uint32_t* t0 = nullptr;
  std::uint32_t* t1 = nullptr;
  std::uint32_t* units_raw = nullptr;
  std::uint32_t* units_comp = nullptr;
  std::uint32_t* bits_comp = nullptr;
  BusColumns sent;
};

/// Energy Control over blocks and their compressed streams (same count, same order). bu has 1
/// entry (a scalar) or one per block. The wire state advances with the form sent.
EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, EcBlock* out, bool close);
EcTotals energy_control(const BusConfig& c, const EcConfig& ec, const BlockView& raw, const StreamsView& comp,
                        const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close);

namespace detail {
/// The EC scan's kernel over a run of raw blocks sent back to back, for tests: adds to tog the
/// toggles between bytes u apart and to ones the ones of the bytes after the first u, over
/// d[0, len) (len >= u). isa: 0 portable, 1 AVX2, 2 AVX-512 VPOPCNTDQ; false (nothing added)
/// where the CPU or the build lacks it.
bool ec_run_kernel(unsigned isa, const std::uint8_t* d, std::size_t len, std::size_t u, std::uint64_t& tog,
                   std::uint64_t& ones);
}  // namespace detail

}  // namespace memcomp
