"""Cached computations behind the gains page, keyed by scalars and the population's hash.

Streamlit hashes only a sample of a large array, so no cached call here takes the values as
a key: each takes ``content_hash`` (our own SHA-256 of the population) and the population as
an unhashed ``_pop`` argument.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import pandas as pd
import streamlit as st

from core import gains, illustrations
from core.populations import Population

#: Results kept by :func:`median_experiment` (shared by all sessions, oldest evicted first).
EXPERIMENT_CACHE_ENTRIES = 12


@st.cache_data(max_entries=32, show_spinner=False)
def mean_table(
    content_hash: str, _pop: Population, eps_targets: tuple[float, ...], rates: tuple[float, ...]
) -> pd.DataFrame:
    """V_n and V_N for the active population (eqs. 6–7)."""
    return gains.mean_gain_table(_pop.values, _pop.lower, _pop.upper, eps_targets, rates)


@st.cache_data(max_entries=32, show_spinner=False)
def population_variance(content_hash: str, _pop: Population) -> float:
    """S_N², the population variance with divisor N − 1 (Hu et al. eq. 7), computed once."""
    return float(_pop.values.var(ddof=1))


@st.cache_data(max_entries=32, show_spinner="Simulating private sample means…")
def mean_simulation_check(
    content_hash: str,
    _pop: Population,
    eps_target: float,
    sizes: tuple[int, ...],
    reps: int,
    seed: int,
) -> pd.DataFrame:
    """Eq. (7) against a simulation of the private sample mean at a few sample sizes."""
    values = _pop.values
    s2 = float(values.var(ddof=1))
    rows = []
    for n in sizes:
        formula = float(
            gains.mean_variance_sample(eps_target, n, values.size, s2, _pop.lower, _pop.upper)
        )
        simulated = gains.simulate_mean_release(
            values, _pop.lower, _pop.upper, eps_target, n, reps, seed
        )
        rows.append(
            {
                "n": n,
                "n/N": n / values.size,
                "V_n, eq. (7)": formula,
                "V_n, simulated": float(simulated),
                "simulated ÷ formula": float(simulated) / formula,
            }
        )
    return pd.DataFrame(rows)


@st.cache_data(max_entries=16, show_spinner="Privatising means and medians…")
def release_illustrations(
    content_hash: str,
    _pop: Population,
    eps_values: tuple[float, ...],
    reps: int,
    delta: float,
    seed: int,
) -> dict[str, pd.DataFrame]:
    """Private means and medians (global and smooth sensitivity) for Figures 1–2."""
    v, lo, hi = _pop.values, _pop.lower, _pop.upper
    return {
        "means": illustrations.privatized_means(v, lo, hi, eps_values, reps, seed),
        "medians_global": illustrations.privatized_medians(
            v, lo, hi, eps_values, reps, delta, seed, sensitivity="global"
        ),
        "medians_smooth": illustrations.privatized_medians(
            v, lo, hi, eps_values, reps, delta, seed, sensitivity="smooth"
        ),
    }


@st.cache_data(max_entries=16, show_spinner="Drawing sample medians…")
def sample_medians(
    content_hash: str, _pop: Population, rates: tuple[float, ...], reps: int, seed: int
) -> pd.DataFrame:
    """Unprivatised sample medians per rate (Figure 11)."""
    return illustrations.sample_medians(_pop.values, rates, reps, seed)


class _LruCache:
    """A small thread-safe least-recently-used cache shared by all sessions."""

    def __init__(self, max_entries: int) -> None:
        self._max = max_entries
        self._items: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> object | None:
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: Hashable, value: object) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._max:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_EXPERIMENTS = _LruCache(EXPERIMENT_CACHE_ENTRIES)


def median_experiment(
    pop: Population,
    *,
    eps_targets: tuple[float, ...],
    rates: tuple[float, ...],
    reps: int,
    delta_target: float,
    seed: int,
    amplify_delta: bool,
    estimator: str | None,
    progress: Callable[[float, str], None] | None = None,
    mechanism: str = "smooth_laplace",
    quantile: float = 0.5,
) -> gains.MedianExperiment:
    """The quantile experiment of §4.3, computed once per parameter set and population.

    A plain LRU cache (not ``st.cache_data``) is used so that a first run can report
    progress through ``progress`` while a repeated run returns at once. ``estimator=None``
    takes the exact noise variance where the mechanism states one, drawn releases otherwise.
    """
    key = (
        "experiment",
        pop.content_hash,
        eps_targets,
        rates,
        reps,
        delta_target,
        seed,
        amplify_delta,
        estimator,
        mechanism,
        quantile,
    )
    cached = _EXPERIMENTS.get(key)
    if cached is not None:
        return cached  # type: ignore[return-value]
    result = gains.median_gain_experiment(
        pop.values,
        lower=pop.lower,
        upper=pop.upper,
        eps_targets=eps_targets,
        rates=rates,
        reps=reps,
        delta_target=delta_target,
        seed=seed,
        amplify_delta=amplify_delta,
        estimator=estimator,  # type: ignore[arg-type]
        progress=progress,
        mechanism=mechanism,
        quantile=quantile,
    )
    _EXPERIMENTS.put(key, result)
    return result


def mechanism_comparison(
    pop: Population,
    *,
    eps_target: float,
    rates: tuple[float, ...],
    reps: int,
    delta_target: float,
    seed: int,
    quantile: float,
    measure: str,
    progress: Callable[[float, str], None] | None = None,
    mechanisms: tuple[str, ...] | None = None,
) -> gains.MechanismComparison:
    """The quantile mechanisms on the same samples at one ε_target (same LRU cache).

    ``mechanisms=None``: every one of ``core.gains.QUANTILE_MECHANISMS`` whose measure exists.
    """
    key = (
        "comparison",
        mechanisms,
        pop.content_hash,
        eps_target,
        rates,
        reps,
        delta_target,
        seed,
        quantile,
        measure,
    )
    cached = _EXPERIMENTS.get(key)
    if cached is not None:
        return cached  # type: ignore[return-value]
    result = gains.mechanism_comparison(
        pop.values,
        lower=pop.lower,
        upper=pop.upper,
        eps_target=eps_target,
        rates=rates,
        reps=reps,
        delta_target=delta_target,
        seed=seed,
        quantile=quantile,
        measure=measure,
        progress=progress,
        mechanisms=mechanisms,
    )
    _EXPERIMENTS.put(key, result)
    return result
