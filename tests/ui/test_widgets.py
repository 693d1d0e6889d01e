"""Pure helpers behind the URL-bound controls."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ui.widgets import _mark_label, _with_mark, log_grid, parse_float_list


def test_log_grid_holds_the_papers_values_and_bounds():
    grid = log_grid(1e-3, 10.0)
    for v in (0.001, 0.01, 0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0):
        assert v in grid
    assert grid == sorted(grid)
    assert grid[0] == 1e-3 and grid[-1] == 10.0


def test_log_grid_includes_odd_bounds():
    grid = log_grid(0.0042, 0.37)
    assert grid[0] == 0.0042 and grid[-1] == 0.37
    assert all(0.0042 <= v <= 0.37 for v in grid)


@pytest.mark.parametrize("lo,hi", [(0, 1), (-1, 1), (2, 1), (1, 1)])
def test_log_grid_rejects_bad_bounds(lo, hi):
    with pytest.raises(ValueError, match="min_value"):
        log_grid(lo, hi)


@pytest.mark.parametrize(
    "text,values,n_problems",
    [
        ("0.1, 0.5, 1", [0.1, 0.5, 1.0], 0),
        ("1;0.1  0.5", [0.1, 0.5, 1.0], 0),
        ("0.5, 0.5", [0.5], 0),
        ("", [], 0),
        ("abc, 2", [2.0], 1),
        ("-1, 1e9, nan, inf, 3", [3.0], 4),
        ("=1+1", [], 1),
    ],
)
def test_parse_float_list(text, values, n_problems):
    parsed, problems = parse_float_list(text, min_value=1e-6, max_value=50)
    assert parsed == values
    assert len(problems) == n_problems


@given(st.text(max_size=200))
def test_parse_float_list_never_raises_and_respects_bounds(text):
    parsed, problems = parse_float_list(text, min_value=0.01, max_value=10)
    assert all(0.01 <= v <= 10 and math.isfinite(v) for v in parsed)
    assert parsed == sorted(set(parsed))
    assert all(isinstance(p, str) and p for p in problems)


def _int_control_app() -> None:
    import streamlit as st

    from ui.widgets import log_int_control

    value = log_int_control("Cluster size", "w_size", default=10, min_value=1, max_value=1000)
    st.write(f"value={value}")


def test_log_int_control_box_sets_the_value_and_the_slider_stands_on_it():
    """The integer log control (shared from ui.widgets; it used to be copied into a page)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_int_control_app).run()
    assert at.markdown[-1].value == "value=10"
    assert at.select_slider(key="w_size__slider").value == 10
    at.number_input(key="w_size").set_value(25).run()
    assert at.markdown[-1].value == "value=25"
    slider = at.select_slider(key="w_size__slider")
    assert slider.value == 25  # between the marks 20 and 30: a mark of its own
    assert slider.options[0] == "1" and slider.options[-1] == "1,000"
    assert {"20", "25", "30"} <= set(slider.options)
    at.select_slider(key="w_size__slider").set_value(30).run()
    assert at.markdown[-1].value == "value=30"
    assert "25" not in at.select_slider(key="w_size__slider").options


def test_a_value_between_marks_becomes_a_mark_shown_as_the_box_shows_it():
    grid = log_grid(1e-12, 0.1)
    delta = 1 / (2 * 10_001)  # δ_target's default on a population of 10,001
    marks = _with_mark(grid, delta)
    assert delta in marks and marks == sorted(marks) and len(marks) == len(grid) + 1
    assert _with_mark(grid, 5e-5) == grid  # a mark already
    assert _with_mark(grid, 0.5) == grid  # off the slider: the box alone holds it
    assert _mark_label(delta, grid, "%.3e") == "5.000e-5"
    assert _mark_label(3.3e-7, grid, "%.3e") == "3.300e-7"
    # On a grid mark too, a scientific box and its slider write the same text (issue 27 §2).
    assert _mark_label(5e-5, grid, "%.3e") == "5.000e-5"
    assert _mark_label(0.3, log_grid(1e-3, 10.0), "%g") == "0.3"
