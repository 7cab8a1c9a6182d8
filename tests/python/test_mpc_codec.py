"""MPC codec (P3; SPEC 1.12, W7) against a plain-Python oracle written from the SPEC, plus the
opt-in conformance test against the authors' RTL stimulus (MEMCOMP_MPC_RTL_DIR)."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

import memcomp
from blockgen import adversarial, realistic

PRESET = "mpc.cal22_rtl"
GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "mpc.json")


def model_of(codec):
    m = codec.options["model"]
    if isinstance(m, str):
        return json.loads(m)
    return json.loads(m.to_json()) if hasattr(m, "to_json") else dict(m)


# ---- oracle (SPEC 1.12, bit strings) ---------------------------------------------------------


def pred(v, s):
    if s >= 8 or s <= -8:
        return 0
    return (v << s) & 0xFF if s >= 0 else v >> -s


def oracle_rows(mod, b):
    """16 rows as '0'/'1' strings of 16 (position 0 first)."""
    r = mod["root"]
    R = [b[r]] + [(b[j] - pred(b[mod["base"][j]], mod["shift"][j])) & 0xFF for j in range(32) if j != r]
    P = [[(R[c] >> (7 - p)) & 1 for c in range(32)] for p in range(8)]
    X = [[P[p][c] ^ (P[p - 1][c] if p >= 1 and c >= 1 else 0) for c in range(32)] for p in range(8)]
    S = "".join(str(X[mod["scan_row"][t]][mod["scan_col"][t]]) for t in range(256))
    return [S[16 * i : 16 * i + 16] for i in range(16)]


def oracle_row_code(row):
    ones = [i for i, x in enumerate(row) if x == "1"]
    if len(ones) == 1:
        return "011" + format(ones[0], "04b")
    if len(ones) == 2 and ones[1] == ones[0] + 1:
        return "0000" + format(ones[0], "04b")
    if "1" not in row[:8]:
        return "0001" + row[8:]
    if "1" not in row[8:]:
        return "0010" + row[:8]
    return "1" + row


def oracle_encode_rows(rows):
    out, run = [], 0
    for row in rows + [None]:
        if row is not None and "1" not in row:
            run += 1
            continue
        if run == 1:
            out.append("0011")
        elif run >= 2:
            out.append("010" + format(run - 1, "04b"))
        run = 0
        if row is not None:
            out.append(oracle_row_code(row))
    return "".join(out)


def oracle_stream(model, b, select="rtl"):
    """(class, stream bits) of one 32 B block."""
    b = [int(x) for x in b]
    if not any(b):
        return 0, "000"
    if all(b[i] == b[i % 4] for i in range(32)):
        return 1, "001" + "".join(format(x, "08b") for x in b[:4])
    best = None
    for mod in sorted(model["modules"], key=lambda m: m["class"]):
        rows = oracle_rows(mod, b)
        code = oracle_encode_rows(rows)
        lz = next((i for i, r in enumerate(rows) if "1" in r), 16)
        key = lz if select == "rtl" else -len(code)
        if best is None or key >= best[0]:
            best = (key, mod["class"], code)
    _, cls, code = best
    if len(code) >= 256:
        return 7, "111" + "".join(format(x, "08b") for x in b)
    return cls, format(cls, "03b") + code


def stream_strings(enc):
    bits = np.unpackbits(enc.data)
    return ["".join(map(str, bits[int(o) : int(o) + int(n)])) for o, n in zip(enc.bit_offsets, enc.bit_lengths)]


# ---- tests -----------------------------------------------------------------------------------


def blocks32():
    return np.concatenate(
        [adversarial(32), realistic(32, 1 << 16), np.random.default_rng(1).integers(0, 256, (200, 32), dtype=np.uint8)]
    )


def roundtrip(codec, blocks):
    s = codec.measure(blocks)
    assert np.array_equal(s.size_bits, s.payload_bits + s.meta_bits + s.header_bits)
    assert np.all(s.header_bits == 3)
    enc = codec.encode(blocks)
    assert np.array_equal(enc.bit_lengths, s.size_bits)
    assert np.array_equal(codec.decode(enc), blocks)
    return s, enc


@pytest.mark.parametrize("select", ["rtl", "min_bits"])
def test_roundtrip_and_measure(select):
    c = memcomp.get_codec(PRESET, select=select)
    assert not c.requires_fit
    s, _ = roundtrip(c, blocks32())
    assert set(np.unique(s.mode).tolist()) <= set(range(8))
    assert s.size_bits.max() <= 259


@pytest.mark.parametrize("select", ["rtl", "min_bits"])
def test_against_oracle(select):
    c = memcomp.get_codec(PRESET, select=select)
    model = model_of(c)
    rng = np.random.default_rng(7)
    blocks = blocks32()
    blocks = blocks[rng.permutation(len(blocks))[:300]]
    s = c.measure(blocks)
    streams = stream_strings(c.encode(blocks))
    for i, b in enumerate(blocks):
        cls, want = oracle_stream(model, b, select)
        assert int(s.mode[i]) == cls, i
        assert streams[i] == want, i
    assert len(set(s.mode.tolist())) >= 5  # the sample reaches most classes


def test_golden_rows_and_blocks():
    g = json.loads(Path(GOLDEN).read_text())
    for r in g["rows"]:
        row = format(int(r["row"], 16), "016b")
        code = "0011" if "1" not in row else oracle_row_code(row)
        assert code == r["code"] and len(code) == r["bits"]
    for a in g["row_arrays"]:
        rows = [format(int(x, 16), "016b") for x in a["rows"]]
        assert oracle_encode_rows(rows) == a["code"]
    c = memcomp.get_codec(PRESET)
    for b in g["blocks"]:
        blk = np.frombuffer(bytes.fromhex(b["block"]), np.uint8).reshape(1, 32)
        s = c.measure(blk)
        assert int(s.mode[0]) == b["class"] and int(s.size_bits[0]) == b["bits"]
        assert int(s.payload_bits[0]) == b["payload"] and int(s.meta_bits[0]) == b["meta"]
        assert stream_strings(c.encode(blk))[0] == b["stream"]


def test_min_bits_never_larger():
    blocks = blocks32()
    a = memcomp.get_codec(PRESET).measure(blocks).size_bits
    b = memcomp.get_codec(PRESET, select="min_bits").measure(blocks).size_bits
    assert np.all(b <= a) and np.any(b < a)


def test_model_save_load_identical_output(tmp_path):
    c = memcomp.get_codec(PRESET)
    m = memcomp.Model(model_of(c))
    p = tmp_path / "mpc_model.json"
    m.save(p)
    c2 = memcomp.get_codec(PRESET, model=memcomp.Model.load(p))
    blocks = blocks32()
    e1, e2 = c.encode(blocks), c2.encode(blocks)
    assert np.array_equal(e1.data, e2.data) and np.array_equal(e1.bit_lengths, e2.bit_lengths)
    assert np.array_equal(c2.decode(e1), blocks)


def random_model(rng, classes=(2, 4, 6)):
    """A valid model of random modules: a random base tree per module, shifts in -8..8, a random scan."""
    mods = []
    for cls in classes:
        root = int(rng.integers(32))
        order = [root] + [j for j in rng.permutation(32).tolist() if j != root]
        base = [0] * 32
        for k, j in enumerate(order):
            base[j] = root if k == 0 else order[int(rng.integers(k))]
        cells = rng.permutation(256)
        mods.append(
            {
                "class": int(cls),
                "root": root,
                "base": base,
                "shift": rng.integers(-8, 9, 32).tolist(),
                "scan_row": (cells // 32).tolist(),
                "scan_col": (cells % 32).tolist(),
            }
        )
    return {"format": "memcomp.model/1", "codec": "mpc", "version": 1, "modules": mods}


def test_random_model_roundtrip():
    model = random_model(np.random.default_rng(3))
    c = memcomp.get_codec(PRESET, model=json.dumps(model))
    s, enc = roundtrip(c, blocks32())
    streams = stream_strings(enc)
    for i, b in enumerate(blocks32()[:150]):
        assert streams[i] == oracle_stream(model, b)[1]


def bad(edit):
    m = model_of(memcomp.get_codec(PRESET))
    edit(m)
    return json.dumps(m)


@pytest.mark.parametrize(
    "edit, msg",
    [
        (lambda m: m["modules"][0]["base"].__setitem__(0, 1) or m["modules"][0]["base"].__setitem__(1, 0), "cycle"),
        (
            lambda m: (
                m["modules"][1]["scan_col"].__setitem__(1, m["modules"][1]["scan_col"][0])
                or m["modules"][1]["scan_row"].__setitem__(1, m["modules"][1]["scan_row"][0])
            ),
            "permutation",
        ),
        (lambda m: m["modules"][2]["shift"].__setitem__(3, 9), "shift"),
        (lambda m: m["modules"][4].__setitem__("class", 2), "two modules"),
        (lambda m: m.__setitem__("version", 9), "version"),
        (lambda m: m["modules"][0]["scan_row"].pop(), "entries"),
    ],
)
def test_bad_models(edit, msg):
    with pytest.raises(ValueError, match=msg):
        memcomp.get_codec(PRESET, model=bad(edit))


def test_only_32_byte_blocks():
    c = memcomp.get_codec(PRESET)
    with pytest.raises(ValueError, match="sectorize"):
        c.measure(np.zeros((2, 64), np.uint8))
    blocks = memcomp.sectorize(np.zeros((2, 64), np.uint8), 32)
    assert c.measure(blocks).total_bits == 4 * 3


# ---- opt-in conformance against the RTL stimulus (SPEC 1.12 "Oracle") -------------------------

RTL_DIR = os.environ.get("MEMCOMP_MPC_RTL_DIR")


@pytest.mark.skipif(
    not RTL_DIR,
    reason="set MEMCOMP_MPC_RTL_DIR to the CAL_22-MPC_RTL stimulus directory "
    "(compressor/sim/tb/stimulus/stimulus_compressor) to run the RTL conformance test",
)
def test_rtl_stimulus_conformance():
    """All 10,002 sizes, the class counts and the total of SPEC 1.12; every codeword too when
    data_o.txt is present (sizes alone need only data_i.txt and size_o.txt)."""

    def lines(name):
        with open(os.path.join(RTL_DIR, name)) as f:
            return [x.strip() for x in f if x.strip()]

    data_i, size_o = lines("data_i.txt"), lines("size_o.txt")
    assert len(data_i) == len(size_o) == 10002
    blocks = np.frombuffer(b"".join(bytes.fromhex(x) for x in data_i), np.uint8).reshape(-1, 32)
    c = memcomp.get_codec(PRESET)
    s = c.measure(blocks)
    want = np.array([int(x, 16) for x in size_o])
    assert np.array_equal(s.size_bits, want), f"{int((s.size_bits != want).sum())} sizes differ"
    assert int(s.size_bits.sum()) == 1_448_685
    counts = np.bincount(s.mode, minlength=8).tolist()
    assert counts == [587, 740, 136, 27, 3399, 3530, 1299, 284]
    enc = c.encode(blocks)
    assert np.array_equal(c.decode(enc), blocks)
    if os.path.exists(os.path.join(RTL_DIR, "data_o.txt")):
        data_o = lines("data_o.txt")
        assert len(data_o) == 10002
        streams = stream_strings(enc)
        wrong = [i for i, (a, b) in enumerate(zip(streams, data_o)) if a.ljust(259, "0") != b]
        assert not wrong, f"{len(wrong)} codewords differ, first at line {wrong[0] + 1}"
