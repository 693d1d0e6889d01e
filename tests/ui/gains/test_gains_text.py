"""ui.gains.text: help and warnings name the right numbers; snippets print core's numbers.

Break caught (tests/break_checks.py ``gains-vacuous-delta-off-by-rate``): the vacuous-δ
warning tests δ_target·rate instead of δ_target/rate.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pandas as pd
import pytest

from core import amplification as amp
from core import gains
from core.populations import make_builtin
from ui.gains import text

POP = make_builtin("beta", seed=2, size=301)
_ESTIMATOR = "exact_noise_variance"


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<snippet>", "exec"), {})
    return out.getvalue()


def test_delta_help_states_one_over_two_n():
    assert text.delta_help(10_001, 1 / 20_002) == (
        "Defaults to 1/(2N) of the active population: N = 10,001 gives 5e-5, as Hu et "
        "al. use. A value you type is kept and stored in the link."
    )


def test_vacuous_delta_warning_lists_exactly_the_rates_where_delta_sample_reaches_one():
    assert text.vacuous_delta_warning(0.01, [0.5, 0.1], amplify_delta=True) is None
    assert text.vacuous_delta_warning(0.2, [0.1], amplify_delta=False) is None
    warning = text.vacuous_delta_warning(0.2, [0.5, 0.2, 0.1], amplify_delta=True)
    assert warning is not None
    assert "at rate 0.2, 0.1:" in warning  # 0.2/0.2 = 1 and 0.2/0.1 = 2; 0.2/0.5 < 1
    assert "δ_sample = δ_target/rate" in warning


def test_theory_snippet_prints_cores_rate_for_q():
    output = _run(text.theory_snippet([0.1, 1.0], q=0.6))
    printed = [tuple(map(float, line.split())) for line in output.strip().splitlines()]
    assert printed == [
        (0.1, pytest.approx(float(amp.rate_for_q(0.1, 0.6)))),
        (1.0, pytest.approx(float(amp.rate_for_q(1.0, 0.6)))),
    ]


def test_mean_population_snippet_prints_eq_6():
    output = _run(text.mean_population_snippet(POP, [0.5, 2.0]))
    shown = dict(re.findall(r"eps_target=(\S+) V_N=(\S+)", output))
    for e in (0.5, 2.0):
        v_pop = float(gains.mean_variance_population(e, POP.size, POP.lower, POP.upper))
        assert float(shown[f"{e:g}"]) == pytest.approx(v_pop, rel=1e-5)


def test_sensitivity_snippet_prints_the_median_of_cores_releases():
    from core.illustrations import privatized_medians

    output = _run(text.sensitivity_snippet(POP, [1.0], reps=15, delta=1e-4, seed=2))
    releases = privatized_medians(
        POP.values, POP.lower, POP.upper, [1.0], 15, 1e-4, 2, sensitivity="smooth"
    )
    shown = float(re.search(r"eps=1 median release=(\S+)", output).group(1))
    assert shown == pytest.approx(float(releases["release"].median()), rel=1e-5)


def test_experiment_snippet_prints_cores_verdict():
    kwargs = dict(rates=[0.3, 0.6], reps=20, delta_target=1e-4, seed=1, amplify_delta=True)
    output = _run(text.experiment_snippet(POP, eps_values=[1.0], estimator=_ESTIMATOR, **kwargs))
    result = gains.median_gain_experiment(
        POP.values,
        lower=POP.lower,
        upper=POP.upper,
        eps_targets=[1.0],
        estimator=_ESTIMATOR,
        **kwargs,
    )
    assert text.experiment_verdict(result.summary, 1.0) in output


# ---------------------------------------------------------------------------------------
# experiment_verdict (moved here with the sentence from core.gains.verdict_text)
# ---------------------------------------------------------------------------------------


def _summary(rows: list[tuple[float, float, float, float]]) -> pd.DataFrame:
    """rows of (eps_target, rate, mse, log_mse_se)."""
    df = pd.DataFrame(rows, columns=["eps_target", "rate", "mse", "log_mse_se"])
    df["log_mse"] = np.log(df.mse)
    return df


def test_verdict_gain() -> None:
    s = _summary([(0.5, 0.1, 1.2, 0.01), (0.5, 0.4, 0.78, 0.01), (0.5, 1.0, 1.0, 0.0)])
    assert text.experiment_verdict(s, 0.5) == (
        "At ε_target = 0.5 the 40 % sample is best: 22 % lower MSE than privatising the population."
    )


def test_verdict_no_gain_and_within_error() -> None:
    s = _summary([(3.0, 0.1, 1.35, 0.01), (3.0, 0.5, 2.0, 0.01), (3.0, 1.0, 1.0, 0.0)])
    assert text.experiment_verdict(s, 3.0) == (
        "At ε_target = 3 no sampling rate beats the population; the best sample (10 %) has 35 % "
        "higher MSE."
    )
    # 2 % better, but the standard error of the difference is 0.05 on the log scale.
    s2 = _summary([(0.1, 0.2, 0.98, 0.05), (0.1, 1.0, 1.0, 0.0)])
    verdict = text.experiment_verdict(s2, 0.1)
    assert verdict.startswith("At ε_target = 0.1 the 20 % sample is best: 2 % lower MSE")
    assert "within Monte Carlo error" in verdict
    # huge factors are written as factors
    s3 = _summary([(0.01, 0.01, 1e-4, 0.01), (0.01, 1.0, 1.0, 0.0)])
    assert "10,000 times smaller" in text.experiment_verdict(s3, 0.01)
    s4 = _summary([(5.0, 0.9, 13.1, 0.01), (5.0, 1.0, 1.0, 0.0)])
    assert "13.1 times the MSE" in text.experiment_verdict(s4, 5.0)
    only = _summary([(1.0, 1.0, 1.0, 0.0)])
    assert text.experiment_verdict(only, 1.0) == (
        "At ε_target = 1 only the population was simulated; there is no sample to compare."
    )


def test_verdict_bad_summary_is_a_clear_error() -> None:
    s = _summary([(0.5, 0.1, 1.2, 0.01), (0.5, 1.0, 1.0, 0.0)])
    with pytest.raises(ValueError, match="columns"):
        text.experiment_verdict(s.drop(columns="mse"), 0.5)


def test_verdict_on_a_real_experiment() -> None:
    values = np.clip(np.random.default_rng(5).lognormal(1.0, 0.6, 151), 0.0, 30.0)
    ex = gains.median_gain_experiment(
        values, lower=0.0, upper=30.0, eps_targets=[0.05, 5.0], rates=[0.2, 0.5], reps=50
    )
    for e in [0.05, 5.0]:
        verdict = text.experiment_verdict(ex.summary, e)
        assert verdict.startswith(f"At ε_target = {e:g}")
        assert verdict.endswith(".")


def test_worked_examples_sorted_with_the_papers_values():
    table = text.worked_examples([1.0, 0.01, 3.0], 0.6)
    assert table["ε_target"].tolist() == [0.01, 0.1, 1.0, 3.0]
    assert table["largest rate n/N (%)"].iloc[1] == pytest.approx(61.40, abs=5e-3)
    assert table["largest rate n/N (%)"].iloc[3] == pytest.approx(16.77, abs=5e-3)


def test_theory_caption_turns_the_smallest_rate_into_a_sample_size():
    assert "n ≈ 100 records of its N = 1,000,000" in text.theory_population_caption(
        "Beta", 1_000_000, 1e-4
    )
    assert "n ≈ 1 record of" in text.theory_population_caption("Lognormal", 10_001, 1e-4)
    below = text.theory_population_caption("Tiny", 500, 1e-4)
    assert "less than one of its N = 500 records" in below and "1/N = 0.2 %" in below
