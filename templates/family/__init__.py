"""Template family: one machine, total weighted completion time (``1 || sum_j w_j C_j``).

A small, working family to copy when adding one (README, "Adding a family").
Smith's rule (WSPT) is optimal here, so its claimed ratio 1 can be checked
against the exact methods.  Every family has the same core files, and the
same names in them (``tests/test_template.py`` checks every registered family):

* ``instance.py`` -- the instance dataclass; ``from_dict``, ``to_dict``, ``size``;
* ``solution.py`` -- the solution type; ``validate``, ``evaluate``, ``to_json``,
  ``from_json`` (its inverse), ``gantt_bars`` (the bars ``dmlsched gantt`` draws);
* ``models.py`` -- exact formulations (``exact``: a Pyomo MIP);
* ``heuristics.py`` -- the paper's algorithm (``wspt``);
* ``strategies.py`` -- hypothesis strategies (``template_instances``);
* ``__init__.py`` -- this file: declares the family (``FAMILY``, a
  :class:`dmlsched.family.Family`: its name, its package, and the functions of
  ``instance.py`` and ``solution.py``), then imports the modules that register
  its methods.

Optional modules, with names from one list
(:data:`dmlsched.problems.OPTIONAL_MODULES`): here ``bounds.py`` (the claimed
ratio, ``lower-bound``), ``bruteforce.py`` (``brute-force``) and
``baselines.py`` (the paper's baselines, ``random``: each method registered
there is named in ``Family.baselines``, and each name there is registered
there or in a module whose entry here opens with "(baseline").  A module
outside both lists is named in this docstring.  ``example.json`` is a bundled
instance (a packaged family keeps its instances in ``instances/<family>/``).
"""

from dmlsched.family import Family, Ref
from dmlsched.registry import register_family

from . import instance, solution
from .instance import Job, TemplateInstance
from .solution import TemplateSchedule, completion_times

# the one declaration of the family; dmlsched.registry.family(name) finds it
FAMILY = register_family(Family(
    name=instance.PROBLEM, package=__name__, instance_type=TemplateInstance,
    from_dict=instance.from_dict, to_dict=instance.to_dict, size=instance.size,
    validate=solution.validate, evaluate=solution.evaluate, solution_to_json=solution.to_json,
    solution_from_json=solution.from_json,
    sense="min", objective_name="total weighted completion time", default_reference="exact",
    strategies=Ref(f"{__name__}.strategies"),
    gantt=solution.gantt_bars,
    baselines=("random",),  # the methods the paper compares its algorithm with (baselines.py)
))
SPEC = FAMILY  # the former name, kept for one release

from . import baselines, bounds, bruteforce, heuristics, models  # noqa: E402,F401  (register the methods)

__all__ = ["Job", "TemplateInstance", "TemplateSchedule", "completion_times"]
