"""Vectorised NumPy reference for bdi.paper and fpc.paper block sizes.

This is the *speed reference* for the benchmarks: a reasonably tuned pure
NumPy implementation: no Python loop over blocks, only over chunks of
blocks, encodings, and element/word columns (the data is transposed to
element-major per chunk so that per-block reductions become elementwise ops
across rows).  NumPy runs these ops on one core.  It must agree
bit-for-bit with the plain-Python oracles in tests/python/oracles.py
(checked by tests/python/test_oracles.py).

    bits = bdi_paper_bits(blocks)            # (n,) int32 in-band bits
    bits, modes = bdi_paper_bits(blocks, return_mode=True)
    bits = fpc_paper_bits(blocks)            # (n,) int32 in-band bits

``blocks`` is a C-contiguous (n, B) uint8 array, B a multiple of 8 (BDI) or
4 (FPC).  Elements are little-endian (SPEC 0.2) regardless of host order.

Run ``python tests/benchmarks/numpy_reference.py`` for a throughput figure.
"""

from __future__ import annotations

import numpy as np

__all__ = ["bdi_paper_bits", "fpc_paper_bits", "CHUNK_BYTES"]

CHUNK_BYTES = 1 << 19  # bytes of input per chunk: keeps temporaries in L2

# encoding id -> (k, d); SPEC 1.1
_BDELTA = ((2, 8, 1), (3, 8, 2), (4, 8, 4), (5, 4, 1), (6, 4, 2), (7, 2, 1))
_UINT = {2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8")}


def _check(blocks, mult):
    a = np.asarray(blocks)
    if a.dtype != np.uint8 or a.ndim != 2 or not a.flags.c_contiguous:
        raise ValueError("blocks must be a C-contiguous (n, B) uint8 array")
    if a.shape[1] == 0 or a.shape[1] % mult:
        raise ValueError(f"block size must be a positive multiple of {mult}")
    return a


def _bdi_sizes(B):
    """In-band bits of each BkΔd encoding: 8k + 8dn payload + n mask bits."""
    return {enc: 8 * k + 8 * d * (B // k) + B // k for enc, k, d in _BDELTA}


def _fit_T(uT, d):
    """Paper fit test of BkΔd for every block of a TRANSPOSED chunk.

    uT is (n, m): row j holds element j (k-byte unsigned, native order) of each
    of the m blocks.  Working element-major keeps every NumPy op on long
    contiguous rows and turns the per-block reductions into cheap elementwise
    ops across rows."""
    nt = uT.dtype.type
    h = nt(1 << (8 * d - 1))
    lim = nt(1 << (8 * d))
    # a = x + 2^(8d-1) (mod 2^(8k));  sx_k(x) in [-2^(8d-1), 2^(8d-1)-1]  <=>  a < 2^(8d)
    a = uT + h
    nonimm = a >= lim
    n = a.shape[0]
    # base = first non-immediate element (any element if none: all are immediates)
    base = a[n - 1].copy()
    for j in range(n - 2, -1, -1):
        np.copyto(base, a[j], where=nonimm[j])
    # delta test: sx_k(x - base) in range  <=>  (x - base) + h < lim  <=>  a - base_x < lim
    base -= h  # base now holds the base element x itself
    b = a - base
    # every element is an immediate OR within range of the base
    np.minimum(a, b, out=b)
    return b.max(axis=0) < lim


def _fit_pruned(uT, d, prev_fit):
    """Fit of BkΔd restricted to blocks where BkΔd' (d' > d) fits.

    For the paper rule, fit(k, d) implies fit(k, d') for d' > d (the base of d'
    is within 2*2^(8d-1) of the base of d), so blocks failing the wider delta
    cannot fit the narrower one.  Pruning makes random data ~2x faster."""
    m = uT.shape[1]
    idx = np.flatnonzero(prev_fit)
    if idx.size == 0:
        return prev_fit  # all False
    if idx.size > m // 2:
        return _fit_T(uT, d) & prev_fit
    out = np.zeros(m, dtype=bool)
    out[idx] = _fit_T(uT[:, idx], d)
    return out


def bdi_paper_bits(blocks, return_mode=False):
    """Per-block in-band bits (payload + meta) of bdi.paper; optional modes.

    Winner = minimum in-band bits, ties -> lower encoding id, raw (15) only if
    nothing fits (SPEC 1.1).  Implemented as a key bits*16 + id, minimised."""
    a = _check(blocks, 8)
    N, B = a.shape
    size = _bdi_sizes(B)
    key = {enc: np.int32(bits * 16 + enc) for enc, bits in size.items()}
    key[0] = np.int32(8 * 16 + 0)
    key[1] = np.int32(64 * 16 + 1)
    raw_key = np.int32(8 * B * 16 + 15)
    chunk = max(256, CHUNK_BYTES // B)
    out = np.empty(N, dtype=np.int32)
    for s in range(0, N, chunk):
        c = a[s : s + chunk]
        m = c.shape[0]
        fits = {}
        T = {}
        for k in (8, 4, 2):
            v = c.view(_UINT[k])
            if v.dtype.byteorder not in ("=", "|"):  # big-endian host
                v = v.astype(v.dtype.newbyteorder("="))
            T[k] = np.ascontiguousarray(v.T)
        fits[4] = _fit_T(T[8], 4)
        fits[3] = _fit_pruned(T[8], 2, fits[4])
        fits[2] = _fit_pruned(T[8], 1, fits[3])
        fits[6] = _fit_T(T[4], 2)
        fits[5] = _fit_pruned(T[4], 1, fits[6])
        fits[7] = _fit_T(T[2], 1)
        q = T[8]
        rep = q[0] == q[-1]
        for j in range(1, q.shape[0] - 1):
            rep &= q[j] == q[0]
        fits[1] = rep
        fits[0] = rep & (q[0] == 0)
        best = np.full(m, raw_key, dtype=np.int32)
        # descending key order: the last (smallest) fitting candidate wins
        for enc in sorted(fits, key=lambda e: key[e], reverse=True):
            np.copyto(best, key[enc], where=fits[enc])
        out[s : s + chunk] = best
    bits = out >> 4
    if return_mode:
        return bits, (out & 15).astype(np.int16)
    return bits


def fpc_paper_bits(blocks):
    """Per-block in-band bits (payload + prefixes) of fpc.paper (SPEC 1.2)."""
    a = _check(blocks, 4)
    N, B = a.shape
    W = B // 4
    u32, u16, u8 = np.uint32, np.uint16, np.uint8
    chunk = max(256, CHUNK_BYTES // B)
    out = np.empty(N, dtype=np.int32)
    for s in range(0, N, chunk):
        c = a[s : s + chunk]
        m = c.shape[0]
        w = c.view("<u4")
        h = c.view("<u2")
        if w.dtype.byteorder not in ("=", "|"):  # big-endian host
            w, h = w.astype(u32), h.astype(u16)
        w = np.ascontiguousarray(w.T)  # (W, m): word-major
        h = np.ascontiguousarray(h.T)  # (2W, m): even rows = low halves
        z = w == 0
        a7 = (w + u32(8)) < u32(16)  # signed [-8, 7]           (001)
        a11 = (w + u32(128)) < u32(256)  # signed [-128, 127]   (010)
        a11 |= ((w >> u32(8)) | (w << u32(24))) == w  # 4 equal bytes (110)
        a19 = (w + u32(32768)) < u32(65536)  # signed halfword  (011)
        a19 |= (w << u32(16)) == 0  # low halfword zero           (100)
        t = (h + u16(128)) < u16(256)  # halfword as int16 in [-128, 127]
        a19 |= t[0::2] & t[1::2]  # both halves                   (101)
        a19 |= a11
        # For non-zero words the first matching row is also the smallest one,
        # and the rows nest: a7 within a11 within a19.  cost = 35 - 16 a19 - 8 a11 - 4 a7.
        cost = np.full((W, m), 35, dtype=u8)
        cost -= a19.view(u8) << u8(4)
        cost -= a11.view(u8) << u8(3)
        cost -= a7.view(u8) << u8(2)
        cost[z] = 0  # zero words are paid for by their run token
        total = cost.sum(axis=0, dtype=np.int32)
        # zero-run tokens (3-bit prefix + 3-bit length): a run of r zero words
        # needs ceil(r/8) tokens; a token starts at run positions 0, 8, 16, ...
        run = np.zeros(m, dtype=np.int32)
        ntok = np.zeros(m, dtype=np.int32)
        for j in range(W):
            run += 1
            run *= z[j]
            ntok += (run & 7) == 1
        out[s : s + chunk] = total + 6 * ntok
    return out


# ---------------------------------------------------------------------------
def _bench():
    import time

    rng = np.random.default_rng(1)

    def mixed(n, B):
        x = rng.integers(0, 256, size=(n, B), dtype=np.uint8)
        x[0::4] = 0
        y = x[1::4].view("<u4")
        y[:] = rng.integers(-100, 100, size=y.shape).astype(np.int32).view(np.uint32)
        return x

    def fp32(n, B):
        return (rng.normal(0, 1, size=(n, B // 4)).astype("<f4")).view(np.uint8)

    for B in (32, 64, 128):
        n = (64 << 20) // B
        for name, blk in (
            ("random", rng.integers(0, 256, size=(n, B), dtype=np.uint8)),
            ("mixed", mixed(n, B)),
            ("fp32", fp32(n, B)),
        ):
            for fn in (bdi_paper_bits, fpc_paper_bits):
                fn(blk[:4096])
                best = 1e9
                for _ in range(3):
                    t0 = time.perf_counter()
                    fn(blk)
                    best = min(best, time.perf_counter() - t0)
                print(f"{fn.__name__:16s} B={B:3d} {name:6s}: {blk.nbytes / best / 1e9:6.3f} GB/s")


if __name__ == "__main__":
    _bench()
