"""The ``dmlsched`` command.

Subcommands: ``solve``, ``check``, ``methods``, ``gantt``, ``bench``, ``report``,
``reproduce``, ``hunt``, ``generate``, ``convert-trace``, ``schema`` (the
last three in :mod:`dmlsched.tools`); ``dmlsched --version`` prints the version.  An
instance file given as ``-`` is read from standard input.

Flags mean the same thing on every subcommand: ``-m/--method``, ``-o/--option
KEY=VALUE`` (a method option, repeatable), ``--out`` (a file or folder to write;
it has no short form), ``--plugin MODULE_OR_FILE`` (repeatable: import a module
or a ``.py`` file that registers methods or families first), ``--display``
(stream the solver's own log), ``-v`` (one line per stage), ``-vv`` (debug of
dmlsched only).

Exit codes: 0 success; 1 failure (the method ended with status ``error``, with
its message on standard error; a method returned an invalid solution; a solver
crashed; an internal error); 2 bad input (malformed file, unknown method,
option or solver, bad argument, an output path that cannot be written, model
too large for the chosen solver's licence) with one line on standard error
naming the field, argument or path; 3 the method refused the instance (status
``n/a``: outside its domain, or more than it can hold in the time or memory
given), with its reason on standard error; 128 + the signal (130 Ctrl-C, 143
``SIGTERM``) when a stop request cut the command (said on standard error; no
previous output replaced by the cut result).  Output paths are checked before
any work starts (an input of the same command, a FIFO or a device is
refused), and files are written atomically, so a bad input never changes or
loses a file that was already there.  Standard output carries only what the
command prints (:mod:`dmlsched.stdio`).

Modules (this package imports the library; no library module imports it, only
the ``__main__`` entry points do):

command
    :func:`build_parser`, the handlers, :func:`main` (re-exported here: the
    entry point ``dmlsched = "dmlsched.cli:main"``).
args, exits, paths
    argument types and shared flags; exit codes (:data:`EXIT_CODES`); output
    paths, results files, plugins and instance files.
solve, gantt, bench, hunt
    ``solve``/``check``/``methods``; ``gantt``; ``bench``/``report``/``reproduce``
    (and ``python -m dmlsched.bench``); ``hunt``.
"""

from ..errors import UsageError
from .command import HANDLERS, build_parser, configure_logging, main
from .exits import EXIT_BAD_INPUT, EXIT_CODES, EXIT_NOT_APPLICABLE, exit_for
from .gantt import cmd_gantt, gantt_arguments
from .paths import (
    check_image_format,
    check_output_path,
    check_results_file,
    load_plugins,
    method_options,
    solver_log_to_stderr,
)
from .solve import cmd_check, cmd_methods, cmd_solve

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_CODES",
    "EXIT_NOT_APPLICABLE",
    "HANDLERS",
    "UsageError",
    "build_parser",
    "check_image_format",
    "check_output_path",
    "check_results_file",
    "cmd_check",
    "cmd_methods",
    "cmd_solve",
    "configure_logging",
    "cmd_gantt",
    "exit_for",
    "gantt_arguments",
    "load_plugins",
    "main",
    "method_options",
    "solver_log_to_stderr",
]
