"""Alibaba openb pod reader: the real trace, conversion rules, malformed rows."""

from __future__ import annotations

import pytest

import dmlsched
from dmlsched.problems.moldable.traces import openb_to_moldable
from dmlsched.traces import TraceError, read_openb

HEADER = ("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
          "scheduled_time\n")
ROWS = [
    "p0,1000,1024,1,1000,,LS,Running,0,100,0",
    "p1,1000,1024,1,470,,LS,Running,5,55,10",
    "p2,1000,1024,1,50,V100M16|T4,BE,Running,6,16,6",
    "p3,1000,1024,8,1000,,LS,Running,7,17,7",
    "p4,1000,1024,0,0,,LS,Running,8,18,8",
    "p5,1000,1024,1,1000,,LS,Pending,9,20,",
]


def _write(tmp_path, rows):
    p = tmp_path / "openb_pod_list_default.csv"
    p.write_text(HEADER + "\n".join(rows) + "\n")
    return p


def test_conversion_rules(tmp_path):
    tr = read_openb(_write(tmp_path, ROWS).parent)  # a folder works too
    assert len(tr) == 6
    inst = openb_to_moldable(tr, gpus=4)
    assert inst.source["dropped"] == {"cpu_only": 1, "unscheduled": 1, "zero_duration": 0}
    t = {x.id: x for x in inst.tasks}
    assert (t["p0"].pmin_den, t["p0"].p_max, t["p0"].volume, t["p0"].arrival) == (1, 1, 100.0, 0.0)
    assert (t["p1"].pmin_den, t["p1"].p_max, t["p1"].volume, t["p1"].arrival) == (2, 1, 45.0, 5.0)  # 470 -> 1/2
    assert t["p2"].pmin_den == 20  # 50 milli -> 1/20
    assert (t["p3"].pmin_den, t["p3"].p_max, t["p3"].volume) == (1, 4, 80.0)  # 8 GPUs clipped, v = 10 * 8
    assert [t[x].p_req for x in ("p0", "p1", "p2", "p3")] == [1, 1, 1, 4]
    for m in ("rigid-fcfs", "malleable-equi", "moldable-prop"):
        dmlsched.solve(inst, m)
    mold = openb_to_moldable(tr, gpus=4, moldable_max=4)
    assert {x.p_max for x in mold.tasks} == {4} and {x.id: x.p_req for x in mold.tasks}["p3"] == 4


def test_default_cluster_size_is_the_peak_recorded_demand(tmp_path):
    """Issue 18: no gpus= is not a TypeError; the default is documented."""
    tr = read_openb(_write(tmp_path, ROWS))
    inst = openb_to_moldable(tr)
    # held at once: p0 (1) from 0 to 100, p1 (0.47) 10-55, p2 (0.05) 6-16, p3 (8) 7-17: peak 9.52 -> 10
    assert inst.gpus == 10 and inst.source["gpus"] == "peak recorded demand"
    assert {t.id: t.p_max for t in inst.tasks}["p3"] == 8
    with pytest.raises(ValueError, match="gpus"):
        openb_to_moldable(tr, gpus=0)


def test_failed_pods_are_kept_unless_asked(tmp_path):
    rows = ROWS + ["p6,1000,1024,2,1000,,LS,Failed,3,40,5"]
    tr = read_openb(_write(tmp_path, rows))
    kept = openb_to_moldable(tr, gpus=4)
    assert "p6" in {t.id for t in kept.tasks} and kept.source["failed_kept"] == 1
    dropped = openb_to_moldable(tr, gpus=4, drop_failed=True)
    assert "p6" not in {t.id for t in dropped.tasks} and dropped.source["dropped"]["failed"] == 1
    assert dropped.num_tasks == kept.num_tasks - 1


@pytest.mark.parametrize(
    "row,match",
    [
        ("q,1,1,x,1000,,LS,Running,0,1,0", r":3: num_gpu: not an integer"),
        ("q,1,1,1,1200,,LS,Running,0,1,0", r":3: gpu_milli: must be <= 1000"),
        ("q,1,1,1,100,,LS,Running,0,5,7", r":3: deletion_time 5 before scheduled_time 7"),
        ("q,1,1,-1,100,,LS,Running,0,5,0", r":3: num_gpu: must be >= 0"),
        ("q,1,1,1,100,,LS,Running,0,5", r":3: wrong number of fields"),
    ],
)
def test_malformed_rows(tmp_path, row, match):
    p = _write(tmp_path, [ROWS[0], row, ROWS[1]])
    with pytest.raises(TraceError, match=match) as ei:
        read_openb(p)
    assert ei.value.line == 3
    tr = read_openb(p, skip_bad=True)
    assert len(tr) == 2 and [ln for ln, _ in tr.bad] == [3]


def test_missing_column(tmp_path):
    p = tmp_path / "pods.csv"
    p.write_text("name,num_gpu\nx,1\n")
    with pytest.raises(TraceError, match="missing column"):
        read_openb(p)


def test_real_openb_trace(traces_dir):
    d = traces_dir / "alibaba-openb"
    if not (d / "openb_pod_list_default.csv").exists():
        pytest.skip(f"{d} is absent")
    tr = read_openb(d)
    assert len(tr) == 8152 and not tr.bad
    inst = openb_to_moldable(tr, gpus=64)
    dropped = inst.source["dropped"]
    assert dropped["cpu_only"] == 1088
    assert inst.source["failed_kept"] == 1869 and 0.29 < 1869 / inst.num_tasks < 0.31  # about 30% Failed
    assert openb_to_moldable(tr).gpus == 66
    assert inst.num_tasks + sum(dropped.values()) == 8152
    shares = [t for t in inst.tasks if t.pmin_den > 1]
    assert shares and all(t.p_max == 1 for t in shares)
    assert max(t.p_max for t in inst.tasks) == 8
