"""Import time of dmlsched: ``import dmlsched`` and loading every family.

Each statement runs in ``--runs`` fresh interpreters (wall clock of the whole
process, the interpreter's own start-up included and shown on its own line);
the table gives the minimum and the median, and which heavy packages the
statement imported.  Writes ``benchmarks/import_time.md``::

    .venv/bin/python benchmarks/import_time.py [--runs 5] [--out benchmarks/import_time.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

STATEMENTS = {
    "interpreter start-up": "pass",
    "import dmlsched": "import dmlsched",
    "load every family (registry)": "import dmlsched; dmlsched.families()",
}
#: what was measured before (kept in the written file)
BEFORE = (
    "Before: issue 12 found `import dmlsched` at about 1.6 s (pyomo imported at module top by three "
    "families). At commit 4b69cc1, on this machine under a similar load: `import dmlsched` 0.20 s and "
    "loading every family 1.38-1.45 s, of which scipy.sparse (imported at module top of "
    "`problems/hare/lowerbounds.py`, now inside the function that builds the LP) about 0.45 s. "
    "`tests/test_template.py` checks that loading every family imports none of pyomo, scipy, ortools, "
    "highspy, gurobipy, matplotlib, hypothesis, dask."
)
HEAVY = ("numpy", "scipy", "pyomo", "ortools", "highspy", "gurobipy", "matplotlib", "hypothesis")


def _wall(code: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t0


def _heavy(code: str) -> str:
    probe = f"{code}\nimport sys; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True).stdout
    return out.strip() or "none"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=str(Path(__file__).with_name("import_time.md")))
    args = ap.parse_args(argv)
    rows = []
    for label, code in STATEMENTS.items():
        times = [_wall(code) for _ in range(args.runs)]
        rows.append(f"| {label} | `{code}` | {min(times):.2f} s | {statistics.median(times):.2f} s | {_heavy(code)} |")
        print(rows[-1], flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    text = "\n".join([
        "# Import time",
        "",
        f"Wall clock of {args.runs} fresh processes per statement, Python {platform.python_version()}, "
        f"load average {load:.1f} when measured (a shared machine: compare rows of one run, not runs).",
        "",
        "    .venv/bin/python benchmarks/import_time.py",
        "",
        "| what | statement | min | median | heavy packages imported |",
        "|---|---|---|---|---|",
        *rows,
        "",
        BEFORE,
        "",
    ])
    Path(args.out).write_text(text)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
