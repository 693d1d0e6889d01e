"""Issue 10 on the Stratified sampling page: a default sample size that fits the population,
verdicts worded at n = N and at tiny n, vacuous bounds in words, the ε_target → ε_sample
direction, numeric stratum labels in numeric order, and snippets that rebuild the active
population and print the page's numbers."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from core import strata
from core.populations import BUILTIN_POPULATIONS
from tests.pages.harness import ROOT, array, charts, open_page
from tests.pages.test_strata_page import _open_uploaded, _uploaded
from ui.strata import text as strata_text

PAGE = "app_pages/strata.py"
EST = {"population": "Establishments"}
BOUND = "ε_target bound, randomised proportional (Thm 7.2)"


def _chart(at, title_part: str) -> dict:
    return next(c for c in charts(at) if title_part in c["layout"]["title"]["text"])


def _neyman(at) -> np.ndarray:
    chart = _chart(at, "Records drawn per stratum")
    return array(next(t for t in chart["data"] if t.get("name") == "Neyman")["y"])


def _metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


def _n9189():
    rng = np.random.default_rng(3)
    labels = np.repeat(["a", "b", "c"], [4000, 3189, 2000])
    values = rng.lognormal(3, 1, labels.size) + np.repeat([0.0, 50.0, 500.0], [4000, 3189, 2000])
    return _uploaded(values, labels, name="survey extract.csv")


# --- item 4: defaults that fit the active population -------------------------------------


def test_default_sample_size_is_a_share_of_n_with_two_per_stratum():
    assert strata_text.default_sample_size(100_000, 12) == 10_000  # the paper's m
    assert strata_text.default_sample_size(9_189, 3) == 919
    assert strata_text.default_sample_size(30, 20) == 30  # 2 per stratum, capped at N
    assert strata_text.default_sample_size(100, 20) == 40
    with pytest.raises(ValueError):
        strata_text.default_sample_size(0, 1)


def test_small_population_gets_a_fitting_default_and_a_real_comparison():
    at = _open_uploaded(_n9189())
    assert not at.warning, [w.value for w in at.warning]  # no "exceeds N" fallback
    assert _neyman(at).sum() == 919
    variance = next(df.value for df in at.dataframe if "variance ÷ Neyman" in df.value.columns)
    assert np.all(variance["variance"] > 0) and variance["variance ÷ Neyman"].notna().all()
    verdict = next(s.value for s in at.success)
    assert "≥ ε" not in verdict and "None" not in verdict


def test_a_typed_sample_size_is_kept():
    at = open_page(PAGE, EST)
    at.number_input(key="strat_m").set_value(1234).run()
    assert _neyman(at).sum() == 1234
    at.toggle(key="strat_log_y").set_value(False).run()  # another control moves
    assert at.number_input(key="strat_m").value == 1234


def test_verdict_at_n_equal_to_big_n_says_census_and_no_amplification():
    at = open_page(PAGE, {**EST, "strat_m": "100000"})
    verdict = next(s.value for s in at.success)
    assert "n = N" in verdict and "no amplification" in verdict
    assert "≥ ε" not in verdict and "ε′" not in verdict


def test_verdict_at_tiny_n_is_worded():
    at = open_page(PAGE, {**EST, "strat_m": "5"})
    verdict = next(s.value for s in at.success)
    assert "weighted mean is undefined" in verdict and "raise n" in verdict
    at = open_page(PAGE, {**EST, "strat_m": "50", "strat_view": "Privacy"})
    warnings = " ".join(w.value for w in at.warning)
    assert "strata (" in warnings and "stratum(s)" not in warnings


def test_a_bound_that_does_not_amplify_is_said_in_words():
    at = open_page(PAGE, {**EST, "strat_eps": "5", "strat_view": "Privacy"})
    metric = _metric(at, BOUND)
    assert metric.value == "no amplification"
    assert strata_text.NO_AMPLIFICATION in metric.proto.help
    at = open_page(PAGE, {**EST, "strat_eps": "0.1", "strat_view": "Privacy"})
    assert float(_metric(at, BOUND).value) == pytest.approx(
        strata.proportional_eps_bound(0.1, 0.1), rel=1e-3
    )


# --- item 7: ε_target in → ε_sample out ----------------------------------------------------


def test_target_direction_inverts_theorem_7_2():
    at = open_page(PAGE, {**EST, "strat_dir": strata_text.FROM_TARGET, "strat_eps_target": "0.2"})
    assert not at.exception and not at.error
    shown = float(_metric(at, "ε_sample allowed, randomised proportional (Thm 7.2)").value)
    want = strata.proportional_eps_sample_for_target(0.2, 0.1)
    assert shown == pytest.approx(want, rel=1e-3)
    assert strata.proportional_eps_bound(want, 0.1) == pytest.approx(0.2, rel=1e-9)


# --- item 8: numeric stratum labels sort numerically -------------------------------------


def test_numeric_stratum_labels_are_in_numeric_order():
    labels = np.repeat([str(i) for i in range(1, 12)], 40)
    # stratum "10" holds the smallest values, so first-occurrence order would put it first
    values = np.where(labels == "10", 0.5, 5.0 + np.arange(labels.size) % 7)
    at = _open_uploaded(_uploaded(values, labels), {"strat_m": "200"})
    table = next(df.value for df in at.dataframe if "N_i" in df.value.columns)
    assert table["stratum"].tolist() == [str(i) for i in range(1, 12)]
    chart = _chart(at, "Records drawn per stratum")
    assert list(chart["data"][0]["x"]) == [str(i) for i in range(1, 12)]


# --- item 6: snippets rebuild the active population and print the page's numbers ------------


def _printed(code: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    found = re.findall(r"^(\w[\w ]*?) = ([-+0-9.e]+)$", out.stdout, flags=re.M)
    return {name: float(value) for name, value in found}


@pytest.mark.parametrize("key", list(BUILTIN_POPULATIONS))
def test_snippet_rebuilds_each_builtin_and_prints_the_page_bound(key):
    at = open_page(PAGE, {"strat_view": "Privacy", "strat_eps": "0.3"})
    at.selectbox(key="population").set_value(key).run()
    code = at.get("code")[0].proto.code_text
    assert f"make_builtin({key!r}, seed=" in code
    printed = _printed(code)
    assert printed["bound"] == pytest.approx(float(_metric(at, BOUND).value), rel=1e-3)
    if key == "establishments":
        assert printed["neyman loss"] > 0
