"""Streaming a dump larger than a memory budget (issue 13): peak resident size and GB/s of
``memcomp.compare`` (its default codecs) and ``entropy.table`` over a mapped dump several times
larger than an RSS ceiling, each in a fresh subprocess. The dump is sparse, with pages of the
bundled sample workloads written at intervals (``--data-fraction`` of it is data). Reported, never
asserted (goal: peak RSS growth below the ceiling, whatever the dump's size). ``entropy.table``
keeps exact counts of 32-bit symbols, whose memory follows the number of distinct 32-bit values
in the data (not the dump's size or the chunk size); the ``entropy 4-16`` row leaves them out:

    python tests/benchmarks/bench_streaming.py [--ceiling-mib 256] [--factor 4] [--chunk-blocks 4096]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import memcomp

#: Run in a fresh interpreter per analysis, so one's peak does not hide another's.
CHILD = r"""
import json, sys, time
import numpy as np
import pandas  # noqa: F401  (imported before the baseline)
import memcomp
from memcomp import entropy

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) << 10
    return 0

path, what, chunk, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) or None
run = {"compare": lambda d, **k: memcomp.compare(d, threads=threads, **k),
       "entropy.table": lambda d, **k: entropy.table(d, threads=threads, **k),
       "entropy 4-16": lambda d, **k: entropy.table(d, (4, 8, 16), threads=threads, **k)}[what]
d = memcomp.open_dump(path, 128)
run(d.part(0, min(len(d), 2048)), chunk_blocks=chunk)  # warm up: imports, allocator pools
base = status("VmRSS")
t = time.perf_counter()
run(d, chunk_blocks=chunk)
seconds = time.perf_counter() - t
print(json.dumps({"base": base, "hwm": status("VmHWM"), "seconds": seconds}))
"""


def make_dump(path: str, size: int, data_fraction: float, seed: int = 0) -> int:
    """A sparse file of ``size`` bytes with sample-workload pages every few MiB; returns the data bytes."""
    stride = 4 << 20
    piece = max(4096, int(stride * data_fraction) // 4096 * 4096)
    pool = memcomp.workloads.sample_dump(max(piece * 8, 1 << 20), seed=seed)
    written = 0
    with open(path, "wb") as f:
        f.truncate(size)
        for i, off in enumerate(range(0, size, stride)):
            n = min(piece, size - off)
            start = (i % 8) * piece  # the pool holds 8 pieces
            f.seek(off)
            f.write(pool[start : start + n].tobytes())
            written += n
    return written


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ceiling-mib", type=int, default=256, help="the RSS budget (MiB)")
    ap.add_argument("--factor", type=int, default=4, help="dump size as a multiple of the ceiling")
    ap.add_argument("--chunk-blocks", type=int, default=4096, help="blocks per chunk (128 B blocks)")
    ap.add_argument("--data-fraction", type=float, default=0.25, help="share of the dump that is sample data")
    ap.add_argument("--threads", type=int, default=0, help="worker threads (0: all cores)")
    ap.add_argument("--dir", default=None, help="where to create the dump (default: the temp directory)")
    args = ap.parse_args(argv)
    if not os.path.exists("/proc/self/status"):
        print("no /proc/self/status: cannot measure the resident size here")
        return
    ceiling = args.ceiling_mib << 20
    size = args.factor * ceiling
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = os.path.join(tmp, "sparse.bin")
        written = make_dump(path, size, args.data_fraction)
        print(
            f"dump: {size / 2**20:.0f} MiB ({args.factor}x the ceiling), {written / 2**20:.0f} MiB of it sample "
            f"data, the rest holes; RSS ceiling {args.ceiling_mib} MiB; chunk {args.chunk_blocks} x 128 B blocks"
        )
        print(
            f"{'analysis':<16}{'GB/s':>8}{'base MiB':>10}{'peak MiB':>10}{'growth MiB':>12}{'ceiling MiB':>13}  within"
        )
        for what in ("compare", "entropy.table", "entropy 4-16"):
            r = subprocess.run(
                [sys.executable, "-c", CHILD, path, what, str(args.chunk_blocks), str(args.threads)],
                capture_output=True,
                text=True,
            )
            if r.returncode != 0:
                print(f"{what:<16} failed (rc {r.returncode}): {r.stderr.strip().splitlines()[-1:]}")
                continue
            m = json.loads(r.stdout.splitlines()[-1])
            growth = m["hwm"] - m["base"]
            print(
                f"{what:<16}{size / 1e9 / max(m['seconds'], 1e-9):>8.2f}{m['base'] / 2**20:>10.0f}"
                f"{m['hwm'] / 2**20:>10.0f}{growth / 2**20:>12.1f}{args.ceiling_mib:>13}  "
                f"{'yes' if growth < ceiling else 'NO'}"
            )


if __name__ == "__main__":
    main()
