// memcomp codecs: FPC's kernel table (private; kernels/kernels.hpp). The format's widths are
// defined here once, for the codec (fpc.cpp) and its kernels (fpc_avx2.cpp) alike.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "memcomp/codecs/codec.hpp"
#include "memcomp/core/blocks.hpp"
#include "memcomp/core/size.hpp"

namespace memcomp {

/// Payload bits of each prefix (SPEC 1.2): zero run, signed 4/8/16, high half, two bytes, byte, raw.
inline constexpr unsigned kFpcPayload[8] = {3, 4, 8, 16, 16, 16, 8, 32};
/// The longest token: a 3-bit prefix and the widest payload.
inline constexpr unsigned kFpcMaxToken = 3 + kFpcPayload[7];
/// h of the signed row p (1-3): a word w is in [-h, h - 1] iff w + h < 2h (mod 2^32).
constexpr std::uint32_t fpc_signed_half(unsigned p) { return 1u << (kFpcPayload[p] - 1); }

/// The codec options a kernel reads.
struct FpcShape {
  bool big = false;        // endian big
  bool u7 = false;         // halfwords="gem5"
  bool unbounded = false;  // zero_run unbounded
  bool mc = false;         // layout mc (encode): every prefix, then every field
};

/// Blocks the lane decoder takes at a time.
inline constexpr std::size_t kFpcDecodeLanes = 24;

struct FpcKernels {
  /// Sizes of blocks [begin, end) (size_model bits; blocks of 32 bytes or more).
  void (*measure_range)(const FpcShape&, const BlockView&, std::size_t begin, std::size_t end,
                        const SizeColumns& out) = nullptr;
  /// Codec::encode_range (layout interleaved; blocks of 32 bytes or more).
  std::size_t (*encode_range)(const FpcShape&, const BlockView&, std::size_t begin, std::size_t end, std::uint8_t* buf,
                              std::size_t max_bytes, EncodedBlocks& enc) = nullptr;
  /// Decodes kFpcDecodeLanes blocks of n words, b bytes (layout interleaved), block k's stream
  /// as bits [pos[k], end[k]) from base, into buf (kFpcDecodeLanes * b bytes and spare words);
  /// true when every stream was whole and valid.
  bool (*decode_lanes)(const FpcShape&, const std::uint8_t* base, const std::int32_t* pos, const std::int32_t* end,
                       unsigned n, unsigned b, std::uint8_t* buf) = nullptr;
};

#if defined(MEMCOMP_X86_SIMD)
extern const FpcKernels kFpcAvx2;  // fpc_avx2.cpp
#endif

/// The table of the active tier.
inline const FpcKernels& fpc_kernels() noexcept {
  static constexpr FpcKernels scalar{};
#if defined(MEMCOMP_X86_SIMD)
  return pick_kernels(scalar, &kFpcAvx2, nullptr);
#else
  return pick_kernels(scalar, nullptr, nullptr);
#endif
}

}  // namespace memcomp
