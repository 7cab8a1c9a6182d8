"""Every exact preset under every option combination it accepts (hypothesis over options, block
sizes and data): measure(x).size_bits == encode(x).bit_lengths, decode(encode(x)) == x and the
stream within max_compressed_bits. The option domains come from the codecs themselves
(_core.option_space gives each codec's option table), so a new option is covered."""

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


def test_every_option_has_help():
    """The help of each option comes from its codec's option table: one non-empty line."""
    for name in memcomp.codec_names():
        for key, d in _core.option_space(name).items():
            assert isinstance(d["help"], str) and d["help"].strip() and "\n" not in d["help"], (name, key)


def test_codec_options_lists_the_table():
    """memcomp.codecs.codec_options: one row per option, the preset's value beside the family's
    default (bdi.gem5 = bdi with symmetric deltas, zero blocks of 0 bits, SPEC 1.4)."""
    from memcomp.codecs import codec_options

    t = codec_options("bdi.gem5").set_index("option")
    assert set(t.index) == set(memcomp.get_codec("bdi.gem5").options)
    assert list(t.loc["zero_bits", ["kind", "values", "default", "value"]]) == ["int", "[0, 16]", 8, 0]
    assert list(t.loc["delta_fit", ["default", "value"]]) == ["signed", "symmetric"]
    assert t.loc["delta_fit", "values"] == "signed, symmetric, magnitude"
    assert t.loc["member_threshold", "values"] == "[0.0, 1.0]"
    assert codec_options("zrep").set_index("option").loc["w", "values"] == "1, 2, 4, 8"
    assert codec_options("mpc.cal22_rtl").set_index("option").loc["model", "value"] == "fitted"
    assert (t["help"].str.len() > 0).all()
    with pytest.raises(ValueError, match="unknown codec"):
        codec_options("nope")


def test_wrong_types_are_type_errors_from_the_core():
    """The core's option tables refuse a wrong type with TypeError, the option named (no Python
    re-check needed); a value out of the domain stays a ValueError."""
    with pytest.raises(TypeError, match="e2mc: option 'mag' must be an integer, got 32.7"):
        _core.make_codec("e2mc", {"mag": 32.7})
    with pytest.raises(TypeError, match="bdi: option 'repeat4' must be a bool, got 1"):
        _core.make_codec("bdi", {"repeat4": 1})
    with pytest.raises(TypeError, match="fpc: option 'endian' must be a string, got 1"):
        _core.make_codec("fpc", {"endian": 1})
    with pytest.raises(ValueError, match=r"e2mc: option 'mag' must be in \[1, 4096\], got 0"):
        _core.make_codec("e2mc", {"mag": 0})


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
