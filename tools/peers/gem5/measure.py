"""Line-by-line agreement of memcomp's *.gem5 presets with gem5's own compressors.

    python measure.py GEM5_LINES DATA [DATA...] [--lines 64,32] [--presets ...] [--out DIR]

GEM5_LINES is the binary build.sh made. For each file and line size, each preset is used as
shipped (get_codec(name), its default policy; fvc.gem5 fitted on the lines in file order) and
compared with gem5's per-line size in bits (fvc: no Huffman, num_samples=100000; the sampled
lines are compressed with the finished table like every other line).
"""

import argparse
import os
import subprocess
import sys

import numpy as np

import memcomp
from memcomp.metrics import charge

TOOL = {
    "bdi.gem5": ("bdi", []),
    "cpack.gem5": ("cpack", []),
    "fpc.gem5": ("fpc", []),
    "fvc.gem5": ("fvc", ["--code-length", "0"]),
}


def gem5_sizes(exe, which, b, path, extra, out):
    dst = os.path.join(out, f"{os.path.basename(path)}.{which}.{b}.u32")
    if not os.path.exists(dst):
        subprocess.run([exe, which, str(b), path, dst, *extra], check=True)
    return np.fromfile(dst, dtype=np.uint32)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("data", nargs="+")
    ap.add_argument("--lines", default="64,32")
    ap.add_argument("--presets", default=",".join(TOOL))
    ap.add_argument("--out", default="out")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for path in a.data:
        raw = np.fromfile(path, dtype=np.uint8)
        for b in map(int, a.lines.split(",")):
            blocks = raw[: raw.size // b * b].reshape(-1, b)
            for name in a.presets.split(","):
                which, extra = TOOL[name]
                want = gem5_sizes(a.exe, which, b, path, extra, a.out)
                codec = memcomp.get_codec(name)
                if codec.requires_fit:
                    codec = codec.fit(blocks)
                got = charge(codec.measure(blocks).size_bits, b, codec.policy).astype(np.int64)
                same = int((got == want).sum())
                print(
                    f"{os.path.basename(path)}\t{b}\t{name}\t{codec.policy}\t{same}/{len(want)}\t"
                    f"{100 * same / len(want):.3f}%",
                    flush=True,
                )


if __name__ == "__main__":
    sys.exit(main())
