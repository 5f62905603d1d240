"""Moldable and malleable GPU scheduling (Fujiwara, Tanaka, Taura, Torisawa:
"Effectiveness of Moldable and Malleable Scheduling in Deep Learning Tasks"):
Equipartition with D'Hondt apportionment, Proportional, Rigid, exact methods
(a CP-SAT model with real start times and a time-indexed MIP), a lower bound
valid for preemptive schedules, and readers of real traces
(:mod:`dmlsched.traces`).

Files: ``instance.py`` (tasks, speedup curves), ``solution.py`` (validator,
evaluator: total flow time), ``heuristics.py`` (the six policies as methods),
``policies.py`` (their allocation rules), ``simulator.py`` (the
discrete-event execution model), ``incremental.py`` (malleable
Equipartition re-divided incrementally on whole-GPU instances, the same
segments as the simulator's general path), ``dhondt.py`` (D'Hondt apportionment),
``models.py`` (``exact``: time-indexed MIP), ``cp.py`` (``exact-cp``),
``bounds.py`` (``preemptive-lb``, the quoted ratio), ``strategies.py``
(hypothesis), ``claims.py`` (the paper's claims).
"""

from ...family import Family, Ref
from ...registry import register_family
from . import instance, solution
from .dhondt import dhondt
from .instance import MoldableInstance, MoldableTask, SpeedupCurve
from .solution import MoldableSchedule, metrics

FAMILY = register_family(Family(
    name="moldable", package=__name__, instance_type=MoldableInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    sense="min", objective_name="total flow time", default_reference="exact-cp",
    claims=Ref(f"{__name__}.claims:CLAIMS"),
    strategies=Ref(f"{__name__}.strategies"),
))
SPEC = FAMILY  # the former name, kept for one release

from . import heuristics  # noqa: E402,F401  (registers the policies)

from . import bounds, cp, models  # noqa: E402,F401  (register "preemptive-lb", "exact-cp", "exact")

__all__ = [
    "MoldableInstance",
    "MoldableSchedule",
    "MoldableTask",
    "SpeedupCurve",
    "dhondt",
    "metrics",
]


def gantt_tasks(instance: MoldableInstance, solution) -> list[dict]:
    """Bars for :func:`dmlsched.plot.plot_gantt`: one per (segment, GPU).

    A segment with share ``1/n`` takes a slice of height ``1/n`` of its GPU's
    row (``"offset"``/``"height"``), placed at the lowest free slice, so tasks
    sharing a GPU are drawn side by side rather than on top of each other.
    """
    segs = []
    for j in range(solution.num_segments):
        start, end = float(solution.start[j]), float(solution.end[j])
        if end <= start:
            continue
        share = 1.0 / int(solution.share_den[j])
        for g in solution.gpu_idx[solution.gpu_ptr[j]:solution.gpu_ptr[j + 1]]:
            segs.append((int(g), start, end, share, instance.tasks[int(solution.task[j])].id))
    bars = []
    active: dict[int, list[tuple[float, float, float]]] = {}  # gpu -> (end, offset, height)
    for g, start, end, share, tid in sorted(segs, key=lambda x: (x[0], x[1], -x[3])):
        live = [a for a in active.get(g, []) if a[0] > start + 1e-12]
        off = 0.0
        for k in range(max(1, round(1 / share))):
            cand = k * share
            if all(cand + share <= o + 1e-9 or cand >= o + h - 1e-9 for _, o, h in live):
                off = cand
                break
        live.append((end, off, share))
        active[g] = live
        bars.append({"job": tid, "gpu": g, "start": start, "end": end, "share": share,
                     "offset": off, "height": share})
    return bars
