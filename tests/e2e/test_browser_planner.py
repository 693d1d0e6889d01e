"""End-to-end: the Release planner in Chromium — loads from a URL, every tab renders, ε_target
moves the chart and the URL, and screenshots at desktop, laptop (1280×720) and phone
(390×844) widths are saved for a look."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

from tests.e2e.helpers import errors_on_page, exceptions_on_page, plot_texts, screenshot, settle
from tests.e2e.test_layout import MEASURE, SLACK
from ui.planner.text import TABS

#: Fewer repetitions keep the browser runs short; the numbers are still core's.
FAST = "plan_reps=50"


def _wait_for_chart(page) -> None:
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')


def _main_text(page) -> str:
    return page.locator('[data-testid="stMainBlockContainer"]').inner_text()


def test_planner_loads_and_eps_target_moves_the_chart_and_the_url(page, app_url):
    page.goto(f"{app_url}/planner?{FAST}")
    settle(page)
    _wait_for_chart(page)
    assert page.get_by_role("heading", name="Release planner").first.is_visible()
    assert errors_on_page(page) == []
    main = _main_text(page)
    assert "Privatise" in main and "Bun et al. §7" in main
    texts = plot_texts(page)
    assert "best plan" in texts and "census" in texts
    before = texts
    screenshot(page, "planner_compare")

    box = page.get_by_role("spinbutton", name="exact value").first
    box.fill("0.2")
    box.press("Enter")
    settle(page)
    _wait_for_chart(page)
    assert parse_qs(urlparse(page.url).query).get("plan_eps") == ["0.2"]
    after = plot_texts(page)
    assert "ε_target = 0.2" in after and after != before
    assert errors_on_page(page) == []
    screenshot(page, "planner_compare_eps_0.2")


def test_planner_every_tab_renders(page, app_url):
    page.goto(f"{app_url}/planner?{FAST}")
    settle(page)
    _wait_for_chart(page)
    for tab, name, words in (
        ("Accuracy first", "planner_accuracy", "smallest ε_target"),
        ("Several statistics", "planner_several", "composition happens on the sample"),
    ):
        page.get_by_role("tab", name=tab).click()
        settle(page, timeout=120)
        _wait_for_chart(page)
        assert exceptions_on_page(page) == [], tab
        assert errors_on_page(page) == [], tab
        assert parse_qs(urlparse(page.url).query).get("plan_view") == [tab]
        assert words in _main_text(page), tab
        screenshot(page, name)


def test_planner_every_tab_fits_laptop_and_phone_width(browser, app_url):
    """tests/e2e/test_layout.py measures the default tab only; this measures all three."""
    for label, width, height in (("laptop", 1280, 720), ("phone", 390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(60_000)
        try:
            for tab, shot in zip(TABS, ("compare", "accuracy", "several"), strict=True):
                page.goto(f"{app_url}/planner?{FAST}&plan_view={quote(tab)}")
                settle(page, timeout=120)
                _wait_for_chart(page)
                page.evaluate("document.fonts.ready")
                assert errors_on_page(page) == []
                problems = page.evaluate(MEASURE, SLACK)
                assert not problems, f"{tab} at {label} width: {problems}"
                screenshot(page, f"planner_{shot}_{label}")
        finally:
            context.close()


def test_planner_odds_next_to_the_recommendation_on_laptop_and_phone(browser, app_url):
    """Issue 16 item 3: ε_target and the plan's ε_sample as odds; the prior comes from the URL."""
    for label, width, height in (("laptop", 1280, 720), ("phone", 390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(60_000)
        try:
            page.goto(f"{app_url}/planner?{FAST}&plan_prior=0.001")
            settle(page, timeout=120)
            _wait_for_chart(page)
            page.evaluate("document.fonts.ready")
            odds = page.locator('[data-testid="stAlertContentInfo"]', has_text="at most")
            assert "someone who thought it 1 in 1,000" in odds.first.inner_text()
            assert errors_on_page(page) == [] and exceptions_on_page(page) == []
            problems = page.evaluate(MEASURE, SLACK)
            assert not problems, f"planner odds at {label} width: {problems}"
            odds.first.scroll_into_view_if_needed()
            screenshot(page, f"planner_odds_{label}")
        finally:
            context.close()
