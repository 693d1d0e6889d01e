"""ui.amplification.text: the calculator's default n, δ help and δ_sample words.

Break caught (tests/break_checks.py ``amp-default-n-rounds-down``): the default n rounds
N/100 down instead of up.
"""

from __future__ import annotations

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
    assert "N = 10,001 gives 4.9995e-05" in help_text and "1/(2N)" in help_text


@pytest.mark.parametrize(
    ("rate", "vacuous"), [(0.5, False), (1e-4, True), (2e-4, False), (5e-5, True)]
)
def test_delta_sample_status_follows_cores_delta_sample(rate, vacuous):
    delta_sample = float(amp.delta_sample(1e-4, rate))  # δ_target / rate (Hu et al. Theorem 1)
    assert delta_sample == pytest.approx(1e-4 / rate)
    words = text.delta_sample_status(delta_sample)
    assert words.startswith("vacuous") == vacuous
