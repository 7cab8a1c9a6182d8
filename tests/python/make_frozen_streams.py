"""Regenerate the frozen stream formats: tests/golden/streams.json and tests/golden/encoded/<version>/.

Run it ONLY for a deliberate format change (and say so in the commit); the tests never run it:

    python tests/python/make_frozen_streams.py            # both
    python tests/python/make_frozen_streams.py streams    # streams.json only
    python tests/python/make_frozen_streams.py encoded    # this release's Encoded fixtures only

streams.json freezes every preset x block size (32, 64, 128, 256 B where the preset supports it)
x seeded workload: the input bytes (base64, so the C++ suite encodes the very same blocks), the
fitted model of a data-driven preset (fitted on the entry's own blocks; kept, so a change of the
fitting alone does not read as a format change), and per entry digests of the encoded streams,
the bit lengths and the tags (accounting-only presets: the measured bit lengths).
tests/python/test_frozen_streams.py and tests/cpp/test_golden.cpp recompute every entry.

encoded/<version>/ keeps Encoded files (Encoded.save) and to_bytes() blobs written by this
release, one or more per codec family, with the blocks they hold: later releases must decode
them (test_frozen_streams.py). A new release adds its own directory and keeps the old ones.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import sys
from typing import Any, Dict, Optional

import numpy as np

import memcomp
from memcomp import workloads

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(os.path.dirname(HERE), "golden")
STREAMS = os.path.join(GOLDEN, "streams.json")
ENCODED = os.path.join(GOLDEN, "encoded")

#: The workloads every preset encodes: (name, seed); WORKLOAD_BYTES each (512 blocks of 32 B).
WORKLOADS = (("fp32_activations", 1), ("int32_indices", 2), ("records", 3))
WORKLOAD_BYTES = 16384
BLOCK_SIZES = (32, 64, 128, 256)
#: Hex digits of SHA-256 kept per digest (128 bits).
DIGEST_HEX = 32


def digest(data: Any) -> str:
    """The first DIGEST_HEX hex digits of the SHA-256 of ``data`` (bytes or a contiguous array)."""
    return hashlib.sha256(np.ascontiguousarray(data).data if isinstance(data, np.ndarray) else data).hexdigest()[
        :DIGEST_HEX
    ]


def model_option(codec: memcomp.Codec) -> Optional[Dict[str, str]]:
    """The option that carries a fitted codec's model as the core reads it: ``{"option": "model",
    "text": JSON}``, or ``"members"`` (with their models) for a best-of codec; None without one."""
    cfg = codec.get_config()
    if codec.codec_id == "bestof":
        if cfg["members"] == memcomp.get_codec(codec.preset).get_config()["members"]:
            return None
        return {"option": "members", "text": json.dumps(cfg["members"], separators=(",", ":"), sort_keys=True)}
    if codec.model is None or memcomp.get_codec(codec.preset).model == codec.model:
        return None  # no model, or the preset's own (mpc.cal22_rtl)
    return {"option": "model", "text": codec.model.to_json()}


def build(preset: str, option: Optional[Dict[str, str]]) -> memcomp.Codec:
    """The preset with the model a golden entry stores."""
    return memcomp.get_codec(preset, **({option["option"]: option["text"]} if option else {}))


def record(codec: memcomp.Codec, blocks: np.ndarray) -> Dict[str, Any]:
    """What streams.json freezes of ``codec`` on ``blocks``: the block count and total bits, the
    digests of the bit lengths (uint32 LE), and for a decodable preset of the stream bytes (the
    blocks' streams back to back, each padded to a whole byte: Codec.encode's ``data``), of the
    tags (uint32 LE), of a stateful codec's entry state, and of a lossy codec's decoded blocks
    (AssertionError if a lossless codec's do not decode to the blocks)."""
    sizes = codec.measure(blocks, threads=1)
    out: Dict[str, Any] = {
        "n_blocks": int(blocks.shape[0]),
        "total_bits": sizes.total_bits,
        "bits": digest(sizes.size_bits.astype("<u4")),
    }
    if not codec.exact:
        return out
    enc = codec.encode(blocks, threads=1)
    if not np.array_equal(enc.bit_lengths, sizes.size_bits):
        raise AssertionError(f"{codec.name}: encode's bit lengths differ from measure's")
    stream_bytes = (enc.bit_lengths.astype(np.uint64) + 7) // 8
    if int(stream_bytes.sum()) != enc.data.nbytes:
        raise AssertionError(f"{codec.name}: the encoded data are not the block streams back to back")
    out["stream"] = digest(enc.data)
    out["tags"] = digest(enc.tags.astype("<u4"))
    if enc.entry_state is not None:
        out["entry_state"] = digest(enc.entry_state)
    decoded = codec.decode(enc, threads=1)
    if codec.lossy:
        out["decoded"] = digest(decoded)
    elif not np.array_equal(decoded, blocks):
        raise AssertionError(f"{codec.name}: decode does not give the blocks back")
    return out


def workload_bytes(name: str, seed: int) -> np.ndarray:
    return workloads.generate(name, WORKLOAD_BYTES, seed=seed)


def make_streams() -> Dict[str, Any]:
    inputs, models, entries = [], {}, []
    for name, seed in WORKLOADS:
        raw = workload_bytes(name, seed)
        inputs.append(
            {
                "name": name,
                "seed": seed,
                "n_bytes": int(raw.nbytes),
                "sha256": hashlib.sha256(raw.data).hexdigest(),
                "base64": base64.b64encode(raw.data).decode("ascii"),
            }
        )
        for preset in memcomp.codec_names():
            for B in BLOCK_SIZES:
                codec = memcomp.get_codec(preset)
                if not codec.supports(B):
                    continue
                blocks = memcomp.as_blocks(raw, B)
                if codec.requires_fit:
                    codec = codec.fit(blocks, threads=1)
                option = model_option(codec)
                entry: Dict[str, Any] = {"preset": preset, "block_bytes": B, "workload": name, "model": None}
                if option is not None:
                    key = digest(option["text"].encode())[:12]  # presets that fit alike share it
                    models.setdefault(key, option)
                    entry["model"] = key
                    assert build(preset, option) == codec, preset  # the stored text is the fitted model
                entries.append({**entry, **record(codec, blocks)})
    return {
        "description": (
            "Frozen stream formats: for every preset x block size x workload, digests of what "
            "Codec.encode writes (accounting-only presets: what Codec.measure counts). A digest is "
            f"the first {DIGEST_HEX} hex digits of the SHA-256 of: 'bits' the bit lengths as uint32 "
            "LE, 'stream' the encoded data (each block's stream padded to a whole byte, back to "
            "back), 'tags' the tags as uint32 LE, 'entry_state' a stateful codec's entry state, "
            "'decoded' a lossy codec's decoded blocks. Blocks are the workload's bytes cut into "
            "block_bytes blocks; a data-driven preset uses models[model] (its 'option' set to "
            "'text'), fitted on those blocks. Regenerate only for a deliberate format change."
        ),
        "made_by": "tests/python/make_frozen_streams.py",
        "memcomp_version": memcomp.__version__,
        "digest_hex": DIGEST_HEX,
        "workloads": inputs,
        "models": models,
        "entries": entries,
    }


# ---- Encoded fixtures ---------------------------------------------------------------------

#: (file stem, preset, block bytes): every family at least once, a stateful codec, a lossy one,
#: data-driven ones with their fitted models, a best-of codec with fitted members.
FIXTURES = (
    ("zca.paper-64", "zca.paper", 64),
    ("zrep.ours-64", "zrep.ours", 64),
    ("bdi.paper-64", "bdi.paper", 64),
    ("bdi.nap64-128", "bdi.nap64", 128),
    ("fpc.paper-64", "fpc.paper", 64),
    ("cpack.paper-64", "cpack.paper", 64),
    ("cpack.skku-64", "cpack.skku", 64),
    ("bpc.isca16-128", "bpc.isca16", 128),
    ("lzss.block-64", "lzss.block", 64),
    ("fib.ours-64", "fib.ours", 64),
    ("fvc.paper-64", "fvc.paper", 64),
    ("e2mc.paper-64", "e2mc.paper", 64),
    ("sc2.paper-64", "sc2.paper", 64),
    ("slc.opt-128", "slc.opt", 128),  # 128 B: some of these blocks are approximated
    ("mpc.cal22_rtl-32", "mpc.cal22_rtl", 32),
    ("bestof.bdi_fpc-64", "bestof.bdi_fpc", 64),
    ("bestof.hycomp-64", "bestof.hycomp", 64),
)
#: Blocks per fixture file: FIXTURE_BLOCKS // len(WORKLOADS) from the start of each workload.
FIXTURE_BLOCKS = 12


def fixture_blocks(B: int) -> np.ndarray:
    per = FIXTURE_BLOCKS // len(WORKLOADS)
    return np.concatenate([memcomp.as_blocks(workload_bytes(n, s), B)[:per] for n, s in WORKLOADS])


def make_encoded(version: str) -> Dict[str, Any]:
    where = os.path.join(ENCODED, version)
    if os.path.isdir(where):
        shutil.rmtree(where)
    os.makedirs(where)
    cases = []

    def add(stem: str, enc: memcomp.Encoded, blocks: np.ndarray, decoded: np.ndarray, why: str) -> None:
        enc.save(os.path.join(where, stem + ".npz"))
        with open(os.path.join(where, stem + ".bin"), "wb") as f:
            f.write(enc.to_bytes())
        case = {"file": stem, "preset": enc.config["preset"], "block_bytes": enc.block_bytes, "why": why}
        case["blocks"] = [bytes(b).hex() for b in blocks]
        if not np.array_equal(decoded, blocks):
            case["decoded"] = [bytes(b).hex() for b in decoded]
        cases.append(case)

    for stem, preset, B in FIXTURES:
        codec = memcomp.get_codec(preset)
        blocks = fixture_blocks(B)
        fitted = codec.requires_fit
        if fitted:
            codec = codec.fit(blocks, threads=1)
        enc = codec.encode(blocks, threads=1)
        decoded = codec.decode(enc)
        why = "encoded by Codec.encode" + (", fitted on these blocks" if fitted else "")
        if codec.lossy:
            why += "; lossy: every block approximable, 'decoded' holds what decode returns"
        add(stem, enc, blocks, decoded, why)
        if codec.stateful:  # a resumed chunk: its entry state is what the first half left behind
            half = blocks.shape[0] // 2
            codec.encode(blocks[:half], threads=1)
            enc = codec.encode(blocks[half:], threads=1, resume=True)
            add(stem + "-resumed", enc, blocks[half:], codec.decode(enc), "the second half, encoded with resume=True")
    manifest = {
        "description": (
            "Encoded files written by memcomp "
            f"{version} (Encoded.save: <file>.npz; Encoded.to_bytes: <file>.bin) with the blocks they "
            "hold (hex, one string per block; 'decoded': what a lossy codec decodes). Every later "
            "release must load and decode them."
        ),
        "made_by": "tests/python/make_frozen_streams.py",
        "memcomp_version": version,
        "cases": cases,
    }
    with open(os.path.join(where, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return manifest


def dumps_by_line(obj: Dict[str, Any]) -> str:
    """JSON text of a golden object with each list item and each model on a line of its own
    (a changed entry shows as one changed line in a diff)."""
    parts = []
    for k, v in obj.items():
        if isinstance(v, list):
            inner = ",\n".join(json.dumps(x, separators=(",", ":")) for x in v)
            parts.append(f"{json.dumps(k)}: [\n{inner}\n]")
        elif isinstance(v, dict):
            inner = ",\n".join(f"{json.dumps(m)}: {json.dumps(x, separators=(',', ':'))}" for m, x in v.items())
            parts.append(f"{json.dumps(k)}: {{\n{inner}\n}}")
        else:
            parts.append(f"{json.dumps(k)}: {json.dumps(v)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main(argv: list) -> None:
    what = set(argv) or {"streams", "encoded"}
    if not what <= {"streams", "encoded"}:
        raise SystemExit("usage: make_frozen_streams.py [streams] [encoded]")
    if "streams" in what:
        with open(STREAMS, "w") as f:
            f.write(dumps_by_line(make_streams()))
        print("wrote", STREAMS, os.path.getsize(STREAMS), "bytes")
    if "encoded" in what:
        m = make_encoded(memcomp.__version__)
        print("wrote", len(m["cases"]), "fixtures to", os.path.join(ENCODED, memcomp.__version__))


if __name__ == "__main__":
    main(sys.argv[1:])
