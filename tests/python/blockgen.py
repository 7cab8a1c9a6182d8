"""Test blocks shared by the Python suites: random, adversarial and realistic, for any size."""

from __future__ import annotations

import numpy as np

from memcomp import as_blocks, workloads


def adversarial(block_bytes: int, seed: int = 0) -> np.ndarray:
    """Zero, all-ones, repeated, narrow, delta-boundary, FP-like, sparse and random blocks."""
    B = block_bytes
    rng = np.random.default_rng(seed)
    out = [np.zeros(B, np.uint8), np.full(B, 0xFF, np.uint8)]
    for dt in (np.uint8, np.uint16, np.uint32, np.uint64):
        k = np.dtype(dt).itemsize
        n = B // k
        out.append(np.full(n, 0x8123456789ABCDEF & ((1 << (8 * k)) - 1), dt).view(np.uint8))
        for step in (1, -1, 3, 127, -128, 128, -129, 255, 256, 32767, -32768, 32768, 2**31 - 1, -(2**31)):
            i = np.arange(n, dtype=object)
            for base in (0, 0x1122334455667788):
                vals = [(base + step * int(x)) % (1 << (8 * k)) for x in i]
                out.append(np.array(vals, dtype=object).astype(dt).view(np.uint8))
            alt = [(step if x % 2 else -step) % (1 << (8 * k)) for x in i]
            out.append(np.array(alt, dtype=object).astype(dt).view(np.uint8))
    for p in range(B):
        b = np.zeros(B, np.uint8)
        b[p] = 0x80
        out.append(b)
    f = np.where(np.arange(B // 4) % 3 == 0, 0.0, 1.0 + 0.01 * np.arange(B // 4)).astype(np.float32)
    out.append(f.view(np.uint8))
    for bits in (4, 8, 16, 24, 32):
        v = rng.integers(-(2 ** (bits - 1)), 2 ** (bits - 1), B // 4, dtype=np.int64).astype(np.int32)
        out.append(v.view(np.uint8))
    for kind in range(4):
        for _ in range(25):
            r = rng.integers(0, 256, B, dtype=np.uint8)
            if kind == 1:
                r = np.where(rng.random(B) < 0.3, r, 0).astype(np.uint8)
            elif kind == 2:
                r = np.where(r & 1, 0xFF, 0).astype(np.uint8)
            elif kind == 3:
                r = (r % 5).astype(np.uint8)
            out.append(r)
    return np.ascontiguousarray(np.stack(out))


def realistic(block_bytes: int, n_bytes: int = 1 << 18, seed: int = 0) -> np.ndarray:
    """Blocks of the bundled sample workloads (a mixed dump)."""
    return as_blocks(workloads.sample_dump(n_bytes, seed=seed), block_bytes)


def all_kinds(block_bytes: int) -> np.ndarray:
    return np.ascontiguousarray(np.concatenate([adversarial(block_bytes), realistic(block_bytes)]))
