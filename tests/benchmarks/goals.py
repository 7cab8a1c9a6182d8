"""The speed goals of the jobs and kernels, in one place: ``bench_jobs.py`` and ``bench_all.py``
print each beside its figure (``met``, or the share of the goal reached), and ``--why`` prints,
for every goal, what bounds it today: what was tried, what it measured and why it stops there.

Figures are GB/s of input on the reference machine (2 cores with AVX-512); a goal is a target,
never a test, and a busy host moves every figure (compare CPU / wall and memcpy in the same run).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional


@dataclass(frozen=True)
class Goal:
    """At least ``gbs`` GB/s (or at most ``at_most``, for an overhead in %), and why it stops."""

    gbs: float = math.nan
    at_most: float = math.nan
    why: str = ""

    def status(self, value: float) -> str:
        """``met``, or how much of the goal ``value`` reaches (an overhead: how far above it is)."""
        if math.isnan(value):
            return "-"
        if not math.isnan(self.at_most):
            return "met" if value <= self.at_most else f"{value / self.at_most:.1f}x the limit"
        return "met" if value >= self.gbs else f"{value / self.gbs:.0%} of goal"


#: Jobs through the command line, 1 GiB of the bundled sample, 2 threads (bench_jobs.py's rows).
JOBS: Dict[str, Goal] = {
    "compare": Goal(
        0.5,
        why="One pass per 64 KiB piece with every codec applied while it is in cache, no per-block "
        "column, fits once on a sample: the job's CPU is the codecs' own kernels. Their sum over the "
        "12 default presets is 8.2 s per GiB on one core (tests/benchmarks/bench_all.py and a "
        "per-preset measure), a ceiling of 0.26 GB/s on 2 cores; LZSS is 3.4 s of it. Its greedy "
        "parse over AVX-512 equality rows (a broadcast and two 64-byte compares per byte of a 128 B "
        "block, then a branchy walk, token by token) runs at 0.33 GB/s; keeping the match starts "
        "in a register measured no gain. 0.5 GB/s needs the default set at 4.3 s per GiB: LZSS "
        "near 1 GB/s and the rest faster too. A parse without a branch per token is not tried.",
    ),
    "compare --codecs all": Goal(
        0.15,
        why="The same one pass over 52 presets: their kernels sum to about 21 s per GiB on one "
        "core after the C-Pack lane kernels (29.8 s before), a ceiling near 0.1 GB/s on 2 cores. The "
        "tool-compatibility presets are the heavy ones (bdi.nap64 3.3 s, bdi.cal22 2.5 s, cpack.skku "
        "and cpack.cal22 1.3 s each per GiB): they reproduce other tools' candidate-by-candidate "
        "rules, which the SIMD paths of bdi.paper do not share.",
    ),
    "entropy": Goal(
        0.3,
        why="Exact SL-32 counts in bounded memory are half the CPU: each chunk's words counted by "
        "key (value * 0x9E3779B1, the shard in its top bits) by an LSD radix sort in cache (12 ns "
        "per word on the sample, whose 32 MiB chunks are half distinct words), written once as a run, and the "
        "runs of each shard summed window by window in a dense table (no merge). Sharing SL 4 with "
        "SL 8 and dropping the shard reordering took the job from 0.08 to 0.12 GB/s (24 -> 15.5 s "
        "CPU). What is left per GiB of CPU: radix counts and run writes 4 s, per-block entropies "
        "4.5 s (a histogram per block, summed in value order), 2-3 s of system time (run files, "
        "page faults), shard sums 2 s. 0.3 GB/s needs about 7 s: an exact count that does not "
        "sort every distinct word, which we have not found.",
    ),
    "toggles": Goal(
        0.5,
        why="Each chunk's five encodes with Energy Control (BDI, FPC, FPC-MC, C-Pack, C-Pack-MC) "
        "and their bus counts run side by side, longest first; RSS stays bounded (the <= 256 MiB "
        "goal is met). perf's shares of the CPU: C-Pack's AVX-512 encode 20 %, FPC's encode 19 %, "
        "BDI's 2 %, bus and DBI counting 26 %, Energy Control's scan 8 %. An MC stream is encoded "
        "again from the blocks although its tokens are the plain stream's, reordered: sharing "
        "them would save at most a fifth of the CPU, not enough for 0.5 GB/s, and is not built.",
    ),
    "train-mpc --block 32": Goal(0.1),
}

#: Resident memory the toggles job may add over a bare import, in MiB.
TOGGLES_RSS_MIB = 256.0

#: Kernels, one thread (bench_all.py's paths; names as it prints them).
KERNELS: Dict[str, Goal] = {
    "measure bdi.paper 32 B": Goal(
        4.0,
        why="Widest delta first, a block none fits is raw at once; 3.3-3.8 GB/s on one core is "
        "about half of memcpy here, and the figure moves by 15 % from run to run.",
    ),
    "measure cpack.skku 32 B": Goal(
        1.0,
        why="One dictionary kept across every block (stateful): a block cannot start before the "
        "last one ends, so it gets no lanes; an index by upper half finds the candidates.",
    ),
    "measure mpc.cal22_rtl 32 B": Goal(
        1.0,
        why="All five transforms, the RTL choice and the row scan as AVX-512 bit permutations: "
        "0.84-0.89 GB/s from run to run.",
    ),
    "enc+dec fpc.paper 32 B": Goal(
        1.5,
        why="Eight blocks per lane group each way; the decoder's step is one token of each lane "
        "(a dependent chain of variable-length fields per block).",
    ),
    "enc+dec bpc.isca16 128 B": Goal(
        1.0,
        why="Planes straight from registers; the decoder's symbol walk is serial within a block "
        "(two blocks at a time).",
    ),
    "enc+dec fib.ours 128 B": Goal(0.5, why="Zeckendorf steps 32 words at a time; 0.45-0.46 GB/s."),
    "enc+dec e2mc.paper 128 B": Goal(
        0.6,
        why="Four PDW segments decoded side by side; a canonical-code decode is a dependent chain "
        "of table look-ups per segment.",
    ),
    "32-bit exact symbol counts": Goal(
        1.0,
        why="An LSD radix sort in cache per bucket of values: 0.5 GB/s here on a sample with half "
        "its words distinct (0.8 on dump-like words in tests/cpp).",
    ),
}

#: Energy Control's cost on top of encode, in % (bench_all.py's EC rows).
EC_OVERHEAD_PCT = Goal(at_most=20.0)

#: Two threads against one, on every bench_all.py path.
SCALING = 1.8


def job_goal(name: str) -> Optional[Goal]:
    return JOBS.get(name)


def kernel_goal(path: str) -> Optional[Goal]:
    if path.startswith("EC "):
        return EC_OVERHEAD_PCT
    return KERNELS.get(path)


def print_why(goals: Dict[str, Goal]) -> None:
    """Every goal with what bounds it (the ``--why`` of the bench scripts)."""
    for name, g in goals.items():
        target = f">= {g.gbs:g} GB/s" if math.isnan(g.at_most) else f"<= {g.at_most:g} %"
        print(f"\n{name} ({target}):\n  {g.why or 'met on the reference machine.'}")
