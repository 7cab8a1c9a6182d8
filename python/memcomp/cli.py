"""The ``memcomp`` command line: one tool, a subcommand per job.

    memcomp compare   [DUMP...] --codecs all --block 128 --mag 32      CR, CR at MAG, size classes, oracle
    memcomp entropy   [DUMP...] --symbol-bits 4,8,16,32                entropy bounds per symbol length
    memcomp toggles   [DUMP...] --channel dram --dbi dc --ec ec2       CR against bus toggles and energy
    memcomp train-mpc [DUMP...] -o model.json                          train MPC, then compare --model model.json
    memcomp slc       [DUMP...] --thresholds 8,16 --mags 32            SLC gain and error per variant
    memcomp report    [DUMP...] -o report.html                         one self-contained HTML page
    memcomp info      [DUMP...]                                        what the dumps hold
    memcomp codecs    [CODEC]                                          every codec and preset, or CODEC's options

A DUMP is a file, a directory or a glob pattern (quote it); each file, or each array or tensor of
a container (.npz, .safetensors, .onnx), is one dataset and one group of rows. With no DUMP the
bundled sample data is used. Tables go to the terminal, or with ``--format csv|json|parquet`` or
``-o FILE`` (format from the extension) to a file. Exit codes: 0 done, 2 a usage or input error,
reported in one line that names what to change; 130 interrupted (Ctrl-C); 141 the reader of the
output went away (a closed pipe).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import io
import json
import os
import re
import sys
import warnings
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, NoReturn, Optional, Sequence, TextIO

import numpy as np

from . import __version__
from .blocks import VALID_BLOCK_BYTES, as_blocks
from .codecs import codec_options, list_codecs, split_names
from .io import AnyDump, dump_from_bytes, open_dumps
from .report import compare, resolve_codecs
from .workloads import sample_dump

if TYPE_CHECKING:
    import pandas


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
    (r"threshold_bytes", "--thresholds"),
    (r"thresholds", "--thresholds"),
    (r"rel_floor", "--rel-floor"),
    (r"window", "--window"),
]


def flag_message(message: str) -> str:
    """A library error message with its parameter names replaced by the flags that set them."""
    for pattern, flag in _FLAG_NAMES:  # whole words not already a flag
        message = re.sub(r"(?<![-\w])" + pattern + r"(?![\w])", flag, message)
    return message


def _as(flag: str, fn, *args, **kwargs):
    """fn(*args, **kwargs), its ValueError/TypeError turned into a UsageError naming ``flag``
    (or the flag a message about one parameter starts with: ``rel_floor must ...`` -> ``--rel-floor
    must ...``)."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError, OSError) as e:
        named = flag_message(str(e))
        raise UsageError(named if named.startswith("--") else f"{flag}: {e}") from e


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


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _byte_count(text: str) -> int:
    """A byte count: an integer, optionally with a binary unit (4096, 64K, 16MiB, 4G, 1T)."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)(?:i?b)?\s*", text, re.IGNORECASE)
    if not m or (not m.group(2) and text.strip().lower().endswith("ib")):
        raise argparse.ArgumentTypeError(f"expected a byte count such as 4096, 64K, 16MiB or 4G, got {text!r}")
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


_byte_count.__name__ = "byte count"


def _int_list(text: str) -> List[int]:
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _thresholds(text: str):
    """SLC's lossy thresholds: comma-separated byte counts, or ``half`` (half of each MAG, P4 §V-C)."""
    if text.strip().lower() == "half":
        return "half"
    try:
        return _int_list(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected comma-separated byte counts or 'half', got {text!r}") from None


_thresholds.__name__ = "thresholds"


def _names(text: str) -> List[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


# ------------------------------------------------------------------------------------- progress
def _progress(args, total_bytes: Optional[int]) -> Optional[Callable[[int, int], None]]:
    """A tqdm bar for (done, total) blocks callbacks: on a terminal for long work or a stream of
    unknown length (``total_bytes`` None), or with --progress; never with --no-progress or when
    stderr is not a terminal."""
    long = total_bytes is None or total_bytes >= 64 << 20
    show = args.progress if args.progress is not None else (sys.stderr.isatty() and long)
    if not show:
        return None
    from tqdm import tqdm

    bar = tqdm(total=total_bytes, unit="B", unit_scale=True, leave=False, file=sys.stderr, dynamic_ncols=True)
    state = {"done": 0}

    def update(done: int, total: int) -> None:
        step = done * args.block - state["done"]
        state["done"] = done * args.block
        bar.update(step)
        if total_bytes is not None and done >= total:
            bar.close()

    return update


# ------------------------------------------------------------------------------------- datasets
def _datasets(args) -> List[AnyDump]:
    """The datasets of the DUMP arguments, or the bundled sample; empty ones are skipped (with a
    note on stderr). Opened once per run (a stream such as standard input cannot be opened twice):
    commands open them before resolving --codecs, so an input error is reported first, alone."""
    if getattr(args, "_opened", None) is None:
        args._opened = _open_datasets(args)
    return args._opened


def _open_datasets(args) -> List[AnyDump]:
    if not args.dumps:
        data = _as("--sample-bytes", sample_dump, args.sample_bytes, seed=args.seed)
        _as("--sample-bytes/--block", as_blocks, data, args.block)
        data.flags.writeable = False
        return [
            dump_from_bytes(
                data,
                args.block,
                path="<sample>",
                name=f"sample({args.sample_bytes} B, seed {args.seed})",
                format="sample",
            )
        ]
    if "-" in args.dumps:  # standard input, read as a stream when it is a pipe (never all at once)
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("-: standard input is a terminal; pipe a dump in (cat dump.bin | memcomp compare -)")
        args.dumps = ["/dev/stdin" if p == "-" else p for p in args.dumps]
    if args.offset or args.length is not None:
        from .io import open_dump

        if len(args.dumps) != 1 or not os.path.isfile(args.dumps[0]):
            raise UsageError("--offset/--length apply to a single raw or .npy dump file")
        dumps = [
            open_dump(
                args.dumps[0], args.block, offset=args.offset, length=args.length, allow_partial=args.allow_partial
            )
        ]
    else:
        try:
            dumps = open_dumps(*args.dumps, block_bytes=args.block, allow_partial=args.allow_partial)
        except ImportError as e:
            raise UsageError(str(e)) from e
    kept = [d for d in dumps if d.n_blocks is None or d.n_blocks]  # streams: not read yet
    for d in dumps:
        if d.n_blocks == 0:
            print(f"memcomp: note: {d.name} ({d.path}) holds no whole {args.block} B block; skipped", file=sys.stderr)
    if not kept:
        raise UsageError(f"no dataset holds a whole {args.block} B block; choose a smaller --block")
    return kept


def _codecs(args, block: int, names: Any = None):
    """The codecs of --codecs; with --model, the model goes to the codecs of its family named by
    the family name (``mpc``, ``e2mc(pdw=8)``) and to those with no model of their own (a fitted
    family: ``e2mc.paper``, SLC's presets for an E2MC model). A preset published with its own
    model (``mpc.cal22_rtl``) keeps it, so ``--codecs mpc,mpc.cal22_rtl`` compares both."""
    from .codecs import Codec, get_codec

    names = _as("--codecs", split_names, args.codecs) if names is None else list(names)
    model = None
    if getattr(args, "model", None):
        from .models import Model

        model = _as("--model", Model.load, args.model)

        def takes(family: str) -> bool:  # SLC compresses with an E2MC model
            return family == model.codec or (family == "slc" and model.codec == "e2mc")

        names = [
            _as("--model", get_codec, n, model=model) if takes(n.split("(")[0].strip().lower()) else n for n in names
        ]
    given = [c for c in names if isinstance(c, Codec)]
    codecs = _as("--codecs", resolve_codecs, names, block)
    for i, c in enumerate(codecs):
        _as("--codecs/--block", c.check_block_bytes, block)
        if model is not None and c.requires_fit and takes(c.codec_id):
            codecs[i] = _as("--model", Codec.from_config, {**c.get_config(), "model": model})
            given.append(codecs[i])
    if model is not None and not given:
        own = ", ".join(c.name for c in codecs if c.codec_id == model.codec) or "none"
        raise UsageError(
            f"--model: the model is for {model.codec}, and no codec of --codecs takes it (of its family: {own}; "
            f"a published preset keeps its own model): name the family, e.g. --codecs {model.codec},{','.join(map(str, names))}"
        )
    return codecs


# --------------------------------------------------------------------------------------- output
_TABLE_COLUMNS = {
    "compare": ["dataset", "codec", "exact", "lossy", "model", "policy", "cr", "cr_mag", "share_*", "oracle_wins"],
    "toggles": [
        "dataset",
        "codec",
        "ec",
        "metric",
        "cr",
        "cr_mag",
        "t_ratio",
        "toggles_ratio",
        "energy_pj_per_block",
        "energy_ratio",
        "fraction_compressed",
    ],
    "info": None,
    # the presets, or (memcomp codecs NAME) the options of one
    "codecs": [
        "name",
        "family",
        "option",
        "kind",
        "values",
        "default",
        "value",
        "exact",
        "policy",
        "description",
        "help",
    ],
}


def _table_columns(command: str) -> Optional[Sequence[str]]:
    """The columns a terminal table of ``command`` shows (None: all)."""
    if command in _TABLE_COLUMNS:
        return _TABLE_COLUMNS[command]
    from .analysis import get, names

    return get(command).summary_columns if command in names() else None


#: Output formats by the extension of ``-o FILE`` (any other extension needs --format).
_EXTENSIONS = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".pq": "parquet", ".txt": "table"}


def _output_format(args) -> str:
    """--format, else the format of -o's extension, else (no -o, or a name without an extension
    such as /dev/stdout) a table; UsageError naming --format for an extension memcomp does not
    write (``-o result.xlsx`` wrote a text table into it)."""
    ext = os.path.splitext(args.output or "")[1].lower()
    if args.format is not None or not ext:
        return args.format or "table"
    if ext not in _EXTENSIONS:
        raise UsageError(
            f"-o {args.output}: memcomp writes {', '.join(_EXTENSIONS)}, not {ext}; "
            "or give the format: --format table|csv|json|parquet"
        )
    return _EXTENSIONS[ext]


def _check_output(args) -> None:
    """The output options checked before any work: a bad -o/--format is reported at once, not
    after a long run."""
    if hasattr(args, "format") and _output_format(args) == "parquet" and not args.output:
        raise UsageError("--format parquet writes a file: give -o FILE.parquet")


def _emit(df, args, out: TextIO) -> None:
    _check_output(args)
    fmt = _output_format(args)
    path = args.output
    if fmt == "parquet":
        try:
            with _writing(path):
                df.to_parquet(path, index=False)
        except ImportError:
            raise UsageError("--format parquet needs pyarrow: pip install memcomp[parquet]") from None
        return
    with _writing(path):
        sink = open(path, "w", encoding="utf-8") if path else out  # noqa: SIM115 (closed below unless stdout)
        try:
            if fmt == "csv":
                df.to_csv(sink, index=False)
            elif fmt == "json":
                sink.write(df.to_json(orient="records", indent=1) + "\n")
            else:
                cols = _table_columns(args.command)
                if cols:
                    picked = []
                    for c in cols:
                        picked += (
                            [k for k in df.columns if k.startswith(c[:-1])]
                            if c.endswith("*")
                            else ([c] if c in df.columns and (c != "lossy" or df[c].any()) else [])
                        )
                    df = df[picked]
                sink.write(df.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n")
        finally:
            if path:
                sink.close()


@contextlib.contextmanager
def _writing(path: Optional[str]) -> Iterator[None]:
    """Turns an error writing the output (``-o path``, else standard output) into a UsageError
    that names it; a closed pipe on standard output passes through (main exits quietly)."""
    try:
        yield
    except BrokenPipeError:
        if path:
            raise UsageError(f"cannot write {path}: the reader closed it") from None
        raise
    except OSError as e:
        if path and os.path.isdir(path):
            raise UsageError(f"-o {path}: is a directory; give a file name") from None
        raise UsageError(f"cannot write {path or 'the standard output'}: {e.strerror or e}") from None


# -------------------------------------------------------------------------------------- commands
def _per_dataset(args, fn) -> "pandas.DataFrame":
    import pandas as pd

    frames = []
    for d in _datasets(args):
        df = fn(d)
        if "dataset" not in df.columns:
            df.insert(0, "dataset", d.name)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


@contextlib.contextmanager
def _dask_client(args) -> Iterator[Any]:
    """A Dask client for ``--dask``: a LocalCluster of ``--dask-workers`` single-threaded worker
    processes (default: one per core), or the scheduler at the address given."""
    try:
        import distributed
    except ImportError as e:
        raise UsageError("--dask needs Dask: pip install 'memcomp[dask]'") from e
    import logging

    if args.dask == "local":
        workers = args.dask_workers or os.cpu_count() or 1
        with (
            distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, dashboard_address=None, silence_logs=logging.ERROR
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            yield client
    else:
        try:
            client = distributed.Client(args.dask, timeout="20s")
        except OSError as e:
            raise UsageError(f"--dask: cannot reach the Dask scheduler at {args.dask!r} ({e})") from e
        with client:
            yield client


def _on_dask(args, fn, *a, **kw):
    """``fn`` (a memcomp.dask function) over every dataset, on the ``--dask`` cluster."""
    with _dask_client(args) as client:
        return fn(_datasets(args), *a, threads=args.threads or 1, client=client, **kw)


def _train_mpc_check(args) -> None:
    if args.block % 32:
        raise UsageError("--block: MPC trains on 32 B sectors; use a block size of 32 B or more")
    if os.path.isdir(args.output_model):  # before the training, not after it
        raise UsageError(f"-o {args.output_model}: is a directory; give a file name, e.g. -o model.json")


def _train_mpc_emit(args, model, out: TextIO) -> None:
    with _writing(args.output_model):
        model.save(args.output_model)
    groups = model.info["groups"]
    sectors = sum(v["blocks"] for v in groups.values()) + model.info["dropped_special"]
    n = len(_datasets(args))
    sample = model.provenance.get("options", {}).get("sample") if model.provenance else None
    how = f" (a sample: {sample}; --fit-bytes none trains on every sector)" if sample else ""
    out.write(f"trained MPC on {sectors} sectors from {n} dataset(s){how}; wrote {args.output_model}\n")
    for g, v in groups.items():
        out.write(f"  class {v['class']} {g:<10} {v['blocks']:>10} blocks{' (fallback)' if v['fallback'] else ''}\n")
    out.write(
        f"how it was trained (memcomp version, options, source and its SHA-256): memcomp info {args.output_model}\n"
    )


def _toggles_options(args, given: dict) -> dict:
    for flag, key in (("--alpha", "alpha"), ("--bu", "bu")):  # CLI defaults: ec2; only ec1/ec2 weigh energy
        if hasattr(args, f"option_{key}") and given.get("ec") not in ("ec1", "ec2"):
            raise UsageError(
                f"{flag}: it weighs the energy term of --ec ec1/ec2, and --ec {given.get('ec') or 'none'} has none"
            )
    return given


@dataclasses.dataclass(frozen=True)
class _Command:
    """What a registered analysis's subcommand has beyond the flags its options declare: its
    description, default block size, flags of the command line only, checks made before any
    work, a change to the options, and what it does with the result (default: the table out)."""

    description: str = ""
    block: int = 128
    table: bool = True
    flags: Callable[[Any], None] = lambda sp: None
    check: Callable[[Any], None] = lambda args: None
    options: Callable[[Any, dict], dict] = lambda args, given: given
    emit: Optional[Callable[[Any, Any, TextIO], None]] = None


def _compare_flags(sp) -> None:
    sp.add_argument(
        "--no-oracle",
        dest="option_oracle",
        action="store_const",
        const=False,
        default=argparse.SUPPRESS,
        help="same as --oracle none",
    )


def _train_flags(sp) -> None:
    g = sp.add_argument_group("output")
    g.add_argument("-o", "--output", dest="output_model", required=True, help="the model JSON to write")


_CLI = {
    "compare": _Command(
        description="Compares codecs on each dataset: raw CR, CR at MAG, the share of blocks per size class, "
        "where the bits go, and the per-block best (oracle row).",
        flags=_compare_flags,
        emit=lambda args, df, out: _emit(
            df.drop(columns=[c for c in df.columns if c.startswith("oracle_")])
            if getattr(args, "option_oracle", "exact") is False
            else df,
            args,
            out,
        ),
    ),
    "toggles": _Command(
        description="Bus energy of each dataset's transfers, raw and compressed: toggles, DRAM zeros with DBI, "
        "Energy Control, and joules under an energy model.",
        options=_toggles_options,
    ),
    "train-mpc": _Command(
        description="Trains MPC's five per-type modules (P3 §3) on the datasets' 32 B sectors and writes the "
        "model; use it with: memcomp compare DUMP --codecs mpc --model FILE.",
        block=32,
        table=False,
        flags=_train_flags,
        check=_train_mpc_check,
        # the SHA-256 of the bytes read, in order: serially (Dask reads the parts in no one order)
        options=lambda args, given: {**given, "seed": args.seed, "sha256": args.dask is None},
        emit=_train_mpc_emit,
    ),
}


def _model_file(path: str) -> Any:
    """The memcomp model in ``path`` (a .json file whose 'format' is a model's), else None."""
    from ._common import parse_json, read_text
    from .models import FORMAT, Model

    if not path.lower().endswith(".json") or not os.path.isfile(path):
        return None
    try:
        data = parse_json(read_text(path, "JSON"), path)
    except (ValueError, OSError):
        return None  # not JSON: a dump that happens to end in .json
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    return _as(path, Model.load, path)


def _model_rows(path: str, model) -> List[dict]:
    """``memcomp info model.json``: one row per field, long form: the model's own fields (lists
    and objects by their size) and its provenance, flattened (``provenance.source[0].file``)."""
    rows = [{"file": path, "field": k, "value": v} for k, v in (("codec", model.codec), ("format", model["format"]))]
    for k, v in model.data.items():
        if k not in ("codec", "format"):
            size = f"{len(v)} entries" if isinstance(v, list) else f"{len(v)} fields" if isinstance(v, dict) else v
            rows.append({"file": path, "field": k, "value": size})

    def flat(name: str, v: Any) -> None:
        if isinstance(v, dict) and v:
            for k, x in v.items():
                flat(f"{name}.{k}", x)
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for i, x in enumerate(v):
                flat(f"{name}[{i}]", x)
        else:
            rows.append({"file": path, "field": name, "value": json.dumps(v) if isinstance(v, (list, dict)) else v})

    if model.provenance is None:
        rows.append({"file": path, "field": "provenance", "value": "not recorded"})
    else:
        flat("provenance", model.provenance)
    return rows


def _cmd_info(args, out: TextIO) -> int:
    import pandas as pd

    from . import _core

    models = [(p, m) for p in args.dumps for m in [_model_file(p)] if m is not None]
    if models:
        if len(models) != len(args.dumps):
            raise UsageError("info: give dumps or model files, not both; run info once for each")
        _emit(pd.DataFrame([r for p, m in models for r in _model_rows(p, m)]), args, out)
        return 0
    rows = []
    for d in _datasets(args):
        counts, zero = np.zeros(256, np.int64), 0
        for chunk in d.chunks(args.chunk_blocks):  # streamed: a dump of any size, pipes included
            counts += np.bincount(chunk.reshape(-1), minlength=256)
            zero += int(np.count_nonzero(~chunk.any(axis=1)))
        p = counts[counts > 0] / max(counts.sum(), 1)
        n = d.n_blocks or 0  # a stream knows its length once read
        rows.append(
            {
                **d.provenance(),
                "blocks": n,
                "bytes": d.nbytes,
                "dropped_bytes": d.dropped_bytes,
                "zero_block_share": zero / max(n, 1),  # all-zero blocks / blocks
                "byte_entropy": float(-(p * np.log2(p)).sum()),
                "simd_tier": _core.simd_tier(),  # the kernels' tier (memcomp.set_simd_tier)
                "simd_tier_supported": _core.simd_tier_supported(),  # this CPU's highest
            }
        )
    _emit(pd.DataFrame(rows), args, out)
    return 0


def _cmd_codecs(args, out: TextIO) -> int:
    _emit(_as("codecs", codec_options, args.codec) if args.codec else list_codecs(), args, out)
    return 0


def _cmd_report(args, out: TextIO) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from . import entropy, plot, report_page, toggles
    from .report import mag_study

    ext = os.path.splitext(args.output or "")[1].lower()
    if ext not in (".html", ".htm", ".pdf"):
        raise UsageError("-o: report writes one HTML page or one PDF; give -o FILE.html or -o FILE.pdf")
    pdf = ext == ".pdf"
    datasets = _datasets(args)  # input errors before codec warnings
    codecs = _codecs(args, args.block)
    compare_head = {
        "exact": "decodable",
        "model": "model",
        "policy": "storage policy",
        "cr": "raw CR (raw bits / charged bits)",
        "cr_mag": f"CR at MAG {args.mag} B (raw bytes / bytes in accesses)",
        "oracle_wins": "blocks it is the smallest for",
        "note": "note",
    }
    entropy_head = {
        "symbol_bits": "symbol length SL (bits)",
        "entropy": "order-0 entropy H (bits per symbol)",
        "cr_bound": "SL / H",
        "mfv": "K (table entries)",
        "cr_mfv": "SL / H_K (K most frequent values + escape)",
        "cr_length_limited": "SL / L* (E2MC's length-limited code)",
    }
    sections: list = []
    items: dict = {}
    energy_model = "-"
    with plot.paper_style("double"):
        for d in datasets:
            cmp_df = compare(d, codecs, mag=args.mag, threads=args.threads, progress=_progress(args, d.nbytes))
            ent = entropy.table(d, threads=args.threads, chunk_blocks=args.chunk_blocks)
            _, above = mag_study(
                d, [c for c in codecs if c.supports(args.block)], mags=(args.mag,), threads=args.threads
            )
            exact = [c for c in codecs if c.exact and not c.lossy and c.supports(args.block)][:6]
            tg = None
            if exact:
                tg = toggles.compare(d, exact, channel="dram", dbi="dc", ec="ec2", mag=args.mag, threads=args.threads)
                energy_model = str(tg["energy_model"].iloc[0])
            sections.append(
                report_page.DatasetSection(d.name, int(d.n_blocks or 0), d.provenance(), cmp_df, ent, above, tg)
            )
            its: list = []  # ("table" | "figure", caption, HTML or Figure), in page order
            head = compare_head | {
                c: f"share of blocks in {c[6:-1]} B" for c in cmp_df.columns if c.startswith("share_")
            }
            cols = ["codec"] + [c for c in head if c in cmp_df.columns and (c != "note" or cmp_df[c].notna().any())]
            its.append(("table", "Compression ratio and CR at MAG", report_page._table(cmp_df[cols], head)))
            fig, ax = plt.subplots(figsize=(7.0, 3.2), constrained_layout=True)
            plot.cr_bars(cmp_df, ax=ax, bound=ent)
            its.append(("figure", "Compression ratio and CR at MAG, with the dataset's order-0 entropy bounds", fig))
            its.append(
                (
                    "table",
                    "Order-0 entropy of the dump's SL-bit symbols (bounds one code for the whole dump, "
                    "not per-block codecs)",
                    report_page._table(ent[list(entropy_head)], entropy_head),
                )
            )
            if len(above):
                fig, ax = plt.subplots(figsize=(7.0, 0.8 + 0.3 * above["codec"].nunique()), constrained_layout=True)
                plot.above_mag_heatmap(above, ax=ax)
                ax.grid(False)
                its.append(("figure", "Bytes above a multiple of MAG", fig))
            if tg is not None:
                title = f"Compression against DRAM bus energy in pJ ({energy_model}, DBI dc, Energy Control ec2)"
                cols = ["codec", "ec", "cr", "fraction_compressed", "t_ratio", "toggles_ratio"]
                cols += ["energy_pj_per_block", "energy_ratio"]
                head = {c: plot.toggle_label(tg, c) for c in cols} | {"ec": "Energy Control"}
                its.append(("table", title, report_page._table(tg[cols], head)))
                fig, axs = plt.subplots(1, 2, figsize=(7.0, 3.0), constrained_layout=True)
                plot.ratio_toggle_scatter(tg, ax=axs[0], y="energy_pj_per_block")
                plot.ratio_toggle_scatter(tg, ax=axs[1], y="t_ratio")
                its.append(("figure", title, fig))
            items[d.name] = [(k, c, report_page.svg(x) if k == "figure" and not pdf else x) for k, c, x in its]
    argv = getattr(args, "argv", None) or sys.argv[1:]
    prov = report_page.provenance(argv, codecs, energy_model, {"block bytes": args.block, "MAG": args.mag})
    with _writing(args.output):
        if pdf:
            report_page.pdf_document(args.output, sections, items, prov)
        else:
            page = report_page.html_page(sections, items, prov, args.mag, args.block)
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(page)
    out.write(f"wrote {args.output}\n")
    return 0


# --------------------------------------------------------------------------------------- parser
class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help ends with its default, unless it says the default itself."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text, d = action.help or "", action.default
        if (
            not action.option_strings
            or "default" in text
            or d is None
            or d is False
            or isinstance(d, bool)
            or d is argparse.SUPPRESS
        ):
            return text
        shown = ",".join(map(str, d)) if isinstance(d, (list, tuple)) else str(d)
        return f"{text} (default: {shown.replace('%', '%%')})".lstrip()


class _Parser(argparse.ArgumentParser):
    """argparse with its errors in one line that names the flag (exit 2), not the usage first;
    subcommand parsers are of the same class."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


MODEL_HELP = (
    "a model JSON (e.g. from train-mpc) for the codecs of its family named by the family name "
    "(mpc, e2mc) or without a model of their own (e2mc.paper, SLC's for an E2MC model); a published "
    "preset such as mpc.cal22_rtl keeps its own"
)


def _codecs_help(what: str, default: Any) -> str:
    """--codecs's help: what the analysis takes, how names are written, the groups, what
    'defaults' holds."""
    from .codecs import CODEC_GROUPS, codec_names

    groups = "; ".join(f"'{g}': {what}" for g, what in CODEC_GROUPS.items())
    return (
        f"{what}: comma-separated codec and preset names, in any case ('memcomp codecs' lists them), and groups "
        f"({groups}). 'defaults' holds {', '.join(codec_names(group='defaults'))} (default: {default})"
    ).replace("%", "%%")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="memcomp",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=_HelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"memcomp {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    command = functools.partial(sub.add_parser, formatter_class=_HelpFormatter)  # defaults in every --help

    def data(sp, block_default=128, dask=False):
        g = sp.add_argument_group("data")
        g.add_argument(
            "dumps",
            nargs="*",
            metavar="DUMP",
            help="dump files, directories or quoted glob patterns (default: the bundled sample data)",
        )
        g.add_argument(
            "--block",
            type=int,
            default=block_default,
            choices=VALID_BLOCK_BYTES,
            help=f"block size in bytes (default {block_default})",
        )
        g.add_argument(
            "--offset", type=_byte_count, default=0, help="bytes to skip in a single raw dump (e.g. 4096, 64K, 4G)"
        )
        g.add_argument(
            "--length",
            "--max-bytes",
            type=_byte_count,
            default=None,
            help="bytes to analyse from --offset on (e.g. 1G; default: to the end)",
        )
        g.add_argument("--allow-partial", action="store_true", help="drop a trailing partial block instead of failing")
        g.add_argument(
            "--sample-bytes",
            type=_int_at_least(1),
            default=16 << 20,
            help="size of the bundled sample (default 16 MiB)",
        )
        g.add_argument("--seed", type=_int_at_least(0), default=0, help="seed of the bundled sample")
        r = sp.add_argument_group("run")
        r.add_argument("--threads", type=_int_at_least(1), default=None, help="worker threads (default: all cores)")
        r.add_argument(
            "--chunk-blocks",
            type=_int_at_least(1),
            default=1 << 18,
            help="blocks per streamed chunk (bounds memory; never changes a result)",
        )
        r.add_argument("--progress", dest="progress", action="store_true", default=None, help="always show progress")
        r.add_argument("--no-progress", dest="progress", action="store_false", help="never show progress")
        if dask:
            r.add_argument(
                "--dask",
                nargs="?",
                const="local",
                default=None,
                metavar="SCHEDULER_ADDRESS",
                help="run on Dask (extra 'dask'): on the scheduler at SCHEDULER_ADDRESS (e.g. "
                "tcp://host:8786), or without one on a local cluster of worker processes; "
                "same result as without --dask",
            )
            r.add_argument(
                "--dask-workers",
                type=_int_at_least(1),
                default=None,
                help="worker processes of the local cluster (default: one per core)",
            )

    def output(sp):
        g = sp.add_argument_group("output")
        g.add_argument(
            "--format",
            choices=("table", "csv", "json", "parquet"),
            default=None,
            help="output format (default: from -o's extension, else a table)",
        )
        g.add_argument("--csv", dest="format", action="store_const", const="csv", help="same as --format csv")
        g.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
        g.add_argument("-o", "--output", default=None, help="write to this file instead of the terminal")

    def codecs_arg(sp, default):
        sp.add_argument("--codecs", default=default, help=_codecs_help("codec presets", default))
        sp.add_argument("--model", default=None, help=MODEL_HELP)

    r = command(
        "report",
        help="one self-contained HTML page (or PDF) of tables and figures",
        description="Writes one HTML page (figures as inline SVG) or, with -o FILE.pdf, one PDF per run: a "
        "summary across datasets (best codec, CR, CR at MAG, entropy gap, DRAM energy) with what each column "
        "holds, then per dataset the comparison table and CR bars with the entropy bounds, the bytes-above-MAG "
        "heatmap and CR against bus energy, and the run's provenance.",
    )
    data(r)
    codecs_arg(r, "bdi,fpc,cpack,bpc,e2mc")
    r.add_argument("--mag", type=_int_at_least(1), default=32, help="memory access granularity in bytes")
    r.add_argument("-o", "--output", required=True, help="the file to write: FILE.html, or FILE.pdf")

    from .papers import PAPERS

    rp = command(
        "reproduce",
        help="every figure of a paper from your dumps: PDF and PNG, and table.csv beside the paper's numbers",
        description="Draws every figure and table of PAPER that memory data gives (as the paper draws it: "
        "its series, block size, MAG and symbol lengths) into DIR as PDF and PNG, with DIR/table.csv: one row "
        "per figure, series, quantity and dataset, memcomp's value beside the one the paper prints (and where). "
        "Figures that need a simulator list the paper's numbers with a note. With no DUMP the datasets are the "
        "bundled workloads, one each. Needs matplotlib: pip install memcomp[plot].",
    )
    rp.add_argument("paper", choices=sorted(PAPERS) + ["all"], help="the paper, or all of them")
    rp.add_argument(
        "dumps",
        nargs="*",
        metavar="DUMP",
        help="dump files (raw, .npy, compressed, weights; a dataset each, named by file; default: the bundled "
        "workloads)",
    )
    rp.add_argument("-o", "--output", required=True, metavar="DIR", help="the directory to write the figures to")
    rp.add_argument("--quick", action="store_true", help="the first 2048 blocks of each dataset (a minute or less)")
    rp.add_argument("--threads", type=_int_at_least(1), default=None, help="threads per analysis (default: all)")

    from .plot import KINDS

    pl = command(
        "plot",
        help="draw a figure from a saved table (CSV or Parquet, e.g. from --csv -o): no Python needed",
        description="Draws KIND (a memcomp.plot function) from TABLE, a table a command wrote with --csv or "
        "--format parquet, into -o FIG (.pdf, .png or .svg) in the papers' style (memcomp.plot.paper_style). "
        "--set passes a keyword of the function (memcomp.plot.KIND's docstring lists them). Needs matplotlib: "
        "pip install memcomp[plot].",
    )
    pl.add_argument("kind", choices=sorted(KINDS), help="the figure: a memcomp.plot function")
    pl.add_argument("table", help="the table: a .csv or .parquet file")
    pl.add_argument("-o", "--output", required=True, metavar="FIG", help="the figure to write (.pdf, .png or .svg)")
    pl.add_argument("--width", choices=["single", "double"], default="double", help="a column or the page")
    pl.add_argument("--col", default=None, metavar="COLUMN", help="one panel per value of COLUMN (dataset, codec, ...)")
    pl.add_argument(
        "--set",
        dest="keywords",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword of the plot function, e.g. y=toggles_ratio or density=true (repeatable)",
    )

    i = command("info", help="what the dumps hold: datasets, sizes, zero blocks, byte entropy; the SIMD tier")
    data(i)
    output(i)

    k = command("codecs", help="list every codec and preset, or the options of one")
    k.add_argument(
        "codec",
        nargs="?",
        default=None,
        help="a codec or preset (bdi, fpc.gem5): list its options, their values, defaults and help",
    )
    output(k)

    from .analysis import get, names
    from .analysis.base import Bool

    for name in names():  # every registered analysis: its subcommand from its options
        cls, cmd = get(name), _CLI.get(name, _Command())
        a = command(
            name, help=cls.summary, description=cmd.description or cls.summary[:1].upper() + cls.summary[1:] + "."
        )
        data(a, block_default=cmd.block, dask=True)
        for o in cls.OPTIONS:
            if not o.cli_flag:
                continue
            shown = o.command_line_default
            shown = ",".join(map(str, shown)) if isinstance(shown, (list, tuple)) else shown
            if isinstance(o.domain, Bool) and o.command_line_default is False:
                a.add_argument(o.cli_flag, dest=f"option_{o.name}", action="store_true", help=o.help)
                continue
            a.add_argument(
                o.cli_flag,
                dest=f"option_{o.name}",
                type=_option_parser(o),
                default=argparse.SUPPRESS,
                metavar=o.domain.metavar,
                help=(
                    o.help
                    if shown is None and "default" in o.help
                    else f"{o.help} (default: {'none' if shown is None else shown})"
                ).replace("%", "%%"),
            )
            if o.name == "codecs":
                a.add_argument("--model", default=None, help=MODEL_HELP)
                a._option_string_actions["--codecs"].help = _codecs_help(o.help, shown)
        cmd.flags(a)
        if cmd.table:
            output(a)
    return p


class _Unread:
    """Command-line text an option's domain could not read: refused in one line naming the flag
    (exit 2) when the command runs, as a value out of its domain is."""

    def __init__(self, error: str) -> None:
        self.error = error


def _option_parser(option):
    """The command line's reader of ``option``: its domain's parse (text it cannot read is kept
    as :class:`_Unread`, refused naming the flag before any work)."""

    def parse(text: str):
        try:
            return option.domain.parse(text)
        except (TypeError, ValueError) as e:
            return _Unread(str(e))

    parse.__name__ = option.name  # argparse names it in "invalid ... value"
    return parse


def _checked(cls, given: dict) -> dict:
    """``given`` with each option checked against its domain, in declaration order: the first bad
    one refused in one line that names its flag, before any codec is resolved or data read."""
    for o in cls.OPTIONS:
        if o.name not in given:
            continue
        v = given[o.name]
        if isinstance(v, _Unread):
            raise UsageError(f"{o.cli_flag}: {v.error}")
        try:
            o.domain.check(o.name, v)
        except (TypeError, ValueError) as e:
            text = str(e)
            if not text.startswith(o.cli_flag):  # the option's name leads its domain's messages
                text = re.sub(r"^" + re.escape(o.name) + r"(?![\w])", o.cli_flag, text)
                text = text if text.startswith(o.cli_flag) else f"{o.cli_flag}: {text}"
            raise UsageError(text) from e
    return given


def _option_flags(cls, message: str) -> str:
    """``message`` with the analysis's option names replaced by their flags."""
    for o in cls.OPTIONS:
        if o.cli_flag:
            message = re.sub(r"(?<![-\w])" + re.escape(o.name) + r"(?![\w])", o.cli_flag, message)
    return flag_message(message)


def _run_analysis(args, a):
    """``a`` over every dataset of the command line: serially or on ``--dask``."""
    from .analysis import run as run_analysis
    from .analysis.run import concat, named

    if args.dask is not None:
        from . import dask as mdask

        return _on_dask(args, lambda data, **kw: mdask.run(a, data, **kw), chunk_blocks=args.chunk_blocks)
    if not a.per_dataset:  # the datasets make one result (a model)
        from .analysis import run_each

        ds = _datasets(args)
        sizes = [d.nbytes for d in ds]
        total = None if None in sizes else sum(n for n in sizes if n is not None)
        return run_each(a, ds, threads=args.threads, chunk_blocks=args.chunk_blocks, progress=_progress(args, total))
    return concat(
        [
            named(
                run_analysis(
                    a, d, threads=args.threads, chunk_blocks=args.chunk_blocks, progress=_progress(args, d.nbytes)
                ),
                d,
            )
            for d in _datasets(args)
        ]
    )


def _cmd_analysis(args, out: TextIO) -> int:
    """A registered analysis (:mod:`memcomp.analysis`) over every dataset, serially or on Dask."""
    from .analysis import get
    from .analysis.base import SAME

    cls, cmd = get(args.command), _CLI.get(args.command, _Command())
    cmd.check(args)
    _datasets(args)  # input errors before codec warnings
    given = {
        o.name: getattr(args, f"option_{o.name}", o.command_line_default)
        for o in cls.OPTIONS
        if o.cli_flag and (hasattr(args, f"option_{o.name}") or o.cli_default is not SAME)
    }
    _checked(cls, {k: v for k, v in given.items() if k != "codecs" or isinstance(v, _Unread)})
    if any(o.name == "codecs" for o in cls.OPTIONS):  # names and groups resolved, --model given to its family
        codecs = next(o for o in cls.OPTIONS if o.name == "codecs")
        given["codecs"] = _codecs(args, args.block, given.get("codecs", codecs.command_line_default))
    given = cmd.options(args, given)
    if cls.tabular:
        _import_behind("pandas")  # the table's, while the analysis runs
    try:
        result = _run_analysis(args, cls(**given))
    except UsageError:
        raise
    except (TypeError, ValueError) as e:  # one line, where a message about an option names its flag
        raise UsageError(_option_flags(cls, str(e))) from e
    if cmd.emit is not None:
        cmd.emit(args, result, out)
        return 0
    if not isinstance(result, tuple):
        _emit(result, args, out)
        return 0
    _emit(result[0], args, out)  # further tables beside it: OUT.NAME.EXT, or after it headed # NAME
    for name, df in zip(cls.tables, result[1:]):
        if args.output:
            stem, ext = os.path.splitext(args.output)
            _emit(df, argparse.Namespace(**{**vars(args), "output": f"{stem}.{name}{ext}"}), out)
        else:
            out.write(f"\n# {name}\n")
            _emit(df, args, out)
    return 0


def _import_behind(module: str) -> None:
    """Imports ``module`` on a thread of its own, beside the work the command does meanwhile (the
    kernels release the GIL); whoever imports it next waits for this import, if it is not done,
    then finds it there. An import that fails leaves it to that next import to fail, and say why."""
    import importlib
    import threading

    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(module)

    threading.Thread(target=load, name=f"memcomp-import-{module}", daemon=True).start()


def _cmd_reproduce(args, out: TextIO) -> int:
    from .papers import reproduce

    for path in args.dumps:
        if not os.path.isfile(path):
            raise UsageError(f"{path}: not a file; reproduce takes dump files, one dataset each")
    if os.path.exists(args.output) and not os.path.isdir(args.output):
        raise UsageError(f"-o {args.output}: not a directory")
    try:
        table = reproduce(args.paper, args.dumps or None, args.output, quick=args.quick, threads=args.threads)
    except ImportError as e:
        raise UsageError(f"{e}: reproduce draws with matplotlib, pip install memcomp[plot]") from e
    drawn = len({f for f in table["figure"][table["memcomp_value"].notna()]})
    out.write(f"wrote {drawn} figures and {os.path.join(args.output, 'table.csv')} ({len(table)} rows)\n")
    return 0


def _keyword_value(text: str) -> Any:
    """A --set value: an int, a float, true/false, none, else the text itself."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    if re.fullmatch(r"[+-]?\d+", text.strip()):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def _cmd_plot(args, out: TextIO) -> int:
    import inspect

    from .plot import KINDS, WIDTHS, facet, paper_style

    ext = os.path.splitext(args.output)[1].lower()
    if ext not in (".pdf", ".png", ".svg"):
        raise UsageError(f"-o {args.output}: write a .pdf, .png or .svg figure")
    fn = KINDS[args.kind]
    accepted = [p for p in inspect.signature(fn).parameters if p not in ("df", "ax")]
    keywords = {}
    for item in args.keywords:
        key, sep, value = item.partition("=")
        if not sep or key not in accepted:
            raise UsageError(f"--set {item}: {args.kind} takes KEY=VALUE with KEY one of {', '.join(accepted)}")
        keywords[key] = _keyword_value(value)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import pandas as pd
    except ImportError as e:
        raise UsageError(f"{e}: memcomp plot draws with matplotlib, pip install memcomp[plot]") from e
    table_ext = os.path.splitext(args.table)[1].lower()
    if table_ext not in (".csv", ".parquet"):
        raise UsageError(f"{args.table}: give a .csv or .parquet table (memcomp COMMAND --csv -o table.csv)")
    try:
        df = pd.read_csv(args.table) if table_ext == ".csv" else pd.read_parquet(args.table)
    except ImportError as e:
        raise UsageError(f"{args.table}: reading Parquet needs pyarrow, pip install memcomp[parquet]") from e
    if args.col is not None and args.col not in df.columns:
        raise UsageError(f"--col {args.col}: not a column of {args.table} ({', '.join(map(str, df.columns))})")
    with paper_style(args.width):
        try:
            if args.col is None:
                fig = plt.figure(figsize=(WIDTHS[args.width], WIDTHS[args.width] * 0.6), constrained_layout=True)
                fn(df, ax=fig.gca(), **keywords)
            else:
                fig = facet(df, fn, args.col, panel_width=WIDTHS["single"], **keywords)
            with _writing(args.output):
                fig.savefig(args.output)
        finally:
            plt.close("all")
    out.write(f"wrote {args.output}\n")
    return 0


_COMMANDS = {
    "plot": _cmd_plot,
    "reproduce": _cmd_reproduce,
    "report": _cmd_report,
    "info": _cmd_info,
    "codecs": _cmd_codecs,
}


def main(argv: Optional[List[str]] = None, out: Optional[TextIO] = None) -> int:
    """Runs the command line ``argv`` (default: the process's arguments), writing tables to ``out``
    (default: standard output); returns the exit code."""
    with _one_line_warnings():
        return _main(argv, out)


@contextlib.contextmanager
def _one_line_warnings() -> Iterator[None]:
    """Warnings on stderr in one line, ``memcomp: warning: ...``, without Python's source line.
    memcomp's own (a skipped preset, a misleading metric) are always shown, once per place, even
    under ``-W error``: they qualify a result, they do not stop it. The warning filters (-W,
    PYTHONWARNINGS) decide about the others."""
    from ._common import MemcompWarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"memcomp: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():  # restores the filters and showwarning after the run
        warnings.filterwarnings("default", category=MemcompWarning)
        warnings.showwarning = show
        yield


def _main(argv: Optional[List[str]], out: Optional[TextIO]) -> int:
    to_stdout = out is None or out is sys.stdout
    try:
        args = _parser().parse_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)  # as given, for a report's provenance
        try:
            if to_stdout:
                out = _stdout_writer(args)
            assert out is not None
            _check_output(args)
            code = _COMMANDS.get(args.command, _cmd_analysis)(args, out)
            with _writing(None):
                out.flush()
            return code
        except UsageError as e:
            print(f"memcomp: error: {e}", file=sys.stderr)
            if "standard output" in str(e) and to_stdout:
                _detach_stdout()
            return 2
        except (ValueError, TypeError, OSError) as e:
            if isinstance(e, BrokenPipeError):
                raise
            print(f"memcomp: error: {flag_message(str(e))}", file=sys.stderr)
            return 2
    except KeyboardInterrupt:
        print("memcomp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of the output went away (memcomp ... | head -1)
        if to_stdout:
            _detach_stdout()
        return 141


def _stdout_writer(args) -> TextIO:
    """Standard output as a buffered writer on its file descriptor, which writes a table whole or
    raises (BrokenPipeError once the reader has gone: exit 141). With PYTHONUNBUFFERED=1,
    sys.stdout writes straight to the descriptor and drops the rest of a short write to a pipe
    whose reader left, so a truncated table exited 0. Other streams (a notebook's) are kept.
    A closed standard output (``memcomp ... >&-``) refuses a command whose table would go there
    (UsageError naming -o) and swallows the one-line status of one that writes a file."""
    if sys.stdout is None:
        if hasattr(args, "format") and not args.output:
            raise UsageError("cannot write the standard output: it is closed; give -o FILE")
        return open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (lives as long as the process)
    try:
        sys.stdout.flush()
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return sys.stdout
    raw = io.FileIO(fd, "w", closefd=False)
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=sys.stdout.encoding, errors=sys.stdout.errors)


def _detach_stdout() -> None:
    """Points standard output at /dev/null, so the interpreter's last flush has nowhere to fail."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
