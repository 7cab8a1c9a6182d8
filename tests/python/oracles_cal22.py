"""Plain-Python readings of the MPC authors' compressor tool (scalable-arch/CAL_22-MPC,
src/compressor/{BDI,BPC,SC2,FPC,CPACK}.cpp), line by line in its own terms: per-line sizes in
bits, as its CompressLine returns them. Written from the tool's rules, independently of the C++
presets they check (bdi.cal22, bpc.cal22, sc2.cal22, fpc.cal22, cpack.cal22)."""

import struct

M64 = (1 << 64) - 1


# ------------------------------------------------------------------------------------------- BDI
def _reduce_sign(x):
    """reduceSign: x unchanged if bit 63 is clear; else the bits up to one above the highest zero bit
    (x = all ones has no zero bit and stays all ones)."""
    if not x >> 63:
        return x
    for i in range(62, -1, -1):
        if not (x >> i) & 1:
            return x & (M64 >> (63 - (i + 1)))
    return x


def _check_bdi(line, k, d):
    limit = (1 << (8 * d)) - 1
    n = len(line) // k
    vals = [int.from_bytes(line[i * k : (i + 1) * k], "little") for i in range(n)]
    mask = [_reduce_sign(v) <= limit for v in vals]
    m = sum(mask)
    base, base_idx = 0, 0
    for i in range(n):
        if not mask[i]:
            base, base_idx = vals[i], i
            break
    not_all = any(not mask[i] and _reduce_sign((base - vals[i]) & M64) > limit for i in range(base_idx + 1, n))
    if not_all:
        return n + 8 * (m * d + (n - m) * k)
    return n + 8 * (k + (n - 1) * d)


def bdi(line):
    line = bytes(line)
    best = 8 * len(line)
    if not any(line):
        best = 8
    elif all(line[i : i + 8] == line[:8] for i in range(0, len(line), 8)):
        best = 64
    else:
        for k, d in ((8, 1), (8, 2), (8, 4), (4, 1), (4, 2), (2, 1)):
            c = _check_bdi(line, k, d)
            if c < best:
                best = c
    return best + 4


# ------------------------------------------------------------------------------------------- BPC
def _bits(x, n):
    return [(x >> j) & 1 for j in range(n)]


def bpc(line):
    words = [struct.unpack_from("<I", bytes(line), i)[0] for i in range(0, len(line), 4)]  # zero-extended
    deltas = [words[r] - words[r - 1] for r in range(1, len(words))]
    dbp, dbx, prev = {}, {}, None
    for col in range(32, -1, -1):
        buf = 0
        for row in range(len(deltas) - 1, -1, -1):
            buf = (buf << 1) | ((deltas[row] >> col) & 1)  # Python >> is arithmetic, like int64
        dbp[col] = buf
        dbx[col] = buf if col == 32 else buf ^ prev
        prev = buf
    size = 7  # encodeFirst: `if (base = 0)` assigns 0, then 0 is sign-extended in 4 bits
    run = 0
    for i in range(32, -1, -1):
        if dbx[i] == 0:
            run += 1
            continue
        if run:
            size += 3 if run == 1 else 7
        run = 0
        ones = bin(dbx[i] & 0xFFFFFFFF).count("1")
        pos = [j for j in range(32) if (dbx[i] >> j) & 1]
        if dbp[i] == 0 or dbx[i] == 0x7FFFFFFF:
            size += 5
        elif ones == 1 or (ones == 2 and pos[1] - pos[0] == 1):
            size += 10
        else:
            size += 32
    if run:
        size += 3 if run == 1 else 7
    return size


# ------------------------------------------------------------------------------------------- SC2
def sc2_sample_lines(n):
    return min(n, max(10000, min(n // 100, 1000000)))


def sc2_lengths(lines, capacity=1000):
    """Code length per word of the tool's table, fitted on `lines`."""
    freq = {}
    for line in lines:
        for w in struct.unpack("<%dI" % (len(line) // 4), bytes(line)):
            freq[w] = freq.get(w, 0) + 1
    if len(freq) > capacity:  # erase the least frequent, smaller words first among equal counts
        for sym, _ in sorted(freq.items(), key=lambda kv: (kv[1], kv[0])):
            del freq[sym]
            if len(freq) <= capacity:
                break
    # the tool's array min-heap over nodes [weight, symbol or None, left, right]
    heap = [[f, s, None, None] for s, f in sorted(freq.items())]
    size = len(heap)

    def heapify(i):
        while True:
            m, left, r = i, 2 * i + 1, 2 * i + 2
            if left <= size - 1 and heap[left][0] < heap[m][0]:
                m = left
            if r <= size - 1 and heap[r][0] < heap[m][0]:
                m = r
            if m == i:
                return
            heap[i], heap[m] = heap[m], heap[i]
            i = m

    for i in range(size // 2 - 1, -1, -1):
        heapify(i)
    while size > 1:
        out = []
        for _ in range(2):
            out.append(heap[0])
            heap[0], heap[size - 1] = heap[size - 1], heap[0]
            size -= 1
            heapify(0)
        node = [out[0][0] + out[1][0], None, out[0], out[1]]
        if size < len(heap):
            heap[size] = node
        else:
            heap.append(node)
        size += 1
        i = size - 1
        while i > 0 and heap[(i + 1) // 2 - 1][0] > heap[i][0]:  # parent = ceil(i/2) - 1
            j = (i + 1) // 2 - 1
            heap[i], heap[j] = heap[j], heap[i]
            i = j
    lengths = {}

    def walk(node, depth):
        if node[2] is None:
            lengths[node[1]] = depth
            return
        walk(node[2], depth + 1)
        walk(node[3], depth + 1)

    walk(heap[0], 0)
    return lengths


def sc2(line, lengths):
    return sum(lengths.get(w, 33) for w in struct.unpack("<%dI" % (len(line) // 4), bytes(line)))


# ------------------------------------------------------------------------------------------- FPC
def _se(v, bits):
    v = v - (1 << 32) if v >> 31 else v
    return -(1 << (bits - 1)) <= v < (1 << (bits - 1))


def fpc(line):
    words = list(struct.unpack("<%dI" % (len(line) // 4), bytes(line)))
    size, i = 0, 0
    while i < len(words):
        w = words[i]
        if w == 0:
            while i < len(words) and words[i] == 0:  # one token per maximal run
                i += 1
            size += 6
            continue
        if _se(w, 4):
            size += 7
        elif _se(w, 8):
            size += 11
        elif _se(w, 16) or w & 0xFFFF == 0 or (w & 0xFF80FF80) in (0, 0xFF800000, 0x0000FF80, 0xFF80FF80):
            size += 19
        elif len({(w >> s) & 0xFF for s in (0, 8, 16, 24)}) == 1:
            size += 11
        else:
            size += 35
        i += 1
    return size


# ------------------------------------------------------------------------------------------- CPACK
class CPack:
    """The tool's stateful C-Pack: memory-order bytes, a 16-entry FIFO of zeros kept across lines,
    pushed on xxxx only; the first entry (oldest first) matching bytes 0-1 decides the code."""

    def __init__(self):
        self.dict = [bytes(4)] * 16

    def line(self, line):
        size = 0
        b = bytes(line)
        for i in range(0, len(b), 4):
            w = b[i : i + 4]
            if w[:3] == bytes(3):
                size += 2 if w[3] == 0 else 12
                continue
            for e in self.dict:
                if e[:2] == w[:2]:
                    size += 6 if e == w else 16 if e[:3] == w[:3] else 24
                    break
            else:
                size += 34
                self.dict = self.dict[1:] + [w]
        return size
