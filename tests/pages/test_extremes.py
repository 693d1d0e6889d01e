"""Every numeric control of every page and tab at its extremes: no traceback anywhere.

The widgets are discovered, not listed, so a page added later is covered automatically. For
each tab of each page, every number input, slider and select-slider is set to its smallest and
then its largest allowed value (one at a time, the others at their defaults), and the page must
rerun without an exception. Invalid combinations may show a warning or an error box — that is
the page explaining itself — but never a traceback.
"""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.harness import ROOT, open_page
from ui.router import PAGES

#: Every registered page (the router raises if one of them has no file).
EXISTING = [spec.script for spec in PAGES]

#: Not parameters of a computation (the seed is exercised by the browser tests).
SKIP_KEYS = {"seed"}
#: The log sliders mirror their exact-value boxes, which are tested directly.
SLIDER_MIRROR = "__slider"
_TAB_KEY = re.compile(r"st\.tabs\((?:.|\n)*?key=\"([^\"]+)\"(?:.|\n)*?bind=\"query-params\"")


def _parse(option: str) -> object:
    for cast in (int, float):
        try:
            return cast(option)
        except ValueError:
            pass
    return option


def _numeric_controls(at: AppTest) -> list[tuple[str, str, object, object]]:
    """(kind, key, smallest, largest) of every keyed numeric control on the page."""
    found: list[tuple[str, str, object, object]] = []
    for w in at.number_input:
        if w.key and w.key not in SKIP_KEYS:
            lo = w.min if w.min is not None else -1e12
            hi = w.max if w.max is not None else 1e12
            found.append(("number_input", w.key, lo, hi))
    for w in at.slider:
        if w.key and w.key not in SKIP_KEYS:
            found.append(("slider", w.key, w.min, w.max))
    for w in at.select_slider:
        if w.key and w.key not in SKIP_KEYS and not w.key.endswith(SLIDER_MIRROR) and w.options:
            found.append(("select_slider", w.key, _parse(w.options[0]), _parse(w.options[-1])))
    return found


def _tab_queries(page: str) -> list[dict[str, str]]:
    """One URL query per tab of the page's URL-bound tab group (or one empty query)."""
    match = _TAB_KEY.search((ROOT / page).read_text())
    if not match:
        return [{}]
    labels = [t.label for t in open_page(page).tabs]
    return [{match.group(1): label} for label in labels] or [{}]


CASES = [(page, q) for page in EXISTING for q in _tab_queries(page)]


@pytest.mark.parametrize(
    ("page", "query"),
    CASES,
    ids=[f"{p.split('/')[-1]}:{next(iter(q.values()), 'page')}" for p, q in CASES],
)
def test_numeric_controls_at_their_extremes(page, query):
    controls = _numeric_controls(open_page(page, query))
    for kind, key, lo, hi in controls:
        for value in (lo, hi):
            at = open_page(page, query)
            getattr(at, kind)(key=key).set_value(value)
            at.run()
            assert not at.exception, (key, value, [e.value for e in at.exception])
