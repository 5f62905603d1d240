"""Commands that write instances: ``dmlsched generate`` (a paper's seeded
generator to a file) and ``dmlsched convert-trace`` (a real trace to a
moldable instance file); and the lookup of a schedule kept in a results file
(``dmlsched gantt --results``).

Kept apart from :mod:`dmlsched.cli` (which only wires them in) so that they
move as they are when the command line becomes a package.

``generate FAMILY SETUP [--seed N] [KEY=VALUE]... --out FILE``: ``SETUP`` is
one of the setups the family declares (:attr:`dmlsched.family.Family.generators`,
found through the registry: a bundled family or a plugin, no list here), a
function taking keyword arguments only (with ``seed``; its public path is
``dmlsched.generate.<module>:<setup>``); ``KEY=VALUE`` are its arguments,
values read as JSON when they parse (``rounds=[2,5]``,
``heterogeneity=low``).  ``dmlsched generate`` lists the families that
declare setups, ``dmlsched generate FAMILY`` its setups with their
arguments.  ``--out -`` prints the instance on standard output.

``convert-trace FORMAT TRACE [KEY=VALUE]... --out FILE``: ``FORMAT`` ``swf``
(Standard Workload Format, :func:`dmlsched.problems.moldable.traces.swf_to_moldable`) or
``openb`` (Alibaba GPU pods, :func:`dmlsched.problems.moldable.traces.openb_to_moldable`);
``TRACE`` a file, or a file name inside the shared traces folder
(:func:`dmlsched.traces.traces_dir`); ``KEY=VALUE`` the converter's
arguments (``gpus=64 limit=500``).
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import sys
import typing
from pathlib import Path
from typing import Any, Callable

from . import io, registry
from .bench.store import latest_records
from .errors import DmlschedError, UnknownMethodError
from .family import Ref
from .formats import FAMILIES, schema
from .io import from_dict, to_dict
from .registry import problem_of
from .suites import instance_hash
from .traces import read_openb, read_swf, traces_dir

#: trace formats: (converter, reader, folder inside the shared traces folder); the converters are the
#: moldable family's, imported on first use (the command line loads no family when it starts)
TRACE_FORMATS = {
    "swf": (Ref("dmlsched.problems.moldable.traces:swf_to_moldable"), read_swf, "swf"),
    "openb": (Ref("dmlsched.problems.moldable.traces:openb_to_moldable"), read_openb, "alibaba-openb"),
}


class ToolError(DmlschedError, ValueError):
    """A bad argument of ``generate`` or ``convert-trace`` (exit 2)."""


def _json_value(raw: str) -> Any:
    try:
        v = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):
        return raw
    if isinstance(v, float) and not math.isfinite(v):
        return raw
    return v


def parse_params(pairs: list[str], where: str) -> dict[str, Any]:
    """``["num_jobs=8", "rounds=[2,5]"]`` -> ``{"num_jobs": 8, "rounds": [2, 5]}``."""
    out: dict[str, Any] = {}
    for p in pairs:
        if "=" not in p or p.startswith("="):
            raise ToolError(f"{where}: expected KEY=VALUE, got {p!r}")
        k, raw = p.split("=", 1)
        k = k.strip().replace("-", "_")
        if k in out:
            raise ToolError(f"{where}: {k} given twice")
        out[k] = _json_value(raw)
    return out


# ---------------------------------------------------------------------------
# generate
def generator_families() -> list[str]:
    """The registered families that declare setups (:attr:`~dmlsched.family.Family.generators`
    not empty), by name: every bundled family, and any plugin's."""
    return [f.name for f in registry.families() if f.generators]


def setups(family: str) -> dict[str, Callable[..., Any]]:
    """The setups ``family`` declares (:attr:`~dmlsched.family.Family.generators`), by
    their command-line name (``paper-grouping`` for ``paper_grouping``), in name order.

    Raises
    ------
    ToolError
        ``family`` is not a registered family, or declares no setup.
    """
    try:
        spec = registry.family(family)
    except UnknownMethodError:
        spec = None
    if spec is None or not spec.generators:
        raise ToolError(f"generate: unknown family {family!r} (choose from {', '.join(generator_families())})")
    return {name.replace("_", "-"): spec.generators[name] for name in sorted(spec.generators)}


def _signature_text(fn: Callable[..., Any]) -> str:
    parts = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "seed":
            continue
        if p.kind is p.VAR_KEYWORD:
            parts.append("...")
        else:
            parts.append(f"{p.name}={json.dumps(p.default, default=str) if p.default is not p.empty else '?'}")
    return " ".join(parts)


def list_setups(family: str | None) -> str:
    """The text ``dmlsched generate [FAMILY]`` prints."""
    if family is None:
        lines = ["families (dmlsched generate FAMILY lists its setups):"]
        names = generator_families()
        width = max(map(len, names), default=0)
        for fam in names:
            lines.append(f"  {fam:<{width}} {', '.join(setups(fam))}")
        return "\n".join(lines)
    found = setups(family)
    spec = registry.family(family)
    family = spec.name
    lines = [f"setups of {family} (dmlsched generate {family} SETUP [--seed N] [KEY=VALUE]... --out FILE):"]
    for name, fn in found.items():
        lines += [f"  {name}: {_summary(fn)}", f"      {_signature_text(fn)}"]
    also = [(g.name, name, fn) for g in registry.families() if spec.name in g.uses and g.generators
            for name, fn in setups(g.name).items() if _returns(fn) is spec.instance_type]
    if also:
        lines.append(f"{family} instances from setups of the families that use it:")
        lines += [f"  dmlsched generate {g} {name}: {_summary(fn)}" for g, name, fn in also]
    return "\n".join(lines)


def _summary(fn: Callable[..., Any]) -> str:
    """The first paragraph of a setup's docstring, on one line."""
    return (inspect.getdoc(fn) or "").split("\n\n")[0].replace("\n", " ")


def _returns(fn: Callable[..., Any]) -> Any:
    """The type a setup's return annotation names (``None`` if it names none or does not resolve)."""
    try:
        return typing.get_type_hints(fn).get("return")
    except (NameError, TypeError, AttributeError):
        return None


def generate(family: str, setup: str, seed: int, params: dict[str, Any]) -> Any:
    """Call generator ``setup`` of ``family`` with ``seed`` and ``params``.

    Raises
    ------
    ToolError
        An unknown family, setup or argument (naming the arguments there are).
    dmlsched.generate.GeneratorArgumentError
        A value outside the argument's domain.
    """
    found = setups(family)
    fn = found.get(setup) or found.get(setup.replace("_", "-"))
    if fn is None:
        raise ToolError(f"generate {family}: unknown setup {setup!r} (choose from {', '.join(found)})")
    sig = inspect.signature(fn).parameters
    if "seed" in params:
        raise ToolError("generate: give the seed with --seed")
    takes_any = any(p.kind is p.VAR_KEYWORD for p in sig.values())
    for k in params:
        if k not in sig and not takes_any:
            names = ", ".join(n for n in sig if n != "seed")
            raise ToolError(f"generate {family} {setup}: {k}: not an argument (its arguments: {names})")
    inst = fn(seed=seed, **params)
    if isinstance(inst, dict):
        inst = from_dict(inst)
    return inst


# ---------------------------------------------------------------------------
# convert-trace
def trace_file(fmt: str, name: str) -> Path:
    """``name`` as given when it exists, else inside the shared traces folder."""
    p = Path(name)
    if p.exists() or p.is_absolute():
        if not p.is_file():
            raise ToolError(f"convert-trace: {name}: no such file")
        return p
    q = traces_dir() / TRACE_FORMATS[fmt][2] / name
    if not q.is_file():
        raise ToolError(f"convert-trace: {name}: no such file (nor {q})")
    return q


def convert_trace(fmt: str, path: str, params: dict[str, Any], *, skip_bad: bool = False) -> Any:
    """Read a trace and convert it to a moldable instance.

    Raises
    ------
    ToolError
        An unknown format or converter argument.
    dmlsched.traces.TraceError
        A malformed row (file and line named), unless ``skip_bad``.
    """
    if fmt not in TRACE_FORMATS:
        raise ToolError(f"convert-trace: unknown format {fmt!r} (choose from {', '.join(TRACE_FORMATS)})")
    ref, read, _ = TRACE_FORMATS[fmt]
    conv = ref.get()
    conv_name = conv.__name__
    sig = inspect.signature(conv).parameters
    allowed = [n for n, p in sig.items() if p.kind is p.KEYWORD_ONLY]
    for k in params:
        if k not in allowed:
            raise ToolError(f"convert-trace {fmt}: {k}: not an argument of {conv_name} "
                            f"(its arguments: {', '.join(allowed)})")
    trace = read(trace_file(fmt, path), skip_bad=skip_bad)
    if isinstance(params.get("speedup"), list):
        params = {**params, "speedup": tuple(tuple(x) for x in params["speedup"])}
    try:
        return conv(trace, **params)
    except TypeError as e:  # a value of the wrong type for the converter
        raise ToolError(f"convert-trace {fmt}: {e}") from None


# ---------------------------------------------------------------------------
# writing
def write_instance(inst: Any, out: str) -> str:
    """Write ``inst`` to ``out`` atomically (``-``: standard output); returns
    what to report on standard error."""
    if out == "-":
        sys.stdout.write(io.dumps(inst) + "\n")
        sys.stdout.flush()
        return "instance written to standard output"
    io.save(inst, out)
    return f"instance written to {out}"


def _describe(inst: Any) -> str:
    spec = problem_of(inst)
    size = ", ".join(f"{k} {v}" for k, v in spec.size(inst).items())
    return f"{spec.name} instance{' ' + repr(inst.name) if getattr(inst, 'name', '') else ''} ({size})"


def add_generate_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched generate``."""
    p.add_argument("family", nargs="?", help="a family that declares setups (none: list them with their setups)")
    p.add_argument("setup", nargs="?", help="the setup (a generator function; none: list the family's)")
    p.add_argument("params", nargs="*", metavar="KEY=VALUE",
                   help="generator arguments, values read as JSON when they parse (num_jobs=20 rounds=[2,5])")
    p.add_argument("--seed", type=int, default=0, help="seed of every random draw (default 0)")
    p.add_argument("--out", metavar="FILE", help="instance file to write (atomically); '-': standard output")


def add_convert_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched convert-trace``."""
    p.add_argument("format", choices=sorted(TRACE_FORMATS), help="trace format")
    p.add_argument("trace", help="trace file (or a file name in the shared traces folder)")
    p.add_argument("params", nargs="*", metavar="KEY=VALUE",
                   help="converter arguments, values read as JSON when they parse (gpus=64 limit=500)")
    p.add_argument("--skip-bad", action="store_true", help="skip malformed rows (counted in the instance's source)")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="instance file to write (atomically); '-': standard output")


def add_schema_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``dmlsched schema``."""
    p.add_argument("family", nargs="?", help="the family (none: list the families)")


def cli_schema(args: argparse.Namespace) -> int:
    """``dmlsched schema FAMILY``: the JSON Schema of the family's instance files."""
    if args.family is None:
        print("families (dmlsched schema FAMILY prints its JSON Schema): " + ", ".join(FAMILIES))
        return 0
    if args.family not in FAMILIES:
        raise ToolError(f"schema: unknown family {args.family!r} (choose from {', '.join(FAMILIES)})")
    print(json.dumps(schema(args.family), indent=2))
    return 0


def cli_generate(args: argparse.Namespace) -> int:
    """``dmlsched generate``: list families/setups, or write one instance."""
    if args.family is None or args.setup is None:
        print(list_setups(args.family))
        return 0
    if args.out is None:
        raise ToolError("generate: --out FILE is required to write an instance ('-': standard output)")
    if not 0 <= args.seed < 2**63:
        raise ToolError(f"--seed: must be an integer in [0, 2^63), got {args.seed}")
    params = parse_params(args.params, f"generate {args.family} {args.setup}")
    inst = generate(args.family, args.setup, args.seed, params)
    msg = write_instance(inst, args.out)
    print(f"generate: {_describe(inst)}: {msg}", file=sys.stderr)
    return 0


def cli_convert_trace(args: argparse.Namespace) -> int:
    """``dmlsched convert-trace``: a trace to a moldable instance file."""
    params = parse_params(args.params, f"convert-trace {args.format}")
    inst = convert_trace(args.format, args.trace, params, skip_bad=args.skip_bad)
    msg = write_instance(inst, args.out)
    print(f"convert-trace: {_describe(inst)}: {msg}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------------
# schedules kept in results files
def solution_from_json(instance: Any, data: Any) -> Any:
    """Rebuild a solution from its JSON form with the family's
    :attr:`~dmlsched.family.Family.solution_from_json`; ``None`` when the family
    has none (:attr:`~dmlsched.family.Family.no_solution_from_json` says why)."""
    spec = problem_of(instance)
    return None if spec.solution_from_json is None else spec.solution_from_json(instance, data)


def recorded_run(results: str, instance: Any, method: str, seed: int | None = None) -> dict:
    """The newest record in ``results`` of ``method`` (a method or a variant
    ``NAME@LABEL``) on ``instance`` (matched by instance hash) that kept its
    solution (``dmlsched bench --keep-solutions``).

    Raises
    ------
    ToolError
        No such record, or none that kept its solution.
    """
    if not Path(results).is_file():
        raise ToolError(f"--results {results}: no such file")
    h = instance_hash(to_dict(instance))
    mine = [r for r in latest_records([results]) if r.get("instance_hash") == h
            and method in (r.get("variant"), r.get("method")) and (seed is None or r.get("seed") == seed)]
    if not mine:
        raise ToolError(f"--results {results}: no run of {method}"
                        f"{'' if seed is None else f' with seed {seed}'} on this instance")
    kept = [r for r in mine if r.get("solution") is not None]
    if not kept:
        raise ToolError(f"--results {results}: the runs of {method} on this instance kept no schedule "
                        "(run dmlsched bench with --keep-solutions)")
    return kept[-1]
