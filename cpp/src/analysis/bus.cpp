// memcomp analysis: bus counts of raw blocks and compressed streams (SPEC 2; P2 = toggle-aware
// compression, HPCA'16, §5.1: bit toggles on on-chip flits; §5.2: zeros and transitions on a DRAM
// bus, back to idle after a burst). DBI is in bus_dbi.cpp, the kernels in detail/bus_kernels.hpp
// and kernels/bus.hpp.
#include "memcomp/analysis/bus.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/bus.hpp"
#include "memcomp/analysis/detail/bus_kernels.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp {

using namespace detail::bus;  // the kernels this file shares with Energy Control

namespace {

/// n raw blocks of b bytes, back to back, b a multiple of u (no padding). Block 0 follows prev;
/// block i > 0 follows the last unit of block i-1 (stream) or init (isolated).
template <class P>
MEMCOMP_INLINE void plain_blocks(const std::uint8_t* data, std::size_t n, std::size_t b, std::size_t u,
                                 const std::uint8_t* prev, const std::uint8_t* init, bool isolated, Plain* out) {
  const std::uint64_t ones_init = pop<P>(init, u);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* blk = data + i * b;
    Plain r;
    if (i == 0 || isolated) {
      const std::uint8_t* pv = i == 0 ? prev : init;
      r.ones_prev = i == 0 ? pop<P>(prev, u) : ones_init;
      std::uint64_t t = 0;
      xor_pop<P>(blk, pv, u, r.toggles, t);
      xor_pop<P>(blk + u, blk, b - u, r.toggles, r.ones);
      r.ones += t;
    } else {
      r.ones_prev = out[i - 1].ones_last;
      xor_pop<P>(blk, blk - u, b, r.toggles, r.ones);
    }
    r.ones_last = pop<P>(blk + b - u, u);
    out[i] = r;
  }
}

using PlainFn = Plain (*)(const std::uint8_t*, const std::uint8_t*, std::size_t, const std::uint8_t*, std::size_t,
                          std::size_t);
using BlocksFn = void (*)(const std::uint8_t*, std::size_t, std::size_t, std::size_t, const std::uint8_t*,
                          const std::uint8_t*, bool, Plain*);

template <class P>
Plain plain_kernel(const std::uint8_t* prev, const std::uint8_t* d, std::size_t n, const std::uint8_t* tail,
                   std::size_t nt, std::size_t u) {
  return plain_units<P>(prev, d, n, tail, nt, u);
}
template <class P>
void blocks_kernel(const std::uint8_t* data, std::size_t n, std::size_t b, std::size_t u, const std::uint8_t* prev,
                   const std::uint8_t* init, bool isolated, Plain* out) {
  plain_blocks<P>(data, n, b, u, prev, init, isolated, out);
}

// PopFast where the CPU has POPCNT (asked at run time on x86-64, where the baseline lacks it).
const bool kHwPop = cpu_has_popcnt();
const PlainFn kPlain = kHwPop ? &plain_kernel<PopFast> : &plain_kernel<PopGeneric>;
const BlocksFn kBlocks = kHwPop ? &blocks_kernel<PopFast> : &blocks_kernel<PopGeneric>;

/// Data counts of a transfer from its Plain counts.
void set_data(BusCounts& r, const Plain& t, std::uint64_t wire_bits) {
  r.ones = static_cast<std::uint32_t>(t.ones);
  r.zeros = static_cast<std::uint32_t>(wire_bits - t.ones);
  r.t01 = static_cast<std::uint32_t>((t.toggles + t.ones_last - t.ones_prev) / 2);
  r.t10 = static_cast<std::uint32_t>(t.toggles - r.t01);
}

}  // namespace

namespace detail::bus {

bool hw_popcount() noexcept { return kHwPop; }

StreamBounds checked_bounds(const StreamsView& s) {
  const std::uint64_t total = std::uint64_t{s.data_bytes} * 8;
  const StreamBounds b = bus_kernels().stream_bounds(s);
  if ((b.low & 7) || b.max_off > total || b.max_end > total) check_streams(s);
  return b;
}

}  // namespace detail::bus

void check_streams(const StreamsView& s) {
  const std::uint64_t total = std::uint64_t{s.data_bytes} * 8;
  for (std::size_t i = 0; i < s.n_blocks; ++i) {
    const std::uint64_t off = s.bit_offsets[i], len = s.bit_lengths[i];
    if (off % 8)
      throw invalid_argument("block " + std::to_string(i) + ": bit offset " + std::to_string(off) +
                             " is not on a byte boundary (streams from encode start on bytes)");
    if (off > total || len > total - off)
      throw invalid_argument("block " + std::to_string(i) + ": bits [" + std::to_string(off) + ", " +
                             std::to_string(off + len) + ") lie outside the " + std::to_string(s.data_bytes) +
                             "-byte buffer");
  }
}

// ---- one bus ---------------------------------------------------------------------------------

Bus::Bus(const BusConfig& c) : c_(c) { c_.validate(); }

void Bus::finish(BusCounts& r) const {
  r.toggles = r.t01 + r.t10;
  if (c_.channel == Channel::noc)
    r.energy = r.toggles;
  else
    r.energy = c_.idle_high ? r.zeros + r.pin_zeros : r.ones + r.pin_ones;
}

BusCounts Bus::send(WireState& s, const std::uint8_t* p, std::uint64_t nbits) {
  BusCounts r;
  r.bits = static_cast<std::uint32_t>(nbits);
  if (nbits == 0) return r;
  const std::size_t u = c_.unit_bytes();
  const std::uint64_t w = c_.width_bits;
  const bool dram = c_.channel == Channel::dram;
  std::uint64_t n = (nbits + w - 1) / w;  // units (beats) with stream bits
  if (dram) {
    const std::uint64_t bursts = (n + c_.burst_length - 1) / c_.burst_length;
    r.units = static_cast<std::uint32_t>(bursts);
    n = bursts * c_.burst_length;
  } else {
    r.units = static_cast<std::uint32_t>(n);
  }
  r.beats = static_cast<std::uint32_t>(n);
  const auto nfull = static_cast<std::size_t>(nbits / w), ntail = static_cast<std::size_t>(n - nfull);
  const std::uint64_t rem = nbits % w;
  Plain t;
  const std::uint8_t* final_unit;
  if (c_.dbi == Dbi::none && !keep_driven) {
    const std::uint8_t* last = nfull ? p + (nfull - 1) * u : s.wires.data();
    if (ntail) {
      buf_.resize(ntail * u);
      build_tail(buf_.data(), p + nfull * u, rem, ntail, u, c_.pad, last);
    }
    t = kPlain(s.wires.data(), p, nfull, buf_.data(), ntail, u);
    final_unit = ntail ? buf_.data() + (ntail - 1) * u : last;
  } else {
    // Materialise the logical beats, invert lanes in place, record the pin levels.
    const std::size_t nb = static_cast<std::size_t>(n), lanes = c_.lanes();
    buf_.resize(nb * u);
    pins_.resize(nb * lanes);
    if (nfull) std::memcpy(buf_.data(), p, nfull * u);
    build_tail(buf_.data() + nfull * u, p + nfull * u, rem, ntail, u, c_.pad,
               nfull ? buf_.data() + (nfull - 1) * u : s.wires.data());
    if (c_.dbi != Dbi::none) r.inversions = apply_dbi(s, nb);
    t = kPlain(s.wires.data(), buf_.data(), nb, nullptr, 0, u);
    final_unit = buf_.data() + (nb - 1) * u;
    if (c_.dbi == Dbi::none) {
      pins_.clear();
    } else {
      const Plain pt = kPlain(s.pins.data(), pins_.data(), nb, nullptr, 0, lanes);
      r.pin_ones = static_cast<std::uint32_t>(pt.ones);
      r.pin_zeros = static_cast<std::uint32_t>(nb * lanes - pt.ones);
      r.pin_t01 = static_cast<std::uint32_t>((pt.toggles + pt.ones_last - pt.ones_prev) / 2);
      r.pin_t10 = static_cast<std::uint32_t>(pt.toggles - r.pin_t01);
      std::memcpy(s.pins.data(), pins_.data() + (nb - 1) * lanes, lanes);
    }
  }
  set_data(r, t, n * w);
  std::memmove(s.wires.data(), final_unit, u);
  s.idle = false;
  finish(r);
  return r;
}

BusCounts Bus::close(WireState& s) const {
  BusCounts r;
  if (c_.channel != Channel::dram || s.idle) return r;
  const WireState idle = initial_state(c_);
  const std::size_t u = c_.unit_bytes(), lanes = c_.lanes();
  for (std::size_t k = 0; k < u; ++k) {
    r.t01 += kPop8[static_cast<std::uint8_t>(~s.wires[k] & idle.wires[k])];
    r.t10 += kPop8[static_cast<std::uint8_t>(s.wires[k] & ~idle.wires[k])];
  }
  for (std::size_t l = 0; l < lanes; ++l) {
    r.pin_t01 += s.pins[l] < idle.pins[l] ? 1u : 0u;
    r.pin_t10 += s.pins[l] > idle.pins[l] ? 1u : 0u;
  }
  s = idle;
  finish(r);
  r.energy = 0;  // idle draws no data-dependent energy
  return r;
}

BusCounts Bus::transfer(WireState& s, const std::uint8_t* p, std::uint64_t nbits, bool close_after) {
  if (c_.isolated) s = initial_state(c_);
  BusCounts r = send(s, p, nbits);
  if (c_.isolated || close_after) r += close(s);
  return r;
}

// ---- batches ---------------------------------------------------------------------------------

BusTotals bus_count_raw(const BusConfig& c, const BlockView& blocks, WireState& s, const BusColumns* out, bool close) {
  Bus bus(c);
  BusTotals tot;
  const std::size_t B = blocks.block_bytes, u = c.unit_bytes(), n = blocks.n_blocks;
  const std::uint64_t bits = 8 * std::uint64_t{B};
  const bool dram = c.channel == Channel::dram;
  const std::size_t whole = dram ? u * c.burst_length : u;  // bytes per unit (dram: per burst)
  if (n == 0) {  // nothing to send: a close returns the bus to idle from the state it is in
    if (close) tot += bus.close(s);
    return tot;
  }
  if (c.dbi != Dbi::none || B % whole != 0) {
    for (std::size_t i = 0; i < n; ++i) {
      const BusCounts r = bus.transfer(s, blocks.block(i), bits, close && i + 1 == n);
      if (out) out->set(i, r);
      tot += r;
    }
    return tot;
  }
  // Whole units and no padding: the array is one stream (stream mode), in chunks of blocks.
  const WireState init = initial_state(c);
  constexpr std::size_t kChunk = 2048;
  std::vector<Plain> plain(std::min(kChunk, n));
  for (std::size_t b0 = 0; b0 < n; b0 += kChunk) {
    const std::size_t m = std::min(kChunk, n - b0);
    const std::uint8_t* prev = c.isolated ? init.wires.data() : b0 == 0 ? s.wires.data() : blocks.block(b0) - u;
    kBlocks(blocks.block(b0), m, B, u, prev, init.wires.data(), c.isolated, plain.data());
    for (std::size_t i = 0; i < m; ++i) {
      BusCounts r;
      r.bits = static_cast<std::uint32_t>(bits);
      r.beats = static_cast<std::uint32_t>(B / u);
      r.units = static_cast<std::uint32_t>(B / whole);
      set_data(r, plain[i], bits);
      const std::size_t g = b0 + i;
      if (dram && (c.isolated || (close && g + 1 == n))) {  // back to idle after the last beat
        WireState at;
        std::memcpy(at.wires.data(), blocks.block(g) + B - u, u);
        at.pins = init.pins;
        at.idle = false;
        const BusCounts back = bus.close(at);
        r.t01 += back.t01;
        r.t10 += back.t10;
      }
      bus.finish(r);
      if (out) out->set(g, r);
      tot += r;
    }
  }
  if (c.isolated || (dram && close)) {
    s = init;
  } else {
    std::memcpy(s.wires.data(), blocks.block(n - 1) + B - u, u);
    s.pins = init.pins;
    s.idle = false;
  }
  return tot;
}

BusTotals bus_count_streams(const BusConfig& c, const StreamsView& st, WireState& s, const BusColumns* out,
                            bool close) {
  check_streams(st);
  Bus bus(c);
  BusTotals tot;
  for (std::size_t i = 0; i < st.n_blocks; ++i) {
    const BusCounts r =
        bus.transfer(s, st.data + st.bit_offsets[i] / 8, st.bit_lengths[i], close && i + 1 == st.n_blocks);
    if (out) out->set(i, r);
    tot += r;
  }
  if (st.n_blocks == 0 && close) tot += bus.close(s);  // an empty batch closes the bus too
  return tot;
}

}  // namespace memcomp
