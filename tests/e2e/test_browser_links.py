"""End-to-end: a preset's link, opened in a fresh browser, shows the same controls.

The AppTest version (tests/pages/test_url_reproduction.py) covers every preset of every page;
this checks the same promise through the real frontend, whose URL handling AppTest does not run.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlparse

from tests.e2e.helpers import errors_on_page, screenshot, settle

EXPERIMENT_TAB = "Median: sample or population?"
BOXES = ("ε_target values", "Sampling rates n/N")


def _box(page, label: str) -> str:
    return page.get_by_role("textbox", name=label).input_value()


def _boxes_once_filled(page, labels: tuple[str, ...], timeout: float = 60.0) -> tuple[str, ...]:
    """The boxes' values once every one holds text (a loaded server fills them one by one)."""
    deadline = time.monotonic() + timeout
    values = tuple(_box(page, label) for label in labels)
    while not all(values) and time.monotonic() < deadline:
        time.sleep(0.2)
        values = tuple(_box(page, label) for label in labels)
    return values


def test_gains_preset_link_reproduces_the_experiment_in_a_fresh_browser(page, browser, app_url):
    page.goto(f"{app_url}/gains")
    settle(page)
    page.get_by_role("button", name="Figures 6–7 (lognormal)").click()
    settle(page)
    page.get_by_role("textbox", name="Sampling rates n/N").wait_for()
    shown = _boxes_once_filled(page, BOXES)
    assert shown == ("0.1, 0.5, 1", "0.0101, 0.1001")
    query = parse_qs(urlparse(page.url).query)
    assert query.get("gain_exp_eps") == ["0.1, 0.5, 1"], page.url
    assert query.get("gain_reps") == ["1000"], page.url
    screenshot(page, "gains_preset_fig6_7")

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        fresh = context.new_page()
        fresh.set_default_timeout(60_000)
        fresh.goto(page.url)
        settle(fresh)
        fresh.get_by_role("textbox", name="Sampling rates n/N").wait_for()
        assert _boxes_once_filled(fresh, BOXES) == shown
        assert fresh.get_by_role("tab", name=EXPERIMENT_TAB).get_attribute("aria-selected") == (
            "true"
        )
        assert errors_on_page(fresh) == []
    finally:
        context.close()
