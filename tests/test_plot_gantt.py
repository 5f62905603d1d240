"""Gantt charts for every family that has a schedule, rendered to PNG files."""

from __future__ import annotations

import struct
import warnings
from pathlib import Path

import pytest

import dmlsched
from dmlsched import plot
from dmlsched.cli import main
from dmlsched.generate import hare, rar
from dmlsched.problems.cruise.solution import epoch_times

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
def test_allocation_families_draw_rows_per_machine(path, method, tmp_path):
    """Harmony: machines as rows, each group's jobs slicing its machines; GPU
    grouping: GPUs in bands per group, a bar per job's speed."""
    inst = dmlsched.load(ROOT / "instances" / path)
    res = dmlsched.solve(inst, method)
    chart = plot.gantt_chart(inst, res.solution)
    if path.startswith("harmony"):
        assert len(chart.row_labels) == inst.machines
        rows_used = {t["gpu"] for t in chart.tasks}
        assert rows_used == set(range(sum(res.solution.machines)))
        for jobs, _m in zip(res.solution.groups, res.solution.machines):  # a group's jobs share its rows
            ids = {inst.jobs[j].id for j in jobs}
            rows = {t["gpu"] for t in chart.tasks if t["job"] in ids}
            assert all(sum(1 for t in chart.tasks if t["gpu"] == r) == len(jobs) for r in rows)
    else:
        members = res.solution.members(inst.groups)
        assert [rows for _, rows in chart.groups] == [list(g) for g in members]
        assert len(chart.tasks) == len(inst.speeds) * inst.num_gpus
    out = tmp_path / "chart.png"
    plot.savefig(plot.gantt(inst, res.solution), str(out))
    assert out.stat().st_size > 2000


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[16:24]
    return struct.unpack(">II", data)


def test_rar_paper_scale_chart_is_bounded(tmp_path):
    """RAR's Section 7 instance (160 jobs, 276 GPUs on 20 servers): servers
    aggregated into 20 rows, a bounded image, a legend that counts the jobs
    it leaves out, integer slot ticks."""
    inst = rar.paper_instance(seed=1)
    assert inst.num_jobs == 160 and inst.num_gpus > plot.MAX_GANTT_ROWS
    res = dmlsched.solve(inst, "ff")
    ax = plot.gantt(inst, res.solution, title="rar paper instance")
    assert len(ax.get_yticks()) == inst.num_servers
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len([t for t in texts if t.startswith("+ ")]) == 1
    assert any(t.startswith(f"+ {160 - plot.MAX_LEGEND_JOBS} more job") and "colours repeat" in t for t in texts)
    assert any("one row per group" in t for t in texts)
    ticks = [x for x in ax.get_xticks() if 0 <= x <= ax.get_xlim()[1]]
    assert ticks and all(float(x).is_integer() for x in ticks)
    out = tmp_path / "rar.png"
    plot.savefig(ax, str(out))
    w, h = _png_size(out)
    assert w <= plot.GANTT_WIDTH_IN * 120 + 1 and h <= plot.MAX_GANTT_HEIGHT_IN * 120 + 1


def test_many_rows_without_groups_draw_the_busiest():
    """Rows with no aggregate that fits are sampled: the busiest, said in the legend."""
    tasks = [{"job": f"j{i}", "gpu": i, "start": 0.0, "end": float(i + 1)} for i in range(100)]
    ax = plot.plot_gantt(tasks, max_rows=10)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [str(i) for i in range(90, 100)]
    assert any("the 10 busiest of 100" in t.get_text() for t in ax.get_legend().get_texts())
    plot._plt().close(ax.figure)


def test_hare_chart_legend_names_hatching_and_sync_and_types_aggregate(tmp_path, caplog):
    """Hare at scale: a 30-job simulation instance on 60 GPUs aggregates rows by
    GPU type; the legend explains the hatching of odd rounds and the sync tails."""
    inst = hare.simulation(seed=1, num_jobs=30, num_gpus=60)
    res = dmlsched.solve(inst, "fifo")
    ax = plot.gantt(inst, res.solution)
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "odd rounds (hatched)" in texts and "synchronisation" in texts
    assert any(t.startswith("+ ") and "more job" in t for t in texts)
    assert len(ax.get_yticks()) == len(set(inst.gpus))
    plot._plt().close(ax.figure)


def test_unicode_ids_are_drawn_or_replaced_quietly(tmp_path, capfd):
    inst = dmlsched.from_dict({
        "problem": "hare", "name": "名前", "gpus": ["V100", "K80"],
        "jobs": [{"id": jid, "rounds": 1, "tasks_per_round": 1, "train_time": {"V100": 1, "K80": 2},
                  "sync_time": {"V100": 0.1, "K80": 0.1}} for jid in ("作业一", "Jöb", "ジョブ")],
    })
    res = dmlsched.solve(inst, "list")

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns on every glyph it lacks
        ax = plot.gantt(inst, res.solution, title="名前: list")
        plot.savefig(ax, str(tmp_path / "u.png"))
    texts = [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else []
    err = capfd.readouterr().err
    assert "Glyph" not in err and "missing from font" not in err
    assert "Jöb" in texts and "\\u4f5c\\u4e1a\\u4e00" in texts and "\\u30b8\\u30e7\\u30d6" in texts


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
