"""Issue 14 on the Gains page: the mechanism, quantile and error-measure words, the
comparison figure and its verdict, all numbers taken from core.gains.

Breaks caught (checked by hand while writing): the verdict's "needs a 30 % sample" taking
the largest instead of the smallest near rate; the comparison figure drawing the
population line at the best sample's value; the log-error chart reading the MSE whatever
the measure.
"""

from __future__ import annotations

import contextlib
import io
import math
import re

import numpy as np
import pandas as pd
import pytest

from core import gains
from core.populations import make_builtin
from ui.gains import figures as figs
from ui.gains import text

POP = make_builtin("lognormal", seed=0, size=1001)


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<snippet>", "exec"), {})
    return out.getvalue()


def _comparison(rows: list[tuple[str, float, float]], measure: str = "mse"):
    """A MechanismComparison built by hand from (mechanism, rate, value) rows."""
    table = pd.DataFrame(rows, columns=["mechanism", "rate", "value"])
    table["n"] = (table["rate"] * 1000).round().astype(int)
    table["eps_sample"] = 1.0
    table["se"] = 0.01 * table["value"]
    table["is_population"] = table["rate"] == 1.0
    best = int(np.lexsort((-table["rate"].to_numpy(), table["value"].to_numpy()))[0])
    table["is_best"] = np.arange(len(table)) == best
    return gains.MechanismComparison(
        table=table,
        best_mechanism=str(table["mechanism"].iloc[best]),
        best_rate=float(table["rate"].iloc[best]),
        eps_target=0.5,
        measure=measure,
        population_value=10.0,
        experiments={},
    )


ISSUE_EXAMPLE = [
    ("smooth_laplace", 0.1, 9.0),
    ("smooth_laplace", 0.3, 1.5),
    ("smooth_laplace", 0.5, 1.2),
    ("smooth_laplace", 1.0, 3.0),
    ("exponential", 0.1, 4.0),
    ("exponential", 0.3, 2.0),
    ("exponential", 1.0, 1.0),
    ("global_laplace", 0.3, 500.0),
    ("global_laplace", 1.0, 800.0),
    ("smooth_pure", 0.3, 5.0),
    ("smooth_pure", 1.0, 1.9),
]


def test_comparison_verdict_states_the_best_and_the_rate_each_other_needs():
    verdict = text.comparison_verdict(_comparison(ISSUE_EXAMPLE))
    assert verdict == (
        "At ε_target = 0.5 the exponential mechanism on the whole population has the smallest "
        "MSE (1). Smooth-sensitivity Laplace needs a 30 % sample to come within a factor 2 of "
        "it. Global-sensitivity Laplace never comes within a factor 2 of it: its best, on a "
        "30 % sample, has 500 times the MSE. Smooth-sensitivity heavy-tailed noise comes "
        "within a factor 2 of it only on the whole population."
    )


def test_comparison_verdict_names_a_sample_as_best_and_other_measures():
    rows = [("exponential", 0.2, 0.5), ("exponential", 1.0, 0.8), ("smooth_laplace", 1.0, 3.0)]
    verdict = text.comparison_verdict(_comparison(rows, measure="mae"))
    assert verdict.startswith(
        "At ε_target = 0.5 the exponential mechanism on a 20 % sample has the smallest mean "
        "absolute error (0.5)."
    )
    assert "its best, on the whole population, has 6 times the mean absolute error" in verdict


def test_comparison_verdict_says_when_a_mechanism_has_no_mse(monkeypatch):
    monkeypatch.setattr(text, "INFINITE_VARIANCE", frozenset({"global_laplace"}))
    verdict = text.comparison_verdict(_comparison(ISSUE_EXAMPLE))
    assert "Global-sensitivity Laplace has no MSE: its noise has no finite variance." in verdict
    mae = text.comparison_verdict(_comparison(ISSUE_EXAMPLE, measure="mae"))
    assert "has no MSE" not in mae
    assert text.no_mse_note({"global_laplace"}).startswith("Not plotted: global-sensitivity")
    assert text.no_mse_note(set()) is None


def test_comparison_verdict_on_cores_numbers():
    result = gains.mechanism_comparison(
        POP.values, lower=POP.lower, upper=POP.upper, eps_target=0.5, rates=[0.1, 0.5],
        reps=40, seed=2,
    )  # fmt: skip
    verdict = text.comparison_verdict(result)
    best = result.table[result.table["is_best"]].iloc[0]
    assert f"({best['value']:.4g})" in verdict
    assert text.MECHANISM_SHORT[result.best_mechanism] in verdict
    for name in gains.mechanisms_with_measure("mse"):
        if name != result.best_mechanism:
            label = text.MECHANISM_SHORT[name]
            assert label[0].upper() + label[1:] in verdict


def test_comparison_figure_plots_cores_table():
    result = _comparison(ISSUE_EXAMPLE)
    fig, data = figs.comparison_figure(
        result.table, labels=text.MECHANISM_SHORT, measure_label="MSE"
    )
    assert data is result.table
    line = next(t for t in fig.data if t.name == "smooth-sensitivity Laplace")
    assert list(line.x) == [0.1, 0.3, 0.5] and list(line.y) == [9.0, 1.5, 1.2]
    pop = next(t for t in fig.data if t.name == "smooth-sensitivity Laplace, whole population")
    assert list(pop.y) == [3.0, 3.0] and list(pop.x) == [0.1, 1.0]
    assert pop.line.color == line.line.color and pop.line.dash == "dot"
    star = next(t for t in fig.data if t.name == "best (mechanism, rate)")
    assert list(star.x) == [1.0] and list(star.y) == [1.0]
    assert "exponential" in star.hovertemplate
    assert fig.layout.yaxis.type == "log"
    assert "%{customdata[1]" in line.hovertemplate  # the standard error on hover
    hidden, _ = figs.comparison_figure(
        result.table,
        labels=text.MECHANISM_SHORT,
        measure_label="MSE",
        hidden=frozenset({"global_laplace"}),
    )
    assert not any("global" in (t.name or "") for t in hidden.data)


def _measure_summary() -> pd.DataFrame:
    rows = []
    for rate, mse, mae in ((0.1, 4.0, 3.0), (0.5, 2.0, 0.5), (1.0, 1.0, 1.0)):
        rows.append((0.5, rate, rate == 1.0, mse, 0.1, mae, 0.05, 2 * mae, 0.1))
    df = pd.DataFrame(
        rows,
        columns=[
            "eps_target", "rate", "is_population", "mse", "mse_se", "mae", "mae_se",
            "error_95", "error_95_se",
        ],
    )  # fmt: skip
    df["log_mse"] = np.log(df["mse"])
    df["log_mse_se"] = df["mse_se"] / df["mse"]
    return df


def test_log_error_figure_and_table_read_the_chosen_measure():
    summary = _measure_summary()
    fig, _ = figs.log_mse_figure(summary, measure="mae", quantile=0.9)
    line = next(t for t in fig.data if t.name == "ε_target = 0.5")
    np.testing.assert_allclose(line.y, np.log([3.0, 0.5]))
    np.testing.assert_allclose(line.customdata, [0.05 / 3.0, 0.05 / 0.5])
    best = next(t for t in fig.data if t.name == "best rate, ε_target = 0.5")
    assert list(best.x) == [0.5]  # by MAE the 50 % sample beats the population; by MSE none
    assert "90 % quantile" in fig.layout.title.text
    assert "mean absolute error" in fig.layout.yaxis.title.text
    mse_fig, _ = figs.log_mse_figure(summary)
    assert not any(t.name == "best rate, ε_target = 0.5" for t in mse_fig.data)
    table = figs.best_rate_table(summary, "error_95").iloc[0]
    assert table["best sampling rate"] == 0.5
    assert table["95 % error bound change vs population"] == pytest.approx(-0.5)
    assert figs.best_rate_table(summary).columns[1] == "log(MSE) population"


def test_paper_setting_keeps_its_words_and_formula():
    assert text.log_error_text("mse", 0.5) == text.LOG_MSE_TEXT
    assert "8\\,S_n^{(t)2}" in text.error_formula("mse", "smooth_laplace", "exact_noise_variance")
    assert "Var" in text.error_formula("mse", "smooth_pure", "exact_noise_variance")
    assert "tilde m" in text.error_formula("mse", "exponential", "drawn_noise")
    assert "95" in text.error_formula("error_95", "exponential", "drawn_noise")
    assert text.noise_violin_title("smooth_laplace") == "Laplace noise added to the released median"
    assert "90 % quantile" in text.noise_violin_title("smooth_laplace", 0.9)
    assert text.estimator_words(
        "smooth_laplace", "exact_noise_variance", "exact_noise_variance"
    ) == ("each sample's noise enters through its exact conditional variance 8S²/ε².")
    assert "draws its release" in text.estimator_words(
        "exponential", "exact_noise_variance", "drawn_noise"
    )
    assert set(text.MECHANISM_EXPLANATIONS) == set(gains.QUANTILE_MECHANISMS)
    assert set(text.MECHANISM_LABELS) == set(gains.QUANTILE_MECHANISMS)
    assert set(text.MEASURE_LABELS) == set(gains.MEASURES)
    default = text.experiment_snippet(
        POP, eps_values=[1.0], rates=[0.5], reps=5, delta_target=1e-4, seed=0,
        amplify_delta=True, estimator="exact_noise_variance",
    )  # fmt: skip
    assert "mechanism=" not in default and "measure=" not in default


def test_experiment_snippet_with_a_mechanism_prints_cores_verdict():
    kwargs = dict(rates=[0.1, 0.5], reps=20, delta_target=1e-4, seed=1, amplify_delta=True)
    code = text.experiment_snippet(
        POP, eps_values=[1.0], estimator="drawn_noise", mechanism="exponential",
        quantile=0.9, measure="error_95", **kwargs,
    )  # fmt: skip
    output = _run(code)
    result = gains.median_gain_experiment(
        POP.values, lower=POP.lower, upper=POP.upper, eps_targets=[1.0],
        estimator="drawn_noise", mechanism="exponential", quantile=0.9, **kwargs,
    )  # fmt: skip
    assert text.experiment_verdict(result.summary, 1.0, "error_95") in output
    assert re.search(r"error_95_se", output)


def test_comparison_snippet_prints_cores_verdict():
    kwargs = dict(rates=[0.1, 0.5], reps=20, delta_target=1e-4, seed=1, quantile=0.25)
    output = _run(text.comparison_snippet(POP, eps_target=0.5, measure="mae", **kwargs))
    result = gains.mechanism_comparison(
        POP.values, lower=POP.lower, upper=POP.upper, eps_target=0.5, measure="mae", **kwargs
    )
    assert text.comparison_verdict(result) in output
    assert not math.isnan(result.best_rate)


def test_every_mechanism_has_a_one_line_description_with_source_and_guarantee():
    assert set(text.MECHANISM_LINES) == set(gains.QUANTILE_MECHANISMS)
    for name, line in text.MECHANISM_LINES.items():
        assert ("pure ε" in line) != (name == "smooth_laplace"), name
        assert "(ε, δ)" in line or "pure ε" in line
    assert "Durfee 2023" in text.MECHANISM_LINES["unbounded"]
    assert "no finite mean" in text.MECHANISM_LINES["unbounded"]


def test_missing_measure_note_names_the_mechanism_and_the_way_out():
    note = text.missing_measure_note(["unbounded"], "mae")
    assert note is not None
    assert "the unbounded quantile" in note and "mean absolute error" in note
    assert "95 % error bound" in note
    assert text.missing_measure_note([], "mse") is None


def _tie_table(values: dict[str, float]) -> gains.MechanismComparison:
    rows = [
        {"mechanism": m, "rate": r, "value": v * f, "is_best": False}
        for m, v in values.items()
        for r, f in ((0.5, 2.0), (1.0, 1.0))
    ]
    table = pd.DataFrame(rows)
    table.loc[table["value"].idxmin(), "is_best"] = True
    return gains.MechanismComparison(
        table=table, best_mechanism="", best_rate=1.0, eps_target=0.5, measure="mse",
        population_value=150.0, experiments={},
    )  # fmt: skip


def test_ties_note_only_when_ties_are_many_and_the_factor_is_large():
    result = _tie_table({"smooth_laplace": 1.0, "exponential": 30.0, "smooth_pure": 3.0})
    assert text.mechanism_factor(result.table, "exponential", "smooth_laplace") == 30.0
    note = text.ties_note(result, 150.0, 500, 10_001, 0.5)
    assert note is not None
    assert "500 of the 10,001 records (5 %)" in note and "value, 150" in note
    assert "smooth-sensitivity Laplace (1)" in note and "30 times smaller" in note
    assert "(30)" in note
    # Too few ties, or too small a factor, or no exponential mechanism: no note.
    assert text.ties_note(result, 150.0, 50, 10_001, 0.5) is None
    close = _tie_table({"smooth_laplace": 1.0, "exponential": 4.0})
    assert text.ties_note(close, 150.0, 500, 10_001, 0.5) is None
    assert text.ties_note(_tie_table({"smooth_laplace": 1.0}), 150.0, 500, 10_001, 0.5) is None
    huge = _tie_table({"smooth_pure": 1e-12, "exponential": 30.0})
    assert "more than a million times smaller" in (
        text.ties_note(huge, 150.0, 500, 10_001, 0.5) or ""
    )
    zero = _tie_table({"smooth_pure": 0.0, "exponential": 30.0})
    assert "incomparably smaller" in (text.ties_note(zero, 150.0, 500, 10_001, 0.9) or "")
