// memcomp core: SL-bit symbols of a block (SPEC 0.2). SL 4: nibble k is bits [4k, 4k+4) of the
// block read as one little-endian integer (big-endian puts each byte's high nibble first); SL 8:
// bytes; SL 16/32: elements in the given byte order. Entropy tools and E2MC share this order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "memcomp/core/bits.hpp"

namespace memcomp {

template <unsigned SL>
inline std::uint32_t symbol_at(const std::uint8_t* blk, std::size_t i, Endian e) {
  static_assert(SL == 4 || SL == 8 || SL == 16 || SL == 32, "SL is 4, 8, 16 or 32");
  if constexpr (SL == 4) {
    const unsigned byte = blk[i >> 1];
    const bool high = (i & 1) == (e == Endian::little ? 1u : 0u);
    return high ? byte >> 4 : byte & 0xFu;
  } else if constexpr (SL == 8) {
    return blk[i];
  } else if constexpr (SL == 16) {
    return load<std::uint16_t>(blk + 2 * i, e);
  } else {
    return load<std::uint32_t>(blk + 4 * i, e);
  }
}

/// Writes symbol i (the inverse of symbol_at). For SL 4 the other nibble of the byte is kept.
template <unsigned SL>
inline void put_symbol(std::uint8_t* blk, std::size_t i, std::uint32_t v, Endian e) {
  if constexpr (SL == 4) {
    const bool high = (i & 1) == (e == Endian::little ? 1u : 0u);
    std::uint8_t& b = blk[i >> 1];
    b = static_cast<std::uint8_t>(high ? (b & 0x0Fu) | ((v & 0xFu) << 4) : (b & 0xF0u) | (v & 0xFu));
  } else if constexpr (SL == 8) {
    blk[i] = static_cast<std::uint8_t>(v);
  } else if constexpr (SL == 16) {
    store<std::uint16_t>(blk + 2 * i, static_cast<std::uint16_t>(v), e);
  } else {
    store<std::uint32_t>(blk + 4 * i, v, e);
  }
}

/// Calls fn(symbol, position_in_word) for every SL-bit symbol of `n` bytes at p (SPEC 0.2).
template <unsigned SL, class Fn>
inline void for_each_symbol(const std::uint8_t* p, std::size_t n, Endian e, Fn&& fn) {
  constexpr unsigned kPerWord = 32 / SL;
  for (std::size_t i = 0; i < n * 8 / SL; ++i) fn(symbol_at<SL>(p, i, e), static_cast<unsigned>(i % kPerWord));
}

/// Calls f(std::integral_constant<unsigned, SL>{}) for a runtime symbol length.
template <class F>
decltype(auto) with_symbol_bits(unsigned sl, F&& f) {
  switch (sl) {
    case 4: return f(std::integral_constant<unsigned, 4>{});
    case 8: return f(std::integral_constant<unsigned, 8>{});
    case 16: return f(std::integral_constant<unsigned, 16>{});
    default: return f(std::integral_constant<unsigned, 32>{});
  }
}

}  // namespace memcomp
