// memcomp pipelines: encode and Energy Control fused in one pass (SPEC 2; P2 = toggle-aware
// compression, HPCA'16, §5: the compressor feeds EC). The codec encodes a cache-sized chunk of
// blocks, energy_control decides them, and the chunk's streams are dropped.
#include "memcomp/pipelines/encode_energy_control.hpp"

#include <algorithm>

#include "memcomp/core/error.hpp"

namespace memcomp {

EcTotals encode_energy_control(const Codec& codec, const BusConfig& c, const EcConfig& ec, const BlockView& raw,
                               const double* bu, std::size_t bu_count, WireState& s, const EcColumns* out, bool close,
                               int threads, Session* session, std::size_t chunk_blocks) {
  constexpr std::size_t kChunkBytes = std::size_t{256} << 10;
  if (bu_count != 1 && bu_count != raw.n_blocks)
    throw invalid_argument("bu must be a scalar or have one entry per block");
  const std::size_t n = raw.n_blocks,
                    per = chunk_blocks
                              ? chunk_blocks
                              : std::max<std::size_t>(1, kChunkBytes / std::max<std::size_t>(1, raw.block_bytes));
  EcTotals tot;
  // one batch for the codec (a stateful one's state carried from chunk to chunk); an empty batch
  // too: its checks, and a close of the bus
  codec.encode_chunks(raw, per, threads, session, [&](std::size_t b, const EncodedBlocks& enc) {
    const std::size_t k = enc.bit_lengths.size();
    const StreamsView streams{enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(), k};
    EcColumns at;  // the chunk's rows of out
    if (out) {
      auto row = [b](auto* p) { return p ? p + b : p; };
      at.compressed = row(out->compressed);
      at.cr = row(out->cr);
      at.t0 = row(out->t0);
      at.t1 = row(out->t1);
      at.units_raw = row(out->units_raw);
      at.units_comp = row(out->units_comp);
      at.bits_comp = row(out->bits_comp);
#define MEMCOMP_BUS_ROW(f) at.sent.f = row(out->sent.f);
      MEMCOMP_BUS_FIELDS(MEMCOMP_BUS_ROW)
#undef MEMCOMP_BUS_ROW
    }
    const EcTotals t = energy_control(c, ec, raw.slice(b, k), streams, bu_count == 1 ? bu : bu + b,
                                      bu_count == 1 ? 1 : k, s, out ? &at : nullptr, close && b + k == n);
    tot.blocks += t.blocks;
    tot.compressed += t.compressed;
    tot.raw_bits += t.raw_bits;
    tot.sent_bits += t.sent_bits;
    tot.raw_units += t.raw_units;
    tot.sent_units += t.sent_units;
    tot.sent += t.sent;
  });
  return tot;
}

}  // namespace memcomp
