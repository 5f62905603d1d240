"""Run one benchmark job in the current process and turn it into a record.

A *job* is a JSON-able dict (so it travels unchanged to a local worker
process or a Dask worker)::

    {"key", "suite", "label", "source", "instance": {...instance JSON...},
     "instance_hash", "problem", "size", "method", "seed", "solver",
     "time_limit", "options", "reference", "reference_record", "plugins",
     "keep_solution"}

With ``keep_solution`` the record keeps the solution's JSON (the family's
``solution_to_json``) as ``solution``, so that ``dmlsched gantt --results``
draws it without solving again.

:func:`execute_job` loads the instance, runs :func:`dmlsched.solve`, and
derives ratio, bound and verdict with :func:`dmlsched.api.compare` against the
reference run's record (the reference is run once per instance, before the
other methods, and its record travels with their jobs).  Every exception of the
method is caught and recorded as status ``error`` with its message.
"""

from __future__ import annotations

import os
import platform
import time
import traceback
from datetime import datetime, timezone
from typing import Any

from ..api import compare, solve
from ..io import from_dict
from ..registry import get_method, problem_of
from ..result import Result, Status
from ..suites import import_plugins
from ..version import __version__
from .store import json_safe

#: record fields copied from the job
JOB_FIELDS = ("key", "suite", "label", "source", "instance_hash", "problem", "size",
              "method", "variant", "seed", "solver", "time_limit")


class _RecordedSolution:
    """Stands for a reference's solution that exists but is not shipped.

    :func:`dmlsched.api.compare` only asks whether the reference has a
    solution; the reference's objective and bound come from its record.
    """

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return "<recorded solution>"


def base_record(job: dict) -> dict:
    """A record of ``job`` with every field, nothing run yet (status ``error``)."""
    rec = {k: job.get(k) for k in JOB_FIELDS}
    rec.update(
        instance_name=(job.get("instance") or {}).get("name", ""),
        kind=None,
        status="error",
        objective=None,
        bound=None,
        sense=None,
        reproducible=None,
        runtime_s=None,
        wall_s=None,
        reference=job.get("reference"),
        reference_objective=None,
        reference_status=None,
        reference_bound=None,
        reference_optimal=None,
        ratio=None,
        ratio_to_bound=None,
        claimed_bound=None,
        bound_name=None,
        verdict=None,
        error=None,
        has_solution=False,
        killed=False,
        details={},
        jct=None,
    )
    return rec


def incumbent_record(job: dict, incumbent: dict | None, *, elapsed: float | None = None,
                     reason: str = "", killed: bool = True) -> dict:
    """The record of a run that never returned: killed at its hard limit
    (``killed``), or stopped at its time limit without returning.

    With an ``incumbent`` (the last side message of the worker: a solution the
    family's validator accepted), the status is ``feasible`` with its
    objective and bound, and the verdict is derived as for a finished run;
    without one the status is ``time_limit``.  Either way the run is not
    reproducible (the wall clock decided where it stopped).
    """
    rec = base_record(job)
    rec.update(runtime_s=elapsed, wall_s=elapsed, killed=killed, reproducible=False, error=reason or None)
    rec["details"] = {"killed": killed, "reproducible": False}
    if incumbent is None or not isinstance(incumbent.get("objective"), (int, float)):
        rec.update(status="time_limit", verdict="n/a")
        try:  # the claimed bound and the reference's figures still belong to the record
            _judge(job, rec, None)
        except Exception as e:  # pragma: no cover - the record must be written anyway
            rec["details"]["judge_error"] = f"{type(e).__name__}: {e}"
        return rec
    rec.update(status="feasible", objective=float(incumbent["objective"]), bound=incumbent.get("bound"),
               has_solution=True)
    rec["details"]["incumbent_elapsed_s"] = incumbent.get("elapsed_s")
    rec["details"]["source"] = "last incumbent before the run was " + ("killed" if killed else "stopped")
    try:
        _judge(job, rec, rec["objective"])
    except Exception as e:  # pragma: no cover - the record must be written anyway
        rec["details"]["judge_error"] = f"{type(e).__name__}: {e}"
    return rec


def _judge(job: dict, rec: dict, objective: float | None) -> None:
    """Fill kind, sense, claimed bound, ratios and verdict of a run that did
    not return a :class:`~dmlsched.result.Result` (from its incumbent)."""
    import_plugins(job.get("plugins") or [])
    inst = from_dict(job["instance"])
    spec = problem_of(inst)
    m = get_method(spec.name, job["method"])
    rec["kind"] = m.kind
    rec["bound_name"] = m.bound_name
    rec["sense"] = spec.sense
    status = Status.FEASIBLE if objective is not None else Status.TIME_LIMIT
    res = Result(spec.name, job["method"], status, objective=objective, bound=rec.get("bound"),
                 solution=_RecordedSolution() if objective is not None else None,
                 runtime_s=rec.get("runtime_s") or 0.0, sense=spec.sense)
    ref_rec = job.get("reference_record")
    if job.get("reference") == job.get("variant", job["method"]) and ref_rec is None:
        ref = res  # the reference run itself
    elif ref_rec is not None:
        ref = result_from_record(ref_rec)
    else:
        ref = None
    _fill_check(rec, compare(inst, res, ref))


def _fill_check(rec: dict, report: Any) -> None:
    rec["reference"] = report.reference
    rec["reference_objective"] = report.reference_objective
    rec["reference_status"] = report.reference_status
    rec["reference_bound"] = report.reference_bound
    rec["reference_optimal"] = report.reference_optimal
    rec["ratio"] = report.ratio
    rec["ratio_to_bound"] = report.ratio_to_bound
    rec["claimed_bound"] = report.bound
    rec["verdict"] = report.verdict.value
    rec["details"]["check"] = report.details


def finish_record(rec: dict, engine: str = "") -> dict:
    rec["host"] = platform.node()
    rec["pid"] = os.getpid()
    rec["engine"] = engine or rec.get("engine") or ""
    rec["finished_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rec["version"] = __version__
    return json_safe(rec)


def result_from_record(rec: dict) -> Any:
    """A :class:`~dmlsched.result.Result` carrying what ``compare`` needs of a record."""
    return Result(
        problem=rec["problem"],
        method=rec["method"],
        status=Status(rec["status"]),
        objective=rec.get("objective"),
        bound=rec.get("bound"),
        sense=rec.get("sense") or "min",
        solution=_RecordedSolution() if rec.get("has_solution") else None,
        runtime_s=rec.get("runtime_s") or 0.0,
        solver=rec.get("solver"),
        details={k: v for k, v in (rec.get("details") or {}).items() if k == "whole_space_bound"},
    )


def extract_jct(instance: Any, spec: Any, res: Any) -> list[float] | None:
    """Per-job completion times minus arrivals, when the result carries them.

    Looked for, in order: ``details["jct"]`` (a list of numbers, e.g. from a
    simulator's per-job records); a ``"jobs"`` (then ``"tasks"``) list of the
    solution's JSON whose entries all have ``"jct"`` (or ``"flow"``, i.e.
    completion minus arrival); the solution JSON's ``"completion"`` map
    (job id -> completion time) minus the instance's job arrivals.
    """
    d = res.details.get("jct") if isinstance(res.details, dict) else None
    if isinstance(d, (list, tuple)) and all(isinstance(x, (int, float)) for x in d):
        return [float(x) for x in d]
    if res.solution is None:
        return None
    try:
        sj = spec.solution_to_json(instance, res.solution)
    except Exception:
        return None
    if not isinstance(sj, dict):
        return None
    for list_key in ("jobs", "tasks"):
        items = sj.get(list_key)
        if not isinstance(items, list) or not items or not all(isinstance(j, dict) for j in items):
            continue
        for fld in ("jct", "flow"):
            if all(isinstance(j.get(fld), (int, float)) and not isinstance(j.get(fld), bool) for j in items):
                return [float(j[fld]) for j in items]
    comp = sj.get("completion")
    inst_jobs = getattr(instance, "jobs", None)
    if isinstance(comp, dict) and inst_jobs is not None:
        arrivals = {str(getattr(j, "id", "")): float(getattr(j, "arrival", 0.0) or 0.0) for j in inst_jobs}
        try:
            return [float(c) - arrivals.get(str(k), 0.0) for k, c in comp.items()]
        except (TypeError, ValueError):
            return None
    return None


def execute_job(job: dict, engine: str = "") -> dict:
    """Run ``job`` here; never raises for a failing method (status ``error``)."""
    rec = base_record(job)
    t0 = time.perf_counter()
    try:
        _execute(job, rec)
    except Exception as e:
        rec["status"] = "error"
        rec["verdict"] = "n/a"
        rec["error"] = f"{type(e).__name__}: {e}"
        rec["details"] = {**(rec.get("details") or {}), "traceback": traceback.format_exc(limit=8)}
        rec["objective"] = None
    rec["wall_s"] = time.perf_counter() - t0
    return finish_record(rec, engine)


def _execute(job: dict, rec: dict) -> None:
    import_plugins(job.get("plugins") or [])
    inst = from_dict(job["instance"])
    spec = problem_of(inst)
    m = get_method(spec.name, job["method"])
    rec["kind"] = m.kind
    rec["bound_name"] = m.bound_name
    try:
        rec["claimed_bound"] = m.bound(inst) if m.bound is not None else None
    except Exception as e:  # the bound must never hide the run itself
        rec["details"]["bound_error"] = f"{type(e).__name__}: {e}"
    options = dict(job.get("options") or {})
    res = solve(inst, job["method"], solver=job["solver"], time_limit=job.get("time_limit"),
                seed=int(job.get("seed", 0)), **options)
    rec["status"] = res.status.value
    rec["objective"] = res.objective
    rec["bound"] = res.bound
    rec["sense"] = res.sense
    rec["reproducible"] = res.reproducible
    rec["killed"] = False
    rec["runtime_s"] = res.runtime_s
    rec["has_solution"] = res.solution is not None
    details = {k: v for k, v in res.details.items() if k != "jct"}
    if res.status.value == "error":
        rec["error"] = (str(details["error"]) if details.get("error") else
                        f"solver status: {details['solver_status']}" if details.get("solver_status") else
                        "the method ended with status error without a message")
    elif res.status.value == "n/a":
        rec["error"] = str(details.get("error") or "the method refused the instance")
    rec["details"] = {**rec["details"], **details}
    rec["jct"] = extract_jct(inst, spec, res)
    if job.get("keep_solution") and res.solution is not None:
        rec["solution"] = spec.solution_to_json(inst, res.solution)
    ref_rec = job.get("reference_record")
    if job.get("reference") == job.get("variant", job["method"]) and ref_rec is None:
        ref = res  # the reference line: compared with itself
    elif ref_rec is not None:
        ref = result_from_record(ref_rec)
    else:
        ref = None
    _fill_check(rec, compare(inst, res, ref))
