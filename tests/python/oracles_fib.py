"""Plain-Python reference for the Fibonacci codec (SPEC 1.14), with bit strings.

Written from the SPEC text, not from the C++ code: the first 32-bit word raw, then for every
later word Fib(zigzag((w_i - w_{i-1}) mod 2^32 as int32) + 1).
"""

from __future__ import annotations

# F[k]: F[1] = F[2] = 1, F[3] = 2, ...
F = [0, 1]
while len(F) < 60:
    F.append(F[-1] + F[-2])


def fib_code(n: int) -> str:
    """Zeckendorf bits of n >= 1 over F2, F3, ... from the lowest term up, then a terminating 1."""
    if n < 1:
        raise ValueError("Fibonacci codes start at 1")
    k = 2
    while F[k + 1] <= n:  # largest term F[k] <= n
        k += 1
    bits = ["0"] * (k - 1)  # coefficients of F2 .. F[k]
    rest = n
    for j in range(k, 1, -1):
        if F[j] <= rest:
            bits[j - 2] = "1"
            rest -= F[j]
    assert rest == 0
    return "".join(bits) + "1"


def fib_value(code: str) -> int:
    """Inverse of fib_code (the trailing terminator is ignored)."""
    assert code.endswith("11")
    return sum(F[t + 2] for t, c in enumerate(code[:-1]) if c == "1")


def fib_length(n: int) -> int:
    """k + 1 where F(k+1) <= n < F(k+2)."""
    k = 1
    while not (F[k + 1] <= n < F[k + 2]):
        k += 1
    return k + 1


def zigzag(r: int) -> int:
    """r: the delta mod 2^32; read as int32 and mapped 0, -1, 1, -2, ... -> 0, 1, 2, 3, ..."""
    r &= 0xFFFFFFFF
    s = r - (1 << 32) if r >> 31 else r
    return 2 * s if s >= 0 else -2 * s - 1


def fib_encode(block, endian: str = "little"):
    """(bits, record) of one block."""
    block = bytes(block)
    w = [int.from_bytes(block[i : i + 4], endian) for i in range(0, len(block), 4)]
    parts = [format(w[0], "032b")] + [fib_code(zigzag(w[i] - w[i - 1]) + 1) for i in range(1, len(w))]
    bits = "".join(parts)
    return bits, {"mode": 0, "payload": len(bits), "meta": 0, "header": 0, "tag": 0}


def fib_size(block, endian: str = "little"):
    return fib_encode(block, endian)[1]


def to_bytes(bits: str) -> bytes:
    bits += "0" * (-len(bits) % 8)
    return bytes(int(bits[i : i + 8], 2) for i in range(0, len(bits), 8))
