// memcomp core: a minimal fork-join over contiguous index ranges. Results never depend on the
// number of threads: every worker writes only its own range.
#pragma once
#include <algorithm>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace memcomp {

/// Resolves a requested thread count: <= 0 means all hardware threads.
inline unsigned resolve_threads(int threads) {
  if (threads > 0) return static_cast<unsigned>(threads);
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1u : hw;
}

/// Calls fn(begin, end) over [0, n) split into at most `threads` contiguous ranges of at least
/// `min_chunk` items. The first exception thrown by any worker is rethrown in the caller.
template <class Fn>
void parallel_for(std::size_t n, int threads, std::size_t min_chunk, Fn&& fn) {
  if (n == 0) return;
  const std::size_t t = std::min<std::size_t>(resolve_threads(threads),
                                              std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_chunk)));
  if (t <= 1) {
    fn(std::size_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(t);
  pool.reserve(t - 1);
  const std::size_t step = (n + t - 1) / t;
  auto run = [&](std::size_t w) {
    const std::size_t b = w * step, e = std::min(n, b + step);
    try {
      if (b < e) fn(b, e);
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  for (std::size_t w = 1; w < t; ++w) pool.emplace_back(run, w);
  run(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace memcomp
