// memcomp analysis: data-bus inversion on the DRAM bus (SPEC 2 "DBI"; P2 = toggle-aware
// compression, HPCA'16, §5.3: DBI applies before Energy Control). One pin per 8-bit lane, asserted
// (the level opposite idle) when the lane is inverted; ties never invert.
//   dc  limited weight: invert iff zeros > 4 (idle high), or ones > 4 (idle low)
//   ac  bus invert: invert iff popcount(lane ^ lane as last driven) > ac_threshold (or, with
//       ac_count_pin, iff the inverted lane and its pin would make fewer transitions)
#include <cstring>

#include "memcomp/analysis/bus.hpp"
#include "memcomp/analysis/detail/bus_kernels.hpp"

namespace memcomp {

using detail::bus::kPop8;
using detail::bus::pop_generic;

std::uint32_t Bus::apply_dbi(const WireState& s, std::size_t nb) {
  const std::size_t u = c_.unit_bytes(), lanes = c_.lanes();
  const std::uint8_t asserted = c_.idle_high ? 0 : 1, deasserted = c_.idle_high ? 1 : 0;
  std::uint32_t inversions = 0;
  if (c_.dbi == Dbi::dc) {
    // Each lane is a byte and decides alone: eight lanes per 64-bit word. Per-byte popcounts c
    // (SWAR); idle high inverts iff c < 4 (zeros > 4), idle low iff c > 4.
    const std::size_t len = nb * u;
    const std::uint64_t bias = c_.idle_high ? 0x7C7C7C7C7C7C7C7Cull : 0x7B7B7B7B7B7B7B7Bull;
    std::size_t p = 0;
    for (; p + 8 <= len; p += 8) {
      std::uint64_t x;
      std::memcpy(&x, buf_.data() + p, 8);
      std::uint64_t c = x - ((x >> 1) & 0x5555555555555555ull);
      c = (c & 0x3333333333333333ull) + ((c >> 2) & 0x3333333333333333ull);
      c = (c + (c >> 4)) & 0x0F0F0F0F0F0F0F0Full;
      const std::uint64_t hi = ((c + bias) & 0x8080808080808080ull) >> 7;  // 1: c >= 4 (high), c >= 5 (low)
      const std::uint64_t inv = c_.idle_high ? hi ^ 0x0101010101010101ull : hi;
      x ^= inv * 0xFF;
      std::memcpy(buf_.data() + p, &x, 8);
      const std::uint64_t level = c_.idle_high ? hi : inv;  // pin level per lane: asserted = !idle
      std::memcpy(pins_.data() + p, &level, 8);
      inversions += static_cast<std::uint32_t>(pop_generic(inv));
    }
    for (; p < len; ++p) {
      const std::uint8_t x = buf_[p];
      const bool inv = c_.idle_high ? kPop8[x] < 4 : kPop8[x] > 4;
      if (inv) buf_[p] = static_cast<std::uint8_t>(~x);
      inversions += inv ? 1u : 0u;
      pins_[p] = inv ? asserted : deasserted;
    }
    return inversions;
  }
  for (std::size_t j = 0; j < nb; ++j) {
    std::uint8_t* beat = buf_.data() + j * u;
    const std::uint8_t* prev = j ? beat - u : s.wires.data();
    const std::uint8_t* prev_pin = j ? pins_.data() + (j - 1) * lanes : s.pins.data();
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::uint8_t x = beat[l];
      bool inv;
      if (c_.dbi == Dbi::dc) {
        inv = c_.idle_high ? kPop8[x] < 4 : kPop8[x] > 4;  // zeros > 4, or ones > 4
      } else if (j == 0 && s.idle && c_.ac_first_no_invert) {
        inv = false;
      } else {
        const unsigned d = kPop8[static_cast<std::uint8_t>(x ^ prev[l])];
        if (c_.ac_count_pin) {
          const unsigned plain = d + (prev_pin[l] != deasserted ? 1u : 0u);
          const unsigned flipped = 8 - d + (prev_pin[l] != asserted ? 1u : 0u);
          inv = flipped < plain;
        } else {
          inv = d > c_.ac_threshold;
        }
      }
      if (inv) beat[l] = static_cast<std::uint8_t>(~x);
      inversions += inv ? 1u : 0u;
      pins_[j * lanes + l] = inv ? asserted : deasserted;
    }
  }
  return inversions;
}

}  // namespace memcomp
