// FPC (SPEC 1.2, W5): pattern sizes, zero runs, stream fields and the accounting presets.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <random>
#include <string>

#include "memcomp/codecs/registry.hpp"
#include "memcomp/core/simd.hpp"
#include "test_util.hpp"

using namespace memcomp;

namespace {

std::vector<std::uint8_t> words(std::initializer_list<std::uint32_t> ws, std::size_t B = 32) {
  std::vector<std::uint8_t> b(B, 0);
  std::size_t i = 0;
  for (auto w : ws) store<std::uint32_t>(b.data() + 4 * i++, w, Endian::little);
  return b;
}

TEST(FPC, W5ZeroRunSizes) {
  const auto c = make_codec("fpc.paper");
  const std::vector<std::uint8_t> z32(32, 0), z64(64, 0);
  EXPECT_EQ(c->measure(z32.data(), 32).inband(), 6u);   // 8 zero words: one run
  EXPECT_EQ(c->measure(z64.data(), 64).inband(), 12u);  // 16 zero words: two runs
  // 9 zero words then raw words: runs of 8 and 1
  std::vector<std::uint8_t> b(64, 0);
  for (std::size_t i = 9; i < 16; ++i) store<std::uint32_t>(b.data() + 4 * i, 0x12345678u, Endian::little);
  EXPECT_EQ(c->measure(b.data(), 64).inband(), 12u + 7u * 35u);
}

TEST(FPC, SkkuChargesOneTokenPerMaximalRun) {
  const std::vector<std::uint8_t> z64(64, 0);
  EXPECT_EQ(make_codec("fpc.skku")->measure(z64.data(), 64).inband(), 6u);
}

TEST(FPC, StreamFieldsOfPattern101) {
  const auto c = make_codec("fpc.paper");
  // 0x007F0012: halves 0x007F and 0x0012 are sign-extended bytes -> 101, fields 7F then 12.
  const auto b = words({0x007F0012u, 0xFF80FFFFu}, 16);
  const SizeBreakdown s = c->measure(b.data(), 16);
  EXPECT_EQ(s.inband(), 19u + 19u + 6u);
  std::vector<std::uint8_t> buf(8);
  BitWriter w(buf.data(), s.inband());
  c->encode(b.data(), 16, w);
  w.finish();
  BitReader r(buf.data(), s.inband());
  EXPECT_EQ(r.read(3), 5u);
  EXPECT_EQ(r.read(16), 0x7F12u);
  EXPECT_EQ(r.read(3), 5u);
  EXPECT_EQ(r.read(16), 0x80FFu);
  EXPECT_EQ(r.read(3), 0u);
  EXPECT_EQ(r.read(3), 1u);  // run of 2 zero words
}

TEST(FPC, CmuByteModel) {
  // zero, |v| <= 0xFF, <= 0xFFFF, low half zero, unsigned halves <= 0xFF, repeated bytes, raw:
  const auto b = words({0, 0xFFFFFF01u, 0x00001234u, 0x12340000u, 0x00120034u, 0xABABABABu, 0x12345678u, 200});
  const SizeBreakdown s = make_codec("fpc.cmu")->measure(b.data(), 32);
  EXPECT_EQ(s.payload, 8u * (1 + 1 + 2 + 2 + 2 + 1 + 4 + 1));
  EXPECT_EQ(s.meta, 8u * 3u);  // floor(3 * 8 words / 8) bytes of prefixes
}

TEST(FPC, DecodeRejectsOverlongZeroRun) {
  const auto c = make_codec("fpc.paper");
  // 16-byte block = 4 words; a run field of 8 words is corrupt.
  std::uint8_t buf[1] = {0b00011100};  // prefix 000, field 111 (run 8)
  std::uint8_t out[16];
  BitReader r(buf, 6);
  EXPECT_THROW(c->decode(r, 0, out, 16), corrupt_stream);
}

// Bytes that end where an unreadable page begins: a read past them faults (gathers are not
// checked by ASan, so this is how the lane decoder's bounds are tested).
class GuardedBytes {
 public:
  explicit GuardedBytes(const std::uint8_t* p, std::size_t n) {
    const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    map_bytes_ = (n + page - 1) / page * page + page;
    base_ = static_cast<std::uint8_t*>(
        mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    EXPECT_EQ(mprotect(base_ + map_bytes_ - page, page, PROT_NONE), 0);
    data_ = base_ + map_bytes_ - page - n;
    std::memcpy(data_, p, n);
  }
  GuardedBytes(const GuardedBytes&) = delete;
  GuardedBytes& operator=(const GuardedBytes&) = delete;
  ~GuardedBytes() { munmap(base_, map_bytes_); }
  std::uint8_t* data() const { return data_; }

 private:
  std::uint8_t* base_ = nullptr;
  std::uint8_t* data_ = nullptr;
  std::size_t map_bytes_ = 0;
};

// decode_batch whole and with bits flipped: the same blocks, or the same error naming the same
// block, with the fast paths on and off.
std::string decode_outcome(const Codec& c, const EncodedView& e, bool simd) {
  const bool was = simd_enabled();
  set_simd(simd);
  std::vector<std::uint8_t> out(e.n_blocks * e.block_bytes);
  std::string got;
  try {
    c.decode_batch(e, out.data(), 1);
    got.assign(out.begin(), out.end());
  } catch (const corrupt_stream& err) {
    got = std::string("error: ") + err.what();
  }
  set_simd(was);
  return got;
}

TEST(FPC, LaneDecoderEqualsScalarOnWholeAndDamagedStreams) {
  // Batches of 1 to 60 blocks whose streams end at an unreadable page: every group of lanes, and
  // the last one up against the end of the data.
  std::mt19937_64 rng(7);
  for (const char* endian : {"little", "big"}) {
    const auto c = make_codec("fpc.paper", {{"endian", std::string(endian)}});
    for (std::size_t B : {16u, 32u, 64u, 128u, 256u}) {
      const auto x = test::adversarial_blocks(B);
      int refused = 0;
      for (std::size_t n = 1; n <= 60; ++n) {
        const std::size_t first = rng() % (x.size() / B - n);
        const EncodedBlocks enc = c->encode_batch(BlockView{x.data() + first * B, n, B}, 1);
        const std::size_t used = (enc.bit_offsets[n - 1] + enc.bit_lengths[n - 1] + 7) / 8;
        const GuardedBytes data(enc.data.data(), used);
        EncodedView v{data.data(), used, enc.bit_offsets.data(), enc.bit_lengths.data(), enc.tags.data(), n, B};
        EXPECT_EQ(decode_outcome(*c, v, true), std::string(reinterpret_cast<const char*>(x.data() + first * B), n * B))
            << B;
        const GuardedBytes bad(enc.data.data(), used);
        for (int k = 0; k < 1 + static_cast<int>(n % 3); ++k)
          bad.data()[rng() % used] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        v.data = bad.data();
        const std::string fast = decode_outcome(*c, v, true);
        EXPECT_EQ(fast, decode_outcome(*c, v, false)) << B << " " << n;
        refused += fast.rfind("error: ", 0) == 0;
      }
      EXPECT_GT(refused, 0) << B;
    }
  }
}
}  // namespace
