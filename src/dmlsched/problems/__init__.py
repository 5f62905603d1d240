"""Problem families: the list of bundled family packages (:data:`FAMILIES`).

Each family is a package whose ``__init__`` declares one
:class:`~dmlsched.family.Family` (``FAMILY = register_family(Family(...))``);
:func:`dmlsched.registry.load_families` imports the packages listed here, and
every lookup of the registry calls it.  Every family has the same core files
(:data:`CORE_MODULES`) and the same names in them; ``templates/family/`` at
the repository root is a small working family to copy.  To add a family: copy
that folder to ``problems/<family>/``, rename it, and add the package's name
to :data:`FAMILIES` (or load the folder with ``--plugin <folder>/__init__.py``
without touching the package); README, "Adding a family".
``tests/test_template.py`` checks every family against the template.
"""

#: the bundled family packages, in loading order (package names: ``gpugrouping``
#: is the package of the family ``gpu-grouping``)
FAMILIES = ["hare", "harmony", "gpugrouping", "cruise", "moldable", "rar", "hlas"]

#: modules every family has: ``instance`` (``from_dict``, ``to_dict``, ``size``),
#: ``solution`` (``validate``, ``evaluate``, ``to_json``), ``models`` (exact
#: Pyomo formulations), ``heuristics`` (the paper's algorithm), ``strategies``
#: (hypothesis strategies), ``__init__`` (declares the family's ``FAMILY``, then
#: imports the modules that register its methods)
CORE_MODULES = ("__init__", "instance", "solution", "models", "heuristics", "strategies")

#: the names of optional modules, one job each; a family's module outside
#: :data:`CORE_MODULES` and this list is named in the family's ``__init__`` docstring.
#: A method is registered in the module of its technique (``tests/test_template.py``,
#: "module roles"): ``exact`` in ``models``, ``exact-cp`` in ``cp``, ``exact-dp`` in
#: ``dp``, ``brute-force`` in ``bruteforce``, ``relaxation`` in ``relaxation``,
#: ``lower-bound`` in ``bounds``, the paper's baselines (``Family.baselines``) in ``baselines``,
#: the paper's algorithm and every other heuristic and policy in ``heuristics``
OPTIONAL_MODULES = {
    "bounds": "the paper's claimed ratio and proven bounds, as functions of the instance; the "
              "solver-free or LP lower bounds (method lower-bound)",
    "bruteforce": "exhaustive enumeration on tiny instances (method brute-force), the tests' reference",
    "claims": "the paper's claims (CLAIMS) for dmlsched reproduce",
    "cp": "CP-SAT models (method exact-cp, and every other exact method on CP-SAT)",
    "dp": "dynamic programs (method exact-dp)",
    "relaxation": "a relaxation's bound (method relaxation)",
    "baselines": "the paper's baselines, the methods its algorithm is compared with; each method registered "
                 "here is named in Family.baselines, and each name there is registered here (or in a module "
                 "whose entry in the __init__ docstring opens with '(baseline', as hare's allox.py)",
    "policies": "online policies' decision rules",
    "simulator": "the execution model that runs online policies",
    "guided": "the solver-guided hunt strategy (registered when dmlsched.hunt looks it up)",
    "sample": "the seeded builder of small random instances (random_instance) and the hunt's caps (HUNT)",
    "generate": "the paper's evaluation setups (Family.generators: f(*, seed=0, **params) -> instance); "
                "public paths dmlsched.generate.<family>:<setup>",
}

