"""The analysis contract, for every registered analysis (as test_codecs checks every preset):
the serial answer does not depend on the chunk size, the thread count, a stream instead of a map,
pickled partials or Dask's parts; bad options are refused naming the option; the command line
runs it. A new analysis registered in memcomp.analysis.registry is checked here with no new test."""

import gzip
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import memcomp
import memcomp.analysis as ma
from memcomp import workloads
from memcomp._common import fit_sample
from memcomp.analysis.run import as_units, closed
from memcomp.io import open_dump

NAMES = ma.names()

# a metric warning (SLC on zero pages) is a finding for the SLC tests, not for the contract
pytestmark = pytest.mark.filterwarnings("ignore::memcomp._common.MemcompWarning")


@pytest.fixture(scope="module")
def sample_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("contract") / "sample.bin"
    path.write_bytes(workloads.sample_dump(1 << 20).tobytes())  # zero pages, floats, ints, records
    return path


@pytest.fixture(scope="module")
def gz_file(sample_file):
    path = sample_file.with_suffix(".bin.gz")
    path.write_bytes(gzip.compress(sample_file.read_bytes(), compresslevel=1))
    return path


@pytest.fixture(scope="module")
def blocks(sample_file):
    return np.fromfile(sample_file, dtype=np.uint8).reshape(-1, 128)


@pytest.fixture(scope="module")
def serial(blocks):
    return {n: ma.run(ma.get(n)(), blocks) for n in NAMES}


def _equal(a, b):
    if isinstance(a, tuple):  # several tables
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _equal(x, y)
    elif isinstance(a, pd.DataFrame):
        a, b = a.drop(columns=[c for c in ("dataset",) if c in a]), b.drop(columns=[c for c in ("dataset",) if c in b])
        src = ["file", "format", "offset_begin", "offset_end"]
        a = a.drop(columns=[c for c in src if c in a])
        b = b.drop(columns=[c for c in src if c in b])
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True))
    else:
        assert a == b


def test_registry_lists_the_analyses():
    assert {"compare", "entropy", "toggles", "zero-runs"} <= set(NAMES)
    for n in NAMES:
        cls = ma.get(n)
        assert cls.name == n and cls.summary and issubclass(cls, ma.Analysis)
        assert len({o.name for o in cls.OPTIONS}) == len(cls.OPTIONS)
    with pytest.raises(ValueError, match="no analysis named 'compar'; did you mean 'compare'"):
        ma.get("compar")
    with pytest.raises(ValueError, match="registered already"):

        class Other(ma.Analysis):
            name = "compare"

        ma.register(Other)


@pytest.mark.parametrize("name", NAMES)
def test_chunks_threads_and_streams_give_the_serial_answer(name, blocks, sample_file, gz_file, serial):
    a = ma.get(name)()
    _equal(ma.run(a, blocks, chunk_blocks=37), serial[name])
    _equal(ma.run(a, blocks, threads=2, chunk_blocks=1000), serial[name])
    _equal(ma.run(a, open_dump(sample_file, 128), chunk_blocks=500), serial[name])
    _equal(ma.run(a, open_dump(gz_file, 128), chunk_blocks=300), serial[name])  # a stream, read once


@pytest.mark.parametrize("name", NAMES)
def test_partials_pickle_and_merge_exactly(name, blocks, serial):
    a = ma.get(name)()
    data = as_units(blocks, a.unit_bytes) if a.unit_bytes else blocks  # MPC: 32 B sectors
    cut = [0, 100, 101, 2500, len(data)]
    while a is not None:  # every pass of a multi-pass analysis (MPC's training)
        r = a.resolve(data.shape[1], len(data))
        p = r.prepare(fit_sample(data) if r.samples() else None)
        carry, total = p.start(), None
        for s, e in zip(cut, cut[1:]):
            part, carry = p.partial(np.ascontiguousarray(data[s:e]), carry, s, None)
            part = pickle.loads(pickle.dumps(part))
            total = part if total is None else p.merge(total, part)
        total = closed(p, total, carry)
        a = p.then(total)
    _equal(p.finish(total, {}), serial[name])


@pytest.mark.parametrize("name", NAMES)
def test_dask_gives_the_serial_answer(name, sample_file, serial):
    dask = pytest.importorskip("dask")
    import memcomp.dask as md

    with dask.config.set(scheduler="sync"):
        got = md.run(ma.get(name)(), open_dump(sample_file, 128), partition_bytes=256 << 10)
    _equal(got, serial[name])


def _options():
    for n in NAMES:
        for o in ma.get(n).OPTIONS:
            for bad in o.domain.bad():
                yield pytest.param(n, o.name, bad, id=f"{n}-{o.name}-{bad!r}")


@pytest.mark.parametrize("name,option,bad", list(_options()))
def test_bad_options_are_refused_naming_them(name, option, bad):
    with pytest.raises((TypeError, ValueError), match=option):
        ma.get(name)(**{option: bad})


@pytest.mark.parametrize("name", NAMES)
def test_unknown_options_are_refused(name):
    with pytest.raises(TypeError, match="unexpected option 'no_such_option'"):
        ma.get(name)(no_such_option=1)


@pytest.mark.parametrize("name", NAMES)
def test_an_empty_dataset_finishes(name):
    if not ma.get(name).tabular:  # a model from no data: refused, saying so
        with pytest.raises(ValueError, match="no training blocks"):
            ma.run(ma.get(name)(), np.empty((0, 128), dtype=np.uint8))
        return
    out = ma.run(ma.get(name)(), np.empty((0, 128), dtype=np.uint8))
    assert all(isinstance(t, pd.DataFrame) for t in (out if isinstance(out, tuple) else (out,)))


@pytest.mark.parametrize("name", NAMES)
def test_every_analysis_has_a_subcommand(name, capsys):
    from memcomp import cli

    with pytest.raises(SystemExit) as e:
        cli.main([name, "--help"])
    assert e.value.code == 0
    assert ma.get(name).OPTIONS == () or any(o.cli_flag in capsys.readouterr().out for o in ma.get(name).OPTIONS)


GENERATED = [n for n in NAMES if n not in __import__("memcomp.cli").cli._COMMANDS]


@pytest.mark.parametrize("name", GENERATED)
def test_a_generated_subcommand_runs_the_analysis(name, tmp_path):
    from memcomp import cli

    cls = ma.get(name)
    out = tmp_path / ("out.csv" if cls.tabular else "model.json")
    block = cli._CLI.get(name, cli._Command()).block
    assert cli.main([name, "--sample-bytes", "262144", "-o", str(out)]) == 0
    defaults = {o.name: o.command_line_default for o in cls.OPTIONS if o.cli_flag}  # the command line's own
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", memcomp.MemcompWarning)
        want = ma.run(cls(**defaults), workloads.sample_dump(262144, seed=0).reshape(-1, block))
    if not cls.tabular:  # a model file: the model the call makes
        import json

        assert json.loads(memcomp.models.Model.load(out).to_json())["modules"] == json.loads(want.to_json())["modules"]
        return
    if isinstance(want, tuple):  # the further tables beside the first: out.NAME.csv
        for tname, table in zip(ma.get(name).tables, want[1:]):
            assert pd.read_csv(tmp_path / f"out.{tname}.csv").shape[0] == table.shape[0]
        want = want[0]
    got = pd.read_csv(out)
    assert got.shape[0] == want.shape[0]
    for col in want.columns:
        if col in got and pd.api.types.is_numeric_dtype(want[col]):
            np.testing.assert_allclose(got[col].to_numpy(float), want[col].to_numpy(float), rtol=1e-12)
    o = ma.get(name).OPTIONS[0] if ma.get(name).OPTIONS else None
    if o is not None and o.domain.bad():
        assert cli.main([name, "--sample-bytes", "262144", o.cli_flag, "999999"]) == 2  # one line naming it
