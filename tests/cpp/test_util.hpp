// Shared test blocks: random, adversarial and realistic patterns for every block size.
#pragma once
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <string>

#include "codecs/codec_impl.hpp"
#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/bits.hpp"
#include "memcomp/core/simd.hpp"

namespace memcomp::test {

/// n blocks of B bytes covering zero, repeated, narrow, delta-boundary, FP-like and random data.
inline std::vector<std::uint8_t> adversarial_blocks(std::size_t B, std::size_t n_random = 200, unsigned seed = 1) {
  std::vector<std::vector<std::uint8_t>> blocks;
  std::mt19937_64 rng(seed);
  auto add = [&](auto&& fill) {
    std::vector<std::uint8_t> b(B, 0);
    fill(b);
    blocks.push_back(std::move(b));
  };
  auto words = [&](unsigned k, auto&& f) {
    add([&](std::vector<std::uint8_t>& b) {
      for (std::size_t i = 0; i < B / k; ++i) store_k(b.data() + i * k, f(i), k, Endian::little);
    });
  };
  add([](auto&) {});
  add([](auto& b) { std::memset(b.data(), 0xFF, b.size()); });
  for (unsigned k : {1u, 2u, 4u, 8u}) {
    words(k, [&](std::size_t) { return std::uint64_t{0x8123456789ABCDEFull}; });
    for (std::int64_t step : {1LL, -1LL, 3LL, 127LL, -128LL, 128LL, -129LL, 255LL, 256LL, 32767LL, -32768LL, 32768LL,
                              0x7FFFFFFFLL, -0x80000000LL, 0x80000000LL}) {
      words(k, [&](std::size_t i) {
        return static_cast<std::uint64_t>(0x1122334455667788LL + step * static_cast<std::int64_t>(i));
      });
      words(k, [&](std::size_t i) { return static_cast<std::uint64_t>(step * static_cast<std::int64_t>(i)); });
      words(k, [&](std::size_t i) { return static_cast<std::uint64_t>(i % 2 ? step : -step); });
    }
  }
  // single non-zero byte at each position, and each value at byte 0
  for (std::size_t p = 0; p < B; ++p) add([&](auto& b) { b[p] = 0x80; });
  for (unsigned v = 1; v < 256; v += 17) add([&](auto& b) { b[0] = static_cast<std::uint8_t>(v); });
  // FP32-like: smooth floats with zeros
  add([&](auto& b) {
    for (std::size_t i = 0; i < B / 4; ++i) {
      float f = i % 3 ? 1.0f + 0.01f * static_cast<float>(i) : 0.0f;
      std::memcpy(b.data() + 4 * i, &f, 4);
    }
  });
  // narrow signed integers of every width, then random words of every width
  for (unsigned bits : {4u, 8u, 16u, 24u, 32u}) {
    words(4, [&](std::size_t) { return static_cast<std::uint64_t>(sign_extend(rng(), bits)) & 0xFFFFFFFFu; });
  }
  for (std::size_t r = 0; r < n_random; ++r) {
    const unsigned kind = static_cast<unsigned>(r % 4);
    add([&](auto& b) {
      for (auto& x : b) {
        const std::uint64_t v = rng();
        x = kind == 0   ? static_cast<std::uint8_t>(v)                        // uniform bytes
            : kind == 1 ? static_cast<std::uint8_t>(v % 3 == 0 ? v >> 8 : 0)  // sparse
            : kind == 2 ? static_cast<std::uint8_t>((v & 1) ? 0xFF : 0)       // 0x00/0xFF
                        : static_cast<std::uint8_t>(v % 5);                   // tiny values
      }
    });
  }
  std::vector<std::uint8_t> flat;
  for (auto& b : blocks) flat.insert(flat.end(), b.begin(), b.end());
  return flat;
}

/// Size columns for n blocks (measure_batch's output).
struct Columns {
  explicit Columns(std::size_t n) : bits(n), payload(n), meta(n), header(n), tag(n), mode(n) {}
  SizeColumns view() { return {bits.data(), payload.data(), meta.data(), header.data(), tag.data(), mode.data()}; }
  bool operator==(const Columns& o) const {
    return bits == o.bits && payload == o.payload && meta == o.meta && header == o.header && tag == o.tag &&
           mode == o.mode;
  }
  std::vector<std::uint32_t> bits, payload, meta, header, tag;
  std::vector<std::int16_t> mode;
};

/// The stream of one block as a '0'/'1' string (encode_batch of that block).
inline std::string stream_bits(const Codec& c, const std::vector<std::uint8_t>& blk) {
  const EncodedBlocks enc = c.encode_batch(BlockView{blk.data(), 1, blk.size()}, 1);
  std::string s;
  for (std::uint32_t i = 0; i < enc.bit_lengths[0]; ++i) {
    const std::uint64_t bit = enc.bit_offsets[0] + i;
    s += ((unsigned{enc.data[bit / 8]} >> (7 - bit % 8)) & 1u) ? '1' : '0';
  }
  return s;
}

/// An n-bit field as a '0'/'1' string, MSB first.
inline std::string field(std::uint64_t v, unsigned n) {
  std::string s;
  for (unsigned i = n; i-- > 0;) s += ((v >> i) & 1u) ? '1' : '0';
  return s;
}

/// Decodes one block from a '0'/'1' stream string (tag 0).
inline std::vector<std::uint8_t> decode_bits(const Codec& c, const std::string& bits, std::size_t B) {
  std::vector<std::uint8_t> buf((bits.size() + 7) / 8 + 1, 0);
  for (std::size_t i = 0; i < bits.size(); ++i)
    if (bits[i] == '1') buf[i / 8] = static_cast<std::uint8_t>(unsigned{buf[i / 8]} | (0x80u >> (i % 8)));
  const std::uint64_t off = 0;
  const auto len = static_cast<std::uint32_t>(bits.size());
  const std::uint32_t tag = 0;
  std::vector<std::uint8_t> out(B);
  c.decode_batch(EncodedView{buf.data(), buf.size(), &off, &len, &tag, 1, B}, out.data(), 1);
  return out;
}

/// One block's stream from a direct encode() call (a fresh codec starts from its initial state).
struct Stream {
  std::vector<std::uint8_t> buf;
  std::size_t bits = 0;
};
inline Stream encode_one(const Codec& c, const std::vector<std::uint8_t>& blk) {
  Stream s;
  const std::size_t cap = c.max_compressed_bits(blk.size());
  s.buf.assign(cap / 8 + 8, 0);
  BitWriter w(s.buf.data(), cap);
  c.encode(blk.data(), blk.size(), w);
  s.bits = w.finish();
  return s;
}

/// Bytes that end where an unreadable page begins: a read past them faults (vector gathers are
/// not checked by ASan, so this is how the lane decoders' bounds are tested).
class GuardedBytes {
 public:
  GuardedBytes(const std::uint8_t* p, std::size_t n) {
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

/// decode_batch's blocks, or "error: " and its message, with the fast paths on or off.
inline std::string decode_outcome(const Codec& c, const EncodedView& e, bool simd) {
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

/// n blocks of B bytes from a random place in x, encoded by c: the stream's bytes in use, views
/// of it over any copy of those bytes, and the blocks themselves.
struct EncodedRun {
  std::size_t n, B, first, used;
  EncodedBlocks enc;
  EncodedRun(const Codec& c, const std::vector<std::uint8_t>& x, std::size_t blocks, std::size_t block_bytes,
             std::mt19937_64& rng)
      : n(blocks),
        B(block_bytes),
        first(rng() % (x.size() / block_bytes - blocks)),
        enc(c.encode_batch(BlockView{x.data() + first * B, n, B}, 1)) {
    used = (enc.bit_offsets[n - 1] + enc.bit_lengths[n - 1] + 7) / 8;
  }
  EncodedView view(const std::uint8_t* data, std::size_t bytes) const {
    return EncodedView{data, bytes, enc.bit_offsets.data(), enc.bit_lengths.data(), enc.tags.data(), n, B};
  }
  std::string blocks(const std::vector<std::uint8_t>& x) const {
    return std::string(reinterpret_cast<const char*>(x.data() + first * B), n * B);
  }
};

/// A decoder that reads a stream unchecked where the buffer holds the most bits a block may
/// take, checked elsewhere: batches of 1 to 40 of the blocks x (of B bytes) decode to the
/// blocks from a buffer that ends at an unreadable page (the last blocks checked) and from one
/// with room after it (all unchecked); with bits flipped in the last streams, to the same
/// blocks or the same error from both.
inline void check_unchecked_reads(const Codec& c, const std::vector<std::uint8_t>& x, std::size_t B,
                                  unsigned seed = 3) {
  std::mt19937_64 rng(seed);
  int refused = 0;
  for (std::size_t n = 1; n <= 40; ++n) {
    const EncodedRun run(c, x, n, B, rng);
    const std::size_t used = run.used;
    const GuardedBytes edge(run.enc.data.data(), used);
    std::vector<std::uint8_t> room(run.enc.data.data(), run.enc.data.data() + used);
    room.resize(used + 4096, 0xA5);
    const EncodedView at_edge = run.view(edge.data(), used), with_room = run.view(room.data(), room.size());
    const std::string blocks = run.blocks(x);
    EXPECT_EQ(decode_outcome(c, at_edge, true), blocks) << c.preset() << " " << n;
    EXPECT_EQ(decode_outcome(c, with_room, true), blocks) << c.preset() << " " << n;
    const std::size_t from = n > 2 ? run.enc.bit_offsets[n - 2] / 8 : 0;
    for (int k = 0; k < 1 + static_cast<int>(n % 3); ++k) {
      const std::size_t at = from + rng() % (used - from);
      const auto bit = static_cast<std::uint8_t>(1u << (rng() % 8));
      edge.data()[at] ^= bit;
      room[at] ^= bit;
    }
    const std::string fast = decode_outcome(c, at_edge, true);
    EXPECT_EQ(fast, decode_outcome(c, with_room, true)) << c.preset() << " " << n;
    refused += fast.rfind("error: ", 0) == 0;
  }
  EXPECT_GT(refused, 5) << c.preset();
}

/// A decoder that takes blocks side by side (vector lanes): batches of 1 to 60 adversarial
/// blocks, their streams ending at an unreadable page, decode to the blocks, and through the
/// lanes (no group falls back); with bits flipped, to the same blocks or the same error naming
/// the same block as the scalar decoder.
inline void check_lane_decoder(const Codec& c, unsigned seed = 7) {
  std::mt19937_64 rng(seed);
  for (std::size_t B : {16u, 32u, 64u, 128u, 256u}) {
    const auto x = adversarial_blocks(B);
    int refused = 0;
    for (std::size_t n = 1; n <= 60; ++n) {
      const EncodedRun run(c, x, n, B, rng);
      const std::size_t used = run.used;
      const GuardedBytes data(run.enc.data.data(), used);
      EncodedView v = run.view(data.data(), used);
      const std::uint64_t fallbacks = batch::lane_fallbacks();
      EXPECT_EQ(decode_outcome(c, v, true), run.blocks(x)) << c.preset() << " " << B << " " << n;
      EXPECT_EQ(batch::lane_fallbacks(), fallbacks) << c.preset() << " " << B << " " << n;  // the lanes decoded them
      const GuardedBytes bad(run.enc.data.data(), used);
      // Anywhere, or in the last stream (whose decoder may then read past the end of the data).
      const std::size_t from = n % 2 ? 0 : run.enc.bit_offsets[n - 1] / 8;
      for (int k = 0; k < 1 + static_cast<int>(n % 3); ++k)
        bad.data()[from + rng() % (used - from)] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      v.data = bad.data();
      const std::string fast = decode_outcome(c, v, true);
      EXPECT_EQ(fast, decode_outcome(c, v, false)) << c.preset() << " " << B << " " << n;
      refused += fast.rfind("error: ", 0) == 0;
    }
    EXPECT_GT(refused, 0) << c.preset() << " " << B;
  }
}

/// A batch encoder that takes blocks side by side (vector lanes): batches of 1 to 60
/// adversarial blocks give the same streams, lengths and tags with the fast paths on and off.
inline void check_lane_encoder(const Codec& c, unsigned seed = 11) {
  std::mt19937_64 rng(seed);
  for (std::size_t B : {16u, 32u, 64u, 128u, 256u}) {
    const auto x = adversarial_blocks(B);
    for (std::size_t n = 1; n <= 60; ++n) {
      const BlockView v{x.data() + (rng() % (x.size() / B - n)) * B, n, B};
      const bool was = simd_enabled();
      set_simd(true);
      const EncodedBlocks fast = c.encode_batch(v, 1);
      set_simd(false);
      const EncodedBlocks ref = c.encode_batch(v, 1);
      set_simd(was);
      EXPECT_TRUE(std::equal(fast.data.begin(), fast.data.end(), ref.data.begin(), ref.data.end()))
          << c.preset() << " " << B << " " << n;
      EXPECT_TRUE(std::equal(fast.bit_lengths.begin(), fast.bit_lengths.end(), ref.bit_lengths.begin()))
          << c.preset() << " " << B << " " << n;
      EXPECT_TRUE(std::equal(fast.tags.begin(), fast.tags.end(), ref.tags.begin())) << c.preset() << " " << B;
    }
  }
}

}  // namespace memcomp::test
