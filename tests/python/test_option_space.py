"""Every exact preset under every option combination it accepts (hypothesis over options, block
sizes and data): measure(x).size_bits == encode(x).bit_lengths, decode(encode(x)) == x and the
stream within max_compressed_bits. The option domains come from the codecs themselves
(_core.option_space records what each option reader accepts), so a new option is covered."""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import memcomp
from blockgen import adversarial, realistic
from memcomp import _core

EXACT = [n for n in memcomp.codec_names() if memcomp.get_codec(n).exact]


def test_option_space_describes_every_option():
    for name in memcomp.codec_names():
        space = _core.option_space(name)
        assert set(space) == set(memcomp.get_codec(name).options), name
        for key, d in space.items():
            assert d["kind"] in ("bool", "int", "float", "choice", "string"), (name, key)
            if d["kind"] == "choice":
                assert d["default"] in d["choices"], (name, key)
            if d["kind"] in ("int", "float"):
                assert d["lo"] <= d["default"] <= d["hi"] or key == "max_len", (name, key)
            if "values" in d:  # an int option taking only some values
                assert d["default"] in d["values"] and (min(d["values"]), max(d["values"])) == (d["lo"], d["hi"])


def _value(data, key, d):
    kind = d["kind"]
    if kind == "bool":
        return data.draw(st.booleans(), label=key)
    if kind == "choice":
        return data.draw(st.sampled_from(d["choices"]), label=key)
    if kind == "float":
        return data.draw(st.floats(d["lo"], d["hi"], allow_nan=False), label=key)
    if "values" in d:
        return data.draw(st.sampled_from(d["values"]), label=key)
    lo, hi = d["lo"], d["hi"]
    return data.draw(
        st.one_of(st.sampled_from([lo, hi]), st.integers(lo, min(hi, lo + 40)), st.integers(lo, hi)), label=key
    )


def _blocks(data, B):
    seed = data.draw(st.integers(0, 2**16), label="seed")
    rng = np.random.default_rng(seed)
    kinds = [
        adversarial(B, seed)[rng.permutation(len(adversarial(B, seed)))[:60]],
        realistic(B, max(1 << 12, 8 * B), seed=seed % 7)[:60],
        (rng.integers(0, 256, (20, B), dtype=np.uint8) & rng.integers(0, 256, (20, 1), dtype=np.uint8)),
    ]
    return np.ascontiguousarray(np.concatenate(kinds))


@pytest.mark.parametrize("preset", EXACT)
@given(data=st.data())
@settings(
    max_examples=int(__import__("os").environ.get("MEMCOMP_OPTION_EXAMPLES", 20)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
def test_every_option_combination_roundtrips(preset, data):
    space = _core.option_space(preset)
    opts = {}
    for key in sorted(space):
        d = space[key]
        if d["kind"] == "string" or not data.draw(st.booleans(), label=f"set {key}"):
            continue  # models are fitted below; member lists have their own tests (test_hybrid)
        opts[key] = _value(data, key, d)
    try:
        codec = memcomp.get_codec(preset, **opts)
    except ValueError:
        assume(False)  # a combination the codec refuses, with a message
    assume(codec.exact)
    sizes = [b for b in memcomp.VALID_BLOCK_BYTES if codec.supports(b)]
    assume(sizes)
    B = data.draw(st.sampled_from(sizes), label="block_bytes")
    x = _blocks(data, B)
    if codec.requires_fit:
        codec = codec.fit(realistic(B, 1 << 14, seed=1) if B >= 32 or codec.codec_id != "mpc" else x)
    s = codec.measure(x)
    enc = codec.encode(x)
    assert np.array_equal(s.size_bits, enc.bit_lengths), (codec.name, B)
    d = codec.decode(enc)
    if codec.lossy:  # lossy blocks are approximations; the others, and all when kept lossless, exact
        exact = s.mode != 2
        assert np.array_equal(d[exact], x[exact]), (codec.name, B)
        assert np.array_equal(codec.decode(codec.encode(x, approximable=np.zeros(len(x), bool))), x)
    else:
        assert np.array_equal(d, x), (codec.name, B)
    assert int(s.size_bits.max()) <= codec.max_compressed_bits(B)
    assert np.array_equal(s.size_bits, s.payload_bits + s.meta_bits + s.header_bits)
