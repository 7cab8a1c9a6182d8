// memcomp codecs: LZSS's mask rows for the AVX-512 tier (kernels/lzss.hpp): each unit compared
// with the 64 units of a row word in one VPCMPEQB into a mask register (four VPCMPEQD for words);
// the starts from eight row words ANDed and tested per instruction.
#include "lzss.hpp"

#if defined(MEMCOMP_X86_SIMD)
#include <immintrin.h>

#include <cstring>

namespace memcomp {
namespace {

// The tier's steps of lzss::rows_of.
struct Avx512 {
  template <std::size_t W>
  MEMCOMP_AVX512 static void bytes(const std::uint8_t* u, std::size_t n, std::uint64_t* rows) {
    for (std::size_t i = 0; i < n; ++i) {
      const __m512i c = _mm512_set1_epi8(static_cast<char>(u[i]));
      for (std::size_t w = 0; w < W; ++w) {
        std::uint64_t m = 0;
        if (i > 64 * w) {  // some distance of the word reaches inside the block
          m = _mm512_cmpeq_epi8_mask(c, _mm512_loadu_si512(u + i - 64 * (w + 1)));
          if (i < 64 * (w + 1)) m &= ~std::uint64_t{0} << (64 * (w + 1) - i);
        }
        rows[i * W + w] = m;
      }
    }
  }

  // Words: n <= 64, one row word.
  MEMCOMP_AVX512 static void words(const std::uint8_t* u, std::size_t n, std::uint64_t* rows) {
    rows[0] = 0;
    for (std::size_t i = 1; i < n; ++i) {
      std::int32_t v;
      std::memcpy(&v, u + 4 * i, 4);
      const __m512i c = _mm512_set1_epi32(v);
      const std::uint8_t* s = u + 4 * i - 4 * 64;
      std::uint64_t m = 0;
      for (unsigned k = 0; k < 4; ++k)
        m |= std::uint64_t{_mm512_cmpeq_epi32_mask(c, _mm512_loadu_si512(s + 64 * k))} << (16 * k);
      rows[i] = m & ~std::uint64_t{0} << (64 - i);
    }
  }

  template <std::size_t W>
  MEMCOMP_AVX512 static void starts(const std::uint64_t* rows, std::size_t n, unsigned min_match, std::uint64_t* out) {
    std::uint64_t nz[lzss::kMaxUnits * 4 / 64] = {};
    for (std::size_t j = 0; j < n * W; j += 8) {
      __m512i x = _mm512_loadu_si512(rows + j);
      for (unsigned k = 1; k < min_match; ++k) x = _mm512_and_si512(x, _mm512_loadu_si512(rows + j + k * W));
      nz[j / 64] |= std::uint64_t{_mm512_test_epi64_mask(x, x)} << (j % 64);
    }
    lzss::starts_from_words<W>(nz, n, out);
  }
};

}  // namespace

const LzssKernels kLzssAvx512 = {&lzss::rows_of<Avx512>};

}  // namespace memcomp
#endif
