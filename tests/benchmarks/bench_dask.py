"""Serial against Dask: ``compare`` (default codecs) and ``entropy.table`` over one dump file of
realistic data, in GB/s of dump, next to memcpy over the same bytes. The serial calls use every
core (``threads=None``) and one (``threads=1``); Dask runs on a LocalCluster of single-threaded
worker processes and must give the same table (checked). Then two Python threads measuring at once
against one after the other (the core releases the GIL). Reported, never asserted:

    python tests/benchmarks/bench_dask.py [--mib 1024] [--workers 2] [--codecs defaults] [--block 128]

Timings include fitting the data-driven codecs (on the same 64 MiB sample either way) and exclude
starting the cluster.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time

import numpy as np
import pandas as pd

import memcomp
from memcomp import entropy, report
from memcomp.io import open_dump

sys.path.insert(0, os.path.dirname(__file__))
from timing import best_of  # noqa: E402

PIECE = 64 << 20


def write_dump(path: str, nbytes: int) -> None:
    """``nbytes`` of the sample workloads, in pieces of up to 64 MiB with different seeds."""
    with open(path, "wb") as f:
        done, seed = 0, 0
        while done < nbytes:
            n = min(PIECE, nbytes - done)
            f.write(memcomp.workloads.sample_dump(n, seed=seed).tobytes())
            done, seed = done + n, seed + 1


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=1024, help="dump size in MiB (default 1024)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--codecs", default="defaults")
    ap.add_argument("--block", type=int, default=128)
    ap.add_argument("--dump", default=None, help="an existing dump file to use instead of writing one")
    args = ap.parse_args(argv)
    from distributed import Client, LocalCluster

    import memcomp.dask as md

    codecs = args.codecs.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.dump or os.path.join(tmp, "dump.bin")
        if args.dump is None:
            write_dump(path, (args.mib << 20) // 256 * 256)
        size = os.path.getsize(path)
        gb = size / 1e9
        d = open_dump(path, args.block, allow_partial=True)
        src = np.fromfile(path, np.uint8, count=min(size, PIECE))
        dst = np.empty_like(src)
        memcpy = src.nbytes / 1e9 / best_of(lambda: np.copyto(dst, src), 3)
        print(
            f"dump: {size / 2**20:.0f} MiB of {args.block} B blocks; codecs: {args.codecs}; "
            f"{os.cpu_count()} cores; memcpy {memcpy:.2f} GB/s"
        )
        rows = []
        for job, serial, dask_fn in (
            (
                "compare",
                lambda t: report.compare(d, codecs, threads=t),
                lambda c: md.compare(path, codecs, block_bytes=args.block, allow_partial=True, client=c),
            ),
            (
                "entropy.table",
                lambda t: entropy.table(d, threads=t),
                lambda c: md.entropy_table(path, block_bytes=args.block, allow_partial=True, client=c),
            ),
        ):
            want, t_all = timed(lambda: serial(None))
            _, t_one = timed(lambda: serial(1))
            with (
                LocalCluster(
                    n_workers=args.workers, threads_per_worker=1, dashboard_address=None, silence_logs=40
                ) as cluster,
                Client(cluster) as client,
            ):
                got, t_dask = timed(lambda: dask_fn(client))
            pd.testing.assert_frame_equal(
                got.drop(columns=["dataset", "file"], errors="ignore"),
                want.drop(columns=["dataset", "file"], errors="ignore"),
            )
            rows.append((job, gb / t_one, gb / t_all, gb / t_dask))
        print(f"{'job':<15}{'serial 1 thread':>16}{'serial all':>12}{f'dask {args.workers} workers':>18}  (GB/s)")
        for job, one, every, dask_gbs in rows:
            print(f"{job:<15}{one:>16.3f}{every:>12.3f}{dask_gbs:>18.3f}")
        print("dask results equal the serial ones: yes")
        d.close()
    python_threads()


def python_threads() -> None:
    """Two Python threads, each measuring 8 MiB with bpc on one core, at once and in turn."""
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(8 << 20, seed=1), 128)
    codecs = [memcomp.get_codec("bpc"), memcomp.get_codec("bpc")]

    def work(c):
        for _ in range(4):
            c.measure(blocks, threads=1)

    def at_once():
        ts = [threading.Thread(target=work, args=(c,)) for c in codecs]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    serial = best_of(lambda: [work(c) for c in codecs], 3)
    both = best_of(at_once, 3)
    print(
        f"two Python threads measuring (bpc, 2 x 32 MiB): one after the other {serial:.3f} s, "
        f"at once {both:.3f} s ({serial / both:.2f}x)"
    )


if __name__ == "__main__":
    main()
