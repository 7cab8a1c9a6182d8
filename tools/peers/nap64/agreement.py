"""Agreement of memcomp presets with NAP64's per-line sizes (see README.md).

    python agreement.py NAP64_LINES FILE [FILE ...]

NAP64_LINES is the program build.sh makes. For each file and each NAP64 plugin it runs the
plugin on every line and counts the lines where a memcomp preset, charged under a policy,
reports the same size in bits: the nap64 presets under their default policy (NAP64's default,
capped) and under "none" (NAP64 with -p, uncapped), and the closest older presets."""

import subprocess
import sys

import numpy as np

import memcomp

# plugin -> line bytes, [(label, preset, options)]
PEERS = {
    "bdi": (64, [("bdi.paper", "bdi.paper", {}), ("bdi.nap64", "bdi.nap64", {})]),
    "cpack": (64, [("cpack.schreiber", "cpack.schreiber", {}), ("cpack.nap64", "cpack.nap64", {})]),
    "bpc": (
        128,
        [
            ("bpc.isca16", "bpc.isca16", {}),
            ("bpc.isca16 words=unsigned precedence=liu", "bpc.isca16", {"words": "unsigned", "precedence": "liu"}),
            ("bpc.nap64", "bpc.nap64", {}),
        ],
    ),
}


def nap64_sizes(prog, plugin, path):
    """(capped, uncapped) per-line sizes in bits, as NAP64's plugin reports them."""
    out = subprocess.run([prog, plugin, path], check=True, capture_output=True).stdout
    return np.array(out.split(), dtype=np.int64).reshape(-1, 2).T


def main(argv):
    prog, files = argv[1], argv[2:]
    print("file,plugin,lines,preset,policy,identical_capped,identical_uncapped")
    for path in files:
        data = np.fromfile(path, dtype=np.uint8)
        for plugin, (b, presets) in PEERS.items():
            capped, uncapped = nap64_sizes(prog, plugin, path)
            blocks = memcomp.as_blocks(data[: data.size // b * b], b)
            for label, name, opts in presets:
                try:
                    codec = memcomp.get_codec(name, **opts)
                except ValueError:  # a preset this memcomp does not have yet
                    continue
                bits = codec.measure(blocks).size_bits
                ours_capped = memcomp.charge(bits, b, codec.policy)
                ours_none = memcomp.charge(bits, b, "none")
                print(
                    f"{path},{plugin},{len(blocks)},{label},{codec.policy},"
                    f"{int((ours_capped == capped).sum())},{int((ours_none == uncapped).sum())}",
                    flush=True,
                )


if __name__ == "__main__":
    main(sys.argv)
