"""One spelling for generator and strategy arguments (issue 18, item 6), and
every generator argument checked (item 1).

The rules (``dmlsched.generate`` docstring): every argument keyword-only,
``seed`` (default 0) in every generator, counts ``num_<things>``, ranges of
counts ``min_<things>`` / ``max_<things>``; a bad argument is a
:class:`~dmlsched.generate.GeneratorArgumentError` naming the generator and the
argument.  The tests inspect every public function of every generator and
strategy module, so a new one is covered as soon as it is written.
"""

from __future__ import annotations

import importlib
import inspect
import re

import numpy as np
import pytest

import dmlsched
from dmlsched.generate import GeneratorArgumentError, hare, hlas, rar
from dmlsched.problems import FAMILIES

GENERATOR_MODULES = ("hare", "rar", "cruise", "harmony", "hlas", "moldable")

#: public functions of the generator modules that are not instance generators
HELPERS = {
    "hare": {"cluster", "simulation_rate", "job_times"},
    "cruise": {"calibrated_parameters"},
    "hlas": {"bounded_pareto", "job_times"},
    "moldable": {"offered_load"},
}

#: nouns whose count must read ``num_<noun>`` (a bare noun is only allowed for a list of the
#: instance's own items, e.g. Hare's ``gpus`` = GPU type names, RAR's ``servers`` = capacities)
COUNT_NOUNS = {"jobs", "gpus", "machines", "servers", "tasks", "users", "bags", "groups", "types", "queues",
               "slow", "fast"}


def _public(module) -> list[tuple[str, object]]:
    """The functions a generator module exports (its ``__all__``: the code is in
    ``dmlsched.problems.<family>.generate``, re-exported)."""
    return [(n, f) for n in module.__all__ if inspect.isfunction(f := getattr(module, n))]


def _generators() -> list[tuple[str, str, object]]:
    out = []
    for fam in GENERATOR_MODULES:
        mod = importlib.import_module(f"dmlsched.generate.{fam}")
        out += [(fam, n, f) for n, f in _public(mod) if n not in HELPERS.get(fam, set())]
    return out


def _strategies() -> list[tuple[str, str, object]]:
    pytest.importorskip("hypothesis")
    out = []
    for fam in FAMILIES:
        try:
            mod = importlib.import_module(f"dmlsched.problems.{fam}.strategies")
        except ModuleNotFoundError:
            continue
        out += [(fam, n, f) for n, f in vars(mod).items()
                if not n.startswith("_") and callable(f) and getattr(f, "__module__", None) == mod.__name__]
    return out


GENERATORS = _generators()


def _spelling_problems(fn) -> list[str]:
    bad = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_KEYWORD:
            continue
        if p.kind is not p.KEYWORD_ONLY:
            bad.append(f"{p.name}: not keyword-only")
        if p.name == "n" or re.fullmatch(r"n_\w+", p.name):
            bad.append(f"{p.name}: a count reads num_<things>")
        ann = str(p.annotation)
        if p.name in COUNT_NOUNS and not re.match(r"(list|tuple|Sequence)\[", ann):
            bad.append(f"{p.name}: a count reads num_{p.name}")
    return bad


def test_every_generator_module_is_inspected():
    names = {(fam, n) for fam, n, _ in GENERATORS}
    assert {("hare", "simulation"), ("rar", "small"), ("cruise", "random_homogeneous"),
            ("harmony", "sample_workload"), ("hlas", "grouping"), ("moldable", "gpu_workload")} <= names
    assert len(GENERATORS) >= 20


@pytest.mark.parametrize("fam, name, fn", GENERATORS, ids=[f"{f}.{n}" for f, n, _ in GENERATORS])
def test_generator_spelling(fam, name, fn):
    params = inspect.signature(fn).parameters
    assert "seed" in params, f"generate.{fam}.{name} takes no seed"
    seed = params["seed"]
    assert seed.kind is seed.KEYWORD_ONLY and seed.default == 0, f"generate.{fam}.{name}: seed={seed}"
    assert _spelling_problems(fn) == []


def test_every_strategy_uses_the_spelling():
    strategies = _strategies()
    assert {n for _, n, _ in strategies} >= {"hare_instances", "rar_instances", "cruise_instances",
                                             "harmony_instances", "hlas_instances", "moldable_instances",
                                             "grouping_instances"}
    problems = {f"{fam}.{n}": p for fam, n, f in strategies if (p := _spelling_problems(f))}
    assert problems == {}
    # caps of sizes: min_/max_ + the instance's noun (never max_n, n_max, num_max_...)
    for fam, n, f in strategies:
        for p in inspect.signature(f).parameters:
            assert not re.match(r"(n_|num_)?(max|min)_?n$|^n_(max|min)", p), (fam, n, p)


def _count_params(fn) -> list[str]:
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.name.startswith(("num_", "min_", "max_")) and "int" in str(p.annotation)
            and "float" not in str(p.annotation)]


COUNT_CASES = [(fam, name, fn, arg, value)
               for fam, name, fn in GENERATORS for arg in _count_params(fn)
               for value in (-4, 2.5, True, "3")]


def test_count_cases_cover_every_family():
    assert {fam for fam, *_ in COUNT_CASES} == set(GENERATOR_MODULES)


@pytest.mark.parametrize("fam, name, fn, arg, value", COUNT_CASES,
                         ids=[f"{f}.{n}:{a}={v!r}" for f, n, _, a, v in COUNT_CASES])
def test_every_count_argument_is_checked(fam, name, fn, arg, value):
    """Every count of every generator: a negative, fractional, boolean or text
    value is one error naming the generator and the argument."""
    with pytest.raises(GeneratorArgumentError) as e:
        fn(seed=0, **{arg: value})
    assert str(e.value).startswith(f"generate.{fam}.{name}: {arg} "), str(e.value)
    assert e.value.argument == arg and isinstance(e.value, ValueError)


OTHER_CASES = [
    ("hare", "generate", {"load": 0}, "load", "must be > 0"),
    ("hare", "generate", {"rounds": (3, 2)}, "rounds", "must be a range"),
    ("hare", "generate", {"tasks_per_round": ()}, "tasks_per_round", "non-empty list"),
    ("hare", "generate", {"gpus": ["A100"]}, "gpus", "GPU types"),
    ("hare", "simulation", {"heterogeneity": "extreme"}, "heterogeneity", "must be one of"),
    ("hare", "testbed", {"num_gpus": 4}, "num_gpus", "is not an argument of this generator"),
    ("rar", "generate", {"tau": (0.05, 0.01)}, "tau", "low <= high"),
    ("rar", "generate", {"exchange_share": 1.5}, "exchange_share", "must be <= 1"),
    ("rar", "generate", {"num_jobs": 5, "num_servers": 1, "capacities": (4,)}, "num_servers", "capacities"),
    ("rar", "small", {"sizes": (8,)}, "sizes", "does not fit"),
    ("rar", "servers_sweep", {"num_servers": 25}, "num_servers", "in 1..20"),
    ("rar", "paper_instance", {"num_jobs": 3}, "num_jobs", "is not an argument of this generator"),
    ("cruise", "homogeneous_cluster", {"app": "BERT"}, "app", "must be one of"),
    ("cruise", "heterogeneous_cluster", {"jitter": 1.0}, "jitter", "[0, 1)"),
    ("cruise", "heterogeneous_cluster", {"num_slow": 1, "num_fast": 0}, "num_slow", ">= 2 machines"),
    ("cruise", "random_instance", {"proc_range": (2.0, -1.0)}, "proc_range", "range"),
    ("cruise", "typed_cluster", {"per_type": (1, 2)}, "per_type", "one count >= 1 per type"),
    ("cruise", "typed_cluster", {"spread": 0.5}, "spread", "must be >= 1"),
    ("cruise", "random_homogeneous", {"min_machines": 10, "max_machines": 5}, "max_machines", ">= 10"),
    ("harmony", "evaluation_workload", {"weights": {"cpu": -1}}, "weights.cpu", ">= 0"),
    ("harmony", "sample_workload", {"num_jobs": 81}, "num_jobs", "in 1..80"),
    ("hlas", "generate", {"num_gpus": 8, "num_groups": 9}, "num_groups", "in 1..8"),
    ("hlas", "generate", {"pareto_shape": 0}, "pareto_shape", "must be > 0"),
    ("hlas", "generate", {"predictions": "oracle"}, "predictions", "must be one of"),
    ("hlas", "generate", {"gpu_mix": {"H100": 1.0}}, "gpu_mix", "unknown key 'H100'"),
    ("hlas", "generate", {"time_grid": -0.5}, "time_grid", "must be > 0"),
    ("hlas", "grouping", {"num_gpus": 4, "num_groups": 2, "num_types": 5}, "num_types", "in 1..4"),
    ("hlas", "paper_grouping", {"num_gpus": 4, "num_groups": 5}, "num_groups", "in 1..4"),
    ("moldable", "paper_like", {"big_memory_share": -0.1}, "big_memory_share", "probability in [0, 1]"),
    ("moldable", "paper_like", {"tasks_per_bag": (5, 1)}, "tasks_per_bag", "range"),
    ("moldable", "gpu_workload", {"big_memory_share": 2}, "big_memory_share", "probability in [0, 1]"),
    ("moldable", "gpu_workload", {"num_tasks": 10, "num_jobs": 11}, "num_jobs", "in 1..10"),
    ("moldable", "gpu_workload", {"bag_arrivals": "poisson"}, "bag_arrivals", "must be one of"),
    ("moldable", "swf", {"num_gpus": 8, "load": 0.5}, "num_gpus", "give one, not both"),
    ("moldable", "swf", {"moldable_max": "all"}, "moldable_max", "must be one of"),
    ("moldable", "openb", {"moldable_max": 0}, "moldable_max", ">= 1"),
    ("moldable", "batch", {"arrivals": "poisson"}, "arrivals", "must be one of"),
    ("moldable", "batch", {"preemption": 1}, None, None),
]


@pytest.mark.parametrize("fam, name, kwargs, arg, text", OTHER_CASES,
                         ids=[f"{f}.{n}:{','.join(k)}" for f, n, k, *_ in OTHER_CASES])
def test_bad_generator_argument_names_it(fam, name, kwargs, arg, text):
    fn = getattr(importlib.import_module(f"dmlsched.generate.{fam}"), name)
    if arg is None:  # an argument the generator does not have: Python's own TypeError names it
        with pytest.raises(TypeError, match=next(iter(kwargs))):
            fn(seed=0, **kwargs)
        return
    with pytest.raises(GeneratorArgumentError) as e:
        fn(seed=0, **kwargs)
    msg = str(e.value)
    assert msg.startswith(f"generate.{fam}.{name}: {arg} ") and text in msg, msg


def test_numpy_values_are_accepted():
    a = hare.generate(seed=1, num_jobs=np.int64(4), num_gpus=np.int32(3), load=np.float64(0.5))
    b = hare.generate(seed=1, num_jobs=4, num_gpus=3, load=0.5)
    assert dmlsched.to_dict(a) == dmlsched.to_dict(b)
    assert hlas.generate(seed=0, num_jobs=np.int64(3), num_gpus=4, num_groups=np.int64(2)).groups == 2
    assert rar.small(seed=0, num_jobs=np.int64(2), servers=np.array([2, 2])).num_servers == 2


def test_seed_is_keyword_only_at_call():
    with pytest.raises(TypeError):
        rar.generate(1, 40, 6)  # the old positional form fails loudly instead of binding differently
