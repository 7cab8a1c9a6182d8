"""Provenance of trained model files (issue 33 item 17): the memcomp version, the training
options, the source (files, byte ranges, SHA-256 of the bytes trained on) and the blocks per MPC
type group; never part of the model the codecs read, and old model files load as before."""

import gzip
import hashlib
import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memcomp
from memcomp import mpc
from memcomp.cli import main
from memcomp.models import Model, training_provenance


def random_sectors(n, seed):
    """n random 32 B sectors: none is all-zero or all-words-same (MPC classes 0 and 1), so
    every sector is trained on."""
    return np.random.default_rng(seed).integers(1, 256, size=(n, 32), dtype=np.uint8)


@pytest.fixture
def dump_file(tmp_path):
    p = tmp_path / "d.bin"
    p.write_bytes(random_sectors(512, 1).tobytes())
    return p


def test_mpc_model_records_source_byte_range_digest_and_groups(dump_file):
    """Trained on bytes [4096, 4096 + 8192) (sectors 128..383) of a file whose sectors 130..139
    are zero (MPC class 0, not trained on), labels 40 x group 0, the rest group 3: the provenance
    names the file and that range, the SHA-256 of exactly those bytes (hashlib on the file's
    slice), 10 sectors dropped and 30 / 216 blocks in bool_int8 / fp32, the other groups 0."""
    data = random_sectors(512, 1)
    data[130:140] = 0
    dump_file.write_bytes(data.tobytes())
    dump = memcomp.open_dump(dump_file, 128, offset=4096, length=8192)
    labels = np.array([0] * 40 + [3] * (8192 // 32 - 40))
    m = mpc.train(dump, labels, seed=7)
    p = m.provenance
    assert p["memcomp_version"] == memcomp.__version__ and p["trainer"] == "memcomp.mpc.train"
    assert p["options"] == dict(
        zeros="buckets", quantiser="floor", weight="mean", seed=7, max_blocks=None, labels="given"
    )
    (src,) = p["source"]
    assert src["file"] == str(dump_file.resolve()) and (src["offset_begin"], src["offset_end"]) == (4096, 12288)
    assert p["bytes"] == 8192
    assert p["sha256"] == hashlib.sha256(dump_file.read_bytes()[4096:12288]).hexdigest()
    assert p["blocks"] == 246 and p["dropped_special"] == 10
    assert {g: v["blocks"] for g, v in p["groups"].items()} == {
        "bool_int8": 30,
        "int16": 0,
        "int32_64": 0,
        "fp32": 216,
        "fp64": 0,
    }
    assert [g for g, v in p["groups"].items() if v["fallback"]] == ["int16", "int32_64", "fp64"]


def test_several_sources_in_order_and_an_array(dump_file, tmp_path, monkeypatch):
    other = tmp_path / "e.bin"
    other.write_bytes(random_sectors(64, 2).tobytes())
    arr = random_sectors(32, 3)
    monkeypatch.chdir(tmp_path)
    m = mpc.train([memcomp.open_dump("d.bin", 32), memcomp.open_dump(other, 64), arr])
    p = m.provenance
    assert [s.get("dataset") for s in p["source"]] == ["d.bin", "e.bin", None]
    assert p["source"][0]["file"] == str(dump_file.resolve())  # a relative path made absolute
    assert p["source"][2] == {"array": "(32, 32) uint8"}
    assert p["sha256"] == hashlib.sha256(dump_file.read_bytes() + other.read_bytes() + arr.tobytes()).hexdigest()
    assert p["bytes"] == 512 * 32 + 64 * 32 + 32 * 32 == p["blocks"] * 32


def test_a_stream_trained_once_with_max_blocks(tmp_path):
    """A gzip stream is read once (max_blocks): its digest is that of the decompressed bytes."""
    raw = random_sectors(300, 4).tobytes()
    p = tmp_path / "d.bin.gz"
    with gzip.open(p, "wb") as f:
        f.write(raw)
    m = mpc.train(memcomp.open_dump(p, 32), max_blocks=50)
    assert m.provenance["sha256"] == hashlib.sha256(raw).hexdigest() and m.provenance["bytes"] == len(raw)
    assert m.provenance["source"][0]["format"] == "gzip" and m.provenance["options"]["max_blocks"] == 50


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunk=st.integers(1, 100), threads=st.sampled_from([1, 2]))
def test_provenance_does_not_depend_on_chunks_or_threads(chunk, threads):
    blocks = random_sectors(200, 5)
    want = mpc.train(blocks, chunk_blocks=200, threads=1)
    got = mpc.train(blocks, chunk_blocks=chunk, threads=threads)
    assert got.provenance == want.provenance and got.model == want.model
    assert got.provenance["sha256"] == hashlib.sha256(blocks.tobytes()).hexdigest()


def test_save_and_load_are_exact_and_provenance_is_not_part_of_the_model(dump_file, tmp_path):
    m = mpc.train(memcomp.open_dump(dump_file, 32))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    m.save(a)
    loaded = mpc.MPCModel.load(a)
    assert loaded == m and loaded.provenance == m.provenance and loaded.to_json() == m.to_json()
    loaded.save(b)
    assert a.read_bytes() == b.read_bytes()  # load, save: the same file
    assert json.loads(a.read_text())["provenance"] == m.provenance  # in the file, after the model
    assert "provenance" not in m.data and "provenance" not in json.loads(m.to_json())
    # the codecs read the model only: one codec, one config, with or without provenance
    bare = m.model.with_provenance(None)
    assert bare == m.model and bare.provenance is None
    assert memcomp.get_codec("mpc", model=m.model) == memcomp.get_codec("mpc", model=bare)
    assert memcomp.get_codec("mpc", model=m.model).model.provenance == m.provenance  # kept with the codec
    assert memcomp.get_codec("mpc", model=bare).model.provenance is None


def test_model_files_without_provenance_still_load(tmp_path):
    """Files written before provenance: the bundled MPC model, an E2MC model file."""
    default = mpc.default_model()
    assert default.provenance is None and default.codec().model == default.model
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 16, seed=1), 128)
    e2 = memcomp.get_codec("e2mc").fit(blocks)
    p = tmp_path / "e2mc.json"
    p.write_text(json.dumps(e2.model.data))  # the old layout: the model's fields only
    old = Model.load(p)
    assert old.provenance is None and old == e2.model
    assert memcomp.get_codec("e2mc", model=old).measure(blocks).total_bits == e2.measure(blocks).total_bits


def test_huffman_family_model_carries_provenance(tmp_path):
    blocks = memcomp.as_blocks(memcomp.workloads.sample_dump(1 << 16, seed=2), 128)
    e2 = memcomp.get_codec("e2mc").fit(blocks)
    digest = hashlib.sha256(blocks.tobytes()).hexdigest()
    prov = training_provenance("memcomp.Codec.fit", e2.options | {"model": None}, [blocks], sha256=digest)
    m = e2.model.with_provenance(prov)
    p = tmp_path / "e2mc.json"
    m.save(p)
    back = Model.load(p)
    assert back == e2.model and back.provenance == prov and prov["source"] == [{"array": "(512, 128) uint8"}]
    assert memcomp.get_codec("e2mc", model=back) == e2


@pytest.mark.parametrize("name", ["e2mc", "sc2", "fvc", "e2mc.paper(symbol_bits=8)"])
def test_fit_records_how_the_model_was_made(name, tmp_path):
    """Codec.fit's model names its trainer, the codec's options, the source (a dump's file and
    byte range), the bytes fitted on with their SHA-256 (sha256sum of the file) and the blocks;
    the provenance survives save, load and get_codec(model=...)."""
    raw = memcomp.workloads.sample_dump(1 << 16, seed=5)
    path = tmp_path / "k.bin"
    raw.tofile(path)
    with memcomp.open_dump(path, 64) as d:
        c = memcomp.get_codec(name).fit(d)
    p = c.model.provenance
    assert p["trainer"] == "memcomp.Codec.fit" and p["memcomp_version"] == memcomp.__version__
    assert p["options"]["preset"] == c.preset and "model" not in p["options"]
    assert all(p["options"][k] == v for k, v in c.options.items() if k != "model")
    assert p["source"] == [
        {"dataset": "k.bin", "file": str(path.resolve()), "format": "raw", "offset_begin": 0, "offset_end": 1 << 16}
    ]
    assert (p["bytes"], p["blocks"], p["sha256"]) == (1 << 16, 1024, hashlib.sha256(path.read_bytes()).hexdigest())
    c.model.save(tmp_path / "m.json")
    back = Model.load(tmp_path / "m.json")
    again = memcomp.Codec.from_config({**c.get_config(), "model": back})
    assert back.provenance == p and again.model.provenance == p
    assert again == c and again.get_config() == c.get_config()  # the provenance is not part of the codec


@pytest.mark.parametrize(
    "prov, match", [([1, 2], "'provenance' must be a JSON object"), ({"x": float("nan")}, "provenance")]
)
def test_bad_provenance_is_refused_naming_it(prov, match):
    data = mpc.default_model().data
    with pytest.raises(ValueError, match=match):
        Model({**data, "provenance": prov})
    with pytest.raises(TypeError, match="once"):
        Model({**data, "provenance": {}}, provenance={})


# --------------------------------------------------------------------------------- memcomp info
def run(*argv):
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_info_prints_a_model_files_provenance(dump_file, tmp_path, capsys):
    model = tmp_path / "m.json"
    assert run("train-mpc", str(dump_file), "--block", "128", "-o", str(model))[0] == 0
    rc, text = run("info", str(model), "--csv")
    df = pd.read_csv(io.StringIO(text)).set_index("field")["value"]
    assert rc == 0 and df["codec"] == "mpc" and df["provenance.memcomp_version"] == memcomp.__version__
    assert df["provenance.sha256"] == hashlib.sha256(dump_file.read_bytes()).hexdigest()
    assert df["provenance.source[0].file"] == str(dump_file.resolve())
    assert int(df["provenance.source[0].offset_end"]) == dump_file.stat().st_size
    assert int(df["provenance.groups.fp32.blocks"]) == mpc.MPCModel.load(model).provenance["groups"]["fp32"]["blocks"]
    assert sum(int(df[f"provenance.groups.{g}.blocks"]) for g in mpc.GROUPS) == 512  # every random sector
    old = tmp_path / "old.json"
    mpc.default_model().save(old)
    rc, text = run("info", str(old), "--csv")
    df = pd.read_csv(io.StringIO(text)).set_index("field")["value"]
    assert rc == 0 and df["provenance"] == "not recorded" and df["modules"] == "5 entries"
    assert run("info", str(model), str(dump_file))[0] == 2
    assert "not both" in capsys.readouterr().err
