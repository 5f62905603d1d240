"""A tiny problem family for testing the benchmark engine (loaded as a plugin).

``"problem": "benchtoy"``: pick one of ``values``; the objective is the value
picked (minimise).  Methods exercise every path of the engine: an exact
method, a heuristic with a claimed bound that can fail, a bound method, a
method that ignores its time limit (sleeps), one that raises, one that kills
its own process (a "solver crash").
"""

from __future__ import annotations

import os
import random
import signal
import time
from dataclasses import dataclass, field

from dmlsched.errors import InvalidSolutionError
from dmlsched.io import Reader
from dmlsched.registry import ProblemSpec, register_method, register_problem
from dmlsched.result import Result, Status


@dataclass(frozen=True)
class ToyInstance:
    values: tuple[float, ...]
    sleep: float = 0.0
    name: str = ""
    expected: dict = field(default_factory=dict)


def from_dict(data):
    r = Reader(data)
    r.check_keys(("values", "sleep"), common=True)
    vals = tuple(r.numbers("values", min_len=1, gt=0))
    return ToyInstance(vals, r.number("sleep", 0.0, ge=0), r.string("name", "", nonempty=False))


def to_dict(inst):
    d = {"problem": "benchtoy", "values": list(inst.values), "sleep": inst.sleep}
    if inst.name:
        d["name"] = inst.name
    return d


def validate(inst, sol):
    if not (isinstance(sol, int) and 0 <= sol < len(inst.values)):
        raise InvalidSolutionError(f"index {sol!r} out of range")


def evaluate(inst, sol):
    return float(inst.values[sol])


register_problem(ProblemSpec(
    name="benchtoy", instance_type=ToyInstance, from_dict=from_dict, to_dict=to_dict,
    validate=validate, evaluate=evaluate,
    solution_to_json=lambda inst, s: {"index": s, "completion": {"0": inst.values[s]}},
    size=lambda inst: {"values": len(inst.values)}, default_reference="exact",
))


@register_method("benchtoy", "exact", kind="exact")
def _exact(inst, *, solver, time_limit, seed, **options):
    """The minimum value."""
    i = min(range(len(inst.values)), key=lambda k: inst.values[k])
    return Result("benchtoy", "exact", Status.OPTIMAL, objective=inst.values[i], bound=inst.values[i], solution=i)


@register_method("benchtoy", "first", kind="heuristic", bound=lambda inst: 1.5, bound_name="toy claim: 1.5")
def _first(inst, *, solver, time_limit, seed, **options):
    """The first value (claims ratio 1.5, which fails when values[0] > 1.5 min)."""
    return Result("benchtoy", "first", Status.FEASIBLE, solution=0)


@register_method("benchtoy", "seeded", kind="heuristic")
def _seeded(inst, *, solver, time_limit, seed, **options):
    """A value chosen by the seed."""
    return Result("benchtoy", "seeded", Status.FEASIBLE, solution=seed % len(inst.values))


@register_method("benchtoy", "half", kind="bound")
def _half(inst, *, solver, time_limit, seed, **options):
    """Half the minimum: a proven lower bound."""
    v = min(inst.values) / 2
    return Result("benchtoy", "half", Status.OPTIMAL, objective=v, bound=v)


@register_method("benchtoy", "sleep", kind="heuristic")
def _sleep(inst, *, solver, time_limit, seed, **options):
    """Sleeps ``instance.sleep`` seconds, ignoring the time limit, then picks values[0]."""
    time.sleep(inst.sleep)
    return Result("benchtoy", "sleep", Status.FEASIBLE, solution=0)


@register_method("benchtoy", "raise", kind="heuristic")
def _raise(inst, *, solver, time_limit, seed, **options):
    """Always fails with an exception."""
    raise RuntimeError("toy method failed on purpose")


@register_method("benchtoy", "crash", kind="heuristic")
def _crash(inst, *, solver, time_limit, seed, **options):
    """Kills its own process, as a crashing solver would."""
    os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(10)  # pragma: no cover


def generate(seed: int = 0, n: int = 3, sleep: float = 0.0):
    """Seeded toy instances (a generator for suite tests)."""
    rng = random.Random(seed)
    return {"problem": "benchtoy", "name": f"toy-{n}-{seed}",
            "values": [rng.randint(1, 9) for _ in range(n)], "sleep": sleep}


# -- methods written with the method kit: incumbents, stop requests, kills -----
from dmlsched.kit import Run, method  # noqa: E402


def _offer_descending(inst, run: Run) -> None:
    """Offer every index whose value improves on the previous, 0.3 s apart
    (the kit forwards at most one incumbent per 0.2 s to the bench)."""
    best = None
    for i, v in enumerate(inst.values):
        if best is None or v < best:
            best = v
            run.incumbent(i, bound=min(inst.values) / 2)
            time.sleep(0.3)


@method("benchtoy", "incumbents", kind="heuristic")
def _incumbents(inst, run: Run):
    """Offers improving incumbents, then sleeps ``instance.sleep`` seconds
    (a stop request interrupts the sleep: the kit returns the best incumbent)."""
    _offer_descending(inst, run)
    time.sleep(inst.sleep)
    return run.result(solution=run.best)


@method("benchtoy", "stubborn", kind="heuristic")
def _stubborn(inst, run: Run):
    """Offers improving incumbents, then ignores stop requests and sleeps
    ``instance.sleep`` seconds: only a kill ends it."""
    _offer_descending(inst, run)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        time.sleep(inst.sleep)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    return run.result(solution=run.best)


@register_method("benchtoy", "flaky", kind="heuristic")
def _flaky(inst, *, solver, time_limit, seed, **options):
    """Fails while the environment variable DMLSCHED_TOY_FAIL is set, else picks the minimum."""
    if os.environ.get("DMLSCHED_TOY_FAIL"):
        raise RuntimeError("toy method failed (DMLSCHED_TOY_FAIL is set)")
    i = min(range(len(inst.values)), key=lambda k: inst.values[k])
    return Result("benchtoy", "flaky", Status.FEASIBLE, solution=i)
