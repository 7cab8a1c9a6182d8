"""Plain-Python SLC decisions (SPEC 1.11; P4 §III-B..G) from per-symbol code bits: what the codec
must write, found by trying every candidate node (brute force, no shortcuts), and the values a
lossy block decodes to (P4 §III-E)."""

import math


def layout_bits(seg, B, head, pdw):
    """(total bits, header bits) of segments `seg` behind `head` header bits and the pointers."""
    at = head + (pdw - 1) * math.ceil(math.log2(B))
    header = at
    for k, s in enumerate(seg):
        if k:
            aligned = -(-at // 8) * 8
            header += aligned - at
            at = aligned
        at += s
    return at, header


def nodes(n, variant):
    """Every candidate node (span, start) of the variant's tree."""
    spans = [1, 2, 4, 8, 16] + ([6, 12] if variant == "opt" else [])
    out = []
    for span in spans:
        step = {6: 8, 12: 16}.get(span, span)
        out += [(span, ss) for ss in range(0, n - span + 1, step)]
    return out


def bursts(bits, B, mag, *, raw_rule=True):
    """MAG bursts a stream of `bits` takes; B / MAG when E2MC's raw rule stores it raw."""
    fits = bits <= 8 * (B - mag) if 2 * mag <= B else bits < 8 * B
    return max(1, -(-bits // (8 * mag))) if fits or not raw_rule else -(-B // mag)


def plan(
    costs,
    B,
    *,
    sl=16,
    pdw=4,
    mag=32,
    threshold=16,
    variant="opt",
    compact=False,
    approximable=True,
    budget="gain",
):
    """{mode: raw|lossless|lossy, bits, header, ss, len} of a block whose symbols cost `costs`.
    budget: "stream" (comp = the lossless SLC stream's bits), "gain" (the same, lossy only when the
    budget is fewer bursts than E2MC's stream, 21-bit header, takes) or "codes" (comp = the sum of
    the code bits; the first node is taken and charged what its stream takes)."""
    n = len(costs)
    segs = [costs[k * n // pdw : (k + 1) * n // pdw] for k in range(pdw)]
    ss_bits = math.ceil(math.log2(n))
    head = 0 if threshold == 0 else 1 + (0 if compact else ss_bits + 4)
    stream, header = layout_bits([sum(s) for s in segs], B, head, pdw)
    comp = sum(costs) if budget == "codes" else stream
    if comp > 8 * B:
        return {"mode": "raw", "bits": 8 * B}
    if threshold and approximable and comp >= 8 * mag:
        budget_bits = comp // (8 * mag) * 8 * mag
        extra = comp - budget_bits
        e2mc = bursts(layout_bits([sum(s) for s in segs], B, 0, pdw)[0], B, mag)
        if 0 < extra <= 8 * threshold and (budget != "gain" or budget_bits // (8 * mag) < e2mc):
            feasible = []
            for span, ss in nodes(n, variant):
                if sum(costs[ss : ss + span]) < extra:
                    continue
                seg = [
                    sum(
                        c
                        for i, c in enumerate(costs)
                        if k * n // pdw <= i < (k + 1) * n // pdw and not ss <= i < ss + span
                    )
                    for k in range(pdw)
                ]
                bits, hb = layout_bits(seg, B, 1 + ss_bits + 4, pdw)
                if bits <= budget_bits or budget == "codes":
                    feasible.append((span, ss, bits, hb))
            if feasible:
                span, ss, bits, hb = min(feasible)
                fits = bits <= 8 * (B - mag) if 2 * mag <= B else bits < 8 * B
                if fits:
                    return {"mode": "lossy", "bits": bits, "header": hb, "ss": ss, "len": span, "budget": budget_bits}
    fits = stream <= 8 * (B - mag) if 2 * mag <= B else stream < 8 * B
    if not fits:
        return {"mode": "raw", "bits": 8 * B}
    return {"mode": "lossless", "bits": stream, "header": header}


def predict(symbols, ss, length, *, sl=16, variant="opt", how="word"):
    """The symbols a lossy block decodes to (P4 §III-E): the run [ss, ss + length) is 0 (`simp`),
    or copied from kept values, never from the run: how="word" takes the first whole 32-bit word
    kept (word 0 if the run starts at or after its end, else the first whole word after the run),
    symbol i taking the symbol at its place in that word; how="symbol" takes P4's "first
    non-truncated symbol of the block" (symbol 0 if ss > 0, else symbol ss + length)."""
    out = list(symbols)
    per = 32 // sl if sl < 32 else 1
    run = range(ss, ss + length)
    if how == "word":
        first = 0 if ss >= per else -(-(ss + length) // per) * per
        src = {i: first + i % per for i in run}
    else:
        src = {i: 0 if ss > 0 else ss + length for i in run}
    for i in run:
        s = src[i]
        assert variant == "simp" or s >= len(out) or s not in run, "a prediction from a truncated symbol"
        out[i] = 0 if variant == "simp" or s >= len(out) else symbols[s]
    return out
