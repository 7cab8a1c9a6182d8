"""What train-mpc's default sample (``--fit-bytes``, :data:`memcomp._mpc_train.FIT_BYTES_MPC`)
costs in compression: MPC trained on every sector of the benchmark's input and on the sample,
each model's CR on held-out dumps of the bundled sample (other seeds), and the time each training
took. Reported, never asserted (the issue's bound: within 0.5 %):

    python tests/benchmarks/mpc_sample_quality.py [--input FILE] [--gib 1] [--fit-bytes N] [--held-out 3]
                                                     [--held-out-mib 64]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import memcomp  # noqa: E402
from memcomp import mpc  # noqa: E402
from memcomp._mpc_train import FIT_BYTES_MPC  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from bench_jobs import make_input  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", default=os.path.join(tempfile.gettempdir(), "memcomp-bench-1gib.bin"))
    ap.add_argument("--gib", type=float, default=1.0, help="GiB of input, made if missing (default 1)")
    ap.add_argument("--fit-bytes", type=int, default=FIT_BYTES_MPC, help="the sample's bytes (default: train-mpc's)")
    ap.add_argument("--held-out", type=int, default=3, help="held-out dumps (seeds 1000, 1001, ...)")
    ap.add_argument("--held-out-mib", type=int, default=64, help="MiB of each held-out dump (default 64)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    make_input(args.input, args.gib)
    dump = memcomp.open_dump(args.input, 32)
    models = {}
    for name, fit in (("every sector", None), (f"sample ({args.fit_bytes} B)", args.fit_bytes)):
        t0 = time.perf_counter()
        models[name] = mpc.train(dump, fit_bytes=fit, threads=args.threads)
        print(f"trained on {name}: {time.perf_counter() - t0:.1f} s")
    (full, full_m), (samp, samp_m) = models.items()
    print(f"{'held-out dump':<16}{full:>16}{samp:>24}  change")
    for k in range(args.held_out):
        held = memcomp.as_blocks(memcomp.workloads.sample_dump(args.held_out_mib << 20, seed=1000 + k), 32)
        a = full_m.codec().measure(held, threads=args.threads).cr()
        b = samp_m.codec().measure(held, threads=args.threads).cr()
        print(f"seed {1000 + k:<11}{a:>16.5f}{b:>24.5f}  {100 * (b / a - 1):+.3f} %")


if __name__ == "__main__":
    main()
