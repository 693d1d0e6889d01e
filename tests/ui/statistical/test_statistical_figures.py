"""ui.statistical.figures: the plotted δ values and the readings' numbers equal core's.

Break caught (tests/break_checks.py ``statistical-figure-plots-half-delta``): the privacy
curve figure plots δ/2 instead of δ.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from core import statistical as sp
from ui.format import fmt
from ui.statistical import cache
from ui.statistical import figures as figs

N, PI, M, NU, EPS = 200, 0.3, 50, 2.0, 0.5


def _y(trace) -> np.ndarray:
    return np.array([math.nan if v is None else v for v in trace.y], dtype=float)


def _gaps(values, log: bool = True) -> np.ndarray:
    """What a log axis shows: zeros become gaps (NaN)."""
    values = np.asarray(values, dtype=float)
    return np.where(values > 0, values, np.nan) if log else values


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0, "0"), (math.inf, "—"), (0.0206, "0.0206"), (3.14e-5, "3.14e-5"), (1e-3, "0.001")],
)
def test_fmt_delta(value, text):
    assert figs.fmt_delta(value) == text


@pytest.mark.parametrize("log_y", [False, True])
def test_privacy_curve_figure_plots_cores_delta_of_every_mechanism(log_y):
    curves = cache.privacy_curves(N, PI, M, NU, 3.0)
    fig, _ = figs.privacy_curve_figure(
        curves, nu=NU, m=M, n=N, log_x=True, log_y=log_y, eps_mark=EPS
    )
    eps = cache.eps_grid(3.0)
    by_name = {t.name: t for t in fig.data if t.name != figs.WORST_CASE_LEGEND}
    assert len(by_name) == 8
    gauss = by_name[f"Gaussian noise, ν = {NU:g}"]
    np.testing.assert_allclose(np.asarray(gauss.x), eps, rtol=1e-12)
    expected = sp.delta_gaussian(N, PI, eps, NU)
    np.testing.assert_allclose(
        _y(gauss), np.where(expected > 0, expected, np.nan) if log_y else expected, rtol=1e-10
    )
    sub = by_name[f"subsampling, n = {M:,} of N = {N:,}"]
    np.testing.assert_allclose(
        _y(sub), _gaps(sp.delta_subsampling(N, M, PI, eps), log_y), rtol=1e-10
    )
    worst = by_name[f"Laplace noise, ν = {NU:g} — worst case (DP)"]
    np.testing.assert_allclose(_y(worst), _gaps(sp.delta_dp_laplace(eps, NU), log_y), rtol=1e-10)
    assert worst.line.dash == "dot" and gauss.line.dash != "dot"
    layout = fig.layout
    assert layout.xaxis.title.text.startswith("ε") and layout.yaxis.title.text.startswith("δ(ε)")
    assert layout.xaxis.type == "log" and layout.yaxis.type == ("log" if log_y else "linear")
    assert layout.shapes[0].x0 == EPS and layout.shapes[0].label.text == f"ε = {EPS:g}"


@pytest.mark.parametrize("mechanism", ["none", "gaussian"])
def test_distributions_figure_draws_both_answers(mechanism):
    dist = cache.distributions(N, PI, M, NU, mechanism)
    fig, _ = figs.distributions_figure(dist, title="answers")
    plus, minus = fig.data
    np.testing.assert_array_equal(plus.x, dist["answer"])
    np.testing.assert_array_equal(plus.y, dist["critical record positive"])
    np.testing.assert_array_equal(minus.y, dist["critical record negative"])
    y_title = fig.layout.yaxis.title.text
    assert y_title == ("P[answer = y]" if mechanism == "none" else "density of the answer")
    if mechanism == "none":  # the exact count: binomial(N − 1, π) shifted by the record
        pmfs = sp.pmfs_no_mechanism(N, PI)
        assert max(plus.y) == pytest.approx(pmfs.plus.max())


def test_delta_vs_pi_figure_and_reading_equal_core():
    data = cache.delta_vs_pi(N, EPS, "gaussian", (1.0, 4.0))
    fig, _ = figs.delta_vs_pi_figure(data, noise="gaussian", n=N, eps=EPS)
    assert "Gaussian" in fig.layout.title.text and f"N = {N:,}" in fig.layout.title.text
    assert fig.layout.xaxis.title.text.startswith("π")
    line = next(t for t in fig.data if t.name == "ν = 4, statistical")
    pis = np.asarray(line.x)
    expected = [float(sp.delta_gaussian(N, p, EPS, 4.0)) for p in pis]
    np.testing.assert_allclose(line.y, expected, rtol=1e-10)
    worst = float(sp.delta_dp_gaussian(EPS, 4.0))
    flat = next(t for t in fig.data if t.name.startswith("ν = 4, worst case"))
    assert list(flat.y) == [pytest.approx(worst)] * 2 and fmt(worst, "delta") in flat.name
    text = figs.pi_reading(data, noise="gaussian", eps=EPS)
    half = float(sp.delta_gaussian(N, 0.5, EPS, 4.0))
    assert (
        f"ν = 4: worst case δ = {figs.fmt_delta(worst)}; statistical δ = "
        f"{figs.fmt_delta(half)} at π = 1/2 ({fmt(worst / half, 'ratio')}× smaller)"
    ) in text
    assert "Gaussian noise, ε = 0.5" in text


def test_ratio_vs_nu_figure_plots_worst_over_statistical():
    data = cache.ratio_vs_nu(N, EPS, "gaussian", (0.1,))
    fig, _ = figs.ratio_vs_nu_figure(data, noise="gaussian", n=N, eps=EPS, log_y=False)
    (trace,) = fig.data
    nus = np.asarray(trace.x)
    expected = [
        float(sp.delta_dp_gaussian(EPS, v)) / float(sp.delta_gaussian(N, 0.1, EPS, v)) for v in nus
    ]
    np.testing.assert_allclose(_y(trace), expected, rtol=1e-9)
    assert trace.name == "π = 0.1"
    assert fig.layout.yaxis.title.text == "δ_DP / δ_SP" and fig.layout.shapes[0].y0 == 1.0


def test_equal_utility_figures_table_and_reading_equal_core():
    data = cache.equal_utility_vs_pi(N, M, EPS)
    fig, _ = figs.equal_utility_pi_figure(data, n=N, m=M, eps=EPS)
    assert f"{fmt(M / N, 'rate')} sample" in fig.layout.title.text
    sub = next(t for t in fig.data if t.name == "subsampling")
    expected = [float(sp.delta_subsampling(N, M, p, EPS)) for p in sub.x]
    np.testing.assert_allclose(_y(sub), expected, rtol=1e-10)

    lam = cache.equal_utility_vs_lambda(N, EPS, (0.3,))
    fig, _ = figs.equal_utility_lambda_figure(lam, n=N, eps=EPS, log_y=True)
    gauss = next(t for t in fig.data if t.name == "Gaussian noise, π = 0.3")
    np.testing.assert_allclose(gauss.x, lam["lambda"])
    assert fig.layout.xaxis.title.text.startswith("λ = n/N") and fig.layout.xaxis.type == "log"

    row = pd.Series(cache.equal_utility_point(N, M, PI, EPS))
    table = figs.equal_utility_table(row, n=N, m=M, eps=EPS)
    delta_col = f"δ at ε = {EPS:g}"
    assert table[delta_col].tolist() == [row["subsampling"], row["gaussian"], row["laplace"]]
    nu_g = sp.equal_utility_noise_multiplier(N, M, PI, "gaussian")
    assert table["setting"].tolist()[1] == f"ν = {fmt(nu_g, 'plain')}"
    assert table["setting"].tolist()[0] == f"n = {M:,} of N = {N:,}"

    text = figs.equal_utility_reading(row, pi=PI, lam=M / N, eps=EPS)
    s, g = float(sp.delta_subsampling(N, M, PI, EPS)), float(sp.delta_gaussian(N, PI, EPS, nu_g))
    assert f"ν = {fmt(nu_g, 'plain')} (Gaussian)" in text
    assert f"Gaussian noise δ = {figs.fmt_delta(g)} ({100 * (g / s - 1):+.1f} %)" in text
    assert f"({fmt(sp.utility_loss_subsampling(N, M, PI), 'plain')})" in text


def test_equal_utility_reading_without_noise_to_match():
    row = pd.Series({"subsampling": 0.1, "gaussian": math.nan, "laplace": math.nan})
    assert "no noise level to match" in figs.equal_utility_reading(row, pi=0.3, lam=1, eps=1)


def test_conjecture_figure_plots_both_sides():
    data = cache.conjecture_vs_lambda(N, PI, EPS)
    fig, _ = figs.conjecture_figure(data, n=N, pi=PI, eps=EPS)
    left, right = fig.data
    rates = np.asarray(left.x)
    ms = data["m"].to_numpy()
    expected = [
        float(sp.delta_subsampling(N, m, PI, math.log1p(m / N * math.expm1(EPS)))) for m in ms
    ]
    np.testing.assert_allclose(_y(left), np.where(np.array(expected) > 0, expected, np.nan))
    pure = rates * np.array([float(sp.delta_no_mechanism(m, PI, EPS)) for m in ms])
    np.testing.assert_allclose(_y(right), np.where(pure > 0, pure, np.nan), rtol=1e-10)
    assert "ε_target" in left.name and "ε_sample" in fig.layout.title.text


def test_privacy_reading_numbers_equal_core():
    summary = cache.point_summary(N, PI, M, NU, EPS)
    text = figs.privacy_reading(summary, n=N, pi=PI, eps=EPS, nu=NU, m=M)
    d = float(sp.delta_gaussian(N, PI, EPS, NU))
    w = float(sp.delta_dp_gaussian(EPS, NU))
    assert (
        f"**Gaussian noise, ν = {NU:g}**: δ = {figs.fmt_delta(d)}, {fmt(w / d, 'ratio')} times "
        "below "
        f"the worst case (δ_DP = {figs.fmt_delta(w)})"
    ) in text
    assert f"About {fmt(N * PI, 'count')} records are expected on the rarer side" in text
    # Laplace noise with ν = 2 is (1/ν, 0)-DP: at ε = 1/2 both δ are exactly 0.
    assert f"**Laplace noise, ν = {NU:g}**: δ = 0, and the worst case is also 0" in text
    rare = figs.privacy_reading(summary, n=N, pi=0.01, eps=EPS, nu=NU, m=M)
    assert re.search(r"Only about 2 records are expected", rare)
