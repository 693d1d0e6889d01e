"""ui.statistical.text: each "Reproduce in Python" snippet, run, prints core's numbers.

Break caught (tests/break_checks.py ``statistical-snippet-wrong-pi``): the π-sweep snippet
evaluates δ at π = 0.25 while it says π = 1/2.
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from core import statistical as sp
from ui.statistical import text


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<snippet>", "exec"), {})
    return out.getvalue()


def _number(output: str, pattern: str) -> float:
    match = re.search(pattern + r"[=:] ?([-+0-9.e]+)", output)
    assert match, (pattern, output)
    return float(match.group(1))


def test_curve_snippet_prints_cores_delta_of_each_mechanism():
    output = _run(text.curve_snippet(size=300, pi=0.2, eps=0.7, nu=1.5, lam=0.25))
    m = sp.sample_size(300, 0.25)
    for name, key in [("subsampling", "subsampling"), ("Gaussian noise", "gaussian")]:
        plus, minus = sp.delta_directions(key, 300, 0.2, 0.7, m=m, noise_multiplier=1.5)
        shown = _number(output, re.escape(name) + ": delta")
        assert shown == pytest.approx(max(float(plus), float(minus)), rel=1e-5)
    worst = _number(output, r"worst case \(DP\), Gaussian")
    assert worst == pytest.approx(float(sp.delta_dp_gaussian(0.7, 1.5)), rel=1e-5)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_pi_snippet_prints_delta_at_pi_half_and_the_worst_case(noise):
    output = _run(text.pi_snippet(size=300, eps=0.4, noise=noise, nus=[1.0, 3.0]))
    func = sp.delta_gaussian if noise == "gaussian" else sp.delta_laplace
    dp = sp.delta_dp_gaussian if noise == "gaussian" else sp.delta_dp_laplace
    lines = output.strip().splitlines()
    assert len(lines) == 2
    for nu, line in zip([1.0, 3.0], lines, strict=True):
        assert _number(line, "delta_pi_half") == pytest.approx(
            float(func(300, 0.5, 0.4, nu)), rel=1e-5, abs=1e-300
        )
        assert _number(line, "delta_dp") == pytest.approx(float(dp(0.4, nu)), rel=1e-5)


def test_equal_utility_snippet_prints_cores_calibration():
    output = _run(text.equal_utility_snippet(size=300, pi=0.2, eps=0.7, lam=0.25))
    m = sp.sample_size(300, 0.25)
    nu_g = sp.equal_utility_noise_multiplier(300, m, 0.2, "gaussian")
    assert _number(output, "utility loss") == pytest.approx(
        sp.utility_loss_subsampling(300, m, 0.2), rel=1e-5
    )
    assert _number(output, "Gaussian nu") == pytest.approx(nu_g, rel=1e-5)
    assert _number(output, "subsampling delta") == pytest.approx(
        float(sp.delta_subsampling(300, m, 0.2, 0.7)), rel=1e-5
    )
