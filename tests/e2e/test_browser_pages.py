"""End-to-end: every page loads in Chromium, controls change charts, the URL carries state."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlparse

from playwright.sync_api import expect

from tests.e2e.helpers import (
    errors_on_page,
    exceptions_on_page,
    plot_text_appears,
    plot_texts,
    plot_texts_showing,
    screenshot,
    settle,
    upload_and_use,
    upload_file,
)
from tests.e2e.test_layout import MEASURE, SLACK

GOOD_CSV = "income,region\n" + "\n".join(f"{1000 + 37 * i % 900},{'ABC'[i % 3]}" for i in range(60))


def test_population_page_loads_and_bins_slider_moves(page, app_url):
    page.goto(app_url)
    settle(page)
    expect(page.get_by_role("heading", name="The population")).to_be_visible(timeout=60_000)
    nav = page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert "Mean & median gains" in nav and "overview" not in nav  # our router, not auto-nav
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    assert errors_on_page(page) == []
    screenshot(page, "population_default")

    slider = page.locator('[data-testid="stSlider"] input[type="range"]').first
    before = slider.input_value()
    slider.focus()
    for _ in range(4):
        slider.press("ArrowRight")
    settle(page)
    after = slider.input_value()
    assert after != before
    assert "pop_bins" in parse_qs(urlparse(page.url).query)
    assert errors_on_page(page) == []


def test_switching_population_in_sidebar(page, app_url):
    page.goto(f"{app_url}/?population=Bimodal&seed=3")
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(
        "median in the gap", timeout=60_000
    )
    assert errors_on_page(page) == []
    screenshot(page, "population_bimodal_seed3")


def test_upload_good_and_bad_csv(page, app_url, tmp_path):
    page.goto(app_url)
    settle(page)
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"\x00\x01\x02garbage\xff\xfe")
    upload_file(page, bad)
    assert exceptions_on_page(page) == []
    assert any("cannot be used" in t for t in errors_on_page(page))
    screenshot(page, "population_upload_bad")

    good = tmp_path / "incomes.csv"
    good.write_text(GOOD_CSV)
    upload_and_use(page, good)
    assert exceptions_on_page(page) == []
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(
        "Your file: incomes.csv", timeout=60_000
    )
    screenshot(page, "population_uploaded")

    # The uploaded population follows the user to another page.
    page.get_by_role("link", name="Amplification").click()
    settle(page)
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(
        "Your file: incomes.csv", timeout=60_000
    )
    assert exceptions_on_page(page) == []


def test_amplification_page_controls_change_charts(page, app_url):
    page.goto(f"{app_url}/amplification")
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    assert errors_on_page(page) == []
    assert plot_text_appears(page, "ε_target = 0.5"), plot_texts(page)[-400:]
    screenshot(page, "amplification_default")

    box = page.get_by_role("textbox", name="Target ε values (ε_target)")
    box.fill("0.2, 2")
    box.press("Enter")
    settle(page)
    plot_texts_showing(page, "ε_target = 2", gone=("ε_target = 0.5",))
    assert parse_qs(urlparse(page.url).query).get("amp_eps_targets") == ["0.2, 2"]
    assert errors_on_page(page) == []

    page.get_by_role("tab", name="Reverse view and calculator").click()
    settle(page)
    assert plot_text_appears(page, "ε_sample = 5"), plot_texts(page)[-400:]
    assert "amp_view" in parse_qs(urlparse(page.url).query)
    screenshot(page, "amplification_reverse")
    page.get_by_role("tab", name="Steinke: limits of amplification").click()
    settle(page)
    assert plot_text_appears(page, "log(1+2)/2"), plot_texts(page)[-400:]
    screenshot(page, "amplification_steinke")


def test_a_snippet_is_sent_when_opened_and_stays_open(page, app_url):
    """The "Reproduce in Python" code is not on the page until the reader opens it; opening
    reruns the page and shows it, and it stays shown after the next change."""
    page.goto(f"{app_url}/amplification")
    settle(page)
    code = page.locator('[data-testid="stCode"]')
    assert code.count() == 0
    page.get_by_text("Reproduce in Python").click()
    settle(page)
    expect(code.first).to_contain_text("from core import", timeout=60_000)
    box = page.get_by_role("textbox", name="Target ε values (ε_target)")
    box.fill("0.2, 2")
    box.press("Enter")
    settle(page)
    expect(code.first).to_contain_text("0.2", timeout=60_000)
    assert errors_on_page(page) == []


def test_amplification_url_reproduces_state_and_bad_entries_are_explained(page, app_url):
    page.goto(f"{app_url}/amplification?amp_eps_targets=0.3%2C%20abc%2C%20-1&amp_log_x=true")
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    assert plot_text_appears(page, "ε_target = 0.3"), plot_texts(page)[-400:]
    warnings = page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
    assert any("not a number" in w for w in warnings)
    assert exceptions_on_page(page) == []
    screenshot(page, "amplification_from_url")


def test_amplification_odds_tab_reads_eps_as_odds_on_laptop_and_phone(browser, app_url):
    """Issue 16 item 3: the 'ε as odds' tab from a URL, the prior moved, both widths."""
    for label, width, height in (("laptop", 1280, 720), ("phone", 390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(60_000)
        try:
            page.goto(f"{app_url}/amplification?amp_view={quote('ε as odds')}")
            settle(page)
            page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
            page.evaluate("document.fonts.ready")
            main = page.locator('[data-testid="stMainBlockContainer"]')
            expect(main).to_contain_text("at most 2.67 in 100 sure", timeout=60_000)
            assert plot_text_appears(page, "ε_sample = 5.15"), plot_texts(page)[-400:]
            assert errors_on_page(page) == [] and exceptions_on_page(page) == []
            problems = page.evaluate(MEASURE, SLACK)
            assert not problems, f"odds tab at {label} width: {problems}"
            page.locator('[data-testid="stTable"]').first.scroll_into_view_if_needed()
            screenshot(page, f"amplification_odds_{label}")
            page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
            screenshot(page, f"amplification_odds_chart_{label}")
        finally:
            context.close()

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(f"{app_url}/amplification?amp_view={quote('ε as odds')}")
        settle(page)
        # The prior's own box, found by its key: counting boxes from the top of the page is
        # not stable while the page is still drawing.
        box = page.locator(".st-key-amp_prior input")
        expect(box).to_have_value(re.compile(r"^0\.01$"), timeout=60_000)
        box.fill("0.1")
        box.press("Enter")
        settle(page)
        assert parse_qs(urlparse(page.url).query).get("amp_prior") == ["0.1"]
        expect(page.locator('[data-testid="stMainBlockContainer"]')).to_contain_text(
            "thought it 1 in 10 that", timeout=60_000
        )
        assert exceptions_on_page(page) == []
    finally:
        context.close()


def test_preset_reproduces_paper_figure(page, app_url):
    page.goto(f"{app_url}/amplification?amp_eps_targets=2")
    settle(page)
    page.get_by_role("button", name="Hu et al. Figure 3").click()
    settle(page)
    plot_texts_showing(page, *(f"ε_target = {e}" for e in ("0.1", "0.5", "1")))
    assert exceptions_on_page(page) == []


def test_gains_experiment_reacts_to_controls(page, app_url):
    page.goto(f"{app_url}/gains?gain_view=Median%3A+sample+or+population%3F&gain_reps=50")
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    assert plot_text_appears(page, "ε_target = 0.5"), plot_texts(page)[-400:]
    box = page.get_by_role("textbox", name="ε_target values")
    box.fill("0.05, 2")
    box.press("Enter")
    settle(page)
    plot_texts_showing(page, "ε_target = 2", gone=("ε_target = 0.5",))
    expect(page.locator('[data-testid="stMainBlockContainer"]')).to_contain_text(
        "At ε_target = 2", timeout=60_000
    )
    assert exceptions_on_page(page) == []
    screenshot(page, "gains_experiment")


def test_deep_link_on_a_fresh_server_gets_the_router_and_sidebar(page, fresh_app_url):
    """The first visitor of a new server follows a shared link straight to a page."""
    page.goto(f"{fresh_app_url}/gains?population=Bimodal&gain_view=Mean+on+this+population")
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    for words in ("Mean & median gains", "Seed", "median in the gap"):  # population: from the URL
        expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(words, timeout=60_000)
    assert exceptions_on_page(page) == []
