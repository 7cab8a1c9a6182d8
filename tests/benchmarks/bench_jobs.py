"""The jobs a researcher waits for, end to end through the command line, on 1 GiB of the bundled
sample data (written once to a file, as a capture would be): GB/s of input, the share of memcpy
over the same machine in the same run, wall and CPU seconds (CPU / wall shows a busy host or idle
threads) and the peak resident memory each job adds to a bare ``import memcomp``. Reported, never
asserted:

    python tests/benchmarks/bench_jobs.py [--gib 1] [--threads 2] [--only compare,entropy]
                                          [--profile DIR] [--json out.json] [--why]

Each row ends with its goal (goals.py) and ``met`` or the share of it reached; ``--why`` then
prints, per goal, what bounds it today.

``--profile DIR`` runs each job under py-spy (``pip install py-spy``) and prints the functions
with the most samples of their own, native frames included: where the time goes between the
kernels and the job.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Tuple

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import goals  # noqa: E402

#: The jobs (name, memcomp arguments after the command's DUMP), in the issue's order.
JOBS: Tuple[Tuple[str, List[str]], ...] = (
    ("compare", ["compare", "{dump}", "-o", "{out}"]),
    ("compare --codecs all", ["compare", "{dump}", "--codecs", "all", "-o", "{out}"]),
    ("entropy", ["entropy", "{dump}", "-o", "{out}"]),
    ("toggles", ["toggles", "{dump}", "-o", "{out}"]),
    ("train-mpc --block 32", ["train-mpc", "{dump}", "--block", "32", "-o", "{out}.json"]),
)


def make_input(path: str, gib: float) -> None:
    """``gib`` GiB of the bundled sample data at ``path`` (64 MiB pieces of different seeds, so
    the file is not one piece repeated), unless a file of that size is there already."""
    import memcomp

    want = int(gib * (1 << 30)) // 4096 * 4096  # whole blocks of every size
    if os.path.exists(path) and os.path.getsize(path) == want:
        return
    piece = 64 << 20
    with open(path + ".part", "wb") as f:
        for k, start in enumerate(range(0, want, piece)):
            memcomp.workloads.sample_dump(min(piece, want - start), seed=k).tofile(f)
    os.replace(path + ".part", path)


def memcpy_gbs(nbytes: int = 256 << 20, repeat: int = 5) -> float:
    """GB/s of one thread copying ``nbytes`` (NumPy's copy is a memcpy), the best of ``repeat``."""
    src = np.ones(nbytes, np.uint8)
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return nbytes / best / 1e9


#: Runs ``memcomp ARGS`` (no ARGS: only imports it) and writes the process's peak resident size
#: to the file named by $MEMCOMP_BENCH_HWM when it exits. The kernel's own figure (VmHWM of
#: /proc/self/status) counts this program's pages alone; ru_maxrss would also count the pages of
#: the parent it was forked from.
SHIM = """
import atexit, os, runpy, sys

def hwm():
    with open('/proc/self/status') as f:
        kib = next(int(line.split()[1]) for line in f if line.startswith('VmHWM:'))
    with open(os.environ['MEMCOMP_BENCH_HWM'], 'w') as f:
        f.write(str(kib))

atexit.register(hwm)
if len(sys.argv) > 1:
    sys.argv[0] = 'memcomp'
    runpy.run_module('memcomp', run_name='__main__')
else:
    import memcomp.cli, pandas
"""


def run(args: List[str], profile: Optional[str] = None) -> Dict[str, float]:
    """Wall and CPU seconds and peak RSS (MiB) of ``memcomp ARGS`` in its own process."""
    argv = [sys.executable, "-c", SHIM, *args]
    if profile:
        argv = ["py-spy", "record", "--native", "--rate", "50", "--format", "raw", "-o", profile, "--", *argv]
    with tempfile.NamedTemporaryFile("r", suffix=".hwm") as hwm:
        t0 = time.perf_counter()
        p = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "MEMCOMP_BENCH_HWM": hwm.name}
        )
        err = p.stderr.read().decode() if p.stderr else ""
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            raise SystemExit(f"memcomp {' '.join(args)} failed ({p.returncode}):\n{err[-2000:]}")
        rss = int(hwm.read() or 0) / 1024
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": rss}


def top_frames(path: str, k: int = 8) -> List[Tuple[float, str]]:
    """The ``k`` frames with the most samples of their own in a py-spy raw (collapsed) profile."""
    own: Dict[str, int] = collections.Counter()
    total = 0
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            total += int(n)
            own[stack.split(";")[-1]] += int(n)
    return [(100.0 * n / max(total, 1), frame) for frame, n in collections.Counter(own).most_common(k)]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gib", type=float, default=1.0, help="GiB of input (default 1)")
    ap.add_argument("--threads", type=int, default=2, help="--threads of every job (default 2)")
    ap.add_argument("--input", default=None, help="the input file (default: made in the temp directory)")
    ap.add_argument("--only", default=None, help="comma-separated words: run only jobs naming one")
    ap.add_argument("--profile", default=None, help="profile each job with py-spy into this directory")
    ap.add_argument("--json", default=None, help="also write the rows to this JSON file")
    ap.add_argument("--why", action="store_true", help="print what bounds each goal after the table")
    args = ap.parse_args(argv)

    dump = args.input or os.path.join(tempfile.gettempdir(), f"memcomp-bench-{args.gib:g}gib.bin")
    make_input(dump, args.gib)
    nbytes = os.path.getsize(dump)
    if args.profile:
        if not shutil.which("py-spy"):
            raise SystemExit("--profile needs py-spy: pip install py-spy")
        os.makedirs(args.profile, exist_ok=True)
    memcpy = memcpy_gbs()
    base = run([])["rss_mib"]
    print(
        f"input: {nbytes / (1 << 30):.2f} GiB of the bundled sample ({dump}); {os.cpu_count()} hardware threads; "
        f"memcpy {memcpy:.2f} GB/s (1 thread); jobs at --threads {args.threads}; "
        f"RSS growth over a bare import ({base:.0f} MiB)"
    )
    print(
        f"{'job':<24}{'GB/s':>7}{'/memcpy':>9}{'wall s':>8}{'CPU s':>7}{'CPU/wall':>9}{'RSS+ MiB':>10}"
        f"  {'goal GB/s':>9}  status"
    )
    rows = []
    only = None if args.only is None else args.only.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        for name, template in JOBS:
            if only and not any(w in name for w in only):
                continue
            out = os.path.join(tmp, name.split()[0])
            cmd = [a.format(dump=dump, out=out) for a in template] + ["--threads", str(args.threads)]
            prof = os.path.join(args.profile, name.replace(" ", "_") + ".txt") if args.profile else None
            r = run(cmd, prof)
            gbs = nbytes / r["wall"] / 1e9
            row = {"job": name, "gbs": gbs, "vs_memcpy": gbs / memcpy, **r, "rss_growth_mib": r["rss_mib"] - base}
            goal = goals.JOBS[name]
            status = goal.status(gbs)
            if name == "toggles":
                rss_ok = row["rss_growth_mib"] <= goals.TOGGLES_RSS_MIB
                status += f"; RSS+ {'met' if rss_ok else 'over'} (<= {goals.TOGGLES_RSS_MIB:.0f} MiB)"
            row.update(goal_gbs=goal.gbs, status=status)
            rows.append(row)
            print(
                f"{name:<24}{gbs:>7.3f}{gbs / memcpy:>8.1%}{r['wall']:>8.1f}{r['cpu']:>7.1f}"
                f"{r['cpu'] / r['wall']:>9.2f}{row['rss_growth_mib']:>10.0f}  {goal.gbs:>9.2f}  {status}"
            )
            if prof:
                for share, frame in top_frames(prof):
                    print(f"    {share:5.1f}%  {frame[:110]}")
    if args.why:
        goals.print_why({r["job"]: goals.JOBS[r["job"]] for r in rows})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bytes": nbytes, "memcpy_gbs": memcpy, "threads": args.threads, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
