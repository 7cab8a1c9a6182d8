// memcomp core: run-time dispatch to the SIMD fast paths. Each fast path equals its portable
// scalar reference bit for bit (the tests compare every tier with the switch off); the build never
// assumes an instruction set (no -march=native), the CPU is asked once at run time (simd.cpp).
#pragma once
#include <type_traits>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define MEMCOMP_X86_SIMD 1  // AVX2 and AVX-512 kernels, chosen at run time (SimdTier)
// The instruction sets of the AVX2 tier (every AVX2 CPU has them; simd.cpp checks them all):
// BMI2's shifts by a register are one micro-op, where SHL by CL is three.
#define MEMCOMP_AVX2 __attribute__((target("avx2,bmi,bmi2,popcnt")))
#define MEMCOMP_AVX2_INLINE __attribute__((target("avx2,bmi,bmi2,popcnt"), always_inline)) inline
// The AVX-512 tier (Ice Lake, Zen 4 and later; simd.cpp checks them all): 256-bit vectors
// with byte permutes (VBMI), bit shuffles (BITALG), GF(2) affine maps of bytes (GFNI) and masks.
#define MEMCOMP_AVX512_TARGET \
  "avx2,bmi,bmi2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi,avx512bitalg,avx512vpopcntdq,gfni"
#define MEMCOMP_AVX512 __attribute__((target(MEMCOMP_AVX512_TARGET)))
#define MEMCOMP_AVX512_INLINE __attribute__((target(MEMCOMP_AVX512_TARGET), always_inline)) inline
#include <immintrin.h>
#endif

namespace memcomp {

/// The SIMD tiers, lowest first (c-blosc2's shuffle.c is the model): each codec's ISA kernels live
/// in their own files (src/codecs/kernels/, src/analysis/kernels/) behind one kernel table per
/// tier, and the table of the active tier is chosen by a switch over simd_tier(). scalar: the
/// portable code; avx2: AVX2 with BMI1/2, POPCNT (and so SSSE3); avx512: MEMCOMP_AVX512_TARGET.
/// Every tier equals the scalar reference bit for bit (the tests compare them on each tier the
/// CPU has).
enum class SimdTier { scalar = 0, avx2 = 1, avx512 = 2 };

/// "scalar", "avx2" or "avx512".
const char* simd_tier_name(SimdTier t) noexcept;
/// The highest tier the CPU has (probed once, in simd.cpp: the only place that asks the CPU).
SimdTier simd_tier_supported() noexcept;
/// The tier the kernel tables run: scalar after set_simd(false), else the tier chosen by
/// set_simd_tier, at most the CPU's: by default its highest, or the environment variable
/// MEMCOMP_SIMD's at load time (0: set_simd(false); scalar, avx2 or avx512: that tier at most).
SimdTier simd_tier() noexcept;
/// Runs the kernels of tier t and turns the fast paths on (set_simd(true)); throws
/// invalid_argument naming t and the CPU's highest tier when the CPU lacks t.
void set_simd_tier(SimdTier t);
/// Whether the CPU has POPCNT (the bit counts' hardware path, under every tier).
bool cpu_has_popcnt() noexcept;

/// True when the tier is avx2 or higher (simd_tier() >= SimdTier::avx2).
bool simd_avx2() noexcept;
/// True when the tier is avx512.
bool simd_avx512() noexcept;
/// Turns every fast path on (default) or off: the SIMD kernels (the tier runs as set, where the CPU
/// has them) and the algorithmic shortcuts tested against the same scalar references (e.g. C-Pack's
/// index by upper half for push=literal). set_simd(false) is the scalar reference (as
/// MEMCOMP_SIMD=0 at load time); set_simd(true) brings back the tier set before.
void set_simd(bool enabled) noexcept;
bool simd_enabled() noexcept;
/// Lets the AVX-512 tier run (true; the CPU's highest tier again) or holds the kernels to AVX2 at
/// most (false; as MEMCOMP_SIMD=avx2 at load time): set_simd_tier by another name.
void set_simd_avx512(bool enabled) noexcept;

/// The kernel table of the active tier, from one per tier (c-blosc2's shuffle.c): avx512's where
/// simd_tier() is avx512, avx2's where it is avx2 or higher (a null avx512: that tier runs the AVX2
/// table), else scalar. The one place the kernels' ISA is decided; tables are chosen per call, so
/// set_simd_tier takes effect at once, and the CPU is never asked here.
template <class T>
const T& pick_kernels(const T& scalar, const typename std::common_type<T>::type* avx2,
                      const typename std::common_type<T>::type* avx512) noexcept {
  switch (simd_tier()) {
    case SimdTier::avx512:
      if (avx512 != nullptr) return *avx512;
      [[fallthrough]];
    case SimdTier::avx2:
      if (avx2 != nullptr) return *avx2;
      [[fallthrough]];
    default: return scalar;
  }
}

namespace detail {
/// Tests: the CPU counts as having tier t at most (its probed tier again for avx512), as a CPU
/// without AVX-512 or AVX2 would.
void simd_limit_cpu(SimdTier t) noexcept;
}  // namespace detail

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
