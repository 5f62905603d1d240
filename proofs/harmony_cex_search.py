"""Search for the smallest counterexample to Fig. 4.17's "within about 2%".

Instances are ordered by (jobs, machines, total of the integer times); times
are t_cpu in 1..4, t_net in 0..4, reference DoP 1, weights 2:1.  Prints the
first (jobs, machines) with a violation and its smallest instances.

    /work/venv/bin/python proofs/harmony_cex_search.py
"""

from __future__ import annotations

import itertools

from dmlsched.problems.harmony.bruteforce import brute_force
from dmlsched.problems.harmony.heuristics import schedule
from dmlsched.problems.harmony.instance import HarmonyInstance, HarmonyJob
from dmlsched.problems.harmony.solution import HarmonySolution, evaluate


def main(rule: str = "per-job") -> None:
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
                s = schedule(inst, group_rule=rule)
                h = evaluate(inst, HarmonySolution(tuple(map(tuple, s.groups)), tuple(s.machines)))
                o = brute_force(inst)[1]
                if o / h > 1.02:
                    found.append((sum(times), -o / h, pairs))
            if found:
                found.sort()
                print(f"L6 {rule}: first violations at n={n}, M={big_m}: {len(found)} instances")
                for tot, neg_ratio, pairs in found[:5]:
                    print(f"  (t_cpu, t_net) = {pairs}: ratio {-neg_ratio:.4f}")
                return
    print("no violation found")


if __name__ == "__main__":
    main("per-job")
    main("aggregate")
