"""The instance file format of every family, as one JSON Schema per family.

This module is the one source of the formats' documentation: the API
reference renders each schema as a field table with a worked example (the
bundled instance named in :data:`EXAMPLES`), ``dmlsched schema FAMILY``
prints it, and the tests check it against the family's reader both ways:
every bundled instance validates, and mutated instances (a field removed, a
bound crossed, a type changed, an unknown field added) are rejected by the
schema exactly when the reader rejects them.

A schema holds what JSON Schema can say (types, required fields, numeric
bounds, unknown fields refused); the checks across fields (a job's
``train_time`` must name every GPU type of ``gpus``, ids are unique, ...)
are stated in the schema's ``description`` (``x-checks``), and the reader
enforces them.  Every instance may also carry ``name``, ``description``,
``source`` (free-form) and ``expected`` (recorded optima, an object).

Examples
--------
>>> from dmlsched.formats import schema
>>> sorted(schema("hare")["required"])
['gpus', 'jobs', 'problem']
"""

from __future__ import annotations

import copy
from typing import Any

#: the JSON Schema dialect of every schema here
DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: the bundled instance shown as each family's worked example (under ``instances/``)
EXAMPLES = {
    "hare": "hare/tiny.json",
    "hlas": "hlas/fig12.json",
    "rar": "rar/tiny-mixed.json",
    "cruise": "cruise/heterogeneous-4.json",
    "harmony": "harmony/five-jobs.json",
    "gpu-grouping": "gpu-grouping/fig9_10.json",
    "moldable": "moldable/sharing-memory.json",
}


# ---------------------------------------------------------------------------
# building blocks
def number(description: str, *, gt: float | None = None, ge: float | None = None,
           le: float | None = None, default: float | None = None) -> dict:
    """A number (JSON integers included) with optional bounds."""
    s: dict[str, Any] = {"type": "number", "description": description}
    if gt is not None:
        s["exclusiveMinimum"] = gt
    if ge is not None:
        s["minimum"] = ge
    if le is not None:
        s["maximum"] = le
    if default is not None:
        s["default"] = default
    return s


def integer(description: str, *, ge: int | None = None, le: int | None = None,
            default: int | None = None) -> dict:
    """An integer (``2.0`` is accepted as ``2``, as the readers do)."""
    s = number(description, ge=ge, le=le, default=default)
    s["type"] = "integer"
    return s


def string(description: str, *, enum: tuple[str, ...] | None = None, default: str | None = None) -> dict:
    s: dict[str, Any] = {"type": "string", "minLength": 1, "description": description}
    if enum is not None:
        s["enum"] = list(enum)
    if default is not None:
        s["default"] = default
    return s


def ident(description: str) -> dict:
    """An id: a non-empty string or an integer (read as its decimal text)."""
    return {"type": ["string", "integer"], "minLength": 1, "description": description}


def array(items: dict, description: str, *, min_items: int | None = None, max_items: int | None = None) -> dict:
    s: dict[str, Any] = {"type": "array", "items": items, "description": description}
    if min_items is not None:
        s["minItems"] = min_items
    if max_items is not None:
        s["maxItems"] = max_items
    return s


def obj(properties: dict[str, dict], required: tuple[str, ...], description: str) -> dict:
    """An object whose unknown fields are refused."""
    return {"type": "object", "description": description, "properties": properties,
            "required": list(required), "additionalProperties": False}


def number_map(value: dict, description: str) -> dict:
    """An object from names (GPU types) to numbers."""
    return {"type": "object", "additionalProperties": value, "description": description}


#: fields every instance may carry besides its family's own (:data:`dmlsched.io.COMMON_KEYS`)
COMMON = {
    "name": {"type": "string", "description": "a name for reports (may be empty)"},
    "description": {"description": "free-form text, kept across load and save"},
    "source": {"description": "free-form provenance (a paper, a generator call, a trace), kept across load and save"},
    "expected": {"type": "object", "description": "recorded optima and facts for the tests (free-form object)"},
}


def _family(problem: str, title: str, properties: dict[str, dict], required: tuple[str, ...],
            description: str, checks: tuple[str, ...]) -> dict:
    props = {"problem": {"const": problem, "description": "the family"}, **properties, **COMMON}
    s = obj(props, ("problem",) + required, description)
    s = {"$schema": DIALECT, "$id": f"https://dmlsched.invalid/formats/{problem}.schema.json",
         "title": title, **s, "x-checks": list(checks)}
    return s


# ---------------------------------------------------------------------------
# the families
def _hare_job(extra: dict[str, dict] | None = None) -> dict:
    props = {
        "id": ident("job id, unique in the instance"),
        "arrival": number("release time a_n", ge=0, default=0.0),
        "weight": number("weight w_n of the job's completion time", ge=0, default=1.0),
        "rounds": integer("training rounds R_n", ge=1),
        "tasks_per_round": integer("parallel tasks per round K_n", ge=1),
        "train_time": number_map(number("seconds", gt=0),
                                 "training time T^c of one task on each GPU type (> 0)"),
        "sync_time": number_map(number("seconds", ge=0),
                                "synchronisation time T^s of one task on each GPU type (>= 0)"),
    }
    props.update(extra or {})
    return obj(props, ("id", "rounds", "tasks_per_round", "train_time", "sync_time"), "one job")


_GPUS = array(string("GPU type"), "one GPU type per GPU (GPU m has type gpus[m])", min_items=1)
_TIME_CHECKS = ("jobs[n].train_time and jobs[n].sync_time name every GPU type of gpus",
                "job ids are unique")


def _hare() -> dict:
    return _family(
        "hare", "Hare_Sched instance (Hare, HPDC'22, Section 5.1)",
        {"gpus": _GPUS, "jobs": array(_hare_job(), "the jobs", min_items=1)},
        ("gpus", "jobs"),
        "Heterogeneous GPUs and jobs of rounds of parallel tasks; objective: total weighted completion time.",
        _TIME_CHECKS + ("at most 1e8 tasks (rounds x tasks_per_round summed over jobs)",))


def _hlas() -> dict:
    job = _hare_job({"predicted_rounds": {"type": ["integer", "null"], "minimum": 0,
                                           "description": "conservative prediction HLAS-P may see: the job runs "
                                                          "at least this many rounds (null: none)"}})
    queue = {"type": "array", "minItems": 2, "maxItems": 2,
             "prefixItems": [number("E_k^L, seconds of job size", ge=0),
                             {"type": ["number", "null"], "exclusiveMinimum": 0,
                              "description": "E_k^H (null: infinity)"}],
             "description": "a queue's thresholds [low, high]"}
    return _family(
        "hlas", "HLAS instance (non-clairvoyant Hare, IEEE TCC 2024, Sections IV-V)",
        {"gpus": _GPUS, "jobs": array(job, "the jobs (rounds hidden from non-clairvoyant policies)", min_items=1),
         "queues": array(queue, "thresholds of Q_1..Q_K tiling [0, inf) (default [[0, null]])", min_items=1),
         "groups": integer("number of GPU groups (the grouping computed by a GPU-grouping method)", ge=1),
         "grouping": array(array(integer("GPU index", ge=0), "a group", min_items=1),
                           "explicit GPU groups, every GPU exactly once", min_items=1)},
        ("gpus", "jobs"),
        "Online jobs on GPU groups; objective: average job completion time.",
        _TIME_CHECKS + ("queues tile [0, inf): the first low is 0, each high is the next low, the last high "
                        "is null", "grouping names every GPU exactly once; groups <= number of GPUs",
                        "groups and grouping are exclusive"))


def _rar() -> dict:
    job = obj({
        "id": ident("job id, unique"),
        "gpus": integer("GPUs G_j the job asks for", ge=1),
        "iterations": integer("iterations F_j", ge=1, le=10**12),
        "grad_size": number("gradient size m_j", ge=0),
        "fp_time": number("forward-pass time per sample Delta^f_j", ge=0),
        "batch": number("mini-batch size M_j", ge=0),
        "bp_time": number("backward-pass time Delta^b_j", ge=0),
    }, ("id", "gpus", "iterations", "grad_size", "fp_time", "batch", "bp_time"), "one ring-all-reduce job")
    return _family(
        "rar", "RAR-DDLS instance (MobiHoc'22, Section 4)",
        {"servers": array(integer("GPUs O_s of a server", ge=1, le=100_000), "the servers", min_items=1),
         "bandwidth": obj({"intra": number("intra-server bandwidth b^i", gt=0),
                           "inter": number("inter-server bandwidth b^e", gt=0)}, ("intra", "inter"),
                          "bandwidths"),
         "gpu_speed": number("GPU computation speed C", gt=0),
         "xi1": number("contention factor xi_1", gt=0, le=1),
         "xi2": number("per-server overhead xi_2", gt=0, le=1),
         "alpha": number("contention exponent alpha of f(alpha, k)", ge=0),
         "horizon": integer("time slots T", ge=1, le=10**9),
         "progress": string("iterations per slot: floor(1/tau) (the paper's (9)) or 1/tau",
                            enum=("floor", "fractional"), default="floor"),
         "jobs": array(job, "the jobs", min_items=1)},
        ("servers", "bandwidth", "gpu_speed", "xi1", "xi2", "alpha", "horizon", "jobs"),
        "Servers of identical GPUs and ring-all-reduce jobs over T slots; objective: makespan in slots.",
        ("job ids are unique", "every job fits the cluster (gpus <= the total)",
         "in floor mode every job's worst per-iteration time is at most one slot", "at most 1e7 GPUs in all"))


def _cruise() -> dict:
    machine = obj({"name": string("machine name (give all machines a name, or none)"),
                   "proc_time": number("seconds to process one sample as a worker C^i_w.proc", gt=0),
                   "bandwidth": number("the machine's bandwidth (link i-j: min of both ends); not with a "
                                       "top-level matrix", gt=0)},
                  ("proc_time",), "one machine")
    row = array({"type": ["number", "null"], "exclusiveMinimum": 0,
                 "description": "bandwidth b_ij from machine i (worker) to machine j (server)"},
                "a row: bandwidth to each machine (the diagonal may be null)")
    return _family(
        "cruise", "Cruise instance (Lee, dissertation, Section 3.2)",
        {"machines": array(machine, "the machines (each a worker or a server)", min_items=2),
         "bandwidth": array(row, "optional N x N matrix b_ij, exclusive with per-machine bandwidths"),
         "dataset_size": integer("samples D", ge=1),
         "model_size": integer("model units M", ge=1),
         "batch_size": integer("mini-batch samples B", ge=1)},
        ("machines", "dataset_size", "model_size", "batch_size"),
        "Machines as workers or parameter servers; objective: epoch time.",
        ("every machine has a bandwidth, or a top-level N x N matrix is given (not both)",
         "the matrix has one row and one column per machine, off-diagonal entries > 0"))


def _harmony() -> dict:
    job = obj({"id": ident("job id, unique"),
               "t_cpu": number("computation time per iteration T_cpu at the reference DoP", gt=0),
               "t_net": number("communication time per iteration T_net", ge=0),
               "iterations": {"type": ["integer", "null"], "minimum": 1,
                              "description": "iterations to convergence (the execution model; null: none)"}},
              ("id", "t_cpu", "t_net"), "one parameter-server job")
    return _family(
        "harmony", "Harmony instance (Lee, dissertation, Chapter 4)",
        {"machines": integer("machines M of the homogeneous cluster", ge=1),
         "reference_dop": number("reference degree of parallelism c of the profiles", gt=0),
         "weights": obj({"cpu": number("weight of CPU utilisation", ge=0, default=0.5),
                         "net": number("weight of network utilisation", ge=0, default=0.5)}, (),
                        "utilisation weights (cpu + net > 0)"),
         "jobs": array(job, "the jobs", min_items=1)},
        ("machines", "reference_dop", "jobs"),
        "Jobs grouped on machines; objective: cluster utilisation (maximised).",
        ("job ids are unique", "weights.cpu + weights.net > 0"))


def _gpu_grouping() -> dict:
    return _family(
        "gpu-grouping", "GPU_Grouping instance (non-clairvoyant Hare, IEEE TCC 2024, (4)-(6))",
        {"speeds": array(array(number("training speed s_{n,m}", gt=0), "a job's speed on each GPU", min_items=1),
                         "one row per job", min_items=1),
         "groups": integer("number of groups |U|", ge=1)},
        ("speeds", "groups"),
        "GPUs split into groups; objective: the largest spread of a job's speed over the groups (minimised).",
        ("every row has one entry per GPU", "groups <= number of GPUs"))


def _moldable() -> dict:
    point = {"type": "array", "minItems": 2, "maxItems": 2,
             "prefixItems": [number("processors p", gt=0), number("speed s(p)", gt=0)],
             "description": "a point [p, s(p)] of the speedup curve"}
    task = obj({
        "id": ident("task id"),
        "user": ident("the user the task belongs to (default '-')"),
        "arrival": number("arrival time t^arr", ge=0, default=0.0),
        "volume": number("volume v: runtime alone on one GPU", gt=0),
        "p_min": {"type": ["number", "string"], "description": "least processor share p^min = 1/n, n <= 1000, as a "
                  "number or a string '1/n' (default 1)", "exclusiveMinimum": 0, "maximum": 1,
                  "pattern": r"^\s*1\s*/\s*[0-9]+\s*$"},
        "p_max": integer("most dedicated GPUs p^max (default 1; <= gpus)", ge=1, default=1),
        "p_req": integer("GPUs the user requested p^req (the rigid policies' allocation; <= gpus)", ge=1),
        "memory": number("device memory m (same unit as gpu_memory; <= gpu_memory)", ge=0, default=0.0),
    }, ("id", "volume"), "one task")
    return _family(
        "moldable", "Moldable/malleable GPU scheduling instance (Fujiwara et al., Section III)",
        {"gpus": integer("identical GPUs G", ge=1, le=100_000),
         "gpu_memory": number("device memory per GPU", gt=0),
         "speedup": array(point, "the speedup curve s as points with increasing p", min_items=1),
         "preemption_overhead": number("seconds lost at each preemption", ge=0, default=0.0),
         "preemption_min_remaining": number("a task with less remaining time is not preempted", ge=0,
                                            default=300.0),
         "tasks": array(task, "the tasks, in file order")},
        ("gpus", "gpu_memory", "speedup", "tasks"),
        "Identical GPUs shared by moldable/malleable tasks; objective: average flow time.",
        ("p_min is a unit fraction 1/n with n <= 1000", "p_max, p_req <= gpus; memory <= gpu_memory",
         "speedup points have strictly increasing p"))


_BUILDERS = {"hare": _hare, "hlas": _hlas, "rar": _rar, "cruise": _cruise, "harmony": _harmony,
             "gpu-grouping": _gpu_grouping, "moldable": _moldable}

#: the families with a documented format
FAMILIES = tuple(_BUILDERS)


def schema(family: str) -> dict:
    """The JSON Schema (draft 2020-12) of ``family``'s instance files (a copy).

    Raises
    ------
    KeyError
        For a family without a documented format (see :data:`FAMILIES`).
    """
    if family not in _BUILDERS:
        raise KeyError(f"no documented format for {family!r} (families: {', '.join(FAMILIES)})")
    return copy.deepcopy(_BUILDERS[family]())


def field_rows(s: dict, path: str = "") -> list[tuple[str, str, str, str, str]]:
    """``(path, type, required, constraints, description)`` of every field of
    a schema, depth first (``jobs[].train_time.<type>`` for a map's values)."""
    rows: list[tuple[str, str, str, str, str]] = []
    req = set(s.get("required", ()))
    for name, sub in (s.get("properties") or {}).items():
        p = f"{path}.{name}" if path else name
        rows.append((p, _type_text(sub), "yes" if name in req else "no", _constraints(sub),
                     str(sub.get("description", ""))))
        rows.extend(_children(sub, p))
    return rows


def _children(sub: dict, p: str) -> list[tuple[str, str, str, str, str]]:
    rows: list[tuple[str, str, str, str, str]] = []
    if sub.get("type") == "object" and "properties" in sub:
        rows.extend(field_rows(sub, p))
    elif sub.get("type") == "object" and isinstance(sub.get("additionalProperties"), dict):
        v = sub["additionalProperties"]
        rows.append((f"{p}.<name>", _type_text(v), "-", _constraints(v), str(v.get("description", ""))))
    elif sub.get("type") == "array":
        if "prefixItems" in sub:
            for k, item in enumerate(sub["prefixItems"]):
                rows.append((f"{p}[{k}]", _type_text(item), "yes", _constraints(item),
                             str(item.get("description", ""))))
        elif isinstance(sub.get("items"), dict):
            item = sub["items"]
            if item.get("type") == "object" and "properties" in item:
                rows.extend(field_rows(item, f"{p}[]"))
            else:
                rows.append((f"{p}[]", _type_text(item), "-", _constraints(item), str(item.get("description", ""))))
                if item.get("type") == "array":
                    rows.extend(_children(item, f"{p}[]"))
    return rows


def _type_text(s: dict) -> str:
    if "const" in s:
        return f"\"{s['const']}\""
    t = s.get("type", "any")
    return " or ".join(t) if isinstance(t, list) else str(t)


def _constraints(s: dict) -> str:
    out = []
    for key, sym in (("exclusiveMinimum", ">"), ("minimum", ">="), ("maximum", "<=")):
        if key in s:
            out.append(f"{sym} {s[key]:g}" if isinstance(s[key], (int, float)) else f"{sym} {s[key]}")
    if "minItems" in s and s.get("maxItems") == s["minItems"]:
        out.append(f"exactly {s['minItems']} items")
    else:
        if "minItems" in s:
            out.append(f"at least {s['minItems']} item(s)")
        if "maxItems" in s:
            out.append(f"at most {s['maxItems']} item(s)")
    if "enum" in s:
        out.append("one of " + ", ".join(map(str, s["enum"])))
    if "default" in s:
        out.append(f"default {s['default']}")
    return "; ".join(out)
