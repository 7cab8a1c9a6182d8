// memcomp codecs: batch loops and stream validation shared by every codec.
#include "memcomp/codecs/codec.hpp"

#include <limits>
#include <string>

#include "memcomp/core/parallel.hpp"

namespace memcomp {

namespace {
constexpr std::size_t kMinChunk = 4096;  // blocks per thread before another thread pays off
}

std::uint32_t Codec::encode(const std::uint8_t*, std::size_t, BitWriter&) const { not_decodable(); }

void Codec::decode(BitReader&, std::uint32_t, std::uint8_t*, std::size_t) const { not_decodable(); }

void Codec::not_decodable() const {
  throw invalid_argument(preset_ + " is an accounting-only preset (exact=False): it reproduces " +
                         "another tool's sizes, which no decodable format reaches; use measure()");
}

void Codec::measure_range(const BlockView& blocks, std::size_t begin, std::size_t end,
                          const SizeColumns& out) const {
  for (std::size_t i = begin; i < end; ++i) out.set(i, measure(blocks.block(i), blocks.block_bytes));
}

void Codec::measure_batch(const BlockView& blocks, const SizeColumns& out, int threads) const {
  check_block_bytes(blocks.block_bytes);
  parallel_for(blocks.n_blocks, threads, kMinChunk,
               [&](std::size_t b, std::size_t e) { measure_range(blocks, b, e, out); });
}

EncodedBlocks Codec::encode_batch(const BlockView& blocks, int threads) const {
  check_block_bytes(blocks.block_bytes);
  if (!exact()) not_decodable();
  const std::size_t n = blocks.n_blocks;
  EncodedBlocks enc;
  enc.block_bytes = blocks.block_bytes;
  enc.bit_offsets.resize(n);
  enc.bit_lengths.resize(n);
  enc.tags.resize(n);
  parallel_for(n, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i)
      enc.bit_lengths[i] = measure(blocks.block(i), blocks.block_bytes).inband();
  });
  std::uint64_t off = 0;
  for (std::size_t i = 0; i < n; ++i) {
    enc.bit_offsets[i] = off;
    off += (std::uint64_t{enc.bit_lengths[i]} + 7) & ~std::uint64_t{7};
  }
  enc.data.assign(static_cast<std::size_t>(off / 8), 0);
  parallel_for(n, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      BitWriter w(enc.data.data() + enc.bit_offsets[i] / 8, enc.bit_lengths[i]);
      enc.tags[i] = encode(blocks.block(i), blocks.block_bytes, w);
      if (w.finish() != enc.bit_lengths[i])
        throw std::logic_error(preset_ + ": encoded length differs from measure() at block " +
                               std::to_string(i));
    }
  });
  return enc;
}

void Codec::decode_batch(const EncodedView& enc, std::uint8_t* out, int threads) const {
  check_block_bytes(enc.block_bytes);
  if (!exact()) not_decodable();
  const std::uint64_t max_bits = max_compressed_bits(enc.block_bytes);
  const std::uint64_t total_bits = std::uint64_t{enc.data_bytes} * 8;
  for (std::size_t i = 0; i < enc.n_blocks; ++i) {
    const std::uint64_t off = enc.bit_offsets[i], len = enc.bit_lengths[i];
    if (len > max_bits)
      throw corrupt_stream("block " + std::to_string(i) + ": stream length " + std::to_string(len) +
                           " bits exceeds the codec's maximum of " + std::to_string(max_bits));
    if (off > total_bits || len > total_bits - off)
      throw corrupt_stream("block " + std::to_string(i) + ": bits [" + std::to_string(off) + ", " +
                           std::to_string(off + len) + ") lie outside the " +
                           std::to_string(enc.data_bytes) + "-byte buffer");
  }
  parallel_for(enc.n_blocks, threads, kMinChunk, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const std::uint64_t off = enc.bit_offsets[i], len = enc.bit_lengths[i];
      BitReader r(enc.data, static_cast<std::size_t>(off), static_cast<std::size_t>(off + len));
      try {
        decode(r, enc.tags[i], out + i * enc.block_bytes, enc.block_bytes);
        if (r.remaining() != 0)
          throw corrupt_stream(std::to_string(r.remaining()) + " trailing bits after the last field");
      } catch (const corrupt_stream& err) {
        throw corrupt_stream(preset_ + " block " + std::to_string(i) + ": " + err.what());
      }
    }
  });
}

}  // namespace memcomp
