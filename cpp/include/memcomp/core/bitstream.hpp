// memcomp core: bit-granular stream writer and reader (SPEC 0.3).
// Fields are MSB-first: stream bit 8k+j is bit 7-j of byte k; an n-bit field is written from
// bit n-1 down to bit 0. A stream has an exact bit length; its last byte is zero-padded.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "memcomp/core/bits.hpp"
#include "memcomp/core/error.hpp"

namespace memcomp {

/// Appends fields to a caller-owned byte buffer of `capacity_bits` bits.
/// REQUIRES: data points to at least ceil(capacity_bits / 8) writable bytes.
class BitWriter {
 public:
  /// buffer_bytes (default: just the capacity) bounds the bytes write_fields may scribble on.
  BitWriter(std::uint8_t* data, std::size_t capacity_bits, std::size_t buffer_bytes = 0) noexcept
      : data_(data),
        capacity_(capacity_bits),
        limit_(buffer_bytes > (capacity_bits + 7) / 8 ? buffer_bytes : (capacity_bits + 7) / 8) {}

  /// Appends the low `nbits` (0..64) bits of `value`; higher bits of value are ignored.
  /// Throws std::length_error past the capacity, invalid_argument for nbits > 64.
  [[gnu::always_inline]] void write(std::uint64_t value, unsigned nbits) {
    if (nbits > 64 || nbits > capacity_ - pos_) overflow(nbits);
    if (nbits > 32) {
      put(value >> 32, nbits - 32);
      put(value & 0xFFFFFFFFu, 32);
    } else {
      put(value, nbits);
    }
  }

  void write_bit(bool b) { write(b ? 1u : 0u, 1); }

  /// Appends n bytes in memory order (the raw-data convention of SPEC 0.3).
  void write_bytes(const std::uint8_t* p, std::size_t n) {
    if (8 * n > capacity_ - pos_) overflow(0);
    if ((nacc_ & 7) == 0) {  // byte-aligned: drain whole pending bytes, then copy straight through
      drain_bytes();
      copy_bytes(data_ + byte_, p, n);
      byte_ += n;
      pos_ += 8 * n;
      return;
    }
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) put(load<std::uint32_t>(p + i, Endian::big), 32);
    for (; i < n; ++i) put(p[i], 8);
  }

  /// Appends k fields: v[i] in len[i] (0..56) bits (values as 32- or 64-bit words, lengths as
  /// bytes or words), in order. REQUIRES v[i] < 2^len[i]. The same stream as k calls of write,
  /// for kernels that form a block's fields first: with 8 bytes of the buffer to spare past
  /// them, every field goes out branch-free through one 8-byte store (bytes past the position
  /// may be scribbled on, never past buffer_bytes).
  template <class V, class Len>
  void write_fields(const V* v, const Len* len, std::size_t k) {
    std::size_t total = 0;
    for (std::size_t i = 0; i < k; ++i) total += len[i];
    if (total > capacity_ - pos_) overflow(0);
    if ((pos_ + total) / 8 + 8 > limit_) {  // near the end of the buffer: field by field
      for (std::size_t i = 0; i < k; ++i) write(v[i], len[i]);
      return;
    }
    drain_bytes();  // at most 7 bits pending, so a field of up to 56 fits the accumulator
    std::uint64_t acc = acc_;
    unsigned nacc = nacc_;
    std::uint8_t* at = data_ + byte_;
    for (std::size_t i = 0; i < k; ++i) {
      nacc += len[i];                                     // (<= 63)
      acc |= std::uint64_t{v[i]} << ((64 - nacc) & 63u);  // (a zero-width field is 0: nothing to add)
      store<std::uint64_t>(at, acc, Endian::big);
      at += nacc >> 3;
      acc <<= nacc & ~7u;
      nacc &= 7u;
    }
    acc_ = acc;
    nacc_ = nacc;
    byte_ = static_cast<std::size_t>(at - data_);
    pos_ += total;
  }

  /// Bits written so far.
  std::size_t position() const noexcept { return pos_; }

  /// Writes the pending bits (the last byte zero padded) and returns the exact bit length.
  std::size_t finish() noexcept {
    drain_bytes();
    if (nacc_ > 0) {
      data_[byte_++] = static_cast<std::uint8_t>(acc_ >> 56);
      acc_ = 0;
      nacc_ = 0;
    }
    return pos_;
  }

 private:
  [[noreturn, gnu::cold, gnu::noinline]] static void overflow(unsigned nbits) {
    if (nbits > 64) throw invalid_argument("BitWriter::write: nbits must be <= 64");
    throw std::length_error("BitWriter: capacity exceeded");
  }
  // acc_ holds nacc_ (< 32) pending bits at its top; whole 32-bit words go out as they fill.
  [[gnu::always_inline]] void put(std::uint64_t value, unsigned nbits) noexcept {  // REQUIRES nbits <= 32
    if (nbits == 0) return;
    acc_ |= (value & low_mask(nbits)) << (64 - nacc_ - nbits);
    nacc_ += nbits;
    pos_ += nbits;
    if (nacc_ >= 32) {
      store<std::uint32_t>(data_ + byte_, static_cast<std::uint32_t>(acc_ >> 32), Endian::big);
      byte_ += 4;
      acc_ <<= 32;
      nacc_ -= 32;
    }
  }
  void drain_bytes() noexcept {
    while (nacc_ >= 8) {
      data_[byte_++] = static_cast<std::uint8_t>(acc_ >> 56);
      acc_ <<= 8;
      nacc_ -= 8;
    }
  }

  std::uint8_t* data_;
  std::size_t capacity_;
  std::size_t limit_;
  std::size_t pos_ = 0;
  std::size_t byte_ = 0;
  std::uint64_t acc_ = 0;
  unsigned nacc_ = 0;
};

/// Reads fields from bits [begin_bit, end_bit) of a byte buffer. Reading past end_bit throws
/// corrupt_stream. It never touches a byte at or beyond `buffer_bytes` (default: the stream's
/// last byte); a larger buffer_bytes only lets it load whole words near the stream's end.
class BitReader {
 public:
  BitReader(const std::uint8_t* data, std::size_t begin_bit, std::size_t end_bit, std::size_t buffer_bytes = 0) noexcept
      : data_(data),
        pos_(begin_bit),
        begin_(begin_bit),
        end_(end_bit < begin_bit ? begin_bit : end_bit),
        limit_(buffer_bytes > (end_ + 7) / 8 ? buffer_bytes : (end_ + 7) / 8) {}
  BitReader(const std::uint8_t* data, std::size_t nbits) noexcept : BitReader(data, 0, nbits) {}

  /// Reads an n-bit field (n in 0..64), MSB first.
  std::uint64_t read(unsigned nbits) {
    if (nbits > 64 || nbits > end_ - pos_) past_end(nbits);
    if (nbits > 56) {
      const std::uint64_t hi = get(nbits - 32);
      return (hi << 32) | get(32);
    }
    return get(nbits);
  }

  bool read_bit() { return read(1) != 0; }

  /// The next n bits (n <= 56) without consuming them; bits past the stream's end read as 0.
  std::uint64_t peek(unsigned nbits) const noexcept {
    const std::size_t avail = end_ - pos_;
    if (nbits <= avail) return get_at(pos_, nbits);
    return avail ? get_at(pos_, static_cast<unsigned>(avail)) << (nbits - avail) : 0;
  }
  /// Consumes n bits (after a peek); throws corrupt_stream past the end like read.
  void skip(unsigned nbits) {
    if (nbits > end_ - pos_) past_end(nbits);
    pos_ += nbits;
  }

  [[gnu::always_inline]] void read_bytes(std::uint8_t* out, std::size_t n) {
    if (8 * n > end_ - pos_) past_end_bytes(n);
    std::size_t i = 0;
    if ((pos_ & 7) == 0) {  // byte-aligned: copy straight through
      copy_bytes(out, data_ + (pos_ >> 3), n);
      pos_ += 8 * n;
      return;
    }
    for (; i + 4 <= n; i += 4) store<std::uint32_t>(out + i, static_cast<std::uint32_t>(get(32)), Endian::big);
    for (; i < n; ++i) out[i] = static_cast<std::uint8_t>(get(8));
  }

  /// Unchecked reads, for a kernel that made sure every byte it may reach lies in the buffer
  /// (raw_room) and checks the end once afterwards (overran): peek_raw's bits past the
  /// stream's end are whatever the buffer holds there, and skip_raw may move past the end.
  /// REQUIRES for peek_raw: 1 <= nbits <= 57 and raw_room() >= 64.
  std::uint64_t peek_raw(unsigned nbits) const noexcept {
    return (load<std::uint64_t>(data_ + (pos_ >> 3), Endian::big) << (pos_ & 7)) >> (64 - nbits);
  }
  void skip_raw(unsigned nbits) noexcept { pos_ += nbits; }
  /// Whether skip_raw has gone past the stream's end (every other call REQUIRES it has not).
  bool overran() const noexcept { return pos_ > end_; }
  /// Bits from the position to the end of the buffer (of which peek_raw may read 64).
  std::size_t raw_room() const noexcept { return 8 * limit_ > pos_ ? 8 * limit_ - pos_ : 0; }

  /// A reader of bits [from, to) of this stream, positions counted as position() counts them
  /// (a part decoded on its own). REQUIRES: from <= to <= size().
  BitReader sub(std::size_t from, std::size_t to) const noexcept {
    BitReader r(*this);
    r.pos_ = begin_ + from;
    r.begin_ = begin_ + from;
    r.end_ = begin_ + to;
    return r;
  }

  /// Bits consumed since begin_bit.
  std::size_t position() const noexcept { return pos_ - begin_; }
  std::size_t remaining() const noexcept { return end_ - pos_; }
  std::size_t size() const noexcept { return end_ - begin_; }

 private:
  [[noreturn, gnu::cold, gnu::noinline]] void past_end(unsigned nbits) const {
    if (nbits > 64) throw invalid_argument("BitReader::read: nbits must be <= 64");
    throw corrupt_stream("truncated stream: a " + std::to_string(nbits) + "-bit field at bit " +
                         std::to_string(pos_ - begin_) + " runs past the end (" + std::to_string(end_ - begin_) +
                         " bits)");
  }
  [[noreturn, gnu::cold, gnu::noinline]] void past_end_bytes(std::size_t n) const {
    throw corrupt_stream("truncated stream: " + std::to_string(n) + " raw bytes at bit " +
                         std::to_string(pos_ - begin_) + " run past the end (" + std::to_string(end_ - begin_) +
                         " bits)");
  }
  // REQUIRES: nbits <= 56 and pos_ + nbits <= end_.
  std::uint64_t get(unsigned nbits) noexcept {
    const std::uint64_t v = get_at(pos_, nbits);
    pos_ += nbits;
    return v;
  }
  // Bits [at, at + nbits) of the buffer. REQUIRES: nbits <= 56 and at + nbits <= end_.
  // (GCC's -Warray-bounds cannot see that the 8-byte load only runs below limit_.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
  std::uint64_t get_at(std::size_t at, unsigned nbits) const noexcept {
    if (nbits == 0) return 0;
    const std::size_t byte = at >> 3;
    const unsigned off = static_cast<unsigned>(at & 7);
    std::uint64_t w = 0;
    if (byte + 8 <= limit_) {
      w = load<std::uint64_t>(data_ + byte, Endian::big);
    } else {
      const std::size_t need = (off + nbits + 7) >> 3;
      for (std::size_t i = 0; i < need; ++i) w |= std::uint64_t{data_[byte + i]} << (56 - 8 * i);
    }
    return (w << off) >> (64 - nbits);
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  const std::uint8_t* data_;
  std::size_t pos_;
  std::size_t begin_;
  std::size_t end_;
  std::size_t limit_;  // bytes of data_ that may be read
};

}  // namespace memcomp
