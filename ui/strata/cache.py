"""Cached computations behind the Stratified sampling page.

Every call is keyed by scalars and the population's own ``content_hash`` (Streamlit hashes
only a sample of a large array); the population itself is passed unhashed as ``_pop``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from core import amplification as amp
from core import strata
from core.populations import Population

#: Names of the three allocations, as shown in tables, legends and downloads.
NEYMAN = "Neyman"
PROP_DET = "Proportional, rounded"
PROP_RAND = "Proportional, randomised rounding"
SRS = "Simple random sample"
DESIGNS = (NEYMAN, PROP_DET, PROP_RAND)


@st.cache_data(max_entries=16, show_spinner=False)
def summary(content_hash: str, _pop: Population) -> strata.StratumSummary | None:
    """Per-stratum sizes and standard deviations, or None if the population has no strata."""
    if _pop.strata is None:
        return None
    return strata.stratum_summary(_pop.values, _pop.strata)


@st.cache_data(max_entries=32, show_spinner=False)
def allocation_table(content_hash: str, _pop: Population, m: int, seed: int) -> pd.DataFrame:
    """One row per stratum: N_i, σ_i and the three allocations with their sampling rates.

    The randomised rounding is one draw from ``seed`` (the page says so).
    """
    summ = summary(content_hash, _pop)
    assert summ is not None
    n = summ.sizes
    rate = m / summ.population_size
    neyman = strata.neyman_allocation(n, summ.sds, m)
    det = strata.proportional_allocation(n, rate, "deterministic")
    rnd = strata.proportional_allocation(n, rate, "randomized", rng=seed)
    return pd.DataFrame(
        {
            "stratum": [str(label) for label in summ.labels],
            "N_i": n,
            "mean": summ.means,
            "σ_i": summ.sds,
            "Neyman share x_i": strata.neyman_shares(n, summ.sds, m),
            f"{NEYMAN} n_i": neyman,
            f"{NEYMAN} rate": neyman / n,
            "r·N_i": rate * n,
            f"{PROP_DET} n_i": det,
            f"{PROP_DET} rate": det / n,
            f"{PROP_RAND} n_i": rnd,
            f"{PROP_RAND} rate": rnd / n,
        }
    )


@st.cache_data(max_entries=32, show_spinner=False)
def variance_table(content_hash: str, _pop: Population, m: int) -> pd.DataFrame:
    """Variance of the weighted mean for each design, and of a simple random sample."""
    summ = summary(content_hash, _pop)
    assert summ is not None
    n, s = summ.sizes, summ.sds
    big_n = summ.population_size
    rate = m / big_n
    neyman = strata.neyman_allocation(n, s, m)
    det = strata.proportional_allocation(n, rate, "deterministic")
    rows = [
        (NEYMAN, float(neyman.sum()), strata.stratified_mean_variance(n, s, neyman)),
        (PROP_DET, float(det.sum()), strata.stratified_mean_variance(n, s, det)),
        (PROP_RAND, m, strata.randomized_proportional_variance(n, s, rate)),
        (SRS, m, strata.srs_mean_variance(big_n, float(_pop.values.var(ddof=1)), m)),
    ]
    table = pd.DataFrame(rows, columns=["design", "sample size", "variance"])
    table["standard error"] = np.sqrt(table["variance"])
    base = table.loc[0, "variance"]
    with np.errstate(divide="ignore", invalid="ignore"):
        table["variance ÷ Neyman"] = table["variance"] / base if base > 0 else np.nan
    return table


@st.cache_data(max_entries=32, show_spinner="Building the neighbouring population…")
def neighbour(
    content_hash: str, _pop: Population, m: int, new_value: float, new_stratum: int
) -> strata.NeighbourComparison:
    """Appendix E.1: the smallest record raised to ``new_value`` (stratum -1: automatic)."""
    summ = summary(content_hash, _pop)
    assert summ is not None
    nb = strata.top_code_neighbour(
        _pop.values,
        summ,
        new_value=new_value,
        new_stratum=None if new_stratum < 0 else new_stratum,
    )
    return strata.compare_neighbours(summ, nb, m)


@st.cache_data(max_entries=16, show_spinner="Drawing stratified samples…")
def simulation(content_hash: str, _pop: Population, m: int, reps: int, seed: int) -> pd.DataFrame:
    """Weighted means of ``reps`` stratified samples per design (one row per sample)."""
    summ = summary(content_hash, _pop)
    assert summ is not None
    n = summ.sizes
    rate = m / summ.population_size
    rng = np.random.default_rng(seed)
    designs: dict[str, dict[str, Any]] = {
        NEYMAN: {"allocation": strata.neyman_allocation(n, summ.sds, m)},
        PROP_DET: {"allocation": strata.proportional_allocation(n, rate, "deterministic")},
        PROP_RAND: {"randomized_rate": rate},
    }
    frames = [
        pd.DataFrame(
            {
                "design": name,
                "repetition": np.arange(reps),
                "weighted mean": strata.simulate_weighted_means(
                    _pop.values, summ, reps, rng, **kwargs
                ),
            }
        )
        for name, kwargs in designs.items()
    ]
    return pd.concat(frames, ignore_index=True)


@st.cache_data(max_entries=32, show_spinner=False)
def random_size_curve(n: int, eps: float, mean_fraction: float, points: int = 60) -> pd.DataFrame:
    """Theorem 3.1 bounds for a truncated Gaussian size against its σ (Figure 2)."""
    sds = np.unique(np.round(np.geomspace(1.0, max(2.0, n / 2), points), 6))
    rows = []
    for sd in sds:
        b = strata.random_size_eps_bounds(
            eps, n, strata.truncated_gaussian_pmf(n, mean_fraction * n, float(sd))
        )
        rows.append((float(sd), b.lower, b.upper, b.tilted_mean))
    table = pd.DataFrame(
        rows, columns=["σ of the size", "lower bound", "upper bound", "tilted mean"]
    )
    table["fixed size (Thm 2.2)"] = (
        float(amp.eps_target(eps, mean_fraction)) if mean_fraction > 0 else 0.0
    )
    table["ε"] = eps
    return table
