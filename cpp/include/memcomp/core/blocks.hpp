// memcomp core: views over C-contiguous memory blocks (SPEC 0.1).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "memcomp/core/error.hpp"

namespace memcomp {

/// Block sizes every codec family is defined for (SPEC 0.1).
inline constexpr std::size_t valid_block_sizes[] = {16, 32, 64, 128, 256};

inline bool is_valid_block_bytes(std::size_t b) {
  for (std::size_t v : valid_block_sizes)
    if (v == b) return true;
  return false;
}

inline void check_block_bytes(std::size_t b) {
  if (!is_valid_block_bytes(b))
    throw invalid_argument("block size " + std::to_string(b) + " B is not supported; use 16, 32, 64, 128 or 256 B");
}

/// n_blocks blocks of block_bytes bytes each, stored back to back (a C-contiguous (n, B) array).
/// `approximable` (optional, one byte per block, non-zero = may be approximated) is read by lossy
/// codecs only (SLC, P4 §IV-C: the user marks safe-to-approximate data); null means every block.
struct BlockView {
  const std::uint8_t* data = nullptr;
  std::size_t n_blocks = 0;
  std::size_t block_bytes = 0;
  const std::uint8_t* approximable = nullptr;

  const std::uint8_t* block(std::size_t i) const noexcept { return data + i * block_bytes; }
  bool may_approximate(std::size_t i) const noexcept { return !approximable || approximable[i] != 0; }
  /// Blocks [begin, begin + n) as a view of their own (the mask follows).
  BlockView slice(std::size_t begin, std::size_t n) const noexcept {
    return {block(begin), n, block_bytes, approximable ? approximable + begin : nullptr};
  }
};

}  // namespace memcomp
