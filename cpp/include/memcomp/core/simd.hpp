// memcomp core: run-time dispatch to the SIMD fast paths. Each fast path equals its portable
// scalar reference bit for bit (the tests compare them with the switch off); the build never
// assumes an instruction set (no -march=native), the CPU is asked at run time.
#pragma once

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define MEMCOMP_X86_SIMD 1  // AVX2 kernels, chosen at run time
// The instruction sets of the AVX2 tier (every AVX2 CPU has them; simd_avx2() checks them all):
// BMI2's shifts by a register are one micro-op, where SHL by CL is three.
#define MEMCOMP_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define MEMCOMP_AVX2_INLINE __attribute__((target("avx2,bmi,bmi2,popcnt"), always_inline)) inline
// The AVX-512 tier (Ice Lake, Zen 4 and later; simd_avx512() checks them all): 256-bit vectors
// with byte permutes (VBMI), bit shuffles (BITALG), GF(2) affine maps of bytes (GFNI) and masks.
#define MEMCOMP_AVX512_TARGET \
  "avx2,bmi,bmi2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi,avx512bitalg,avx512vpopcntdq,gfni"
#define MEMCOMP_AVX512 __attribute__((target(MEMCOMP_AVX512_TARGET)))
#define MEMCOMP_AVX512_INLINE __attribute__((target(MEMCOMP_AVX512_TARGET), always_inline)) inline
#include <immintrin.h>
#endif

namespace memcomp {

/// True when fast paths may use AVX2, BMI1/2 and POPCNT: the CPU has them and set_simd(false) was not called
/// (nor the environment variable MEMCOMP_SIMD=0 set at load time).
bool simd_avx2() noexcept;
/// True when fast paths may use the AVX-512 tier (MEMCOMP_AVX512_TARGET): the CPU has all of it,
/// SIMD is on and set_simd_avx512(false) was not called (nor MEMCOMP_SIMD=avx2 set at load time).
bool simd_avx512() noexcept;
/// True when fast paths may use SSSE3 (under the same switch).
bool simd_ssse3() noexcept;
/// Turns every fast path on (default) or off: the SIMD kernels (where the CPU has them) and the
/// algorithmic shortcuts tested against the same scalar references (e.g. C-Pack's index by
/// upper half for push=literal).
void set_simd(bool enabled) noexcept;
bool simd_enabled() noexcept;
/// Lets the AVX-512 tier run (default) or holds the fast paths to AVX2: each tier is tested equal
/// to the scalar reference on a CPU that has both.
void set_simd_avx512(bool enabled) noexcept;

#if defined(MEMCOMP_X86_SIMD)
/// The 32-bit words of w in the other byte order (blocks of big-endian words).
MEMCOMP_AVX2_INLINE __m256i bswap32(__m256i w) {
  return _mm256_shuffle_epi8(w, _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6,
                                                 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
}
MEMCOMP_AVX2_INLINE __m128i bswap32(__m128i w) {
  return _mm_shuffle_epi8(w, _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12));
}
#endif

}  // namespace memcomp
