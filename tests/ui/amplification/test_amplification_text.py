"""ui.amplification.text: the calculator's default n, δ help and δ_sample words.

Break caught (tests/break_checks.py ``amp-default-n-rounds-down``): the default n rounds
N/100 down instead of up.
"""

from __future__ import annotations

import math

import pytest

from core import amplification as amp
from ui.amplification import text


@pytest.mark.parametrize(("size", "n"), [(1, 1), (99, 1), (100, 1), (10_001, 101), (250, 3)])
def test_default_sample_size_is_one_percent_rounded_up(size, n):
    assert text.default_sample_size(size) == n


def test_default_sample_size_rejects_an_empty_population():
    with pytest.raises(ValueError, match="at least 1"):
        text.default_sample_size(0)


def test_delta_help_names_n_and_the_default():
    help_text = text.delta_help(10_001, 1 / 20_002)
    assert "N = 10,001 gives 5e-5" in help_text and "1/(2N)" in help_text


@pytest.mark.parametrize(
    ("rate", "vacuous"), [(0.5, False), (1e-4, True), (2e-4, False), (5e-5, True)]
)
def test_delta_sample_status_follows_cores_delta_sample(rate, vacuous):
    delta_sample = float(amp.delta_sample(1e-4, rate))  # δ_target / rate (Hu et al. Theorem 1)
    assert delta_sample == pytest.approx(1e-4 / rate)
    words = text.delta_sample_status(delta_sample)
    assert words.startswith("vacuous") == vacuous


# ---------------------------------------------------------------------------------------
# ε as odds
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prior", "words"),
    [
        (0.01, "1 in 100"),
        (1e-6, "1 in 1,000,000"),
        (0.0015, "1 in 667"),
        (0.3, "1 in 3.3"),
        (0.5, "1 in 2"),
        (0.7, "70 in 100"),
    ],
)
def test_one_in_reads_a_prior(prior, words):
    assert text.one_in(prior) == words


@pytest.mark.parametrize(
    ("probability", "words"),
    [
        (3 / 102, "2.94"),
        (0.5, "50"),
        (0.989, "98.9"),
        (0.999, "99.9"),
        (0.99996, "99.996"),
        (1.0, "100"),
        (0.0, "0"),
    ],
)
def test_in_100_never_rounds_a_bound_up_to_certainty(probability, words):
    assert text.in_100(probability) == words


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.1, 2.0])
def test_one_in_refuses_certainty_and_nonsense(bad):
    with pytest.raises(ValueError, match="prior must be in the interval"):
        text.one_in(bad)


def test_odds_summary_says_at_most_worst_case_and_delta():
    words = text.odds_summary(0.01, math.log(3), 3 / 102, 5.0, 0.6, 5e-5)
    assert "thought it 1 in 100" in words
    assert "at most **2.94 in 100** sure" in words
    assert "at most **60 in 100**" in words
    assert "worst-case attacker" in words
    assert "With δ_target = 5e-5, " in words and "chance of at most 1e-4 (2·δ_target)" in words


@pytest.mark.parametrize(
    ("eps_target", "eps_sample", "verdict"),
    [
        (1.0, 5.0, "only ε_sample here allows it"),
        (1.0, 2.0, "neither budget here allows that"),
        (5.0, 7.0, "both budgets here allow it"),
    ],
)
def test_even_odds_sentence(eps_target, eps_sample, verdict):
    words = text.even_odds_sentence(0.01, math.log(99), eps_target, eps_sample)
    assert "1 in 100 become as sure as a coin flip" in words
    assert "ε of at least 4.6" in words
    assert words.endswith(verdict + ".")


def test_odds_display_formats_the_odds_table():
    from ui.amplification import figures as figs

    shown = text.odds_display(figs.odds_table([math.log(3)], 1.0, 0.01, 0.0))
    assert shown.columns.tolist() == [
        "ε_target",
        "ε_sample",
        "with ε_target: at most",
        "with ε_sample: at most",
    ]
    assert shown.iloc[0].tolist() == ["1.1", "1.1", "2.94 in 100", "2.94 in 100"]


def test_delta_caveat_words_the_tail_bound():
    assert text.delta_caveat(0.0).endswith("on every release.")
    one = text.delta_caveat(1e-6, both=False)
    assert one.startswith("It is an upper bound") and "it can be exceeded" in one
    assert "at most 2e-6 (2·δ_target)" in one and "certainty with a chance of at most 1e-6" in one
    assert "the ε_target bound can be exceeded" in text.delta_caveat(1e-6)
