"""Simple random and Poisson samples: each record on its own, ``ln(1 + r(e^ε − 1))``.

* :class:`SimpleRandom` -- ``n = round(r N)`` records without replacement; Hu, Drechsler &
  Kim Theorem 1 (Balle, Barthe & Gaboardi 2018) for a changed record, with
  ``δ_sample = δ_target / r``.
* :class:`Poisson` -- each record independently with probability ``r``; Bun et al. eq. 3 and
  Theorem 2.2 for an added or removed record.  For a changed record the mechanism's two
  budgets give the exact bound of :mod:`core.accounting.change_one`.

Both reveal windows of order statistics through :class:`core.windowed.SampleWindows`: a
Poisson sample given its size ``n ~ Binomial(N, r)`` is a simple random sample of that
size, so both draw windows of uniform ``n``-subsets.  On a tied population (at least two
records per distinct value on average) the windows are drawn over runs of equal values
(:class:`core.windowed.runs.RunWindows`, the same law), so a tie block costs one run.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .. import amplification as amp
from ..accounting import change_one
from ..designs.frame import Frame
from ..designs.protocol import Accounting, PlannerDesign, Point, WindowDraw
from ..windowed.runs import RunSource

if TYPE_CHECKING:
    from ..linear.moments import LinearMoments
    from ..linear.sums import GroupSums

if TYPE_CHECKING:
    from ..mechanisms.base import BudgetFactors

__all__ = ["Poisson", "SimpleRandom", "permutations"]


def permutations(rng: np.random.Generator, rows: int, size: int) -> NDArray[np.int32]:
    """``rows`` independent uniform permutations of ``0 … size − 1`` (one per row)."""
    return rng.permuted(np.tile(np.arange(size, dtype=np.int32), (rows, 1)), axis=1)


def _window_draw(frame: Frame, sizes: NDArray[np.int64]) -> WindowDraw:
    """Uniform subsets of ``sizes``: over runs of equal values when the population is tied."""
    runs = frame.tied_runs()
    return WindowDraw(sizes, None if runs is None else RunSource(runs, sizes))


def _window_cost(frame: Frame) -> float:
    """Cost of one windowed sample in record-equivalents (a mask costs N): measured about
    0.2–0.5 ms per sample, about as much as a mask over 20,000 records."""
    return 12_000.0 + 500.0 * math.log2(max(frame.N, 2))


class _Individual(PlannerDesign):
    has_mean_moments = True

    def amplified(self, eps_sample: float, point: Point) -> float:
        return float(amp.eps_target(eps_sample, point.rate))

    def deamplified(self, eps_target: float, point: Point) -> float:
        return float(amp.eps_sample(eps_target, point.rate))

    def window_cost(self, frame: Frame, point: Point) -> float:
        return _window_cost(frame)


class SimpleRandom(_Individual):
    """``n`` of ``N`` records without replacement, ``r = n / N``."""

    has_linear_moments = True

    name = "srs"
    label = "Simple random sample (without replacement)"
    short_label = "SRS"
    description = (
        "A simple random sample of n = rate·N records drawn without replacement and kept "
        "secret. Hu et al. Theorem 1 (after Balle et al. 2018; Bun et al. Theorem 2.2): a "
        "mechanism that is ε_sample-private on the sample is log(1 + rate·(e^ε_sample − "
        "1))-private for the population, with δ_target = rate·δ_sample, for neighbours that "
        "differ in one changed record. Solving for ε_sample gives the budget the sample may "
        "spend: log(1 + (e^ε_target − 1)/rate)."
    )
    theorem = "Hu, Drechsler & Kim Theorem 1 (Balle, Barthe & Gaboardi 2018)"
    proven_for = "replacement"
    fixed_size = True
    mask_bytes = 4 + 1 + 32
    exact_profile = "srs"

    def point(self, frame: Frame, rate: float) -> Point | None:
        n = amp.sample_size(frame.N, rate)
        return Point(n / frame.N, float(n), float(n), theorem={"rate": n / frame.N})

    def delta_sample(self, delta_target: float, point: Point) -> float:
        """``δ_target / r`` (Balle, Barthe & Gaboardi 2018), capped at 0.5."""
        return min(delta_target / point.rate, 0.5)

    def draw_keys(self, frame: Frame, rows: int, rng: np.random.Generator) -> Any:
        """A uniform random rank per record: the records ranked below ``n`` are the sample."""
        return permutations(rng, rows, frame.N)

    def mask(self, frame: Frame, keys: Any, point: Point) -> NDArray[np.bool_]:
        return np.asarray(keys < point.size)

    def window_draw(
        self, frame: Frame, point: Point, reps: int, rng: np.random.Generator
    ) -> WindowDraw:
        return _window_draw(frame, np.full(reps, round(point.size), dtype=np.int64))

    def linear_moments(self, frame: Frame, sums: GroupSums, point: Point) -> LinearMoments:
        """The expansion estimator (:func:`core.linear.moments.srs_moments`)."""
        from ..linear import moments

        return moments.srs_moments(sums, round(point.n))


class Poisson(_Individual):
    """Every record independently with probability ``r``."""

    has_linear_moments = True

    name = "poisson"
    label = "Poisson sample"
    short_label = "Poisson"
    description = (
        "Every record enters the sample on its own coin flip with probability rate, so n "
        "varies. The same formula as for the simple random sample holds (Bun et al. Theorem "
        "2.2 and eq. (3)), but for neighbours that add or remove one record."
    )
    theorem = "Bun et al. eq. 3 and Theorem 2.2"
    proven_for = "deletion"
    mask_bytes = 8 + 1 + 32

    def draw_keys(self, frame: Frame, rows: int, rng: np.random.Generator) -> Any:
        """A uniform number per record: below ``r``, the record is in."""
        return rng.random((rows, frame.N))

    def mask(self, frame: Frame, keys: Any, point: Point) -> NDArray[np.bool_]:
        return np.asarray(keys < point.size)

    def window_draw(
        self, frame: Frame, point: Point, reps: int, rng: np.random.Generator
    ) -> WindowDraw:
        """Sizes ``n ~ Binomial(N, r)``; given its size the sample is a uniform subset."""
        return _window_draw(frame, rng.binomial(frame.N, point.rate, reps).astype(np.int64))

    def caveat(self, relation: str) -> str:
        if relation == "replacement":
            return (
                "Its theorem is proven for adding or removing a record; for a changed record "
                "the planner uses the exact bound from the mechanism's own add/remove and "
                "change budgets (core.accounting.change_one), which beats counting a change "
                "as a removal and an addition (group privacy)."
            )
        return ""

    def change_accounting(
        self,
        eps_target: float,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> Accounting:
        """The exact bound for a changed record from the mechanism's two budgets.

        ``ε_target = ln((1 − r + r e^{ε_ar}) / (1 − r + r e^{ε_ar − ε_sub}))``
        (:func:`core.accounting.change_one.poisson_eps_target`), inverted with
        ``ε_ar = α ε_sample`` and ``ε_sub = min(γ, 2α) ε_sample`` kept apart (for the
        exponential median α = 1/2 and γ = 1); group privacy when no mechanism is named.

        ``shared`` (other releases share the sample, :meth:`PlannerDesign.accounting`): the
        bound above is not a function of one sum, and shares of mechanisms with different
        ratios ``γ / α`` that each reach it can compose to more than ``ε_target`` (a median
        at α = 1/2 with a quartile at α = 3/4, half the budget each, by 1.5 % at r = 0.5 and
        ε_target = 2; the exponential median with the global-Laplace quantile by 4.7 %).
        So the change budget is taken as ``2α``, which every mechanism has (group privacy):
        the composed release has ``ε_sub <= 2 ε_ar`` with ``ε_ar`` the sum of the shares'
        and, the bound growing with ``ε_sub``, ``ε_target <= ln((1 − r + r e^{ε_ar}) /
        (1 − r + r e^{−ε_ar}))``, a function of that sum alone.  It is the same bound
        for a mechanism with ``γ = 2α`` (the exponential median, the means over ``N``).
        """
        if factors is None or factors.add_remove is None:
            return super().change_accounting(eps_target, factors, point, shared=shared)
        change = 2.0 * factors.add_remove if shared else factors.change
        eps = float(
            change_one.poisson_eps_sample(eps_target, point.rate, factors.add_remove, change)
        )
        return Accounting(eps, _POISSON_SHARED if shared else _POISSON_CHANGE)

    def change_eps_target(
        self,
        eps_sample: float,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> float:
        if factors is None or factors.add_remove is None:
            return super().change_eps_target(eps_sample, factors, point, shared=shared)
        change = 2.0 * factors.add_remove if shared else factors.change
        gamma = change_one.effective_change_factor(factors.add_remove, change)
        return float(
            change_one.poisson_eps_target(
                factors.add_remove * eps_sample, gamma * eps_sample, point.rate
            )
        )

    def linear_moments(self, frame: Frame, sums: GroupSums, point: Point) -> LinearMoments:
        """Horvitz–Thompson (:func:`core.linear.moments.poisson_moments`)."""
        from ..linear import moments

        return moments.poisson_moments(sums, point.rate)


_POISSON_CHANGE = (
    "Poisson sampling, exact for a changed record from the mechanism's add/remove and change "
    "budgets: ln((1 − r + r e^ε_ar) / (1 − r + r e^(ε_ar − ε_sub)))"
)
_POISSON_SHARED = (
    "Poisson sampling, for a changed record when other releases share the sample: "
    "ln((1 − r + r e^ε_ar) / (1 − r + r e^(−ε_ar))), from the add/remove budgets, which add"
)
