"""The ``memcomp`` command line.

    memcomp compare [DUMP] --block 32 --codecs bdi,fpc --mag 32 [--csv | --json]
    memcomp codecs

With no DUMP, ``compare`` runs on the bundled sample workloads (:mod:`memcomp.workloads`).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from typing import List, Optional, TextIO

from . import __version__
from .blocks import VALID_BLOCK_BYTES, as_blocks
from .codecs import list_codecs
from .io import open_dump
from .metrics import parse_policy
from .report import compare, resolve_codecs
from .workloads import sample_dump


class UsageError(Exception):
    """A command line the library cannot run: exit code 2, one line naming the flag to change."""


#: Library parameter names as the command line spells them (error messages name flags).
_FLAG_NAMES = [
    (r"allow_partial=True", "--allow-partial"),
    (r"allow_partial", "--allow-partial"),
    (r"block_bytes=(\d+)", r"--block \1"),
    (r"block_bytes", "--block"),
    (r"offset=(\d+)", r"--offset \1"),
    (r"offset/block size", "--offset/--block"),
    (r"offset", "--offset"),
    (r"u_min", "--u-min"),
    (r"threads", "--threads"),
    (r"chunk_blocks", "--chunk-blocks"),
]


def flag_message(message: str) -> str:
    """A library error message with its parameter names replaced by the flags that set them."""
    for pattern, flag in _FLAG_NAMES:  # whole words not already a flag
        message = re.sub(r"(?<![-\w])" + pattern + r"(?![\w])", flag, message)
    return message


def _as(flag: str, fn, *args, **kwargs):
    """fn(*args, **kwargs), its ValueError/TypeError turned into a UsageError naming ``flag``."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError) as e:
        raise UsageError(f"{flag}: {e}") from e


def _int_at_least(lo: int):
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {v}")
        return v

    parse.__name__ = f"integer >= {lo}"
    return parse


class ProgressBar:
    """A one-line progress bar on a terminal stream: ``[#####-----]  50%  1.2 GB/s``."""

    def __init__(self, block_bytes: int, stream: TextIO = sys.stderr, width: int = 30):
        self.block_bytes, self.stream, self.width = block_bytes, stream, width
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        frac = done / total if total else 1.0
        fill = int(round(frac * self.width))
        rate = done * self.block_bytes / max(time.perf_counter() - self.start, 1e-9) / 1e9
        self.stream.write(f"\r[{'#' * fill}{'-' * (self.width - fill)}] {frac:5.1%}  {rate:.2f} GB/s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="memcomp", description="Memory-block compression analysis.")
    p.add_argument("--version", action="version", version=f"memcomp {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("compare", help="compare codecs on a memory dump (or the bundled sample data)")
    c.add_argument("dump", nargs="?", help="raw binary dump or .npy file; omit for bundled sample data")
    c.add_argument("--block", type=int, default=32, choices=VALID_BLOCK_BYTES, help="block size in bytes")
    c.add_argument("--codecs", default="defaults",
                   help="comma-separated codec or preset names, 'defaults' (each family's default) or 'all'")
    c.add_argument("--mag", type=_int_at_least(1), default=32, help="memory access granularity in bytes (CR@MAG)")
    c.add_argument("--u-min", type=int, default=1, choices=(0, 1), help="minimum bursts charged per block")
    c.add_argument("--policy", default=None, help="report policy for raw CR, e.g. 'cap+bytes' (default: each preset's)")
    c.add_argument("--count-tag", action="store_true", help="count tag-side bits in CR")
    c.add_argument("--oracle", choices=("exact", "all", "none"), default="exact",
                   help="the per-block best-of-codecs row: over the decodable presets (default), over all "
                        "(accounting-only ones included), or none")
    c.add_argument("--no-oracle", dest="oracle", action="store_const", const="none", help="same as --oracle none")
    c.add_argument("--codec-mag", action="store_true",
                   help="also set the mag option of codecs whose format depends on it (E2MC's raw rule)")
    c.add_argument("--threads", type=_int_at_least(1), default=None, help="worker threads (default: all cores)")
    c.add_argument("--chunk-blocks", type=_int_at_least(1), default=1 << 18,
                   help="blocks per streamed chunk (bounds memory; never changes a result)")
    c.add_argument("--offset", type=_int_at_least(0), default=0, help="bytes to skip at the start of the dump")
    c.add_argument("--allow-partial", action="store_true", help="drop a trailing partial block instead of failing")
    c.add_argument("--sample-bytes", type=_int_at_least(1), default=16 << 20, help="size of the bundled sample dump")
    c.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of the bundled sample dump")
    fmt = c.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="print the full table as CSV")
    fmt.add_argument("--json", action="store_true", help="print the full table as JSON records")
    c.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
    c.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")

    sub.add_parser("codecs", help="list every codec and preset")
    return p


def _compare(args: argparse.Namespace, out: TextIO) -> int:
    codecs = _as("--codecs", resolve_codecs, [s.strip() for s in args.codecs.split(",") if s.strip()], args.block)
    for c in codecs:
        _as("--codecs/--block", c.check_block_bytes, args.block)
    if args.policy is not None:
        _as("--policy", parse_policy, args.policy)
    if args.dump is None:
        data = _as("--sample-bytes", sample_dump, args.sample_bytes, seed=args.seed)
        source = _as("--sample-bytes/--block", as_blocks, data, args.block)
        name = f"sample({args.sample_bytes} B, seed {args.seed})"
    else:
        source = open_dump(args.dump, args.block, offset=args.offset, allow_partial=args.allow_partial)
        name = args.dump
    n = source.shape[0] if hasattr(source, "shape") else source.n_blocks
    show = args.progress if args.progress is not None else (sys.stderr.isatty() and n * args.block >= 64 << 20)
    df = compare(
        source, codecs, mag=args.mag, u_min=args.u_min, policy=args.policy, count_tag=args.count_tag,
        threads=args.threads, chunk_blocks=args.chunk_blocks,
        oracle=False if args.oracle == "none" else args.oracle, codec_mag=args.codec_mag,
        progress=ProgressBar(args.block) if show else None,
    )
    df.insert(0, "dataset", name)
    if args.csv:
        df.to_csv(out, index=False)
    elif args.json:
        json.dump(df.to_dict(orient="records"), out, indent=1)
        out.write("\n")
    else:
        cols = ["codec", "exact"] + (["lossy"] if df["lossy"].any() else []) + ["model", "policy", "cr", "cr_mag"]
        cols += [c for c in df.columns if c.startswith("share_")] + ["oracle_wins"]
        out.write(f"{name}: {n} blocks of {args.block} B, MAG {args.mag} B\n")
        out.write(df[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n")
    return 0


def main(argv: Optional[List[str]] = None, out: TextIO = sys.stdout) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "compare":
            return _compare(args, out)
        table = list_codecs()[["name", "family", "default", "exact", "policy", "description"]]
        out.write(table.to_string(index=False) + "\n")
        return 0
    except UsageError as e:
        print(f"memcomp: error: {e}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as e:
        print(f"memcomp: error: {flag_message(str(e))}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
