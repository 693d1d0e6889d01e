"""ui.gains.figures: plotted r, q, V_n, V_N and log(MSE) equal core.amplification / core.gains.

Break caught (tests/break_checks.py ``gains-q-curve-rate-doubled``): the q curves are drawn
against 2·rate instead of the rate.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from core import amplification as amp
from core import gains
from core.populations import make_builtin
from ui.gains import figures as figs

RATES = np.geomspace(0.001, 1.0, 25)


def test_sample_colours_run_light_to_dark():
    assert figs.sample_colours(0) == []
    one = figs.sample_colours(1)
    assert len(one) == 1 and one[0].startswith("#")
    colours = figs.sample_colours(4)
    brightness = [sum(int(c[k : k + 2], 16) for k in (1, 3, 5)) for c in colours]
    assert len(set(colours)) == 4 and brightness == sorted(brightness, reverse=True)


def test_r_curves_plot_cores_noise_variance_ratio():
    fig, frame = figs.r_curves_figure([0.5, 2.0], RATES)
    for trace, e in zip(fig.data, [0.5, 2.0], strict=True):
        assert trace.name == f"ε_target = {e:g}"
        np.testing.assert_array_equal(trace.x, RATES)
        np.testing.assert_allclose(trace.y, amp.noise_variance_ratio(e, RATES), rtol=1e-12)
        np.testing.assert_allclose(trace.customdata, amp.noise_variance_gap(e, RATES))
    # r = V_noise(population) / V_noise(sample) = (n ε_sample / (N ε_target))² (Hu et al. eq. 8)
    e, rate = 0.5, float(RATES[16])
    eps_s = float(amp.eps_sample(e, rate))
    r = frame[(frame["eps_target"] == e) & (frame["rate"] == rate)]["r"]
    assert float(r.iloc[0]) == pytest.approx((rate * eps_s / e) ** 2, rel=1e-9)
    assert fig.layout.yaxis.title.text == "r(ε, n/N)" and fig.layout.xaxis.type == "log"


def test_r_heatmap_and_frontier_equal_core():
    eps_grid = np.geomspace(0.01, 10, 7)
    fig, data = figs.r_heatmap_figure(eps_grid, RATES, 1e-3)
    heat, line = fig.data
    np.testing.assert_allclose(heat.z[3], amp.noise_variance_ratio(eps_grid[3], RATES))
    inner = RATES[RATES < 1]
    np.testing.assert_allclose(line.y, amp.eps_for_noise_gap(inner, 1e-3))
    np.testing.assert_allclose(data["eps_frontier"], amp.eps_for_noise_gap(inner, 1e-3))
    assert fig.layout.yaxis.title.text == "ε_target" and "τ" in line.name


def test_q_curves_and_marks_equal_core():
    fig, frame = figs.q_curves_figure([0.1, 1.0], RATES, 0.6)
    curves, marks = fig.data[:2], fig.data[2]
    for trace, e in zip(curves, [0.1, 1.0], strict=True):
        np.testing.assert_array_equal(trace.x, RATES)
        np.testing.assert_allclose(trace.y, amp.sampling_variance_bound(e, RATES), rtol=1e-12)
        # q = 1 − (ε_target / ε_sample)² (Hu et al. §4.1)
        eps_s = amp.eps_sample(e, RATES[:-1])
        np.testing.assert_allclose(trace.y[:-1], 1 - (e / eps_s) ** 2, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(marks.x, [amp.rate_for_q(0.1, 0.6), amp.rate_for_q(1.0, 0.6)])
    assert list(marks.y) == [0.6, 0.6]
    assert fig.layout.yaxis.title.text == "q = 1 − ε² / ε_sample²"
    assert len(frame) == 2 * RATES.size


def test_q_heatmap_equals_core():
    eps_grid = np.geomspace(0.01, 10, 5)
    fig, frame = figs.q_heatmap_figure(eps_grid, RATES)
    np.testing.assert_allclose(fig.data[0].z[-1], amp.sampling_variance_bound(10.0, RATES))
    assert frame["q"].to_numpy() == pytest.approx(np.ravel(fig.data[0].z))


def test_mean_variance_figure_plots_eqs_6_and_7():
    pop = make_builtin("beta", seed=0, size=501)
    table = gains.mean_gain_table(pop.values, pop.lower, pop.upper, [0.5, 1.0], [0.01, 0.1, 0.5])
    fig, _ = figs.mean_variance_figure(table)
    by_name = {t.name: t for t in fig.data}
    v_pop = float(gains.mean_variance_population(1.0, pop.size, pop.lower, pop.upper))
    assert list(by_name["V_N, ε_target = 1"].y) == [pytest.approx(v_pop)] * 2
    # eq. 6: Var of Laplace noise of scale R/(N ε) is 2 (R/(N ε))²
    assert v_pop == pytest.approx(2 * (1.0 / (pop.size * 1.0)) ** 2)
    s2 = float(pop.values.var(ddof=1))
    ns = table[table["eps_target"] == 1.0]["n"].to_numpy()
    expected = gains.mean_variance_sample(1.0, ns, pop.size, s2, pop.lower, pop.upper)
    np.testing.assert_allclose(by_name["V_n, ε_target = 1"].y, expected, rtol=1e-12)
    assert fig.layout.xaxis.title.text == "sampling rate n/N"


def _summary() -> pd.DataFrame:
    rows = []
    for e, pop_log, sample_logs in (
        (0.5, -3.0, [-2.0, -3.5, -3.2]),
        (1.0, -5.0, [-4.0, -4.5, -4.2]),
    ):
        for rate, value in zip([0.1, 0.3, 0.6], sample_logs, strict=True):
            rows.append((e, rate, False, value, 0.05))
        rows.append((e, 1.0, True, pop_log, 0.02))
    return pd.DataFrame(
        rows, columns=["eps_target", "rate", "is_population", "log_mse", "log_mse_se"]
    )


def test_log_mse_figure_marks_the_rates_that_beat_the_population():
    fig, _ = figs.log_mse_figure(_summary(), band_se=2.0)
    line = next(t for t in fig.data if t.name == "ε_target = 0.5")
    assert list(line.x) == [0.1, 0.3, 0.6] and list(line.y) == [-2.0, -3.5, -3.2]
    band = next(t for t in fig.data if t.name == "±2 SE, ε_target = 0.5")
    assert max(band.y) == pytest.approx(-2.0 + 0.1) and min(band.y) == pytest.approx(-3.6)
    cross = next(t for t in fig.data if t.name == "population, ε_target = 0.5")
    assert list(cross.x) == [1.0] and list(cross.y) == [-3.0]
    rings = next(t for t in fig.data if t.name == "beats the population, ε_target = 0.5")
    assert list(rings.x) == [0.3, 0.6]
    best = next(t for t in fig.data if t.name == "best rate, ε_target = 0.5")
    assert list(best.x) == [0.3]
    assert not any(t.name == "beats the population, ε_target = 1" for t in fig.data)


def test_best_rate_table_numbers():
    table = figs.best_rate_table(_summary()).set_index("ε_target")
    assert table.loc[0.5, "best sampling rate"] == 0.3
    assert table.loc[0.5, "MSE change vs population"] == pytest.approx(math.expm1(-0.5))
    assert bool(table.loc[0.5, "sample wins"]) and not bool(table.loc[1.0, "sample wins"])
    assert table.loc[1.0, "MSE change vs population"] == pytest.approx(math.expm1(0.5))


def test_violin_figures_draw_each_groups_values():
    per_rep = pd.DataFrame(
        {
            "eps_target": [1.0] * 6,
            "rate": [0.1, 0.1, 0.5, 0.5, 1.0, 1.0],
            "n": [10, 10, 50, 50, 100, 100],
            "err": [0.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    fig, _ = figs.violin_by_rate_figure(
        per_rep, eps_target=1.0, column="err", title="t", y_title="y", log_y=True, reference=4.5
    )
    names = [t.name for t in fig.data]
    assert names == ["n/N = 10 %<br>(n = 10)", "n/N = 50 %<br>(n = 50)", "population (rate 1)"]
    assert list(fig.data[0].y) == [2.0]  # the zero cannot be drawn on a log axis
    assert "ε_target = 1" in fig.layout.title.text and fig.layout.shapes[0].y0 == 4.5
    titled, _ = figs.violin_by_rate_figure(
        per_rep, eps_target=1.0, column="err", title="t", y_title="y", title_text="Figure 11"
    )
    assert titled.layout.title.text == "Figure 11"  # as given, margins of the generated title
    assert titled.layout.margin == fig.layout.margin

    frame = pd.DataFrame({"eps": [0.5, 0.5, 2.0], "release": [1.0, 3.0, 2.0]})
    fig, _ = figs.release_violin_figure(
        frame, value="release", title="t", y_title="y", truth=2.0, truth_text="true"
    )
    assert [list(t.y) for t in fig.data] == [[1.0, 3.0], [2.0]]
    assert [t.name for t in fig.data] == ["ε_target = 0.5", "ε_target = 2"] and fig.layout.shapes[
        0
    ].y0 == 2.0


def test_best_rate_table_zero_errors_are_no_change():
    # every record tied at the median: both errors are zero (log = -inf) -> no change, no NaN
    rows = [(1.0, 0.1, False, -np.inf, 0.0), (1.0, 1.0, True, -np.inf, 0.0)]
    rows += [(2.0, 0.1, False, -1.0, 0.1), (2.0, 1.0, True, -np.inf, 0.0)]
    summary = pd.DataFrame(
        rows, columns=["eps_target", "rate", "is_population", "log_mse", "log_mse_se"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = figs.best_rate_table(summary).set_index("ε_target")
    assert table.loc[1.0, "MSE change vs population"] == 0.0
    assert not bool(table.loc[1.0, "sample wins"])
    assert table.loc[2.0, "MSE change vs population"] == np.inf
