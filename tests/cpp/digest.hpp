// SHA-256 (FIPS 180-4) and base64 decoding (RFC 4648) for the frozen-stream golden file
// (tests/golden/streams.json), so the C++ suite checks the digests the Python suite writes.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace memcomp::test {

/// The SHA-256 of n bytes as 64 lower-case hex digits.
inline std::string sha256_hex(const std::uint8_t* data, std::size_t n) {
  static constexpr std::array<std::uint32_t, 64> k = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  auto rotr = [](std::uint32_t x, int r) { return (x >> r) | (x << (32 - r)); };
  // The message, a 1 bit, zeros up to 56 mod 64 bytes, then the bit length (big-endian).
  std::vector<std::uint8_t> msg(data, data + n);
  msg.push_back(0x80);
  while (msg.size() % 64 != 56) msg.push_back(0);
  const std::uint64_t bits = static_cast<std::uint64_t>(n) * 8;
  for (int i = 7; i >= 0; --i) msg.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
  for (std::size_t at = 0; at < msg.size(); at += 64) {
    std::array<std::uint32_t, 64> w{};
    for (std::size_t i = 0; i < 16; ++i)
      w[i] = std::uint32_t{msg[at + 4 * i]} << 24 | std::uint32_t{msg[at + 4 * i + 1]} << 16 |
             std::uint32_t{msg[at + 4 * i + 2]} << 8 | std::uint32_t{msg[at + 4 * i + 3]};
    for (std::size_t i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<std::uint32_t, 8> v = h;
    for (std::size_t i = 0; i < 64; ++i) {
      const std::uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      const std::uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      const std::uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
      const std::uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      const std::uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      v = {t1 + s0 + maj, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (std::size_t i = 0; i < 8; ++i) h[i] += v[i];
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (const std::uint32_t x : h)
    for (int s = 28; s >= 0; s -= 4) out += hex[(x >> s) & 0xF];
  return out;
}

/// The bytes of standard base64 text (padding required, no line breaks).
inline std::vector<std::uint8_t> base64_decode(const std::string& text) {
  auto value = [&](char c) -> std::uint32_t {
    if (c >= 'A' && c <= 'Z') return static_cast<std::uint32_t>(c - 'A');
    if (c >= 'a' && c <= 'z') return static_cast<std::uint32_t>(c - 'a' + 26);
    if (c >= '0' && c <= '9') return static_cast<std::uint32_t>(c - '0' + 52);
    if (c == '+') return 62;
    if (c == '/') return 63;
    throw std::runtime_error(std::string("bad base64 character '") + c + "'");
  };
  if (text.size() % 4 != 0) throw std::runtime_error("base64 text length is not a multiple of 4");
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const std::size_t pad = text[i + 3] != '=' ? 0 : text[i + 2] != '=' ? 1 : 2;
    if (pad && i + 4 != text.size()) throw std::runtime_error("base64 padding before the end");
    std::uint32_t x = 0;
    for (std::size_t j = 0; j < 4; ++j) x = x << 6 | (j < 4 - pad ? value(text[i + j]) : 0);
    for (std::size_t j = 0; j < 3 - pad; ++j) out.push_back(static_cast<std::uint8_t>(x >> (16 - 8 * j)));
  }
  return out;
}

}  // namespace memcomp::test
