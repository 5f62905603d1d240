"""The handlers of ``dmlsched generate``, ``convert-trace`` and ``schema``: their
arguments and what they print; the work is :mod:`dmlsched.tools`'s."""

from __future__ import annotations

import argparse
import json
import sys

from .. import registry
from ..errors import UnknownMethodError
from ..registry import problem_of
from ..tools import (
    TRACE_FORMATS,
    ToolError,
    _families_in_order,
    convert_trace,
    generate,
    list_setups,
    parse_params,
    schema,
    schema_families,
    write_instance,
)


def _describe(inst: object) -> str:
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
    names = schema_families()
    if args.family is None:
        print("families (dmlsched schema FAMILY prints its JSON Schema): " + ", ".join(names))
        without = [f.name for f in _families_in_order() if f.schema is None]
        if without:
            print("families without an instance schema (Family.schema): " + ", ".join(without))
        return 0
    try:
        spec = registry.family(args.family)
    except UnknownMethodError:
        raise ToolError(f"schema: unknown family {args.family!r} (choose from {', '.join(names)})") from None
    print(json.dumps(schema(spec.name), indent=2))
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
