"""Shared timing helper of the benchmark scripts."""

import time


def best_of(fn, repeat: int) -> float:
    """Seconds of the fastest of ``repeat`` runs of ``fn`` after one warm-up run."""
    fn()  # warm up (page faults, caches)
    times = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
