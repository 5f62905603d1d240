"""Registry of problem families and their methods.

A *problem family* registers a :class:`ProblemSpec` (how to read, write,
validate and evaluate); each *method* registers a :class:`MethodSpec` under the
key ``(problem, method)``.  Every method has the same signature::

    fn(instance, *, solver, time_limit, seed, **options) -> Result

so nothing downstream branches on method names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Literal

from .errors import DmlschedError, UnknownMethodError
from .options import options_from_signature

Kind = Literal["exact", "heuristic", "bound", "policy"]
Sense = Literal["min", "max"]
KINDS = ("exact", "heuristic", "bound", "policy")


class RegistryError(DmlschedError, ValueError):
    """A registration that would break the registry (unknown family or kind,
    a method replaced without ``replace=True``)."""


@dataclass(frozen=True)
class ProblemSpec:
    """How a problem family plugs into dmlsched.

    Attributes
    ----------
    name
        Value of the ``"problem"`` field in instance files.
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


_PROBLEMS: dict[str, ProblemSpec] = {}
_METHODS: dict[tuple[str, str], MethodSpec] = {}


def register_problem(spec: ProblemSpec) -> ProblemSpec:
    """Register a problem family (idempotent for the same spec name)."""
    _PROBLEMS[spec.name] = spec
    return spec


def register_family(
    name: str,
    instance_module: Any,
    solution_module: Any,
    *,
    instance_type: type,
    sense: Sense = "min",
    objective_name: str = "objective",
    default_reference: str | None = "exact",
    infeasible: Callable[[Any], str | None] | None = None,
) -> ProblemSpec:
    """Register a family laid out by convention: ``instance_module`` provides
    ``from_dict``, ``to_dict`` and ``size``; ``solution_module`` provides
    ``validate``, ``evaluate`` and ``to_json`` (``infeasible``: see
    :class:`ProblemSpec`)."""
    return register_problem(
        ProblemSpec(
            name=name,
            instance_type=instance_type,
            from_dict=instance_module.from_dict,
            to_dict=instance_module.to_dict,
            validate=solution_module.validate,
            evaluate=solution_module.evaluate,
            solution_to_json=solution_module.to_json,
            sense=sense,
            objective_name=objective_name,
            size=instance_module.size,
            default_reference=default_reference,
            infeasible=infeasible,
            key_count=getattr(instance_module, "key_count", None),
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


def _ensure_loaded() -> None:
    import importlib

    importlib.import_module("dmlsched.problems")  # imports every family, which registers itself


def get_problem(name: str) -> ProblemSpec:
    _ensure_loaded()
    try:
        return _PROBLEMS[name]
    except KeyError:
        raise UnknownMethodError(
            f"unknown problem {name!r}; known: {', '.join(sorted(_PROBLEMS))}"
        ) from None


def problem_of(instance: Any) -> ProblemSpec:
    """The :class:`ProblemSpec` whose instance type ``instance`` is."""
    _ensure_loaded()
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
    _ensure_loaded()
    try:
        return _METHODS[(problem, method)]
    except KeyError:
        known = ", ".join(sorted(m for (p, m) in _METHODS if p == problem)) or "none"
        raise UnknownMethodError(
            f"unknown method {method!r} for problem {problem!r}; known: {known}"
        ) from None


def methods(problem: str | None = None) -> list[MethodSpec]:
    """Registered methods, optionally of one problem, sorted by (problem, name)."""
    _ensure_loaded()
    return [
        _METHODS[k]
        for k in sorted(_METHODS)
        if problem is None or k[0] == problem
    ]


def families() -> list[ProblemSpec]:
    """Registered problem families, sorted by name."""
    _ensure_loaded()
    return [_PROBLEMS[k] for k in sorted(_PROBLEMS)]
