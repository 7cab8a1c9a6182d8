// memcomp core: the SIMD switch (simd.hpp). The only file that asks the CPU what it has.
#include "memcomp/core/simd.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "memcomp/core/error.hpp"

namespace memcomp {
namespace {

#if defined(MEMCOMP_X86_SIMD)
const bool kPopcnt = __builtin_cpu_supports("popcnt") != 0;
const bool kAvx2 = __builtin_cpu_supports("avx2") != 0 && kPopcnt && __builtin_cpu_supports("bmi") != 0 &&
                   __builtin_cpu_supports("bmi2") != 0 && __builtin_cpu_supports("ssse3") != 0;
const bool kAvx512 = kAvx2 && __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512bw") != 0 &&
                     __builtin_cpu_supports("avx512vl") != 0 && __builtin_cpu_supports("avx512dq") != 0 &&
                     __builtin_cpu_supports("avx512vbmi") != 0 && __builtin_cpu_supports("avx512bitalg") != 0 &&
                     __builtin_cpu_supports("avx512vpopcntdq") != 0 && __builtin_cpu_supports("gfni") != 0;
#elif defined(__GNUC__)
constexpr bool kPopcnt = true;  // __builtin_popcount is the hardware's where it has one
constexpr bool kAvx2 = false;
constexpr bool kAvx512 = false;
#else
constexpr bool kPopcnt = false;
constexpr bool kAvx2 = false;
constexpr bool kAvx512 = false;
#endif
const SimdTier kProbed = kAvx512 ? SimdTier::avx512 : kAvx2 ? SimdTier::avx2 : SimdTier::scalar;
// The CPU's highest tier: kProbed, or less under detail::simd_limit_cpu.
std::atomic<int> g_cpu{static_cast<int>(kProbed)};
SimdTier cpu_tier() noexcept { return static_cast<SimdTier>(g_cpu.load(std::memory_order_relaxed)); }

// MEMCOMP_SIMD at load time: 0 = set_simd(false); scalar, avx2, avx512 = that tier at most.
const char* env() {
  const char* v = std::getenv("MEMCOMP_SIMD");  // NOLINT(concurrency-mt-unsafe): read once at load
  return v != nullptr ? v : "";
}
bool env_is(const char* value) { return std::strcmp(env(), value) == 0; }
SimdTier env_cap() {
  if (env_is("scalar")) return SimdTier::scalar;
  if (env_is("avx2")) return SimdTier::avx2;
  return SimdTier::avx512;
}

// The fast paths' switch (set_simd) and the highest tier allowed (set_simd_tier); the active tier
// is the lower of that and the CPU's.
std::atomic<bool> g_enabled{!env_is("0")};
std::atomic<int> g_cap{static_cast<int>(env_cap())};

}  // namespace

const char* simd_tier_name(SimdTier t) noexcept {
  switch (t) {
    case SimdTier::avx512: return "avx512";
    case SimdTier::avx2: return "avx2";
    default: return "scalar";
  }
}

SimdTier simd_tier_supported() noexcept { return cpu_tier(); }

SimdTier simd_tier() noexcept {
  if (!g_enabled.load(std::memory_order_relaxed)) return SimdTier::scalar;
  const int cap = g_cap.load(std::memory_order_relaxed), cpu = g_cpu.load(std::memory_order_relaxed);
  return static_cast<SimdTier>(cap < cpu ? cap : cpu);
}

void set_simd_tier(SimdTier t) {
  if (static_cast<int>(t) < 0 || t > SimdTier::avx512)
    throw invalid_argument("SIMD tier " + std::to_string(static_cast<int>(t)) + " is none of scalar, avx2, avx512");
  if (t > cpu_tier())
    throw invalid_argument(std::string("SIMD tier ") + simd_tier_name(t) + " is above this CPU's highest, " +
                           simd_tier_name(cpu_tier()));
  g_cap.store(static_cast<int>(t), std::memory_order_relaxed);
  g_enabled.store(true, std::memory_order_relaxed);
}

bool cpu_has_popcnt() noexcept { return kPopcnt; }

bool simd_avx2() noexcept { return simd_tier() >= SimdTier::avx2; }
bool simd_avx512() noexcept { return simd_tier() == SimdTier::avx512; }
void set_simd_avx512(bool enabled) noexcept {
  const int avx2 = static_cast<int>(SimdTier::avx2), cap = g_cap.load(std::memory_order_relaxed);
  g_cap.store(enabled ? static_cast<int>(SimdTier::avx512) : (cap < avx2 ? cap : avx2), std::memory_order_relaxed);
}
void set_simd(bool enabled) noexcept { g_enabled.store(enabled, std::memory_order_relaxed); }
bool simd_enabled() noexcept { return g_enabled.load(std::memory_order_relaxed); }

void detail::simd_limit_cpu(SimdTier t) noexcept {
  g_cpu.store(static_cast<int>(t < kProbed ? t : kProbed), std::memory_order_relaxed);
}

}  // namespace memcomp
