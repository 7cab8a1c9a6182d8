// Contracts every registered codec and preset keeps (DESIGN "Contracts", SPEC 0.7):
// measure == encoded length == payload + meta + header <= max_compressed_bits, decode(encode(x))
// == x for exact presets, results independent of thread count, corrupt streams rejected cleanly.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <thread>

#include "memcomp/codecs/registry.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {
using test::Columns;

class EveryPreset : public ::testing::TestWithParam<std::string> {};

// False for a block size the codec does not define (MPC: 32 B only), after checking the refusal.
bool supports(const std::string& name, std::size_t B) {
  const auto codec = make_codec(name);
  try {
    codec->check_block_bytes(B);
    return true;
  } catch (const memcomp::invalid_argument&) {
    std::vector<std::uint8_t> d(B);
    std::vector<std::uint32_t> bits(1), p(1), m(1), h(1), t(1);
    std::vector<std::int16_t> mode(1);
    const SizeColumns cols{bits.data(), p.data(), m.data(), h.data(), t.data(), mode.data()};
    EXPECT_THROW(codec->measure_batch({d.data(), 1, B}, cols, 1), memcomp::invalid_argument);
    return false;
  }
}

// The preset's codec, fitted on `data` first if it is data-driven.
std::unique_ptr<Codec> ready(const std::string& name, const std::vector<std::uint8_t>& data, std::size_t B) {
  auto codec = make_codec(name);
  if (codec->needs_model() && !codec->has_model()) codec = codec->fitted({data.data(), data.size() / B, B}, 1);
  return codec;
}

TEST_P(EveryPreset, ContractsOnAdversarialBlocks) {
  for (std::size_t B : valid_block_sizes) {
    if (!supports(GetParam(), B)) continue;
    const auto data = test::adversarial_blocks(B);
    const auto codec = ready(GetParam(), data, B);
    const BlockView v{data.data(), data.size() / B, B};
    Columns one(v.n_blocks), two(v.n_blocks);
    codec->measure_batch(v, one.view(), 1);
    codec->measure_batch(v, two.view(), 2);
    EXPECT_EQ(one.bits, two.bits);
    EXPECT_EQ(one.mode, two.mode);
    const std::uint64_t max_bits = codec->max_compressed_bits(B);
    for (std::size_t i = 0; i < v.n_blocks; ++i) {
      ASSERT_EQ(one.bits[i], one.payload[i] + one.meta[i] + one.header[i]);
      ASSERT_LE(one.bits[i], max_bits) << GetParam() << " B=" << B << " block " << i;
      const SizeBreakdown s = codec->measure(v.block(i), B);
      if (codec->stateful()) {  // a direct call is a one-block stream from the initial state
        Columns alone(1);
        codec->measure_batch(v.slice(i, 1), alone.view(), 1);
        ASSERT_EQ(s.inband(), alone.bits[0]);
      } else {
        ASSERT_EQ(s.inband(), one.bits[i]);
      }
    }
    if (!codec->exact()) {
      EXPECT_THROW(codec->encode_batch(v, 1), memcomp::invalid_argument);
      continue;
    }
    const EncodedBlocks enc = codec->encode_batch(v, 2);
    ASSERT_EQ(std::vector<std::uint32_t>(enc.bit_lengths.begin(), enc.bit_lengths.end()), one.bits);
    std::vector<std::uint8_t> out(data.size(), 0xA5);
    const EncodedView ev{enc.data.data(),
                         enc.data.size(),
                         enc.bit_offsets.data(),
                         enc.bit_lengths.data(),
                         enc.tags.data(),
                         v.n_blocks,
                         B};
    codec->decode_batch(ev, out.data(), 2);
    if (codec->lossy()) {  // approximated blocks aside, exact; with no block approximable, all exact
      const std::vector<std::uint8_t> none(v.n_blocks, 0);
      BlockView kept = v;
      kept.approximable = none.data();
      const EncodedBlocks e2 = codec->encode_batch(kept, 2);
      std::vector<std::uint8_t> out2(data.size(), 0xA5);
      codec->decode_batch(
          {e2.data.data(), e2.data.size(), e2.bit_offsets.data(), e2.bit_lengths.data(), e2.tags.data(), v.n_blocks, B},
          out2.data(), 2);
      ASSERT_EQ(out2, data) << GetParam() << " B=" << B;
      continue;
    }
    ASSERT_EQ(out, data) << GetParam() << " B=" << B;
  }
}

TEST_P(EveryPreset, CorruptStreamsThrowOrDecode) {
  std::mt19937_64 rng(7);
  for (std::size_t B : {std::size_t{16}, std::size_t{32}, std::size_t{64}}) {
    if (!supports(GetParam(), B)) continue;
    const auto data = test::adversarial_blocks(B, 40);
    const auto codec = ready(GetParam(), data, B);
    const std::size_t n = data.size() / B;
    std::vector<std::uint8_t> out(B);
    if (!codec->exact()) {  // accounting-only: no stream to decode at all
      std::uint64_t off = 0;
      std::uint32_t len = 0, tag = 0;
      EXPECT_THROW(codec->decode_batch({data.data(), 1, &off, &len, &tag, 1, B}, out.data(), 1),
                   memcomp::invalid_argument);
      continue;
    }
    const EncodedBlocks enc = codec->encode_batch({data.data(), n, B}, 1);
    for (std::size_t i = 0; i < n; ++i) {
      for (int trial = 0; trial < 8; ++trial) {
        // A copy of block i's stream alone, so any out-of-bounds read is caught by ASan.
        const std::size_t nbytes = (enc.bit_lengths[i] + 7) / 8;
        std::vector<std::uint8_t> one(enc.data.begin() + static_cast<std::ptrdiff_t>(enc.bit_offsets[i] / 8),
                                      enc.data.begin() + static_cast<std::ptrdiff_t>(enc.bit_offsets[i] / 8 + nbytes));
        std::uint32_t len = enc.bit_lengths[i];
        std::uint32_t tag = enc.tags[i];
        switch (trial % 4) {
          case 0: len = len ? static_cast<std::uint32_t>(rng() % len) : 0; break;  // truncate
          case 1:
            if (!one.empty()) one[rng() % one.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
            break;
          case 2: tag = static_cast<std::uint32_t>(rng() % 20); break;
          default:
            for (auto& x : one) x = static_cast<std::uint8_t>(rng());
            break;
        }
        const std::uint64_t off = 0;
        const EncodedView ev{one.data(), one.size(), &off, &len, &tag, 1, B};
        try {
          codec->decode_batch(ev, out.data(), 1);
        } catch (const corrupt_stream&) {
        }
      }
    }
  }
}

TEST_P(EveryPreset, RejectsOutOfBufferOffsets) {
  const auto codec = ready(GetParam(), test::adversarial_blocks(32, 10), 32);
  std::vector<std::uint8_t> buf(4);
  std::uint64_t off = 40;
  std::uint32_t len = 8, tag = 0;
  std::vector<std::uint8_t> out(32);
  if (!codec->exact()) {
    EXPECT_THROW(codec->decode_batch({buf.data(), buf.size(), &off, &len, &tag, 1, 32}, out.data(), 1),
                 memcomp::invalid_argument);
    return;
  }
  EXPECT_THROW(codec->decode_batch({buf.data(), buf.size(), &off, &len, &tag, 1, 32}, out.data(), 1), corrupt_stream);
  off = 0;
  len = static_cast<std::uint32_t>(codec->max_compressed_bits(32) + 1);
  EXPECT_THROW(codec->decode_batch({buf.data(), buf.size(), &off, &len, &tag, 1, 32}, out.data(), 1), corrupt_stream);
}

std::vector<std::string> all_presets() {
  std::vector<std::string> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryPreset, ::testing::ValuesIn(all_presets()), [](const auto& param_info) {
  std::string s = param_info.param;
  for (auto& c : s)
    if (c == '.') c = '_';
  return s;
});

TEST(EncodeBatch, ZeroBitBlocksAcrossThreads) {
  // bdi.gem5 encodes zero blocks in 0 in-band bits: every worker's buffer is empty.
  const auto codec = make_codec("bdi.gem5");
  const std::size_t n = 8192, B = 32;
  std::vector<std::uint8_t> zeros(n * B, 0), out(n * B, 0xFF);
  const EncodedBlocks enc = codec->encode_batch({zeros.data(), n, B}, 4);
  EXPECT_TRUE(enc.data.empty());
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(enc.bit_lengths[i], 0u);
  codec->decode_batch({enc.data.data(), 0, enc.bit_offsets.data(), enc.bit_lengths.data(), enc.tags.data(), n, B},
                      out.data(), 4);
  EXPECT_EQ(out, zeros);
}

TEST(StatefulCodecs, ChunksOfOneSessionEqualOneBatch) {
  for (const Preset& p : presets()) {
    const auto codec = make_codec(p.name);
    if (!codec->stateful()) continue;
    SCOPED_TRACE(p.name);
    const std::size_t B = 32;
    const auto data = test::adversarial_blocks(B, 100);
    const std::size_t n = data.size() / B, half = n / 2;
    Columns whole(n), first(half), second(n - half);
    codec->measure_batch({data.data(), n, B}, whole.view(), 2);
    Session stream(*codec);
    codec->measure_batch({data.data(), half, B}, first.view(), 2, &stream);
    codec->measure_batch({data.data() + half * B, n - half, B}, second.view(), 2, &stream);
    first.bits.insert(first.bits.end(), second.bits.begin(), second.bits.end());
    EXPECT_EQ(first.bits, whole.bits);
    Columns fresh(n - half);  // without the session the second half starts from the initial state
    codec->measure_batch({data.data() + half * B, n - half, B}, fresh.view(), 1);
    const std::vector<std::uint32_t> tail(whole.bits.begin() + static_cast<std::ptrdiff_t>(half), whole.bits.end());
    EXPECT_NE(fresh.bits, tail);
    // decode in two halves of one session
    if (codec->exact()) {
      const EncodedBlocks enc = codec->encode_batch({data.data(), n, B}, 1);
      std::vector<std::uint8_t> out(data.size());
      Session decoding(*codec);
      codec->decode_batch(
          {enc.data.data(), enc.data.size(), enc.bit_offsets.data(), enc.bit_lengths.data(), enc.tags.data(), half, B},
          out.data(), 1, &decoding);
      codec->decode_batch({enc.data.data(), enc.data.size(), enc.bit_offsets.data() + half,
                           enc.bit_lengths.data() + half, enc.tags.data() + half, n - half, B},
                          out.data() + half * B, 1, &decoding);
      EXPECT_EQ(out, data);
    }
  }
}

TEST(StatefulCodecs, OneCodecServesManySessionsAtOnce) {
  // The codec is an immutable value: streams run side by side on one object, each in its own
  // session, and each equals that stream run alone; a session serves only the codec that made it.
  for (const Preset& p : presets()) {
    const auto codec = make_codec(p.name);
    if (!codec->stateful()) continue;
    SCOPED_TRACE(p.name);
    const std::size_t B = 32;
    const std::vector<std::vector<std::uint8_t>> data{test::adversarial_blocks(B, 400, 1),
                                                      test::adversarial_blocks(B, 400, 2)};
    std::vector<std::vector<std::uint32_t>> alone(2), side(2);
    const auto chunked = [&](std::size_t k, std::vector<std::uint32_t>& bits) {
      Session stream(*codec);
      const std::size_t n = data[k].size() / B;
      for (std::size_t b = 0; b < n; b += 37) {
        Columns c(std::min<std::size_t>(37, n - b));
        codec->measure_batch({data[k].data() + b * B, c.bits.size(), B}, c.view(), 1, &stream);
        bits.insert(bits.end(), c.bits.begin(), c.bits.end());
      }
    };
    for (std::size_t k = 0; k < 2; ++k) chunked(k, alone[k]);
    std::thread t0([&] { chunked(0, side[0]); }), t1([&] { chunked(1, side[1]); });
    t0.join();
    t1.join();
    EXPECT_EQ(side, alone);
    const auto other = make_codec(p.name);
    Session stream(*other);
    Columns c(1);
    EXPECT_THROW(codec->measure_batch({data[0].data(), 1, B}, c.view(), 1, &stream), memcomp::invalid_argument);
    EXPECT_EQ(stream.save(), Session(*other).save());  // a fresh session holds the initial state
  }
}

TEST(StatefulCodecs, ResumedChunkDecodesOnItsOwnFromItsEntryState) {
  for (const Preset& p : presets()) {
    const auto codec = make_codec(p.name);
    if (!codec->stateful() || !codec->exact()) continue;
    SCOPED_TRACE(p.name);
    const std::size_t B = 32;
    const auto data = test::adversarial_blocks(B, 100);
    const std::size_t n = data.size() / B, half = n / 2;
    Session stream(*codec);
    codec->encode_batch({data.data(), half, B}, 1, &stream);
    const EncodedBlocks second = codec->encode_batch({data.data() + half * B, n - half, B}, 1, &stream);
    ASSERT_FALSE(second.entry_state.empty());
    // a fresh codec object (nothing carried over) decodes the chunk from the recorded state
    const auto other = make_codec(p.name);
    std::vector<std::uint8_t> out((n - half) * B);
    EncodedView v{second.data.data(),
                  second.data.size(),
                  second.bit_offsets.data(),
                  second.bit_lengths.data(),
                  second.tags.data(),
                  n - half,
                  B};
    v.entry_state = second.entry_state.data();
    v.entry_state_bytes = second.entry_state.size();
    other->decode_batch(v, out.data(), 1);
    EXPECT_EQ(out, std::vector<std::uint8_t>(data.begin() + static_cast<std::ptrdiff_t>(half * B), data.end()));
    // without the state the chunk decodes from the initial dictionary, to other bytes
    EncodedView bare = v;
    bare.entry_state = nullptr;
    bare.entry_state_bytes = 0;
    std::vector<std::uint8_t> wrong(out.size());
    try {
      other->decode_batch(bare, wrong.data(), 1);
      EXPECT_NE(wrong, out);
    } catch (const corrupt_stream&) {
    }
    // malformed states are refused
    std::vector<std::uint8_t> bad = second.entry_state;
    bad[0] = 17;  // count above 16 slots
    v.entry_state = bad.data();
    EXPECT_THROW(other->decode_batch(v, out.data(), 1), corrupt_stream);
    v.entry_state_bytes = bad.size() - 1;
    EXPECT_THROW(other->decode_batch(v, out.data(), 1), corrupt_stream);
  }
}

TEST(Registry, FamilyNameSelectsDefaultPreset) {
  EXPECT_EQ(make_codec("bdi")->preset(), "bdi.paper");
  EXPECT_EQ(make_codec("fpc")->preset(), "fpc.paper");
  EXPECT_THROW(make_codec("nope"), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("bdi", {{"no_such_option", true}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("bdi", {{"endian", std::int64_t{3}}}), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("bdi", {{"endian", std::string("middle")}}), memcomp::invalid_argument);
}

TEST(Registry, ExactnessOfPresets) {
  for (const Preset& p : presets()) {
    static const std::set<std::string> accounting = {"bdi.cmu",    "fpc.skku",  "fpc.cmu",  "fvc.gem5",
                                                     "cpack.gem5", "bpc.skku",  "sc2.kim",  "bdi.cal22",
                                                     "fpc.cal22",  "bpc.cal22", "sc2.cal22"};
    EXPECT_EQ(make_codec(p.name)->exact(), !accounting.count(p.name)) << p.name;
  }
}

TEST(Registry, DataDrivenCodecsNeedAModel) {
  const auto c = make_codec("fvc");
  EXPECT_TRUE(c->needs_model());
  EXPECT_FALSE(c->has_model());
  std::vector<std::uint8_t> d(64);
  Columns cols(2);
  EXPECT_THROW(c->measure_batch({d.data(), 2, 32}, cols.view(), 1), memcomp::invalid_argument);
  EXPECT_THROW(c->encode_batch({d.data(), 2, 32}, 1), memcomp::invalid_argument);
  EXPECT_THROW(make_codec("bdi")->fit({d.data(), 2, 32}, 1), memcomp::invalid_argument);
}

TEST(Registry, RejectsUnsupportedBlockSizes) {
  const auto c = make_codec("bdi");
  std::vector<std::uint8_t> d(48);
  Columns cols(1);
  EXPECT_THROW(c->measure_batch({d.data(), 1, 48}, cols.view(), 1), memcomp::invalid_argument);
}

}  // namespace
