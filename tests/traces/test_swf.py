"""SWF reader and converter: the Lublin trace, malformed rows with line numbers."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dmlsched
import dmlsched.traces as traces
from dmlsched import InstanceError
from dmlsched.problems.moldable import traces as converters
from dmlsched.problems.moldable.traces import swf_to_moldable
from dmlsched.traces import TraceError, read_swf

GOOD = """; Version: 2
; MaxProcs: 8
1 0 -1 100 2 -1 -1 4 -1 -1 1 3 -1 -1 0 -1 -1 -1
2 10 -1 50 1 -1 -1 -1 -1 -1 1 3 -1 -1 0 -1 -1 -1
3 20 -1 -1 1 -1 -1 1 -1 -1 0 4 -1 -1 0 -1 -1 -1
4 30 -1 7 16 -1 -1 16 -1 -1 1 4 -1 -1 0 -1 -1 -1
"""


def test_small_file(tmp_path):
    p = tmp_path / "x.swf"
    p.write_text(GOOD)
    tr = read_swf(p)
    assert len(tr) == 4 and tr.max_procs == 8
    rigid = swf_to_moldable(tr, mode="rigid")
    assert rigid.gpus == 8 and rigid.source["dropped"] == 1  # job 3 has no run time
    a, b, d = rigid.tasks
    # requested processors win over allocated ones; volume = run * p_req; p_req clipped to the cluster
    assert (a.p_max, a.volume, a.arrival, a.user) == (4, 400.0, 0.0, "3")
    assert (b.p_max, b.volume) == (1, 50.0)
    assert (d.p_max, d.volume) == (8, 112.0)
    assert [t.p_req for t in rigid.tasks] == [4, 1, 8]
    # the paper's moldable cap is the machine size (MaxProcs 8) at every simulated size
    mold = swf_to_moldable(tr, mode="moldable", gpus=16)
    assert {t.p_max for t in mold.tasks} == {8} and {t.pmin_den for t in mold.tasks} == {1}
    assert [t.p_req for t in mold.tasks] == [4, 1, 8]
    assert mold.speedup.speed(16) == 16 and mold.speedup.speed(3) == 3
    whole = swf_to_moldable(tr, mode="moldable", gpus=16, moldable_max="cluster")
    assert {t.p_max for t in whole.tasks} == {16} and [t.p_req for t in whole.tasks] == [4, 1, 16]
    small = swf_to_moldable(tr, mode="moldable", gpus=4)
    assert {t.p_max for t in small.tasks} == {4} and [t.p_req for t in small.tasks] == [4, 1, 4]
    assert swf_to_moldable(tr, moldable_max=2).tasks[0].p_max == 2
    assert {t.arrival for t in swf_to_moldable(tr, offline=True).tasks} == {0.0}
    with pytest.raises(ValueError, match="moldable_max"):
        swf_to_moldable(tr, moldable_max="all")
    # rigid FCFS on it is valid
    assert dmlsched.solve(rigid, "rigid-fcfs").objective > 0


@pytest.mark.parametrize(
    "line,match",
    [
        ("5 40 -1 7 1 -1 -1 1 -1 -1 1 4 -1 -1 0 -1 -1", r"x\.swf:7: expected 18 fields, got 17"),
        ("5 40 -1 seven 1 -1 -1 1 -1 -1 1 4 -1 -1 0 -1 -1 -1", r"x\.swf:7: field 'run': not a number"),
        ("5 -4 -1 7 1 -1 -1 1 -1 -1 1 4 -1 -1 0 -1 -1 -1", r"x\.swf:7: field 'submit': must be >= 0"),
    ],
)
def test_malformed_rows_named_by_line(tmp_path, line, match):
    p = tmp_path / "x.swf"
    p.write_text(GOOD + line + "\n" + GOOD.splitlines()[3] + "\n")
    with pytest.raises(TraceError, match=match) as ei:
        read_swf(p)
    assert isinstance(ei.value, InstanceError) and ei.value.line == 7
    tr = read_swf(p, skip_bad=True)  # only when asked: skipped and reported
    assert len(tr) == 5 and [ln for ln, _ in tr.bad] == [7]


def test_missing_file(tmp_path):
    with pytest.raises(TraceError, match="cannot read"):
        read_swf(tmp_path / "nope.swf")


def test_lublin_trace(traces_dir):
    f = traces_dir / "swf" / "lublin_256.swf"
    if not f.exists():
        pytest.skip(f"{f} is absent")
    tr = read_swf(f)
    assert len(tr) == 10_000 and tr.max_procs == 256 and not tr.bad
    inst = swf_to_moldable(tr, mode="rigid")
    assert inst.gpus == 256 and inst.num_tasks + inst.source["dropped"] == 10_000
    assert max(t.p_max for t in inst.tasks) <= 256
    first = inst.tasks[0]
    assert (first.id, first.arrival, first.volume, first.p_max) == ("1", 5094.0, 12072.0 * 16, 16)


@pytest.mark.slow
def test_lublin_prefix_all_policies_valid(traces_dir):
    f = traces_dir / "swf" / "lublin_256.swf"
    if not f.exists():
        pytest.skip(f"{f} is absent")
    tr = read_swf(f)
    for mode, methods in (("rigid", ["rigid-fcfs", "rigid-shortest"]),
                          ("moldable", ["moldable-equi", "malleable-equi", "moldable-prop", "malleable-prop"])):
        inst = swf_to_moldable(tr, mode=mode, limit=400, gpus=128)
        for m in methods:
            res = dmlsched.solve(inst, m)  # validated: capacity at every event, unit allocations
            assert res.details["metrics"]["tasks"] == inst.num_tasks


def test_rigid_fcfs_allocates_the_requested_processors(tmp_path):
    """Issue 15 item 8: on the moldable conversion (p_max = machine size) Rigid
    FCFS gives every task exactly its requested processors, not p_max."""
    p = tmp_path / "x.swf"
    p.write_text(GOOD)
    inst = swf_to_moldable(read_swf(p), mode="moldable", gpus=16)
    res = dmlsched.solve(inst, "rigid-fcfs")
    sched = res.solution
    for j in range(sched.num_segments):
        k = int(sched.task[j])
        assert int(sched.share_den[j]) == 1
        assert len(sched.gpus_of(j)) == inst.tasks[k].p_req
    assert sched.num_segments == inst.num_tasks  # rigid: one segment per task
    # the moldable policies may use the whole moldable range
    eq = dmlsched.solve(inst, "moldable-equi").solution
    assert max(len(eq.gpus_of(j)) for j in range(eq.num_segments)) == 8


def test_the_converters_are_the_moldable_familys_only():
    """The converters moved to the moldable family (issue 22, E5); the one-release
    aliases ``dmlsched.traces.swf_to_moldable`` / ``openb_to_moldable`` are gone
    (their one user, ``dmlsched convert-trace``, names the family's converters), so the readers
    reach no family."""
    assert converters.__all__ == ["openb_to_moldable", "swf_to_moldable"]
    for name in ("swf_to_moldable", "openb_to_moldable", "MOVED"):
        assert not hasattr(traces, name), name
    # importing the readers alone does not load the moldable family
    code = "import sys, dmlsched.traces; print('dmlsched.problems.moldable' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr[-2000:]
