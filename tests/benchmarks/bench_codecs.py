"""Throughput of codec measure and encode+decode, in GB/s of input, next to references.

References: memcpy of the same bytes (np.copyto) and a vectorised NumPy implementation of the same
size rule (numpy_reference.py). Reported, never asserted:

    python tests/benchmarks/bench_codecs.py [--mib 64] [--codecs bdi,fpc] [--sizes 32,128]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import memcomp

sys.path.insert(0, os.path.dirname(__file__))
import numpy_reference  # noqa: E402
from timing import best_of  # noqa: E402

NUMPY_RULES = {"bdi.paper": numpy_reference.bdi_paper_bits, "fpc.paper": numpy_reference.fpc_paper_bits}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64, help="MiB of sample data")
    ap.add_argument("--codecs", default="bdi,fpc", help="comma-separated presets, or 'all'")
    ap.add_argument("--sizes", default="32,128")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    data = memcomp.workloads.sample_dump(args.mib << 20, seed=0)
    gb = data.nbytes / 1e9
    threads_all = os.cpu_count() or 1
    dst = np.empty_like(data)
    memcpy = gb / best_of(lambda: np.copyto(dst, data), args.repeat)
    print(f"sample dump: {args.mib} MiB, {threads_all} hardware threads; memcpy {memcpy:.2f} GB/s")
    print(f"{'codec':<16}{'B':>5}{'threads':>8}{'measure':>10}{'enc+dec':>10}{'numpy':>10}{'CR':>8}")
    names = memcomp.codec_names() if args.codecs == "all" else args.codecs.split(",")
    for name in names:
        for b in (int(s) for s in args.sizes.split(",")):
            blocks = memcomp.as_blocks(data, b)
            codec = memcomp.get_codec(name)
            if not codec.supports(b):
                print(f"{codec.preset:<16}{b:>5}  skipped: not defined for {b} B blocks")
                continue
            if codec.requires_fit:  # data-driven: fit on the first 1/16 of the data (not timed)
                codec = codec.fit(blocks[: max(1, len(blocks) // 16)])
            ref = NUMPY_RULES.get(codec.preset)
            numpy_gbs = gb / best_of(lambda: ref(blocks), 1) if ref else float("nan")
            if ref:  # the reference computes the same sizes
                assert np.array_equal(
                    np.asarray(ref(blocks[:20000]), dtype=np.int64),
                    codec.measure(blocks[:20000]).size_bits.astype(np.int64),
                )
            for t in sorted({1, threads_all}):
                m = gb / best_of(lambda: codec.measure(blocks, threads=t), args.repeat)
                if codec.exact:
                    ed = gb / best_of(lambda: codec.decode(codec.encode(blocks, threads=t), threads=t), args.repeat)
                else:
                    ed = float("nan")
                cr = codec.measure(blocks).cr()
                print(f"{codec.preset:<16}{b:>5}{t:>8}{m:>10.2f}{ed:>10.2f}{numpy_gbs:>10.2f}{cr:>8.3f}")


if __name__ == "__main__":
    main()
