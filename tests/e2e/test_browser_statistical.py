"""End-to-end: the Statistical privacy page in Chromium (tabs, controls, URL, bad input)."""

from __future__ import annotations

from urllib.parse import parse_qs, quote_plus, urlparse

from tests.e2e.helpers import (
    errors_on_page,
    exceptions_on_page,
    plot_text_appears,
    plot_texts,
    plot_texts_showing,
    screenshot,
    settle,
)

PI_TAB = "δ against π (Figures 1–4, 6)"
EU_TAB = "Equal utility (Figures 5, 7, 8)"


def _charts_drawn(page) -> None:
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')


def _screenshot_each_chart(page, stem: str) -> None:
    """Streamlit scrolls inside its main block, so bring each chart into view in turn."""
    charts = page.locator('[data-testid="stPlotlyChart"]')
    for i in range(charts.count()):
        charts.nth(i).scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        screenshot(page, f"{stem}_chart{i + 1}")


def test_statistical_controls_change_charts_and_url(page, app_url):
    page.goto(f"{app_url}/statistical?sp_n=1000&sp_lambda=0.1")
    settle(page)
    _charts_drawn(page)
    assert plot_text_appears(page, "n = 100 of N = 1,000"), plot_texts(page)[-400:]
    box = page.get_by_role("spinbutton", name="Records N")
    box.fill("200")
    box.press("Enter")
    settle(page)
    _charts_drawn(page)
    assert plot_text_appears(page, "n = 20 of N = 200"), plot_texts(page)[-400:]
    assert parse_qs(urlparse(page.url).query).get("sp_n") == ["200"]
    assert errors_on_page(page) == []

    page.get_by_role("button", name="Figs 3–4: Laplace").click()
    settle(page)
    _charts_drawn(page)
    plot_texts_showing(page, "Laplace noise: δ against π", "N = 1,000")
    assert exceptions_on_page(page) == []
    screenshot(page, "statistical_preset_laplace")


def test_statistical_bad_input_is_explained(page, app_url):
    view = quote_plus(PI_TAB)
    page.goto(
        f"{app_url}/statistical?sp_view={view}&sp_nus=abc%2C%20-2%2C%203&sp_n=5&sp_lambda=0.01"
    )
    settle(page)
    _charts_drawn(page)
    warnings = page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
    assert any("not a number" in w for w in warnings)
    assert any("empty sample" in w for w in warnings)
    assert plot_text_appears(page, "ν = 3, statistical"), plot_texts(page)[-400:]
    assert exceptions_on_page(page) == []
    screenshot(page, "statistical_bad_input")
