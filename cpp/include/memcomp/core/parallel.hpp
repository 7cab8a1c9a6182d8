// memcomp core: fork-join over contiguous index ranges on one persistent thread pool. Results
// never depend on the number of threads: every worker writes only its own range.
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

namespace detail {
/// Runs task(ctx, 0) ... task(ctx, n - 1) on the calling thread and the process-wide pool (its
/// workers are started once, on first use, one per hardware thread but the caller's, and live
/// for the process; a forked child starts its own). Returns when every task has returned. A
/// call from inside a pool task runs its tasks on the calling thread, so nesting never waits on
/// itself. Tasks must not throw.
void run_on_pool(std::size_t n, void (*task)(void*, std::size_t), void* ctx);
}  // namespace detail

/// Calls fn(begin, end) over [0, n) split into at most `threads` contiguous ranges of at least
/// `min_chunk` items, on the persistent pool. The first exception thrown by any range (in range
/// order) is rethrown in the caller.
template <class Fn>
void parallel_for(std::size_t n, int threads, std::size_t min_chunk, Fn&& fn) {
  if (n == 0) return;
  const std::size_t t = std::min<std::size_t>(resolve_threads(threads),
                                              std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_chunk)));
  if (t <= 1) {
    fn(std::size_t{0}, n);
    return;
  }
  struct Ctx {
    Fn* fn;
    std::size_t n, step;
    std::vector<std::exception_ptr> errors;
  } ctx{&fn, n, (n + t - 1) / t, std::vector<std::exception_ptr>(t)};
  detail::run_on_pool(
      t,
      [](void* p, std::size_t w) {
        auto& c = *static_cast<Ctx*>(p);
        const std::size_t b = w * c.step, e = std::min(c.n, b + c.step);
        try {
          if (b < e) (*c.fn)(b, e);
        } catch (...) {
          c.errors[w] = std::current_exception();
        }
      },
      &ctx);
  for (auto& e : ctx.errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace memcomp
