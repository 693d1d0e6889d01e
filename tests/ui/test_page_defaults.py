"""ui.page_defaults: δ_target = 1/(2N) and a default that follows the population.

Break caught (tests/break_checks.py ``delta-default-one-over-n``): the default is 1/N.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.harness import ROOT, TIMEOUT
from ui.page_defaults import delta_target_default


@pytest.mark.parametrize(("size", "delta"), [(1, 0.5), (10_001, 4.9995e-05), (100_000, 5e-06)])
def test_delta_target_default_is_one_over_two_n(size, delta):
    assert delta_target_default(size) == delta
    assert delta_target_default(size) == pytest.approx(1 / (2 * size), rel=5e-6)


@pytest.mark.parametrize("bad", [0, -3, 2.5, float("nan"), "10"])
def test_delta_target_default_rejects_bad_sizes(bad):
    with pytest.raises(ValueError, match="population_size"):
        delta_target_default(bad)


def _script() -> str:
    return f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import streamlit as st
from ui.page_defaults import delta_target_default, follow_population_default
size = st.number_input("N", value=100, key="size")
default = delta_target_default(int(size))
follow_population_default("delta", default)
st.number_input("delta", value=default, key="delta", format="%.6g")
"""


def test_follow_population_default_moves_only_an_untouched_value():
    at = AppTest.from_string(_script(), default_timeout=TIMEOUT).run()
    assert at.number_input(key="delta").value == 0.005
    at.number_input(key="size").set_value(1000).run()
    assert at.number_input(key="delta").value == 0.0005  # followed N
    at.number_input(key="delta").set_value(0.001).run()
    at.number_input(key="size").set_value(50).run()
    assert at.number_input(key="delta").value == 0.001  # typed by the user: kept
    assert not at.exception
