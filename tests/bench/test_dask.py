"""The Dask engine gives the same results as the local engine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dmlsched.bench import Source, Suite, read_records, run_sweep
from dmlsched.bench.engines import DaskEngine

from .conftest import write_toy

pytest.importorskip("distributed")

SAME = ("key", "status", "objective", "bound", "ratio", "ratio_to_bound", "claimed_bound", "verdict",
        "reference_objective")


@pytest.mark.slow
def test_dask_local_cluster_matches_local_engine(hare_dir: Path, toy_plugin, tmp_path: Path):
    tdir = tmp_path / "toy"
    write_toy(tdir, "slow", [1, 2], sleep=60)
    hare = Suite(sources=[Source("path", pattern=str(hare_dir))], methods=["list", "fifo", "srtf"],
                 reference="exact", time_limit=None)  # tiny: no wall clock to cut a run
    local = run_sweep(hare, out=str(tmp_path / "local.jsonl"), workers=2, progress=False)

    eng = DaskEngine("local", workers=2)  # one LocalCluster of two workers for both sweeps
    try:
        dask = run_sweep(hare, out=str(tmp_path / "dask.jsonl"), engine=eng, progress=False)
        toy = Suite(sources=[Source("path", pattern=str(tdir))], methods=["sleep", "first"], reference="none",
                    time_limit=1, grace=0.5, plugins=[toy_plugin])
        res = run_sweep(toy, engine=eng, progress=False)
    finally:
        eng.close()
    proj = lambda rs: [{k: r.get(k) for k in SAME} for r in rs]  # noqa: E731
    assert proj(local.records) == proj(dask.records)
    assert len(local.records) == 3 * 4
    assert {r["engine"] for r in dask.records if r["method"]} == {"dask"}
    assert len({r["pid"] for r in dask.records if r["method"]}) >= 1
    # hard limits hold on the cluster too
    by = {r["method"]: r for r in res.records}
    assert by["sleep"]["status"] == "time_limit" and by["first"]["status"] == "feasible"


@pytest.mark.slow
def test_dask_worker_killed_mid_sweep_loses_nothing(toy_plugin, tmp_path: Path):
    """kill -9 of a Dask worker: its runs in flight are retried elsewhere, the sweep completes."""
    d = tmp_path / "toy"
    for i in range(8):
        write_toy(d, f"i{i}", [i + 1, 2 * i + 1], sleep=0.4)
    out = tmp_path / "r.jsonl"
    suite = Suite(sources=[Source("path", pattern=str(d))], methods=["sleep"], reference="none",
                  time_limit=None, plugins=[toy_plugin])
    eng = DaskEngine("local", workers=2)
    killed = []

    def killer():
        while not out.exists() or out.read_text().count("\n") < 2:
            time.sleep(0.05)
        pids = eng.client.run(os.getpid)
        pid = sorted(pids.values())[0]
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    try:
        res = run_sweep(suite, out=str(out), engine=eng, progress=False)
    finally:
        eng.close()
    t.join(timeout=5)
    assert killed
    recs = read_records(out)
    assert len(recs) == len({r["key"] for r in recs}) == 8 == len(res.records)
    assert {r["status"] for r in recs} == {"feasible"}


def _status_code(port: int) -> int:
    try:
        return urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=10).status
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.slow
def test_dask_is_quiet_and_serves_a_dashboard_only_when_asked(hare_dir: Path, tmp_path: Path):
    eng = DaskEngine("local", workers=1)
    try:
        port = eng._cluster.scheduler.http_server.port
        assert port != 8787 and _status_code(port) == 404  # no dashboard page
    finally:
        eng.close()
    eng = DaskEngine("local", workers=1, dashboard="127.0.0.1:0")
    try:
        assert _status_code(eng._cluster.scheduler.http_server.port) == 200
    finally:
        eng.close()
    # the command line: no Dask INFO lines, only the bench's own
    p = subprocess.run([sys.executable, "-c", "import sys; from dmlsched.cli import main; sys.exit(main())",
                        "bench", str(hare_dir), "--methods", "fifo", "--reference", "none", "--dask", "local",
                        "--workers", "1", "--out", str(tmp_path / "r.jsonl")],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stderr
    lines = [x for x in p.stderr.splitlines() if x.strip()]
    assert all(x.startswith("bench:") for x in lines), lines
    assert len(lines) <= 4
