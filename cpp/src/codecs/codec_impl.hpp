// memcomp codecs (private to src/codecs): how a codec meets the contract of codec.hpp. CodecImpl
// runs a codec's measure, encode and decode over a range of blocks in statically dispatched loops;
// `batch` holds what those loops and the SIMD kernels' own loops share: where a block's stream
// goes in a range's buffer, how it is recorded and read back, the lane decoders' groups and their
// fallback, and the errors that name a block.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "memcomp/codecs/codec.hpp"

namespace memcomp {
namespace batch {

/// Bytes past a range's worst case that its writers may scribble on (BitWriter::write_fields).
inline constexpr std::size_t kWriteSlack = 8;
inline std::size_t range_bytes(std::size_t begin, std::size_t end, std::size_t max_bytes) noexcept {
  return (end - begin) * max_bytes + kWriteSlack;
}
/// The writer of a block's stream from byte `at` of a range's buffer of buf_bytes bytes.
inline BitWriter block_writer(std::uint8_t* buf, std::size_t at, std::size_t max_bytes,
                              std::size_t buf_bytes) noexcept {
  return BitWriter(buf + at, 8 * max_bytes, buf_bytes - at);
}
/// Records block i's stream of `bits` bits from byte `at` of its range's buffer, and returns the
/// byte where the next one starts (encode_loop's step, for kernels that run their own loop).
inline std::size_t record_block(EncodedBlocks& enc, std::size_t i, std::size_t at, std::uint32_t tag,
                                std::size_t bits) noexcept {
  enc.tags[i] = tag;
  enc.bit_offsets[i] = 8 * at;
  enc.bit_lengths[i] = static_cast<std::uint32_t>(bits);
  return at + (bits + 7) / 8;
}
/// Records blocks [i, i + k) whose streams of bits[j] bits were written apart, at lanes +
/// j * lane_bytes (a lane kernel's), each behind the last from byte `at` of the range's buffer
/// (8 bytes at a time, into kWriteSlack); returns the byte where the next one starts.
inline std::size_t append_streams(EncodedBlocks& enc, std::size_t i, std::size_t k, std::uint8_t* buf, std::size_t at,
                                  const std::uint8_t* lanes, std::size_t lane_bytes,
                                  const std::uint32_t* bits) noexcept {
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t o = 0; o < (bits[j] + 7) / 8; o += 8) std::memcpy(buf + at + o, lanes + j * lane_bytes + o, 8);
    at = record_block(enc, i + j, at, 0, bits[j]);
  }
  return at;
}
/// The reader of block i's stream (the view is validated).
inline BitReader block_reader(const EncodedView& enc, std::size_t i) {
  const auto off = static_cast<std::size_t>(enc.bit_offsets[i]);
  return BitReader(enc.data, off, off + enc.bit_lengths[i], enc.data_bytes);
}
/// The encode loop around a block encoder f(blocks, i, writer) -> tag.
template <class F>
std::size_t encode_loop(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                        std::size_t max_bytes, EncodedBlocks& enc, F&& f) {
  std::size_t at = 0;
  for (std::size_t i = begin; i < end; ++i) {
    BitWriter w = block_writer(buf, at, max_bytes, range_bytes(begin, end, max_bytes));
    const std::uint32_t tag = f(blocks, i, w);
    at = record_block(enc, i, at, tag, w.finish());
  }
  return at;
}
/// Blocks [i, i + k) as the lanes of a vector decoder: each stream as bits [pos, end) from
/// `base`. False (decode those blocks one by one) unless every position is below 2^30 and
/// `base` is readable 8 bytes past a token of up to max_token bits begun at any stream's end.
bool lane_streams(const EncodedView& enc, std::size_t i, std::size_t k, unsigned max_token, const std::uint8_t*& base,
                  std::int32_t* pos, std::int32_t* end) noexcept;
/// Groups of blocks that a lane decoder handed to the one-block loop because their streams were
/// not all valid, counted over the process. Valid streams never add to it: the tests read it to
/// see that the lane kernels do decode them.
std::uint64_t lane_fallbacks() noexcept;
void count_lane_fallback() noexcept;
[[noreturn]] void trailing_bits(std::size_t n);
/// corrupt_stream naming the codec and block i.
[[noreturn]] void in_block(const Codec& c, std::size_t i, const corrupt_stream& err);
/// invalid_argument: the codec is accounting-only (no stream decodes or encodes).
[[noreturn]] void not_decodable(const Codec& c);

}  // namespace batch

/// Calls f(std::integral_constant<std::size_t, B>{}) for a runtime block size b in {16, ..., 256},
/// so codecs can specialise their loops on the block size.
template <class F>
decltype(auto) with_block_size(std::size_t b, F&& f) {
  switch (b) {
    case 16: return f(std::integral_constant<std::size_t, 16>{});
    case 32: return f(std::integral_constant<std::size_t, 32>{});
    case 64: return f(std::integral_constant<std::size_t, 64>{});
    case 128: return f(std::integral_constant<std::size_t, 128>{});
    default: return f(std::integral_constant<std::size_t, 256>{});
  }
}

/// CRTP base of every codec: the range loops call Derived::measure, encode and decode directly,
/// so they inline.
template <class Derived>
class CodecImpl : public Codec {
 protected:
  void measure_range(const BlockView& blocks, std::size_t begin, std::size_t end, const SizeColumns& out,
                     CodecState*) const override {
    const Derived& self = static_cast<const Derived&>(*this);
    const std::size_t b = blocks.block_bytes;
    for (std::size_t i = begin; i < end; ++i) out.set(i, self.Derived::measure(blocks.block(i), b));
  }
  std::size_t encode_range(const BlockView& blocks, std::size_t begin, std::size_t end, std::uint8_t* buf,
                           std::size_t max_bytes, EncodedBlocks& enc, CodecState*) const override {
    const Derived& self = static_cast<const Derived&>(*this);
    return batch::encode_loop(
        blocks, begin, end, buf, max_bytes, enc, [&](const BlockView& v, std::size_t i, BitWriter& w) {
          // A codec that reads more than the block (a lossy one's approximable
          // flag) overrides encode_block; the others are called at encode.
          using Default = std::uint32_t (Codec::*)(const BlockView&, std::size_t, BitWriter&) const;
          if constexpr (std::is_same_v<decltype(&Derived::encode_block), Default>)
            return self.Derived::encode(v.block(i), v.block_bytes, w);
          else
            return self.Derived::encode_block(v, i, w);
        });
  }
  void decode_range(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                    CodecState*) const override {
    const Derived& self = static_cast<const Derived&>(*this);
    decode_loop(enc, out, begin, end, [&](BitReader& r, std::uint32_t tag, std::uint8_t* o, std::size_t b) {
      self.Derived::decode(r, tag, o, b);
    });
  }

  /// The decode loop around a block decoder g(reader, tag, out, block_bytes): the first block
  /// that is corrupt or leaves bits over is named.
  template <class G>
  void decode_loop(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end, G&& g) const {
    for (std::size_t i = begin; i < end; ++i) {
      BitReader r = batch::block_reader(enc, i);
      try {
        g(r, enc.tags[i], out + i * enc.block_bytes, enc.block_bytes);
        if (r.remaining() != 0) batch::trailing_bits(r.remaining());
      } catch (const corrupt_stream& err) {
        batch::in_block(*this, i, err);
      }
    }
  }
  /// decode_loop two blocks at a time: pair(ra, oa, rb, ob) decodes blocks i and i + 1 side by
  /// side (their dependency chains overlap). A pair that throws corrupt_stream or leaves bits
  /// over is decoded again one block after the other by g, which names the first bad block.
  template <class P, class G>
  void decode_pairs(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end, P&& pair,
                    G&& g) const {
    const std::size_t b = enc.block_bytes;
    std::size_t i = begin;
    for (; i + 2 <= end; i += 2) {
      BitReader ra = batch::block_reader(enc, i), rb = batch::block_reader(enc, i + 1);
      bool ok = false;
      try {
        pair(ra, out + i * b, rb, out + (i + 1) * b);
        ok = ra.remaining() == 0 && rb.remaining() == 0;
      } catch (const corrupt_stream&) {
      }
      if (!ok) decode_loop(enc, out, i, i + 2, g);
    }
    decode_loop(enc, out, i, end, g);
  }
  /// A lane decoder's loop: groups of K blocks, while lane_streams takes them, decoded by
  /// lanes(base, pos, end, buf) into buf (K blocks), copied out when it returns true, else one
  /// block at a time (counted: lane_fallbacks; the loop names the first bad block). Returns
  /// where it stopped.
  template <std::size_t K, class L>
  std::size_t decode_groups(const EncodedView& enc, std::uint8_t* out, std::size_t begin, std::size_t end,
                            unsigned max_token, L&& lanes) const {
    const std::size_t b = enc.block_bytes;
    alignas(32) std::uint8_t buf[K * 256 + 4];
    std::int32_t pos[K], stop[K];
    const std::uint8_t* base = nullptr;
    std::size_t i = begin;
    for (; i + K <= end; i += K) {
      if (!batch::lane_streams(enc, i, K, max_token, base, pos, stop)) break;
      if (lanes(base, pos, stop, buf)) {
        std::memcpy(out + i * b, buf, K * b);
      } else {
        batch::count_lane_fallback();
        decode_loop(enc, out, i, i + K,
                    [&](BitReader& r, std::uint32_t tag, std::uint8_t* o, std::size_t bb) { decode(r, tag, o, bb); });
      }
    }
    return i;
  }
  [[noreturn]] void not_decodable() const { batch::not_decodable(*this); }
};

}  // namespace memcomp
