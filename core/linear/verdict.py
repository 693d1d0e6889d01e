"""Why the census beats every sample for a count, total or proportion, design by design.

For a median, sampling can win: the amplified ``eps_sample`` buys less noise than the sample
costs in sampling error.  For a linear statistic it cannot, under the same mechanism.  The
facts of a plan (:func:`linear_verdict`) are checked row by row from its table; the proofs
are below.

Notation: the census spends ``ε_c`` (its accounting for the relation and the mechanism's
budgets: ``ε_target`` divided by the budget factor), a design at rate ``r`` spends ``ε_s``
and releases ``w (Σ_S y + Z_s)`` with weight ``w = 1/r`` (``N/n`` for a simple random
sample, ``k/ℓ`` for clusters: ``1/r`` with ``r`` the realised rate).

Lemma 1 (amplification cannot beat the weight).  Let ``φ_r(x) = ln(1 + (e^x − 1)/r)``, the
budget of a simple random or Poisson sample (Balle et al. 2018; Hu et al. Thm 1).  Then
``r φ_r(x) < x`` for ``0 < r < 1``, ``x > 0``.  *Proof.*  ``g(r) = r ln(1 + a/r)``
(``a = e^x − 1``) has ``g'(r) = ln(1 + a/r) − a/(r + a) > 0`` because ``ln(1 + t) >
t/(1 + t)`` for ``t > 0``; so ``g(r) < g(1) = x``.  ∎  The bound ``φ_r`` is tight for a
design that keeps each record with probability ``r`` (the worst ε_s-DP mechanism attains
``ln(1 + r(e^{ε_s} − 1))``; Balle, Barthe & Gaboardi 2018), so no valid theorem for such a
design lets a sample spend more: ``ε_s ≤ φ_r(ε_c)`` for every design here (proportional
stratified with randomised rounding, ``ℓ`` of ``k`` clusters and Poisson clusters also keep
each record with probability ``r``).  Under a changed record a design proven for added or
removed records uses group privacy or the mechanism's two budgets, which spends less still.
The module's tests check ``r ε_s ≤ ε_c`` for every design, relation and budget factor on a
grid of rates and ε from 1e-9 to 1000 (and by hypothesis); :func:`linear_verdict` reports
the largest ``r ε_s / ε_c`` of each design (``efficiency``), so an exception would show.

Lemma 2 (the noise).  *Laplace*: ``Var(w Z_s) = 2 (w Δ/ε_s)² ≥ 2 (Δ/ε_c)² = Var Z_c``
exactly when ``r ε_s ≤ ε_c`` (Lemma 1).  *Two-sided geometric* (``Var Z = 1/(2
sinh²(ε/(2Δ)))``): with ``h(v) = 4 sinh²(v/2) = (e^v − 1)²/e^v``, increasing, and
``u = ε_c/Δ``, ``v = ε_s/Δ``: ``φ_r`` is concave with ``φ_r(0) = 0`` (``φ_r'(x) = e^x/(e^x −
1 + r)`` decreases), so ``v ≤ φ_r(Δu)/Δ ≤ φ_r(u) =: v*``; and ``h(v*) = ((e^u − 1)/r)²/e^{v*}
≤ h(u)/r²`` because ``v* ≥ u``.  So ``w² Var Z_s = 1/(2 r² sinh²(v/2)) ≥ 1/(2 sinh²(u/2))
= Var Z_c``; at Lemma 1's ``ε_s = φ_r(ε_c)`` (``Δ = 1``) the ratio is exactly
``e^{ε_s − ε_c} = (1 + (e^{ε_c} − 1)/r) e^{−ε_c} ≥ 1``.  *Other mechanisms* (the discrete
Gaussian): checked row by row (``noise_ratio``).

Theorem (census first).  Every design's estimator is unbiased with design variance ``V_d ≥
0`` independent of the noise, so its mean squared error ``V_d + w² Var Z_s ≥ Var Z_c``, the
census's: the census's RMSE is the smallest under the same mechanism, for every design,
rate and relation.  For the 95 % bound with Laplace noise: ``|E + w Z_s|`` is
stochastically larger than ``|w Z_s|`` (Anderson's theorem: ``w Z_s`` is symmetric and
unimodal, ``E`` independent and symmetric), which is larger than ``|Z_c|`` (a Laplace of
larger scale); for the others the table's bounds are compared (``census_wins``).

How close at small ε.  As ``ε_target → 0`` the noise grows like ``1/ε`` and the design's
variance stays, so the sample's error over the census's tends to ``lim w ε_c/ε_s``: for a
simple random or Poisson sample ``φ_r(x) = x/r + O(x²)``, so the ratio tends to 1 — the
sample loses nothing but its sampling error, which the noise then dwarfs.  Designs whose
theorem spends less (clusters, stratified) keep a ratio above 1.  :func:`linear_verdict`
reports the ratio at the plan's ε and, given the same plan at a small ε
(:data:`SMALL_EPS`), there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ..designs.registry import DESIGNS
from ..planner.engine import PlanResult

__all__ = ["SMALL_EPS", "DesignVerdict", "LinearVerdict", "linear_verdict"]

#: The ε_target at which "how close at small ε" is read (a plan the caller makes).
SMALL_EPS = 1e-3
_TOL = 1e-9  # relative: rounding in the amplification's inversion


@dataclass(frozen=True)
class DesignVerdict:
    """One design and mechanism against the census under the same mechanism.

    Attributes
    ----------
    design, label, mechanism : str
        The design, its label, and the mechanism both use.
    census_wins : bool
        The census's RMSE and 95 % bound are at most this design's at every rate planned.
    efficiency : float
        The largest ``r · ε_sample / ε_census`` over the rates (≤ 1: Lemma 1).
    noise_ratio : float
        The smallest ``w² Var Z_s / Var Z_c`` over the rates (≥ 1: Lemma 2).
    error_ratio : float
        The design's best objective over the census's (≥ 1 when the census wins).
    small_eps_ratio : float
        The same ratio in the plan at a small ε (NaN when none was given).
    best_rate : float
        The rate of the design's best row.
    """

    design: str
    label: str
    mechanism: str
    census_wins: bool
    efficiency: float
    noise_ratio: float
    error_ratio: float
    small_eps_ratio: float
    best_rate: float


@dataclass(frozen=True)
class LinearVerdict:
    """The census against every sample of a linear plan (:func:`linear_verdict`).

    Attributes
    ----------
    census_wins : bool
        The census is at least as accurate as every design at every rate, mechanism by
        mechanism.
    eps_target, small_eps : float
        The plan's ε_target, and that of the small-ε plan (NaN when none was given).
    objective : str
        The error compared (``"error_95"`` or ``"rmse"``).
    designs : tuple of DesignVerdict
        One per sampled design and mechanism, in the table's order.
    """

    census_wins: bool
    eps_target: float
    small_eps: float
    objective: str
    designs: tuple[DesignVerdict, ...]

    @property
    def exceptions(self) -> tuple[DesignVerdict, ...]:
        """The designs that beat the census somewhere (none, by the module's theorem)."""
        return tuple(d for d in self.designs if not d.census_wins)

    @property
    def closest(self) -> DesignVerdict | None:
        """The design that comes closest to the census (smallest ``error_ratio``)."""
        return min(self.designs, key=lambda d: d.error_ratio, default=None)


def _census(table: pd.DataFrame) -> pd.DataFrame:
    return table[table["design"].map(lambda d: DESIGNS[d].reference)]


def _best_ratios(result: PlanResult) -> dict[tuple[str, str], float]:
    """The best objective of each (design, mechanism) over the census's, same mechanism."""
    table, objective = result.table, result.objective
    census = _census(table).set_index("mechanism")[objective]
    out = {}
    for (design, mechanism), grp in table.groupby(["design", "mechanism"], sort=False):
        if DESIGNS[design].reference or mechanism not in census.index:
            continue
        ref = float(census[mechanism])
        best = float(grp[objective].min())
        out[(design, mechanism)] = best / ref if ref > 0 else math.inf
    return out


def linear_verdict(result: PlanResult, small: PlanResult | None = None) -> LinearVerdict:
    """The facts of the module's theorem for the plan ``result`` (of :func:`plan_linear`).

    Parameters
    ----------
    result : PlanResult
        A linear plan (its table has ``weight`` and the census rows).
    small : PlanResult, optional
        The same plan at a small ε_target (e.g. :data:`SMALL_EPS`), for "how close at
        small ε".

    Returns
    -------
    LinearVerdict
    """
    table = result.table
    if "weight" not in table:
        raise ValueError("linear_verdict reads a plan of a count, total or proportion")
    census = _census(table).set_index("mechanism")
    ratios = _best_ratios(result)
    small_ratios = _best_ratios(small) if small is not None else {}
    out = []
    for (design, mechanism), grp in table.groupby(["design", "mechanism"], sort=False):
        if DESIGNS[design].reference or mechanism not in census.index:
            continue
        c = census.loc[mechanism]
        eff = grp["eps_sample"] / grp["weight"] / float(c["eps_sample"])
        noise = grp["noise_part"] / float(c["noise_part"])
        wins = bool(
            (grp["rmse"] >= float(c["rmse"]) * (1.0 - _TOL)).all()
            and (grp["error_95"] >= float(c["error_95"]) * (1.0 - _TOL)).all()
        )
        best = grp.loc[grp[result.objective].idxmin()]
        out.append(
            DesignVerdict(
                design=design,
                label=str(best["design_label"]),
                mechanism=mechanism,
                census_wins=wins,
                efficiency=float(eff.max()),
                noise_ratio=float(noise.min()),
                error_ratio=ratios[(design, mechanism)],
                small_eps_ratio=small_ratios.get((design, mechanism), math.nan),
                best_rate=float(best["rate"]),
            )
        )
    return LinearVerdict(
        census_wins=all(d.census_wins for d in out),
        eps_target=result.eps_target,
        small_eps=small.eps_target if small is not None else math.nan,
        objective=result.objective,
        designs=tuple(out),
    )
