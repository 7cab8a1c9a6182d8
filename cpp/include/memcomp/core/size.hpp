// memcomp core: the size record every codec reports (SPEC 0.4).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace memcomp {

/// Bits of one compressed block. In-band bits (the stream length L) are payload + meta + header;
/// tag bits live beside the block (in the cache/memory tags) and are counted only on request.
struct SizeBreakdown {
  std::uint32_t payload = 0;  ///< data fields (bases, deltas, literals, run lengths, ...)
  std::uint32_t meta = 0;     ///< per-element metadata (prefixes, masks, codes)
  std::uint32_t header = 0;   ///< per-block in-band header (encoding, class, pointers, pads)
  std::uint32_t tag = 0;      ///< tag-side bits (encoding kept in tags, raw flags)
  std::int16_t mode = 0;      ///< codec-specific encoding id

  std::uint32_t inband() const noexcept { return payload + meta + header; }
};

/// Per-block output columns of a batch measure; every pointer addresses n_blocks entries.
struct SizeColumns {
  std::uint32_t* bits = nullptr;  ///< in-band bits
  std::uint32_t* payload = nullptr;
  std::uint32_t* meta = nullptr;
  std::uint32_t* header = nullptr;
  std::uint32_t* tag = nullptr;
  std::int16_t* mode = nullptr;

  void set(std::size_t i, const SizeBreakdown& s) const noexcept {
    bits[i] = s.inband();
    payload[i] = s.payload;
    meta[i] = s.meta;
    header[i] = s.header;
    tag[i] = s.tag;
    mode[i] = s.mode;
  }
};

/// Size columns of n blocks that own their storage (a piece's scratch columns).
struct SizeBuffers {
  explicit SizeBuffers(std::size_t n) : u32(5 * n), mode(n), n_(n) {}
  /// The columns from block `at` on.
  SizeColumns view(std::size_t at = 0) {
    return {u32.data() + at,          u32.data() + n_ + at,     u32.data() + 2 * n_ + at,
            u32.data() + 3 * n_ + at, u32.data() + 4 * n_ + at, mode.data() + at};
  }
  std::vector<std::uint32_t> u32;
  std::vector<std::int16_t> mode;
  std::size_t n_;
};

}  // namespace memcomp
