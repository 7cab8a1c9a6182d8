"""Writes tests/golden/gem5_lines.json: a few hundred real lines and the size in bits that gem5's
own compressors (gem5_lines, see README.md) report for each, at 64 B and 32 B lines.

    python make_golden.py GEM5_LINES GEM5_COMMIT MINILM HOPPER HEAP [OUT]

The lines: 80 from the MiniLM weights, 40 from the RGBA float photo and 120 from the CPython heap
at seeded random offsets, plus 80 heap lines whose fpc.paper and fpc.gem5 sizes differ (gem5's
halfword rule), in that order; at 32 B the same bytes are read as twice as many lines. FrequentValues
(no Huffman) samples every line in order, then compresses each: fvc.gem5 as shipped fitted on
the lines (fewer than num_samples = 100000 words, so all are sampled).
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import memcomp

WHICH = {"bdi.gem5": "bdi", "cpack.gem5": "cpack", "fpc.gem5": "fpc", "fvc.gem5": "fvc"}


def pick(path, n, rng, b=64):
    blocks = np.fromfile(path, dtype=np.uint8)
    blocks = blocks[: blocks.size // b * b].reshape(-1, b)
    return blocks[np.sort(rng.choice(len(blocks), n, replace=False))]


def main(exe, commit, minilm, hopper, heap, out="tests/golden/gem5_lines.json"):
    rng = np.random.default_rng(35)
    heap_all = np.fromfile(heap, dtype=np.uint8)
    heap_all = heap_all[: heap_all.size // 64 * 64].reshape(-1, 64)
    paper = memcomp.get_codec("fpc.paper").measure(heap_all).size_bits
    differ = np.nonzero(paper != memcomp.get_codec("fpc", halfwords="gem5").measure(heap_all).size_bits)[0]
    lines = np.concatenate(
        [
            pick(minilm, 80, rng),
            pick(hopper, 40, rng),
            pick(heap, 120, rng),
            heap_all[np.sort(rng.choice(differ, 80, replace=False))],
        ]
    )
    data = np.ascontiguousarray(lines).reshape(-1)
    sizes = {}
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "lines.bin")
        data.tofile(src)
        for b in (64, 32):
            sizes[str(b)] = {}
            for name, which in WHICH.items():
                dst = os.path.join(tmp, f"{which}.{b}")
                extra = ["--code-length", "0", "--samples", str(data.size // 4)] if which == "fvc" else []
                subprocess.run([exe, which, str(b), src, dst, *extra], check=True)
                sizes[str(b)][name] = np.fromfile(dst, dtype=np.uint32).tolist()
    doc = {
        "what": "per-line sizes in bits reported by gem5's Base::compress (gem5 src/mem/cache/compressors, "
        "Compressors.py defaults; FrequentValuesCompressor with max_code_length=0 sampling every line first)",
        "gem5": f"v24.0.0.1 {commit}",
        "made_by": "tools/peers/gem5/make_golden.py",
        "lines_hex": data.tobytes().hex(),
        "sizes": sizes,
    }
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
