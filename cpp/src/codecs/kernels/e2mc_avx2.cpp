// memcomp codecs: E2MC's AVX2 kernels (kernels/e2mc.hpp).
#include "e2mc.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include "memcomp/core/symbols.hpp"

namespace memcomp {
namespace {

// The bits of each of the n 32-bit symbols with one hashed table (the code's length, or
// `miss` for a value without one), eight symbols per gather; returns their sum.
MEMCOMP_AVX2 std::uint32_t bits32_avx2(const huffman::CanonicalCode& table, bool big, const std::uint8_t* blk,
                                       std::size_t n, unsigned miss, std::uint8_t* c) {
  const huffman::CanonicalCode::Lengths length_of(table);
  const __m256i other = _mm256_set1_epi32(static_cast<int>(miss));
  __m256i sum = _mm256_setzero_si256();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 4 * i));
    if (big) v = bswap32(v);
    __m256i len = length_of.eight(v);
    len = _mm256_blendv_epi8(len, other, _mm256_cmpeq_epi32(len, _mm256_setzero_si256()));
    sum = _mm256_add_epi32(sum, len);
    const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(len), _mm256_extracti128_si256(len, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(c + i), _mm_packus_epi16(w, w));
  }
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  auto total = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1))));
  for (; i < n; ++i) {
    const unsigned len = length_of(symbol_at<32>(blk, i, big ? Endian::big : Endian::little));
    c[i] = static_cast<std::uint8_t>(len ? len : miss);
    total += c[i];
  }
  return total;
}

}  // namespace

const E2mcKernels kE2mcAvx2 = {&bits32_avx2};

}  // namespace memcomp
#endif
