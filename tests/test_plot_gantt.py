"""Gantt charts for every family that has a schedule, rendered to PNG files."""

from __future__ import annotations

from pathlib import Path

import pytest

import dmlsched
from dmlsched import plot
from dmlsched.cli import main

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]

CHARTS = [
    ("hare/tiny.json", "list"),
    ("hlas/fig9_10.json", "hlas"),
    ("rar/tiny-mixed.json", "ff"),
    ("cruise/heterogeneous-4.json", "proportional"),
    ("moldable/sharing-memory.json", "malleable-equi"),
]


@pytest.mark.parametrize("path, method", CHARTS, ids=[p.split("/")[0] for p, _ in CHARTS])
def test_every_family_with_a_schedule_draws(path, method, tmp_path):
    inst = dmlsched.load(ROOT / "instances" / path)
    res = dmlsched.solve(inst, method)
    chart = plot.gantt_chart(inst, res.solution)
    assert chart.tasks and all({"job", "gpu", "start", "end"} <= set(t) for t in chart.tasks)
    assert all(float(t["end"]) >= float(t["start"]) for t in chart.tasks)
    title = plot.gantt_title(inst, res)
    spec = dmlsched.problem_of(inst)
    assert spec.objective_name in title and "objective" not in title.replace(spec.objective_name, "")
    ax = plot.gantt(inst, res.solution, title=title)
    assert ax.get_title() == title
    out = tmp_path / "chart.png"
    plot.savefig(ax, str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 2000


def test_hlas_chart_draws_gpu_groups():
    inst = dmlsched.load(ROOT / "instances" / "hlas" / "fig9_10.json")
    res = dmlsched.solve(inst, "hlas")
    chart = plot.gantt_chart(inst, res.solution)
    groups = [g for g in res.solution.groups]
    assert chart.groups is not None and [rows for _, rows in chart.groups] == [list(g) for g in groups]
    assert sorted(r for _, rows in chart.groups for r in rows) == list(range(inst.num_gpus))
    ax = plot.gantt(inst, res.solution)
    labels = {t.get_text() for t in ax.texts}
    assert {f"group {u}" for u in range(len(groups))} <= labels
    # rows are ordered group by group
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    first = [int(lbl.split(":")[0]) for lbl in ticks]
    assert first == [r for _, rows in chart.groups for r in rows]
    plot._plt().close(ax.figure)


def test_rar_chart_rows_are_gpus_grouped_by_server():
    inst = dmlsched.load(ROOT / "instances" / "rar" / "tiny-mixed.json")
    res = dmlsched.solve(inst, "ff")
    chart = plot.gantt_chart(inst, res.solution)
    assert len(chart.row_labels) == inst.num_gpus and chart.xlabel == "time slot"
    assert [label for label, _ in chart.groups] == [f"server {s}" for s in range(inst.num_servers)]
    # each job occupies exactly its GPUs from its start slot to its finish slot
    by_job: dict[str, set[int]] = {}
    for t in chart.tasks:
        by_job.setdefault(t["job"], set()).add(t["gpu"])
    for j, job in enumerate(inst.jobs):
        assert by_job[job.id] == set(res.solution.gpus[j])


def test_cruise_chart_is_one_epoch_per_machine():
    from dmlsched.problems.cruise.solution import epoch_times

    inst = dmlsched.load(ROOT / "instances" / "cruise" / "heterogeneous-4.json")
    res = dmlsched.solve(inst, "proportional")
    chart = plot.gantt_chart(inst, res.solution)
    ends = {}
    for t in chart.tasks:
        ends[t["gpu"]] = max(ends.get(t["gpu"], 0.0), t["end"])
    per = epoch_times(inst, res.solution)
    for i in res.solution.workers:  # a worker's bars end at its epoch time C^i (3.2)
        assert ends[i] == pytest.approx(per[i])
    assert max(ends.values()) == pytest.approx(res.objective)
    assert {t["job"] for t in chart.tasks} <= {"computation", "communication", "server"}


@pytest.mark.parametrize("path, method", [("harmony/five-jobs.json", "harmony"),
                                          ("gpu-grouping/small_2x8_g2.json", "greedy")])
def test_families_without_a_schedule_say_so(path, method):
    inst = dmlsched.load(ROOT / "instances" / path)
    res = dmlsched.solve(inst, method)
    with pytest.raises(ValueError, match="no Gantt chart"):
        plot.gantt_chart(inst, res.solution)


def test_cli_gantt_title_names_the_objective(tmp_path, capsys):
    out = tmp_path / "sub" / "chart.png"
    assert main(["gantt", str(ROOT / "instances" / "hlas" / "fig12.json"), "-m", "fifo", "--out", str(out),
                 "--title", "custom"]) == 0
    assert out.stat().st_size > 2000
    assert [p.name for p in out.parent.iterdir()] == ["chart.png"]  # no temporary file left
    inst = dmlsched.load(ROOT / "instances" / "hlas" / "fig12.json")
    res = dmlsched.solve(inst, "fifo")
    assert plot.gantt_title(inst, res).startswith("fig12: fifo (feasible, average job completion time ")
    capsys.readouterr()
