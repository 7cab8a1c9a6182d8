"""The benchmark scripts run to the end on every codec (figures are printed, never asserted)."""

import json
import os
import subprocess
import sys

import memcomp

BENCH = os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks")


def _bench(script: str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """Runs tests/benchmarks/SCRIPT with ARGS, its output captured as text."""
    return subprocess.run(
        [sys.executable, os.path.join(BENCH, script), *args], capture_output=True, text=True, timeout=timeout
    )


def test_bench_codecs_all_skips_what_a_codec_does_not_support():
    """It used to stop with rc 1 at mpc.cal22_rtl at 128 B, never measuring the codecs after it."""
    r = _bench(
        "bench_codecs.py",
        "--codecs",
        "all",
        "--mib",
        "1",
        "--sizes",
        "128",
        "--repeat",
        "1",
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    for name in memcomp.codec_names():
        row = [ln for ln in lines if ln.split()[:2] == [name, "128"]]
        assert row, f"{name} missing"
        assert ("skipped" in row[0]) == (not memcomp.get_codec(name).supports(128)), row[0]


def test_bench_dask_runs_and_checks_dask_equals_serial():
    r = _bench(
        "bench_dask.py",
        "--mib",
        "4",
        "--codecs",
        "bdi,fpc,e2mc",
        "--workers",
        "2",
    )
    assert r.returncode == 0, r.stderr
    assert "dask results equal the serial ones: yes" in r.stdout
    rows = {ln.split()[0]: ln.split()[1:] for ln in r.stdout.splitlines() if ln.startswith(("compare", "entropy"))}
    assert set(rows) == {"compare", "entropy.table"} and all(float(v) > 0 for vs in rows.values() for v in vs)


def test_bench_streaming_reports_peak_rss_and_throughput_of_each_analysis():
    """A tiny run: a 8 MiB sparse dump, 4x a 2 MiB ceiling (the figures are printed, not asserted)."""
    r = _bench(
        "bench_streaming.py",
        "--ceiling-mib",
        "2",
        "--factor",
        "4",
        "--chunk-blocks",
        "1024",
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("dump: 8 MiB (4x the ceiling)") and "RSS ceiling 2 MiB" in lines[0]
    for name in ("compare", "entropy.table", "entropy 4-16"):
        row = [ln for ln in lines if ln.startswith(name + " ")]
        assert row and "failed" not in row[0], (name, r.stdout)
        gbs, base, peak = (float(v) for v in row[0][len(name) :].split()[:3])
        assert gbs > 0 and peak >= base > 0


def test_bench_all_prints_every_path_and_writes_json(tmp_path):
    out = tmp_path / "bench.json"
    r = _bench("bench_all.py", "--mib", "1", "--repeat", "1", "--json", str(out))
    assert r.returncode == 0, r.stderr
    report = json.loads(out.read_text())
    assert report["cpu"] and report["cpu"] in r.stdout
    assert all(report[k] > 0 for k in ("memcpy_gbs", "memcpy_gbs_2", "scan_gbs", "scan_gbs_2"))
    rows = report["rows"]
    speed = [x for x in rows if "gbs_1" in x]
    assert {x["path"].split()[0] for x in speed} == {"measure", "enc+dec", "32-bit"} and len(speed) == 22
    assert all(x["gbs_1"] > 0 and x["gbs_2"] > 0 and x["path"] in r.stdout for x in speed)
    assert [x["path"] for x in rows if "overhead_pct" in x] == [
        "EC overhead bdi.paper 32 B",
        "EC one pass bdi.paper 32 B",
        "EC overhead fpc.paper 32 B",
        "EC one pass fpc.paper 32 B",
    ]
    # every kernel goal names a path the script runs, and its row carries the goal's status
    goals = _goals()
    assert set(goals.KERNELS) <= {x["path"] for x in speed}
    for x in rows:
        g = goals.kernel_goal(x["path"])
        assert x["status"] == (g.status(x.get("gbs_1", x.get("overhead_pct"))) if g else "")
        line = next(ln for ln in r.stdout.splitlines() if ln.startswith(x["path"]))
        assert x["status"] in line
        if "scaling" in x:
            assert (line[len(x["path"]) :].split()[2].startswith("<")) == (x["scaling"] < goals.SCALING)


def _goals():
    sys.path.insert(0, BENCH)
    try:
        import goals
    finally:
        sys.path.remove(BENCH)
    return goals


def test_a_goal_says_met_or_how_much_of_it_is_reached():
    goals = _goals()
    g = goals.Goal(0.5, why="x")
    assert (g.status(0.5), g.status(0.7), g.status(0.25), g.status(float("nan"))) == ("met", "met", "50% of goal", "-")
    ec = goals.Goal(at_most=20.0)
    assert (ec.status(20.0), ec.status(12.7), ec.status(30.0)) == ("met", "met", "1.5x the limit")
    # every goal not met on the reference machine says what bounds it
    assert all(g.why for g in goals.KERNELS.values())
    assert all(g.why for name, g in goals.JOBS.items() if name != "train-mpc --block 32")


def test_bench_jobs_prints_each_job_with_its_goal(tmp_path):
    sys.path.insert(0, BENCH)
    try:
        import bench_jobs
    finally:
        sys.path.remove(BENCH)
    goals = _goals()
    assert [name for name, _ in bench_jobs.JOBS] == list(goals.JOBS)
    out = tmp_path / "jobs.json"
    r = _bench(
        "bench_jobs.py",
        "--gib",
        "0.004",
        "--input",
        str(tmp_path / "in.bin"),
        "--only",
        "entropy,toggles",
        "--json",
        str(out),
        "--why",
    )
    assert r.returncode == 0, r.stderr
    rows = json.loads(out.read_text())["rows"]
    assert [x["job"] for x in rows] == ["entropy", "toggles"]
    for x in rows:
        line = next(ln for ln in r.stdout.splitlines() if ln.startswith(x["job"] + " "))
        assert x["status"].startswith(goals.JOBS[x["job"]].status(x["gbs"])) and x["status"] in line
    assert "RSS+" in rows[1]["status"]
    assert goals.JOBS["entropy"].why[:40] in r.stdout.replace("\n  ", " ")


def test_best_of_each_takes_turns_and_keeps_each_minimum(monkeypatch):
    sys.path.insert(0, BENCH)
    try:
        import timing
    finally:
        sys.path.remove(BENCH)
    clock = iter(range(1000))
    monkeypatch.setattr(timing.time, "perf_counter", lambda: float(next(clock)))
    calls = []
    # Each call advances the fake clock by its cost: a's runs take 1, 3, 1 ticks, b's 2, 2, 5.
    cost = {"a": iter([0, 0, 2, 0]), "b": iter([0, 1, 1, 4])}

    def run(name):
        def fn():
            calls.append(name)
            for _ in range(next(cost[name])):
                next(clock)

        return fn

    best = timing.best_of_each([run("a"), run("b")], 3)
    assert calls == ["a", "b"] + ["a", "b"] * 3  # one warm-up each, then in turns
    assert best == [1.0, 2.0]


def test_mpc_sample_quality_trains_both_and_compares_on_held_out_dumps(tmp_path):
    """A row per held-out dump: both models' CR and the sample's change in percent."""
    r = _bench(
        "mpc_sample_quality.py",
        "--input",
        str(tmp_path / "in.bin"),
        "--gib",
        str(8 / 1024),
        "--fit-bytes",
        str(2 << 20),
        "--held-out",
        "2",
        "--held-out-mib",
        "1",
    )
    assert r.returncode == 0, r.stderr
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.startswith("seed ")]
    assert [row[1] for row in rows] == ["1000", "1001"]
    for row in rows:
        full, sample, change = float(row[2]), float(row[3]), float(row[4])
        assert full > 1 and sample > 1 and abs(change - 100 * (sample / full - 1)) < 0.002  # of the printed CRs
    assert "trained on sample (2097152 B)" in r.stdout
