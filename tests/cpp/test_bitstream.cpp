// BitWriter / BitReader contracts (SPEC 0.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "memcomp/core/bitstream.hpp"

using namespace memcomp;

TEST(BitWriter, MsbFirstLayout) {
  std::vector<std::uint8_t> buf(4, 0xEE);
  BitWriter w(buf.data(), 32);
  w.write(0b101, 3);
  w.write(0x1F, 5);
  w.write(0xABC, 12);
  EXPECT_EQ(w.finish(), 20u);
  EXPECT_EQ(buf[0], 0b10111111);
  EXPECT_EQ(buf[1], 0xAB);
  EXPECT_EQ(buf[2], 0xC0);  // zero padded
  EXPECT_EQ(buf[3], 0xEE);  // untouched
}

TEST(BitWriter, IgnoresHighBitsOfValue) {
  std::vector<std::uint8_t> buf(1);
  BitWriter w(buf.data(), 8);
  w.write(0xFF, 4);
  w.write(0, 4);
  w.finish();
  EXPECT_EQ(buf[0], 0xF0);
}

TEST(BitWriter, CapacityAndWidthAreChecked) {
  std::vector<std::uint8_t> buf(8);  // capacity is what bounds the writer, not the buffer
  BitWriter w(buf.data(), 10);
  w.write(0, 8);
  EXPECT_THROW(w.write(0, 3), std::length_error);
  EXPECT_THROW(w.write(0, 65), memcomp::invalid_argument);
  w.write(3, 2);
  EXPECT_EQ(w.finish(), 10u);
}

TEST(BitReader, ReadsPastEndThrow) {
  const std::uint8_t buf[2] = {0xAB, 0xCD};
  BitReader r(buf, 12);
  EXPECT_EQ(r.read(4), 0xAu);
  EXPECT_EQ(r.read(8), 0xBCu);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_THROW(r.read(1), corrupt_stream);
  EXPECT_EQ(r.read(0), 0u);
}

TEST(BitReader, SubrangeNeverTouchesOtherBytes) {
  // A reader over bits [8, 20) of a 3-byte buffer placed at the very end of an allocation.
  std::vector<std::uint8_t> buf = {0xFF, 0x12, 0x34};
  BitReader r(buf.data(), 8, 20);
  EXPECT_EQ(r.read(12), 0x123u);
  EXPECT_THROW(r.read(1), corrupt_stream);
}

TEST(BitStream, RandomRoundTripAllWidths) {
  std::mt19937_64 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::pair<std::uint64_t, unsigned>> fields;
    std::size_t total = 0;
    for (int i = 0; i < 50; ++i) {
      const unsigned n = static_cast<unsigned>(rng() % 65);
      const std::uint64_t v = n == 64 ? rng() : (rng() & ((std::uint64_t{1} << n) - 1));
      fields.emplace_back(v, n);
      total += n;
    }
    std::vector<std::uint8_t> buf((total + 7) / 8 + 1, 0);
    const auto start = static_cast<std::size_t>(trial % 8);  // also exercise unaligned writers via a prefix field
    BitWriter w(buf.data(), total + start);
    w.write(0, static_cast<unsigned>(start));
    for (auto [v, n] : fields) w.write(v, n);
    ASSERT_EQ(w.finish(), total + start);
    BitReader r(buf.data(), start, start + total);
    for (auto [v, n] : fields) ASSERT_EQ(r.read(n), v) << "width " << n;
    EXPECT_EQ(r.remaining(), 0u);
  }
}

// write_fields is the same stream as field-by-field writes, with room to spare (the 8-byte
// store path) and without (the capacity exactly the stream: the fallback), from every phase.
TEST(BitWriter, WriteFieldsEqualsWrites) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t k = rng() % 40;
    std::vector<std::uint64_t> v(k);
    std::vector<std::uint8_t> len(k);
    std::size_t total = 0;
    for (std::size_t i = 0; i < k; ++i) {
      len[i] = static_cast<std::uint8_t>(trial % 3 == 0 ? rng() % 57 : rng() % 8 == 0 ? 0 : 20 + rng() % 37);
      v[i] = rng() & low_mask(len[i]);
      total += len[i];
    }
    const auto start = static_cast<unsigned>(rng() % 40);
    const bool tight = trial % 2 == 1;
    const std::size_t cap = start + total + 3 + (tight ? 0 : 200);
    std::vector<std::uint8_t> a((cap + 7) / 8, 0), b((cap + 7) / 8, 0xA5);
    BitWriter wa(a.data(), cap), wb(b.data(), cap);
    const std::uint64_t prefix = rng();
    wa.write(prefix, start);
    wb.write(prefix, start);
    for (std::size_t i = 0; i < k; ++i) wa.write(v[i], len[i]);
    wb.write_fields(v.data(), len.data(), k);
    wa.write(0x5, 3);  // the writer goes on from where write_fields left it
    wb.write(0x5, 3);
    ASSERT_EQ(wa.finish(), wb.finish());
    const std::size_t bytes = (wa.position() + 7) / 8;
    ASSERT_TRUE(std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(bytes), b.begin())) << trial;
  }
  std::uint8_t buf[4];
  BitWriter w(buf, 30);
  const std::uint64_t v[2] = {1, 2};
  const std::uint8_t len[2] = {16, 16};
  EXPECT_THROW(w.write_fields(v, len, 2), std::length_error);
}

TEST(BitReader, BufferLimitAllowsWordLoadsButKeepsLogicalEnd) {
  std::vector<std::uint8_t> buf(16, 0xFF);
  buf[0] = 0x12;
  BitReader r(buf.data(), 0, 4, buf.size());
  EXPECT_EQ(r.read(4), 0x1u);
  EXPECT_THROW(r.read(1), corrupt_stream);
}
