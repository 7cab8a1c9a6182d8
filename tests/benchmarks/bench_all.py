"""Every hot path in one table: GB/s of input at 1 and 2 threads, the 2-thread scaling, and the
ratio to the machine's limits over the same bytes (memcpy, and a read-only scan) and to the plain
NumPy way where one exists. Reported, never asserted; --json for tracking across commits:

    python tests/benchmarks/bench_all.py [--mib 64] [--repeat 5] [--only bdi,fpc] [--json out.json] [--why]

Paths: codec measure (BDI 32/128 B, FPC 32 B, C-Pack paper/skku 32 B, BPC 128 B, E2MC16/SC2
128 B, MPC 32 B), encode+decode (BDI, FPC, C-Pack, MPC 32 B; BPC, Fibonacci, E2MC16 128 B), Energy
Control on top of encode (BDI, FPC: overhead in %), and exact 32-bit symbol counting. Data-driven
codecs are fitted on the first 1/16 of the data (not timed). A path with a goal (goals.py) ends
with it and ``met`` or the share reached; a 2-thread scaling under 1.8x is marked ``<``; ``--why``
prints, per goal, what bounds it today.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, List, Optional

# BLAS worker threads spin after a call (the sample generator multiplies matrices); on a small
# machine they would steal the cores the 2-thread figures need.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import memcomp  # noqa: E402
from memcomp import toggles  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import goals  # noqa: E402
import numpy_reference  # noqa: E402
from timing import best_of, best_of_each  # noqa: E402

THREADS = (1, 2)


def _codec(name: str, blocks: np.ndarray) -> memcomp.Codec:
    c = memcomp.get_codec(name)
    return c.fit(blocks[: max(1, len(blocks) // 16)]) if c.requires_fit else c


def paths(data: np.ndarray) -> Dict[str, tuple]:
    """name -> (run(threads), numpy reference or None), each over all of ``data``."""
    b32, b128 = memcomp.as_blocks(data, 32), memcomp.as_blocks(data, 128)
    out: Dict[str, tuple] = {}

    def measure(name: str, blocks: np.ndarray, ref: Optional[Callable] = None) -> None:
        c = _codec(name, blocks)
        out[f"measure {c.preset} {blocks.shape[1]} B"] = (lambda t: c.measure(blocks, threads=t), ref)

    def roundtrip(name: str, blocks: np.ndarray) -> None:
        c = _codec(name, blocks)
        out[f"enc+dec {c.preset} {blocks.shape[1]} B"] = (
            lambda t: c.decode(c.encode(blocks, threads=t), threads=t),
            None,
        )

    measure("bdi.paper", b32, lambda: numpy_reference.bdi_paper_bits(b32))
    measure("bdi.paper", b128, lambda: numpy_reference.bdi_paper_bits(b128))
    measure("fpc.paper", b32, lambda: numpy_reference.fpc_paper_bits(b32))
    measure("cpack.paper", b32)
    measure("cpack.skku", b32)
    measure("bpc.isca16", b128)
    measure("e2mc.paper", b128)
    measure("sc2.paper", b128)
    measure("mpc.cal22_rtl", b32)
    for name in ("lzss.block", "bestof.bdi_fpc", "bdi.nap64", "bdi.cal22", "fvc.gem5"):
        measure(name, b128)
    for name, blocks in (
        ("bdi.paper", b32),
        ("fpc.paper", b32),
        ("cpack.paper", b32),
        ("mpc.cal22_rtl", b32),
        ("bpc.isca16", b128),
        ("fib.ours", b128),
        ("e2mc.paper", b128),
    ):
        roundtrip(name, blocks)
    out["32-bit exact symbol counts"] = (
        lambda t: memcomp.entropy.histogram(b128, 32, threads=t),
        lambda: np.unique(data.view("<u4"), return_counts=True),
    )
    return out


def ec_overhead(data: np.ndarray, repeat: int) -> List[dict]:
    """Energy Control on top of encode, one thread: (encode + EC - encode) / encode, with EC over
    the streams of an encode and with the blocks encoded inside EC (one pass, no stream kept)."""
    rows = []
    blocks = memcomp.as_blocks(data, 32)
    for name in ("bdi.paper", "fpc.paper"):
        c = memcomp.get_codec(name)
        t_enc, t_both, t_fused = best_of_each(
            [
                lambda: c.encode(blocks, threads=1),
                lambda: toggles.energy_control(blocks, c.encode(blocks, threads=1), "ec2", per_block=False),
                lambda: toggles.energy_control(blocks, c, "ec2", per_block=False, threads=1),
            ],
            repeat,
        )
        rows.append({"path": f"EC overhead {name} 32 B", "overhead_pct": 100 * (t_both - t_enc) / t_enc})
        rows.append({"path": f"EC one pass {name} 32 B", "overhead_pct": 100 * (t_fused - t_enc) / t_enc})
    return rows


def cpu_model() -> str:
    """The processor's name (the limits and the figures differ from one host to the next)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_limits(data: np.ndarray, repeat: int) -> Dict[str, float]:
    """memcpy and a read-only scan over ``data`` at 1 and 2 threads (NumPy releases the GIL in
    both): what the memory system gives, the yardstick of the 2-thread scaling of a path that
    runs near it."""
    gb = data.nbytes / 1e9
    dst = np.empty_like(data)
    words = data.view(np.uint64)
    halves = [slice(0, words.size // 2), slice(words.size // 2, words.size)]
    d64 = dst.view(np.uint64)
    with ThreadPoolExecutor(2) as pool:

        def both(fn) -> None:
            list(pool.map(fn, halves))

        t = best_of_each(
            [
                lambda: np.copyto(dst, data),
                lambda: both(lambda s: np.copyto(d64[s], words[s])),
                lambda: np.bitwise_or.reduce(words),  # reads every byte once
                lambda: both(lambda s: np.bitwise_or.reduce(words[s])),
            ],
            repeat,
        )
    return dict(zip(("memcpy_gbs", "memcpy_gbs_2", "scan_gbs", "scan_gbs_2"), (gb / x for x in t)))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64, help="MiB of sample data (default 64)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per figure, the fastest kept (default 5)")
    ap.add_argument("--only", default=None, help="comma-separated words: run only paths naming one")
    ap.add_argument("--json", default=None, help="also write the rows to this JSON file")
    ap.add_argument("--why", action="store_true", help="print what bounds each kernel goal after the table")
    args = ap.parse_args(argv)

    data = memcomp.workloads.sample_dump(args.mib << 20, seed=0)
    gb = data.nbytes / 1e9
    limits = machine_limits(data, args.repeat)
    print(
        f"sample dump: {args.mib} MiB on {cpu_model()}, {os.cpu_count()} hardware threads; GB/s at 1 / 2 threads: "
        f"memcpy {limits['memcpy_gbs']:.2f} / {limits['memcpy_gbs_2']:.2f}, "
        f"read-only scan {limits['scan_gbs']:.2f} / {limits['scan_gbs_2']:.2f}"
    )
    memcpy, scan = limits["memcpy_gbs"], limits["scan_gbs"]
    head = f"{'path':<34}{'1 thr':>8}{'2 thr':>8}{'scale':>8}{'/memcpy':>9}{'/scan':>7}{'numpy':>8}{'/numpy':>8}"
    print(head + f"{'goal':>7}  status   (GB/s; scaling goal {goals.SCALING}x)")
    rows: List[dict] = []
    only = None if args.only is None else args.only.split(",")
    for name, (run, ref) in paths(data).items():
        if only and not any(w in name for w in only):
            continue
        gbs = dict(zip(THREADS, (gb / x for x in best_of_each([lambda t=t: run(t) for t in THREADS], args.repeat))))
        ref_gbs = gb / best_of(ref, 1) if ref else float("nan")
        row = {
            "path": name,
            "gbs_1": gbs[1],
            "gbs_2": gbs[2],
            "scaling": gbs[2] / gbs[1],
            "vs_memcpy": gbs[1] / memcpy,
            "vs_scan": gbs[1] / scan,
            "numpy_gbs": ref_gbs,
            "vs_numpy": gbs[1] / ref_gbs if ref else float("nan"),
        }
        goal = goals.kernel_goal(name)
        row.update(goal_gbs=goal.gbs if goal else None, status=goal.status(gbs[1]) if goal else "")
        rows.append(row)
        scale = ("<" if row["scaling"] < goals.SCALING else "") + f"{row['scaling']:.2f}x"
        print(
            f"{name:<34}{gbs[1]:>8.2f}{gbs[2]:>8.2f}{scale:>8}{row['vs_memcpy']:>9.2f}"
            f"{row['vs_scan']:>7.2f}{ref_gbs:>8.2f}{row['vs_numpy']:>8.2f}"
            + (f"{goal.gbs:>7.2f}  {row['status']}" if goal else "")
        )
    if not only or any("EC" in w for w in only):
        for r in ec_overhead(data[: min(data.nbytes, 8 << 20)], args.repeat):
            r["status"] = goals.EC_OVERHEAD_PCT.status(r["overhead_pct"])
            rows.append(r)
            print(
                f"{r['path']:<34}{r['overhead_pct']:>7.1f}% on top of encode (1 thread); "
                f"goal <= {goals.EC_OVERHEAD_PCT.at_most:g} %: {r['status']}"
            )
    if args.why:
        goals.print_why(goals.KERNELS)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mib": args.mib, "cpu": cpu_model(), **limits, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
