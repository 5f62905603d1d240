"""Gantt bars of moldable schedules: shared GPUs are drawn as disjoint slices."""

from __future__ import annotations

from pathlib import Path

import dmlsched
from dmlsched.cli import main
from dmlsched.problems.moldable import gantt_tasks

INST = Path(__file__).resolve().parents[2] / "instances" / "moldable" / "sharing-memory.json"


def test_shared_bars_take_disjoint_slices():
    inst = dmlsched.load(INST)
    res = dmlsched.solve(inst, "malleable-equi")
    bars = gantt_tasks(inst, res.solution)
    assert any(b["share"] < 1 for b in bars)
    for a in bars:
        for b in bars:
            if a is b or a["gpu"] != b["gpu"]:
                continue
            overlap_t = min(a["end"], b["end"]) - max(a["start"], b["start"]) > 1e-9
            overlap_y = min(a["offset"] + a["height"], b["offset"] + b["height"]) - max(a["offset"], b["offset"]) > 1e-9
            assert not (overlap_t and overlap_y), (a, b)


def test_gantt_cli_draws_moldable(tmp_path):
    out = tmp_path / "g.png"
    assert main(["gantt", str(INST), "--method", "malleable-equi", "--out", str(out)]) == 0
    assert out.stat().st_size > 1000
