"""A copied link reproduces the page: every preset of every page, checked generically.

For each page of the router and each preset button on any of its tabs: click the preset, take
the URL query the app wrote, open a fresh session with only that query, and compare every
keyed control's value and every tab container's selected tab. New pages and presets are covered
without new test code (presets are the buttons made by ``ui.widgets.preset_buttons``).

Break it on purpose: make ``ui.widgets.write_presets_to_url`` return at once, and the Gains
presets fail here (their controls sit on a tab the click opens, so the URL keeps only the tab).
"""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.harness import open_page, tab_containers, tab_queries
from ui.router import PAGES

#: Widget kinds whose keyed instances must agree between the two sessions.
WIDGET_KINDS = (
    "checkbox",
    "multiselect",
    "number_input",
    "radio",
    "select_slider",
    "selectbox",
    "slider",
    "text_area",
    "text_input",
    "toggle",
)
#: The upload form lives in one browser tab's session by design (uploads never go in links);
#: so do the lessons' predictions (a shared lesson link must not answer its question).
SESSION_ONLY_PREFIXES = ("up_", "lesson_pred_")
PRESET_MARK = "_preset_"


def shown_state(at: AppTest) -> dict[str, Any]:
    """Every keyed control's value and every keyed tab container's selected tab."""
    state: dict[str, Any] = {}
    for kind in WIDGET_KINDS:
        for element in at.get(kind):
            key = element.key
            if key and not key.startswith(SESSION_ONLY_PREFIXES):
                state[key] = element.value
    for root in (at.main, at.sidebar):
        for container in tab_containers(root):
            proto = container.proto.tab_container
            if proto.query_param_key:
                state[f"tab:{proto.query_param_key}"] = proto.default_tab_index
    return state


def _presets(at: AppTest) -> list[tuple[str, str]]:
    return [(b.key, b.label) for b in at.button if b.key and PRESET_MARK in b.key]


def _url_query(at: AppTest) -> dict[str, Any]:
    return {key: at.query_params[key] for key in at.query_params}


@pytest.mark.parametrize("page", [spec.script for spec in PAGES])
def test_every_preset_writes_a_link_that_reproduces_the_page(page: str) -> None:
    seen: set[str] = set()
    checked = 0
    for query in tab_queries(open_page(page)):
        at = open_page(page, query)
        for key, label in _presets(at):
            if key in seen:
                continue
            seen.add(key)
            clicked = open_page(page, query)
            clicked.button(key=key).click().run()
            assert not clicked.exception, [e.value for e in clicked.exception]
            link = _url_query(clicked)
            fresh = open_page(page, link)
            expected, got = shown_state(clicked), shown_state(fresh)
            differing = {
                k: (expected.get(k), got.get(k))
                for k in expected.keys() | got.keys()
                if expected.get(k) != got.get(k)
            }
            assert not differing, (
                f"{page}: after the preset {label!r} the link ?{link} opens a different page "
                f"(control: (after the click, from the link)): {differing}"
            )
            checked += 1
    if page.endswith(("overview.py", "about.py", "lessons.py")):
        return  # pages without presets
    assert checked, f"{page} has no preset buttons any more; update this test's page list"


#: Controls that mirror a URL-bound control and need no parameter of their own: the slider
#: beside each exact-value box of ``ui.widgets.log_float_control``.
MIRROR_SUFFIX = "__slider"


@pytest.mark.parametrize("page", [spec.script for spec in PAGES])
def test_every_control_on_every_tab_is_bound_to_the_url(page: str) -> None:
    """Controls in expanders and on tabs not shown by default are in the URL too."""
    unbound: dict[str, list[str]] = {}
    for query in tab_queries(open_page(page)):
        at = open_page(page, query)
        for kind in WIDGET_KINDS:
            for element in at.get(kind):
                key = element.key
                if not key or key.startswith(SESSION_ONLY_PREFIXES) or key.endswith(MIRROR_SUFFIX):
                    continue
                if getattr(element.proto, "query_param_key", "") != key:
                    unbound.setdefault(str(query or "default view"), []).append(key)
    assert not unbound, f"{page}: controls missing from the URL: {unbound}"
