"""Plain-Python C-Pack oracle (SPEC 1.4, W6), one word at a time, written for clarity.

Every preset is a set of options (see ``PRESETS``). The oracle keeps the dictionary as a Python
list in *index order* (the number written in the stream), so the codes and indices it reports
can be compared with a real stream. Two matching styles are implemented on purpose:

* ``best``: try every entry, keep the smallest code, lowest index on ties (SPEC 1.4);
* ``first``: the first entry whose upper 16 bits match decides, then its best code, the way
  the memory-order-byte implementations (schreiber, skku) search. Under ``push="literal"`` both
  give the same codes, which the tests check by running the skku/schreiber presets in this style.

Size record: ``{"mode", "payload", "meta", "header", "tag"}`` in bits, like ``oracles.py``.
"""

from __future__ import annotations

from collections import deque

CODES = {  # name: (code bits as a string, payload bits incl. the index)
    "zzzz": ("00", 0),
    "xxxx": ("01", 32),
    "mmmm": ("10", 4),
    "mmxx": ("1100", 20),
    "zzzx": ("1101", 8),
    "mmmx": ("1110", 12),
}
ORDER = ["zzzz", "mmmm", "zzzx", "mmmx", "mmxx", "xxxx"]  # smallest first (SPEC 1.4)
MATCH_BITS = {"mmmm": 32, "mmmx": 24, "mmxx": 16}  # upper bits that must equal the entry's

PUSH = {
    "unmatched": {"xxxx", "mmxx", "mmmx"},
    "literal": {"xxxx"},
    "nonnarrow": {"xxxx", "mmmm", "mmxx", "mmmx"},
    "nonzero": {"xxxx", "mmmm", "mmxx", "mmmx", "zzzx"},
}

PRESETS = {
    "paper": dict(endian="little", push="unmatched", dictionary="fifo", init="empty", persistent=False),
    "gem5": dict(endian="little", push="nonnarrow", dictionary="block", init="empty", persistent=False),
    "kim": dict(endian="little", push="literal", dictionary="fifo", init="zeros", persistent=False),
    "schreiber": dict(endian="big", push="literal", dictionary="fill", init="empty", persistent=False),
    "skku": dict(endian="big", push="literal", dictionary="deque", init="zeros", persistent=True),
}


def words(block: bytes, endian: str) -> list[int]:
    return [int.from_bytes(block[i : i + 4], endian) for i in range(0, len(block), 4)]


def upper(x: int, nbits: int) -> int:
    return x >> (32 - nbits)


class Dictionary:
    """The dictionary in index order. ``fifo`` keeps 16 physical slots (None = empty) and a
    write pointer; ``deque`` is a std::deque-like list, front = index 0 = oldest; ``fill`` and
    ``block`` only append (fill stops at 16)."""

    def __init__(self, kind: str, init: str, block_words: int):
        self.kind = kind
        self.wp = 0
        if kind == "fifo":
            self.slots = [0 if init == "zeros" else None for _ in range(16)]
        elif kind == "deque":
            self.q = deque([0] * 16 if init == "zeros" else [])
        else:
            assert init == "empty"
            self.items = []
            self.capacity = 16 if kind == "fill" else block_words

    def entries(self) -> list:
        """(index, value) of every valid entry, lowest index first."""
        if self.kind == "fifo":
            return [(i, v) for i, v in enumerate(self.slots) if v is not None]
        if self.kind == "deque":
            return list(enumerate(self.q))
        return list(enumerate(self.items))

    def push(self, w: int) -> None:
        if self.kind == "fifo":
            self.slots[self.wp] = w
            self.wp = (self.wp + 1) % 16
        elif self.kind == "deque":
            self.q.append(w)
            if len(self.q) > 16:
                self.q.popleft()
        elif len(self.items) < self.capacity:
            self.items.append(w)


def choose(w: int, entries: list, style: str = "best"):
    """(code, index) of word w against the entries."""
    if w == 0:
        return "zzzz", None
    if style == "first":
        if upper(w, 24) == 0:
            return "zzzx", None
        for idx, e in entries:
            if upper(w, 16) == upper(e, 16):
                if w == e:
                    return "mmmm", idx
                return ("mmmx" if upper(w, 24) == upper(e, 24) else "mmxx"), idx
        return "xxxx", None
    for code in ORDER:
        if code == "zzzx" and upper(w, 24) == 0:
            return "zzzx", None
        if code in MATCH_BITS:
            for idx, e in entries:
                if upper(w, MATCH_BITS[code]) == upper(e, MATCH_BITS[code]):
                    return code, idx
    return "xxxx", None


class CPackOracle:
    """C-Pack over blocks in order; a persistent dictionary survives between blocks."""

    def __init__(self, preset: str = "paper", style: str = "best", **overrides):
        self.opts = {**PRESETS[preset], **overrides}
        self.style = style
        self.state = None

    def trace(self, block: bytes) -> list:
        """[(code, index, word)] of one block; updates the persistent dictionary."""
        o = self.opts
        ws = words(bytes(block), o["endian"])
        d = (
            self.state
            if (o["persistent"] and self.state is not None)
            else Dictionary(o["dictionary"], o["init"], len(ws))
        )
        out = []
        for w in ws:
            code, idx = choose(w, d.entries(), self.style)
            out.append((code, idx, w))
            if code in PUSH[o["push"]]:
                d.push(w)
        if o["persistent"]:
            self.state = d
        return out

    def size(self, block: bytes) -> dict:
        t = self.trace(block)
        meta = sum(len(CODES[c][0]) for c, _, _ in t)
        payload = sum(CODES[c][1] for c, _, _ in t)
        return {"mode": 0, "payload": payload, "meta": meta, "header": 0, "tag": 0}


def cpack_sizes(blocks, preset: str = "paper", style: str = "best", **overrides) -> list:
    """Size records of the rows of an (n, B) array, in order (stateful presets carry over)."""
    o = CPackOracle(preset, style, **overrides)
    return [o.size(bytes(b)) for b in blocks]


def stream_bits(trace: list) -> str:
    """The expected bitstream of a trace, as a '0'/'1' string (SPEC 0.3: MSB first)."""
    s = []
    for code, idx, w in trace:
        s.append(CODES[code][0])
        if idx is not None:
            s.append(format(idx, "04b"))
        low = {"xxxx": 32, "mmxx": 16, "zzzx": 8, "mmmx": 8}.get(code, 0)
        if low:
            s.append(format(w & ((1 << low) - 1), f"0{low}b"))
    return "".join(s)


def parse_stream(bits: str, n_words: int) -> list:
    """[(code, index, low field)] read back from a '0'/'1' string."""
    names = {v[0]: k for k, v in CODES.items()}
    out, p = [], 0
    for _ in range(n_words):
        prefix = bits[p : p + 2]
        if prefix == "11":
            prefix = bits[p : p + 4]
        code = names[prefix]
        p += len(prefix)
        idx = None
        if code in MATCH_BITS:
            idx = int(bits[p : p + 4], 2)
            p += 4
        low = {"xxxx": 32, "mmxx": 16, "zzzx": 8, "mmmx": 8}.get(code, 0)
        field = int(bits[p : p + low], 2) if low else 0
        p += low
        out.append((code, idx, field))
    assert p == len(bits), (p, len(bits))
    return out


def to_bits(data: bytes, nbits: int) -> str:
    return "".join(format(b, "08b") for b in data)[:nbits]
