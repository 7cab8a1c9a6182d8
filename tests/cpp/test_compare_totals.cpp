// Compare's one pass (pipelines/compare_totals.hpp): equal to each codec's measure_batch reduced by
// size_totals and oracle_totals, on any thread count, a stateful codec's stream included.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/error.hpp"
#include "memcomp/pipelines/compare_totals.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

/// Codec j's totals and the oracle's as measure_batch, size_totals and oracle_totals give them.
CompareTotals reference(const std::vector<const Codec*>& codecs, const std::vector<Session*>& sessions,
                        const BlockView& v, const std::vector<std::size_t>& hist_lens,
                        const std::vector<std::size_t>& members, std::size_t oracle_len) {
  CompareTotals out;
  std::vector<test::Columns> cols;
  for (std::size_t j = 0; j < codecs.size(); ++j) {
    cols.emplace_back(v.n_blocks);
    codecs[j]->measure_batch(v, cols.back().view(), 1, sessions[j]);
    const test::Columns& c = cols.back();
    out.codecs.push_back(size_totals(c.bits.data(), c.payload.data(), c.meta.data(), c.header.data(), c.tag.data(),
                                     c.mode.data(), v.n_blocks, hist_lens[j], 1));
  }
  std::vector<const std::uint32_t*> bits;
  for (const std::size_t j : members) bits.push_back(cols[j].bits.data());
  out.oracle = oracle_totals(bits, v.n_blocks, oracle_len, 1);
  return out;
}

void expect_equal(const CompareTotals& got, const CompareTotals& want, const std::string& what) {
  ASSERT_EQ(got.codecs.size(), want.codecs.size()) << what;
  for (std::size_t j = 0; j < got.codecs.size(); ++j) {
    EXPECT_EQ(got.codecs[j].hist, want.codecs[j].hist) << what << " codec " << j;
    EXPECT_EQ(got.codecs[j].modes, want.codecs[j].modes) << what << " codec " << j;
    EXPECT_EQ(got.codecs[j].tag_bits, want.codecs[j].tag_bits) << what << " codec " << j;
  }
  EXPECT_EQ(got.oracle.hist, want.oracle.hist) << what;
  EXPECT_EQ(got.oracle.wins, want.oracle.wins) << what;
}

TEST(CompareTotals, EqualsEachCodecMeasuredThenReduced) {
  std::vector<std::unique_ptr<Codec>> own;
  for (const char* name : {"bdi.paper", "fpc.paper", "cpack.skku", "lzss.block", "zca.paper", "bestof.bdi_fpc"})
    own.push_back(make_codec(name));
  std::vector<const Codec*> codecs;
  for (const auto& c : own) codecs.push_back(c.get());
  ASSERT_TRUE(codecs[2]->stateful());
  const std::vector<std::size_t> members{0, 1, 3, 5};
  for (const std::size_t B : {32u, 128u}) {
    std::vector<std::uint8_t> x = test::adversarial_blocks(B, 300);
    std::mt19937_64 rng(B);
    while (x.size() / B < 9000) {  // crosses pieces (64 KiB) and thread ranges
      std::vector<std::uint8_t> blk(B, 0);
      for (std::size_t i = 0; i < B; i += 4) blk[i] = static_cast<std::uint8_t>(rng() % 5);
      x.insert(x.end(), blk.begin(), blk.end());
    }
    const BlockView v{x.data(), x.size() / B, B};
    std::vector<std::size_t> hist_lens;
    std::size_t oracle_len = 0;
    for (const Codec* c : codecs) hist_lens.push_back(c->max_compressed_bits(B) + 1);
    for (const std::size_t j : members) oracle_len = std::max(oracle_len, hist_lens[j]);
    for (const int threads : {1, 2, 3}) {
      // two batches on one stream: the stateful codec's second starts where its first ended
      Session mine(*codecs[2]), theirs(*codecs[2]);
      const std::vector<Session*> s1{nullptr, nullptr, &mine, nullptr, nullptr, nullptr};
      const std::vector<Session*> s2{nullptr, nullptr, &theirs, nullptr, nullptr, nullptr};
      for (int batch = 0; batch < 2; ++batch) {
        const CompareTotals got = compare_totals(codecs, s1, v, hist_lens, members, oracle_len, threads);
        const CompareTotals want = reference(codecs, s2, v, hist_lens, members, oracle_len);
        expect_equal(got, want,
                     std::to_string(B) + " B, " + std::to_string(threads) + " threads, batch " + std::to_string(batch));
      }
      EXPECT_EQ(mine.save(), theirs.save());
    }
  }
}

TEST(CompareTotals, RefusesWhatItCannotMeasure) {
  const auto bdi = make_codec("bdi.paper"), mpc = make_codec("mpc.cal22_rtl");
  std::vector<std::uint8_t> x(128 * 4, 0);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(i * 37 + 11);  // raw under BDI
  const BlockView v{x.data(), 4, 128};
  const std::size_t len = bdi->max_compressed_bits(128) + 1;
  EXPECT_THROW(compare_totals({bdi.get()}, {}, v, {len}, {}, 1, 1), invalid_argument);            // no session slot
  EXPECT_THROW(compare_totals({bdi.get()}, {nullptr}, v, {len}, {1}, len, 1), invalid_argument);  // no codec 1
  EXPECT_THROW(compare_totals({bdi.get(), mpc.get()}, {nullptr, nullptr}, v, {len, len}, {}, 1, 2),
               invalid_argument);                                                                  // MPC: 32 B only
  EXPECT_THROW(compare_totals({bdi.get()}, {nullptr}, v, {len - 1}, {}, 1, 1), invalid_argument);  // a bin short
  const CompareTotals none = compare_totals({bdi.get()}, {nullptr}, v.slice(0, 0), {len}, {0}, len, 2);
  EXPECT_EQ(none.codecs[0].hist, std::vector<std::int64_t>(len, 0));
  EXPECT_EQ(none.oracle.wins, std::vector<std::int64_t>{0});
}

}  // namespace
