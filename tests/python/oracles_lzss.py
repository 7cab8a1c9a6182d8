"""Plain-Python block-local LZSS oracle (SPEC 1.13), a naive greedy parse written for clarity.

At each position every distance 1..i is tried (overlap allowed: the source may run into the
bytes being matched); the longest match wins and, scanning distances upwards with a strict
``>``, the smallest distance wins ties. A match shorter than ``min_match`` gives a literal.
Units are bytes (``token_bytes=1``) or 4-byte words (``token_bytes=4``).
"""

from __future__ import annotations


def ceil_log2(n: int) -> int:
    return (n - 1).bit_length() if n > 1 else 0


def defaults(token_bytes: int = 1, min_match: int | None = None, length_bits: int = 4) -> dict:
    if min_match is None:
        min_match = 3 if token_bytes == 1 else 1
    return {"token_bytes": token_bytes, "min_match": min_match, "length_bits": length_bits}


def units(block: bytes, token_bytes: int) -> list:
    return [bytes(block[i : i + token_bytes]) for i in range(0, len(block), token_bytes)]


def tokens(block: bytes, token_bytes: int = 1, min_match: int | None = None, length_bits: int = 4) -> list:
    """Greedy parse: ("lit", unit) or ("match", distance, length) tokens."""
    o = defaults(token_bytes, min_match, length_bits)
    u = units(bytes(block), token_bytes)
    n = len(u)
    max_len = o["min_match"] + (1 << o["length_bits"]) - 1
    out, i = [], 0
    while i < n:
        best_len, best_d = 0, 0
        for d in range(1, i + 1):
            length = 0
            while length < max_len and i + length < n and u[i + length - d] == u[i + length]:
                length += 1
            if length > best_len:
                best_len, best_d = length, d
        if best_len >= o["min_match"]:
            out.append(("match", best_d, best_len))
            i += best_len
        else:
            out.append(("lit", u[i]))
            i += 1
    return out


def lzss_size(block: bytes, token_bytes: int = 1, min_match: int | None = None, length_bits: int = 4) -> dict:
    o = defaults(token_bytes, min_match, length_bits)
    n = len(block) // token_bytes
    toks = tokens(block, token_bytes, o["min_match"], length_bits)
    lits = sum(1 for t in toks if t[0] == "lit")
    matches = len(toks) - lits
    payload = lits * 8 * token_bytes + matches * (ceil_log2(n) + length_bits)
    return {"mode": 0, "payload": payload, "meta": len(toks), "header": 0, "tag": 0}


def stream_bits(
    toks: list,
    block_bytes: int,
    token_bytes: int = 1,
    min_match: int | None = None,
    length_bits: int = 4,
    endian: str = "little",
) -> str:
    """The expected stream of a token list as a '0'/'1' string (SPEC 0.3)."""
    o = defaults(token_bytes, min_match, length_bits)
    dbits = ceil_log2(block_bytes // token_bytes)
    s = []
    for t in toks:
        if t[0] == "lit":
            s.append("0" + format(int.from_bytes(t[1], endian), f"0{8 * token_bytes}b"))
        else:
            _, d, length = t
            s.append("1" + format(d - 1, f"0{dbits}b") + format(length - o["min_match"], f"0{length_bits}b"))
    return "".join(s)


def decode_tokens(toks: list) -> bytes:
    """Replays tokens (forward copy, so overlapping matches repeat what they just wrote)."""
    out = []
    for t in toks:
        if t[0] == "lit":
            out.append(t[1])
        else:
            _, d, length = t
            for _ in range(length):
                out.append(out[-d])
    return b"".join(out)
