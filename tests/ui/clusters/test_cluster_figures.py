"""ui.clusters.figures: plotted ε_target bounds, summary numbers and the reading equal
core.clusters.

Break caught (tests/break_checks.py ``cluster-figure-upper-is-lower``): the ε-vs-size figure
draws Theorem 5.1's lower bound where Theorem 5.2's upper bound belongs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import clusters as cl
from ui.clusters import figures as figs
from ui.clusters import text as cl_text
from ui.format import fmt

EPS, K, L = 1.0, 100, 10


def test_whole_grid_population_sampled_and_other_sizes():
    grid = figs.whole_grid(1, 1000, points=50)
    assert grid[0] == 1 and grid[-1] == 1000 and np.all(np.diff(grid) > 0)
    assert np.all(grid == np.round(grid))
    assert list(figs.whole_grid(5, 5)) == [5.0]
    assert figs.population_sampled(100, 10, 37) == 4  # the same 10 % of 37 clusters
    assert figs.population_sampled(100, 1, 20) == 1  # at least one
    n_min, n_max = figs.other_sizes(np.array([10, 1]), 2.0)
    assert list(n_min) == [5, 1] and list(n_max) == [20, 2]


def test_eps_vs_size_figure_plots_theorems_5_1_and_5_2():
    fig, data = figs.eps_vs_size_figure(EPS, K, L, 2.0, 50)
    band, lower_trace, upper_trace, srs_line, none_line = fig.data[:5]
    sizes = np.asarray(lower_trace.x)
    n_min, n_max = figs.other_sizes(sizes, 2.0)
    lower, upper = cl.cluster_eps_bounds(EPS, K, L, sizes, n_min, n_max)
    np.testing.assert_allclose(lower_trace.y, lower, rtol=1e-12)
    np.testing.assert_allclose(upper_trace.y, upper, rtol=1e-12)
    # The shaded band between the bounds (ui.theme.band_trace): upper edge out, lower back.
    assert band.fill == "toself" and band.showlegend is False
    np.testing.assert_allclose(band.y, np.concatenate([upper, lower[::-1]]), rtol=1e-12)
    assert lower_trace.name == figs.LOWER and upper_trace.name == figs.UPPER
    srs = float(cl.srs_eps(EPS, K, L))
    assert srs == pytest.approx(math.log1p(L / K * math.expm1(EPS)))  # eq. 3
    assert list(srs_line.y) == [srs, srs] and list(none_line.y) == [EPS, EPS]
    np.testing.assert_allclose(data["eps_upper_thm52"], upper)
    assert "ε_target" in fig.layout.yaxis.title.text and "M" in fig.layout.xaxis.title.text


def test_summary_and_reading_numbers_equal_core():
    numbers = figs.summary(EPS, K, L, 50, 1.0)
    lower, upper = cl.cluster_eps_bounds(EPS, K, L, 50, 50.0, 50.0)
    srs = float(cl.srs_eps(EPS, K, L))
    assert numbers["lower"] == pytest.approx(float(lower))
    assert numbers["upper"] == pytest.approx(float(upper))
    assert numbers["srs"] == pytest.approx(srs)
    assert numbers["kept_high"] == pytest.approx((EPS - float(lower)) / (EPS - srs))
    text = cl_text.reading(numbers, K, L)
    assert f"**{L:,} of {K:,} clusters** (10 %)" in text
    assert f"**ε_target = {fmt(srs, 'guarantee')}**" in text  # the Poisson comparison
    assert (
        cl_text.eps_range(float(lower), float(upper)) in text
        or fmt(float(upper), "guarantee") in text
    )
    census = cl_text.reading(figs.summary(EPS, K, K, 50, 1.0), K, K)
    assert census.startswith(f"All {K:,} clusters are drawn")


def test_eps_range_exp_text_counting_table_and_bounds_table():
    assert cl_text.eps_range(0.5, 0.50001) == "ε_target ≈ 0.5"
    assert cl_text.eps_range(0.2, 0.7) == "ε_target between 0.2 and 0.7"
    assert cl_text.exp_text(1.0) == fmt(math.e, "plain")
    assert cl_text.exp_text(1e4) == f"10^{1e4 / math.log(10):,.0f}"
    table = figs.counting_test_table(0.5, 10)
    assert table["Pr(count + noise > M)"].tolist() == [0.5, pytest.approx(0.5 * math.exp(-5))]
    frame = figs.bounds_table([("SRS", 0.1, 0.2)])
    assert frame.iloc[0].tolist() == ["SRS", 0.1, 0.2]
