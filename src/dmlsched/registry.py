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

from .errors import UnknownMethodError

Kind = Literal["exact", "heuristic", "bound", "policy"]
Sense = Literal["min", "max"]


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
) -> ProblemSpec:
    """Register a family laid out by convention: ``instance_module`` provides
    ``from_dict``, ``to_dict`` and ``size``; ``solution_module`` provides
    ``validate``, ``evaluate`` and ``to_json``."""
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
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering ``fn`` as method ``name`` of ``problem``."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
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
        )
        return fn

    return deco


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
    raise TypeError(f"{type(instance).__name__} is not a registered instance type")


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
