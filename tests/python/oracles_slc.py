"""Plain-Python SLC decisions (SPEC 1.11; P4 §III-B..G) from per-symbol code bits: what the codec
must write, found by trying every candidate node (brute force, no shortcuts)."""

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


def plan(costs, B, *, sl=16, pdw=4, mag=32, threshold=16, variant="opt", compact=False, approximable=True):
    """{mode: raw|lossless|lossy, bits, header, ss, len} of a block whose symbols cost `costs`."""
    n = len(costs)
    segs = [costs[k * n // pdw : (k + 1) * n // pdw] for k in range(pdw)]
    ss_bits = math.ceil(math.log2(n))
    head = 0 if threshold == 0 else 1 + (0 if compact else ss_bits + 4)
    comp, header = layout_bits([sum(s) for s in segs], B, head, pdw)
    if comp > 8 * B:
        return {"mode": "raw", "bits": 8 * B}
    if threshold and approximable and comp >= 8 * mag:
        budget = comp // (8 * mag) * 8 * mag
        extra = comp - budget
        if 0 < extra <= 8 * threshold:
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
                if bits <= budget:
                    feasible.append((span, ss, bits, hb))
            if feasible:
                span, ss, bits, hb = min(feasible)
                return {"mode": "lossy", "bits": bits, "header": hb, "ss": ss, "len": span, "budget": budget}
    fits = comp <= 8 * (B - mag) if 2 * mag <= B else comp < 8 * B
    if not fits:
        return {"mode": "raw", "bits": 8 * B}
    return {"mode": "lossless", "bits": comp, "header": header}
