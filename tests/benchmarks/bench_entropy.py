"""Throughput of the symbol histograms behind the entropy bounds, in GB/s of input, next to
memcpy and the plain NumPy way (np.bincount for 8/16-bit symbols, np.unique for 32-bit).
Reported, never asserted:

    python tests/benchmarks/bench_entropy.py [--mib 64]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import memcomp

sys.path.insert(0, os.path.dirname(__file__))
from timing import best_of  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    data = memcomp.workloads.sample_dump(args.mib << 20, seed=0)
    blocks = memcomp.as_blocks(data, 128)
    gb = data.nbytes / 1e9
    dst = np.empty_like(data)
    print(f"sample dump: {args.mib} MiB; memcpy {gb / best_of(lambda: np.copyto(dst, data), args.repeat):.2f} GB/s")
    numpy_ref = {
        8: lambda: np.bincount(data, minlength=256),
        16: lambda: np.bincount(data.view("<u2"), minlength=65536),
        32: lambda: np.unique(data.view("<u4"), return_counts=True),
    }
    print(f"{'symbols':<10}{'threads':>8}{'memcomp':>10}{'numpy':>10}")
    for sl in (8, 16, 32):
        ref = gb / best_of(numpy_ref[sl], 1)
        for t in sorted({1, os.cpu_count() or 1}):
            got = gb / best_of(lambda: memcomp.entropy.histogram(blocks, sl, threads=t), args.repeat)
            print(f"{sl:>2}-bit{'':<4}{t:>8}{got:>10.2f}{ref:>10.2f}")
    print(
        f"{'block H':<10}{1:>8}{gb / best_of(lambda: memcomp.entropy.block_entropy(blocks, 16, threads=1), 1):>10.2f}"
    )


if __name__ == "__main__":
    main()
