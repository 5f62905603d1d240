"""Every bad input, on every command, is a clean error: exit 2, one line on
standard error naming the field, argument or path, no traceback, and nothing
already written is changed or lost.

The table below covers instance files (every family), command-line arguments,
method options, plugins, suites, generator arguments reached through a suite,
and output paths.  Add a row whenever a new bad input is found.

Each case is ``(id, files, argv, needle)``: ``files`` maps names to the
content to create in a fresh folder (a ``dict`` is written as JSON, ``bytes``
as they are, ``None`` makes a folder); ``argv`` is the command line run there
(``{tiny}`` is a valid Hare instance); ``needle`` must appear in the one error
line.  Every file created is checked unchanged afterwards.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dmlsched
import dmlsched.solvers as solvers
from dmlsched.bench.reproduce import generate
from dmlsched.cli import main
from dmlsched.errors import InvalidSolutionError
from dmlsched.problems.hare import HareSchedule

ROOT = Path(__file__).resolve().parents[1]
TINY = json.loads((ROOT / "instances" / "hare" / "tiny.json").read_text())


def hare(**job_fields) -> dict:
    d = copy.deepcopy(TINY)
    d["jobs"][0].update(job_fields)
    return d


def family(name: str) -> dict:
    """A valid bundled instance of a family (as a dict)."""
    files = {
        "rar": "rar/tiny-mixed.json", "cruise": "cruise/homogeneous-4.json", "harmony": "harmony/five-jobs.json",
        "moldable": "moldable/sharing-memory.json", "hlas": "hlas/fig12.json",
        "gpu-grouping": "gpu-grouping/small_2x8_g2.json",
    }
    return json.loads((ROOT / "instances" / files[name]).read_text())


def edit(d: dict, path: list, value) -> dict:
    d = copy.deepcopy(d)
    obj = d
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value
    return d


SYNTAX_ERROR = "def broken(:\n"
RAISES = "raise RuntimeError('plugin exploded')\n"
REPLACES_LIST = (
    "from dmlsched.registry import register_method\n"
    "@register_method('hare', 'list', kind='heuristic')\n"
    "def mine(inst, *, solver, time_limit, seed):\n"
    "    return None\n"
)
BAD_KIND = (
    "from dmlsched.registry import register_method\n"
    "@register_method('hare', 'mine', kind='heuristc')\n"
    "def mine(inst, *, solver, time_limit, seed):\n"
    "    return None\n"
)
BAD_FAMILY = (
    "from dmlsched.kit import method\n"
    "@method('haare', 'mine', kind='heuristic')\n"
    "def mine(inst, run):\n"
    "    return run.result()\n"
)
RESULTS_LINE = '{"key": "x|list|0|highs|20", "method": "list", "status": "feasible"}\n'

S = ["solve", "{tiny}", "-m", "list"]
BAD_S = ["solve", "bad.json", "-m", "list"]
BENCH_S = ["bench", "s.toml", "--out", "r.jsonl"]
#: a file content that makes a FIFO (named pipe) of that name
FIFO = object()


def GEN(generator: str, params: str) -> bytes:
    """A one-source suite calling ``dmlsched.generate.<generator>`` with the TOML ``params``."""
    return (f'name = "g"\nreference = "none"\n[[instances]]\ngenerator = "dmlsched.generate.{generator}"\n'
            f'params = {{ {params} }}\nseeds = 1\n').encode()


CASES = [
    # --- instance files -------------------------------------------------------------
    ("missing file", {}, ["solve", "absent.json", "-m", "list"], "absent.json"),
    ("folder as instance", {"dir": None}, ["solve", "dir", "-m", "list"], "dir"),
    ("not UTF-8", {"bin.json": b"\xff\xfe\x00{"}, ["solve", "bin.json", "-m", "list"], "bin.json"),
    ("malformed JSON", {"bad.json": b"{not json"}, ["solve", "bad.json", "-m", "list"], "malformed JSON"),
    ("top level array", {"bad.json": []}, ["solve", "bad.json", "-m", "list"], "must be an object"),
    ("no problem field", {"bad.json": {"name": "x"}}, ["solve", "bad.json", "-m", "list"], "problem"),
    ("unknown problem", {"bad.json": {"problem": "nope"}}, ["solve", "bad.json", "-m", "list"], "unknown problem"),
    ("NaN", {"bad.json": b'{"problem": "hare", "gpus": ["K80"], "jobs": [{"rounds": NaN}]}'},
     ["solve", "bad.json", "-m", "list"], "NaN"),
    ("unknown field", {"bad.json": hare(wieght=2)}, ["solve", "bad.json", "-m", "list"], "jobs[0].wieght"),
    ("missing field", {"bad.json": edit(TINY, ["jobs", 0], {"id": "A"})}, ["solve", "bad.json", "-m", "list"],
     "jobs[0]."),
    ("negative time", {"bad.json": hare(train_time={"V100": -1, "K80": 1})}, ["solve", "bad.json", "-m", "list"],
     "jobs[0].train_time.V100: must be > 0"),
    ("string number", {"bad.json": hare(weight="2")}, ["solve", "bad.json", "-m", "list"], "jobs[0].weight"),
    ("401-digit weight", {"bad.json": b""}, ["solve", "bad.json", "-m", "list"], "jobs[0].weight"),
    ("401-digit rounds", {"bad.json": b""}, ["solve", "bad.json", "-m", "list"], "jobs[0].rounds"),
    ("train_time 1e308", {"bad.json": hare(train_time={"V100": 1e308, "K80": 1e308})},
     ["solve", "bad.json", "-m", "list"], "jobs[0].train_time.V100: must have magnitude at most"),
    ("weight -1e300", {"bad.json": hare(weight=-1e300)}, ["solve", "bad.json", "-m", "list"], "jobs[0].weight"),
    ("train_time 1e-300", {"bad.json": hare(train_time={"V100": 1e-300, "K80": 1})},
     ["solve", "bad.json", "-m", "list"], "jobs[0].train_time.V100: must be at least"),
    ("rounds 2^60", {"bad.json": hare(rounds=2**60)}, ["solve", "bad.json", "-m", "list"], "jobs[0].rounds"),
    ("rounds 1.5", {"bad.json": hare(rounds=1.5)}, ["solve", "bad.json", "-m", "list"], "jobs[0].rounds"),
    ("rar bandwidth 0", {"bad.json": edit(family("rar"), ["bandwidth", "intra"], 0)},
     ["solve", "bad.json", "-m", "ff"], "bandwidth.intra"),
    ("cruise proc_time -1", {"bad.json": edit(family("cruise"), ["machines", 0, "proc_time"], -1)},
     ["solve", "bad.json", "-m", "proportional"], "machines[0].proc_time"),
    ("harmony t_cpu 1e309", {"bad.json": b""}, ["solve", "bad.json", "-m", "harmony"], "jobs[0].t_cpu"),
    ("moldable volume 0", {"bad.json": edit(family("moldable"), ["tasks", 0, "volume"], 0)},
     ["solve", "bad.json", "-m", "rigid-fcfs"], "tasks[0].volume"),
    ("hlas arrival -1", {"bad.json": edit(family("hlas"), ["jobs", 0, "arrival"], -1)},
     ["solve", "bad.json", "-m", "fifo"], "jobs[0].arrival"),
    ("gpu-grouping groups 0", {"bad.json": edit(family("gpu-grouping"), ["groups"], 0)},
     ["solve", "bad.json", "-m", "greedy"], "groups"),
    ("check on bad file", {"bad.json": hare(weight="x")}, ["check", "bad.json", "-m", "list"], "jobs[0].weight"),
    ("gantt on bad file", {"bad.json": hare(weight="x")}, ["gantt", "bad.json", "-m", "list", "--out", "g.png"],
     "jobs[0].weight"),
    # --- command-line arguments ----------------------------------------------------------
    ("unknown command", {}, ["solv", "{tiny}"], "invalid choice"),
    ("no method", {}, ["solve", "{tiny}"], "--method"),
    ("unknown method", {}, ["solve", "{tiny}", "-m", "nope"], "unknown method 'nope'"),
    ("unknown reference", {}, ["check", "{tiny}", "-m", "list", "-r", "nope"], "unknown method 'nope'"),
    ("unknown problem listing", {}, ["methods", "nope"], "unknown problem 'nope'"),
    ("unknown solver", {}, [*S, "--solver", "cplex"], "--solver"),
    ("time limit negative", {}, [*S, "--time-limit", "-1"], "--time-limit"),
    ("time limit text", {}, [*S, "--time-limit", "soon"], "--time-limit"),
    ("time limit inf", {}, [*S, "--time-limit", "inf"], "--time-limit"),
    ("seed text", {}, [*S, "--seed", "x"], "--seed"),
    ("seed negative", {}, [*S, "--seed", "-3"], "--seed"),
    ("unknown option", {}, [*S, "-o", "bogus=1"], "option 'bogus'"),
    ("ill-typed option", {}, [*S, "-o", "display=3"], "option 'display'"),
    ("option not in choices", {}, ["solve", "{tiny}", "-m", "list", "-o", "relaxation=nope"], "option 'relaxation'"),
    ("memory limit negative", {}, [*S, "-o", "memory_limit=-1"], "option 'memory_limit'"),
    ("option without =", {}, [*S, "-o", "bogus"], "KEY=VALUE"),
    ("-o as output file", {}, ["gantt", "{tiny}", "-m", "list", "-o", "chart.png"], "the output file is --out"),
    ("gantt without --out", {}, ["gantt", "{tiny}", "-m", "list"], "--out"),
    ("gantt unknown option", {}, ["gantt", "{tiny}", "-m", "list", "--out", "g.png", "-o", "bogus=1"],
     "option 'bogus'"),
    ("gantt --results missing", {}, ["gantt", "{tiny}", "-m", "list", "--results", "nope.jsonl", "--out", "g.png"],
     "--results nope.jsonl: no such file"),
    ("check unknown option", {}, ["check", "{tiny}", "-m", "list", "-o", "bogus=1"], "option 'bogus'"),
    # --- plugins -----------------------------------------------------------------
    ("plugin file missing", {}, [*S, "--plugin", "nothere.py"], "--plugin nothere.py"),
    ("plugin module missing", {}, [*S, "--plugin", "no_such_module_xyz"], "--plugin no_such_module_xyz"),
    ("plugin path not .py", {}, [*S, "--plugin", "some/dir"], "--plugin some/dir"),
    ("plugin syntax error", {"p.py": SYNTAX_ERROR.encode()}, [*S, "--plugin", "p.py"], "--plugin p.py: syntax error"),
    ("plugin raises", {"p.py": RAISES.encode()}, ["methods", "--plugin", "p.py"], "plugin exploded"),
    ("plugin replaces a method", {"p.py": REPLACES_LIST.encode()}, ["methods", "--plugin", "p.py"],
     "hare/list is already registered"),
    ("plugin bad kind", {"p.py": BAD_KIND.encode()}, ["methods", "--plugin", "p.py"], "kind must be one of"),
    ("plugin bad family", {"p.py": BAD_FAMILY.encode()}, ["methods", "--plugin", "p.py"], "unknown family 'haare'"),
    ("plugin on check", {}, ["check", "{tiny}", "-m", "list", "--plugin", "nothere.py"], "--plugin nothere.py"),
    ("plugin on gantt", {}, ["gantt", "{tiny}", "-m", "list", "--out", "g.png", "--plugin", "nothere.py"],
     "--plugin nothere.py"),
    ("plugin on bench", {}, ["bench", "{tiny}", "--plugin", "nothere.py", "--out", "r.jsonl"], "--plugin nothere.py"),
    # --- output paths: nothing already there is changed ---------------------------------------------
    ("solve --out under a file", {"afile": b"keep me\n"}, [*S, "--out", "afile/sol.json"], "afile"),
    ("solve --out is a folder", {"d": None}, [*S, "--out", "d"], "--out d: is a folder"),
    ("solve --out empty", {}, [*S, "--out", ""], "--out"),
    ("gantt --out under a file", {"afile": b"keep me\n"}, ["gantt", "{tiny}", "-m", "list", "--out", "afile/g.png"],
     "afile"),
    ("gantt --out bad format", {}, ["gantt", "{tiny}", "-m", "list", "--out", "g.xyz"], "cannot write .xyz"),
    ("report --out under a file", {"afile": b"keep me\n", "r.jsonl": RESULTS_LINE.encode()},
     ["report", "r.jsonl", "--out", "afile/rep"], "afile"),
    ("report --out is a file", {"afile": b"keep me\n", "r.jsonl": RESULTS_LINE.encode()},
     ["report", "r.jsonl", "--out", "afile"], "--out afile: exists and is not a folder"),
    ("report missing results", {}, ["report", "nothere.jsonl", "--out", "rep"], "nothere.jsonl"),
    ("report on an instance file", {}, ["report", "{tiny}", "--out", "rep"], "tiny.json: not a dmlsched results file"),
    ("report on a binary file", {"b.jsonl": b"\xff\xfe\x00\n"}, ["report", "b.jsonl", "--out", "rep"],
     "b.jsonl: not a dmlsched results file"),
    ("report on a folder", {"d": None}, ["report", "d", "--out", "rep"], "d: is not a file"),
    ("bench --out under a file", {"afile": b"keep me\n"}, ["bench", "{tiny}", "--out", "afile/r.jsonl"], "afile"),
    ("bench --out an instance file", {"inst.json": TINY},
     ["bench", "{tiny}", "--methods", "list", "--out", "inst.json"], "inst.json"),
    ("reproduce --out under a file", {"afile": b"keep me\n"}, ["reproduce", "--out", "afile/R.md"], "afile"),
    # --- suites and generator arguments (bench) -----------------------------------------------------
    ("suite not TOML", {"s.toml": b"name = [unclosed\n"}, ["bench", "s.toml"], "s.toml"),
    ("suite unknown key", {"s.toml": b'name = "x"\nmethodz = ["list"]\n'}, ["bench", "s.toml"], "methodz"),
    ("bench unknown method", {}, ["bench", "{tiny}", "--methods", "list,nosuch", "--out", "r.jsonl"], "nosuch"),
    ("bench workers negative", {}, ["bench", "{tiny}", "--workers", "-1"], "--workers"),
    ("bench time limit text", {}, ["bench", "{tiny}", "--time-limit", "soon"], "time"),
    ("bench missing path", {}, ["bench", "nothere.json", "--out", "r.jsonl"], "nothere.json"),
    # generator arguments reached through a suite: bad input (exit 2) naming the suite's source and the argument
    ("generator negative size", {"s.toml": GEN("hare:generate", "num_jobs = -4")}, BENCH_S,
     "instances[0] (generator dmlsched.generate.hare:generate), seed 0: generate.hare.generate: "
     "num_jobs must be an integer >= 1, got -4"),
    ("generator non-integer count", {"s.toml": GEN("rar:generate", "num_jobs = 2.5")}, BENCH_S,
     "generate.rar.generate: num_jobs must be an integer >= 1, got 2.5"),
    ("generator count as text", {"s.toml": GEN("moldable:batch", 'num_tasks = "6"')}, BENCH_S,
     "generate.moldable.batch: num_tasks must be an integer"),
    ("generator bad probability", {"s.toml": GEN("moldable:paper_like", "big_memory_share = 1.5")}, BENCH_S,
     "generate.moldable.paper_like: big_memory_share must be a probability in [0, 1], got 1.5"),
    ("generator negative load", {"s.toml": GEN("hare:simulation", "load = -1.0")}, BENCH_S,
     "generate.hare.simulation: load must be > 0"),
    ("generator reversed range",
     {"s.toml": GEN("hlas:generate", "num_jobs = 4, num_gpus = 4, num_groups = 2, rounds = [5, 2]")},
     BENCH_S, "generate.hlas.generate: rounds must be a range"),
    ("generator groups above GPUs", {"s.toml": GEN("hlas:grouping", "num_gpus = 4, num_groups = 9")}, BENCH_S,
     "generate.hlas.grouping: num_groups must be an integer in 1..4, got 9"),
    ("generator unknown choice",
     {"s.toml": GEN("hlas:generate", 'num_jobs = 4, num_gpus = 4, num_groups = 2, sizes = "zipf"')},
     BENCH_S, "generate.hlas.generate: sizes must be one of"),
    ("generator too few machines", {"s.toml": GEN("cruise:random_instance", "num_machines = 1")}, BENCH_S,
     "generate.cruise.random_instance: num_machines must be an integer >= 2, got 1"),
    ("generator bad share table", {"s.toml": GEN("harmony:evaluation_workload", "num_jobs = 4, weights = { gpu = 1 }")},
     BENCH_S, "generate.harmony.evaluation_workload: weights has unknown key 'gpu'"),
    ("generator old spelling", {"s.toml": GEN("harmony:sample_workload", "jobs = 4, machines = 4")}, BENCH_S,
     "params.jobs: not an argument of the generator"),
    ("generator forwarded unknown argument", {"s.toml": GEN("hare:testbed", "bogus = 1")}, BENCH_S,
     "generate.hare.testbed: bogus is not an argument of this generator"),
    ("generator seed in params", {"s.toml": GEN("rar:small", "seed = 3")}, BENCH_S, "params.seed"),
    ("generator not found", {"s.toml": GEN("hare:nosuch", "")}, BENCH_S, "nosuch"),
    # --- issue 24: what a newcomer tried -------------------------------------------------------------
    # the family readers
    ("GPU type typo in train_time", {"bad.json": hare(train_time={"V100": 1.0, "K80": 3.5, "K8O": 3.5})}, BAD_S,
     "jobs[0].train_time.K8O: not a GPU type of the cluster"),
    ("GPU type typo in sync_time", {"bad.json": hare(sync_time={"V100": 0.1, "K80": 0.2, "V1OO": 0.1})}, BAD_S,
     "jobs[0].sync_time.V1OO: not a GPU type of the cluster"),
    ("GPU type typo instead of the type", {"bad.json": hare(train_time={"V100": 1.0, "K8O": 3.5})}, BAD_S,
     "jobs[0].train_time.K80: missing time for a GPU type of the cluster"),
    ("hlas GPU type typo", {"bad.json": edit(family("hlas"), ["jobs", 0, "train_time", "unti"], 1.0)},
     ["solve", "bad.json", "-m", "fifo"], "jobs[0].train_time.unti: not a GPU type of the cluster"),
    ("empty job id", {"bad.json": hare(id="")}, BAD_S, "jobs[0].id: must be a non-empty string"),
    ("blank job id", {"bad.json": hare(id="  ")}, BAD_S, "jobs[0].id: must not be blank"),
    ("hlas empty job id", {"bad.json": edit(family("hlas"), ["jobs", 0, "id"], "")},
     ["solve", "bad.json", "-m", "fifo"], "jobs[0].id: must be a non-empty string"),
    ("rar empty job id", {"bad.json": edit(family("rar"), ["jobs", 0, "id"], "")},
     ["solve", "bad.json", "-m", "ff"], "jobs[0].id: must be a non-empty string"),
    ("harmony empty job id", {"bad.json": edit(family("harmony"), ["jobs", 0, "id"], "")},
     ["solve", "bad.json", "-m", "harmony"], "jobs[0].id: must be a non-empty string"),
    ("moldable empty task id", {"bad.json": edit(family("moldable"), ["tasks", 0, "id"], "")},
     ["solve", "bad.json", "-m", "rigid-fcfs"], "tasks[0].id: must be a non-empty string"),
    ("moldable no task", {"bad.json": edit(family("moldable"), ["tasks"], [])},
     ["solve", "bad.json", "-m", "exact"], "tasks: must have at least 1 element"),
    ("key given twice",
     {"bad.json": json.dumps(TINY).replace('"weight": 1.0', '"weight": 1.0, "weight": 5.0').encode()},
     BAD_S, "jobs[0]: key 'weight' is given twice"),
    ("key given twice, spaced from its colon",
     {"bad.json": json.dumps(TINY, separators=(", ", " : ")).replace(
         '"K80" : 3.5', '"K80" : 3.5, "K80" : 0.5').encode()},
     BAD_S, "jobs[0].train_time: key 'K80' is given twice"),
    ("key given twice at the top",
     {"bad.json": json.dumps(TINY).replace('"name": "tiny"', '"name": "a", "name": "b"').encode()},
     BAD_S, "(top level): key 'name' is given twice"),
    ("key given twice in expected",
     {"bad.json": json.dumps(TINY).replace('"optimum": 2.2', '"optimum": 2.2, "optimum": 9').encode()},
     BAD_S, "expected: key 'optimum' is given twice"),
    # output paths that are inputs, FIFOs, devices, or where no file can be made
    ("solve --out onto its instance", {}, [*S, "--out", "tiny.json"], "--out tiny.json: is an input of this command"),
    ("solve --out onto its instance by another path", {"sub": None}, [*S, "--out", "sub/../tiny.json"],
     "is an input of this command"),
    ("solve --out onto a FIFO", {"fifo": FIFO}, [*S, "--out", "fifo"], "--out fifo: is a FIFO"),
    ("solve --out onto a device", {}, [*S, "--out", os.devnull], f"--out {os.devnull}: is a device"),
    ("solve --out where no folder can be made", {}, [*S, "--out", "/proc/self/nope/sol.json"],
     "--out /proc/self/nope/sol.json: cannot create /proc/self/nope"),
    ("solve --out onto its plugin", {"p.py": b"x = 1\n"}, [*S, "--plugin", "p.py", "--out", "p.py"], "is an input"),
    ("gantt --out onto its instance", {}, ["gantt", "{tiny}", "-m", "list", "--out", "tiny.json"], "is an input"),
    ("gantt --out onto a FIFO", {"f.png": FIFO}, ["gantt", "{tiny}", "-m", "list", "--out", "f.png"], "is a FIFO"),
    ("bench --out onto its suite", {"s.toml": GEN("hare:generate", "num_jobs = 2")},
     ["bench", "s.toml", "--out", "s.toml"], "--out s.toml: is an input of this command"),
    ("bench --out inside an input folder", {"d": None}, ["bench", "d", "--out", "d/r.json"],
     "--out d/r.json: is inside the input folder d"),
    ("bench --out onto a FIFO", {"fifo": FIFO}, ["bench", "{tiny}", "--out", "fifo"], "is a FIFO"),
    ("reproduce --out onto an instance", {}, ["reproduce", "--out", "tiny.json"],
     "--out tiny.json: exists and is not a reproduction report"),
    ("reproduce --out onto its results", {"r.jsonl": RESULTS_LINE.encode()},
     ["reproduce", "--out", "r.jsonl", "--results", "r.jsonl"], "is an input of this command"),
    ("hunt --plot not an image", {}, ["hunt", "hare", "-m", "list", "--plot", "x.json"],
     "--plot x.json: cannot write .json"),
    ("hunt --plot onto --start", {}, ["hunt", "hare", "-m", "list", "--start", "tiny.json", "--plot", "tiny.json"],
     "is an input of this command"),
    # arguments, options and suite sizes bounded before any work
    ("bench --methods empty", {}, ["bench", "{tiny}", "--methods", "", "--out", "r.jsonl"],
     "--methods: names no method"),
    ("bench --methods commas", {}, ["bench", "{tiny}", "--methods", ",", "--out", "r.jsonl"],
     "--methods: names no method"),
    ("bench --max-rows negative", {}, ["bench", "{tiny}", "--max-rows", "-5"], "--max-rows"),
    ("bench --seed negative", {}, ["bench", "{tiny}", "--seed", "-1"], "--seed"),
    ("bench --repetitions huge", {}, ["bench", "{tiny}", "--repetitions", "100000000"], "--repetitions"),
    ("suite seeds count huge",
     {"s.toml": GEN("hare:generate", "num_jobs = 2").replace(b"seeds = 1", b"seeds = 100000000")},
     BENCH_S, "instances[0].seeds: a count must be in 1..10000, got 100000000"),
    ("suite seed list negative",
     {"s.toml": GEN("hare:generate", "num_jobs = 2").replace(b"seeds = 1", b"seeds = [-1]")},
     BENCH_S, "instances[0].seeds: seeds must be integers in [0, 2^63)"),
    ("suite repetitions huge", {"s.toml": b'repetitions = 100000000\n' + GEN("hare:generate", "num_jobs = 2")}, BENCH_S,
     "repetitions: must be <= 10000"),
    ("suite seed negative", {"s.toml": b'seed = -1\n' + GEN("hare:generate", "num_jobs = 2")}, BENCH_S,
     "seed: must be >= 0"),
    ("suite options of a method it does not run",
     {"s.toml": b'methods = ["fifo"]\nreference = "none"\n[options.list]\nrelaxation = "rl"\n'
                b'[[instances]]\npath = "tiny.json"\n'}, BENCH_S, "options.list: the suite runs no method 'list'"),
    ("suite naming itself as an instance", {"s.toml": b'reference = "none"\n[[instances]]\npath = "s.toml"\n'}, BENCH_S,
     "names the suite file itself"),
    ("folder with one malformed instance", {"d": None, "d/a.json": TINY, "d/bad.json": hare(weight=-1)},
     ["bench", "d", "--methods", "fifo", "--out", "r.jsonl"], "bad.json: jobs[0].weight: must be >= 0, got -1"),
    ("threads beyond the bound", {}, ["solve", "{tiny}", "-m", "exact", "-o", "threads=100000"],
     "option 'threads': must be <= 256"),
    ("hunt with a heuristic reference", {}, ["hunt", "hare", "-m", "list", "-r", "fifo"],
     "--reference fifo: a heuristic"),
]


def _huge_ints(case_id: str) -> bytes | None:
    """Files whose numbers json.dumps cannot write as intended (401-digit integers, 1e309)."""
    big = "9" * 401
    if case_id == "401-digit weight":
        return json.dumps(TINY).replace('"weight": 1.0', f'"weight": {big}', 1).encode()
    if case_id == "401-digit rounds":
        return json.dumps(TINY).replace('"rounds": 2', f'"rounds": {big}', 1).encode()
    if case_id == "harmony t_cpu 1e309":
        d = family("harmony")
        d["jobs"][0]["t_cpu"] = 12345.5
        return json.dumps(d).replace("12345.5", "1" + "0" * 309, 1).encode()
    return None


def _make(tmp: Path, files: dict) -> dict[Path, bytes | None]:
    made: dict[Path, bytes | None] = {}
    (tmp / "tiny.json").write_text(json.dumps(TINY))
    for name, content in files.items():
        p = tmp / name
        if content is None:
            p.mkdir()
            made[p] = None
            continue
        if content is FIFO:
            os.mkfifo(p)
            made[p] = None
            continue
        data = content if isinstance(content, bytes) else json.dumps(content).encode()
        p.write_bytes(data)
        made[p] = data
    return made


def _snapshot(tmp: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(tmp)): (p.read_bytes() if p.is_file() else None) for p in sorted(tmp.rglob("*"))}


def _id(c) -> str:
    return c.id if hasattr(c, "marks") else c[0]  # a pytest.param or a plain row


@pytest.mark.parametrize("case_id, files, argv, needle", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_is_a_clean_error(case_id, files, argv, needle, tmp_path, monkeypatch, capsys):
    files = dict(files)
    huge = _huge_ints(case_id)
    if huge is not None:
        files["bad.json"] = huge
    _make(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    argv = [a.replace("{tiny}", "tiny.json") for a in argv]
    code = main(argv)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, (code, err)
    assert len(lines) == 1, err
    assert needle in lines[0], lines[0]
    assert "Traceback" not in err
    # nothing that was there is changed or lost, and nothing new was written
    after = _snapshot(tmp_path)
    assert after == before, set(after) ^ set(before)


def test_case_count():
    """The table's size (reported in the issue's note); every class of the issue is in it."""
    ids = [_id(c) for c in CASES]
    assert len(ids) == len(set(ids)) >= 130
    for must in ("solve --out under a file", "report --out under a file", "gantt --out under a file",
                 "401-digit weight", "train_time 1e308", "unknown option", "ill-typed option",
                 "bench unknown method", "generator negative size", "bench --out an instance file"):
        assert must in ids


def test_console_script_gives_one_line_not_a_traceback(tmp_path):
    """The same through the installed entry point, in a fresh process."""
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(TINY).replace('"weight": 1.0', '"weight": ' + "9" * 401, 1))
    env = dict(os.environ)
    r = subprocess.run([sys.executable, "-m", "dmlsched.cli", "solve", str(p), "-m", "list"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "jobs[0].weight" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("convert", [
    lambda d: {**d, "gpus": tuple(d["gpus"])},
    lambda d: {**d, "jobs": [{**j, "rounds": __import__("numpy").int64(j["rounds"]),
                              "weight": __import__("numpy").float32(j["weight"])} for j in d["jobs"]]},
    lambda d: {**d, "jobs": tuple({**j, "train_time": {k: __import__("numpy").int32(3) for k in j["train_time"]}}
                                  for j in d["jobs"])},
], ids=["tuple", "numpy scalars", "numpy int32 in a map, tuple of jobs"])
def test_from_dict_accepts_numpy_and_tuples(convert):
    inst = dmlsched.from_dict(convert(TINY))
    again = dmlsched.from_dict(json.loads(json.dumps(dmlsched.to_dict(inst))))
    assert dmlsched.to_dict(inst) == dmlsched.to_dict(again)
    assert dmlsched.solve(inst, "list").status.value == "feasible"


def test_solver_extra_not_installed_is_bad_input(tmp_path, monkeypatch, capsys):
    """--solver gurobi without gurobipy (the `gurobi` extra): exit 2 with the install hint."""
    monkeypatch.setattr(solvers, "solver_available", lambda name: name != "gurobi")
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps(TINY))
    assert main(["solve", str(p), "-m", "exact", "--solver", "gurobi"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--solver" in err and "dmlsched[gurobi]" in err


# --- issue 24: the Python API names the argument ------------------------------------------
@pytest.mark.parametrize("kw, exc, needle", [
    ({"seed": 1.5}, TypeError, "seed must be an integer in [0, 2^63), got 1.5"),
    ({"seed": True}, TypeError, "seed must be an integer"),
    ({"seed": "3"}, TypeError, "seed must be an integer"),
    ({"seed": -1}, ValueError, "seed must be an integer in [0, 2^63), got -1"),
    ({"seed": 2**70}, ValueError, "seed must be an integer in [0, 2^63)"),
    ({"time_limit": 0}, ValueError, "time_limit must be a positive number"),
    ({"time_limit": True}, ValueError, "time_limit must be a positive number"),
], ids=["seed 1.5", "seed True", "seed text", "seed -1", "seed 2^70", "time_limit 0", "time_limit True"])
def test_python_api_arguments_are_named(kw, exc, needle):
    inst = dmlsched.from_dict(TINY)
    for fn in (dmlsched.solve, dmlsched.check):
        with pytest.raises(exc) as e:
            fn(inst, "list", **kw)
        assert needle in str(e.value)

    assert dmlsched.solve(inst, "list", seed=np.int64(3)).status.value == "feasible"  # numpy integers are integers


@pytest.mark.parametrize("value, needle", [
    (str(ROOT / "instances" / "hare" / "tiny.json"),
     "instance: expected an instance of a registered family, got the path"),
    (ROOT / "instances" / "hare" / "tiny.json", "dmlsched.load(path)"),
    (TINY, "got a dict: build the instance with dmlsched.from_dict(data)"),
    (None, "got NoneType, which is not a registered instance type"),
], ids=["path string", "Path", "dict", "None"])
def test_python_api_names_a_non_instance(value, needle):
    for fn in (lambda x: dmlsched.solve(x, "list"), lambda x: dmlsched.check(x, "list"),
               lambda x: dmlsched.evaluate(x, None)):
        with pytest.raises(TypeError) as e:
            fn(value)
        assert needle in str(e.value)


def test_evaluate_of_a_solution_that_does_not_fit_names_it():
    """A GPU index out of range was an IndexError from numpy; now the validator's message."""
    inst = dmlsched.from_dict(TINY)
    bad = HareSchedule(gpu=np.array([0, 1, 7, 0]), start=np.zeros(4))
    with pytest.raises(InvalidSolutionError, match="GPU index 7 out of range"):
        dmlsched.evaluate(inst, bad)
    short = HareSchedule(gpu=np.array([0]), start=np.zeros(1))
    with pytest.raises(InvalidSolutionError):
        dmlsched.evaluate(inst, short)


def test_reproduce_takes_a_family_by_its_own_name(tmp_path):
    """`--family gpu-grouping` (the registered name) was refused; it has no claims, so the
    report says so, and the package name still works."""
    for name in ("gpu-grouping", "gpugrouping"):
        out, runs = generate(str(tmp_path / f"{name}.md"), scale="quick", workers=0, families=[name])
        assert runs == [] and "gpugrouping" in out.read_text()


def test_no_schedule_within_the_horizon_is_the_same_word_on_the_command_line(tmp_path, capsys):
    """A RAR horizon below the load bound: `infeasible` (exit 0, a fact about the instance) from
    exact-cp and from sjf-bco alike (sjf-bco said `error`, exit 1)."""
    d = family("rar")
    d["horizon"] = 1
    p = tmp_path / "short.json"
    p.write_text(json.dumps(d))
    for m in ("exact-cp", "sjf-bco", "ff", "lower-bound"):
        assert main(["solve", str(p), "-m", m, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["status"] == "infeasible" and "horizon T = 1" in out["details"]["infeasible"], (m, out)
