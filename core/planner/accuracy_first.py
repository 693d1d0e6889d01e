"""Accuracy first: the smallest ε_target whose best plan reaches a 95 % error bound.

A root search on ``log ε_target`` with :func:`core.planner.engine.plan` (the same seed at
every step, so the best error is a deterministic, in practice decreasing function of
ε_target).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.designs.frame import Frame
from core.planner.budgets import positive as _positive
from core.planner.engine import PlanResult, plan

if TYPE_CHECKING:
    from core.populations import Population

__all__ = ["AccuracyFirst", "smallest_eps_target"]


#: Most plans the accuracy-first search computes before it settles for its bracket.
_MAX_SEARCH_PLANS = 16


@dataclass(frozen=True, eq=False)
class AccuracyFirst:
    """Result of :func:`smallest_eps_target`.

    Attributes
    ----------
    target_error_95 : float
        The 95 % error bound asked for.
    eps_target : float
        The smallest ε_target found (to about 2 % relative), NaN if none in range works.
    feasible : bool
        Whether some ε_target in the range reaches the bound.
    plan : PlanResult or None
        The plan at ``eps_target`` (at the top of the range when infeasible).
    evaluations : int
        Number of plans computed by the search.
    """

    target_error_95: float
    eps_target: float
    feasible: bool
    plan: PlanResult | None
    evaluations: int


def smallest_eps_target(
    population: Population,
    *,
    statistic: str = "median",
    target_error_95: float,
    delta_target: float | None = None,
    designs: Sequence[str] | None = None,
    rates: Sequence[float] | None = None,
    reps: int = 200,
    seed: int = 0,
    relation: str = "replacement",
    eps_range: tuple[float, float] = (1e-3, 50.0),
    tolerance: float = 0.02,
    quantile: float = 0.5,
    mechanisms: Sequence[str] | None = None,
    frame: Frame | None = None,
) -> AccuracyFirst:
    """The smallest ε_target whose best plan has a 95 % error bound at most ``target_error_95``.

    A root search on ``log ε_target`` over ``eps_range`` with :func:`plan` (objective
    ``"error_95"``, the same seed at every step, so the error is a deterministic, in
    practice decreasing function of ε_target): a bracket is found by steps that assume the
    bound falls like ``1/ε``, then narrowed by false position until it is narrower than
    ``tolerance`` (relative); the upper end is returned. The search runs without the rate
    refinement; the returned plan is refined.

    Raises
    ------
    ValueError
        For a non-positive ``target_error_95``, a bad range or the arguments :func:`plan`
        refuses.
    """
    x = _positive("target_error_95", target_error_95)
    lo, hi = (_positive("eps_range", e) for e in eps_range)
    if not lo < hi:
        raise ValueError(f"eps_range must be (low, high) with low < high; got {eps_range!r}")
    tol = _positive("tolerance", tolerance)
    count = 0

    def run(eps: float, refine: bool = False) -> PlanResult:
        nonlocal count
        count += 1
        return plan(
            population,
            statistic=statistic,
            eps_target=eps,
            delta_target=delta_target,
            designs=designs,
            rates=rates,
            reps=reps,
            seed=seed,
            relation=relation,
            objective="error_95",
            refine=refine,
            quantile=quantile,
            mechanisms=mechanisms,
            frame=prepared,
        )

    prepared = frame if frame is not None else Frame.of(population)
    errors: dict[float, float] = {}

    def gap(u: float) -> float:
        """``log(best 95 % bound at ε = e^u) − log(target)``: > 0 means not reached."""
        if u not in errors:
            errors[u] = float(run(math.exp(u)).best["error_95"])
        return math.log(errors[u]) - math.log(x) if errors[u] > 0 else -math.inf

    ua, ub = math.log(lo), math.log(hi)
    width = math.log1p(tol)
    bad, good = _bracket(gap, min(max(0.0, ua), ub), ua, ub)
    if good is None:
        return AccuracyFirst(x, math.nan, False, run(hi, refine=True), count)
    if bad is None:
        return AccuracyFirst(x, lo, True, run(lo, refine=True), count)
    bisect = False
    while good - bad > width and count < _MAX_SEARCH_PLANS:
        before = good - bad
        ga, gb = gap(bad), gap(good)
        if bisect or not math.isfinite(gb):
            m = 0.5 * (bad + good)
        else:
            # False position in log ε (the bound falls roughly like 1/ε), kept inside the
            # bracket; then a step just across the predicted root to close it at once.
            m = good - gb * (good - bad) / (gb - ga)
            m = min(max(m, bad + 0.05 * (good - bad)), good - 0.05 * (good - bad))
        if gap(m) > 0:
            bad = m
            probe = min(m + 0.5 * width, good)
        else:
            good = m
            probe = max(m - 0.5 * width, bad)
        if not bisect and bad < probe < good:
            if gap(probe) > 0:
                bad = probe
            else:
                good = probe
        # Bisect next whenever a step did not halve the bracket (a bumpy or flat bound).
        bisect = good - bad > 0.5 * before
    eps = math.exp(good)
    return AccuracyFirst(x, eps, True, run(eps, refine=True), count)


def _bracket(
    gap: Callable[[float], float], start: float, ua: float, ub: float
) -> tuple[float | None, float | None]:
    """A pair ``(bad, good)`` of log ε with ``gap(bad) > 0 >= gap(good)``, searched from
    ``start`` by steps the ``1/ε`` scaling of the error predicts; ``good`` is None when even
    ``ub`` fails, ``bad`` is None when ``ua`` already succeeds."""
    bad: float | None = None
    good: float | None = None
    u = start
    for _ in range(60):
        g = gap(u)
        if g > 0:
            bad = u if bad is None else max(bad, u)
            if good is not None or u >= ub:
                return bad, good
            u = min(ub, u + 1.1 * max(g, math.log(2.0)))
        else:
            good = u if good is None else min(good, u)
            if bad is not None or u <= ua:
                return bad, good
            u = max(ua, u - 1.1 * max(-g, math.log(2.0)) if math.isfinite(g) else u - 1.0)
    return bad, good
