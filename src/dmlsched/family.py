"""What a problem family is: one :class:`Family` description, declared in the
family's folder.

Each ``problems/<family>/__init__.py`` builds one :class:`Family` and registers
it (``FAMILY = register_family(Family(...))``); the registry
(:mod:`dmlsched.registry`) finds families in one way,
:func:`~dmlsched.registry.load_families`, and looks them up by name with
:func:`~dmlsched.registry.family`.  Parts of a family that are loaded only on
demand (a module needing an optional dependency, or one above the families'
layer) are named by a :class:`Ref`, the one place dmlsched imports a family
part by name.

This module imports only the standard library and :mod:`dmlsched.gantt`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Literal, Mapping

from .gantt import GanttChart

Sense = Literal["min", "max"]


@dataclass(frozen=True)
class Ref:
    """An attribute or module imported on first use: the one place dmlsched imports a
    module by name (with :func:`dmlsched.registry.load_families`, the loader of the bundled
    families), for the families' optional parts, user plugins and suite references.

    Attributes
    ----------
    target
        ``"package.module:attr"`` for an attribute of a module, or
        ``"package.module"`` for the module itself; the module may also be a
        Python file (``"path/plugin.py"``, ``"path/plugin.py:attr"``), imported
        once per absolute path as ``dmlsched_plugin_<hash>``.
    """

    target: str

    def __post_init__(self) -> None:
        module, _, attr = self.target.partition(":")
        dotted = module.endswith(".py") or all(module.split("."))
        if not module or not dotted or (":" in self.target and not attr):
            raise ValueError(f"Ref: expected 'package.module' or 'package.module:attr', got {self.target!r}")

    def get(self) -> Any:
        """The module or attribute named by :attr:`target` (the module is imported if it was not).

        Raises
        ------
        ImportError
            If the module cannot be imported or has no such attribute.
        """
        module, _, attr = self.target.partition(":")
        mod = _load_file(module) if module.endswith(".py") else importlib.import_module(module)
        if not attr:
            return mod
        try:
            return getattr(mod, attr)
        except AttributeError:
            raise ImportError(f"{self.target}: module {module!r} has no attribute {attr!r}") from None


def plugin_module_name(path: str) -> str:
    """The module name a plugin file is imported under (one per absolute path)."""
    return "dmlsched_plugin_" + hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12]


def _load_file(path: str) -> ModuleType:
    """Import the Python file ``path`` (once: as :func:`plugin_module_name`)."""
    name = plugin_module_name(path)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: cannot be imported")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod

#: keys a hunt's moves never change, unless a family says otherwise
DEFAULT_PROTECTED = frozenset({"problem", "name", "id", "description", "source", "expected"})


@dataclass(frozen=True)
class HuntSpace:
    """The hunt's view of a family: what :mod:`dmlsched.hunt` may move and how far
    (the moves themselves are the hunt's, :class:`dmlsched.hunt.Space`).

    Attributes
    ----------
    element_lists
        Keys of lists whose elements are whole objects (jobs, tasks, machines)
        that moves may duplicate or drop.
    default_size
        The size caps of ``Family.sample`` AND of every move (a search cannot
        drift to instances its exact reference cannot solve).
    within
        ``within(data, size) -> bool``: whether an instance (JSON form) respects the caps.
    protected
        Keys whose values moves never change.
    integer_keys
        Keys holding integers.
    min_elements
        Smallest length of each element list.
    fix
        ``fix(data) -> data`` repairs derived fields after a move, or ``None``.
    """

    element_lists: tuple[str, ...]
    default_size: Mapping[str, Any]
    within: Callable[[dict, Mapping[str, Any]], bool]
    protected: frozenset[str] = DEFAULT_PROTECTED
    integer_keys: frozenset[str] = frozenset()
    min_elements: Mapping[str, int] = field(default_factory=dict)
    fix: Callable[[dict], dict] | None = None


@dataclass(frozen=True)
class Family:
    """How a problem family plugs into dmlsched (its description, one per family).

    The first fields are those of the former ``ProblemSpec`` in its order, so
    ``ProblemSpec(...)`` (an alias of this class) built by a plugin keeps working.

    Attributes
    ----------
    name
        The registry key: the value of the ``"problem"`` field in instance files
        (``"gpu-grouping"``).
    instance_type
        The instance dataclass.
    from_dict, to_dict
        JSON-able dict <-> instance.  ``from_dict`` raises
        :class:`~dmlsched.errors.InstanceError` naming the field on bad input.
    validate
        ``validate(instance, solution)`` raises
        :class:`~dmlsched.errors.InvalidSolutionError` on any violated constraint.
    evaluate
        ``evaluate(instance, solution) -> float``: the objective, recomputed
        from the solution alone.
    solution_to_json
        ``solution_to_json(instance, solution) -> dict`` for ``--json`` output.
    sense
        ``"min"`` or ``"max"``.
    objective_name
        Human name of the objective, e.g. ``"total weighted completion time"``.
    size
        ``size(instance) -> dict`` of size measures for benchmarks.
    default_reference
        Method used by ``check`` as the reference when none is given.
    infeasible
        ``infeasible(instance) -> str | None``: a cheap proof that the instance
        has no feasible solution (its reason), or ``None``.  Every method of
        the family then returns status ``infeasible`` with that reason, so "no
        solution exists" reads the same whatever the method (for example a
        RAR horizon shorter than a lower bound on the makespan).
    key_count
        ``key_count(data) -> int``: the number of keys of every object in a
        JSON value that ``from_dict`` accepted, from what the reader knows of
        its shape (the loader's proof that no key was given twice); the
        instance module's ``key_count`` when it has one, else a generic count.
    package
        The Python package that declares the family
        (``"dmlsched.problems.gpugrouping"``); ``None`` for a family built
        without one (a test's toy family).
    claims
        The paper's claims for ``dmlsched reproduce``: a :class:`Ref` to a list
        of :class:`~dmlsched.claims.Claim` (``Ref("dmlsched.problems.hare.claims:CLAIMS")``),
        imported only when the claims are asked for; ``None`` when the family
        has none.
    gantt
        ``gantt(instance, solution) -> GanttChart`` (:mod:`dmlsched.gantt`): the
        bars :func:`dmlsched.plot.gantt_chart` draws (``solution.gantt_bars``);
        ``None``: none, and :attr:`no_gantt` says why, or (a plugin) the bars
        are the ``"tasks"`` of the solution's JSON.
    no_gantt
        Why the family's solutions cannot be drawn, when :attr:`gantt` is ``None``.
    solution_from_json
        ``solution_from_json(instance, data) -> solution``: the inverse of
        :attr:`solution_to_json` (``solution.from_json``), raising
        :class:`~dmlsched.errors.InstanceError` naming the field on bad input;
        ``dmlsched gantt --results`` rebuilds a recorded schedule with it, and
        the family's validator checks it.  ``None``: the family cannot read its
        solutions back, and :attr:`no_solution_from_json` says why.
    no_solution_from_json
        Why the family's solutions cannot be read back, when
        :attr:`solution_from_json` is ``None``.
    sample
        ``sample(draws, **size) -> dict``: the family's one builder of random
        instances (JSON form; ``sample.random_instance``), drawing through a
        :class:`~dmlsched.draws.Draws` (``RngDraws(np.random.default_rng(seed))``
        for a seeded instance, :class:`~dmlsched.fuzz.HypothesisDraws` in the
        strategies); its keyword defaults are the hunt's caps ``hunt.default_size``
        (when the family has a hunt space).
    hunt
        The :class:`HuntSpace` of the hunt (``sample.HUNT``); ``None``: no hunt space.
    generators
        The paper's setups: setup name -> ``f(*, seed=0, **params) -> instance``
        (``generate.py``; every argument keyword-only, ``seed`` seeding every
        random draw; public paths ``dmlsched.generate.<family>:<setup>``), listed
        and run by ``dmlsched generate``.  A setup writes an instance of the
        family or of a family it uses (HLAS's ``paper_grouping``: the
        GPU_Grouping instance of its own setup).  Empty (the default): the
        family declares none.
    baselines
        The methods that are the paper's baselines: the algorithms the paper
        compares its own with, each behaving as the paper (or the system it
        names) describes it; readings of one baseline are listed each
        (Hare's ``fifo`` and ``fifo-round``).  They are registered in the
        family's ``baselines.py``, or in a module whose entry in the family's
        ``__init__`` docstring opens with "(baseline" (Hare's ``allox.py``),
        and every method ``baselines.py`` registers is listed (checked by
        ``tests/test_template.py``).  Empty (the default): the paper compares
        its algorithm with none.
    uses
        The other families this one depends on (their registry names): the only
        families whose modules the family's modules may import, or name in a
        :class:`Ref` (checked by ``tests/test_template.py``; a :class:`Ref` is an
        import edge like any other, so two families never use each other).  HLAS
        uses Hare (its instances and schedules are Hare's) and gpu-grouping (its
        grouping step).  Empty: none.
    strategies
        The family's hypothesis strategies: a :class:`Ref` to its
        ``strategies`` module (``Ref("dmlsched.problems.hare.strategies")``),
        whose ``__all__`` :mod:`dmlsched.strategies` re-exports; imported only
        when asked for (hypothesis is an optional dependency).
    """

    name: str
    instance_type: type
    from_dict: Callable[[Any], Any]
    to_dict: Callable[[Any], dict]
    validate: Callable[[Any, Any], None]
    evaluate: Callable[[Any, Any], float]
    solution_to_json: Callable[[Any, Any], dict]
    sense: Sense = "min"
    objective_name: str = "objective"
    size: Callable[[Any], dict] = field(default=lambda inst: {})
    default_reference: str | None = "exact"
    infeasible: Callable[[Any], str | None] | None = None
    key_count: Callable[[Any], int] | None = None
    package: str | None = None
    claims: Ref | None = None
    strategies: Ref | None = None
    gantt: Callable[[Any, Any], GanttChart] | None = None
    no_gantt: str | None = None
    solution_from_json: Callable[[Any, Any], Any] | None = None
    no_solution_from_json: str | None = None
    sample: Callable[..., dict] | None = None
    hunt: HuntSpace | None = None
    generators: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    baselines: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()

    @property
    def package_name(self) -> str | None:
        """The last part of :attr:`package` (``"gpugrouping"``), the name
        :func:`~dmlsched.registry.family` also accepts."""
        return self.package.rsplit(".", 1)[-1] if self.package else None
