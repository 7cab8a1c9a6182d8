// memcomp stats: report policies of the metrics layer (SPEC 0.5, 0.6; P1 §V for MAG), below
// both layers that use them (the metrics, and hybrid codecs that pick a member by charged size).
// A policy turns a block's in-band bits into the bits it is charged: first an optional
// fallback (`cap`, `threshold(f)`), then an optional rounding (`bytes`, `segments(s)`,
// `mag(M[,u_min])`, `pow2([fmax])`). Codecs never round; only this layer does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace memcomp {

struct Policy {
  enum class Fallback : std::uint8_t { none, cap, threshold };
  enum class Rounding : std::uint8_t { none, bytes, segments, mag, pow2 };

  Fallback fallback = Fallback::none;
  double threshold = 1.0;  ///< threshold(f): 8B when bits > f * 8B
  Rounding rounding = Rounding::none;
  unsigned segment_bytes = 8;  ///< segments(s)
  unsigned mag_bytes = 32;     ///< mag(M)
  unsigned u_min = 1;          ///< mag(M, u_min): minimum bursts charged per block
  unsigned fmax = 4;           ///< pow2(fmax)

  /// Parses "none", "cap", "threshold(0.5)", "bytes", "segments(8)", "mag(32)", "mag(32,0)",
  /// "pow2", "pow2(8)" and a fallback joined to a rounding with '+', e.g. "cap+mag(32)".
  static Policy parse(std::string_view spec);
  /// Canonical spelling, parse(str()) == *this.
  std::string str() const;
  /// Tag bits the policy itself adds per block (`cap` keeps a 1-bit raw flag in the tags).
  unsigned extra_tag_bits() const noexcept { return fallback == Fallback::cap ? 1u : 0u; }
  /// Bits charged for a block of block_bytes bytes with `bits` in-band bits (tags excluded).
  std::uint64_t charge(std::uint64_t bits, std::size_t block_bytes) const;
};

/// gem5's compression factor (SPEC 0.6 `pow2`): fmax for 0 bits, 1 above 8B bits, otherwise
/// min(fmax, nextpow2(floor(8B / bits))) -- the floor-then-round-up quirk of gem5 Multi.
std::uint64_t pow2_factor(std::uint64_t bits, std::size_t block_bytes, unsigned fmax);

/// out[i] = policy.charge(bits[i], block_bytes) for i < n.
void charge_all(const Policy& policy, const std::uint32_t* bits, std::size_t n, std::size_t block_bytes,
                std::uint64_t* out);

}  // namespace memcomp
