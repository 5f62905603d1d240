"""The incumbent channel (:mod:`dmlsched.incumbents`): a sink installed around a
solve receives the method's validated improving incumbents; nested blocks restore
the outer sink; the kit no longer carries the channel's names as its own."""

from __future__ import annotations

import dmlsched
from dmlsched import incumbents, kit
from dmlsched.incumbents import current_sink, incumbent_sink


def test_blocks_nest_and_restore_the_outer_sink():
    outer: list[dict] = []
    assert current_sink() is None
    with incumbent_sink(outer.append):
        assert current_sink() == outer.append
        with incumbent_sink(None):  # a nested solve whose incumbents are not the outer method's
            assert current_sink() is None
        assert current_sink() == outer.append
    assert current_sink() is None


def test_a_method_streams_its_incumbents_to_the_installed_sink(tiny_hare_dict):
    inst = dmlsched.from_dict(tiny_hare_dict)
    got: list[dict] = []
    with incumbent_sink(got.append):
        res = dmlsched.solve(inst, "exact")  # tiny: no limit
    assert got, "the exact MIP offers at least its final solution"
    assert all(set(g) == {"problem", "method", "objective", "bound", "elapsed_s"} for g in got)
    assert all(g["problem"] == "hare" and g["method"] == "exact" for g in got)
    assert min(g["objective"] for g in got) >= res.objective - 1e-9
    # without a sink nothing is sent anywhere
    assert dmlsched.solve(inst, "exact").objective == res.objective


def test_the_channel_lives_in_incumbents_only():
    """The kit uses the channel (layer L4, docs/architecture.rst) but does not export it:
    importers name dmlsched.incumbents (the private context variable has left the kit)."""
    assert not hasattr(kit, "_SINK")
    assert incumbents.__all__ == ["IncumbentSink", "current_sink", "incumbent_sink"]
