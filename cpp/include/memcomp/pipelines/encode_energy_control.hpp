// memcomp pipelines: encode and Energy Control fused in one pass (SPEC 2; P2 = toggle-aware
// compression, HPCA'16, §5: the compressor feeds EC, which picks the form each block is sent in).
// A pipeline sits above both layers it joins: the codecs and the analyses never include it.
#pragma once
#include <cstddef>

#include "memcomp/analysis/bus.hpp"
#include "memcomp/analysis/bus_config.hpp"
#include "memcomp/analysis/energy_control.hpp"
#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/blocks.hpp"

namespace memcomp {

/// Encode and Energy Control in one pass: blocks are encoded with `codec` chunk_blocks at a time
/// (0: 256 KiB of blocks, which stay in cache with their streams; encode_batch's threads and
/// session) and each chunk's streams go through
/// energy_control, then are dropped. Equals energy_control over codec.encode_batch(raw): the same
/// columns, totals and state, without the round trip of every stream through memory or the memory
/// to hold them.
EcTotals encode_energy_control(const Codec& codec, const BusConfig& c, const EcConfig& ec, const BlockView& raw,
                               const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close,
                               int threads, Session* session = nullptr, std::size_t chunk_blocks = 0);

}  // namespace memcomp
