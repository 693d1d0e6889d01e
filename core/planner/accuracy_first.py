"""Accuracy first: the smallest ε_target whose best plan reaches a 95 % error bound.

A root search on ``log ε_target`` over the plans of :func:`core.planner.engine.plan` (the
same seed at every step, so the best error is a deterministic, in practice decreasing
function of ε_target; the exponential mechanism's windows read the same samples at nearby
budgets, :func:`core.planner.simulate.exponential_first_half`, so near the root it is
smooth).  Secant steps in ``log ε`` through the trials nearest the bound close in on the
root in a few trials.  Two things keep each trial cheap without changing a single row:

* every (design, rate) is evaluated on its own (:func:`core.planner.engine.prepare`; a
  rate's samples depend on the seed and the rate only), so each row is computed once per
  ε_target and kept; the plan returned at the end reuses the rows the search computed;
* once some ε_target reaches the bound, a (design, rate) none of whose mechanisms reaches
  it there is dropped: the search only looks below that ε_target, where its error, which
  falls with ε_target, stays above the bound.  Only the rows that can still win are
  evaluated again.

The search starts where the census's exact bound (a closed form, no Monte Carlo) meets the
target (:func:`_census_start`): the best plan's bound is near the census's, so the first
trial is close to the root and, reaching the bound there, drops at once every (design, rate)
that cannot win; no Monte Carlo is spent walking to the root from ε_target = 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._validation import check_choice
from ..accounting.zcdp import PROMISE_KINDS, rho_for_eps
from ..designs.frame import Frame
from ..designs.protocol import PlannerDesign
from ..planner import engine, ties
from ..planner.budgets import positive as _positive
from ..planner.engine import PlanJob, PlanResult
from ..planner.setting import Setting, census_rows

if TYPE_CHECKING:
    from ..populations import Population

__all__ = ["AccuracyFirst", "SearchProgress", "smallest_eps_target"]


#: Most plans the accuracy-first search computes before it settles for its bracket.
_MAX_SEARCH_PLANS = 16

#: A row of a plan's table (:attr:`core.planner.engine.PlanResult.table`).
Row = dict[str, Any]


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
        Number of plans computed: the ε_target tried, and the final plan.
    eps_limit : float
        The largest ε_target the search may try (the top of its range): when the bound is
        out of reach, the ε_target of :attr:`plan`.
    """

    target_error_95: float
    eps_target: float
    feasible: bool
    plan: PlanResult | None
    evaluations: int
    eps_limit: float

    @property
    def promise(self) -> str:
        """``"eps"`` (pure ε-DP) or ``"zcdp"``: the promise the search was stated in (its
        plan's, :attr:`core.planner.engine.PlanResult.promise`); under ρ-zCDP the (ε, δ)
        mechanisms were left out."""
        return "eps" if self.plan is None or self.plan.rho_target is None else "zcdp"

    @property
    def rho_target(self) -> float | None:
        """Under a ρ-zCDP promise, the ρ that :attr:`eps_target` keeps by the sharp
        conversion (:func:`core.accounting.zcdp.rho_for_eps`; NaN when none is found);
        None under a pure ε promise."""
        if self.promise == "eps":
            return None
        return rho_for_eps(self.eps_target) if self.feasible else math.nan

    @property
    def plan_eps_target(self) -> float:
        """The ε_target of :attr:`plan`: the one found, or :attr:`eps_limit` when none is."""
        return self.eps_target if self.feasible else self.eps_limit

    @property
    def best_error_95(self) -> float:
        """The best 95 % bound of :attr:`plan` (NaN without a plan).

        When the bound asked for is out of reach, the best bound reachable in the range:
        the refined plan's at the top of the range, where the error is smallest (it falls
        with ε_target, the same samples at every ε_target).
        """
        if self.plan is None:
            return math.nan
        return float(self.plan.best["error_95"])


@dataclass(frozen=True, eq=False)
class SearchProgress:
    """What :func:`smallest_eps_target` has finished: ``done`` of ``total`` steps.

    The search's steps come first (one per ε_target tried; ``total`` counts the most the
    search may take and grows if it takes more), then one per design of the final plan.

    Attributes
    ----------
    done, total : int
        Steps finished, and in all.
    stage : str
        ``"search"`` (an ε_target was tried) or ``"plan"`` (a design of the plan at the
        ε_target found was evaluated).
    eps_target : float
        The ε_target just tried, or the one found.
    best_error_95 : float
        The best 95 % bound at ``eps_target`` among the rows still evaluated (NaN while
        the final plan runs).
    rows : int
        Rows (design, mechanism, rate) evaluated at ``eps_target``: fewer as rows that
        cannot win are dropped.
    """

    done: int
    total: int
    stage: str
    eps_target: float
    best_error_95: float
    rows: int


class _Search:
    """The rows of every (design, rate) at each ε_target tried, computed once each."""

    def __init__(self, job: PlanJob, target: float) -> None:
        self.job = job
        self.target = target
        self.memo: dict[tuple[str, float, float], list[Row]] = {}
        frame = job.frame
        self.pairs = {job.census.name: [1.0]}
        for d in job.chosen:
            self.pairs[d.name] = [p.rate for p in d.points(frame, job.grid)]
        #: (design, rate) pairs that can still win; every pair until a bound is reached.
        self.live: set[tuple[str, float]] = {(d, r) for d, rs in self.pairs.items() for r in rs}
        self.evaluations = 0

    def census_rows(self, eps: float) -> list[Row]:
        key = (self.job.census.name, 1.0, eps)
        if key not in self.memo:
            j = self.job.at(eps)
            self.memo[key] = census_rows(j.census, j.frame, j.setting)
        return self.memo[key]

    def evaluate(
        self,
        design: PlannerDesign,
        frame: Frame,
        rates: Sequence[float],
        settings: Sequence[Setting],
    ) -> list[list[Row]]:
        """:func:`core.planner.engine.evaluate_many` for one setting, from the memo.

        A rate's rows depend on the seed and the rate only (not on the other rates
        evaluated with it), so the memo returns exactly the rows of the whole grid.
        """
        (setting,) = settings
        eps = setting.eps_target
        got = [p.rate for p in design.points(frame, rates)]
        missing = [r for r in got if (design.name, r, eps) not in self.memo]
        if missing:
            rows = engine.evaluate_many(design, frame, missing, [setting])[0]
            for r in missing:
                self.memo[(design.name, r, eps)] = []
            for row in rows:
                self.memo[(design.name, row["rate"], eps)].append(row)
        out = [row for r in got for row in self.memo[(design.name, r, eps)]]
        return [sorted(out, key=lambda row: row["rate"])]

    def live_rows(self, eps: float) -> list[Row]:
        """The rows at ``eps`` of the pairs that can still win."""
        self.evaluations += 1
        j = self.job.at(eps)
        rows = list(self.census_rows(eps)) if (j.census.name, 1.0) in self.live else []
        for d in j.chosen:
            rates = [r for r in self.pairs[d.name] if (d.name, r) in self.live]
            if rates:
                rows += self.evaluate(d, j.frame, rates, [j.setting])[0]
        return rows

    def prune(self, rows: list[Row]) -> None:
        """Keep the pairs with a row within the bound (called at an ε_target that reaches it)."""
        self.live = {
            (r["design"], r["rate"]) for r in rows if ties.reaches(r["error_95"], self.target)
        }

    def plan(self, eps: float, on_design: Callable[[int], None]) -> PlanResult:
        """The refined plan at ``eps``, equal to :func:`engine.plan`'s, rows reused;
        ``on_design`` hears how many designs (the census first) are done."""
        j = self.job.at(eps)
        rows = list(self.census_rows(eps))
        on_design(1)
        for i, d in enumerate(j.chosen, start=2):
            (got,) = engine.with_refinement_many(
                d, j.frame, j.grid, [j.setting], j.objective, evaluate=self.evaluate
            )
            rows += got
            on_design(i)
        return engine.assemble(j, rows)


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
    sizes_public: bool = False,
    progress: Callable[[SearchProgress], None] | None = None,
    promise: str = "eps",
) -> AccuracyFirst:
    """The smallest ε_target whose best plan has a 95 % error bound at most ``target_error_95``.

    A root search on ``log ε_target`` over ``eps_range`` with the plans of :func:`plan`
    (objective ``"error_95"``, the same seed at every step, so the error is a
    deterministic, in practice decreasing function of ε_target): a bracket is found by
    steps that assume the bound falls like ``1/ε``, then narrowed by secant steps in
    ``log ε`` (each followed by a trial just across the predicted root; bisection after two
    steps that do not halve the bracket) until it is narrower than ``tolerance``
    (relative); the upper end is returned. A bound the same number as the target, to the
    root search's tolerance (:func:`core.planner.ties.reaches`), reaches it. The search
    runs without the rate refinement and, below an ε_target that reaches the bound, only
    on the (design, rate) pairs that reached it there (module docstring); the returned
    plan is refined and equals ``plan(eps_target=found, refine=True)``.

    Parameters
    ----------
    progress : callable, optional
        Called with a :class:`SearchProgress` after each ε_target tried and after each
        design of the final plan.
    promise : str
        ``"eps"`` (default) or ``"zcdp"``: the promise is stated as ρ-zCDP, so the search
        plans only the pure mechanisms (:func:`core.planner.budgets.promise_refusal`) and
        the result also gives the smallest ρ (:attr:`AccuracyFirst.rho_target`; ρ is
        increasing in ε_target, so the smallest ε_target gives the smallest ρ).
    Other parameters
        As for :func:`core.planner.engine.plan`.

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
    check_choice("promise", promise, PROMISE_KINDS)
    job = engine.prepare(
        population,
        statistic=statistic,
        eps_target=hi if promise == "eps" else None,
        rho_target=rho_for_eps(hi) if promise == "zcdp" else None,
        delta_target=delta_target,
        designs=designs,
        rates=rates,
        reps=reps,
        seed=seed,
        relation=relation,
        objective="error_95",
        quantile=quantile,
        mechanisms=mechanisms,
        frame=frame,
        sizes_public=sizes_public,
    )
    search = _Search(job, x)
    errors: dict[float, float] = {}

    def report(stage: str, done: int, eps: float, best: float, rows: int) -> None:
        if progress is not None:
            steps = max(_MAX_SEARCH_PLANS, search.evaluations)
            total = steps + 1 + len(job.chosen)
            progress(
                SearchProgress(
                    done if stage == "search" else steps + done, total, stage, eps, best, rows
                )
            )

    def at(u: float) -> float:
        """``e^u``, exactly the range's ends at theirs (the final plan reuses their rows)."""
        return lo if u == ua else hi if u == ub else math.exp(u)

    def gap(u: float) -> float:
        """``log(best 95 % bound at ε = e^u) − log(target)``: > 0 means not reached."""
        if u not in errors:
            eps = at(u)
            rows = search.live_rows(eps)
            errors[u] = min(float(r["error_95"]) for r in rows) if rows else math.inf
            if ties.reaches(errors[u], x):
                search.prune(rows)
            report("search", search.evaluations, eps, errors[u], len(rows))
        e = errors[u]
        if e <= 0:
            return -math.inf
        # Reached when the bound is at most the target or the same number (core.planner.ties).
        g = math.log(e) - math.log(x)
        return min(g, 0.0) if ties.reaches(e, x) else g

    def finish(eps: float) -> PlanResult:
        return search.plan(eps, lambda done: report("plan", done, eps, math.nan, 0))

    ua, ub = math.log(lo), math.log(hi)
    width = math.log1p(tol)

    def census_error(u: float) -> float:
        """The census's best 95 % bound at ``ε = e^u``: exact, no Monte Carlo."""
        rows = search.census_rows(at(u))
        return min((float(r["error_95"]) for r in rows), default=math.inf)

    start = _census_start(census_error, x, min(max(0.0, ua), ub), ua, ub)
    bad, good = _bracket(gap, start, ua, ub)
    if good is None:
        return AccuracyFirst(x, math.nan, False, finish(hi), search.evaluations + 1, hi)
    if bad is None:
        return AccuracyFirst(x, lo, True, finish(lo), search.evaluations + 1, hi)
    stalls = 0
    while good - bad > width and search.evaluations < _MAX_SEARCH_PLANS:
        before = good - bad
        if stalls >= 2:
            m = 0.5 * (bad + good)
        else:
            # The secant in log ε through two points near the bound (the bound falls
            # roughly like a power of ε, and the common samples keep it smooth near the
            # root), kept inside the bracket; then a step just across the predicted root
            # to close it at once.
            m = _secant({u: gap(u) for u in errors}, bad, good, 2.0 * width)
            margin = min(0.05 * (good - bad), 0.5 * width)
            m = min(max(m, bad + margin), good - margin)
        if gap(m) > 0:
            bad = m
            probe = min(m + 0.5 * width, good)
        else:
            good = m
            probe = max(m - 0.5 * width, bad)
        if stalls < 2 and bad < probe < good:
            if gap(probe) > 0:
                bad = probe
            else:
                good = probe
        # Bisect after two steps that did not halve the bracket (a bumpy or flat bound).
        stalls = stalls + 1 if good - bad > 0.5 * before else 0
    eps = at(good)
    return AccuracyFirst(x, eps, True, finish(eps), search.evaluations + 1, hi)


#: Steps of :func:`_census_start`.
_CENSUS_STEPS = 4


def _census_start(
    census_error: Callable[[float], float], target: float, u: float, ua: float, ub: float
) -> float:
    """Where the search starts (log ε): where the census's exact bound meets ``target``.

    The census is one of the rows every plan ranks, and its bound is a closed form, so this
    costs no Monte Carlo; the best plan's bound is near it (sampled designs trade sampling
    error for amplified budget), so the first trial is close to the root and, reaching the
    bound, drops every (design, rate) that cannot win (module docstring).  A few steps
    that assume the bound falls like ``1/ε`` from ``u``, kept inside ``[ua, ub]``.
    """
    for _ in range(_CENSUS_STEPS):
        e = census_error(u)
        if not math.isfinite(e):
            return u
        # An exact zero (a tied population's smooth sensitivity) reaches any bound.
        step = math.log(e) - math.log(target) if e > 0 else ua - u
        nxt = min(max(u + step, ua), ub)
        if abs(nxt - u) < 1e-3:
            return nxt
        u = nxt
    return u


def _secant(gaps: dict[float, float], bad: float, good: float, spacing: float) -> float:
    """Where the line through two points of ``gaps`` (``log ε`` → gap) crosses zero: the
    point nearest the bound and the next nearest at least ``spacing`` from it (closer
    points give a slope made of noise); the middle of ``(bad, good)`` without two such."""
    near = sorted((abs(g), u, g) for u, g in gaps.items() if math.isfinite(g))
    if not near:
        return 0.5 * (bad + good)
    _, u1, g1 = near[0]
    for _, u2, g2 in near[1:]:
        if abs(u2 - u1) >= spacing and g2 != g1:
            return u1 - g1 * (u1 - u2) / (g1 - g2)
    return 0.5 * (bad + good)


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
