// memcomp codecs: BDI's kernel table (private; kernels/kernels.hpp), and the encodings' ids and
// (k, d) pairs, defined here once for the codec (bdi.cpp) and its kernels (bdi_avx2.cpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels.hpp"
#include "memcomp/core/bits.hpp"
#include "memcomp/core/bitstream.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/core/size.hpp"

namespace memcomp {
namespace bdi {

enum : int { kZero = 0, kRep8 = 1, kRep4 = 8, kRaw = 15 };

struct Delta {
  int id;
  unsigned k, d;
};
inline constexpr Delta kDeltas[] = {{2, 8, 1}, {3, 8, 2}, {4, 8, 4}, {5, 4, 1}, {6, 4, 2}, {7, 2, 1}};
inline const Delta* find_delta(int id) { return id >= 2 && id <= 7 ? &kDeltas[id - 2] : nullptr; }

/// What a stream holds around its deltas: the settings the codec and its range kernels share.
struct Framing {
  bool inband;         // the 4-bit encoding leads the stream
  bool tagged;         // the tag holds the encoding
  unsigned zero_bits;  // a zero block's payload
  bool repeat4;        // rep4 is an encoding
  Endian endian;

  std::uint32_t tag_of(int id) const { return tagged ? static_cast<std::uint32_t>(id) : 0u; }

  /// The stream of encoding id up to its deltas: the whole stream of a zero, repeated or raw
  /// block (and nullptr), else the encoding's Delta for a delta writer to finish. Inlined where
  /// b is a constant, so the raw copy is too.
  [[gnu::always_inline]] const Delta* encode_head(int id, const std::uint8_t* blk, std::size_t b, BitWriter& w) const {
    if (inband) w.write(static_cast<std::uint64_t>(id), 4);
    if (id == kZero) {
      w.write(0, zero_bits);
    } else if (id == kRep8 || id == kRep4) {
      const unsigned k = id == kRep8 ? 8 : 4;
      w.write(load_k(blk, k, endian), 8 * k);
    } else if (id == kRaw) {
      w.write_bytes(blk, b);
    } else {
      return find_delta(id);
    }
    return nullptr;
  }

  /// A stream up to its deltas: the whole block if zero, repeated or raw (and nullptr), else the
  /// encoding's Delta for a delta reader to finish.
  [[gnu::always_inline]] const Delta* decode_head(BitReader& in, std::uint32_t tag, std::uint8_t* out,
                                                  std::size_t b) const {
    const int id = static_cast<int>(inband ? in.read(4) : tag);
    if (id == kZero) {
      if (in.read(zero_bits) != 0) throw corrupt_stream("bdi zero block with non-zero payload");
      std::memset(out, 0, b);
    } else if ((id == kRep8) || (id == kRep4 && repeat4)) {
      const unsigned k = id == kRep8 ? 8 : 4;
      const std::uint64_t v = in.read(8 * k);
      for (std::size_t i = 0; i < b; i += k) store_k(out + i, v, k, endian);
    } else if (id == kRaw) {
      in.read_bytes(out, b);
    } else if (const Delta* x = find_delta(id)) {
      return x;
    } else {
      throw corrupt_stream("bdi encoding " + std::to_string(id) + " is not defined");
    }
    return nullptr;
  }
};

}  // namespace bdi

/// The kernels per block size (32, 64, 128, 256 B), [sym][big]: a signed (0) or symmetric (1)
/// delta fit, little (0) or big (1) endian; immediates sign-extended (the codec checks).
struct BdiKernels {
  using MeasureFn = void (*)(const std::int8_t* winner, const SizeBreakdown* sizes, const BlockView&, std::size_t begin,
                             std::size_t end, const SizeColumns& out);
  using ClassifyFn = int (*)(const std::int8_t* winner, const std::uint8_t* blk);
  using WriteFn = void (*)(int id, const std::uint8_t* blk, BitWriter& w);
  using ReadFn = void (*)(int id, BitReader& in, std::uint8_t* out);
  /// Codec::encode_range, every block classified and written inline (one dispatch per range).
  using EncodeRangeFn = std::size_t (*)(const bdi::Framing&, const std::int8_t* winner, const BlockView&,
                                        std::size_t begin, std::size_t end, std::uint8_t* buf, std::size_t max_bytes,
                                        EncodedBlocks& enc);
  /// Codec::decode_range of a validated view, every block read inline; returns the first block
  /// it did not decode (end, or a corrupt one, which the codec's own loop then names).
  using DecodeRangeFn = std::size_t (*)(const bdi::Framing&, const EncodedView&, std::uint8_t* out, std::size_t begin,
                                        std::size_t end);
  struct BySize {
    MeasureFn measure[2][2];           // the winning encoding's sizes (winner: of each candidate mask)
    ClassifyFn classify[2][2];         // the winning encoding id
    WriteFn write[2][2];               // the deltas of encoding id (2..7), after its head
    ReadFn read[2];                    // [big]: the deltas of encoding id, after its head
    EncodeRangeFn encode_range[2][2];  // [sym][big]
    DecodeRangeFn decode_range[2];     // [big]
  };
  BySize size[4] = {};

  /// nullptr where the table has no kernel (blocks below 32 B, the scalar tier).
  MeasureFn measure_range(std::size_t b, bool sym, bool big) const {
    return at(b) ? at(b)->measure[sym][big] : nullptr;
  }
  ClassifyFn classify(std::size_t b, bool sym, bool big) const { return at(b) ? at(b)->classify[sym][big] : nullptr; }
  WriteFn write_deltas(std::size_t b, bool sym, bool big) const { return at(b) ? at(b)->write[sym][big] : nullptr; }
  ReadFn read_deltas(std::size_t b, bool big) const { return at(b) ? at(b)->read[big] : nullptr; }
  EncodeRangeFn encode_range(std::size_t b, bool sym, bool big) const {
    return at(b) ? at(b)->encode_range[sym][big] : nullptr;
  }
  DecodeRangeFn decode_range(std::size_t b, bool big) const { return at(b) ? at(b)->decode_range[big] : nullptr; }

 private:
  const BySize* at(std::size_t b) const {
    return b == 32 ? &size[0] : b == 64 ? &size[1] : b == 128 ? &size[2] : b == 256 ? &size[3] : nullptr;
  }
};

#if defined(MEMCOMP_X86_SIMD)
extern const BdiKernels kBdiAvx2;  // bdi_avx2.cpp
#endif

/// The table of the active tier.
inline const BdiKernels& bdi_kernels() noexcept {
  static const BdiKernels scalar{};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kBdiAvx2, nullptr);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
