"""Throughput of MemcompCodec (memcomp.numcodecs) encode and decode in GB/s of input, with the
compression ratio, next to numcodecs' own Blosc(lz4), Blosc(zstd) and Zstd(level=1) and memcpy on
the same chunks of realistic data (memcomp.workloads). Reported, never asserted:

    python tests/benchmarks/bench_numcodecs.py [--mib 64] [--chunk-kib 1024] [--block-bytes 128]
        [--presets bdi,fpc,cpack,bpc,e2mc,zca,lzss.block] [--workloads fp32_weights,...,mixed]

Chunks are typed views (float32 for the fp32 workloads, int32 for the int ones, uint32 for the
mixed dump) so Blosc's shuffle sees the element size. Data-driven presets are fitted on the first
1/16 of each workload (not timed). CR is input bytes / encoded bytes, headers included.
"""

from __future__ import annotations

import argparse
import os
import sys

import numcodecs
import numpy as np

import memcomp
from memcomp.numcodecs import MemcompCodec

sys.path.insert(0, os.path.dirname(__file__))
from timing import best_of  # noqa: E402

DTYPES = {
    "fp32_weights": np.float32,
    "fp32_activations": np.float32,
    "int32_csr": np.int32,
    "int32_indices": np.int32,
    "fp16_tensor": np.float16,
    "records": np.uint32,
    "image_rgba": np.uint8,
    "zero_pages": np.uint32,
    "mixed": np.uint32,
}


def workload(name: str, n_bytes: int) -> np.ndarray:
    """``n_bytes`` of a workload (``mixed``: the interleaved sample dump of them all)."""
    if name == "mixed":
        return memcomp.workloads.sample_dump(n_bytes, seed=0)
    return memcomp.workloads.generate(name, n_bytes, seed=0)


def references() -> list:
    return [
        ("blosc:lz4", numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)),
        ("blosc:zstd", numcodecs.Blosc(cname="zstd", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)),
        ("zstd:1", numcodecs.Zstd(level=1)),
    ]


def run(label: str, codec, chunks: list, repeat: int) -> str:
    """One table row: encode and decode GB/s over all chunks, and the compression ratio."""
    gb = sum(c.nbytes for c in chunks) / 1e9
    encoded = [codec.encode(c) for c in chunks]
    for c, e in zip(chunks, encoded):  # a benchmark of a wrong answer is no benchmark
        if np.asarray(codec.decode(e)).tobytes() != c.tobytes():
            raise AssertionError(f"{label}: round trip differs")
    enc = gb / best_of(lambda: [codec.encode(c) for c in chunks], repeat)
    dec = gb / best_of(lambda: [codec.decode(e) for e in encoded], repeat)
    cr = gb * 1e9 / sum(len(e) for e in encoded)
    return f"{label:<26}{enc:>10.2f}{dec:>10.2f}{cr:>9.3f}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64, help="MiB of data in all, split between the workloads")
    ap.add_argument("--chunk-kib", type=int, default=1024, help="chunk size in KiB (one encode call each)")
    ap.add_argument("--block-bytes", type=int, default=128)
    ap.add_argument(
        "--presets", default="bdi,fpc,cpack,bpc,e2mc,zca,lzss.block", help="comma-separated memcomp presets or families"
    )
    ap.add_argument("--workloads", default="fp32_weights,fp32_activations,int32_indices,mixed")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    names = args.workloads.split(",")
    chunk = args.chunk_kib << 10
    per = max(chunk, (args.mib << 20) // len(names) // chunk * chunk)  # whole chunks per workload
    threads = os.cpu_count() or 1
    print(
        f"{args.mib} MiB in {len(names)} workloads of {per >> 20 or per / (1 << 20):g} MiB, chunks of "
        f"{args.chunk_kib} KiB, {args.block_bytes} B blocks; {threads} hardware threads "
        f"(memcomp and Blosc use them all)"
    )
    for name in names:
        data = workload(name, per)
        dtype = DTYPES.get(name, np.uint8)
        chunks = [data[i : i + chunk].view(dtype) for i in range(0, data.nbytes, chunk)]
        dst = np.empty_like(data)
        memcpy = data.nbytes / 1e9 / best_of(lambda: np.copyto(dst, data), args.repeat)
        print(f"\nworkload {name}: {len(chunks)} chunks ({np.dtype(dtype).name}); memcpy {memcpy:.2f} GB/s")
        print(f"{'codec':<26}{'encode':>10}{'decode':>10}{'CR':>9}")
        for preset in args.presets.split(","):
            codec = memcomp.get_codec(preset)
            if not codec.supports(args.block_bytes):
                print(f"memcomp:{codec.preset:<18}  skipped: not defined for {args.block_bytes} B blocks")
                continue
            if codec.requires_fit:  # fitted on the first 1/16 of the workload, not timed
                sample = data[: max(args.block_bytes, data.nbytes // 16 // args.block_bytes * args.block_bytes)]
                codec = codec.fit(memcomp.as_blocks(sample, args.block_bytes))
            print(
                run(f"memcomp:{codec.preset}", MemcompCodec(codec, block_bytes=args.block_bytes), chunks, args.repeat)
            )
        for label, ref in references():
            print(run(label, ref, chunks, args.repeat))


if __name__ == "__main__":
    main()
