"""core.planner.claims: a sample is recommended over the census only when it beats it by more
than the Monte Carlo noise (issue 35, "a recommendation is a claim")."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from core.planner import claims, plan
from core.populations import make_builtin


def test_the_rule_is_two_standard_errors_of_the_difference():
    # exact census: only the sample's standard error counts
    assert claims.beats_reference(0.90, 0.02, 0.95)  # 0.90 + 0.04 < 0.95
    assert not claims.beats_reference(0.93, 0.0259, 0.95)  # the survey at ε_target 0.1
    assert not claims.beats_reference(0.91, 0.02, 0.95)  # 0.95 is not below 0.95
    # a simulated census: both standard errors, added in quadrature
    assert claims.beats_reference(0.80, 0.03, 0.95, 0.04)  # 0.80 + 2·0.05 = 0.90
    assert not claims.beats_reference(0.86, 0.03, 0.95, 0.04)  # 0.96
    assert claims.beats_reference(0.91, 0.02, 0.95, ses=1.0)
    assert claims.beats_reference(0.94, 0.5, 0.95, ses=0.0)
    assert not claims.beats_reference(math.inf, 0.0, 0.95)
    assert claims.beats_reference(1.0, 0.0, math.inf)
    assert not claims.beats_reference(math.nan, 0.0, 0.95)  # not computed: no claim
    assert not claims.beats_reference(0.5, 0.0, math.nan)
    for bad in (dict(value=-1.0), dict(value_se=math.nan), dict(reference_se=-0.1)):
        args = dict(value=0.5, value_se=0.01, reference=1.0, reference_se=0.0) | bad
        with pytest.raises(ValueError, match=next(iter(bad))):
            claims.beats_reference(**args)
    with pytest.raises(ValueError, match="ses"):
        claims.beats_reference(0.5, 0.01, 1.0, ses=-1.0)
    with pytest.raises(ValueError, match="boolean"):
        claims.beats_reference(True, 0.01, 1.0)


def _best(rows):
    columns = ["design", "mechanism", "error_95", "error_95_se", "rmse", "rmse_se"]
    return pd.DataFrame(rows, columns=columns)


def test_the_recommended_row_is_the_census_unless_a_sample_beats_it():
    census = ("census", "exponential", 0.95, 0.0, 0.58, 0.0)
    close = ("srs", "exponential", 0.93, 0.026, 0.57, 0.018)
    far = ("srs", "exponential", 0.50, 0.02, 0.30, 0.01)
    assert claims.recommended_row(_best([close, census]), "error_95")["design"] == "census"
    assert claims.recommended_row(_best([far, census]), "error_95")["design"] == "srs"
    assert claims.recommended_row(_best([far, census]), "rmse")["design"] == "srs"
    assert claims.recommended_row(_best([census, close]), "error_95")["design"] == "census"
    # no census row: nothing to compare with, the first row stands
    assert claims.recommended_row(_best([close]), "error_95")["design"] == "srs"
    # a table without standard errors reads them as 0
    bare = _best([close, census]).drop(columns=["error_95_se"])
    assert claims.recommended_row(bare, "error_95")["design"] == "srs"
    with pytest.raises(ValueError, match="objective"):
        claims.recommended_row(_best([census]), "bias")
    with pytest.raises(ValueError, match="at least one row"):
        claims.recommended_row(_best([]), "error_95")
    assert claims.standard_error_column("rmse") == "rmse_se"


def test_a_plans_recommendation_and_beats_census_follow_the_rule():
    """On the bimodal population at ε_target 0.03 the exponential mechanism's sample is
    ahead of its census by noise only; on the lognormal one at 0.1 smooth-sensitivity
    Laplace's sample is ahead by far."""
    pop = make_builtin("bimodal_paper", seed=0)
    result = plan(pop, eps_target=0.03, designs=("census", "srs"), reps=100)
    best = result.best_by_design
    ref = result.census
    for _, row in best.iterrows():
        want = row["design"] != "census" and claims.beats_reference(
            row["error_95"], row["error_95_se"], ref["error_95"], ref["error_95_se"]
        )
        assert bool(row["beats_census"]) == want
    assert result.best["design"] == "srs" and result.best["gain"] > 0
    assert not result.best["beats_census"]
    assert result.recommended["design"] == "census"
    lognormal = make_builtin("lognormal", seed=0)
    smooth = plan(
        lognormal,
        eps_target=0.1,
        designs=("census", "srs"),
        reps=100,
        mechanisms=("smooth_laplace",),
    )
    assert smooth.best["beats_census"] and smooth.recommended["design"] == "srs"
    assert np.isclose(smooth.recommended["error_95"], smooth.best["error_95"])
