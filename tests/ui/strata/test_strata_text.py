"""ui.strata.text: metric values, their help and the ε_target → ε_sample reading.

Break caught (tests/break_checks.py ``strata-bound-help-drops-number``): the help text of a
vacuous bound no longer states the bound's number.
"""

from __future__ import annotations

from core import amplification as amp
from ui.strata import text as strata_text


def test_bound_value_and_help():
    assert strata_text.bound_value(0.123456, 1.0) == "0.1235"
    assert strata_text.bound_value(1.2, 1.0) == "no amplification"
    assert strata_text.bound_help(0.123456, 1.0) == "0.123456"
    assert strata_text.bound_help(1.2, 1.0) == f"1.2; {strata_text.NO_AMPLIFICATION} = 1"


def test_target_reading_numbers():
    poisson = float(amp.eps_sample(0.5, 0.1))  # eq. 3 inverted
    words = strata_text.target_reading(0.5, 0.1, 0.9, poisson)
    assert "**ε_target = 0.5** at rate r = 0.1" in words
    assert "**ε_sample = 0.9**" in words and f"would allow {poisson:.4g} (eq. 3)" in words
    assert strata_text.NO_AMPLIFICATION not in words
    assert strata_text.NO_AMPLIFICATION in strata_text.target_reading(0.5, 0.9, 0.5, 0.6)
