"""Plain readings of gem5 v24's cache compressors (src/mem/cache/compressors), for the *.gem5
presets: the size-threshold fallback (base.cc), FPC's patterns (fpc.hh, fpc.cc) and
FrequentValues' value table (frequent_values.cc with lfu_rp.cc and set_associative.cc)."""

SIZE_THRESHOLD_PERCENTAGE = 50  # Compressors.py BaseCacheCompressor


def fallback(bits: int, block_bytes: int) -> int:
    """base.cc Base::compress: a size above sizeThreshold bytes is the whole line."""
    size_threshold = block_bytes * SIZE_THRESHOLD_PERCENTAGE // 100
    return block_bytes * 8 if bits > size_threshold * 8 else bits


def _szext(value: int, n: int) -> int:
    """gem5 base/bitfield.hh szext<N>: the low N bits sign-extended to 64 bits (unsigned)."""
    v = value & ((1 << n) - 1)
    if v >> (n - 1):
        v |= ((1 << 64) - 1) ^ ((1 << n) - 1)
    return v


def _int16(x: int) -> int:
    x &= 0xFFFF
    return x - 0x10000 if x & 0x8000 else x


def fpc_word_bits(w: int) -> int:
    """Bits of one non-zero word: the first FPC pattern whose isPattern holds (fpc.hh Factory)."""
    w &= 0xFFFFFFFF
    for n in (4, 8, 16):  # SignExtendedPattern<N>: data == (uint32_t) szext<N>(data)
        if w == _szext(w, n) & 0xFFFFFFFF:
            return 3 + n
    if w & 0x0000FFFF == 0:  # ZeroPaddedHalfword: MaskedValuePattern<0, 0x0000FFFF>
        return 3 + 16
    # SignExtendedTwoHalfwords: int16_t halfword == (uint16_t) szext<8>(halfword), both promoted to int
    halves = (_int16(w), _int16(w >> 16))
    if all(h == (_szext(h & ((1 << 64) - 1), 8) & 0xFFFF) for h in halves):
        return 3 + 16
    if len(set(w.to_bytes(4, "little"))) == 1:  # RepBytes
        return 3 + 8
    return 3 + 32  # Uncompressed


def fpc_bits(words, zero_run_bits: int = 3) -> int:
    """FPC size of a line (fpc.cc FPCCompData::addEntry: a run's first zero costs 3 + zero_run_bits,
    the next mask(zero_run_bits) zeros of the run cost 0)."""
    bits, run = 0, None  # run: length of the open zero run minus one, None when none is open
    for w in words:
        if w & 0xFFFFFFFF:
            bits += fpc_word_bits(w)
            run = None
        elif run is None or run == (1 << zero_run_bits) - 1:
            bits += 3 + zero_run_bits
            run = 0
        else:
            run += 1
    return bits


def fvc_table(lines, entries: int = 1024, ways: int = 16, samples: int = 100000) -> list:
    """FrequentValues' VFT after sampling `lines` (lists of 32-bit words) in order: the valid
    values in entry order (set, then way)."""
    sets = entries // ways
    vft = [[None, 0] for _ in range(entries)]  # [value, LFU refCount]
    taken = 0
    for line in lines:
        for v in line:
            set_ = [vft[(v % sets) * ways + k] for k in range(ways)]
            hit = next((e for e in set_ if e[0] == v), None)
            if hit is not None:
                hit[1] += 1  # LFU::touch
                continue
            victim = set_[0]
            for e in set_:  # LFU::getVictim: the first candidate with the smallest count
                if e[1] < victim[1]:
                    victim = e
            victim[0], victim[1] = v, 1  # insertEntry, LFU::reset
        taken += len(line)
        if taken >= samples:  # probeNotify: checked after each line
            break
    return [e[0] for e in vft if e[0] is not None]


def fvc_bits(words, table, entries: int = 1024) -> int:
    """FrequentValues::compress without Huffman: log2(entries) bits a hit, + 32 a miss."""
    code = entries.bit_length() - 1
    values = set(table)
    return sum(code if w in values else code + 32 for w in words)
