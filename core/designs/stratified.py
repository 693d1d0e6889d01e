"""Proportional stratified samples with randomised rounding (Bun et al. §4.3, §7.3).

Stratum ``h`` gets ``⌊r N_h⌋ + 1`` records with probability ``r N_h − ⌊r N_h⌋`` and
``⌊r N_h⌋`` otherwise, drawn without replacement inside the stratum.  Theorems 4.3 and 7.2
bound the population's guarantee for an added or removed record by
``ln(1 + 2r(e^{2ε} − 1)) + ln(1 + r(e^{2ε} − 1))`` (:func:`core.strata.proportional_eps_bound`)
when ``r N_h ≥ 1`` in every stratum; rates that break this are skipped.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import strata as st
from ..designs.frame import Frame
from ..designs.individual import permutations
from ..designs.protocol import PlannerDesign, Point, WindowDraw
from ..designs.stratified_windows import StrataIndex, proportional_source

__all__ = ["ProportionalStratifiedDesign", "rounded_allocation"]


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

    def point(self, frame: Frame, rate: float) -> Point | None:
        assert frame.strata_sizes is not None
        if (rate * frame.strata_sizes < 1).any():
            return None  # Theorems 4.3/7.2 need r·N_h ≥ 1 in every stratum
        return Point(rate, rate, rate * frame.N, theorem={"rate": rate})

    def amplified(self, eps_sample: float, point: Point) -> float:
        return float(st.proportional_eps_bound(eps_sample, point.rate))

    def deamplified(self, eps_target: float, point: Point) -> float:
        return float(st.proportional_eps_sample_for_target(eps_target, point.rate))

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


def _strata_positions(frame: Frame) -> tuple[NDArray[np.int64], ...]:
    """Positions (in the sorted population) of each stratum's records, ascending."""
    assert frame.strata_codes is not None and frame.strata_sizes is not None
    order = np.argsort(frame.strata_codes, kind="stable")
    return tuple(np.split(order, np.cumsum(frame.strata_sizes)[:-1]))


def _strata_index(frame: Frame) -> StrataIndex:
    assert frame.strata_codes is not None
    return StrataIndex.from_labels(frame.strata_codes)
