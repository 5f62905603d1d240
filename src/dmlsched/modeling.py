"""The one shape of every Pyomo and CP-SAT model builder (issue 22; docs/architecture.rst, "Models").

A family's model is a subclass of :class:`ModelBuilder`:

* the constructor takes the data and the options only, and builds nothing;
* :attr:`ModelBuilder.CONSTRAINTS` names the constraint families, in the
  order :meth:`ModelBuilder.build` adds them (optional ones included); the
  names are the model's component names, and ``models/<family>.md`` names
  each of them;
* one ``add_<name>()`` method per name, whose docstring cites the paper's
  equation ``(n)`` or the section of ``models/<family>.md`` that states it;
* :meth:`ModelBuilder.build` creates :attr:`ModelBuilder.model`, adds the
  variables, the objective and the constraint families, and returns the model;
* :meth:`ModelBuilder.extract` turns solved values (a solved Pyomo model, or
  a CP-SAT value function such as the solver or a solution callback) into the
  family's solution.

The shape follows Hare's ``HareFormulation`` and PyJobShop's
``Constraints.add_constraints()``.  ``tests/test_template.py`` checks it for
every subclass found in the families (``test_model_builders_have_the_shape``).
Nothing heavy is imported here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar


class ModelBuilder(ABC):
    """Builder of one optimisation model (Pyomo or CP-SAT).

    Attributes
    ----------
    CONSTRAINTS
        Names of the constraint families, in insertion order; ``add_<name>``
        adds each.
    model
        The built model; reading it before :meth:`build` builds it.
    """

    CONSTRAINTS: ClassVar[tuple[str, ...]] = ()

    _model: Any = None

    @property
    def model(self) -> Any:
        """The model (built on first use)."""
        if self._model is None:
            self.build()
        return self._model

    @model.setter
    def model(self, value: Any) -> None:
        self._model = value

    @abstractmethod
    def build(self) -> Any:
        """Create :attr:`model` with its variables, objective and constraint families; return it."""

    @abstractmethod
    def extract(self, values: Any) -> Any:
        """The family's solution from solved values (a solved Pyomo model or a CP-SAT value function)."""

    def add_constraints(self, names: tuple[str, ...] | None = None) -> None:
        """Call ``add_<name>()`` for every name of ``names`` (default: :attr:`CONSTRAINTS`), in order."""
        for name in self.CONSTRAINTS if names is None else names:
            getattr(self, f"add_{name}")()


__all__ = ["ModelBuilder"]
