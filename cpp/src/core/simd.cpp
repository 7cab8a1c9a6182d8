// memcomp core: the SIMD switch (simd.hpp).
#include "memcomp/core/simd.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace memcomp {
namespace {

// MEMCOMP_SIMD=0: no fast paths; MEMCOMP_SIMD=avx2: none above AVX2.
bool env_is(const char* value) {
  const char* v = std::getenv("MEMCOMP_SIMD");  // NOLINT(concurrency-mt-unsafe): read once at load
  return v != nullptr && std::strcmp(v, value) == 0;
}

std::atomic<bool> g_enabled{!env_is("0")};
std::atomic<bool> g_avx512{!env_is("avx2")};

#if defined(MEMCOMP_X86_SIMD)
const bool kAvx2 = __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("popcnt") != 0 &&
                   __builtin_cpu_supports("bmi") != 0 && __builtin_cpu_supports("bmi2") != 0;
const bool kSsse3 = __builtin_cpu_supports("ssse3") != 0;
const bool kAvx512 = kAvx2 && __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512bw") != 0 &&
                     __builtin_cpu_supports("avx512vl") != 0 && __builtin_cpu_supports("avx512dq") != 0 &&
                     __builtin_cpu_supports("avx512vbmi") != 0 && __builtin_cpu_supports("avx512bitalg") != 0 &&
                     __builtin_cpu_supports("avx512vpopcntdq") != 0 && __builtin_cpu_supports("gfni") != 0;
#else
constexpr bool kAvx2 = false;
constexpr bool kSsse3 = false;
constexpr bool kAvx512 = false;
#endif

}  // namespace

bool simd_avx2() noexcept { return kAvx2 && g_enabled.load(std::memory_order_relaxed); }
bool simd_avx512() noexcept {
  return kAvx512 && g_enabled.load(std::memory_order_relaxed) && g_avx512.load(std::memory_order_relaxed);
}
void set_simd_avx512(bool enabled) noexcept { g_avx512.store(enabled, std::memory_order_relaxed); }
bool simd_ssse3() noexcept { return kSsse3 && g_enabled.load(std::memory_order_relaxed); }
void set_simd(bool enabled) noexcept { g_enabled.store(enabled, std::memory_order_relaxed); }
bool simd_enabled() noexcept { return g_enabled.load(std::memory_order_relaxed); }

}  // namespace memcomp
