"""Exit codes come from exception types (``dmlsched.cli.EXIT_CODES``), not from message text.

Every row of the table is checked with an exception of its own type and with a
subclass of it (the first row an exception is an instance of decides its exit
code and its one line on standard error); no row is shadowed by an earlier one;
the solver errors that used to be told apart by their message text are raised
with their own types, through the command line.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

import dmlsched
import dmlsched.solvers as solvers
from dmlsched import cli
from dmlsched.cli import EXIT_BAD_INPUT, EXIT_CODES, exit_for, main
from dmlsched.errors import (
    DmlschedError,
    InstanceError,
    InvalidSolutionError,
    NotApplicable,
    SolverError,
    SolverLimitError,
    SolverUnavailableError,
    UnknownMethodError,
    UnknownSolverError,
    UsageError,
)
from dmlsched.kit import OptionError

ROOT = Path(__file__).resolve().parents[1]
TINY = str(ROOT / "instances" / "hare" / "tiny.json")
GUROBI_HINT = " (pip install 'dmlsched[gurobi]'; its pip licence is size-limited)"

#: (exception, exit code, the one line on standard error): one case per row of EXIT_CODES at least
CASES = [
    (InvalidSolutionError("x[2]: overlaps"), 1, "internal error: invalid solution: x[2]: overlaps"),
    (SolverLimitError("model too large"), 2, "error: model too large"),
    (UnknownSolverError("unknown solver 'cplex'; choose one of highs"), 2,
     "error: unknown solver 'cplex'; choose one of highs"),
    (SolverUnavailableError("solver 'gurobi' is not available on this machine"), 2,
     "error: --solver: solver 'gurobi' is not available on this machine" + GUROBI_HINT),
    (SolverUnavailableError("solver 'other' is not available on this machine"), 2,
     "error: --solver: solver 'other' is not available on this machine"),
    (SolverError("highs failed: boom"), 1, "solver error: highs failed: boom"),
    (InstanceError("jobs[0].weight", "must be >= 0"), 2, "error: jobs[0].weight: must be >= 0"),
    (UnknownMethodError("unknown method 'x' for problem 'hare'"), 2, "error: unknown method 'x' for problem 'hare'"),
    (UsageError("--out: a folder"), 2, "error: --out: a folder"),
    (OptionError("scale", "must be >= 1"), 2, "error: option 'scale': must be >= 1"),
    (NotApplicable("too many jobs"), 2, "error: too many jobs"),
    (ValueError("two\n  lines"), 2, "error: two lines"),
    (FileNotFoundError(errno.ENOENT, "No such file or directory", "/no/such"), 2,
     "error: /no/such: No such file or directory"),
    (OSError("no filename"), 2, "error: no filename"),
    (ModuleNotFoundError("No module named 'matplotlib'"), 2, "error: No module named 'matplotlib'"),
    (RuntimeError("a bug"), 1, "internal error: RuntimeError: a bug (run with -vv for the traceback)"),
]


def _row(e: BaseException) -> tuple:
    return next(r for r in EXIT_CODES if isinstance(e, r[0]))


@pytest.mark.parametrize("exc,code,line", CASES, ids=lambda v: type(v).__name__ if isinstance(v, Exception) else None)
def test_each_case_gives_its_code_and_line(exc, code, line, capsys):
    assert exit_for(exc) == code
    assert capsys.readouterr().err == line + "\n"


def test_every_row_has_a_case():
    assert {_row(e)[0] for e, _, _ in CASES} == {r[0] for r in EXIT_CODES}


def test_no_row_is_shadowed_by_an_earlier_one():
    kinds = [r[0] for r in EXIT_CODES]
    for j, later in enumerate(kinds):
        for earlier in kinds[:j]:
            assert not issubclass(later, earlier), f"{later.__name__} is caught by the earlier row {earlier.__name__}"


def _subclass_instance(kind: type[BaseException]) -> BaseException:
    sub = type(f"My{kind.__name__}", (kind,), {})
    return sub("field", "a message") if issubclass(kind, InstanceError) else sub("a message")


@pytest.mark.parametrize("row", EXIT_CODES, ids=lambda r: r[0].__name__)
def test_a_subclass_gets_its_rows_code(row, capsys):
    kind, code, prefix, _ = row
    e = _subclass_instance(kind)
    assert _row(e) is row
    assert exit_for(e) == code
    assert capsys.readouterr().err.startswith(prefix)


def test_codes_are_bad_input_or_failure():
    assert {r[1] for r in EXIT_CODES} == {1, EXIT_BAD_INPUT}


def test_the_traceback_of_a_bug_only_with_vv(capsys):
    try:
        raise RuntimeError("a bug")
    except RuntimeError as e:
        assert exit_for(e, verbose=2) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.endswith("internal error: RuntimeError: a bug (run with -vv for the traceback)\n")
    assert exit_for(ValueError("bad"), verbose=2) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_not_an_exception_is_not_mapped():
    with pytest.raises(SystemExit):
        exit_for(SystemExit(3))


def test_usage_error_lives_in_errors_and_the_cli_re_exports_it():
    assert cli.UsageError is UsageError
    assert issubclass(UsageError, DmlschedError) and issubclass(UsageError, ValueError)


def test_solver_errors_have_their_types():
    with pytest.raises(UnknownSolverError, match="unknown solver 'cplex'"):
        solvers.check_solver_name("cplex")
    assert issubclass(UnknownSolverError, SolverError) and issubclass(SolverUnavailableError, SolverError)


def test_an_unavailable_solver_through_the_command_line(monkeypatch, capsys):
    """solve_model raises SolverUnavailableError (not matched by its text any more): exit 2 and the hint."""
    monkeypatch.setattr(solvers, "solver_available", lambda name: False)
    code = main(["solve", TINY, "--method", "exact", "--solver", "gurobi"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err == "error: --solver: solver 'gurobi' is not available on this machine" + GUROBI_HINT + "\n"


def test_an_unknown_solver_through_the_library(capsys):
    """(The command line refuses it in argparse first: exit 2 there too.)"""
    with pytest.raises(UnknownSolverError) as info:
        dmlsched.solve(dmlsched.load(TINY), "smith-eft", solver="cplex")
    assert exit_for(info.value) == 2
    assert capsys.readouterr().err.startswith("error: unknown solver 'cplex'")
