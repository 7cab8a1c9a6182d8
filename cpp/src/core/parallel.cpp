// memcomp core: the persistent thread pool behind parallel_for. Batches of a few large tasks
// (one contiguous range per thread) are queued as jobs; the calling thread works on its own job
// beside the workers, so a job never waits for a free worker, and a call from inside a task
// runs on its own thread. Workers start once per process: a forked child (Dask, multiprocessing)
// starts a fresh pool, since its parent's threads do not exist in it.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "memcomp/core/parallel.hpp"

namespace memcomp::detail {
namespace {

thread_local bool tls_pool_worker = false;

struct Job {
  void (*task)(void*, std::size_t);
  void* ctx;
  std::size_t n;
  std::size_t next = 0;  // first unclaimed task (guarded by the pool's mutex)
  std::size_t done = 0;  // tasks returned (guarded by the pool's mutex)
};

class Pool {
 public:
  explicit Pool(unsigned workers) : pid_(getpid()) {
    for (unsigned w = 0; w < workers; ++w) std::thread([this] { work(); }).detach();
  }
  ~Pool() = default;  // never runs: the pool lives for the process
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  Pool(Pool&&) = delete;
  Pool& operator=(Pool&&) = delete;

  pid_t pid() const noexcept { return pid_; }

  void run(Job& job) {
    std::unique_lock<std::mutex> lock(mu_);
    queue_.push_back(&job);
    if (job.n > 2)
      work_cv_.notify_all();
    else
      work_cv_.notify_one();
    // The caller claims tasks of its own job until none is left, then waits for the others.
    while (job.next < job.n) run_one(job, lock);
    done_cv_.wait(lock, [&] { return job.done == job.n; });
  }

 private:
  // Claims the next task of `job` (REQUIRES: one is left and `lock` is held) and runs it unlocked.
  void run_one(Job& job, std::unique_lock<std::mutex>& lock) {
    const std::size_t i = job.next++;
    if (job.next == job.n) queue_.erase(std::find(queue_.begin(), queue_.end(), &job));
    lock.unlock();
    job.task(job.ctx, i);
    lock.lock();
    if (++job.done == job.n) done_cv_.notify_all();
  }

  void work() {
    tls_pool_worker = true;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      work_cv_.wait(lock, [&] { return !queue_.empty(); });
      run_one(*queue_.front(), lock);
    }
  }

  pid_t pid_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Job*> queue_;  // jobs with unclaimed tasks, oldest first
};

// The pool is never destroyed: its workers block on its condition variable until the process
// ends (joining them from a static destructor would race interpreter shutdown).
std::atomic<Pool*> g_pool{nullptr};
std::mutex g_pool_mu;

Pool& pool() {
  Pool* p = g_pool.load(std::memory_order_acquire);
  if (p && p->pid() == getpid()) return *p;
  std::lock_guard<std::mutex> lock(g_pool_mu);
  p = g_pool.load(std::memory_order_relaxed);
  if (!p || p->pid() != getpid()) {  // first use, or a forked child: the old pool is left as is
    const unsigned hw = std::thread::hardware_concurrency();
    p = new Pool(hw > 1 ? hw - 1 : 1);  // NOLINT(cppcoreguidelines-owning-memory): lives for the process
    g_pool.store(p, std::memory_order_release);
  }
  return *p;
}

}  // namespace

void run_on_pool(std::size_t n, void (*task)(void*, std::size_t), void* ctx) {
  if (tls_pool_worker) {
    for (std::size_t i = 0; i < n; ++i) task(ctx, i);
    return;
  }
  Job job{task, ctx, n};
  pool().run(job);
}

}  // namespace memcomp::detail
