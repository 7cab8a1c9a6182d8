"""Metrics layer (SPEC 0.6): policies, SizeStats as a mergeable partial result, CR at MAG."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
import oracles as O
from blockgen import realistic
from memcomp.metrics import SizeStats, mag_policy, split_policy

POLICIES = [
    "none",
    "cap",
    "threshold(0.5)",
    "bytes",
    "segments(8)",
    "mag(32)",
    "mag(32,0)",
    "pow2",
    "pow2(8)",
    "cap+mag(32)",
    "threshold(0.99)+bytes",
    "cap+pow2(4)",
]


def oracle_policy(p):
    """oracles.charge's spelling of a policy string."""
    terms = []
    for t in p.split("+"):
        name, _, args = t.partition("(")
        vals = [float(a) if "." in a else int(a) for a in args.rstrip(")").split(",") if a]
        terms.append(name if not vals else (name, *vals))
    return terms


def oracle_charge(bits, b, policy):
    for t in oracle_policy(policy):
        bits = O.charge(bits, b, t)
    return bits


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("block_bytes", [16, 32, 128])
def test_charge_matches_oracle(policy, block_bytes):
    bits = np.arange(0, 8 * block_bytes + 40, dtype=np.uint32)
    got = memcomp.charge(bits, block_bytes, policy)
    assert got.dtype == np.uint64
    assert got.tolist() == [int(oracle_charge(int(x), block_bytes, policy)) for x in bits]


def test_policy_parsing():
    assert memcomp.parse_policy(" Cap + MAG(32) ") == "cap+mag(32)"
    assert split_policy("cap+mag(32)") == ("cap", "mag(32)")
    assert split_policy("none") == (None, None)
    assert mag_policy("cap+bytes", 32) == "cap+mag(32)"
    assert mag_policy("none", 64, 0) == "mag(64,0)"
    for bad in ["", "mag", "frob", "bytes+cap", "cap+threshold(0.5)", "mag(32,5)"]:
        with pytest.raises(ValueError, match="bad policy"):
            memcomp.parse_policy(bad)
    with pytest.raises(TypeError):
        memcomp.parse_policy(3)
    with pytest.raises(TypeError, match="uint32"):
        memcomp.charge(np.arange(4), 32, "none")
    with pytest.raises(ValueError, match="not supported"):
        memcomp.charge(np.arange(4, dtype=np.uint32), 48, "none")


def test_stats_merge_equals_whole():
    blocks = realistic(32, 1 << 20)
    codec = memcomp.get_codec("bdi")
    whole = codec.measure(blocks).stats()
    parts = [codec.measure(blocks[i : i + 777]).stats() for i in range(0, len(blocks), 777)]
    merged = sum(parts[1:], parts[0])
    assert np.array_equal(merged.hist, whole.hist)
    assert merged.mode_counts == whole.mode_counts and merged.tag_bits == whole.tag_bits
    for p in POLICIES:
        assert merged.charged_bits(p) == whole.charged_bits(p)
    with pytest.raises(ValueError, match="cannot merge"):
        whole + memcomp.get_codec("fpc").measure(blocks).stats()


@pytest.mark.parametrize("name", ["bdi.paper", "bdi.cmu", "fpc.cmu", "zca"])
def test_cr_is_ratio_of_sums(name):
    blocks = realistic(64, 1 << 18)
    codec = memcomp.get_codec(name)
    s = codec.measure(blocks)
    st_ = s.stats()
    charged = memcomp.charge(s.size_bits, 64, codec.policy)
    assert st_.cr() == pytest.approx(blocks.size * 8 / charged.sum())
    assert st_.inband_bits == s.total_bits
    assert st_.n_blocks == len(blocks) and st_.raw_bits == blocks.size * 8
    tags = s.tag_bits.sum() + (len(blocks) if codec.policy.startswith("cap") else 0)
    assert st_.cr(count_tag=True) == pytest.approx(blocks.size * 8 / (charged.sum() + tags))
    mag = memcomp.charge(s.size_bits, 64, mag_policy(codec.policy, 32))
    assert st_.cr_mag(32) == pytest.approx(blocks.size * 8 / mag.sum())
    shares = st_.size_classes(32)
    assert set(shares) == {32, 64}
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares[32] == pytest.approx(np.mean(mag == 256))


def test_size_classes_with_u_min_zero_and_histogram():
    blocks = np.zeros((10, 128), np.uint8)
    blocks[:3, 0] = 0xFF
    st_ = memcomp.get_codec("zca").measure(blocks).stats()
    assert st_.size_classes(32, u_min=0) == {0: 0.7, 32: 0.0, 64: 0.0, 96: 0.0, 128: 0.3}
    assert st_.cr_mag(32, u_min=0) == pytest.approx(10 / 3)
    h = st_.histogram()
    assert h.to_dict() == {0: 7, 1024: 3}


@given(st.lists(st.integers(0, 300), min_size=1, max_size=50), st.sampled_from(POLICIES))
def test_hypothesis_histogram_charging_equals_per_block(bits, policy):
    """Charging the histogram of sizes equals charging each block: partial results are exact."""
    arr = np.array(bits, np.uint32)
    codec = memcomp.get_codec("fpc")
    hist = np.bincount(arr, minlength=codec.max_compressed_bits(32) + 1)
    st_ = SizeStats("fpc.paper", 32, "none", hist.astype(np.int64))
    assert st_.charged_bits(policy) == int(memcomp.charge(arr, 32, policy).sum())
