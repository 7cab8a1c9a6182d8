"""The C++ codecs against the independent plain-Python oracles (oracles.py) on small inputs."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
import oracles as O
from blockgen import adversarial, realistic

CASES = [
    *[(f"bdi.{p}", lambda b, p=p: O.bdi_size(b, p)) for p in ("paper", "gem5", "kim", "cmu")],
    *[(f"fpc.{p}", lambda b, p=p: O.fpc_size(b, p)) for p in ("paper", "skku", "cmu")],
    ("fpc.gem5", lambda b: O.fpc_size(b, "gem5")),
    ("fpc.kim", lambda b: O.fpc_size(b, "paper")),
    ("zca.paper", O.zca_size),
    ("zrep.ours", O.zrep_size),
]


def compare(name, oracle, blocks):
    s = memcomp.get_codec(name).measure(blocks)
    for i, blk in enumerate(blocks):
        want = oracle(blk.tobytes())
        got = {
            "mode": int(s.mode[i]),
            "payload": int(s.payload_bits[i]),
            "meta": int(s.meta_bits[i]),
            "header": int(s.header_bits[i]),
            "tag": int(s.tag_bits[i]),
        }
        assert got == {k: want[k] for k in got}, f"{name} block {i}: {blk.tobytes().hex()}"


@pytest.mark.parametrize("block_bytes", memcomp.VALID_BLOCK_BYTES)
@pytest.mark.parametrize("name,oracle", CASES, ids=[c[0] for c in CASES])
def test_matches_oracle(name, oracle, block_bytes):
    blocks = np.concatenate([adversarial(block_bytes), realistic(block_bytes, 1 << 15)])
    compare(name, oracle, blocks)


def narrow_blocks(block_bytes):
    """Blocks of k-byte elements near a common base: where BDI/FPC corner cases live."""
    k = st.sampled_from([1, 2, 4, 8])
    return k.flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.integers(0, 2 ** (8 * k) - 1),
            st.lists(st.integers(-(2**17), 2**17), min_size=block_bytes // k, max_size=block_bytes // k),
            st.lists(st.booleans(), min_size=block_bytes // k, max_size=block_bytes // k),
        )
    ).map(lambda t: _build(block_bytes, *t))


def _build(block_bytes, k, base, deltas, immediate):
    vals = [(d if imm else base + d) % (1 << (8 * k)) for d, imm in zip(deltas, immediate)]
    return np.frombuffer(b"".join(v.to_bytes(k, "little") for v in vals), np.uint8).reshape(1, block_bytes)


@given(st.sampled_from([16, 32, 64]).flatmap(narrow_blocks))
def test_hypothesis_narrow_blocks_match_oracle(blk):
    for name, oracle in CASES:
        compare(name, oracle, blk)
