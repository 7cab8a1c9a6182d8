"""Independent reference implementations ("oracles") for memcomp size rules.

Written from ``shared/SPEC.md`` (sections 0, 1.1, 1.2, 1.6) and the
normative decisions recorded in the oracle brief, *without* looking at the
project's C++ code.  Everything here is plain Python integers, one block at a
time, and aims to be obviously correct rather than fast.

Every size function takes one block (``bytes``, ``bytearray`` or a 1-D
``uint8`` ndarray) and returns a size record in bits::

    {"mode": int, "payload": int, "meta": int, "header": int, "tag": int}

In-band bits = payload + meta + header (SPEC 0.4); the tag is reported but
not counted.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = [
    "BDI_ENCODINGS",
    "BDI_NAMES",
    "as_bytes",
    "elements",
    "sx",
    "bdi_size",
    "fpc_word",
    "fpc_words_size",
    "fpc_size",
    "zca_size",
    "zrep_size",
    "inband",
    "nextpow2",
    "pow2_factor",
    "charge",
    "charge_bytes",
]

# encoding id -> (k = element bytes, d = delta bytes), SPEC 1.1 table
BDI_ENCODINGS = {
    2: (8, 1),
    3: (8, 2),
    4: (8, 4),
    5: (4, 1),
    6: (4, 2),
    7: (2, 1),
}
BDI_NAMES = {
    0: "zeros",
    1: "rep8",
    2: "B8D1",
    3: "B8D2",
    4: "B8D4",
    5: "B4D1",
    6: "B4D2",
    7: "B2D1",
    8: "rep4",  # cmu only
    15: "raw",
}


# ----------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------
def as_bytes(block) -> bytes:
    """Accept bytes / bytearray / memoryview / 1-D uint8 ndarray."""
    if isinstance(block, (bytes, bytearray, memoryview)):
        return bytes(block)
    # numpy array (avoid importing numpy at module import time)
    dtype = getattr(block, "dtype", None)
    if dtype is not None:
        if str(dtype) != "uint8" or getattr(block, "ndim", 1) != 1:
            raise ValueError("block must be a 1-D uint8 array")
        return block.tobytes()
    raise TypeError("block must be bytes or a 1-D uint8 ndarray")


def elements(data: bytes, k: int) -> list[int]:
    """k-byte little-endian unsigned elements (SPEC 0.2)."""
    if len(data) % k:
        raise ValueError(f"block of {len(data)} bytes is not a multiple of {k}")
    return [int.from_bytes(data[i : i + k], "little") for i in range(0, len(data), k)]


def sx(x: int, k: int) -> int:
    """Read a k-byte unsigned value as two's complement at its own width."""
    bits = 8 * k
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def _rec(mode, payload=0, meta=0, header=0, tag=0):
    return {"mode": mode, "payload": payload, "meta": meta, "header": header, "tag": tag}


def inband(rec) -> int:
    return rec["payload"] + rec["meta"] + rec["header"]


# ----------------------------------------------------------------------------
# BDI (SPEC 1.1)
# ----------------------------------------------------------------------------
def _signed_range(d):
    return -(1 << (8 * d - 1)), (1 << (8 * d - 1)) - 1


def _fits_paper(xs, k, d):
    """paper: sign-extended immediates, signed delta (wrap at element width)."""
    lo, hi = _signed_range(d)
    imm = [lo <= sx(x, k) <= hi for x in xs]
    if all(imm):
        return True
    base = xs[imm.index(False)]
    mod = 1 << (8 * k)
    return all(imm[i] or lo <= sx((x - base) % mod, k) <= hi for i, x in enumerate(xs))


def _fits_gem5(xs, k, d):
    """gem5: symmetric |delta| <= 2^(8d-1)-1 for immediates and base deltas."""
    lim = (1 << (8 * d - 1)) - 1
    imm = [abs(sx(x, k)) <= lim for x in xs]
    if all(imm):
        return True
    base = xs[imm.index(False)]
    mod = 1 << (8 * k)
    return all(imm[i] or abs(sx((x - base) % mod, k)) <= lim for i, x in enumerate(xs))


def _fits_kim(xs, k, d):
    """kim: zero-extended to 64 bits; delta computed in 64-bit, signed range."""
    lo, hi = _signed_range(d)
    # zero-extension: xs are already the unsigned k-byte values
    imm = [lo <= sx(x, 8) <= hi for x in xs]
    if all(imm):
        return True
    base = xs[imm.index(False)]
    return all(imm[i] or lo <= sx((x - base) % (1 << 64), 8) <= hi for i, x in enumerate(xs))


def _cmu_delta(x, b):
    """|int64((x - b) mod 2^64)|; abs(INT64_MIN) taken as 2^63."""
    return abs(sx((x - b) % (1 << 64), 8))


def _fits_cmu(xs, k, d):
    lim = (1 << (8 * d)) - 1
    base = None
    for x in xs:
        if _cmu_delta(x, 0) > lim:
            base = x
            break
    if base is None:
        return True
    return all(_cmu_delta(x, 0) <= lim or _cmu_delta(x, base) <= lim for x in xs)


def _bdi_common(data):
    B = len(data)
    if B == 0 or B % 8:
        raise ValueError("BDI block size must be a positive multiple of 8")
    is_zero = not any(data)
    q = elements(data, 8)
    is_rep = all(v == q[0] for v in q)
    return B, is_zero, is_rep


def bdi_size(block, preset: str = "paper"):
    """BDI size record for one block; preset in paper | gem5 | kim | cmu."""
    data = as_bytes(block)
    B, is_zero, is_rep = _bdi_common(data)
    if preset == "paper":
        return _bdi_paper(data, B, is_zero, is_rep)
    if preset == "gem5":
        return _bdi_gem5(data, B, is_zero, is_rep)
    if preset == "kim":
        return _bdi_kim(data, B, is_zero, is_rep)
    if preset == "cmu":
        return _bdi_cmu(data, B, is_zero, is_rep)
    raise ValueError(f"unknown BDI preset {preset!r}")


def _bd_record(data, enc, tag=0, header=0):
    k, d = BDI_ENCODINGS[enc]
    n = len(data) // k
    return _rec(enc, payload=8 * k + 8 * d * n, meta=n, header=header, tag=tag)


def _bdi_min_bits(data, B, is_zero, is_rep, fits, rank, **where):
    """Minimum in-band bits over the fitting encodings; ties by rank; raw only if none fits.
    ``where`` puts the 4-bit encoding in the tag (paper) or in-band as a header (kim)."""
    cands = []
    if is_zero:
        cands.append(_rec(0, payload=8, **where))
    if is_rep:
        cands.append(_rec(1, payload=64, **where))
    for enc, (k, d) in BDI_ENCODINGS.items():
        if fits(elements(data, k), k, d):
            cands.append(_bd_record(data, enc, **where))
    if not cands:
        return _rec(15, payload=8 * B, **where)
    return min(cands, key=lambda r: (inband(r), rank(r["mode"])))


def _bdi_paper(data, B, is_zero, is_rep):
    # ties -> lower encoding id
    return _bdi_min_bits(data, B, is_zero, is_rep, _fits_paper, lambda m: m, tag=4)


def nextpow2(x: int) -> int:
    """Smallest power of two >= x (x >= 1)."""
    if x < 1:
        raise ValueError("nextpow2 needs x >= 1")
    p = 1
    while p < x:
        p *= 2
    return p


def pow2_factor(bits: int, block_bytes: int, fmax: int = 4) -> int:
    """gem5 Multi factor (SPEC 0.6 pow2): 1 if bits > 8B, fmax if 0, else
    min(fmax, nextpow2(floor(8B / bits)))."""
    full = 8 * block_bytes
    if bits > full:
        return 1
    if bits == 0:
        return fmax
    return min(fmax, nextpow2(full // bits))


def _bdi_gem5(data, B, is_zero, is_rep):
    members = []  # in member order Zero, Rep, B8D1, B8D2, B8D4, B4D1, B4D2, B2D1
    if is_zero:
        members.append(_rec(0, payload=0, tag=4))
    if is_rep:
        members.append(_rec(1, payload=64, tag=4))
    for enc in (2, 3, 4, 5, 6, 7):
        k, d = BDI_ENCODINGS[enc]
        if _fits_gem5(elements(data, k), k, d):
            members.append(_bd_record(data, enc, tag=4))
    # size_threshold_percentage = 99 per member: discard bits > 0.99 * 8B
    ok = [r for r in members if 100 * inband(r) <= 99 * 8 * B]
    if not ok:
        return _rec(15, payload=8 * B, tag=4)
    best = None
    for r in ok:  # strictly larger factor replaces -> earlier member wins ties
        f = pow2_factor(inband(r), B, 4)
        if best is None or f > best[0]:
            best = (f, r)
    return best[1]


_KIM_ORDER = {0: 0, 1: 1, 2: 2, 5: 3, 3: 4, 7: 5, 6: 6, 4: 7}


def _bdi_kim(data, B, is_zero, is_rep):
    return _bdi_min_bits(data, B, is_zero, is_rep, _fits_kim, _KIM_ORDER.__getitem__, header=4)


def _bdi_cmu(data, B, is_zero, is_rep):
    # (mode, bytes) in tie-break order. CMU's BDICompress starts from best = B (raw) and only
    # replaces it with a strictly smaller size, so raw wins every tie.
    cands = [(15, B)]
    if is_zero:
        cands.append((0, 1))
    if is_rep:
        cands.append((1, 8))
    for enc in (2, 3, 4):
        k, d = BDI_ENCODINGS[enc]
        if _fits_cmu(elements(data, k), k, d):
            cands.append((enc, d * (B // k) + 2 * k))
    w4 = elements(data, 4)
    if all(v == w4[0] for v in w4):
        cands.append((8, 4))
    for enc in (5, 6, 7):
        k, d = BDI_ENCODINGS[enc]
        if _fits_cmu(elements(data, k), k, d):
            cands.append((enc, d * (B // k) + 2 * k))
    best = cands[0]
    for c in cands[1:]:
        if c[1] < best[1]:  # strict: earliest wins ties
            best = c
    return _rec(best[0], payload=8 * best[1])


# ----------------------------------------------------------------------------
# FPC (SPEC 1.2)
# ----------------------------------------------------------------------------
FPC_PAYLOAD = {"000": 3, "001": 4, "010": 8, "011": 16, "100": 16, "101": 16, "110": 8, "111": 32}


def fpc_word(v: int, gem5: bool = False):
    """(prefix, payload_bits) for one NON-ZERO 32-bit word (fpc.paper table; ``gem5``: row 101
    takes halfwords 0..127 only, as gem5's fpc.hh does, see oracles_gem5.fpc_word_bits).

    A zero word returns ("000", None): zero words are coded as runs."""
    v &= 0xFFFFFFFF
    if v == 0:
        return "000", None
    s = sx(v, 4)
    if -8 <= s <= 7:
        p = "001"
    elif -128 <= s <= 127:
        p = "010"
    elif -32768 <= s <= 32767:
        p = "011"
    elif v & 0xFFFF == 0:
        p = "100"
    elif all((0 if gem5 else -128) <= sx(h, 2) <= 127 for h in (v >> 16, v & 0xFFFF)):
        p = "101"
    elif len(set(v.to_bytes(4, "little"))) == 1:
        p = "110"
    else:
        p = "111"
    return p, FPC_PAYLOAD[p]


def _cmu_word_bytes(v: int) -> int:
    v &= 0xFFFFFFFF
    if v == 0:
        return 1
    a = abs(sx(v, 4))  # abs(INT32_MIN) = 2^31
    if a <= 0xFF:
        return 1
    if a <= 0xFFFF:
        return 2
    if v & 0xFFFF == 0:
        return 2
    if (v & 0xFFFF) <= 0xFF and (v >> 16) <= 0xFF:
        return 2
    if len(set(v.to_bytes(4, "little"))) == 1:
        return 1
    return 4


def fpc_words_size(words, preset: str = "paper"):
    """FPC size record for a sequence of 32-bit words (ints)."""
    words = [w & 0xFFFFFFFF for w in words]
    if preset == "cmu":
        total = sum(_cmu_word_bytes(w) for w in words)
        return _rec(0, payload=8 * total, meta=8 * ((3 * len(words)) // 8))
    if preset not in ("paper", "gem5", "skku"):
        raise ValueError(f"unknown FPC preset {preset!r}")
    max_run = None if preset == "skku" else 8
    payload = 0
    tokens = 0
    run = 0

    def flush():
        nonlocal payload, tokens, run
        if run:
            payload += 3
            tokens += 1
            run = 0

    for w in words:
        if w == 0:
            run += 1
            if max_run is not None and run == max_run:
                flush()
            continue
        flush()
        _, bits = fpc_word(w, gem5=preset == "gem5")
        payload += bits
        tokens += 1
    flush()
    return _rec(0, payload=payload, meta=3 * tokens)


def fpc_size(block, preset: str = "paper"):
    """FPC size record for one block (LE 32-bit words); paper | gem5 | skku | cmu."""
    data = as_bytes(block)
    return fpc_words_size(elements(data, 4), preset)


# ----------------------------------------------------------------------------
# ZCA and zero/repeat (SPEC 1.6)
# ----------------------------------------------------------------------------
def zca_size(block):
    data = as_bytes(block)
    if not any(data):
        return _rec(1, payload=0, tag=1)
    return _rec(0, payload=8 * len(data), tag=1)


def zrep_size(block, w: int = 8):
    data = as_bytes(block)
    if not any(data):
        return _rec(0, payload=0, header=2)
    el = elements(data, w)
    if all(v == el[0] for v in el):
        return _rec(1, payload=8 * w, header=2)
    return _rec(3, payload=8 * len(data), header=2)


# ----------------------------------------------------------------------------
# Metrics-layer charging (SPEC 0.6)
# ----------------------------------------------------------------------------
def _ceil_div(a, b):
    return -(-a // b)


def charge(bits, block_bytes, policy="none"):
    """Charged BITS for one block of ``block_bytes`` whose in-band size is
    ``bits``.  ``policy`` is "none" | "cap" | "bytes" | ("threshold", f) |
    ("segments", s) | ("mag", M[, u_min=1]) | ("pow2"[, fmax=4]) | "pow2".

    For "mag" the charged size is r bytes = min(B, M*max(u_min, ceil(bits/8M)))
    and this returns 8r (use charge_bytes for r).  For "pow2" the result is
    8B/f (an int when f divides 8B, else a Fraction)."""
    B = block_bytes
    full = 8 * B
    if isinstance(policy, str):
        policy = (policy,)
    name, args = policy[0], tuple(policy[1:])
    if name == "none":
        return bits
    if name == "cap":
        return full if bits >= full else bits
    if name == "threshold":
        (f,) = args
        f = Fraction(str(f)) if isinstance(f, float) else Fraction(f)  # 0.99 == 99/100
        return full if Fraction(bits) > f * full else bits
    if name == "bytes":
        return 8 * _ceil_div(bits, 8)
    if name == "segments":
        (s,) = args
        return 8 * s * _ceil_div(bits, 8 * s)
    if name == "mag":
        M = args[0]
        u_min = args[1] if len(args) > 1 else 1
        r = min(B, M * max(u_min, _ceil_div(bits, 8 * M)))
        return 8 * r
    if name == "pow2":
        fmax = args[0] if args else 4
        f = pow2_factor(bits, B, fmax)
        q = Fraction(full, f)
        return int(q) if q.denominator == 1 else q
    raise ValueError(f"unknown policy {policy!r}")


def charge_bytes(bits, block_bytes, policy="none"):
    """Charged size in bytes (charge(...) / 8)."""
    c = Fraction(charge(bits, block_bytes, policy), 8)
    return int(c) if c.denominator == 1 else c


def raw_cr(block_bytes_list, charged_bits_list):
    """Raw CR = sum(8B) / sum(charged bits) (ratio of sums, SPEC 0.6)."""
    return Fraction(8 * sum(block_bytes_list)) / Fraction(sum(charged_bits_list))


if __name__ == "__main__":  # tiny smoke check
    print(bdi_size(bytes(32)), fpc_size(bytes(64)))
