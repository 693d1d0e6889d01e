"""Cached computations behind the Statistical privacy page, keyed by scalars and tuples.

Every function returns a tidy data frame of numbers from :mod:`core.statistical`; the figure
builders in :mod:`ui.statistical.figures` only draw them.  Grids are fixed here so that a
cache entry is fully described by the page's controls.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from core import amplification as amp
from core import statistical as sp

#: Points of a privacy curve δ(ε).
CURVE_POINTS = 200
#: Property probabilities of Figures 1, 3 and 5 (the paper's axis: 0 to 1/2), denser near 0
#: where δ climbs steeply to the worst case.
PI_GRID: tuple[float, ...] = tuple(
    sorted(
        {0.0}
        | {float(f"{p:.4g}") for p in np.geomspace(1e-4, 0.05, 28)}
        | {float(f"{p:.4g}") for p in np.linspace(0.05, 0.5, 46)}
    )
)
#: Noise multipliers of Figures 2 and 4 (ν from 1 to 10).
NU_GRID: tuple[float, ...] = tuple(float(v) for v in np.linspace(1.0, 10.0, 37))
#: Sampling rates of Figures 7 and 8.
LAMBDA_GRID: tuple[float, ...] = tuple(float(x) for x in np.geomspace(0.01, 0.99, 33))

#: Display names of the mechanisms, in the order of the chart colours.
MECHANISMS: dict[sp.Mechanism, str] = {
    "none": "no mechanism",
    "subsampling": "subsampling",
    "gaussian": "Gaussian noise",
    "laplace": "Laplace noise",
}


def eps_grid(eps_max: float, points: int = CURVE_POINTS) -> np.ndarray:
    """Log-spaced ε from eps_max/10⁴ to eps_max (both included)."""
    return np.geomspace(eps_max * 1e-4, eps_max, points)


def _safe(value: float) -> float:
    """NaN for an equal-utility noise too small to be a mechanism (λ ≈ 1 or π ≈ 0)."""
    return value if value >= sp.MIN_NOISE_MULTIPLIER else math.nan


@st.cache_data(max_entries=48, show_spinner="Computing privacy curves…")
def privacy_curves(n: int, pi: float, m: int, nu: float, eps_max: float) -> pd.DataFrame:
    """δ(ε) of every mechanism and the worst-case curves of the two noises (tidy)."""
    eps = eps_grid(eps_max)
    rows = []
    for key, name in MECHANISMS.items():
        plus, minus = sp.delta_directions(key, n, pi, eps, m=m, noise_multiplier=nu)
        rows.append(
            pd.DataFrame(
                {
                    "mechanism": name,
                    "setting": "statistical",
                    "eps": eps,
                    "delta": np.maximum(plus, minus),
                    "delta_positive": plus,
                    "delta_negative": minus,
                }
            )
        )
    worst_cases = {
        "no mechanism": np.ones_like(eps),
        "subsampling": sp.delta_dp_subsampling(n, m, eps),
        "Gaussian noise": sp.delta_dp_gaussian(eps, nu),
        "Laplace noise": sp.delta_dp_laplace(eps, nu),
    }
    for name, d in worst_cases.items():
        rows.append(
            pd.DataFrame(
                {
                    "mechanism": name,
                    "setting": "worst case (DP)",
                    "eps": eps,
                    "delta": d,
                    "delta_positive": d,
                    "delta_negative": d,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


@st.cache_data(max_entries=48, show_spinner=False)
def point_summary(n: int, pi: float, m: int, nu: float, eps: float) -> pd.DataFrame:
    """One row per mechanism at a single ε: both directions, δ and the worst case."""
    rows = []
    for key, name in MECHANISMS.items():
        plus, minus = sp.delta_directions(key, n, pi, eps, m=m, noise_multiplier=nu)
        worst = {
            "none": 1.0,
            "subsampling": sp.delta_dp_subsampling(n, m, eps),
            "gaussian": sp.delta_dp_gaussian(eps, nu),
            "laplace": sp.delta_dp_laplace(eps, nu),
        }[key]
        rows.append(
            {
                "mechanism": name,
                "δ(+,−): positive record": float(plus),
                "δ(−,+): negative record": float(minus),
                "δ = max": max(float(plus), float(minus)),
                "worst-case δ (DP)": float(worst),
            }
        )
    return pd.DataFrame(rows)


@st.cache_data(max_entries=24, show_spinner="Computing the answer distributions…")
def distributions(n: int, pi: float, m: int, nu: float, mechanism: str) -> pd.DataFrame:
    """The two answer distributions the adversary compares (PMF or density)."""
    if mechanism in ("none", "subsampling"):
        pmfs = sp.pmfs_no_mechanism(n, pi) if mechanism == "none" else sp.pmfs_subsampling(n, m, pi)
        plus, minus = pmfs.plus, pmfs.minus
        keep = np.maximum(plus, minus) >= 1e-6 * max(plus.max(), minus.max())
        return pd.DataFrame(
            {
                "answer": pmfs.values[keep],
                "critical record positive": plus[keep],
                "critical record negative": minus[keep],
                "kind": "probability",
            }
        )
    centre = (n - 1) * pi / n
    spread = math.sqrt(pi * (1 - pi) * (n - 1) + nu * nu * (1 if mechanism == "gaussian" else 2))
    half = (5.0 * spread + 2.0) / n
    x = np.linspace(centre - half, centre + 1.0 / n + half, 401)
    f_plus, f_minus = sp.noisy_query_densities(n, pi, x, nu, mechanism)  # type: ignore[arg-type]
    return pd.DataFrame(
        {
            "answer": x,
            "critical record positive": f_plus,
            "critical record negative": f_minus,
            "kind": "density",
        }
    )


@st.cache_data(max_entries=24, show_spinner="Sweeping the property probability π…")
def delta_vs_pi(n: int, eps: float, noise: str, nus: tuple[float, ...]) -> pd.DataFrame:
    """Figures 1 and 3: statistical δ against π for each ν, with the worst-case δ."""
    func = sp.delta_gaussian if noise == "gaussian" else sp.delta_laplace
    dp = sp.delta_dp_gaussian if noise == "gaussian" else sp.delta_dp_laplace
    rows = []
    for nu in nus:
        worst = float(dp(eps, nu))
        for pi in PI_GRID:
            rows.append(
                {"nu": nu, "pi": pi, "delta": float(func(n, pi, eps, nu)), "delta_dp": worst}
            )
    return pd.DataFrame(rows)


@st.cache_data(max_entries=24, show_spinner="Sweeping the noise level ν…")
def ratio_vs_nu(n: int, eps: float, noise: str, pis: tuple[float, ...]) -> pd.DataFrame:
    """Figures 2, 4 and 6: worst-case δ ÷ statistical δ against ν, one curve per π."""
    func = sp.delta_gaussian if noise == "gaussian" else sp.delta_laplace
    dp = sp.delta_dp_gaussian if noise == "gaussian" else sp.delta_dp_laplace
    rows = []
    for pi in pis:
        for nu in NU_GRID:
            d = float(func(n, pi, eps, nu))
            w = float(dp(eps, nu))
            rows.append(
                {
                    "pi": pi,
                    "nu": nu,
                    "delta": d,
                    "delta_dp": w,
                    "ratio": w / d if d > 0 else math.inf,
                }
            )
    return pd.DataFrame(rows)


def _equal_utility_row(n: int, m: int, pi: float, eps: float) -> dict[str, float]:
    nu_g = _safe(sp.equal_utility_noise_multiplier(n, m, pi, "gaussian"))
    nu_l = _safe(sp.equal_utility_noise_multiplier(n, m, pi, "laplace"))
    return {
        "m": m,
        "utility_loss": sp.utility_loss_subsampling(n, m, pi),
        "nu_gaussian": nu_g,
        "nu_laplace": nu_l,
        "subsampling": float(sp.delta_subsampling(n, m, pi, eps)),
        "gaussian": float(sp.delta_gaussian(n, pi, eps, nu_g)) if nu_g == nu_g else math.nan,
        "laplace": float(sp.delta_laplace(n, pi, eps, nu_l)) if nu_l == nu_l else math.nan,
    }


@st.cache_data(max_entries=48, show_spinner=False)
def equal_utility_point(n: int, m: int, pi: float, eps: float) -> dict[str, float]:
    """Calibrated noise levels, utility loss and δ of the three mechanisms at one (π, λ)."""
    return _equal_utility_row(n, m, pi, eps)


@st.cache_data(max_entries=24, show_spinner="Calibrating the noise to the sample…")
def equal_utility_vs_pi(n: int, m: int, eps: float) -> pd.DataFrame:
    """Figure 5: δ of the three mechanisms at the same utility loss, against π."""
    rows = []
    for pi in PI_GRID[1:]:  # π = 0: nothing to protect and nothing to calibrate
        rows.append({"pi": pi, **_equal_utility_row(n, m, pi, eps)})
    return pd.DataFrame(rows)


@st.cache_data(max_entries=24, show_spinner="Calibrating the noise to each sampling rate…")
def equal_utility_vs_lambda(n: int, eps: float, pis: tuple[float, ...]) -> pd.DataFrame:
    """Figure 8: δ of the three mechanisms at the same utility loss, against λ."""
    rows = []
    for pi in pis:
        for lam in LAMBDA_GRID:
            m = sp.sample_size(n, lam)
            if m >= n:
                continue
            rows.append({"pi": pi, "lambda": m / n, **_equal_utility_row(n, m, pi, eps)})
    return pd.DataFrame(rows).drop_duplicates(subset=["pi", "lambda"], ignore_index=True)


@st.cache_data(max_entries=24, show_spinner="Checking the subsampling conjecture…")
def conjecture_vs_lambda(n: int, pi: float, eps: float) -> pd.DataFrame:
    """Figure 7 / §7: δ of subsampling at ε_target against λ·δ_pure(n sampled, ε_sample).

    ε_target = log(1 + λ(e^ε_sample − 1)) with ε_sample = ``eps`` (DP amplification, Hu et al.
    Theorem 1); the conjecture of Breutigam & Reischuk §7 is that the statistical δ amplifies
    in the same way.
    """
    rows = []
    for lam in LAMBDA_GRID:
        m = sp.sample_size(n, lam)
        rate = m / n
        eps_target = float(amp.eps_target(eps, rate))
        rows.append(
            {
                "lambda": rate,
                "m": m,
                "eps_target": eps_target,
                "subsampling_at_eps_target": float(sp.delta_subsampling(n, m, pi, eps_target)),
                "lambda_times_pure_m": rate * float(sp.delta_no_mechanism(m, pi, eps)),
            }
        )
    return pd.DataFrame(rows).drop_duplicates(subset=["lambda"], ignore_index=True)
