// memcomp core: the SIMD switch (simd.hpp).
#include "memcomp/core/simd.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace memcomp {
namespace {

bool env_allows() {
  const char* v = std::getenv("MEMCOMP_SIMD");  // NOLINT(concurrency-mt-unsafe): read once at load
  return v == nullptr || std::strcmp(v, "0") != 0;
}

std::atomic<bool> g_enabled{env_allows()};

#if defined(MEMCOMP_X86_SIMD)
const bool kAvx2 = __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("popcnt") != 0 &&
                   __builtin_cpu_supports("bmi") != 0 && __builtin_cpu_supports("bmi2") != 0;
const bool kSsse3 = __builtin_cpu_supports("ssse3") != 0;
#else
constexpr bool kAvx2 = false;
constexpr bool kSsse3 = false;
#endif

}  // namespace

bool simd_avx2() noexcept { return kAvx2 && g_enabled.load(std::memory_order_relaxed); }
bool simd_ssse3() noexcept { return kSsse3 && g_enabled.load(std::memory_order_relaxed); }
void set_simd(bool enabled) noexcept { g_enabled.store(enabled, std::memory_order_relaxed); }
bool simd_enabled() noexcept { return g_enabled.load(std::memory_order_relaxed); }

}  // namespace memcomp
