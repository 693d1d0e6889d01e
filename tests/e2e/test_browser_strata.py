"""End-to-end: the Stratified sampling page in Chromium — loads from a URL, controls move the
charts and the URL, every tab renders, and a population without strata gets a way out."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from playwright.sync_api import expect

from tests.e2e.helpers import (
    errors_on_page,
    exceptions_on_page,
    plot_text_appears,
    plot_texts,
    plot_texts_showing,
    screenshot,
    settle,
)

EST = "population=Establishments"


def _scroll_to_top_of(locator) -> None:
    """Scroll Streamlit's inner container so ``locator`` sits at the top of the viewport."""
    locator.evaluate("el => el.scrollIntoView({block: 'start'})")


def _wait_for_chart(page) -> None:
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')


def test_strata_page_loads_and_sample_size_moves_the_chart(page, app_url):
    page.goto(f"{app_url}/strata?{EST}")
    settle(page)
    _wait_for_chart(page)
    expect(page.get_by_role("heading", name="Stratified sampling").first).to_be_visible(
        timeout=60_000
    )
    assert errors_on_page(page) == []
    plot_texts_showing(page, "Neyman", "Proportional, randomised rounding")
    main = page.locator('[data-testid="stMainBlockContainer"]').inner_text()
    assert "Accuracy." in main and "Privacy." in main
    screenshot(page, "strata_allocations")
    _scroll_to_top_of(page.get_by_text("Variance of the estimated population mean").first)
    screenshot(page, "strata_variance")

    box = page.get_by_role("spinbutton", name="Total sample size n (the paper's m)")
    box.fill("2000")
    box.press("Enter")
    settle(page)
    assert parse_qs(urlparse(page.url).query).get("strat_m") == ["2000"]
    expect(page.locator('[data-testid="stMainBlockContainer"]')).to_contain_text(
        "n = 2,000", timeout=60_000
    )
    assert errors_on_page(page) == []
    screenshot(page, "strata_allocations_m2000")


def test_strata_every_tab_renders(page, app_url):
    page.goto(f"{app_url}/strata?{EST}")
    settle(page)
    _wait_for_chart(page)
    for tab, name in (
        ("Privacy", "strata_privacy"),
        ("Simulation check", "strata_simulation"),
        ("Random sample size (Theorem 3.1)", "strata_random_size"),
    ):
        page.get_by_role("tab", name=tab).click()
        settle(page)
        _wait_for_chart(page)
        assert exceptions_on_page(page) == [], tab
        assert errors_on_page(page) == [], tab
        assert "strat_view" in parse_qs(urlparse(page.url).query)
        screenshot(page, name)
        if tab == "Privacy":
            plot_texts_showing(page, "moves most", "simple random sample")
            # The page scrolls inside Streamlit's container: capture the lower sections too.
            for heading, shot in (
                ("Neyman's allocation depends on the data", "strata_privacy_neighbour"),
                ("Rounding decides", "strata_privacy_rounding"),
            ):
                _scroll_to_top_of(page.get_by_role("heading", name=heading))
                settle(page, start_timeout=0.0)  # scrolling starts no run: only wait while one runs
                screenshot(page, shot)


def test_strata_counter_example_preset_and_url_state(page, app_url):
    page.goto(f"{app_url}/strata?{EST}&strat_view=Privacy&strat_cx_size=20&strat_eps=2")
    settle(page)
    _wait_for_chart(page)
    main = page.locator('[data-testid="stMainBlockContainer"]')
    expect(main).to_contain_text("2 / 2", timeout=60_000)
    page.get_by_role("button", name="|P| = 14 vs 15, r = 1/10 (§4.3)").click()
    settle(page)
    expect(main).to_contain_text("1 / 2", timeout=60_000)
    assert exceptions_on_page(page) == []
    _scroll_to_top_of(page.get_by_role("heading", name="Rounding decides"))
    settle(page, start_timeout=0.0)  # scrolling starts no run: only wait while one runs
    screenshot(page, "strata_counter_example")


def test_strata_without_strata_offers_the_establishments(page, app_url):
    page.goto(f"{app_url}/strata")
    settle(page)
    expect(page.locator('[data-testid="stMainBlockContainer"]')).to_contain_text("has no strata")
    assert exceptions_on_page(page) == []
    screenshot(page, "strata_no_strata")
    page.get_by_role("button", name="Use the establishments population").click()
    settle(page)
    _wait_for_chart(page)
    assert plot_text_appears(page, "Neyman"), plot_texts(page)[-400:]
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(
        "Synthetic establishments", timeout=60_000
    )
    assert parse_qs(urlparse(page.url).query).get("population") == ["Establishments"]
    assert errors_on_page(page) == []


def test_strata_bad_input_is_explained(page, app_url):
    page.goto(f"{app_url}/strata?{EST}&strat_m=999999")
    settle(page)
    _wait_for_chart(page)
    warnings = page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
    assert any("exceeds the population size" in w for w in warnings)
    assert exceptions_on_page(page) == []
