"""Plain-Python reference for BPC (SPEC 1.5), one block at a time, with bit strings.

Written from the SPEC text (and, for ``bpc.liu``, the reading documented in
``cpp/src/codecs/bpc.cpp``), not from the C++ code. Slow and obvious on purpose.

``bpc_encode(block, **cfg)`` returns ``(bits, record)``: the stream as a '0'/'1' string and the
size record ``{"mode", "payload", "meta", "header", "tag"}``. ``PRESETS`` maps each preset to
its configuration.
"""

from __future__ import annotations

PRESETS = {
    "bpc.isca16": {},
    "bpc.skku": {"base": "fixed7"},
    "bpc.liu": {"delta_bits": 32, "alt_mode": "rows", "precedence": "liu"},
}

# 5-bit codes of the non-zero plane classes per code map (SPEC 1.5).
CODES = {
    "ebpc": {"dbp0": "00001", "ones": "00000", "pair": "00010", "single": "00011"},
    "kim": {"single": "00000", "pair": "00001", "dbp0": "00010", "ones": "00011"},
}


def fld(value: int, n: int) -> str:
    """n-bit field, MSB first ('' for n = 0)."""
    return format(value & ((1 << n) - 1), f"0{n}b") if n else ""


def ceil_log2(n: int) -> int:
    return (n - 1).bit_length() if n > 1 else 0


def signed32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def words_of(block: bytes, endian: str = "little") -> list:
    return [int.from_bytes(block[i : i + 4], endian) for i in range(0, len(block), 4)]


def base_symbol(w0: int):
    """(code, value field) of the base word."""
    s = signed32(w0)
    if s == 0:
        return "000", ""
    for code, n in (("001", 4), ("010", 8), ("011", 16)):
        if -(1 << (n - 1)) <= s < (1 << (n - 1)):
            return code, fld(s, n)
    return "1", fld(w0, 32)


def plane_class(x: str, p: str, m: int, precedence: str) -> str:
    """Class of a non-zero DBX plane x (bit string, bit W-1 first) whose DBP is p."""
    ones = [i for i, c in enumerate(reversed(x)) if c == "1"]  # bit indices
    single = len(ones) == 1
    pair = len(ones) == 2 and ones[1] == ones[0] + 1
    all_ones = int(x, 2) == (1 << m) - 1
    dbp0 = "1" not in p
    order = (
        [("dbp0", dbp0), ("ones", all_ones), ("pair", pair), ("single", single)]
        if precedence == "kim"
        else [("single", single), ("pair", pair), ("ones", all_ones), ("dbp0", dbp0)]
    )
    for name, ok in order:
        if ok:
            return name
    return "raw"


def plane_symbols(dbp: list, m: int, code_map: str, precedence: str):
    """Symbols of DBX[P-1] .. DBX[0] for DBP planes given top plane first, as bit strings.
    Returns (bits, payload, meta)."""
    W = len(dbp[0])
    pb = ceil_log2(W)
    out, payload, meta = [], 0, 0
    run = 0

    def flush():
        nonlocal run, payload, meta
        if run == 1:
            out.append("001")
            meta += 3
        elif run >= 2:
            out.append("01" + fld(run - 2, 5))
            meta += 2
            payload += 5
        run = 0

    above = "0" * W
    for p in dbp:
        x = "".join("1" if a != b else "0" for a, b in zip(p, above))
        above = p
        if "1" not in x:
            run += 1
            continue
        flush()
        cls = plane_class(x, p, m, precedence)
        if cls == "raw":
            out.append("1" + x)
            meta += 1
            payload += W
        elif cls in ("single", "pair"):
            pos = len(x) - 1 - x.rindex("1")  # lowest set bit
            out.append(CODES[code_map][cls] + fld(pos, pb))
            meta += 5
            payload += pb
        else:
            out.append(CODES[code_map][cls])
            meta += 5
    flush()
    return "".join(out), payload, meta


def planes_of(rows: list, nplanes: int) -> list:
    """DBP planes P-1 .. 0 of the rows (row r is bit r of every plane); bit strings, bit m-1 first."""
    return ["".join(str((rows[r] >> j) & 1) for r in reversed(range(len(rows)))) for j in reversed(range(nplanes))]


def delta_candidate(w: list, delta_bits: int, fixed7: bool, code_map: str, precedence: str, plain=False):
    m = len(w) - 1
    code, value = base_symbol(w[0])
    base_bits = code + value
    bpay, bmeta = len(value), len(code)
    if fixed7:
        bpay, bmeta = 4, 3
    if plain:  # the 32 bit-planes of w_1..w_m themselves
        rows, P = w[1:], 32
    elif delta_bits == 33:
        rows = [(signed32(w[i]) - signed32(w[i - 1])) % (1 << 33) for i in range(1, len(w))]
        P = 33
    else:
        rows = [(w[i] - w[i - 1]) % (1 << 32) for i in range(1, len(w))]
        P = 32
    bits, pay, meta = plane_symbols(planes_of(rows, P), m, code_map, precedence)
    return base_bits + bits, pay + bpay, meta + bmeta


def rows_candidate(block: bytes, endian: str, code_map: str, precedence: str):
    B = len(block)
    W = B // 4
    m = W - 1
    if W == 4:
        nib = []
        for byte in block:
            lo, hi = byte & 0xF, byte >> 4
            nib += [hi, lo] if endian == "big" else [lo, hi]
        rows = nib
    else:
        k = W // 8
        rows = [int.from_bytes(block[i : i + k], endian) for i in range(0, B, k)]
    assert len(rows) == 32
    dbp = [fld(r, W) for r in reversed(rows)]  # top row (31) first
    return plane_symbols(dbp, m, code_map, precedence)


def bpc_encode(block, endian="little", code_map="ebpc", delta_bits=33, base="coded", alt_mode="none", precedence="kim"):
    block = bytes(block)
    w = words_of(block, endian)
    bits, pay, meta = delta_candidate(w, delta_bits, base == "fixed7", code_map, precedence)
    rec = {"mode": 0, "payload": pay, "meta": meta, "header": 0, "tag": 0}
    if alt_mode == "none":
        return bits, rec
    rec["header"] = 1
    if alt_mode == "rows":
        abits, apay, ameta = rows_candidate(block, endian, code_map, precedence)
    else:
        abits, apay, ameta = delta_candidate(w, 32, False, code_map, precedence, plain=True)
    if len(abits) < len(bits):
        return "1" + abits, {"mode": 1, "payload": apay, "meta": ameta, "header": 1, "tag": 0}
    return "0" + bits, rec


def bpc_size(block, preset="bpc.isca16", **overrides):
    return bpc_encode(block, **{**PRESETS[preset], **overrides})[1]


def to_bytes(bits: str) -> bytes:
    """A bit string as stream bytes (MSB first, zero padded; SPEC 0.3)."""
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8))
