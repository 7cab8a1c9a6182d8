// memcomp pipelines: compare's one pass (see compare_totals.hpp).
#include "memcomp/pipelines/compare_totals.hpp"

#include <algorithm>
#include <mutex>
#include <string>

#include "memcomp/core/error.hpp"
#include "memcomp/core/parallel.hpp"

namespace memcomp {

namespace {

constexpr std::size_t kPieceBytes = 64 << 10;  // blocks every codec measures while they are in cache
constexpr std::size_t kMinChunk = 1 << 12;     // blocks per thread, at least

}  // namespace

CompareTotals compare_totals(const std::vector<const Codec*>& codecs, const std::vector<Session*>& sessions,
                             const BlockView& blocks, const std::vector<std::size_t>& hist_lens,
                             const std::vector<std::size_t>& oracle_members, std::size_t oracle_hist_len, int threads) {
  const std::size_t k = codecs.size();
  if (sessions.size() != k || hist_lens.size() != k)
    throw invalid_argument("compare_totals: give one session and one histogram length per codec");
  for (const std::size_t j : oracle_members)
    if (j >= k) throw invalid_argument("compare_totals: oracle member " + std::to_string(j) + " names no codec");
  // A stateful codec runs first over the whole batch (its stream is in order); its columns join.
  std::vector<SizeBuffers> whole;
  std::vector<std::size_t> whole_of(k, k);
  for (std::size_t j = 0; j < k; ++j) {
    if (!codecs[j]->stateful()) {
      codecs[j]->measure_batch(blocks.slice(0, 0), SizeBuffers(0).view(), 1, sessions[j]);  // checks only
      continue;
    }
    whole_of[j] = whole.size();
    whole.emplace_back(blocks.n_blocks);
    codecs[j]->measure_batch(blocks, whole.back().view(), threads, sessions[j]);
  }
  std::vector<SizeAccumulator> sizes;
  for (std::size_t j = 0; j < k; ++j) sizes.emplace_back(hist_lens[j]);
  OracleAccumulator oracle(oracle_members.size(), oracle_hist_len);
  std::mutex merge;
  const std::size_t piece = std::max<std::size_t>(1, kPieceBytes / std::max<std::size_t>(1, blocks.block_bytes));
  parallel_for(blocks.n_blocks, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
    std::vector<SizeAccumulator> part;
    for (std::size_t j = 0; j < k; ++j) part.emplace_back(hist_lens[j]);
    OracleAccumulator best(oracle_members.size(), oracle_hist_len);
    std::vector<SizeBuffers> cols(k, SizeBuffers(piece));
    std::vector<SizeColumns> view(k);
    std::vector<const std::uint32_t*> member_bits(oracle_members.size());
    for (std::size_t p = b; p < e; p += piece) {
      const std::size_t n = std::min(piece, e - p);
      const BlockView v = blocks.slice(p, n);
      for (std::size_t j = 0; j < k; ++j) {
        if (whole_of[j] < k) {
          view[j] = whole[whole_of[j]].view(p);
        } else {
          view[j] = cols[j].view();
          codecs[j]->measure_batch(v, view[j], 1);
        }
        part[j].add(view[j].bits, view[j].payload, view[j].meta, view[j].header, view[j].tag, view[j].mode, n);
      }
      for (std::size_t m = 0; m < oracle_members.size(); ++m) member_bits[m] = view[oracle_members[m]].bits;
      best.add(member_bits, n);
    }
    const std::lock_guard<std::mutex> lock(merge);
    for (std::size_t j = 0; j < k; ++j) sizes[j].merge(part[j]);
    oracle.merge(best);
  });
  CompareTotals out;
  for (const SizeAccumulator& s : sizes) out.codecs.push_back(s.totals());
  out.oracle = oracle.totals();
  return out;
}

}  // namespace memcomp
