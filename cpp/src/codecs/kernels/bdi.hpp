// memcomp codecs: BDI's kernel table (private; kernels/kernels.hpp), and the encodings' ids and
// (k, d) pairs, defined here once for the codec (bdi.cpp) and its kernels (bdi_avx2.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
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

}  // namespace bdi

/// The kernels per block size (32, 64, 128, 256 B), [sym][big]: a signed (0) or symmetric (1)
/// delta fit, little (0) or big (1) endian; immediates sign-extended (the codec checks).
struct BdiKernels {
  using MeasureFn = void (*)(const std::int8_t* winner, const SizeBreakdown* sizes, const BlockView&, std::size_t begin,
                             std::size_t end, const SizeColumns& out);
  using ClassifyFn = int (*)(const std::int8_t* winner, const std::uint8_t* blk);
  using WriteFn = void (*)(int id, const std::uint8_t* blk, BitWriter& w);
  using ReadFn = void (*)(int id, BitReader& in, std::uint8_t* out);
  struct BySize {
    MeasureFn measure[2][2];    // the winning encoding's sizes (winner: of each candidate mask)
    ClassifyFn classify[2][2];  // the winning encoding id
    WriteFn write[2][2];        // the deltas of encoding id (2..7), after its head
    ReadFn read[2];             // [big]: the deltas of encoding id, after its head
  };
  BySize size[4] = {};

  /// nullptr where the table has no kernel (blocks below 32 B, the scalar tier).
  MeasureFn measure_range(std::size_t b, bool sym, bool big) const {
    return at(b) ? at(b)->measure[sym][big] : nullptr;
  }
  ClassifyFn classify(std::size_t b, bool sym, bool big) const { return at(b) ? at(b)->classify[sym][big] : nullptr; }
  WriteFn write_deltas(std::size_t b, bool sym, bool big) const { return at(b) ? at(b)->write[sym][big] : nullptr; }
  ReadFn read_deltas(std::size_t b, bool big) const { return at(b) ? at(b)->read[big] : nullptr; }

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
