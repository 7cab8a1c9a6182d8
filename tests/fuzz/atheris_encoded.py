"""Coverage-guided fuzzing of Encoded containers from Python (atheris, libFuzzer for Python).

Each input either is a container itself (``Encoded.from_bytes`` on raw bytes) or, read through a
FuzzedDataProvider, picks an exact codec, blocks to encode and mutations of the container
``to_bytes`` writes (bit flips, truncation, extension, header fields overwritten). The invariant:
``from_bytes`` and ``decode`` return (blocks of the shape the container describes) or raise
TypeError / ValueError (``CorruptStreamError`` is one) with a message that is not empty and not
pybind11's signature dump; an unmutated container decodes back to its blocks (lossless codecs).
Anything else (another exception, a crash, a leak past libFuzzer's limits) is a finding.

    pip install atheris
    python tests/fuzz/atheris_encoded.py -atheris_runs=100000            # or a time limit:
    python tests/fuzz/atheris_encoded.py -max_total_time=300 corpus_dir/
"""

import struct
import sys

import atheris
import numpy as np

import memcomp
from memcomp import workloads

# An editable install imports memcomp through its own finder, which atheris' import hook does not
# see: instrument the loaded memcomp modules' code directly.
for _name, _mod in list(sys.modules.items()):
    if _name == "memcomp" or _name.startswith("memcomp."):
        for _obj in list(vars(_mod).values()):
            if callable(_obj) and getattr(_obj, "__module__", None) == _name:
                try:
                    if isinstance(_obj, type):
                        for _k, _v in list(vars(_obj).items()):
                            _f = getattr(_v, "__func__", _v)
                            if hasattr(_f, "__code__"):
                                atheris.instrument_func(_f)
                    elif hasattr(_obj, "__code__"):
                        atheris.instrument_func(_obj)
                except Exception:  # builtins and C functions carry no bytecode to instrument
                    pass

HEADER = struct.Struct("<4sBBBBIQQII")
DECODE_LIMIT = 64 << 20  # a container may describe many 0-bit blocks; decoding allocates n * B bytes
SIZES = (16, 32, 128)


def _codecs():
    """Every exact preset at every block size it supports, data-driven ones fitted once."""
    out = []
    for name in memcomp.codec_names():
        base = memcomp.get_codec(name)
        if not base.exact:
            continue
        for B in SIZES:
            if not base.supports(B):
                continue
            c = base.fit(memcomp.as_blocks(workloads.sample_dump(1 << 14, seed=1), B)) if base.requires_fit else base
            out.append((c, B))
    return out


CODECS = _codecs()


def check_error(e):
    msg = str(e)
    if not msg.strip() or "incompatible function arguments" in msg:
        raise AssertionError(f"unhelpful {type(e).__name__}: {msg!r}") from e


def decode(codec, enc):
    if enc.n_blocks * max(int(enc.block_bytes), 1) > DECODE_LIMIT:
        return None
    try:
        out = codec.decode(enc)
    except (TypeError, ValueError) as e:
        check_error(e)
        return None
    if not (isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.shape == (enc.n_blocks, enc.block_bytes)):
        raise AssertionError(
            f"decode returned {type(out).__name__} {getattr(out, 'shape', '')} for "
            f"{enc.n_blocks} blocks of {enc.block_bytes} B"
        )
    return out


def from_bytes(raw, codec):
    try:
        enc = memcomp.Encoded.from_bytes(raw, codec=codec)
    except (TypeError, ValueError) as e:
        check_error(e)
        return
    try:
        dec = memcomp.Codec.from_config(enc.config)
    except (TypeError, ValueError) as e:
        check_error(e)
        return
    decode(dec, enc)


def mutate(fdp, buf):
    for _ in range(fdp.ConsumeIntInRange(0, 4)):
        op = fdp.ConsumeIntInRange(0, 4)
        if op == 0 and buf:
            i = fdp.ConsumeIntInRange(0, len(buf) - 1)
            buf[i] ^= 1 << fdp.ConsumeIntInRange(0, 7)
        elif op == 1:
            del buf[fdp.ConsumeIntInRange(0, len(buf)) :]
        elif op == 2:
            buf += fdp.ConsumeBytes(fdp.ConsumeIntInRange(1, 64))
        elif op == 3 and len(buf) >= HEADER.size:
            fields = list(HEADER.unpack_from(buf))
            i = fdp.ConsumeIntInRange(1, len(fields) - 1)
            bits = 8 if i <= 4 else 64 if i in (6, 7) else 32
            fields[i] = fdp.ConsumeIntInRange(0, (1 << bits) - 1)
            HEADER.pack_into(buf, 0, *fields)
        elif op == 4 and buf:
            i = fdp.ConsumeIntInRange(0, len(buf) - 1)
            buf[i] = fdp.ConsumeIntInRange(0, 255)
    return buf


def TestOneInput(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    if fdp.ConsumeIntInRange(0, 3) == 0:  # the input is a container
        codec, _ = CODECS[fdp.ConsumeIntInRange(0, len(CODECS) - 1)]
        from_bytes(fdp.ConsumeBytes(fdp.remaining_bytes()), codec if fdp.ConsumeBool() else None)
        return
    codec, B = CODECS[fdp.ConsumeIntInRange(0, len(CODECS) - 1)]
    n = fdp.ConsumeIntInRange(0, 12)
    raw = fdp.ConsumeBytes(n * B)
    blocks = np.frombuffer(raw.ljust(n * B, b"\0"), np.uint8).reshape(n, B)
    with_config = fdp.ConsumeBool()
    enc = codec.encode(blocks)
    container = enc.to_bytes(config=with_config)
    back = decode(codec, memcomp.Encoded.from_bytes(container, codec=None if with_config else codec))
    if back is None or (not codec.lossy and not np.array_equal(back, blocks)):
        raise AssertionError(f"{codec.name}: an unmutated container did not decode back to its blocks")
    bad = bytes(mutate(fdp, bytearray(container)))
    from_bytes(bad, None if with_config and fdp.ConsumeBool() else codec)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
