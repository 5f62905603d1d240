"""Exception types of dmlsched."""

from __future__ import annotations


class DmlschedError(Exception):
    """Base class of every error dmlsched raises on purpose."""


class InstanceError(DmlschedError, ValueError):
    """A malformed instance: names the offending field.

    ``str(err)`` reads ``"jobs[2].train_time.K80: must be > 0"``.
    """

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}" if field else message)


class InvalidSolutionError(DmlschedError):
    """A solution breaks a constraint of the paper's model (validator verdict)."""


class NotApplicable(DmlschedError):
    """The method does not apply to this instance (outside its domain or size limit).

    Raised by a method; :func:`dmlsched.solve` turns it into a ``Result`` with
    status ``error``, the message in ``details["error"]`` and
    ``details["not_applicable"] = True``, which the bench summary lists apart
    from failures.
    """


class SolverError(DmlschedError):
    """A solver could not be run or failed."""


class SolverLimitError(SolverError):
    """The model exceeds the solver's licence (e.g. Gurobi's size-limited pip licence)."""


class UnknownSolverError(SolverError):
    """A solver name that is not one of :data:`dmlsched.solvers.ALL_SOLVERS` (bad input)."""


class SolverUnavailableError(SolverError):
    """A known solver that cannot run on this machine: its package or licence is missing."""


class UsageError(DmlschedError, ValueError):
    """A command-line argument or output path that cannot be used (exit 2)."""


class UnknownMethodError(DmlschedError, KeyError):
    """No method registered under this (problem, method) key."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""
