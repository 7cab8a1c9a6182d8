"""Plain-Python readings of NAP64's compression plugins (NAP64/Memory-Compression-Measurements-Open
@eefc809: include/bdi.h, include/cpack.h, include/bpc.h and their wrappers src/compression/*.c),
line by line in the tools' own terms: per-line sizes in bits as the plugins report them, capped
(NAP64's default, parse_switch on) or not (-p). Written from the C source, independently of the
C++ presets they check (bdi.nap64, cpack.nap64, bpc.nap64)."""

M = {1: 0xFF, 2: 0xFFFF, 4: 0xFFFFFFFF, 8: (1 << 64) - 1}


# ------------------------------------------------------------------------------------------- BDI
def _elems(line, k, big):
    """norm (little-endian) or endian (big-endian) of every k-byte element (bdi.h:17-33)."""
    return [int.from_bytes(line[i : i + k], "big" if big else "little") for i in range(0, 64, k)]


def _min_base(v):
    return min(v)


def _imm_base(v, lim, sel=None):
    """bdi.h:119-160: start from element 0; element i >= 1 whose selector exceeds lim replaces
    the base unless the base is above lim and smaller (sel: the b4d2i big-endian slip, 150-151)."""
    sel = v if sel is None else sel
    b = v[0]
    for i in range(1, len(v)):
        if sel[i] > lim:
            b = b if (b < v[i] and b > lim) else v[i]
    return b


def _fits(v, k, d, imm, base):
    lim = M[d]
    if imm and base == 0:  # `if (!!B8D1i)`: a zero base reads as "does not fit"
        return False
    for x in v:
        if imm and x <= lim:
            continue
        if ((x - base) & M[k]) > lim:
            return False
    return True


def bdi_bytes(line):
    """bdiCompressData's return value (bytes) for a 64 B line, with its mode name."""
    line = bytes(line)
    assert len(line) == 64
    if not any(line):
        return 1, "zeros"
    for k, size in ((1, 2), (2, 3), (4, 5), (8, 9)):  # R1, R2, R4, R8 (175-198)
        if all(line[i : i + k] == line[:k] for i in range(0, 64, k)):
            return size, f"rep{k}"
    # bdi.h:242-361, in order: (k, d, immediates, big-endian, bytes); the big-endian b2d1 and
    # b2d1i are guarded by tB8D2 / tB8D2i there (308, 338), which never hold by then.
    order = [
        (8, 1, 0, 0, 17), (8, 1, 0, 1, 17), (8, 1, 1, 0, 18), (8, 1, 1, 1, 18),
        (4, 1, 0, 0, 21), (4, 1, 0, 1, 21), (4, 1, 1, 0, 23), (4, 1, 1, 1, 23),
        (8, 2, 0, 0, 25), (8, 2, 0, 1, 25), (8, 2, 1, 0, 27), (8, 2, 1, 1, 27),
        (2, 1, 0, 0, 35),
        (4, 2, 0, 0, 37), (4, 2, 0, 1, 37), (4, 2, 1, 0, 39), (4, 2, 1, 1, 39), (2, 1, 1, 0, 39),
        (8, 4, 0, 0, 41), (8, 4, 0, 1, 41), (8, 4, 1, 0, 42), (8, 4, 1, 1, 42),
    ]  # fmt: skip
    for k, d, imm, big, size in order:
        v = _elems(line, k, big)
        if imm:
            sel = _elems(line, k, False) if (k, d, big) == (4, 2, 1) else None
            base = _imm_base(v, M[d], sel)
        else:
            base = _min_base(v)
        if _fits(v, k, d, imm, base):
            return size, f"b{k}d{d}{'i' if imm else ''}{'.be' if big else ''}"
    return 64, "raw"


def bdi(line, capped=True):
    """bdi.c:29-32: bytes, capped at 64 with parse_switch, times 8."""
    s, _ = bdi_bytes(line)
    return 8 * (min(s, 64) if capped else s)


# ----------------------------------------------------------------------------------------- CPACK
def cpack(line, capped=True):
    """cpack_compress (cpack.h:64-136) on a 64 B line, capped at 512 bits (cpack.c:30-31)."""
    line = bytes(line)
    bits, dic = 0, []
    for i in range(16):
        a, b, c, d = line[4 * i : 4 * i + 4]
        if a == 0 and b == 0 and c == 0:
            bits += 2 if d == 0 else 4 + 8  # zzzz 00, zzzx 1101 B
            continue
        for e in dic:  # the first entry whose a, b match
            if (a, b) == e[:2]:
                bits += (2 + 4) if (c, d) == e[2:] else (4 + 4 + 8) if c == e[2] else (4 + 4 + 16)
                break
        else:
            bits += 2 + 32
            dic.append((a, b, c, d))
    return min(bits, 512) if capped else bits


# ------------------------------------------------------------------------------------------- BPC
def bpc(line, capped=True):
    """bpcCompressData (bpc.h:58-174) on a 128 B line of 32 little-endian words, capped at 1024
    bits (bpc.c:46-47)."""
    line = bytes(line)
    w = [int.from_bytes(line[i : i + 4], "little") for i in range(0, 128, 4)]
    delta = [(w[i] - w[i - 1]) & M[4] for i in range(1, 32)]
    plane = [sum(((delta[j] >> i) & 1) << j for j in range(31)) for i in range(32)]
    plane.append(sum(1 << (i - 1) for i in range(1, 32) if w[i] < w[i - 1]))  # unsigned compare
    base = w[0]
    if base == 0:
        bits = 3
    elif not (0xFFFFFFF8 & base) or not (0xFFFFFFF8 & ~base):
        bits = 3 + 4
    elif not (0xFFFFFF80 & base) or not (0xFFFFFF80 & ~base):
        bits = 3 + 8
    elif not (0xFFFF8000 & base) or not (0xFFFF8000 & ~base):
        bits = 3 + 16
    else:
        bits = 1 + 32
    zeros = 0
    for i in range(32, -1, -1):
        dbx = plane[32] if i == 32 else plane[i + 1] ^ plane[i]
        if dbx == 0:
            zeros += 1
            continue
        bits += 0 if zeros == 0 else 3 if zeros == 1 else 2 + 5
        zeros = 0
        single = any(dbx == 1 << j for j in range(32))
        pair = any(dbx == 3 << j for j in range(31))
        if single or pair:  # tested before all ones and DBP zero (126-148)
            bits += 5 + 5
        elif dbx == 0x7FFFFFFF or plane[i] == 0:
            bits += 5
        else:
            bits += 1 + 31
    bits += 0 if zeros == 0 else 3 if zeros == 1 else 2 + 5
    return min(bits, 1024) if capped else bits
