"""Frozen formats: every preset's streams against tests/golden/streams.json, and the Encoded files
of earlier releases (tests/golden/encoded/<version>/) against this release's decoders.

A failure here means a stream format changed. If the change is deliberate, regenerate with
``python tests/python/make_frozen_streams.py streams`` and say so in the commit (and in the release
notes: files written before it no longer decode); the fixtures of a release are never regenerated.
The C++ suite checks the same table (tests/cpp/test_golden.cpp, FrozenStreams)."""

import base64
import functools
import glob
import hashlib
import json
import os

import numpy as np
import pytest

import memcomp
from make_frozen_streams import BLOCK_SIZES, ENCODED, STREAMS, build, record
from memcomp import Codec, Encoded

with open(STREAMS) as _f:
    TABLE = json.load(_f)
ENTRIES = TABLE["entries"]
META = ("preset", "block_bytes", "workload", "model")


@functools.lru_cache(maxsize=None)
def workload(name):
    """A workload's stored bytes (checked against their SHA-256)."""
    (w,) = [w for w in TABLE["workloads"] if w["name"] == name]
    raw = base64.b64decode(w["base64"])
    assert len(raw) == w["n_bytes"] and hashlib.sha256(raw).hexdigest() == w["sha256"], name
    return np.frombuffer(raw, np.uint8)


@functools.lru_cache(maxsize=None)
def codec(preset, model):
    return build(preset, TABLE["models"][model] if model else None)


def entry_id(e):
    return f"{e['preset']}-{e['block_bytes']}-{e['workload']}"


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry_id(e) for e in ENTRIES])
def test_stream_is_frozen(entry):
    c = codec(entry["preset"], entry["model"])
    blocks = memcomp.as_blocks(workload(entry["workload"]), entry["block_bytes"])
    want = {k: v for k, v in entry.items() if k not in META}
    assert record(c, blocks) == want


def test_the_table_holds_every_preset_block_size_and_workload():
    want = {
        (p, B, w["name"])
        for p in memcomp.codec_names()
        for B in BLOCK_SIZES
        if memcomp.get_codec(p).supports(B)
        for w in TABLE["workloads"]
    }
    got = [(e["preset"], e["block_bytes"], e["workload"]) for e in ENTRIES]
    assert len(got) == len(set(got))
    assert set(got) == want
    # 41 presets take all four sizes, mpc.cal22_rtl only 32 B: (41 * 4 + 1) * 3 workloads
    assert len(got) == 495


def test_entries_decode_and_the_digests_are_what_they_say():
    # One entry's digests from the bytes themselves, and its stream decoded back (hashlib, not record)
    (e,) = [e for e in ENTRIES if (e["preset"], e["block_bytes"], e["workload"]) == ("fpc.paper", 64, "records")]
    blocks = memcomp.as_blocks(workload("records"), 64)
    c = memcomp.get_codec("fpc.paper")
    enc = c.encode(blocks)
    assert hashlib.sha256(enc.data.tobytes()).hexdigest()[:32] == e["stream"]
    assert hashlib.sha256(enc.bit_lengths.astype("<u4").tobytes()).hexdigest()[:32] == e["bits"]
    assert int(enc.bit_lengths.sum()) == e["total_bits"] and e["n_blocks"] == 16384 // 64
    assert np.array_equal(c.decode(enc), blocks)


# ---- Encoded files of earlier releases ------------------------------------------------------------

MANIFESTS = sorted(glob.glob(os.path.join(ENCODED, "*", "manifest.json")))
FIXTURES = []
for _path in MANIFESTS:
    with open(_path) as _f:
        _m = json.load(_f)
    FIXTURES += [(os.path.dirname(_path), _m["memcomp_version"], case) for case in _m["cases"]]


def hex_blocks(rows):
    return np.array([np.frombuffer(bytes.fromhex(r), np.uint8) for r in rows])


@pytest.mark.parametrize("where,version,case", FIXTURES, ids=[f"{v}-{c['file']}" for _, v, c in FIXTURES])
def test_encoded_fixture_decodes(where, version, case, tmp_path):
    path = os.path.join(where, case["file"])
    enc = Encoded.load(path + ".npz")
    with open(path + ".bin", "rb") as f:
        blob = f.read()
    blocks = hex_blocks(case["blocks"])
    want = hex_blocks(case["decoded"]) if "decoded" in case else blocks
    c = Codec.from_config(enc.config)
    assert (c.preset, enc.block_bytes, enc.n_blocks) == (case["preset"], case["block_bytes"], len(blocks))
    assert np.array_equal(c.decode(enc), want)
    assert np.array_equal(c.decode(Encoded.from_bytes(blob)), want)
    # the file and the blob hold the same encoded blocks, and a save/load keeps them
    assert enc.to_bytes() == blob
    enc.save(tmp_path / "again.npz")
    assert Encoded.load(tmp_path / "again.npz").to_bytes() == blob
    if "decoded" not in case:
        assert c.exact and not c.lossy


def test_fixtures_cover_every_family_and_this_release():
    families = set(memcomp.list_codecs()["family"])
    assert families <= {memcomp.get_codec(c["preset"]).codec_id for _, _, c in FIXTURES}
    versions = {v for _, v, _ in FIXTURES}
    assert memcomp.__version__ in versions  # a release writes its own fixtures (make_frozen_streams.py encoded)
    kinds = {(c["preset"], "resumed" in c["file"]) for _, _, c in FIXTURES}
    assert ("cpack.skku", True) in kinds and ("cpack.skku", False) in kinds
