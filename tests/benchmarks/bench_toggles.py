"""Throughput of bus-energy counting (memcomp.toggles) in GB/s of input, next to a NumPy popcount
reference, and the cost of Energy Control on top of the codec's encode (encode + EC against
encode alone, same blocks, one thread; EC over an encode's streams, and in one pass with the
blocks encoded inside EC). Reported, never asserted (goals: >= 4 GB/s per core for
toggle and zero counting; EC overhead < 20 %):

    python tests/benchmarks/bench_toggles.py [--mib 64]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import memcomp
from memcomp import toggles as T

sys.path.insert(0, os.path.dirname(__file__))
from timing import best_of  # noqa: E402

_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def numpy_toggles(data: np.ndarray, flit_bytes: int) -> int:
    """Stream-mode flit toggles of a byte stream, state 0 at the start (reference)."""
    prev = np.concatenate([np.zeros(flit_bytes, np.uint8), data[:-flit_bytes]])
    x = np.bitwise_xor(data, prev)
    if hasattr(np, "bitwise_count"):
        return int(np.bitwise_count(x).sum(dtype=np.uint64))
    return int(_POP8[x].sum(dtype=np.uint64))


def numpy_zeros(data: np.ndarray) -> int:
    if hasattr(np, "bitwise_count"):
        return 8 * data.size - int(np.bitwise_count(data).sum(dtype=np.uint64))
    return 8 * data.size - int(_POP8[data].sum(dtype=np.uint64))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ec-mib", type=int, default=8)
    args = ap.parse_args(argv)
    data = memcomp.workloads.sample_dump(args.mib << 20, seed=0)
    blocks = memcomp.as_blocks(data, 128)
    gb = data.nbytes / 1e9
    print(f"sample dump: {args.mib} MiB in 128 B blocks (one thread)")
    print(f"{'count':<34}{'memcomp GB/s':>14}{'numpy GB/s':>12}")
    ref_t = gb / best_of(lambda: numpy_toggles(data, 32), 1)
    for flit in (8, 16, 32):
        got = gb / best_of(lambda: T.count(blocks, channel="noc", flit_bytes=flit, per_block=False), args.repeat)
        print(
            f"{'noc toggles, raw, flit ' + str(flit) + ' B':<34}{got:>14.2f}{ref_t if flit == 32 else float('nan'):>12.2f}"
        )
    got = gb / best_of(lambda: T.count(blocks, channel="noc"), args.repeat)
    print(f"{'  the same with per-block columns':<34}{got:>14.2f}{'':>12}")
    assert T.count(blocks, channel="noc", flit_bytes=32).stats["toggles"] == numpy_toggles(data, 32)
    ref_z = gb / best_of(lambda: numpy_zeros(data), 1)
    got = gb / best_of(lambda: T.count(blocks, channel="dram", per_block=False), args.repeat)
    print(f"{'dram zeros+transitions, raw':<34}{got:>14.2f}{ref_z:>12.2f}")
    for dbi in ("dc", "ac"):
        got = gb / best_of(lambda: T.count(blocks, channel="dram", dbi=dbi, per_block=False), args.repeat)
        print(f"{'dram with dbi=' + dbi:<34}{got:>14.2f}{'':>12}")
    enc = memcomp.get_codec("fpc").encode(blocks, threads=1)
    got = gb / best_of(lambda: T.count(enc, channel="noc", per_block=False), args.repeat)
    print(f"{'noc toggles, fpc streams':<34}{got:>14.2f}{'':>12}  (GB/s of uncompressed input)")

    sub = blocks[: (args.ec_mib << 20) // 128]
    # Like with like: the same blocks and one thread for both; the overhead is what EC adds to an
    # encode, (encode + EC - encode) / encode, with EC's Python call and output columns included.
    # per_block=False is what compare() runs (totals and decisions); the last column adds the
    # per-block counts (21 columns) that energy_control returns by default.
    print(f"\nEnergy Control on {args.ec_mib} MiB: encode alone vs encode + EC (one thread, ec2)")
    print(
        f"{'codec':<14}{'channel':>8}{'encode s':>10}{'enc+EC s':>10}{'EC s':>10}{'overhead':>10}"
        f"{'EC GB/s':>9}{'+columns':>10}{'one pass':>10}"
    )
    for name in ("fpc", "cpack", "bdi"):
        codec = memcomp.get_codec(name)
        t_enc = best_of(lambda: codec.encode(sub, threads=1), args.repeat)
        e = codec.encode(sub, threads=1)
        for ch in ("noc", "dram"):
            t_both = best_of(
                lambda: T.energy_control(sub, codec.encode(sub, threads=1), "ec2", channel=ch, per_block=False),
                args.repeat,
            )
            t_ec = best_of(lambda: T.energy_control(sub, e, "ec2", channel=ch, per_block=False), args.repeat)
            t_cols = best_of(lambda: T.energy_control(sub, e, "ec2", channel=ch), args.repeat)
            # the blocks encoded inside EC: one pass, no stream kept (overhead on top of encode)
            t_fused = best_of(
                lambda: T.energy_control(sub, codec, "ec2", channel=ch, per_block=False, threads=1), args.repeat
            )
            print(
                f"{name:<14}{ch:>8}{t_enc:>10.4f}{t_both:>10.4f}{t_ec:>10.4f}"
                f"{100 * (t_both - t_enc) / t_enc:>9.1f}%{sub.nbytes / 1e9 / t_ec:>9.2f}"
                f"{100 * (t_cols - t_ec) / t_enc:>9.1f}%{100 * (t_fused - t_enc) / t_enc:>9.1f}%"
            )


if __name__ == "__main__":
    main()
