"""Figure builders of the Amplification page: data agree with core, charts are labelled."""

from __future__ import annotations

import numpy as np
import pytest

from core import amplification as amp
from ui.amplification import figures as figs


@pytest.fixture
def rates():
    return figs.rate_grid(1e-3, log_spacing=True)


def test_rate_grid_ends_at_one():
    for log_spacing in (True, False):
        grid = figs.rate_grid(1e-4, log_spacing=log_spacing)
        assert grid[0] == pytest.approx(1e-4) and grid[-1] == 1.0
        assert np.all(np.diff(grid) > 0)


def test_eps_sample_figure_matches_core(rates):
    fig, data = figs.eps_sample_figure([0.1, 1.0], rates, log_x=True, log_y=False, marker_rate=0.01)
    assert {t.name for t in fig.data} >= {"ε_target = 0.1", "ε_target = 1"}
    assert fig.layout.xaxis.title.text == "sampling rate n/N"
    assert "ε_sample" in fig.layout.yaxis.title.text
    sub = data[data.eps_target == 1.0]
    np.testing.assert_allclose(sub.eps_sample, amp.eps_sample(1.0, sub.rate), rtol=1e-15)
    assert all(t.hovertemplate for t in fig.data)


def test_delta_figure_and_reverse_view(rates):
    fig, data = figs.delta_sample_figure(1e-5, rates, log_x=True)
    np.testing.assert_allclose(data.delta_sample, 1e-5 / data.rate)
    assert fig.layout.yaxis.type == "log"
    fig, data = figs.eps_target_figure([2.0], rates, log_x=True, log_y=True)
    np.testing.assert_allclose(amp.eps_sample(data.eps_target, data.rate), 2.0, rtol=1e-12)


def test_steinke_figures_stay_between_floor_and_one():
    p = np.geomspace(1e-4, 1, 200)
    _, data = figs.steinke_regime_figure([0.5, 2.0], p, log_x=True)
    assert np.all(data.ratio >= data.floor - 1e-12)
    assert np.all(data.ratio <= 1 + 1e-12)
    _, data = figs.steinke_vs_eps_figure([0.01, 0.5], np.geomspace(1e-4, 10, 100))
    assert np.all((data.ratio > 0) & (data.ratio <= 1 + 1e-12))
    _, data = figs.noise_factor_figure(np.geomspace(0.01, 100, 50))
    assert np.all(np.diff(data.noise_factor) > 0)


def test_calculator_reproduces_paper_numbers():
    table = figs.calculator_table(10001, 101, [0.1, 1.0], 5e-5)
    assert table["ε_sample"].round(2).tolist() == [2.43, 5.14]
    assert table["noise variance ratio r"].lt(1).all()


def test_snippets_run_and_use_the_parameters(capsys):
    from ui.amplification import text

    code = text.reverse_snippet([0.1, 1.0], 5e-5, 10001, 101)
    assert "[0.1, 1.0]" in code
    assert "N, n = 10001, 101" in code
    for snippet in (
        code,
        text.forward_snippet([0.1, 1.0], 0.001, 5e-5),
        text.steinke_snippet([0.1, 1.0], [0.01, 0.5], [2.0]),
    ):
        exec(compile(snippet, "<snippet>", "exec"), {})  # the snippet must run as printed
    printed = capsys.readouterr().out
    assert "eps_target=1 eps_sample=5.1" in printed  # 101 of 10,001 at ε_target = 1


def test_calculator_marks_a_vacuous_delta():
    table = figs.calculator_table(10001, 10, [1.0], 0.01)
    assert table["δ_sample"].iloc[0] > 1
    assert table["δ on the sample"].iloc[0].startswith("vacuous")
    table = figs.calculator_table(10001, 101, [1.0], 5e-5)
    assert not table["δ on the sample"].iloc[0].startswith("vacuous")


def test_steinke_vs_p_figure_plots_p_times_eps_p_over_eps(rates):
    """Steinke's ratio p·ε_p/ε with ε_p = log(1 + (e^ε − 1)/p) (his eq. 5), one curve per ε.

    Break caught (tests/break_checks.py ``steinke-vs-p-ratio-squared``): the figure plots
    the ratio squared (Hu's r instead of Steinke's ratio).
    """
    fig, frame = figs.steinke_vs_p_figure([0.1, 2.0], rates, log_x=True)
    for trace, e in zip(fig.data, [0.1, 2.0], strict=True):
        assert trace.name == f"ε = {e:g}"
        np.testing.assert_array_equal(trace.x, rates)
        eps_p = np.log1p(np.expm1(e) / rates)
        np.testing.assert_allclose(trace.y, rates * eps_p / e, rtol=1e-9)
        np.testing.assert_allclose(trace.y, amp.steinke_ratio(e, rates), rtol=1e-12)
    assert fig.layout.xaxis.title.text == "sampling probability p"
    assert fig.layout.yaxis.title.text.startswith("p·ε_p / ε") and fig.layout.xaxis.type == "log"
    assert len(frame) == 2 * rates.size


# ---------------------------------------------------------------------------------------
# ε as odds
# ---------------------------------------------------------------------------------------


def test_odds_table_equals_core_posterior_bound():
    from core import risk

    table = figs.odds_table([0.1, 1.0, 3.0], 0.01, 0.01, 5e-5)
    assert table["ε_target"].tolist() == [0.1, 1.0, 3.0]
    for row in table.itertuples(index=False):
        r = dict(zip(table.columns, row, strict=True))
        e_s = amp.eps_sample(r["ε_target"], 0.01)
        assert r["ε_sample"] == pytest.approx(e_s, rel=1e-15)
        assert r["ε_target: at most … in 100"] == 100 * risk.posterior_bound(r["ε_target"], 0.01)
        assert r["ε_sample: at most … in 100"] == 100 * risk.posterior_bound(e_s, 0.01)
    assert (table["prior"] == "1 in 100").all()


def test_posterior_figure_plots_the_bound_against_the_prior():
    from core import risk

    priors = figs.prior_grid(50)
    fig, data = figs.posterior_figure(1.0, 0.01, priors, marker_prior=0.01)
    assert fig.layout.xaxis.type == "log"
    curves = [t for t in fig.data if t.mode == "lines" and t.name.startswith("ε_")]
    assert [t.name for t in curves] == ["ε_target = 1", "ε_sample = 5.15"]
    np.testing.assert_array_equal(curves[0].y, risk.posterior_bound(1.0, priors))
    np.testing.assert_array_equal(
        curves[1].y, risk.posterior_bound(amp.eps_sample(1.0, 0.01), priors)
    )
    markers = [t for t in fig.data if t.mode == "markers"]
    assert markers[0].y[0] == pytest.approx(risk.posterior_bound(1.0, 0.01))
    assert "2.67 in 100" in markers[0].hovertemplate
    assert set(data["budget"]) == {"eps_target", "eps_sample"}
    assert (data["posterior_bound"] >= data["prior"]).all()
    assert data["increase"].to_numpy() == pytest.approx(
        (data["posterior_bound"] - data["prior"]).to_numpy(), rel=1e-9, abs=1e-15
    )


def test_odds_snippet_runs_and_prints_the_page_numbers(capsys):
    from ui.amplification import text

    exec(compile(text.odds_snippet([1.0], 0.01, 0.01, 5e-5), "<snippet>", "exec"), {})
    printed = capsys.readouterr().out
    assert "eps_target=1 eps_sample=5.15" in printed
    assert "at most 2.6" in printed and "/ 63.5" in printed
