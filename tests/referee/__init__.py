"""Referees: optima of tiny instances proven in exact rational arithmetic by
enumerations written from the papers' models, independent of the project's
formulations and evaluators (issue 24)."""
