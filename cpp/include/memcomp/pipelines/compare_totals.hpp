// memcomp pipelines: compare's one pass (SPEC 0.4, 0.6; P1 §V). Several codecs measure the same
// blocks a cache-sized piece at a time: each piece is read from memory once and every codec runs
// on it while it is in cache, and each thread reduces the pieces' sizes to the report's totals as
// it goes (stats/size_totals.hpp), so no per-block column of any codec is kept.
#pragma once
#include <cstddef>
#include <vector>

#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/stats/size_totals.hpp"

namespace memcomp {

struct CompareTotals {
  std::vector<SizeTotals> codecs;  ///< one per codec, in order
  OracleTotals oracle;             ///< the per-block best of the oracle members (wins: one per member)
};

/// The totals of codecs[k] over blocks (hist_lens[k] bins each, as size_totals), and the oracle
/// over the codecs listed in oracle_members (indices, in order; ties go to the earlier one;
/// oracle_hist_len bins). sessions[k] as in Codec::measure_batch (null: none): a stateful codec
/// runs over the whole batch first, in its stream's order, and its sizes join the pass. Equals
/// measure_batch of each codec, then size_totals and oracle_totals of the columns, on any number
/// of threads.
CompareTotals compare_totals(const std::vector<const Codec*>& codecs, const std::vector<Session*>& sessions,
                             const BlockView& blocks, const std::vector<std::size_t>& hist_lens,
                             const std::vector<std::size_t>& oracle_members, std::size_t oracle_hist_len, int threads);

}  // namespace memcomp
