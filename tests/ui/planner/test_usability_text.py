"""ui.planner.text on usable and too noisy plans, and on heavy-tailed noise (issue 27, §2)."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest

from core import planner
from core.planner import usability
from core.populations import make_builtin
from ui.format import fmt
from ui.planner import compare_text, text
from ui.planner import figures as figs

LOGNORMAL = make_builtin("lognormal", seed=0, size=2000)


@pytest.fixture(scope="module")
def noisy() -> planner.PlanResult:
    """A plan at ε_target = 0.001: even the best plan's bound is far above the median."""
    return planner.plan(LOGNORMAL, eps_target=0.001, designs=("census", "srs"), reps=50)


def _with_best(result: planner.PlanResult, **values: float) -> planner.PlanResult:
    """The plan with ``values`` in every best row (so in the recommended one too)."""
    best = result.best.copy()
    ranked = result.best_by_design.copy()
    for name, value in values.items():
        best[name] = value
        ranked[name] = value
    return dataclasses.replace(result, best=best, best_by_design=ranked)


def test_too_noisy_reason_names_bound_share_and_value(noisy):
    L, U = LOGNORMAL.lower, LOGNORMAL.upper
    bound, value = float(noisy.recommended["error_95"]), noisy.population_value
    assert not usability.is_usable(bound, value, L, U, 0.5)
    words = text.too_noisy_reason(noisy, L, U, 0.5)
    assert words is not None and words.startswith("Too noisy to use")
    assert f"{fmt(bound / value, 'share')} of the population median" in words
    assert "above the 50 % you accept as usable" in words
    assert "e+" not in words  # no scientific notation for a person to decode
    # A share wide enough makes the same plan usable.
    assert text.too_noisy_reason(noisy, L, U, 2 * bound / value) is None


def test_too_noisy_reason_at_value_zero_reads_the_declared_range(noisy):
    L, U = LOGNORMAL.lower, LOGNORMAL.upper
    zero = dataclasses.replace(noisy, population_value=0.0)
    bound = float(zero.recommended["error_95"])
    words = text.too_noisy_reason(zero, L, U, 0.1 * bound / (U - L))
    assert words is not None and "of the declared range" in words and "is 0" in words
    assert text.too_noisy_reason(zero, L, U, 2 * bound / (U - L)) is None


def test_too_noisy_reason_for_an_infinite_or_missing_bound(noisy):
    L, U = LOGNORMAL.lower, LOGNORMAL.upper
    unbounded = text.too_noisy_reason(_with_best(noisy, error_95=math.inf), L, U, 100.0)
    assert unbounded is not None and "no finite 95 % bound" in unbounded
    missing = text.too_noisy_reason(_with_best(noisy, error_95=math.nan), L, U, 100.0)
    assert missing is not None and "could not be computed" in missing


def test_ranked_list_flags_each_row_and_checks_the_count(noisy):
    ranked = figs.ranked_table(noisy)
    flags = compare_text.usable_rows(
        ranked, noisy.population_value, LOGNORMAL.lower, LOGNORMAL.upper, 0.5
    )
    lines = compare_text.ranked_list(ranked, None, flags).splitlines()
    assert len(lines) == len(ranked)
    for line, ok, row in zip(lines, flags, ranked.to_dict("records"), strict=True):
        assert ok == usability.is_usable(
            row["95 % bound"], noisy.population_value, LOGNORMAL.lower, LOGNORMAL.upper, 0.5
        )
        assert (compare_text.USABLE_FLAG if ok else compare_text.TOO_NOISY_FLAG) in line
    assert not any(flags)
    wide = compare_text.usable_rows(ranked, noisy.population_value, 0.0, 1.0, 1e6)
    assert all(
        compare_text.USABLE_FLAG in line
        for line in compare_text.ranked_list(ranked, None, wide).split("\n")
    )
    # Without flags the list is unchanged in form; a wrong count is refused.
    assert compare_text.TOO_NOISY_FLAG not in compare_text.ranked_list(ranked)
    with pytest.raises(ValueError, match="one flag per row"):
        compare_text.ranked_list(ranked, None, flags[:-1])


def test_heavy_tail_note_in_words_and_in_the_ranked_line(noisy):
    # The zinc row: RMSE 0.036, 95 % bound ±0.0021.
    note = compare_text.heavy_tail_note(0.036, 0.0021)
    assert note is not None
    assert "17.1 times its 95 % bound ±0.0021" in note
    assert "Rare large errors dominate the RMSE" in note and "95 % of releases" in note
    assert "bound of 0" in (compare_text.heavy_tail_note(0.5, 0.0) or "")
    assert compare_text.heavy_tail_note(math.sqrt(2.0), math.log(20.0)) is None  # Laplace noise
    ranked = figs.ranked_table(noisy)
    marker = "heavy-tailed noise: rare large errors dominate the RMSE"
    assert marker not in compare_text.ranked_list(ranked)
    heavy = ranked.copy()
    heavy.loc[heavy.index[0], ["RMSE", "95 % bound"]] = [0.036, 0.0021]
    lines = compare_text.ranked_list(pd.DataFrame(heavy)).splitlines()
    assert marker in lines[0]
    assert all(marker not in line for line in lines[1:])
