"""The Release planner's tabs run as fragments: a control inside a tab reruns that tab only.

AppTest always reruns the whole script when a widget changes; a browser reruns only the
fragment that holds the widget. :func:`fragment_rerun` plays the browser's request (the
widget's fragment id in the rerun's queue), so these tests see what a user's change inside a
tab costs: the page's controls above the tabs, and every other tab, are not run again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest, local_script_runner

from core import planner
from tests.pages.harness import open_page, open_snippets
from ui.planner import inputs, text

PAGE = "app_pages/planner.py"
FAST = {"plan_reps": "50"}
#: One control inside each tab (the publication tab's, on a population without labels, is
#: the button that switches to one).
TAB_CONTROLS = {
    text.COMPARE_TAB: "plan_lines",
    text.ACCURACY_TAB: "plan_target_err",
    text.SEVERAL_TAB: "plan_ms_rate",
    text.PUBLICATION_TAB: "plan_pub_nolabels_preset_0",
}


def fragment_of(at: AppTest, key: str) -> str | None:
    """The id of the fragment that drew the widget ``key`` (None: drawn by the page)."""
    state = at.session_state._state._state  # AppTest's wrapper, its lock, the SessionState
    widget_id = state._key_id_mapper.get_id_from_key(key)
    return state._new_widget_state.widget_metadata[widget_id].fragment_id


def fragment_rerun(at: AppTest, key: str) -> None:
    """Rerun only the fragment holding the widget ``key``, as the browser asks after a change
    of that widget."""
    fragment_id = fragment_of(at, key)
    assert fragment_id is not None, f"{key} is not inside a fragment"
    rerun_data = local_script_runner.RerunData

    def scoped(**kwargs: Any) -> Any:
        return rerun_data(**kwargs, fragment_id_queue=[fragment_id], is_fragment_scoped_rerun=True)

    with mock.patch.object(local_script_runner, "RerunData", scoped):
        at.run()
    assert not at.exception, [e.value for e in at.exception]


@contextmanager
def counted(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> Iterator[list[int]]:
    """Count the calls of ``owner.name`` (a one-element list, read after the block)."""
    calls = [0]
    original: Callable[..., Any] = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    yield calls


def test_every_tab_runs_in_a_fragment_of_its_own():
    fragments = {}
    for tab, key in TAB_CONTROLS.items():
        at = open_page(PAGE, {**FAST, "plan_view": tab})
        fragments[tab] = fragment_of(at, key)
    assert None not in fragments.values(), fragments
    assert len(set(fragments.values())) == len(fragments), fragments


def test_a_control_inside_a_tab_reruns_that_tab_only(monkeypatch):
    """A new target error on the Accuracy first tab runs the search again, but neither the
    page's controls above the tabs (the designs are not checked again) nor another tab's
    plan."""
    with (
        counted(monkeypatch, inputs, "chosen_designs") as page_runs,
        counted(monkeypatch, planner, "smallest_eps_target") as searches,
        counted(monkeypatch, planner, "plan") as plans,
    ):
        # A target no other test asks for: the search is not cached. (Both targets lie where
        # the median is usable, so the answer states the target it met.)
        query = {**FAST, "plan_target_err": "11.11", "plan_view": text.ACCURACY_TAB}
        at = open_page(PAGE, query)
        assert page_runs[0] == 1 and searches[0] == 1
        at.number_input(key="plan_target_err").set_value(12.34)
        fragment_rerun(at, "plan_target_err")
    assert searches[0] == 2  # the tab answered the new target
    assert page_runs[0] == 1  # the page above the tabs did not run again
    assert plans[0] == 0  # nor did the Compare designs tab
    assert any("±12.3 " in s.value for s in [*at.success, *at.info])


def test_controls_that_do_not_enter_the_plan_do_not_recompute_it(monkeypatch):
    """The usable share (above the tabs: the whole page reruns), the prior and the chart's
    lines (inside the tab) change what is shown from the plan, never the plan."""
    with counted(monkeypatch, planner, "plan") as plans:
        at = open_page(PAGE, {**FAST, "plan_eps": "0.913"})  # a plan no other test caches
        assert plans[0] == 1
        at.number_input(key="plan_usable").set_value(20).run()
        at.number_input(key="plan_prior").set_value(0.2)
        fragment_rerun(at, "plan_prior")
        lines = at.selectbox(key="plan_lines")
        lines.set_value(lines.options[-1])
        fragment_rerun(at, "plan_lines")
    assert plans[0] == 1


def test_the_link_after_a_rerun_of_the_tab_keeps_the_pages_controls():
    """The link to the plan is drawn inside the Compare designs tab; after a rerun of that
    tab alone it still carries the controls above the tabs, defaults included."""
    url = "http://localhost:8501/planner"
    at = AppTest.from_string(
        "from ui.router import run_app\nrun_app(default_page='app_pages/planner.py')\n",
        default_timeout=120,
    )
    at.context = {"url": url}
    at.query_params.update({**FAST, "plan_eps": "0.3"})
    at.run()
    open_snippets(at)  # the link is sent once its expander is open
    assert not at.exception, [e.value for e in at.exception]

    def link() -> dict[str, list[str]]:
        (shown,) = [c.value for c in at.code if c.value.startswith(url)]
        return parse_qs(urlsplit(shown).query, keep_blank_values=True)

    before = link()
    at.number_input(key="plan_prior").set_value(0.2)
    fragment_rerun(at, "plan_prior")
    after = link()
    assert {"population", "seed", "plan_eps", "plan_delta", "plan_reps", "plan_view"} <= set(after)
    assert after["plan_eps"] == ["0.3"] and after["plan_prior"] == ["0.2"]
    assert {k: v for k, v in after.items() if k != "plan_prior"} == {
        k: v for k, v in before.items() if k != "plan_prior"
    }


def test_the_publication_tabs_way_out_of_a_population_without_labels_reruns_the_page():
    """The button on the Publication table tab switches the sidebar's population: from inside
    the tab's fragment it must run the whole page again, which then plans the cells."""
    at = open_page(PAGE, {**FAST, "plan_view": text.PUBLICATION_TAB})
    assert not [m for m in at.multiselect if m.key == "plan_pub_groups"]  # no cells to group
    at.button(key="plan_pub_nolabels_preset_0").click()
    fragment_rerun(at, "plan_pub_nolabels_preset_0")
    groups = [m for m in at.multiselect if m.key == "plan_pub_groups"]
    assert groups and groups[0].value  # the tab now groups the establishments' cells
