"""Plain-NumPy reference of mpc.guess_dtype (the rules in ratio_entropy.hpp), vectorised over blocks."""

import numpy as np

MIN_SAVING = 24


def _bitlen(x):
    x = x.astype(np.uint64)
    n = np.zeros(x.shape, np.int64)
    for k in (32, 16, 8, 4, 2, 1):
        big = (x >> np.uint64(k)) != 0
        n += np.where(big, k, 0)
        x = np.where(big, x >> np.uint64(k), x)
    return n + (x != 0)


def _sbits(v):
    v = v.astype(np.int64)
    return _bitlen(np.where(v < 0, ~v, v).astype(np.uint64)) + 1


def _unsigned(b, w):
    return b.view({1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}[w]).astype(np.uint64)


def _signed(b, w):
    return b.view({1: "<i1", 2: "<i2", 4: "<i4", 8: "<i8"}[w]).astype(np.int64)


def _wrap(d, w):
    if w == 8:
        return d
    bits = 8 * w
    d = d & ((1 << bits) - 1)
    return np.where(d >= 1 << (bits - 1), d - (1 << bits), d)


def _structured(nz, w):
    out = np.zeros(nz.shape[0], bool)
    n = nz.shape[1]
    k = 2
    while k * w <= 8:
        res = nz.reshape(nz.shape[0], n // k, k).any(axis=1)
        out |= (res.sum(axis=1) == 1) & (nz.sum(axis=1) == n // k)
        k *= 2
    return out


NONE = 1 << 20


def integer_bits(b, w, strides):
    v = _signed(b, w)
    n = v.shape[1]
    sb = _sbits(v)
    nz = v != 0
    best = n * sb.max(axis=1)
    sparse = n + nz.sum(axis=1) * np.where(nz, sb, 0).max(axis=1)
    best = np.minimum(best, np.where(_structured(nz, w), NONE, sparse))
    with np.errstate(over="ignore"):
        for s in strides:
            d = _wrap(v[:, s:] - v[:, :-s], w)
            best = np.minimum(best, 8 * w * s + (n - s) * _sbits(d).max(axis=1))
    return best


def float_bits(b, E, M):
    w = (1 + E + M) // 8
    u = _unsigned(b, w)
    n = u.shape[1]
    sign = (u >> np.uint64(E + M)).astype(np.int64)
    e = ((u >> np.uint64(M)) & np.uint64((1 << E) - 1)).astype(np.int64)
    m = u & np.uint64((1 << M) - 1)
    zero = (e == 0) & (m == 0)
    nz = ~zero
    count = nz.sum(axis=1)
    emax = np.where(nz, e, -1).max(axis=1)
    emin = np.where(nz, e, 1 << 20).min(axis=1)
    ebits = _bitlen(np.maximum(emax - emin, 0))  # ceil(log2(range))
    low = m & (~m + np.uint64(1))
    tz = np.where(nz & (m != 0), _bitlen(low) - 1, M).min(axis=1)
    mixed = (np.where(nz, sign, 0).max(axis=1) != np.where(nz, sign, 1).min(axis=1)).astype(np.int64)
    bits = np.where(zero.any(axis=1), n, 0) + count * (mixed + ebits + M - tz)
    bits = np.where(zero.any(axis=1) & _structured(nz, w), NONE, bits)
    return np.where(count == 0, 0, bits)


def _mostly_floats(b, w, top):
    u = _unsigned(b, w)
    hi = u >> np.uint64(8 * w - top)
    intlike = ((hi == 0) | (hi == np.uint64((1 << top) - 1))) & (u != 0)
    return 2 * intlike.sum(axis=1) <= (u != 0).sum(axis=1)


def width_bits(b):
    """(n, 4) bits of the shortest description at 1, 2, 4 and 8 bytes per element."""
    return np.stack(
        [
            integer_bits(b, 1, (1, 3, 4)),
            np.minimum.reduce([integer_bits(b, 2, (1, 2)), float_bits(b, 5, 10), float_bits(b, 8, 7)]),
            np.minimum(integer_bits(b, 4, (1,)), float_bits(b, 8, 23)),
            np.minimum(integer_bits(b, 8, (1,)), float_bits(b, 11, 52)),
        ],
        1,
    )


def guess_dtype(b):
    bits = width_bits(b)
    ok = bits + MIN_SAVING <= 256
    width = np.where(ok, bits, NONE).argmin(axis=1)  # first minimum: the narrower width
    group = np.array([0, 1, 2, 2])[width]
    group = np.where((width == 2) & _mostly_floats(b, 4, 9), 3, group)
    group = np.where((width == 3) & _mostly_floats(b, 8, 12), 4, group)
    return np.where(ok.any(axis=1) & b.any(axis=1), group, 0)
