"""Best-of hybrids (SPEC 1.15): per-block selection with the selector counted."""

import numpy as np
import pytest

import memcomp
from blockgen import all_kinds, realistic


@pytest.mark.parametrize("block_bytes", [16, 32, 128])
def test_bdi_fpc_is_per_block_min_plus_one_bit(block_bytes):
    blocks = all_kinds(block_bytes)
    best = memcomp.get_codec("bestof.bdi_fpc").measure(blocks)
    bdi = memcomp.get_codec("bdi").measure(blocks).size_bits.astype(np.int64)
    fpc = memcomp.get_codec("fpc").measure(blocks).size_bits.astype(np.int64)
    assert np.array_equal(best.size_bits, np.minimum(bdi, fpc) + 1)
    assert np.array_equal(best.mode >> 8, (fpc < bdi).astype(np.int16))
    assert np.array_equal(best.header_bits - 1, np.where(fpc < bdi, 0, 0))


@pytest.mark.parametrize("key", ["bits", "mag", "pow2"])
@pytest.mark.parametrize("selector", ["inband", "tag"])
def test_keys_and_selectors_roundtrip(key, selector):
    blocks = all_kinds(64)
    c = memcomp.get_codec("bestof", members=["zca", "bdi.kim", "fpc", "zrep"], key=key, selector=selector)
    s = c.measure(blocks)
    enc = c.encode(blocks)
    assert np.array_equal(enc.bit_lengths, s.size_bits)
    assert np.array_equal(c.decode(enc), blocks)
    members = [
        memcomp.get_codec(n).measure(blocks).size_bits.astype(np.int64) for n in ("zca", "bdi.kim", "fpc", "zrep")
    ]
    policy = {"bits": "none", "mag": "mag(32)", "pow2": "pow2"}[key]
    keys = np.stack([memcomp.charge(m.astype(np.uint32), 64, policy).astype(np.int64) for m in members])
    if key == "pow2":
        keys = -(64 * 8 // keys)  # larger factor first
    winner = keys.argmin(axis=0)
    assert np.array_equal(s.mode >> 8, winner)
    chosen = np.stack(members)[winner, np.arange(len(blocks))]
    assert np.array_equal(s.size_bits, chosen + (2 if selector == "inband" else 0))


def test_fitted_member_and_config_roundtrip():
    blocks = realistic(32, 1 << 18)
    fvc = memcomp.get_codec("fvc").fit(blocks)
    c = memcomp.get_codec("bestof", members=["bdi", fvc])
    assert not c.requires_fit and c.exact
    assert memcomp.Codec.from_config(c.get_config()) == c
    assert np.array_equal(c.decode(c.encode(blocks)), blocks)
    with pytest.raises(ValueError, match="has no model"):
        memcomp.get_codec("bestof", members=["bdi", "fvc"]).measure(blocks)


def test_bestof_is_exact_only_if_all_members_are():
    assert memcomp.get_codec("bestof", members=["bdi", "fpc.cmu"]).exact is False
    with pytest.raises(ValueError, match="unknown codec"):
        memcomp.get_codec("bestof", members=["bdi", "nope"])
    with pytest.raises(TypeError):
        memcomp.get_codec("bestof", members=["bdi", 3])


def test_compare_reports_member_wins():
    blocks = realistic(32, 1 << 18)
    df = memcomp.breakdown(blocks, ["bestof.bdi_fpc"])
    by_member = df.groupby(df["mode_name"].str.split(":").str[0])["blocks"].sum()
    s = memcomp.get_codec("bestof.bdi_fpc").measure(blocks)
    assert by_member.get("fpc.paper", 0) == int((s.mode >> 8 == 1).sum())
    assert by_member.sum() == len(blocks)


def test_hycomp_fits_its_sc2_member():
    blocks = realistic(128, 1 << 17)
    h = memcomp.get_codec("bestof.hycomp")
    assert h.requires_fit and h.exact
    f = h.fit(blocks)
    assert not f.requires_fit and f.name == "bestof.hycomp"
    sc2 = memcomp.get_codec("sc2").fit(blocks)
    members = [memcomp.get_codec("zrep").measure(blocks), memcomp.get_codec("bdi").measure(blocks), sc2.measure(blocks)]
    best = np.min(np.stack([m.size_bits.astype(np.int64) for m in members]), axis=0)
    assert np.array_equal(f.measure(blocks).size_bits, best + 2)  # 2-bit selector for 3 members
    assert np.array_equal(f.decode(f.encode(blocks)), blocks)
    assert memcomp.Codec.from_config(f.get_config()) == f


# ------------------------------------------------------------------ every member pair, every selector


def _exact_members(block_bytes):
    """Every exact, stateless preset defined for the block size, data-driven ones fitted."""
    train = realistic(block_bytes, 1 << 16)
    out = []
    for name in memcomp.codec_names():
        c = memcomp.get_codec(name)
        if not c.exact or c.lossy or c.stateful or c.codec_id == "bestof" or not c.supports(block_bytes):
            continue
        out.append(c.fit(memcomp.sectorize(train, 32) if c.codec_id == "mpc" else train) if c.requires_fit else c)
    return out


@pytest.mark.parametrize("block_bytes", [32, 128])
def test_every_member_pair_roundtrips(block_bytes):
    """A member's stream is the same wherever the hybrid starts it (after an in-band selector of
    any length): measure == encode and decode(encode(x)) == x for every ordered pair of exact
    members, with the selector in-band and in the tags."""
    members = _exact_members(block_bytes)
    assert {"e2mc", "sc2", "bdi", "fpc"} <= {m.codec_id for m in members}
    blocks = np.concatenate([all_kinds(block_bytes)[::7], realistic(block_bytes, 1 << 15, seed=3)])
    for i, a in enumerate(members):
        for b in members[i + 1 :] + [a]:
            for selector in ("inband", "tag"):
                pair = [b, a] if selector == "tag" else [a, b]
                c = memcomp.get_codec("bestof", members=pair, selector=selector)
                s = c.measure(blocks)
                enc = c.encode(blocks)
                assert np.array_equal(enc.bit_lengths, s.size_bits), (c.name, selector)
                assert np.array_equal(c.decode(enc), blocks), (c.name, selector)


@pytest.mark.parametrize("sel_members", [2, 3, 5, 9])
def test_e2mc_member_after_any_selector_width(sel_members):
    """E2MC's segment pointers and pads are relative to its own start: with 1..4 selector bits in
    front (and SC2 with pdw > 1) the hybrid still decodes what it encodes."""
    blocks = realistic(128, 1 << 16)
    e2mc = memcomp.get_codec("e2mc").fit(blocks)
    sc2 = memcomp.get_codec("sc2", pdw=4, raw=True).fit(blocks)
    members = ["zca"] * (sel_members - 2) + [e2mc, sc2]
    c = memcomp.get_codec("bestof", members=members)
    s = c.measure(blocks)
    enc = c.encode(blocks)
    assert np.array_equal(enc.bit_lengths, s.size_bits)
    assert np.array_equal(c.decode(enc), blocks)
    assert ((s.mode >> 8) >= sel_members - 2).any()  # the Huffman members do win blocks
