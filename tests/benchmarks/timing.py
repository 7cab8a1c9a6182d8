"""Shared timing helpers of the benchmark scripts."""

import time
from typing import Callable, List, Sequence


def best_of(fn, repeat: int) -> float:
    """Seconds of the fastest of ``repeat`` runs of ``fn`` after one warm-up run."""
    return best_of_each([fn], repeat)[0]


def best_of_each(fns: Sequence[Callable[[], object]], repeat: int) -> List[float]:
    """Seconds of the fastest of ``repeat`` runs of each of ``fns``, after one warm-up run of each,
    the functions taking turns: a burst of noise on a shared machine then slows every one of them
    alike, so their ratios (a path's 2-thread scaling, an overhead) hold up better than the
    figures themselves."""
    for fn in fns:
        fn()  # warm up (page faults, caches)
    best = [float("inf")] * len(fns)
    for _ in range(max(1, repeat)):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best
