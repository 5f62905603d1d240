"""Every exact method and bound of every family against the exact-arithmetic
referees (``tests/referee/``) on many tiny instances per magnitude class;
writes ``benchmarks/referee.md``.

    .venv/bin/python benchmarks/referee.py --seeds 20 --solvers highs,gurobi

The suite (``tests/referee/test_referee.py``) runs one instance per (family,
class); this runs ``--seeds`` of them, and the Pyomo-model methods once per
solver of ``--solvers`` (Gurobi's size-limited licence holds every one of
these models): the cross-check of two solvers against a third, independent,
derivation.  Each method gets ``--time-limit`` seconds (default 60: far more
than any of these tiny instances needs; an exact method that does not prove
the optimum within it fails its check and is listed); the times recorded are
for reading, with the load average next to them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from referee.common import MAGNITUDES  # noqa: E402
from referee.runs import FAMILIES, judge, runs_of  # noqa: E402

DESCRIPTION = {
    "plain": "halves and small integers",
    "tiny": "times (speeds, gradient sizes and bandwidths for rar) near 1e-6",
    "offset": "releases near 1e5 with times near 1e-3",
    "thirds": "denominators 3 and 7",
    "decimals": "seven decimals (memories 0.3333334-like for moldable)",
}


#: what the referees found while issue 24 was built (kept with the record, in the order found)
FINDINGS = """\
Found by the referees and fixed in issue 24 (each now has a test): hare `exact`
said optimal 1.2e-5 where the optimum is 1.15e-5 (times near 1e-6: HiGHS's
absolute tolerances); hlas `offline-mip` said optimal 0.00417 where the optimum
is 0.004 (releases near 1e5: the relative gap was applied to the sum of
completions); hlas `offline-exact` lost its proof on releases near 1e5 (an
objective cut from a float product excluded the hint) and proved nothing on
thirds and sevenths (powers of ten only); hare `exact-cp` did not prove data in
sevenths; moldable `exact-cp` did not prove times near 1e-6; harmony `exact`
returned a grouping worth 0.885 with a 'bound' of 0.786 (times near 1e-6);
hare `relaxation` returned no bound at all (times near 1e-6); every bound method
said `optimal`.  With more instances: moldable `exact` (HiGHS and Gurobi)
returned a schedule with two tasks of memory 0.5000001 on one GPU of memory 1,
which the validator forgave (tolerance 1e-6); gpu-grouping `exact` ended in a
HiGHS "Solve error" on seven identical GPUs (speeds 2/3 and 2/5, three groups);
moldable `exact-cp`'s inexact scale (10^6) left seven-decimal data 1.07e-6
apart.

Open (listed under Failures when they occur): on single-GPU instances with
seven-decimal times (scale 10^7), CP-SAT with the list-scheduling hint can fail
to prove the optimum within the limit in hare `exact-cp` and hlas
`offline-exact` (the status is then `feasible`, never a wrong `optimal`); the
same instances are proven in 0.2 s or less with `hint=False`, with CP-SAT's
`repair_hint` or at `linearization_level` 0 (hare), so the search parameters
are the suspect; not changed here without a measurement of their reach.
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="instances per (family, magnitude class)")
    ap.add_argument("--solvers", default="highs,gurobi", help="MIP solvers for the Pyomo-model methods")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per method and instance")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "referee.md"))
    args = ap.parse_args(argv)

    import dmlsched
    from dmlsched.solvers import solver_available

    solvers = [s for s in args.solvers.split(",") if s and solver_available(s)]
    families = [f for f in args.families.split(",") if f]
    load0 = os.getloadavg()
    t_all = time.perf_counter()
    rows = []
    failures: list[str] = []
    statuses: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for family in families:
        build, mod = FAMILIES[family]
        for mag in mod.MAGNITUDES:
            t0 = time.perf_counter()
            checks = 0
            bad_here = 0
            for seed in range(args.seeds):
                case = build(seed, mag)
                inst = dmlsched.from_dict(case.data)
                for run in runs_of(family):
                    for solver in (solvers if run.mip else ["highs"]):
                        name = run.name + (f" ({solver})" if run.mip else "")
                        try:
                            res = dmlsched.solve(inst, run.method, solver=solver, time_limit=args.time_limit,
                                                 **run.options)
                            bad = judge(case, run, res)
                            statuses[(family, name)][res.status.value] += 1
                        except dmlsched.DmlschedError as e:
                            bad = [f"{family}/{name} on {mag} #{seed}: {type(e).__name__}: {e}"]
                            statuses[(family, name)]["raised"] += 1
                        checks += 1
                        if bad:
                            bad_here += 1
                            failures.extend(f"{b} [{solver}]" for b in bad)
                print(f"{family} {mag} #{seed}: {len(failures)} failures so far", file=sys.stderr, flush=True)
            rows.append((family, mag, args.seeds, checks, bad_here, time.perf_counter() - t0))
    elapsed = time.perf_counter() - t_all
    load1 = os.getloadavg()
    write(Path(args.out), rows, statuses, failures, args.seeds, solvers, elapsed, load0, load1, args.time_limit)
    print(f"{sum(r[2] for r in rows)} instances, {sum(r[3] for r in rows)} checks, {len(failures)} failures, "
          f"{elapsed:.0f} s; wrote {args.out}", file=sys.stderr)
    return 1 if failures else 0


def write(path: Path, rows, statuses, failures, seeds, solvers, elapsed, load0, load1, limit) -> None:
    import datetime

    skipped = {f: mod.SKIPPED for f, (_, mod) in FAMILIES.items()}
    lines = [
        "# Exact methods and bounds against the exact-arithmetic referees",
        "",
        "Generated by `benchmarks/referee.py` (issue 24): every exact method and every bound of every family "
        "on tiny instances whose optimum the referees of `tests/referee/` prove by enumeration in exact "
        "rational arithmetic, written from the papers' models and independent of the project's formulations "
        "and evaluators.  A check fails when an `optimal` objective is off the referee's optimum by more than "
        "the relative tolerance 1e-6, when a bound passes the optimum, when a value beats the optimum, or "
        "when an exact method does not prove the optimum of an instance this small (roles: "
        "`tests/referee/runs.py`).",
        "",
        f"Run {datetime.date.today().isoformat()}: {seeds} instances per (family, magnitude class); Pyomo-model "
        f"methods with {' and '.join(solvers)}; {limit:g} s per method and instance; "
        f"{elapsed:.0f} s in all, load average "
        f"{load0[0]:.2f} at the start and {load1[0]:.2f} at the end (two cores, shared).",
        "",
        "Magnitude classes: " + "; ".join(f"`{m}`: {DESCRIPTION[m]}" for m in MAGNITUDES) + ".",
        "",
        "| family | class | instances | checks | failed checks | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for family, mag, n, checks, bad, secs in rows:
        lines.append(f"| {family} | {mag} | {n} | {checks} | {bad} | {secs:.1f} |")
    tot_i = sum(r[2] for r in rows)
    tot_c = sum(r[3] for r in rows)
    tot_b = sum(r[4] for r in rows)
    lines += [f"| **all** | | **{tot_i}** | **{tot_c}** | **{tot_b}** | {elapsed:.0f} |", ""]
    lines += ["Classes that do not apply to a family (and why): " + "; ".join(
        f"{f}: `{m}` ({why})" for f, sk in skipped.items() for m, why in sk.items()) + ".", ""]
    lines += ["## Statuses per method", "", "| family | method | statuses |", "|---|---|---|"]
    for (family, name), c in sorted(statuses.items()):
        lines.append(f"| {family} | {name} | " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())) + " |")
    lines += ["", "## What the referees found", "", FINDINGS.rstrip(), "", "## Failures", ""]
    lines += [f"- {f}" for f in failures] if failures else ["None."]
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
