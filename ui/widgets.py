"""Controls whose values live in the URL, so that a copied link reproduces the page.

Every control here is bound with ``bind="query-params"``: its key is the query-parameter name.
Values equal to the default are left out of the URL by Streamlit, which keeps links short.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import streamlit as st
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state import get_session_state
from streamlit.runtime.state.query_params import _coerce_value_for_query_url

from ui.theme import NESTED_RESULTS, RESULT_PREFIX, stale_css

#: Mantissas of the log-scale grid: every decade holds 1, 1.5, 2, 3, 5 and 7 so that the values
#: the papers use (0.1, 0.5, 1, 2, 3, 5) sit exactly on the slider.
_MANTISSAS = (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)


def log_grid(min_value: float, max_value: float) -> list[float]:
    """Values ``m·10^k`` (m in 1, 1.5, 2, 3, 5, 7) between the bounds, both bounds included."""
    if not (0 < min_value < max_value):
        raise ValueError(f"log_grid needs 0 < min_value < max_value, got {min_value}, {max_value}")
    lo, hi = math.floor(math.log10(min_value)), math.ceil(math.log10(max_value))
    values = {float(f"{m * 10.0**k:.6g}") for k in range(lo, hi + 1) for m in _MANTISSAS}
    inside = {v for v in values if min_value <= v <= max_value}
    return sorted(inside | {float(min_value), float(max_value)})


def _nearest(grid: Sequence[float], value: float) -> float:
    logs = np.log10(np.asarray(grid))
    return float(grid[int(np.argmin(np.abs(logs - math.log10(value))))])


def _with_mark(grid: Sequence[float], value: float) -> list[float]:
    """The slider's marks: the grid, and ``value`` itself where it lies between two marks."""
    if value in grid or not grid[0] <= value <= grid[-1]:
        return list(grid)
    return sorted([*grid, value])


def _mark_label(value: float, grid: Sequence[float], fmt: str) -> str:
    """A slider mark as its exact-value box writes it, so that the two show the same text.

    A box in scientific form (``fmt`` ``"%.3e"``, the δ boxes) writes every mark, on the
    grid or typed between marks, as the box does, exponent unpadded: "5.000e-5",
    "4.999e-5". A box in the general form (``"%g"``) leaves grid marks plain ("0.3", "1");
    a typed value between marks is written in ``fmt``.
    """
    if value in grid and "e" not in fmt:
        return f"{value:g}"
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", fmt % value)


def _slider_key(key: str) -> str:
    return f"{key}__slider"


#: Key prefix of the containers that hold a hidden exact-value box; ``ui.theme.APP_CSS``
#: hides every element whose key starts with it.
HIDDEN_BOX_PREFIX = "hidden_box_"


def _box_columns(key: str, exact: bool) -> tuple[Any, Any]:
    """Where a log control draws its slider and its exact-value box.

    With ``exact``, side by side. Without, the slider gets the whole width and the box goes
    into a container that the app's CSS hides: the box is still drawn, so it keeps its value
    and its place in the URL, and a link that carries a value off the slider's marks still
    reproduces it exactly.
    """
    if exact:
        left, right = st.columns([3, 1.4], vertical_alignment="bottom")
        return left, right
    return st.container(), st.container(key=f"{HIDDEN_BOX_PREFIX}{key}")


def result_container(name: str) -> DeltaGenerator:
    """A container for the results computed from the controls drawn before it.

    A number box refuses a typed value outside its range in the browser itself (it turns red
    and says which values it takes), so the server never sees the value and the results on
    screen still belong to the last valid input. The CSS sent with the container
    (``ui.theme.stale_css``) greys out, and captions as out of date, the container when it
    comes after such a box, until the value is fixed; a box inside the container greys what
    follows it there. A container named in ``ui.theme.NESTED_RESULTS`` is drawn inside
    another and sends no rules of its own. ``name`` must be unique on the page (the
    container's key is ``RESULT_PREFIX + name``).
    """
    if name not in NESTED_RESULTS:
        # Style alone: Streamlit puts it in the page's event container, not in the layout.
        st.html(f"<style>{stale_css(name)}</style>")
    return st.container(key=f"{RESULT_PREFIX}{name}")


def log_float_control(
    label: str,
    key: str,
    *,
    default: float,
    min_value: float,
    max_value: float,
    help: str | None = None,
    fmt: str = "%g",
    exact: bool = True,
) -> float:
    """A log-scale slider with an exact-entry box beside it; returns the exact value.

    The number box is the source of truth and is bound to the URL under ``key``; the slider
    snaps to a 1-1.5-2-3-5-7 grid per decade and writes into the box when moved. A value in the
    box between two marks (typed, or a default such as δ_target = 1/(2N)) becomes a mark of its
    own, so the slider stands on it and shows the number the box shows.
    With ``exact=False`` the box is drawn but hidden (:func:`_box_columns`): the slider alone
    takes the width, and the value still lives in the URL under ``key``.
    """
    grid = log_grid(min_value, max_value)
    slider_key = _slider_key(key)

    def from_slider() -> None:
        st.session_state[key] = float(st.session_state[slider_key])

    def from_number() -> None:
        st.session_state[slider_key] = float(st.session_state[key])

    col_slider, col_number = _box_columns(key, exact)
    with col_number:
        value = st.number_input(
            "exact value",
            min_value=float(min_value),
            max_value=float(max_value),
            value=float(default),
            format=fmt,
            key=key,
            bind="query-params",
            on_change=from_number,
            help=f"{label}: type any value from {min_value:g} to {max_value:g}; the slider "
            "stands on it.",
        )
    if value is None:  # defensive: an emptied box falls back to the default
        value = float(default)
    marks = _with_mark(grid, float(value))
    if st.session_state.get(slider_key) not in marks:
        st.session_state[slider_key] = _nearest(marks, value)
    with col_slider:
        st.select_slider(
            label,
            options=marks,
            key=slider_key,
            format_func=lambda v: _mark_label(v, grid, fmt),
            on_change=from_slider,
            help=help,
        )
    return float(value)


_SPLIT = re.compile(r"[,;\s]+")


def float_list_input(
    label: str,
    key: str,
    *,
    default: Sequence[float],
    min_value: float,
    max_value: float,
    max_items: int = 8,
    help: str | None = None,
) -> list[float]:
    """A comma-separated list of numbers, bound to the URL; returns the valid values sorted.

    Entries that are not numbers or fall outside ``[min_value, max_value]`` are reported on the
    page and skipped; if nothing valid remains, the default list is used and the user is told.
    """
    default_text = ", ".join(f"{v:g}" for v in default)
    text = st.text_input(
        label,
        value=default_text,
        key=key,
        bind="query-params",
        help=help or f"Numbers between {min_value:g} and {max_value:g}, separated by commas.",
    )
    values, problems = parse_float_list(text or "", min_value=min_value, max_value=max_value)
    if len(values) > max_items:
        problems.append(f"only the first {max_items} values are used")
        values = values[:max_items]
    if problems:
        st.warning(f"{label}: " + "; ".join(problems) + ".", icon=":material/warning:")
    if not values:
        st.info(f"Using the default values {default_text}.")
        values = sorted(float(v) for v in default)
    return values


def parse_float_list(
    text: str, *, min_value: float, max_value: float
) -> tuple[list[float], list[str]]:
    """Parse ``"0.1, 0.5 1"`` into sorted unique floats and a list of readable problems."""
    values: set[float] = set()
    problems: list[str] = []
    for token in (t for t in _SPLIT.split(text.strip()) if t):
        try:
            v = float(token)
        except ValueError:
            problems.append(f"“{token[:20]}” is not a number")
            continue
        if not math.isfinite(v) or not (min_value <= v <= max_value):
            problems.append(f"{token[:20]} is outside {min_value:g}…{max_value:g}")
            continue
        values.add(v)
    return sorted(values), problems


def log_int_control(
    label: str,
    key: str,
    *,
    default: int,
    min_value: int,
    max_value: int,
    help: str | None = None,
    exact: bool = True,
) -> int:
    """A log-scale slider over whole numbers with an exact box; the box is bound to the URL.

    The integer twin of :func:`log_float_control` (same ``<key>__slider`` naming,
    so :func:`preset_buttons` resynchronises it; same ``exact``; a whole number between two
    marks becomes a mark of its own, so the slider shows the box's number).
    """
    grid = sorted({round(v) for v in log_grid(min_value, max_value)})
    slider_key = f"{key}__slider"

    def nearest(marks: Sequence[int], value: float) -> int:
        return min(marks, key=lambda g: abs(math.log(g) - math.log(max(value, 1))))

    def from_slider() -> None:
        st.session_state[key] = int(st.session_state[slider_key])

    def from_number() -> None:
        st.session_state[slider_key] = int(st.session_state[key])

    col_slider, col_number = _box_columns(key, exact)
    with col_number:
        value = st.number_input(
            "exact value",
            min_value=min_value,
            max_value=max_value,
            value=default,
            step=1,
            key=key,
            bind="query-params",
            on_change=from_number,
            help=f"{label}: type any whole number from {min_value:,} to {max_value:,}; the "
            "slider stands on it.",
        )
    if value is None:  # an emptied box falls back to the default
        value = default
    marks = [int(v) for v in _with_mark(grid, int(value))]
    if st.session_state.get(slider_key) not in marks:
        st.session_state[slider_key] = nearest(marks, value)
    with col_slider:
        st.select_slider(
            label,
            options=marks,
            key=slider_key,
            format_func=lambda v: f"{v:,}",
            on_change=from_slider,
            help=help,
        )
    return int(value)


def bound_toggle(label: str, key: str, *, default: bool, help: str | None = None) -> bool:
    """A toggle bound to the URL."""
    return st.toggle(
        label,
        value=default,
        key=key,
        bind="query-params",
        help=help,
    )


#: Session-state key of the keys the last preset set, waiting for :func:`write_presets_to_url`.
_PENDING_URL = "_preset_keys_for_url"


def set_controls(values: Mapping[str, Any]) -> None:
    """Set control values by key (for presets); log sliders resynchronise from their boxes.

    The keys are also queued for :func:`write_presets_to_url`, which puts the values into the
    URL once the page has drawn the controls.
    """
    for key, value in values.items():
        st.session_state[key] = value
        st.session_state.pop(_slider_key(key), None)
    st.session_state[_PENDING_URL] = tuple(values)


def write_presets_to_url() -> None:
    """Write the values the last preset set into the URL; the router calls it after each page.

    A preset usually sets controls that were not drawn in the previous run (on the tab it
    opens, in a view it switches to). Streamlit binds such a control to the URL when it is
    first drawn but leaves a value that code gave it out of the URL, so a copied link would
    open the defaults. Once the page has run, every control the preset set has been drawn and
    bound; this writes each one's value into the URL exactly as Streamlit would after a click
    (its own serialiser; a default value is removed, as Streamlit keeps links short).

    This reads Streamlit's session state below its public API (pinned in requirements.txt;
    ``tests/pages/test_url_reproduction.py`` checks every preset of every page through it).
    """
    keys = st.session_state.pop(_PENDING_URL, None)
    if not keys:
        return
    state = get_session_state()._state  # SessionState behind the thread-safe wrapper
    for key in keys:
        widget_id = state.get_widget_id_from_key(key)
        metadata = state.get_widget_metadata(widget_id) if widget_id else None
        if widget_id is None or metadata is None or metadata.bind != "query-params":
            continue  # not drawn on this page (or not URL-bound): nothing to write
        value = state.get_widget_value(widget_id)
        if value == metadata.deserializer(None):
            state.query_params.remove_param(key)
        else:
            state.query_params.set_corrected_value(
                key, metadata.serializer(value), metadata.value_type
            )


def reproducing_query() -> dict[str, list[str]]:
    """The whole state of the page so far as URL parameters, the defaults included.

    The browser's address leaves out every control at its default (Streamlit keeps links
    short), so it reproduces the page only while the defaults stay what they are. This lists
    every URL-bound control drawn so far in this run (the sidebar's and the page's, the open
    tab), each with its current value serialised exactly as Streamlit writes it into the URL
    (a list for a multiselect), plus any other parameter the address already carries. Call
    it after the controls that matter have been drawn; a control drawn later is not in it.

    Like :func:`write_presets_to_url` this reads Streamlit's session state below its public
    API (pinned in requirements.txt; ``tests/pages/test_planner_page.py`` opens a link built
    here and finds every control at its value).
    """
    query = {key: list(st.query_params.get_all(key)) for key in st.query_params}
    ctx = get_script_run_ctx()
    if ctx is None:
        return query
    state = get_session_state()._state  # SessionState behind the thread-safe wrapper
    bound: dict[str, list[str]] = {}
    for widget_id in ctx.shared.widget_ids_this_run.snapshot():
        binding = state.query_params.get_binding_for_widget(widget_id)
        metadata = state.get_widget_metadata(widget_id)
        if binding is None or metadata is None or metadata.bind != "query-params":
            continue
        try:
            value = state.get_widget_value(widget_id)
        except KeyError:  # registered but holding no value yet
            continue
        written = _coerce_value_for_query_url(metadata.serializer(value), binding.value_type)
        bound[binding.param_key] = [written] if isinstance(written, str) else list(written)
    query.update(sorted(bound.items()))
    return query


def preset_buttons(presets: Mapping[str, Mapping[str, Any]], *, key: str) -> None:
    """A row of buttons, each setting a group of controls to a paper's settings."""
    if not presets:
        return
    cols = st.columns(len(presets))
    for i, (name, values) in enumerate(presets.items()):
        callback: Callable[..., None] = set_controls
        cols[i].button(
            name,
            key=f"{key}_preset_{i}",
            on_click=callback,
            args=(values,),
            icon=":material/tune:",
            width="stretch",
        )
