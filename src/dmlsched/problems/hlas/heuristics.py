"""The online policies as registered methods (kind ``"policy"``): the paper's
``hlas``, ``hlas-p``, ``hlas-l`` and our clairvoyant ceiling ``srtf`` (the
paper's baselines ``fifo`` and ``2d-las`` are registered in ``baselines.py``
and run by :func:`run_policy` too), and the "attained service" measures of
Section IV-B (Figs. 9-10).

Every policy runs in the same execution model (:mod:`.simulator`); only the
priority rule (:mod:`.policies`) and the grouping differ.  ``hlas`` and
``hlas-p`` run on GPU groups (the instance's explicit ``grouping``, or a
grouping into ``groups`` groups computed by a GPU-grouping method); the
baselines ``fifo`` and ``2d-las`` and the ceiling ``srtf`` schedule GPU by GPU
(one group per GPU), as in the paper.  Option ``grouped`` overrides either default.

Option ``group_mode`` chooses how a GPU group executes work (the paper leaves
it open; ``models/hlas.md`` "Readings of the GPU group" discusses each):

``"batch"`` (default)
    An idle group takes a *group batch* of the picked job's unassigned tasks
    (each on the group GPU where it finishes first, within one task-time of
    the group's slowest free GPU); the rest waits (partially scheduled job).
``"gpuset"``
    An idle group is a set of GPUs: it takes up to one task of the picked job
    per free GPU (the fastest for the job first), all starting together; the
    rest waits (partially scheduled job) for the next idle group.
``"round"``
    An idle group takes the picked job's whole remaining round, list-scheduled
    on the group's GPUs (the group is the unit that runs a round; ``T̄_n`` is
    exactly the time of one round on a group of average speed).
``"accounting"``
    Groups only define the service accounting: ``T̄_n`` is computed on the
    grouping's ``|U|`` groups, but tasks are dispatched GPU by GPU (one task
    per idle GPU, Algorithm 1's loop over ``m in M`` and ``x_{n,m}``).

Option ``group_idle`` chooses when a group takes work: ``"all"`` (default,
"When a GPU group is idle", Section IV-C) only when all its GPUs are idle,
``"any"`` as soon as one of its GPUs is idle (on its idle GPUs);
``models/hlas.md`` item 12.  Options ``gang`` and ``placement`` are the
baselines' readings (items 11 and 13); each policy's defaults are how the
paper describes it: ``fifo`` is Gavel_FIFO (fastest idle GPUs, a round waits
for its GPUs, blocking), ``2d-las`` is Tiresias as the paper compares it
(Gavel_FIFO with the least attained service first: gang-scheduled and blocking
on the fastest idle GPUs, since the paper attributes its gap to FIFO to the
priority and its gap to HLAS to the service measure only; ``gang="skip"`` is
the backfilling reading), ``srtf`` (the
clairvoyant ceiling) and HLAS are relaxed on the fastest idle groups.
``hlas-l`` is HLAS-P's scheduling with loss-fitting predictions
(:mod:`.prediction`).
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping, Sequence

from ...kit import Option, Run, method
from ...result import Result
from ..gpugrouping import from_hlas
from .instance import HlasInstance
from .policies import RULES
from .prediction import HLASL, LossFit
from .simulator import HlasSimulator, tbar
from .solution import HlasRun, metrics


@dataclass(frozen=True)
class Readings:
    """The readings of ``models/hlas.md`` a policy runs with: the options every
    policy declares (:func:`policy_options`), checked by those same options.

    Attributes
    ----------
    grouped
        Run on GPU groups; ``None``: the policy's default (grouped for
        ``hlas``, ``hlas-p`` and ``hlas-l``, per GPU for the baselines).
    grouping_method
        The GPU-grouping method that computes the groups when the instance
        gives only their number.
    group_mode
        One of :data:`GROUP_MODES` (module docstring).
    group_idle
        One of :data:`GROUP_IDLE_READINGS`.
    gang
        One of :data:`GANG_READINGS` (``"none"``: relaxed synchronisation).
    placement
        One of :data:`PLACEMENTS`.
    trace
        Keep every assignment in the run's log and per-job records in details.
    """

    grouped: bool | None = None
    grouping_method: str = "greedy"
    group_mode: str = "batch"
    group_idle: str = "all"
    gang: str = "none"
    placement: str = "fastest"
    trace: bool = False

    def __post_init__(self) -> None:
        for o in policy_options():
            object.__setattr__(self, o.name, o.coerce(getattr(self, o.name)))

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Readings:
        """The readings among a policy run's ``options`` (the others are ignored)."""
        return cls(**{f.name: options[f.name] for f in fields(cls) if f.name in options})


def resolve_groups(inst: HlasInstance, readings: Readings, run: Run | None = None) -> tuple[list[list[int]], dict]:
    """The GPU groups a policy runs on, and details about how they were made.

    ``readings.grouped`` must be set (:func:`simulate` sets the policy's
    default).  A grouping into ``inst.num_groups`` groups is computed by the
    GPU-grouping method ``readings.grouping_method``, run through ``run``
    (:meth:`Run.delegate`: its deadline, solver and seed; its incumbents are
    not the policy's); without a run, through a standalone one
    (:meth:`Run.standalone`: HiGHS, seed 0, no deadline).
    """
    if readings.grouped is None:
        raise ValueError("resolve_groups needs readings.grouped set (simulate sets the policy's default)")
    m = inst.num_gpus
    if not readings.grouped:
        return [[g] for g in range(m)], {"grouping": "one group per GPU"}
    if inst.grouping is not None:
        return [list(g) for g in inst.grouping], {"grouping": "explicit"}
    u = inst.num_groups
    if u == m:
        return [[g] for g in range(m)], {"grouping": "one group per GPU"}
    if u == 1:
        return [list(range(m))], {"grouping": "one group"}
    if run is None:
        run = Run.standalone("hlas")
    method_ = readings.grouping_method
    res = run.delegate(method_, from_hlas(inst, u), problem="gpu-grouping", cut_as="the grouping method")
    if res.solution is None:
        raise RuntimeError(f"grouping method {method_!r} found no grouping ({res.status.value})")
    groups = res.solution.members(u)
    return groups, {"grouping": method_, "grouping_objective": res.objective,
                    "grouping_status": res.status.value, "grouping_cut": not res.reproducible}


GROUP_MODES = ("batch", "gpuset", "round", "accounting")
GROUP_IDLE_READINGS = ("any", "all")
PLACEMENTS = ("fastest", "oblivious")
GANG_READINGS = ("none", "block", "skip")
#: the policies that run on GPU groups by default (``grouped=None``)
GROUPED_POLICIES = ("hlas", "hlas-p", "hlas-l")


def simulate(
    inst: HlasInstance,
    policy: str,
    *,
    readings: Readings | None = None,
    groups: Sequence[Sequence[int]] | None = None,
    run: Run | None = None,
) -> tuple[HlasRun, dict]:
    """Run ``policy`` on ``inst``; returns the run and details (metrics, counters).

    Parameters
    ----------
    inst, policy
        The instance and the policy (a registered ``hlas`` policy).
    readings
        The readings of ``models/hlas.md`` (:class:`Readings`; a method builds
        them with ``Readings.from_options(run.options)``); default: ``Readings()``.
    groups
        The GPU groups, given; default: as the readings make them
        (:func:`resolve_groups`).
    run
        The calling method's run: its seed (``hlas-l``'s fit, the
        ``oblivious`` draws) and the budget, solver and seed of the grouping
        method it delegates to; default: :meth:`Run.standalone` (HiGHS,
        seed 0, no deadline).

    Notes
    -----
    ``group_mode`` is one of :data:`GROUP_MODES` (module docstring).  With
    ``"accounting"`` the groups (given, or ``inst.num_groups`` when the policy
    is grouped) only set ``T̄_n``; dispatch is per GPU.

    ``group_idle`` (:data:`GROUP_IDLE_READINGS`): ``"all"`` (a group takes work
    only when all its GPUs are idle) or ``"any"`` (a group with an idle GPU
    takes work on its idle GPUs); ``models/hlas.md`` item 12.

    ``placement``: ``"fastest"`` (the idle group fastest for the picked job)
    or ``"oblivious"`` (an idle group drawn at random with the run's seed;
    ``models/hlas.md`` item 13).

    ``gang`` (per-GPU runs only): ``"none"`` (relaxed synchronisation, the
    default), ``"block"`` or ``"skip"``: a job's round starts only when
    ``tasks_per_round`` GPUs are idle, one task on each of the fastest; with
    ``"block"`` a job that does not fit blocks every later job (Gavel_FIFO:
    "this job needs to wait until demanded GPUs are available"), with
    ``"skip"`` later jobs that fit may start (backfilling).  This is how the
    paper describes its baselines (Section IV-B: Tiresias "requires that the
    same number of GPUs should be available"; Section VI-A: Gavel_FIFO).
    """
    if readings is None:
        readings = Readings()
    if run is None:
        run = Run.standalone("hlas", policy)
    seed = run.seed
    group_mode, group_idle, placement = readings.group_mode, readings.group_idle, readings.placement
    gang = None if readings.gang == "none" else readings.gang
    if policy == "hlas-l":
        rule = HLASL(LossFit(inst, seed))
    else:
        rule = RULES[policy]()
    gdetails: dict = {}
    if readings.grouped is None:
        readings = replace(readings, grouped=policy in GROUPED_POLICIES)
    tbar_groups = None
    if group_mode == "accounting":
        # T̄_n = |D_n| |U| / sum_m s_{n,m} depends on the grouping only through |U|
        tbar_groups = len(groups) if groups is not None else (inst.num_groups if readings.grouped else inst.num_gpus)
        groups, gdetails = [[g] for g in range(inst.num_gpus)], {
            "grouping": f"accounting only: T-bar on {tbar_groups} groups, dispatch per GPU"}
    elif groups is None:
        groups, gdetails = resolve_groups(inst, readings, run)
    trace = readings.trace
    t0 = time.perf_counter()
    sim_policy = HlasSimulator(inst, rule, groups, trace=trace, whole_round=group_mode == "round",
                               one_per_gpu=group_mode == "gpuset", any_idle=group_idle == "any",
                               tbar_groups=tbar_groups, gang=gang, placement=placement, seed=seed)
    sim = sim_policy.run()
    sim_s = time.perf_counter() - t0
    rec = sim_policy.recorder
    if rec.unfinished():  # pragma: no cover - the model always finishes every job
        raise RuntimeError(f"{len(rec.unfinished())} jobs unfinished")
    run = HlasRun(gpu=sim_policy.gpu, start=sim_policy.start_time, finish=rec.finish_time, policy=policy,
                  groups=[list(g) for g in groups], log=sim_policy.log)
    m = rec.metrics()
    m["utilisation"] = metrics(inst, run)["utilisation"]  # busy GPU time from the schedule
    details = {
        **gdetails,
        "avg_jct": m["avg_jct"],
        "total_weighted_jct": m["total_weighted_jct"],
        "max_jct": m["max_jct"],
        "makespan": m["makespan"],
        "utilisation": m["utilisation"],
        "events": sim.events,
        "decisions": sim.decisions,
        "assignments": sim_policy.assignments,
        "simulation_s": sim_s,
        "num_groups": len(groups) if tbar_groups is None else tbar_groups,
        "group_mode": group_mode,
        "group_idle": group_idle,
        "gang": gang,
        "placement": placement,
        "jct": [float(c - a) for c, a in zip(rec.finish_time, sim_policy.arrival)],
    }
    if trace:
        details["records"] = [
            {**r.to_json(inst.jobs[r.job].id), "rounds": sim_policy.rounds_run[r.job]} for r in rec.records()
        ]
    return run, details


def policy_options(*, gang: str = "none", placement: str = "fastest") -> tuple[Option, ...]:
    """The options every policy declares: the readings of ``models/hlas.md`` as named options,
    with the policy's own defaults for ``gang`` and ``placement`` (how the paper describes
    that baseline)."""
    return (
        Option("grouped", bool, None, "run on GPU groups (default: True for hlas, hlas-p and hlas-l, False for "
               "the baselines)"),
        Option("grouping_method", str, "greedy", "gpu-grouping method that computes the groups when the "
               "instance gives only their number", choices=("greedy", "exact", "exact-cp", "brute-force")),
        Option("group_mode", str, "batch", "how a GPU group executes work (models/hlas.md item 10)",
               choices=GROUP_MODES),
        Option("group_idle", str, "all", "when a group takes work: only when all its GPUs are idle (default, "
               "'When a GPU group is idle'), or as soon as any of them is (models/hlas.md item 12)",
               choices=GROUP_IDLE_READINGS),
        Option("gang", str, gang, "per-GPU runs: a round starts only on min(tasks_per_round, GPUs) idle GPUs; "
               "'block' (a job that does not fit blocks the later ones) or 'skip' (backfilling); 'none': relaxed "
               "(models/hlas.md item 11)", choices=GANG_READINGS),
        Option("placement", str, placement, "the idle group (GPU) a job gets: the fastest for it, or one drawn "
               "at random (heterogeneity-oblivious, seeded; models/hlas.md item 13)",
               choices=PLACEMENTS),
        Option("trace", bool, False, "keep every assignment in solution.log and per-job records in details"),
    )


def run_policy(inst: HlasInstance, run: Run, policy: str) -> Result:
    """The body of every policy method: :func:`simulate` ``policy`` with the run's readings
    (the baselines of ``baselines.py`` call it too)."""
    with run.stage("simulate"):
        sim, details = simulate(inst, policy, readings=Readings.from_options(run.options), run=run)
    if details.pop("grouping_cut", False):
        run.cut("the grouping method")
    return run.result(solution=sim, **details)


def _register(policy: str, description: str, **defaults: str):
    def body(inst: HlasInstance, run: Run) -> Result:
        return run_policy(inst, run, policy)

    body.__name__ = body.__qualname__ = f"run_{policy.replace('-', '_')}"
    body.__doc__ = (
        f"{description}\n\nOptions (the readings of ``models/hlas.md``): ``grouped``, "
        f"``grouping_method``, ``group_mode``, ``group_idle``, ``gang``, ``placement``, ``trace``."
    )
    return method("hlas", policy, kind="policy", options=policy_options(**defaults), description=description)(body)


run_hlas = _register("hlas", "HLAS (Algorithms 1-3): MLFQ on attained rounds x average group round time")
run_hlas_p = _register("hlas-p", "HLAS-P (Section V-B): HLAS with predicted rounds and sub-queues q^1, q^2")
run_hlas_l = _register("hlas-l", "HLAS-L (Section VI-D): HLAS-P's scheduling with rounds predicted by fitting each "
                       "job's loss curve (Optimus [19]; models/hlas.md 'HLAS-L')")
run_srtf = _register("srtf", "SRTF (clairvoyant ceiling): shortest remaining rounds x T-bar first, relaxed, fastest "
                     "idle GPUs")


# ---------------------------------------------------------------------------
# Section IV-B: what "attained service" a round earns (Figs. 9-10)

def list_schedule_round(times: Sequence[float], tasks: int) -> list[int]:
    """GPU (position in ``times``) of each of ``tasks`` tasks of one round, list-scheduled.

    Each task goes to the GPU that becomes free first (ties: lowest position),
    all GPUs free at time 0 -- the relaxed scale-fixed synchronisation of Fig. 5.
    """
    heap = [(0.0, i) for i in range(len(times))]
    heapq.heapify(heap)
    out = []
    for _ in range(tasks):
        t, i = heapq.heappop(heap)
        out.append(i)
        heapq.heappush(heap, (t + times[i], i))
    return out


def task_gpu_time(times: Sequence[float], tasks: int) -> float:
    """Task-GPU time ``sum_i t_i`` a round of ``tasks`` tasks earns on GPUs with ``times``
    (the paper's extension of Tiresias' 2DAS to relaxed synchronisation, Fig. 10)."""
    return float(sum(times[i] for i in list_schedule_round(times, tasks)))


def hlas_round_size(inst: HlasInstance, job: int, num_groups: int) -> float:
    """``T̄_n``: what one round adds to HLAS's job size, whichever GPUs ran it."""
    return tbar(inst, num_groups)[job]


def group_round_times(inst: HlasInstance, job: int, groups: Sequence[Sequence[int]]) -> list[float]:
    """Time one round of ``job`` takes on each group, its tasks list-scheduled on the group's GPUs."""
    j = inst.jobs[job]
    out = []
    for g in groups:
        times = [j.train_time[inst.gpus[m]] + j.sync_time[inst.gpus[m]] for m in g]
        heap = [(0.0, i) for i in range(len(times))]
        end = 0.0
        for _ in range(j.tasks_per_round):
            t, i = heapq.heappop(heap)
            end = max(end, t + times[i])
            heapq.heappush(heap, (t + times[i], i))
        out.append(end)
    return out


__all__ = ["GROUP_MODES", "Readings", "group_round_times", "hlas_round_size", "list_schedule_round",
           "policy_options", "resolve_groups", "run_policy", "simulate", "task_gpu_time"]
