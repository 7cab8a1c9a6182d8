"""Throughput of the MPC analyses: ratio-entropy accumulation in GB/s of input (one thread and all
threads) next to a plain NumPy reference (a 256 x 256 bucket table and np.bincount per pair), and
the time to train a model on 64 MiB of 32 B blocks. Reported, never asserted:

    python tests/benchmarks/bench_mpc.py [--mib 64]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import memcomp

sys.path.insert(0, os.path.dirname(__file__))
from memcomp import _core, mpc
from timing import best_of  # noqa: E402


def numpy_reference(blocks: np.ndarray) -> np.ndarray:
    """RE counts the plain NumPy way: a bucket table of all byte pairs, one bincount per pair."""
    a, b = np.meshgrid(np.arange(256, dtype=np.uint64), np.arange(256, dtype=np.uint64), indexing="ij")
    table = _core.ratio_buckets(a.reshape(-1), b.reshape(-1)).astype(np.int64)
    n, K = blocks.shape[1], 19
    cols = blocks.T.astype(np.int64)
    out = np.zeros((n, n, K), dtype=np.uint64)
    for i in range(n):
        hi = cols[i] << 8
        for j in range(n):
            if i != j:
                out[i, j] = np.bincount(table[hi | cols[j]], minlength=K)
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    n_bytes = args.mib << 20
    work = memcomp.workloads.sample(n_bytes // len(memcomp.workloads.WORKLOADS), seed=0)
    blocks = np.concatenate([memcomp.as_blocks(v, 32) for v in work.values()])
    gb = blocks.nbytes / 1e9
    print(f"{blocks.shape[0]} blocks of 32 B ({blocks.nbytes / 2**20:.0f} MiB), {os.cpu_count()} CPUs")

    for label, kw in (
        ("floor, zero buckets", {}),
        ("round, as_one, signed", dict(quantiser="round", zeros="as_one", signed=True)),
    ):
        t1 = best_of(lambda: mpc.ratio_entropy(blocks, threads=1, **kw), args.repeat)
        tn = best_of(lambda: mpc.ratio_entropy(blocks, threads=None, **kw), args.repeat)
        print(f"ratio entropy ({label}): {gb / t1:6.3f} GB/s on 1 thread, {gb / tn:6.3f} GB/s on all")
    t16 = best_of(lambda: mpc.ratio_entropy(memcomp.as_blocks(blocks.reshape(-1), 16), threads=1, elem_bytes=2), 1)
    print(f"ratio entropy (16-bit elements, 16 B blocks): {gb / t16:6.3f} GB/s on 1 thread")

    sub = blocks[: 1 << 16]
    t_np = best_of(lambda: numpy_reference(sub), 1)
    ref = numpy_reference(sub)
    assert np.array_equal(ref, mpc.ratio_entropy(sub).counts)
    print(f"numpy reference (table + bincount per pair): {sub.nbytes / 1e9 / t_np:6.3f} GB/s")

    g = best_of(lambda: mpc.guess_dtype(blocks, threads=1), args.repeat)
    print(f"guess_dtype + classes: {gb / g:6.3f} GB/s on 1 thread")

    t0 = time.perf_counter()
    mpc.train(blocks, threads=1)
    t1 = time.perf_counter() - t0
    t0 = time.perf_counter()
    mpc.train(blocks, threads=None)
    tn = time.perf_counter() - t0
    print(f"train on {blocks.nbytes / 2**20:.0f} MiB: {t1:.2f} s on 1 thread, {tn:.2f} s on all")


if __name__ == "__main__":
    main()
