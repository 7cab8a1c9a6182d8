// memcomp codecs: LZSS's mask rows for the AVX2 tier (kernels/lzss.hpp): each unit compared with
// the 64 units of a row word, 32 bytes (or 8 words) per compare, the lanes' results gathered by
// VPMOVMSKB (VMOVMSKPS for words); the starts from four row words ANDed and tested at a time.
#include "lzss.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include <cstring>

namespace memcomp {
namespace {

MEMCOMP_AVX2_INLINE std::uint64_t equal_bytes(__m256i c, const std::uint8_t* s) {
  const auto lo = static_cast<std::uint32_t>(
      _mm256_movemask_epi8(_mm256_cmpeq_epi8(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s)))));
  const auto hi = static_cast<std::uint32_t>(
      _mm256_movemask_epi8(_mm256_cmpeq_epi8(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32)))));
  return std::uint64_t{hi} << 32 | lo;
}

// The tier's steps of lzss::rows_of.
struct Avx2 {
  template <std::size_t W>
  MEMCOMP_AVX2 static void bytes(const std::uint8_t* u, std::size_t n, std::uint64_t* rows) {
    for (std::size_t i = 0; i < n; ++i) {
      const __m256i c = _mm256_set1_epi8(static_cast<char>(u[i]));
      for (std::size_t w = 0; w < W; ++w) {
        std::uint64_t m = 0;
        if (i > 64 * w) {  // some distance of the word reaches inside the block
          m = equal_bytes(c, u + i - 64 * (w + 1));
          if (i < 64 * (w + 1)) m &= ~std::uint64_t{0} << (64 * (w + 1) - i);
        }
        rows[i * W + w] = m;
      }
    }
  }

  // Words: n <= 64, one row word.
  MEMCOMP_AVX2 static void words(const std::uint8_t* u, std::size_t n, std::uint64_t* rows) {
    rows[0] = 0;
    for (std::size_t i = 1; i < n; ++i) {
      std::int32_t v;
      std::memcpy(&v, u + 4 * i, 4);
      const __m256i c = _mm256_set1_epi32(v);
      const std::uint8_t* s = u + 4 * i - 4 * 64;
      std::uint64_t m = 0;
      for (unsigned k = 0; k < 8; ++k) {
        const __m256i e = _mm256_cmpeq_epi32(c, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 32 * k)));
        m |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(e)))} << (8 * k);
      }
      rows[i] = m & ~std::uint64_t{0} << (64 - i);
    }
  }

  template <std::size_t W>
  MEMCOMP_AVX2 static void starts(const std::uint64_t* rows, std::size_t n, unsigned min_match, std::uint64_t* out) {
    std::uint64_t nz[lzss::kMaxUnits * 4 / 64] = {};
    const __m256i zero = _mm256_setzero_si256();
    for (std::size_t j = 0; j < n * W; j += 4) {
      __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows + j));
      for (unsigned k = 1; k < min_match; ++k)
        x = _mm256_and_si256(x, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows + j + k * W)));
      const auto is0 = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(x, zero))));
      nz[j / 64] |= std::uint64_t{~is0 & 0xFu} << (j % 64);
    }
    lzss::starts_from_words<W>(nz, n, out);
  }
};

}  // namespace

const LzssKernels kLzssAvx2 = {&lzss::rows_of<Avx2>};

}  // namespace memcomp
#endif
