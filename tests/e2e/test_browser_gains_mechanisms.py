"""End-to-end: the Gains page's mechanism comparison (issue 14) in Chromium.

Loaded by link at a laptop (1280×720) and a phone (390×844) width: the chart draws every
quantile mechanism and the best mark, the verdict is shown, nothing overflows (the same
DOM measurement as ``tests/e2e/test_layout.py``), and choosing another error measure
changes the verdict and goes into the URL. Screenshots: ``artifacts/screenshots/
gains_comparison_*``.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from core import gains
from tests.e2e.helpers import (
    VIEWPORTS,
    errors_on_page,
    exceptions_on_page,
    plot_texts,
    screenshot,
    settle,
)
from tests.e2e.test_layout import MEASURE, SLACK
from ui.gains import text

QUERY = (
    "gain_view=Quantile%3A+which+mechanism%3F&gain_cmp_reps=50"
    "&gain_cmp_rates=0.01%2C+0.1%2C+0.5&gain_cmp_eps=0.5"
)


def _open(browser, url: str, width: int, height: int):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.goto(url)
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    page.evaluate("document.fonts.ready")
    settle(page)
    return context, page


def _main_text(page) -> str:
    return page.locator('[data-testid="stMainBlockContainer"]').inner_text()


@pytest.mark.parametrize(("name", "width", "height"), VIEWPORTS, ids=[v[0] for v in VIEWPORTS])
def test_comparison_view_draws_every_mechanism_and_fits(browser, app_url, name, width, height):
    context, page = _open(browser, f"{app_url}/gains?{QUERY}", width, height)
    try:
        assert errors_on_page(page) == []
        texts = plot_texts(page)
        for mech in gains.mechanisms_with_measure("mse"):
            assert text.MECHANISM_SHORT[mech] in texts, mech
        assert "Left out of this MSE comparison: the unbounded quantile" in _main_text(page)
        assert "best (mechanism, rate)" in texts
        assert "has the smallest MSE" in _main_text(page)
        screenshot(page, f"gains_comparison_{width}x{height}")
        problems = page.evaluate(MEASURE, SLACK)
    finally:
        context.close()
    assert not problems, f"comparison view at {width}×{height} ({name}):\n  " + "\n  ".join(
        problems
    )


def test_comparison_measure_choice_changes_the_verdict_and_the_url(page, app_url):
    page.goto(f"{app_url}/gains?{QUERY}")
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text="Error measure")
    box.click()
    page.get_by_role("option", name=text.MEASURE_LABELS["mae"]).click()
    settle(page)
    expect(page.locator('[data-testid="stMainBlockContainer"]')).to_contain_text(
        "has the smallest mean absolute error", timeout=60_000
    )
    assert "gain_cmp_measure" in parse_qs(urlparse(page.url).query)
    assert exceptions_on_page(page) == [] and errors_on_page(page) == []
    screenshot(page, "gains_comparison_mae")


@pytest.mark.parametrize(("name", "width", "height"), VIEWPORTS, ids=[v[0] for v in VIEWPORTS])
def test_ties_note_on_the_rounded_incomes_fits(browser, app_url, name, width, height):
    """Issue 23: the rounded incomes get the ties note, with its numbers, at both widths."""
    url = f"{app_url}/gains?{QUERY}&population=Lognormal+rounded+%28ties%29"
    context, page = _open(browser, url, width, height)
    try:
        assert errors_on_page(page) == [] and exceptions_on_page(page) == []
        assert "Ties decide the winner" in _main_text(page)
        assert "of the 10,001 records" in _main_text(page)
        page.get_by_text("Ties decide the winner").scroll_into_view_if_needed()
        screenshot(page, f"gains_ties_{width}x{height}")
        problems = page.evaluate(MEASURE, SLACK)
    finally:
        context.close()
    assert not problems, f"ties note at {width}×{height} ({name}):\n  " + "\n  ".join(problems)
