// memcomp core: word loads/stores with explicit endianness and small bit helpers (SPEC 0.2).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace memcomp {

enum class Endian : std::uint8_t { little = 0, big = 1 };

namespace detail {

inline constexpr bool host_is_little() {
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
  return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
#else
  return true;
#endif
}

template <class T>
inline T byteswap(T v) {
  static_assert(std::is_unsigned<T>::value, "unsigned only");
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(v));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(v));
  } else {
    return static_cast<T>(__builtin_bswap64(v));
  }
}

}  // namespace detail

/// Loads an unsigned element of sizeof(T) bytes stored at p in the given byte order.
template <class T>
inline T load(const std::uint8_t* p, Endian e) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  const bool swap = (e == Endian::little) != detail::host_is_little();
  return swap ? detail::byteswap(v) : v;
}

template <class T>
inline void store(std::uint8_t* p, T v, Endian e) {
  const bool swap = (e == Endian::little) != detail::host_is_little();
  if (swap) v = detail::byteswap(v);
  std::memcpy(p, &v, sizeof(T));
}

/// Loads an element of k in {1, 2, 4, 8} bytes, zero-extended to 64 bits.
inline std::uint64_t load_k(const std::uint8_t* p, unsigned k, Endian e) {
  switch (k) {
    case 1: return p[0];
    case 2: return load<std::uint16_t>(p, e);
    case 4: return load<std::uint32_t>(p, e);
    default: return load<std::uint64_t>(p, e);
  }
}

inline void store_k(std::uint8_t* p, std::uint64_t v, unsigned k, Endian e) {
  switch (k) {
    case 1: p[0] = static_cast<std::uint8_t>(v); break;
    case 2: store<std::uint16_t>(p, static_cast<std::uint16_t>(v), e); break;
    case 4: store<std::uint32_t>(p, static_cast<std::uint32_t>(v), e); break;
    default: store<std::uint64_t>(p, v, e); break;
  }
}

/// memcpy for the short copies of block codecs (a raw block, a run of bytes): 16 bytes at a
/// time inline, where a library call would cost more than the copy.
inline void copy_bytes(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) noexcept {
  if (n > 256) {
    std::memcpy(dst, src, n);
    return;
  }
  for (; n >= 16; n -= 16, dst += 16, src += 16) std::memcpy(dst, src, 16);
  for (; n > 0; --n) *dst++ = *src++;
}

/// Mask of the low n bits, n in 0..64.
inline constexpr std::uint64_t low_mask(unsigned n) {
  return n >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1);
}

/// Two's-complement value of the low n bits of v (n in 1..64), as int64.
inline constexpr std::int64_t sign_extend(std::uint64_t v, unsigned n) {
  if (n >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t m = std::uint64_t{1} << (n - 1);
  v &= low_mask(n);
  return static_cast<std::int64_t>((v ^ m) - m);
}

/// True iff x lies in the signed n-bit range [-2^(n-1), 2^(n-1) - 1], n in 1..64.
inline constexpr bool fits_signed(std::int64_t x, unsigned n) {
  if (n >= 64) return true;
  const std::uint64_t half = std::uint64_t{1} << (n - 1);
  return static_cast<std::uint64_t>(x) + half < (half << 1);
}

/// Number of bits needed to write values 0..n-1 (ceil(log2 n)), 0 for n <= 1.
inline constexpr unsigned ceil_log2(std::uint64_t n) {
  unsigned b = 0;
  while (b < 64 && (std::uint64_t{1} << b) < n) ++b;
  return b;
}

inline constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace memcomp
