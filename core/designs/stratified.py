"""Proportional stratified samples with randomised rounding (Bun et al. §4.3, §7.3).

Stratum ``h`` gets ``⌊r N_h⌋ + 1`` records with probability ``r N_h − ⌊r N_h⌋`` and
``⌊r N_h⌋`` otherwise, drawn without replacement inside the stratum.  Theorems 4.3 and 7.2
bound the population's guarantee for an added or removed record by
``ln(1 + 2r(e^{2ε} − 1)) + ln(1 + r(e^{2ε} − 1))`` (:func:`core.strata.proportional_eps_bound`)
when ``r N_h ≥ 1`` in every stratum; rates that break this are skipped.  For the stratum
sizes the population has, the exact worst loss over every mechanism with the same two
budgets is computed (:mod:`core.accounting.stratified_profile`); the accounting takes the
smaller of the two and names it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .. import strata as st
from ..accounting.stratified_profile import stratified_eps_sample, stratified_eps_target
from ..designs.frame import Frame
from ..designs.individual import permutations
from ..designs.protocol import Accounting, PlannerDesign, Point, WindowDraw, factor_pair

if TYPE_CHECKING:
    from ..mechanisms import BudgetFactors
from ..designs.stratified_windows import StrataIndex, proportional_source

if TYPE_CHECKING:
    from ..linear.moments import LinearMoments
    from ..linear.sums import GroupSums

__all__ = ["STRATA_FRAME", "ProportionalStratifiedDesign", "rounded_allocation"]

#: The assumption every stratified guarantee rests on, in words for the page.
STRATA_FRAME = (
    "It assumes the list of strata is public and fixed: neighbouring populations differ "
    "by a record inside the existing strata, whose sizes N_h the accounting uses."
)


def rounded_allocation(
    sizes: NDArray[np.int64], rate: float, uniforms: NDArray[np.float64]
) -> NDArray[np.int64]:
    """Randomised rounding of ``rate · N_h``: ``⌊r N_h⌋ + [u_h < r N_h − ⌊r N_h⌋]``.

    ``uniforms`` has one row per repetition and one column per stratum; each row gives one
    allocation, whose expectation is ``r N_h`` in every stratum.
    """
    exact = rate * sizes.astype(np.float64)
    base = np.floor(exact)
    return (base + (uniforms < (exact - base))).astype(np.int64)


class ProportionalStratifiedDesign(PlannerDesign):
    """The fraction ``r`` of every stratum, randomised rounding."""

    has_mean_moments = True
    has_linear_moments = True

    name = "stratified_proportional"
    label = "Proportional stratified sample, randomised rounding"
    short_label = "Stratified, proportional"
    description = (
        "Every stratum is sampled at the same rate, and each stratum's sample size "
        "rate·(stratum size) is rounded up or down at random, so the sizes themselves give "
        "nothing away. Bun et al. Theorem 4.3 (one stratum) and Theorem 7.2 (several strata) "
        "bound the population's loss by log(1 + 2·rate·(e^(2·ε_sample) − 1)) + log(1 + "
        "rate·(e^(2·ε_sample) − 1)), roughly 6·rate·ε_sample when both are small, for "
        "neighbours that add or remove one record. It needs rate·(stratum size) ≥ 1 in every "
        "stratum."
    )
    theorem = "Bun et al. Theorems 4.3 and 7.2"
    proven_for = "deletion"
    mask_bytes = 4 + 8 + 1 + 32

    def unavailable(self, frame: Frame, relation: str) -> str:
        if frame.strata_sizes is None:
            return "The population has no stratum labels (upload a file with a stratum column)."
        if frame.strata_sizes.size < 2:
            return "The population has a single stratum: that is a simple random sample."
        return super().unavailable(frame, relation)

    def caveat(self, relation: str) -> str:
        """How a changed record is priced, then the assumption of a fixed list of strata."""
        if relation == "replacement":
            note = (
                "A changed record may move to another stratum; the exact accounting prices "
                "a move as a removal from one stratum plus an addition to another, each at "
                "its exact cost (exactly the worst case when the mechanism's change budget "
                "is twice its add/remove budget, an upper bound otherwise)."
            )
        else:
            note = ""
        return " ".join(part for part in (note, STRATA_FRAME) if part)

    def point(self, frame: Frame, rate: float) -> Point | None:
        assert frame.strata_sizes is not None
        if (rate * frame.strata_sizes < 1).any():
            return None  # the samplers (and Bun et al.'s theorems) need r·N_h ≥ 1
        return Point(
            rate, rate, rate * frame.N, theorem={"rate": rate, "sizes": frame.strata_sizes}
        )

    def theorem_keywords(self, frame: Frame, rate: float) -> dict[str, Any]:
        """The rate and the records of every stratum (``sizes``)."""
        assert frame.strata_sizes is not None
        return {"rate": float(rate), "sizes": frame.strata_sizes}

    def theorem_point(self, keywords: dict[str, Any]) -> Point:
        """The point of ``rate=`` and, optionally, ``sizes=`` (records per stratum: without
        them only Bun et al.'s theorems, which hold for every size, apply)."""
        sizes = keywords.get("sizes")
        point = super().theorem_point({k: v for k, v in keywords.items() if k != "sizes"})
        if sizes is None:
            return point
        arr = np.asarray(sizes)
        if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr) & (arr >= 1)):
            raise ValueError("sizes must list the records of every stratum, each >= 1")
        return Point(point.rate, point.size, point.n, theorem={"rate": point.rate, "sizes": arr})

    def amplified(self, eps_sample: float, point: Point) -> float:
        return float(st.proportional_eps_bound(eps_sample, point.rate))

    def deamplified(self, eps_target: float, point: Point) -> float:
        return float(st.proportional_eps_sample_for_target(eps_target, point.rate))

    def accounting(
        self,
        eps_target: float,
        relation: str,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> Accounting:
        """The papers' bound (:meth:`PlannerDesign.accounting`) or the exact profile for the
        population's stratum sizes, whichever lets the mechanism spend more.

        ``shared``: the profile is read at the change budget ``2α`` (:func:`factor_pair`),
        a function of the add/remove budget alone, so the shares of releases that share the
        sample add up (their ``α`` budgets compose).
        """
        sizes = point.theorem.get("sizes")
        alpha, gamma = factor_pair(factors, shared)
        theorem = (
            super().accounting(eps_target, relation, factors, point, shared=shared)
            if _theorem_holds(sizes, point.rate)
            else None
        )
        if sizes is None or alpha is None or not 0.0 < point.rate < 1.0:
            if theorem is None:
                raise ValueError(_BELOW_ONE)
            return theorem
        exact = stratified_eps_sample(eps_target, point.rate, sizes, alpha, gamma, relation)
        if theorem is not None and exact <= theorem.eps_sample:
            return theorem
        return Accounting(float(exact), _profile_name(relation, exact.exact))

    def eps_target_of(
        self,
        eps_sample: float,
        relation: str,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> float:
        """The inverse of :meth:`accounting`: the smaller of the two guarantees."""
        sizes = point.theorem.get("sizes")
        alpha, gamma = factor_pair(factors, shared)
        theorem = (
            super().eps_target_of(eps_sample, relation, factors, point, shared=shared)
            if _theorem_holds(sizes, point.rate)
            else math.inf
        )
        if sizes is None or alpha is None or not 0.0 < point.rate < 1.0:
            if math.isinf(theorem):
                raise ValueError(_BELOW_ONE)
            return theorem
        exact = stratified_eps_target(
            alpha * eps_sample, gamma * eps_sample, point.rate, sizes, relation
        )
        return min(theorem, exact)

    def window_draw(
        self, frame: Frame, point: Point, reps: int, rng: np.random.Generator
    ) -> WindowDraw:
        """Allocations by randomised rounding now; each stratum's uniform subset revealed
        window by window (:class:`core.designs.stratified_windows.StratifiedWindows`)."""
        index = frame.prepared("strata_index", _strata_index)
        runs = frame.tied_runs()
        table = (
            frame.prepared("strata_run_table", lambda f: index.run_table(runs))
            if runs is not None
            else None
        )
        source = proportional_source(rng, index, point.rate, reps, runs=runs, table=table)
        return WindowDraw(np.asarray(source.sizes, dtype=np.int64), source)

    def window_cost(self, frame: Frame, point: Point) -> float:
        """Record-equivalents of one windowed sample: SRS windows with one hypergeometric
        count per stratum at every split."""
        assert frame.strata_sizes is not None
        return 12_000.0 + 150.0 * frame.strata_sizes.size * math.log2(max(frame.N, 2))

    def draw_keys(self, frame: Frame, rows: int, rng: np.random.Generator) -> Any:
        """A uniform random rank inside the record's stratum, and a rounding uniform per
        stratum."""
        assert frame.strata_sizes is not None
        positions = frame.prepared("strata_positions", _strata_positions)
        keys = np.empty((rows, frame.N), dtype=np.int32)
        for pos in positions:
            keys[:, pos] = permutations(rng, rows, pos.size)
        return keys, rng.random((rows, frame.strata_sizes.size))

    def mask(self, frame: Frame, keys: Any, point: Point) -> NDArray[np.bool_]:
        assert frame.strata_sizes is not None and frame.strata_codes is not None
        ranks, rounding = keys
        alloc = rounded_allocation(frame.strata_sizes, point.rate, rounding)
        return np.asarray(ranks < alloc[:, frame.strata_codes])

    def linear_moments(self, frame: Frame, sums: GroupSums, point: Point) -> LinearMoments:
        """Horvitz–Thompson with randomised rounding
        (:func:`core.linear.moments.stratified_moments`)."""
        from ..linear import moments

        return moments.stratified_moments(sums, point.rate)


_BELOW_ONE = (
    "Bun et al. Theorems 4.3/7.2 need rate × (stratum size) ≥ 1 in every stratum; below "
    "that only the exact profile for the population's stratum sizes prices the design."
)


def _theorem_holds(sizes: Any, rate: float) -> bool:
    """Bun et al.'s theorems need ``r N_h >= 1`` in every stratum (True without sizes:
    the caller then asserts it)."""
    return sizes is None or bool(np.all(rate * np.asarray(sizes, dtype=np.float64) >= 1.0))


def _profile_name(relation: str, exact: bool) -> str:
    if relation == "deletion" or exact:
        return (
            "exact privacy profile for these stratum sizes (the worst loss over every "
            "mechanism with the same budgets, computed)"
        )
    return (
        "exact privacy profile for these stratum sizes, a move between strata priced as a "
        "removal plus an addition (an upper bound)"
    )


def _strata_positions(frame: Frame) -> tuple[NDArray[np.int64], ...]:
    """Positions (in the sorted population) of each stratum's records, ascending."""
    assert frame.strata_codes is not None and frame.strata_sizes is not None
    order = np.argsort(frame.strata_codes, kind="stable")
    return tuple(np.split(order, np.cumsum(frame.strata_sizes)[:-1]))


def _strata_index(frame: Frame) -> StrataIndex:
    assert frame.strata_codes is not None
    return StrataIndex.from_labels(frame.strata_codes)
