"""ui.clusters.text: metric values and the ε_target → ε_sample reading.

Break caught (tests/break_checks.py ``cluster-metric-vacuous-inverted``): a bound below
ε_sample is shown as "no amplification".
"""

from __future__ import annotations

from ui.clusters import text
from ui.format import fmt


def test_metric_value_shows_the_bound_or_no_amplification():
    assert text.metric_value(0.1234567, 1.0) == "0.123"
    assert text.metric_value(1.0, 1.0) == "no amplification"
    assert text.metric_value(1.5, 1.0) == "no amplification"


def test_target_reading_names_safe_unsafe_and_poisson_budgets():
    words = text.target_reading(0.5, 1.2, 1.9, 2.6, 100, 10)
    assert "**ε_sample = 1.2**" in words and "never more than 1.9" in words
    assert "ε_sample = 2.6" in words and f"by {fmt(1.2 / 0.5, 'ratio')}" in words
    equal = text.target_reading(0.5, 1.2, 1.2, 2.6, 100, 10)
    assert "no more (Theorem 5.1 gives the same value" in equal
    census = text.target_reading(0.5, 0.5, 0.5, 0.5, 10, 10)
    assert census.startswith("All 10 clusters are drawn")


def test_target_reading_says_no_amplification_when_the_budget_does_not_grow():
    """Huge clusters leave ε_sample = ε_target: the reading says so, not "multiplies by 1".

    Break: compare the other way round (``vacuous(eps_target, safe)``) and this fails.
    """
    words = text.target_reading(0.5, 0.5, 0.5, 0.6, 100, 10)
    assert "no amplification" in words and "multiplies" not in words
    assert "multiplies the budget by 2.4" in text.target_reading(0.5, 1.2, 1.9, 2.6, 100, 10)
