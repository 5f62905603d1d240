"""Search for the smallest counterexample to Fig. 4.17's "within about 2%".

Instances are ordered by (jobs, machines, total of the integer times); times
are t_cpu in 1..4, t_net in 0..4, reference DoP 1, weights 2:1.  Prints the
first (jobs, machines) with a violation and its smallest instances, for each
reading of L6 (``group_rule``) under the default admission (``first-stop``) and
with every job admitted (``all``).

    .venv/bin/python proofs/harmony_cex_search.py
"""

from __future__ import annotations

import itertools

from dmlsched.problems.harmony.bruteforce import brute_force
from dmlsched.problems.harmony.heuristics import schedule
from dmlsched.problems.harmony.instance import HarmonyInstance, HarmonyJob
from dmlsched.problems.harmony.solution import HarmonySolution, evaluate


def search(rule: str = "per-job", admission: str = "first-stop") -> tuple[int, int, list] | None:
    """The first ``(n, M)`` with a violation and its violations, smallest first.

    Each violation is ``(total of the times, -ratio, [(t_cpu, t_net), ...])``, where
    ratio is ``U_opt / U_harmony > 1.02``; ``None`` when no instance violates C1.
    """
    for n in (1, 2, 3):
        for big_m in (1, 2, 3):
            found = []
            for times in itertools.product(range(1, 5), range(0, 5), repeat=n):
                pairs = list(zip(times[0::2], times[1::2]))
                if pairs != sorted(pairs):  # jobs in canonical order
                    continue
                inst = HarmonyInstance(
                    machines=big_m,
                    reference_dop=1.0,
                    jobs=tuple(HarmonyJob(f"j{i}", float(a), float(b)) for i, (a, b) in enumerate(pairs)),
                )
                s = schedule(inst, group_rule=rule, admission=admission)
                h = evaluate(inst, HarmonySolution(tuple(map(tuple, s.groups)), tuple(s.machines)))
                o = brute_force(inst)[1]
                if o / h > 1.02:
                    found.append((sum(times), -o / h, pairs))
            if found:
                return n, big_m, sorted(found)
    return None


def main(rule: str = "per-job", admission: str = "first-stop") -> None:
    out = search(rule, admission)
    if out is None:
        print(f"L6 {rule}, admission {admission}: no violation found")
        return
    n, big_m, found = out
    print(f"L6 {rule}, admission {admission}: first violations at n={n}, M={big_m}: {len(found)} instances")
    for _tot, neg_ratio, pairs in found[:5]:
        print(f"  (t_cpu, t_net) = {pairs}: ratio {-neg_ratio:.4f}")


if __name__ == "__main__":
    for admission in ("first-stop", "all"):  # the default (Algorithm 1 L10-13) and every job admitted
        main("per-job", admission)
        main("aggregate", admission)
