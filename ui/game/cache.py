"""Cached computations behind the Membership game page, keyed by scalars only.

Every function rebuilds the :class:`core.games.GameSetup` from its scalar arguments (the
cache key), so a cache entry is fully described by the page's controls and the seed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from core import games

#: Rounds the automatic adversary plays.
ADVERSARY_ROUNDS = 10_000
#: Points of an ROC curve sent to the browser (the curves are thinned to this many).
MAX_CURVE_POINTS = 400

#: Field order of the scalar key: the GameSetup fields.
SetupKey = tuple[str, int, int, int, float, str, float, str, int]


def setup_key(setup: games.GameSetup) -> SetupKey:
    """The setup as a tuple of scalars (the cache key)."""
    return (
        setup.design,
        int(setup.clusters),
        int(setup.cluster_size),
        int(setup.drawn),
        float(setup.eps_target),
        setup.neighbour,
        float(setup.share),
        setup.statistic,
        int(setup.population_seed),
    )


def _setup(key: SetupKey) -> games.GameSetup:
    return games.GameSetup(*key)


@st.cache_data(max_entries=64, show_spinner=False)
def game_rounds(key: SetupKey, seed: int, game: int, rounds: int) -> tuple[list[bool], list[float]]:
    """The secrets and releases of game number ``game``: ``default_rng([seed, game])``."""
    secrets, releases = games.play_rounds(_setup(key), np.random.default_rng([seed, game]), rounds)
    return [bool(s) for s in secrets], [float(r) for r in releases]


def _thin(fpr: np.ndarray, tpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """At most about :data:`MAX_CURVE_POINTS` points of a curve: evenly spread indices plus
    geometrically spread ones (the small-FPR end, shown on a log axis), the ends kept."""
    if len(fpr) <= MAX_CURVE_POINTS:
        return fpr, tpr
    last = len(fpr) - 1
    half = MAX_CURVE_POINTS // 2
    idx = np.unique(
        np.r_[0, np.linspace(0, last, half).astype(int), np.geomspace(1, last, half).astype(int)]
    )
    return fpr[idx], tpr[idx]


def _from_origin(fpr: np.ndarray, tpr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points along the exact curve's first segment, a straight line from the origin (the
    releases where the likelihood ratio is at its largest, constant value), so that a log FPR
    axis shows that line instead of a jump from FPR = 0."""
    first = int(np.argmax(fpr > 0))
    if fpr[first] <= 0 or first != 1:
        return fpr, tpr
    steps = np.geomspace(1e-6, 1.0, 40)[:-1]
    return np.r_[0.0, fpr[1] * steps, fpr[1:]], np.r_[0.0, tpr[1] * steps, tpr[1:]]


@st.cache_data(max_entries=32, show_spinner="The automatic adversary plays 10,000 rounds…")
def adversary_curves(key: SetupKey, seed: int) -> pd.DataFrame:
    """Empirical ROC of the likelihood-ratio test over 10,000 rounds, and its exact ROC.

    Columns ``curve`` ("empirical" or "exact"), ``fpr``, ``tpr``. The rounds use the stream
    ``default_rng([seed, 0, 1])``, separate from the student's games.
    """
    setup = _setup(key)
    rng = np.random.default_rng([seed, 0, 1])
    secrets, releases = games.play_rounds(setup, rng, ADVERSARY_ROUNDS)
    fpr, tpr = _thin(*games.empirical_roc(games.likelihood_ratio_test(setup, releases), secrets))
    exact_fpr, exact_tpr = _from_origin(*_thin(*games.exact_roc(setup)))
    return pd.concat(
        [
            pd.DataFrame({"curve": "empirical", "fpr": fpr, "tpr": tpr}),
            pd.DataFrame({"curve": "exact", "fpr": exact_fpr, "tpr": exact_tpr}),
        ],
        ignore_index=True,
    )


@st.cache_data(max_entries=64, show_spinner=False)
def losses(key: SetupKey) -> dict[str, float]:
    """``eps_sample``, the exact privacy loss and (cluster design) the Theorem 5.3 loss."""
    setup = _setup(key)
    out = {"eps_sample": setup.eps_sample, "exact": games.privacy_loss(setup)}
    if setup.design == "cluster":
        out["cluster"] = games.cluster_bound_eps(setup)
    return out


@st.cache_data(max_entries=64, show_spinner=False)
def expected_counts(key: SetupKey) -> tuple[float, float]:
    """:func:`core.games.expected_counts` of the setup, kept across the rounds' reruns."""
    return games.expected_counts(_setup(key))
