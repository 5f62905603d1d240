"""Tests use work limits, never wall-clock ones that a busy machine can cut (the BRIEF's standard).

Every ``time_limit=`` keyword in ``tests/`` (found by AST; ``time_limit=None`` and a parameter
passed on under its own name, ``time_limit=time_limit``, set no limit) must be

* in :data:`ALLOWED`: a test *about* the wall-clock deadline whose assertions hold whatever the
  load (a deadline already spent or refused, a cut marked not reproducible, a value read back,
  properties guaranteed either way), named with a one-line reason; or
* marked on its line with ``# wall-clock: <reason>`` (a method that always has a deadline, given
  one no load reaches).

A run expected to finish (optimal, an exact value) takes the method's work limit instead
(``work_limit``: CP-SAT deterministic time; HiGHS ``mip_max_nodes``; exact-dp ``max_states``) or
no limit on a tiny instance, so that its outcome is the same at any load.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

#: the tests about the wall-clock deadline that keep one, by (file, test): why they hold at any load
ALLOWED: dict[tuple[str, str], str] = {
    ("tests/rar/test_cp.py", "test_deadline_holds_with_an_incumbent"):
        "incumbent and bound always; not optimal only when cut, and then marked",
    ("tests/rar/test_cp.py", "test_heuristic_stop_is_reported_and_no_model_is_built"):
        "the budget is replaced by a counted one: the seconds are never read",
    ("tests/rar/test_cp.py", "test_a_deadline_passing_after_the_heuristics_is_a_cut_of_the_cp_sat_phases"):
        "the budget is replaced by one made late by an event: the seconds are never read",
    ("tests/rar/test_cp.py", "test_exact_dp_tells_its_state_limit_from_a_deadline_by_the_dp_s_own_flag"):
        "the budget is replaced by one made late by an event: the seconds are never read",
    ("tests/rar/test_cp.py", "test_a_deadline_passing_while_a_model_is_built_stops_the_build"):
        "the budget is replaced by one made late by an event: the seconds are never read",
    ("tests/rar/test_models.py", "test_ilp_bound_time_limit_returns_a_valid_bound"):
        "a cut run returns at least the load bound: status bound either way",
    ("tests/rar/test_models.py", "test_enumerations_refuse_large_instances_at_once_with_readable_counts"):
        "1e-4 s: refused by time before any enumeration, whatever the load",
    ("tests/hare/test_cp.py", "test_work_limit_is_reproducible_and_deadline_keeps_an_incumbent"):
        "0.05 s: the list incumbent comes before any clock check; feasible or optimal either way",
    ("tests/hare/test_cp.py", "test_huge_model_with_little_time_returns_the_incumbent_and_the_bound"):
        "0.6 s: too little for the build's estimate at any load; the critical-path bound is always there",
    ("tests/hare/test_models.py", "test_exact_time_limit_returns_checked_incumbent"):
        "0.5 s: a checked incumbent and a bound, or a refusal by time before the build",
    ("tests/hare/test_models.py", "test_exact_deadline_covers_the_whole_method"):
        "1e-3 s: the box's incumbent marked cut, or a refusal",
    ("tests/hare/test_models.py", "test_exact_refuses_before_building_what_it_cannot_hold"):
        "refused by its estimates (time or memory), both accepted; less time only refuses sooner",
    ("tests/hare/test_models.py", "test_relaxation_time_limit_still_gives_checked_point"):
        "0.5 s against a million-node work limit: cut at any load; checked point either way",
    ("tests/hare/test_models.py", "test_list_gives_the_same_schedule_on_a_busy_machine"):
        "the 0.5 s cut is the old behaviour shown cut (more load cuts it sooner)",
    ("tests/hare/test_models.py", "test_relaxation_solves_through_the_callers_run"):
        "0.0 s: a deadline already spent",
    ("tests/hare/test_decomposition.py", "test_deadline_still_gives_a_checked_point"):
        "1e-3 s: a deadline spent before any solve; a checked point, not reproducible",
    ("tests/hlas/test_cp.py", "test_offline_exact_returns_by_its_deadline_with_incumbent_and_bound"):
        "the hint incumbent and the trivial bound are there before any clock check",
    ("tests/cruise/test_models.py", "test_deadline_holds_for_the_whole_method_and_keeps_the_incumbent"):
        "feasible only when cut, and then marked; the incumbent either way",
    ("tests/cruise/test_models.py", "test_types_formulation_refuses_too_many_count_vectors"):
        "the formulation asserted is chosen before any work; the limit only ends the run",
    ("tests/harmony/test_models.py", "test_milp_time_limit_keeps_incumbent_and_bound"):
        "every status accepted; value and bound checked only when present",
    ("tests/gpugrouping/test_cp.py", "test_exact_cp_returns_by_its_deadline_with_incumbent_and_bound"):
        "the greedy hint before any clock check; feasible only when CP-SAT was cut, and then marked",
    ("tests/moldable/test_cp.py", "test_mip_refuses_when_building_would_eat_the_deadline"):
        "0.5 s: refused by the build's estimate before allocating, whatever the load",
    ("tests/test_kit.py", "test_refusal_before_allocation_is_n_a"):
        "an estimate of 1e6 s is refused at once",
    ("tests/test_kit.py", "test_deadline_is_for_the_whole_method"):
        "the method waits for its deadline: cut and marked at any load (no upper bound on the time)",
    ("tests/test_kit_run_context.py", "test_standalone_checks_options_against_the_method_and_starts_its_budget"):
        "the limit is read back; 30 s left at most",
    ("tests/test_kit_run_context.py", "test_delegate_equals_solve_and_inherits_the_run_settings"):
        "the child's limit is read back (at most the parent's); the child does not look at the clock",
    ("tests/test_kit_run_context.py", "test_the_three_ways_of_making_a_run_agree"):
        "the settings compared exclude the clock; the probe does not look at it",
    ("tests/test_budget.py", "test_cuts_go_up_to_the_run_that_owns_the_budget"):
        "the limit is read back; the cut is recorded by hand",
    ("tests/test_progress.py", "test_solver_heuristic_without_time_limit_gets_the_default"):
        "the remaining time is read back: at most the limit",
    ("tests/test_deadlines.py", "test_a_policy_past_its_deadline_is_stopped"):
        "an endless loop: stopped by the watchdog at any load",
    ("tests/bench/test_runner.py", "test_key_distinguishes_seed_solver_and_limit"):
        "the limit is a field of the run key: nothing runs",
    ("tests/bench/test_runner.py", "test_hard_time_limit_kills_a_run_that_ignores_it"):
        "the engine's stop at the limit (a 60 s sleep always stopped; no upper bound on the time)",
    ("tests/bench/test_limits.py", "test_killed_run_keeps_its_last_incumbent_in_the_results_file"):
        "the engine's kill: incumbents offered by about 1 s, killed at 6.5 s (no upper bound)",
    ("tests/bench/test_limits.py", "test_stop_request_returns_the_best_incumbent_without_a_kill"):
        "the engine's stop: incumbents by about 0.6 s, stop at 5 s, kill at 9 s (no upper bound)",
    ("tests/bench/test_dask.py", "test_dask_local_cluster_matches_local_engine"):
        "the engine's stop on the cluster: a 60 s sleep always stopped",
}

#: uses not yet converted, with the reason they wait (each is a run expected to finish)
PENDING: dict[tuple[str, str], str] = {}

WALL_CLOCK = re.compile(r"#\s*wall-clock:\s*\S")


@dataclass(frozen=True)
class Use:
    """One ``time_limit=`` keyword that sets a limit."""

    path: str
    line: int
    function: str
    marked: bool


def _sets_a_limit(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant) and value.value is None:
        return False
    return not (isinstance(value, ast.Name) and value.id == "time_limit")  # passed on, checked where given


def uses_in(source: str, path: str) -> list[Use]:
    """Every ``time_limit=`` keyword of ``source`` that sets a limit, with its test (the outermost
    function around it) and whether its line carries a ``# wall-clock:`` reason."""
    lines = source.splitlines()
    found: list[Use] = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = function
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and function == "<module>":
                name = child.name
            if isinstance(child, ast.keyword) and child.arg == "time_limit" and _sets_a_limit(child.value):
                span = lines[child.lineno - 1: (child.end_lineno or child.lineno)]
                found.append(Use(path, child.lineno, function, any(WALL_CLOCK.search(s) for s in span)))
            visit(child, name)

    visit(ast.parse(source), "<module>")
    return found


def _all_uses() -> list[Use]:
    out: list[Use] = []
    for p in sorted(TESTS.rglob("*.py")):
        rel = p.relative_to(ROOT).as_posix()
        out.extend(uses_in(p.read_text(encoding="utf-8"), rel))
    return out


def offending(uses: list[Use], allowed: dict[tuple[str, str], str]) -> list[Use]:
    """The uses neither allowed by their test nor marked on their line."""
    return [u for u in uses if not u.marked and (u.path, u.function) not in allowed]


def test_every_wall_clock_limit_in_the_tests_is_about_the_deadline_or_marked():
    bad = offending(_all_uses(), {**ALLOWED, **PENDING})
    assert not bad, "wall-clock limits a busy machine can cut (use a work limit, see this module):\n" + "\n".join(
        f"  {u.path}:{u.line} in {u.function}" for u in bad)


def test_every_allowance_names_a_test_that_still_uses_a_limit():
    used = {(u.path, u.function) for u in _all_uses()}
    stale = sorted((set(ALLOWED) | set(PENDING)) - used)
    assert not stale, f"allowances for tests without a time_limit= (remove them): {stale}"
    assert all(reason.strip() for reason in {**ALLOWED, **PENDING}.values())


PLANTED = '''
import dmlsched

def helper(inst, time_limit=None):
    return dmlsched.solve(inst, "exact", time_limit=time_limit)   # passed on: checked at the caller

def test_cut_by_a_busy_machine(inst):
    assert dmlsched.solve(inst, "exact", time_limit=20).status == "optimal"

def test_about_the_deadline(inst):
    dmlsched.solve(inst, "exact", time_limit=1e-3)

def test_marked(inst):
    dmlsched.solve(inst, "list",
                   time_limit=3600)  # wall-clock: list always has one; no load reaches it

def test_marked_without_a_reason(inst):
    dmlsched.solve(inst, "list", time_limit=3600)  # wall-clock:

def test_no_limit(inst):
    dmlsched.solve(inst, "exact", time_limit=None, work_limit=5)
'''


def test_a_planted_limit_is_found_and_only_an_allowance_or_a_reason_lets_it_pass():
    uses = uses_in(PLANTED, "tests/planted.py")
    assert [(u.function, u.marked) for u in uses] == [
        ("test_cut_by_a_busy_machine", False), ("test_about_the_deadline", False), ("test_marked", True),
        ("test_marked_without_a_reason", False)]
    allowed = {("tests/planted.py", "test_about_the_deadline"): "1e-3 s: spent at once"}
    assert [u.function for u in offending(uses, allowed)] == ["test_cut_by_a_busy_machine",
                                                            "test_marked_without_a_reason"]
    # an allowance names a file and a test: the same test name elsewhere is not allowed
    assert offending(uses_in(PLANTED, "tests/other.py"), allowed)[1].function == "test_about_the_deadline"
