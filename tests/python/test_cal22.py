"""Presets that reproduce the MPC authors' compressor tool (scalable-arch/CAL_22-MPC): golden lines
worked out by hand (tests/golden/cal22.json) and per-line sizes equal to a plain-Python reading of
the tool (oracles_cal22.py) on adversarial, random and realistic lines."""

import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import memcomp
import oracles_cal22 as O
from blockgen import adversarial, realistic

GOLDEN = json.loads(Path(os.path.join(os.path.dirname(__file__), "..", "golden", "cal22.json")).read_text())


def _lines(block_bytes, seed=0):
    rng = np.random.default_rng(seed)
    rand = rng.integers(0, 256, (300, block_bytes), dtype=np.uint8) & rng.integers(0, 256, (300, 1), dtype=np.uint8)
    return np.ascontiguousarray(
        np.concatenate([adversarial(block_bytes, seed), realistic(block_bytes, 1 << 17, seed), rand])
    )


@pytest.mark.parametrize("case", GOLDEN["bdi.cal22"], ids=lambda c: c["mode"] + ":" + c["hex"][:8])
def test_bdi_golden_lines(case):
    x = np.frombuffer(bytes.fromhex(case["hex"]), np.uint8).reshape(1, -1)
    c = memcomp.get_codec("bdi.cal22")
    s = c.measure(x)
    assert int(s.size_bits[0]) == case["bits"] and c.modes[int(s.mode[0])] == case["mode"]
    assert O.bdi(x[0]) == case["bits"]


def test_bpc_golden_line():
    case = GOLDEN["bpc.cal22"][0]
    x = np.frombuffer(bytes.fromhex(case["hex"]), np.uint8).reshape(1, -1)
    assert int(memcomp.get_codec("bpc.cal22").measure(x).size_bits[0]) == case["bits"] == O.bpc(x[0])
    assert int(memcomp.get_codec("bpc.skku").measure(x).size_bits[0]) == case["bpc.skku_bits"]


def _words_blocks(counts, block_bytes=16):
    words = [int(w) for w, n in counts.items() for _ in range(n)]
    return np.frombuffer(struct.pack("<%dI" % len(words), *words), np.uint8).reshape(-1, block_bytes)


def _spec_lengths(freq):
    """SPEC 1.8's tree: merge the two minima by (weight, key), internal keys above every leaf."""
    import heapq

    heap = [(f, s) for s, f in freq.items()]
    heapq.heapify(heap)
    parent, key = {}, 2**33
    while len(heap) > 1:
        a, b = heapq.heappop(heap), heapq.heappop(heap)
        key += 1
        parent[a[1]] = parent[b[1]] = key
        heapq.heappush(heap, (a[0] + b[0], key))

    def depth(s):
        d = 0
        while s in parent:
            s, d = parent[s], d + 1
        return d

    return {s: depth(s) for s in freq}


def test_sc2_golden_heap_tree_ties_and_misses():
    g = GOLDEN["sc2.cal22"]
    train = _words_blocks(g["train_words"])
    c = memcomp.get_codec("sc2.cal22").fit(train)
    table = c.model["tables"][0]
    assert {str(s): n for s, n in zip(table["symbols"], table["lengths"])} == g["lengths"]
    assert _spec_lengths({int(k): v for k, v in g["train_words"].items()}) == {
        int(k): v for k, v in g["spec_tree_lengths"].items()
    }  # where the two trees differ
    probe = np.frombuffer(struct.pack("<4I", 31, 32, 17, 99), np.uint8).reshape(1, 16)
    assert int(c.measure(probe).size_bits[0]) == 1 + 2 + 3 + g["miss_bits"]
    tie = memcomp.get_codec("sc2.cal22", mfv=g["tie_mfv"]).fit(_words_blocks(g["tie_train_words"]))
    assert sorted(tie.model["tables"][0]["symbols"]) == g["tie_kept"]  # 9 and 7 tie: the larger stays


def test_sc2_fits_on_the_tools_sample():
    """The first max(10^4, min(N/100, 10^6)) lines train the table; a word seen only later is a miss."""
    n = 20000
    early = np.full((n, 4), 0xA, "<u4")
    early[O.sc2_sample_lines(n) :] = 0xB
    c = memcomp.get_codec("sc2.cal22").fit(early.view(np.uint8))
    assert c.model["tables"][0]["symbols"] == [0xA]
    s = c.measure(early.view(np.uint8)).size_bits
    assert s[0] == 4 * 1 and s[-1] == 4 * 33  # a lone symbol gets 1 bit (the tool: 0)
    assert O.sc2_sample_lines(10**9) == 10**6 and O.sc2_sample_lines(5000) == 5000


@pytest.mark.parametrize("block_bytes", [32, 64, 128])
def test_bdi_bpc_fpc_equal_the_tool_line_by_line(block_bytes):
    x = _lines(block_bytes)
    checks = {"bdi.cal22": O.bdi, "bpc.cal22": O.bpc, "fpc.cal22": O.fpc}
    for name, oracle in checks.items():
        got = memcomp.get_codec(name).measure(x).size_bits
        want = np.array([oracle(b) for b in x])
        assert np.array_equal(got, want), (name, np.flatnonzero(got != want)[:5])


@pytest.mark.parametrize("block_bytes", [32, 128])
def test_cpack_equals_the_stateful_tool(block_bytes):
    x = _lines(block_bytes, seed=1)
    tool = O.CPack()
    want = np.array([tool.line(b) for b in x])
    c = memcomp.get_codec("cpack.cal22")
    assert np.array_equal(c.measure(x).size_bits, want)
    half = len(x) // 2  # in chunks: the dictionary carries over with resume
    both = np.concatenate([c.measure(x[:half]).size_bits, c.measure(x[half:], resume=True).size_bits])
    assert np.array_equal(both, want)


def test_sc2_equals_the_tool_after_its_sample():
    x = _lines(32, seed=2)
    x = np.ascontiguousarray(np.concatenate([x] * 4))
    lengths = O.sc2_lengths(x[: O.sc2_sample_lines(len(x))])
    got = memcomp.get_codec("sc2.cal22").fit(x).measure(x).size_bits
    assert np.array_equal(got, [O.sc2(b, lengths) for b in x])


def test_presets_are_documented_accounting_only():
    for name in ("bdi.cal22", "bpc.cal22", "sc2.cal22", "fpc.cal22", "cpack.cal22"):
        c = memcomp.get_codec(name)
        assert "CAL_22-MPC" in memcomp.list_codecs().set_index("name").loc[name, "description"]
        assert c.exact == (name == "cpack.cal22")
    assert memcomp.get_codec("fpc.cal22").options == memcomp.get_codec("fpc.skku").options
    assert memcomp.get_codec("cpack.cal22").options == memcomp.get_codec("cpack.skku").options
