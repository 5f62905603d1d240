"""Hypothesis strategies generating moldable instances (public; re-exported by
:mod:`dmlsched.strategies`)."""

from __future__ import annotations

from hypothesis import strategies as st

from .instance import MoldableInstance, MoldableTask, SpeedupCurve

#: sublinear speedup curves whose runtimes stay integral for even volumes
#: (used where the exact MIP must be exact): s(1/2) in {1/2, 2/3}, linear above 1
GRID_CURVES = (
    ((0.5, 0.5), (1.0, 1.0), (4.0, 4.0)),
    ((0.5, 2.0 / 3.0), (1.0, 1.0), (4.0, 4.0)),
)


@st.composite
def moldable_speedup_curves(draw, *, max_p: int = 8) -> SpeedupCurve:
    """Random non-decreasing sublinear curves with ``s(1) = 1``.

    Built from per-step ratios: going from ``p`` to ``p' > p`` the speed is
    multiplied by a factor in ``[1, p'/p]``.
    """
    fr = draw(st.lists(st.sampled_from([2, 3, 4, 8]), max_size=2, unique=True))
    ps_lo = sorted({1.0 / n for n in fr})  # increasing, all < 1
    pts = []
    # below 1: s(p) = s(p_next) / factor with factor in [1, p_next/p]
    speeds_lo = []
    nxt_p, nxt_s = 1.0, 1.0
    for p in reversed(ps_lo):
        lam = draw(st.floats(0.0, 1.0))
        s = nxt_s / (1.0 + lam * (nxt_p / p - 1.0))
        speeds_lo.append((p, s))
        nxt_p, nxt_s = p, s
    pts.extend(reversed(speeds_lo))
    pts.append((1.0, 1.0))
    p, s = 1.0, 1.0
    for q in range(2, max_p + 1):
        if not draw(st.booleans()):
            continue
        lam = draw(st.floats(0.0, 1.0))
        s = s * (1.0 + lam * (q / p - 1.0))
        p = float(q)
        pts.append((p, s))
    return SpeedupCurve(tuple(pts))


@st.composite
def moldable_instances(
    draw,
    *,
    max_gpus: int = 4,
    max_tasks: int = 8,
    max_volume: float = 1000.0,
    grid: bool = False,
    with_memory: bool = True,
) -> MoldableInstance:
    """Small random instances.

    With ``grid`` arrivals are integers, volumes even integers and the curve is
    one of :data:`GRID_CURVES` with ``p_min >= 1/2``, so every runtime on an
    admissible amount is an integer (the exact MIP is then exact).
    """
    gpus = draw(st.integers(1, max_gpus))
    n = draw(st.integers(1, max_tasks))
    if grid:
        curve = SpeedupCurve(tuple(draw(st.sampled_from(GRID_CURVES))))
    else:
        curve = draw(moldable_speedup_curves(max_p=max(1, gpus)))
    mem_cap = 10.0
    tasks = []
    for k in range(n):
        if grid:
            arrival = float(draw(st.integers(0, 4)))
            volume = float(2 * draw(st.integers(1, int(max_volume) // 2 if max_volume >= 2 else 1)))
            den = draw(st.sampled_from([1, 2]))
            # runtimes stay integral on 1, 2 and 4 GPUs when the volume is a multiple of 4
            p_max = draw(st.sampled_from(sorted({1, min(2, gpus)})))
            if p_max == 2:
                volume = float(4 * max(1, int(volume) // 4))
        else:
            arrival = draw(st.floats(0, 50, allow_nan=False))
            volume = draw(st.floats(1, max_volume, allow_nan=False))
            den = draw(st.sampled_from([1, 2, 3, 4]))
            p_max = draw(st.integers(1, gpus))
        memory = float(draw(st.integers(0, 10))) if with_memory else 0.0
        p_req = None if grid else draw(st.none() | st.integers(1, p_max))
        tasks.append(
            MoldableTask(
                id=f"t{k}", user=f"u{draw(st.integers(0, 2))}", arrival=arrival, volume=volume,
                pmin_den=den, p_max=p_max, memory=memory, p_req=p_req,
            )
        )
    return MoldableInstance(
        gpus=gpus,
        gpu_memory=mem_cap,
        speedup=curve,
        tasks=tuple(tasks),
        preemption_overhead=draw(st.sampled_from([0.0, 0.0, 1.0, 5.0])) if not grid else 0.0,
        preemption_min_remaining=draw(st.sampled_from([0.0, 2.0, 300.0])) if not grid else 0.0,
        name="hypothesis",
    )


__all__ = ["moldable_instances", "moldable_speedup_curves"]
