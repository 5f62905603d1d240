"""Registry of problem families and their methods.

A *problem family* registers a :class:`~dmlsched.family.Family` (how to read,
write, validate and evaluate); each *method* registers a :class:`MethodSpec` under the
key ``(problem, method)``.  Every method has the same signature::

    fn(instance, *, solver, time_limit, seed, **options) -> Result

so nothing downstream branches on method names.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Literal

from .errors import DmlschedError, UnknownMethodError
from .family import Family, Ref, Sense
from .options import options_from_signature

__all__ = [
    "KINDS", "Family", "Kind", "MethodSpec", "ProblemSpec", "Ref", "RegistryError", "Sense", "bundled_families",
    "families", "family", "get_method", "get_problem", "load_families", "methods", "problem_of", "register_family",
    "register_method", "register_problem",
]

Kind = Literal["exact", "heuristic", "bound", "policy"]
KINDS = ("exact", "heuristic", "bound", "policy")


class RegistryError(DmlschedError, ValueError):
    """A registration that would break the registry (unknown family or kind,
    a method replaced without ``replace=True``)."""


#: the former name of :class:`~dmlsched.family.Family`, kept for plugins for one release
ProblemSpec = Family


@dataclass(frozen=True)
class MethodSpec:
    """A registered method.

    Attributes
    ----------
    kind
        ``"exact"`` (optimal when the solver proves it), ``"heuristic"``,
        ``"bound"`` (returns a proven bound on the optimum, no feasible
        solution) or ``"policy"`` (online policy run in a simulator).
    bound
        ``bound(instance) -> float | None``: the paper's proven approximation
        ratio for this method on this instance (``None`` if it claims none).
    bound_name
        Where the claim comes from (e.g. ``"Hare Theorem 4: alpha(2+alpha)"``).
    space
        The part of the solution space the method's solutions lie in (for an
        exact method: the space it is optimal over), e.g. ``"non-preemptive"``;
        ``None`` means the whole space the validator accepts.  ``check`` uses a
        reference optimal over a restricted space as a proven bound only for
        methods of the same space (otherwise only as a feasible value).
    options
        The method's declared :class:`~dmlsched.kit.Option` s (checked by
        :func:`dmlsched.solve`; unknown or ill-typed options are errors).
    """

    problem: str
    name: str
    fn: Callable[..., Any]
    kind: Kind
    description: str = ""
    bound: Callable[[Any], float | None] | None = None
    bound_name: str | None = None
    uses_solver: bool = False
    space: str | None = None
    options: tuple = ()

    @property
    def uses_kit(self) -> bool:
        """Whether the method was registered with :func:`dmlsched.kit.method`
        (it checks its own options and keeps its own deadline)."""
        return hasattr(self.fn, "body")


_PROBLEMS: dict[str, Family] = {}
_METHODS: dict[tuple[str, str], MethodSpec] = {}


def register_problem(spec: Family) -> Family:
    """Register a problem family (idempotent for the same spec name)."""
    _PROBLEMS[spec.name] = spec
    return spec


def register_family(
    name: str | Family,
    instance_module: Any = None,
    solution_module: Any = None,
    *,
    instance_type: type | None = None,
    sense: Sense = "min",
    objective_name: str = "objective",
    default_reference: str | None = "exact",
    infeasible: Callable[[Any], str | None] | None = None,
) -> Family:
    """Register a family: ``register_family(Family(...))``, the declaration of
    every bundled family and of the template.

    The older form ``register_family(name, instance_module, solution_module,
    instance_type=..., ...)`` is kept for plugins: ``instance_module`` provides
    ``from_dict``, ``to_dict``, ``size`` (and ``key_count`` if it has one);
    ``solution_module`` provides ``validate``, ``evaluate`` and ``to_json`` (and
    ``from_json`` if it has one); the package is the instance module's (``infeasible``: see
    :class:`~dmlsched.family.Family`).

    Raises
    ------
    RegistryError
        If a :class:`~dmlsched.family.Family` is given with module arguments,
        or the older form lacks a module or ``instance_type``.
    """
    if isinstance(name, Family):
        if instance_module is not None or solution_module is not None or instance_type is not None:
            raise RegistryError(f"{name.name}: register_family(Family(...)) takes no other arguments")
        return register_problem(name)
    if instance_module is None or solution_module is None or instance_type is None:
        raise RegistryError(
            f"{name}: register_family needs a Family, or the instance and solution modules and instance_type"
        )
    return register_problem(
        Family(
            name=name,
            instance_type=instance_type,
            from_dict=instance_module.from_dict,
            to_dict=instance_module.to_dict,
            validate=solution_module.validate,
            evaluate=solution_module.evaluate,
            solution_to_json=solution_module.to_json,
            solution_from_json=getattr(solution_module, "from_json", None),
            sense=sense,
            objective_name=objective_name,
            size=instance_module.size,
            default_reference=default_reference,
            infeasible=infeasible,
            key_count=getattr(instance_module, "key_count", None),
            package=getattr(instance_module, "__package__", None) or None,
        )
    )


def register_method(
    problem: str,
    name: str,
    *,
    kind: Kind,
    description: str = "",
    bound: Callable[[Any], float | None] | None = None,
    bound_name: str | None = None,
    uses_solver: bool = False,
    space: str | None = None,
    options: Any = None,
    replace: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering ``fn`` as method ``name`` of ``problem``.

    ``fn(instance, *, solver, time_limit, seed, **options) -> Result``.
    ``options`` declares the method's options (:class:`~dmlsched.kit.Option`);
    ``None`` derives them from ``fn``'s keyword-only parameters with defaults.
    Methods written with :func:`dmlsched.kit.method` get their options checked,
    their deadline and the outcome-to-Result step from the kit.

    Raises
    ------
    RegistryError
        If ``problem`` is not a registered family, ``kind`` is not one of
        ``exact``, ``heuristic``, ``bound``, ``policy``, or the method exists
        and ``replace`` is not set.
    """
    if kind not in KINDS:
        raise RegistryError(f"{problem}/{name}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if problem not in _PROBLEMS:
        raise RegistryError(
            f"{problem}/{name}: unknown family {problem!r} (register the family first); "
            f"known: {', '.join(sorted(_PROBLEMS)) or 'none'}"
        )

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        old = _METHODS.get((problem, name))
        if old is not None and not replace and not _same_code(old.fn, fn):
            raise RegistryError(
                f"{problem}/{name} is already registered (by {old.fn.__module__}); "
                "pass replace=True to replace it"
            )

        opts = tuple(options) if options is not None else options_from_signature(fn)
        _METHODS[(problem, name)] = MethodSpec(
            problem=problem,
            name=name,
            fn=fn,
            kind=kind,
            description=description or _first_line(fn.__doc__),
            bound=bound,
            bound_name=bound_name,
            uses_solver=uses_solver,
            space=space,
            options=opts,
        )
        return fn

    return deco


def _same_code(a: Callable[..., Any], b: Callable[..., Any]) -> bool:
    """The same function loaded again (a plugin module imported twice)."""
    return (getattr(a, "__module__", None), getattr(a, "__qualname__", None)) == (
        getattr(b, "__module__", None), getattr(b, "__qualname__", None)
    )


def _first_line(doc: str | None) -> str:
    lines = (doc or "").strip().splitlines()
    return lines[0].strip() if lines else ""


_LOADED = False


def load_families() -> None:
    """Import every bundled family (the packages of
    :data:`dmlsched.problems.FAMILIES`, in that order); each registers itself.

    The one family loader: every lookup of the registry calls it, and so do
    the readers and the command line before they time a load.  Plugins are
    imported by whoever names them (``--plugin``, a suite's ``plugins``).
    """
    global _LOADED
    if _LOADED:
        return
    problems = importlib.import_module("dmlsched.problems")
    for name in problems.FAMILIES:
        importlib.import_module(f"{problems.__name__}.{name}")
    _BUNDLED[:] = [f"{problems.__name__}.{name}" for name in problems.FAMILIES]
    _LOADED = True


#: the packages of the bundled families, in loading order (set by :func:`load_families`)
_BUNDLED: list[str] = []


def bundled_families() -> list[Family]:
    """The families shipped with dmlsched, in the order of
    :data:`dmlsched.problems.FAMILIES` (the order of ``dmlsched reproduce``)."""
    load_families()
    by_package = {spec.package: spec for spec in _PROBLEMS.values()}
    return [by_package[p] for p in _BUNDLED if p in by_package]


def family(name: str) -> Family:
    """The registered family named ``name``: its registry name (``"gpu-grouping"``)
    or, for one release, the last part of its package (``"gpugrouping"``).

    Raises
    ------
    UnknownMethodError
        If no family has that name.
    """
    load_families()
    spec = _PROBLEMS.get(name)
    if spec is not None:
        return spec
    for spec in _PROBLEMS.values():
        if spec.package_name == name:
            return spec
    raise UnknownMethodError(f"unknown problem {name!r}; known: {', '.join(sorted(_PROBLEMS))}")


def get_problem(name: str) -> Family:
    """The registered family named ``name`` (its registry name only; :func:`family`
    also takes the package name)."""
    load_families()
    try:
        return _PROBLEMS[name]
    except KeyError:
        raise UnknownMethodError(
            f"unknown problem {name!r}; known: {', '.join(sorted(_PROBLEMS))}"
        ) from None


def problem_of(instance: Any) -> Family:
    """The :class:`~dmlsched.family.Family` whose instance type ``instance`` is."""
    load_families()
    for spec in _PROBLEMS.values():
        if isinstance(instance, spec.instance_type):
            return spec
    if isinstance(instance, (str, bytes)) or hasattr(instance, "__fspath__"):
        hint = f"got the path {str(instance)!r}: read it with dmlsched.load(path) first"
    elif isinstance(instance, dict):
        hint = "got a dict: build the instance with dmlsched.from_dict(data) first"
    else:
        hint = f"got {type(instance).__name__}, which is not a registered instance type"
    raise TypeError(f"instance: expected an instance of a registered family, {hint}")


def get_method(problem: str, method: str) -> MethodSpec:
    load_families()
    try:
        return _METHODS[(problem, method)]
    except KeyError:
        known = ", ".join(sorted(m for (p, m) in _METHODS if p == problem)) or "none"
        raise UnknownMethodError(
            f"unknown method {method!r} for problem {problem!r}; known: {known}"
        ) from None


def methods(problem: str | None = None) -> list[MethodSpec]:
    """Registered methods, optionally of one problem, sorted by (problem, name)."""
    load_families()
    return [
        _METHODS[k]
        for k in sorted(_METHODS)
        if problem is None or k[0] == problem
    ]


def families() -> list[Family]:
    """Registered problem families, sorted by name."""
    load_families()
    return [_PROBLEMS[k] for k in sorted(_PROBLEMS)]
