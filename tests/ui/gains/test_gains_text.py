"""ui.gains.text: help and warnings name the right numbers; snippets print core's numbers.

Break caught (tests/break_checks.py ``gains-vacuous-delta-off-by-rate``): the vacuous-δ
warning tests δ_target·rate instead of δ_target/rate.
"""

from __future__ import annotations

import contextlib
import io
import re

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
        "Defaults to 1/(2N) of the active population: N = 10,001 gives 4.9995e-05, as Hu et "
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
    assert gains.verdict_text(result.summary, 1.0) in output
