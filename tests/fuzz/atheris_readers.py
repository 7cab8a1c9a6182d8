"""Coverage-guided fuzzing of the dump readers from Python (atheris, libFuzzer for Python).

Each input picks a kind of file -- a ``.gz``, ``.bz2``, ``.xz`` or ``.zst`` compressed dump, an
``.npy`` trace or an ``.npz`` of arrays, an ONNX model with its initializers inside or in an
external data file beside it -- a valid file of that kind (:func:`seed`) and mutations of its bytes
(bit flips, bytes set, truncation, extension; for a model with external data, of the model or of
its data file). ``open_dumps`` opens it and every dataset is read to its end, chunk by chunk. The
invariant (:func:`read`): the datasets read, each chunk ``(m, B)`` uint8, or TypeError /
ValueError (``CorruptStreamError`` is one) / OSError with a message that names the file. Anything
else (another exception, a warning, a crash, a leak or hang past libFuzzer's limits) is a
finding. ``tests/python/test_io.py`` checks the same invariant with hypothesis, without atheris.

    pip install atheris
    python tests/fuzz/atheris_readers.py -atheris_runs=100000            # or a time limit:
    python tests/fuzz/atheris_readers.py -max_total_time=300 corpus_dir/
"""

import contextlib
import io
import pathlib
import shutil
import sys
import tempfile
import warnings

import numpy as np

import memcomp

#: The readers fuzzed, as the kinds of file they read.
KINDS = ("gz", "bz2", "xz", "zst", "npy", "npz", "onnx", "onnx-external")
PAYLOAD = memcomp.workloads.sample_dump(4096, seed=5)
#: Mutations: a bit flipped, a byte set, the bytes from a position on cut, bytes appended.
OPS = ("flip", "set", "cut", "append")


def _onnx_model(external: bool) -> dict:
    import onnx
    from onnx import helper, numpy_helper

    if external:  # ONNX external data: the model names a file beside it, with offset and length
        w = onnx.TensorProto(name="w", data_type=onnx.TensorProto.FLOAT, dims=[PAYLOAD.size // 4])
        w.data_location = onnx.TensorProto.EXTERNAL
        for key, value in (("location", "w.bin"), ("offset", "0"), ("length", str(PAYLOAD.size))):
            w.external_data.add(key=key, value=value)
    else:
        w = numpy_helper.from_array(PAYLOAD.view(np.float32), "w")
    b = numpy_helper.from_array(PAYLOAD[:200].view(np.int16), "b")  # 200 B: 6 whole 32 B blocks
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])],
        initializer=[w, b],
    )
    files = {"m.onnx": helper.make_model(graph).SerializeToString()}
    if external:
        files["w.bin"] = PAYLOAD.tobytes()
    return files


def seed(kind: str) -> dict:
    """{file name: bytes} of a valid file of ``kind`` holding :data:`PAYLOAD`; the first file is
    the one opened. ImportError when the package the kind needs is missing (zstandard, onnx)."""
    raw = PAYLOAD.tobytes()
    if kind == "gz":
        import gzip

        return {"d.bin.gz": gzip.compress(raw)}
    if kind == "bz2":
        import bz2

        return {"d.bin.bz2": bz2.compress(raw)}
    if kind == "xz":
        import lzma

        return {"d.bin.xz": lzma.compress(raw)}
    if kind == "zst":
        import zstandard

        return {"d.bin.zst": zstandard.ZstdCompressor(write_checksum=True).compress(raw)}
    if kind == "npy":  # an (N, L) uint8 trace: read without block_bytes too
        f = io.BytesIO()
        np.save(f, PAYLOAD.reshape(-1, 32))
        return {"t.npy": f.getvalue()}
    if kind == "npz":
        f = io.BytesIO()
        np.savez_compressed(f, a=PAYLOAD[:2048], b=PAYLOAD[2048:].view(np.float32))
        return {"a.npz": f.getvalue()}
    if kind in ("onnx", "onnx-external"):
        return _onnx_model(kind == "onnx-external")
    raise ValueError(f"unknown kind {kind!r}")


def seeds() -> dict:
    """{kind: seed} of every kind whose package is installed."""
    out = {}
    for kind in KINDS:
        with contextlib.suppress(ImportError):  # zstandard or onnx missing: that reader is not installed either
            out[kind] = seed(kind)
    return out


def mutate(buf: bytearray, ops) -> bytearray:
    """``buf`` after each ``(op, position, value)`` of ``ops`` (positions wrap around)."""
    for op, pos, value in ops:
        if op == "flip" and buf:
            buf[pos % len(buf)] ^= 1 << (value % 8)
        elif op == "set" and buf:
            buf[pos % len(buf)] = value % 256
        elif op == "cut":
            del buf[pos % (len(buf) + 1) :]
        elif op == "append":
            buf += bytes([value % 256]) * (1 + pos % 64)
    return buf


def read(directory: pathlib.Path, files: dict, block_bytes, allow_partial: bool):
    """Writes ``files`` into the empty ``directory`` and reads the first with open_dumps to the
    end of every dataset: the bytes of each dataset, or None after an error that names the file. Raises
    AssertionError for anything else (a chunk that is not (m, B) uint8, an error that does not
    name the file); other exceptions and warnings propagate (they are findings)."""
    for name, data in files.items():
        (directory / name).write_bytes(data)
    path = directory / next(iter(files))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning is a finding: one line or a result, nothing else
        try:
            out = []
            for d in memcomp.open_dumps(path, block_bytes=block_bytes, allow_partial=allow_partial):
                parts, B = [], d.block_bytes
                for chunk in d.chunks(16):
                    if not (chunk.dtype == np.uint8 and chunk.ndim == 2 and chunk.shape[1] == B):
                        raise AssertionError(f"{path.name}: a chunk of {chunk.dtype} {chunk.shape}, not (m, {B}) uint8")
                    parts.append(chunk.tobytes())
                out.append(b"".join(parts))
        except (TypeError, ValueError, OSError) as e:
            if path.name not in str(e):
                raise AssertionError(f"{type(e).__name__} does not name {path.name}: {e}") from e
            return None
    return out


# -------------------------------------------------------------------------------------- atheris
_SEEDS: dict = {}
_DIR = pathlib.Path(tempfile.mkdtemp(prefix="memcomp-readers-"))


def TestOneInput(data: bytes) -> None:
    import atheris

    fdp = atheris.FuzzedDataProvider(data)
    kind = list(_SEEDS)[fdp.ConsumeIntInRange(0, len(_SEEDS) - 1)]
    files = dict(_SEEDS[kind])
    target = list(files)[fdp.ConsumeIntInRange(0, len(files) - 1)]
    ops = [
        (OPS[fdp.ConsumeIntInRange(0, len(OPS) - 1)], fdp.ConsumeIntInRange(0, 1 << 16), fdp.ConsumeIntInRange(0, 255))
        for _ in range(fdp.ConsumeIntInRange(0, 6))
    ]
    block_bytes = None if kind == "npy" and fdp.ConsumeBool() else 32
    allow_partial = fdp.ConsumeBool()
    files[target] = bytes(mutate(bytearray(files[target]), ops))
    shutil.rmtree(_DIR, ignore_errors=True)
    _DIR.mkdir()
    read(_DIR, files, block_bytes, allow_partial)


def main():
    import atheris

    # An editable install imports memcomp through its own finder, which atheris' import hook does
    # not see: instrument the reading code directly.
    from memcomp import _common
    from memcomp import io as mio

    for mod in (mio, _common):
        for obj in list(vars(mod).values()):
            for f in [obj, *vars(obj).values()] if isinstance(obj, type) else [obj]:
                f = getattr(f, "__func__", f)
                if getattr(f, "__module__", None) == mod.__name__ and hasattr(f, "__code__"):
                    atheris.instrument_func(f)
    _SEEDS.update(seeds())
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
