"""FVC (SPEC 1.7), fitted models (SPEC 0.7 item 5) and their files."""

import collections
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memcomp
from blockgen import adversarial, realistic


def oracle_fit(blocks, k):
    """Top-k 32-bit LE words: count descending, ties to the smaller value."""
    counts = collections.Counter(blocks.reshape(-1).view("<u4").tolist())
    return [v for v, _ in sorted(counts.items(), key=lambda vc: (-vc[1], vc[0]))[:k]]


def oracle_bits(block, values, code_bits):
    words = block.view("<u4")
    return sum(code_bits + (0 if int(w) in values else 32) for w in words)


@pytest.mark.parametrize("preset,k,c", [("fvc.paper", 7, 3), ("fvc.gem5", 1024, 10)])
@pytest.mark.parametrize("block_bytes", [16, 64, 256])
def test_fit_and_sizes_match_oracle(preset, k, c, block_bytes):
    blocks = np.concatenate([adversarial(block_bytes), realistic(block_bytes, 1 << 16)])
    # the global top-k table (fvc.gem5 builds gem5's own by default: tests/python/test_gem5.py)
    codec = memcomp.get_codec(preset, table="top").fit(blocks)
    values = codec.model["values"]
    assert values == oracle_fit(blocks, k)
    s = codec.measure(blocks)
    want = [oracle_bits(b, set(values), c) for b in blocks]
    assert s.size_bits.tolist() == want
    assert np.array_equal(s.meta_bits, np.full(len(blocks), c * block_bytes // 4))


@given(st.lists(st.sampled_from([0, 1, 7, 0xFFFFFFFF, 0x3F800000, 12345]), min_size=8, max_size=64), st.integers(1, 9))
def test_hypothesis_fit_roundtrip(words, k):
    words = (words * 8)[: len(words) // 4 * 4 or 4]
    arr = np.array(words, dtype="<u4")
    blocks = memcomp.as_blocks(arr, 16)
    codec = memcomp.get_codec("fvc", entries=k).fit(blocks)
    assert codec.model["values"] == oracle_fit(blocks, k)
    enc = codec.encode(blocks)
    assert np.array_equal(codec.decode(enc), blocks)
    assert np.array_equal(enc.bit_lengths, codec.measure(blocks).size_bits)


def test_fit_is_deterministic_and_thread_independent():
    blocks = realistic(32, 1 << 20)
    a = memcomp.get_codec("fvc").fit(blocks, threads=1)
    b = memcomp.get_codec("fvc").fit(blocks, threads=2)
    assert a == b and a.model == b.model


def test_unfitted_codec_errors_clearly():
    c = memcomp.get_codec("fvc")
    assert c.requires_fit and c.model is None
    blocks = adversarial(32)
    for call in (lambda: c.measure(blocks), lambda: c.encode(blocks)):
        with pytest.raises(ValueError, match="has no model: fit it"):
            call()
    with pytest.raises(ValueError, match="not data-driven"):
        memcomp.get_codec("bdi").fit(blocks)


def test_model_save_load_and_config(tmp_path):
    blocks = realistic(64, 1 << 18)
    codec = memcomp.get_codec("fvc").fit(blocks)
    p = tmp_path / "fvc.json"
    codec.model.save(p)
    m = memcomp.Model.load(p)
    assert m == codec.model and m.codec == "fvc"
    again = memcomp.get_codec("fvc", model=m)
    assert again == codec and not again.requires_fit
    assert np.array_equal(again.measure(blocks).size_bits, codec.measure(blocks).size_bits)
    cfg = codec.get_config()
    assert json.loads(json.dumps(cfg)) == cfg and isinstance(cfg["model"], dict)
    assert memcomp.Codec.from_config(cfg) == codec
    enc = codec.encode(blocks)
    enc.save(tmp_path / "e.npz")
    back = memcomp.Encoded.load(tmp_path / "e.npz")
    assert np.array_equal(memcomp.Codec.from_config(back.config).decode(back), blocks)
    assert memcomp.get_codec("fvc", model=m.to_json()) == codec
    assert memcomp.get_codec("fvc", model=m.data) == codec
    assert "model=<fitted>" in repr(codec)


def test_malformed_models(tmp_path):
    good = {"format": "memcomp.model/1", "codec": "fvc", "values": [1, 2]}
    for bad, match in [
        ({**good, "format": "x"}, "format"),
        ({**good, "codec": "bdi"}, "'codec' must be"),
        ({**good, "values": [1, 1]}, "distinct"),
        ({**good, "values": list(range(8))}, "exceed"),
        ({**good, "values": [-3]}, "32-bit"),
        ({k: v for k, v in good.items() if k != "values"}, "missing key"),
    ]:
        with pytest.raises(ValueError, match=match):
            memcomp.get_codec("fvc", model=bad)
    with pytest.raises(TypeError):
        memcomp.Model([1, 2])
    with pytest.raises(ValueError, match="not valid JSON"):
        memcomp.Model("{")
    p = tmp_path / "m.json"
    p.write_text('{"format": "memcomp.model/1"}')
    with pytest.raises(ValueError, match="codec"):
        memcomp.Model.load(p)
    with pytest.raises(FileNotFoundError):
        memcomp.Model.load(tmp_path / "none.json")


def test_decoding_with_another_model_is_refused():
    blocks = realistic(32, 1 << 16)
    a = memcomp.get_codec("fvc").fit(blocks)
    b = memcomp.get_codec("fvc").fit(blocks[::-1].copy()[:100])
    if a != b:
        with pytest.raises(ValueError, match="encoded by"):
            b.decode(a.encode(blocks))
