"""End-to-end: the Release planner in Chromium — loads from a URL, every tab renders, ε_target
moves the chart and the URL, and screenshots at desktop, laptop (1280×720) and phone
(390×844) widths are saved for a look."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

import numpy as np
from playwright.sync_api import expect

from tests.e2e.helpers import (
    CHART_BOXES,
    REFERENCE_LINES,
    chart_overlaps,
    errors_on_page,
    exceptions_on_page,
    labels_on_lines,
    plot_texts,
    plot_texts_showing,
    screenshot,
    settle,
    upload_and_use,
)
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
    expect(page.get_by_role("heading", name="Release planner").first).to_be_visible(timeout=60_000)
    assert errors_on_page(page) == []
    main = _main_text(page)
    assert "Privatise" in main and "Bun et al. §7" in main
    texts = plot_texts_showing(page, "best plan", "census")
    before = texts
    screenshot(page, "planner_compare")

    box = page.locator(".st-key-plan_eps input")
    box.fill("0.2")
    box.press("Enter")
    settle(page)
    _wait_for_chart(page)
    assert parse_qs(urlparse(page.url).query).get("plan_eps") == ["0.2"]
    after = plot_texts_showing(page, "ε_target = 0.2")
    assert after != before
    assert errors_on_page(page) == []
    screenshot(page, "planner_compare_eps_0.2")


#: Words each of the first three tabs must show (the default tab first).
TAB_WORDS = ("Privatise", "smallest ε_target", "composition happens on the sample")


def test_planner_every_tab_renders_and_fits_laptop_and_phone_width(browser, app_url):
    """Each of the first three tabs renders, is kept in the URL and fits.

    At laptop width the tabs are clicked (the click writes the tab into the URL); on a phone
    each is opened from its link. tests/e2e/test_layout.py measures the default tab only;
    this measures all three.
    """
    for label, width, height in (("laptop", 1280, 720), ("phone", 390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(60_000)
        try:
            for i, (tab, shot) in enumerate(
                zip(TABS[:3], ("compare", "accuracy", "several"), strict=True)
            ):
                if label == "laptop" and i > 0:
                    page.get_by_role("tab", name=tab).click()
                else:
                    page.goto(f"{app_url}/planner?{FAST}&plan_view={quote(tab)}")
                settle(page, timeout=120)
                _wait_for_chart(page)
                page.evaluate("document.fonts.ready")
                assert errors_on_page(page) == [] and exceptions_on_page(page) == [], tab
                # The default tab is left out of the URL; the others are written into it.
                kept = parse_qs(urlparse(page.url).query).get("plan_view")
                assert kept == (None if i == 0 else [tab]), (tab, kept)
                expect(page.locator('[data-testid="stMainBlockContainer"]')).to_contain_text(
                    TAB_WORDS[TABS.index(tab)], timeout=60_000
                )
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
            expect(odds.first).to_contain_text("someone who thought it 1 in 1,000", timeout=60_000)
            assert errors_on_page(page) == [] and exceptions_on_page(page) == []
            problems = page.evaluate(MEASURE, SLACK)
            assert not problems, f"planner odds at {label} width: {problems}"
            odds.first.scroll_into_view_if_needed()
            screenshot(page, f"planner_odds_{label}")
        finally:
            context.close()


# ---------------------------------------------------------------------------------------
# Issue 22, parts 5 and 6: the page while it works, and a chart that reads at any width
# ---------------------------------------------------------------------------------------


def _main_chart(page):
    chart = page.locator('[data-testid="stPlotlyChart"]').first
    chart.wait_for()
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(300)  # plotly lays the legend out after the first paint
    return chart


def _check_chart(page, name: str) -> dict:
    chart = _main_chart(page)
    chart.screenshot(path=str(screenshot(page, name).with_name(f"{name}_chart.png")))
    measured = chart.evaluate(CHART_BOXES)
    groups = {item["group"] for item in measured["items"]}
    assert {"title", "xtitle", "ytitle", "xtick", "ytick", "legend", "star"} <= groups, groups
    assert not chart_overlaps(measured["items"]), (name, chart_overlaps(measured["items"]))
    crossed = labels_on_lines(chart.evaluate(REFERENCE_LINES))
    assert not crossed, (name, crossed)
    assert errors_on_page(page) == [] and exceptions_on_page(page) == []
    return measured


SIZES = (("laptop", 1280, 720), ("phone", 390, 844))


def test_planner_chart_labels_never_overlap_on_builtin_populations(browser, app_url):
    for label, width, height in SIZES:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(120_000)
        try:
            for population, query in (
                ("establishments", "population=Establishments"),
                ("lognormal", "population=Lognormal"),
            ):
                page.goto(f"{app_url}/planner?{FAST}&{query}")
                settle(page, timeout=240)
                _wait_for_chart(page)
                page.evaluate("document.fonts.ready")
                measured = _check_chart(page, f"planner_chart_{population}_{label}")
                legend = [i["text"] for i in measured["items"] if i["group"] == "legend"]
                assert len(legend) <= 7, legend  # one line per design, the census, the star
                if population == "establishments":
                    main = _main_text(page)
                    assert "exact to the data's resolution" in main
                    assert "times the error" not in main
                # Accuracy first: "your bound" beside the census line, labels clear of both.
                page.goto(f"{app_url}/planner?{FAST}&{query}&plan_view={quote(TABS[1])}")
                settle(page, timeout=240)
                _wait_for_chart(page)
                page.evaluate("document.fonts.ready")
                measured = _check_chart(page, f"planner_accuracy_chart_{population}_{label}")
                labels = {i["text"] for i in measured["items"] if i["group"] == "label"}
                assert "your bound" in labels and any("census" in t for t in labels), labels
        finally:
            context.close()


def test_planner_chart_lines_control_moves_the_chart_and_the_url(page, app_url):
    page.goto(f"{app_url}/planner?{FAST}")
    settle(page, timeout=120)
    _wait_for_chart(page)
    before = plot_texts(page)
    menu = page.locator('[data-testid="stSelectbox"]').filter(has_text="Lines on the chart")
    menu.scroll_into_view_if_needed()
    menu.click()
    page.get_by_role("option", name="every mechanism", exact=True).click()
    settle(page, timeout=120)
    _wait_for_chart(page)
    assert parse_qs(urlparse(page.url).query).get("plan_lines") == ["every mechanism"]
    after = plot_texts_showing(page, "global Laplace")
    assert after != before
    measured = _check_chart(page, "planner_chart_every_mechanism_laptop")
    assert len([i for i in measured["items"] if i["group"] == "legend"]) > 7


def test_planner_chart_on_an_uploaded_csv(browser, app_url, tmp_path):
    """Amounts in cents (resolution 0.01), uploaded on the Population page, then planned."""
    rng = np.random.default_rng(5)
    amounts = rng.lognormal(3.0, 0.8, 3000).round(2)
    path = tmp_path / "amounts.csv"
    path.write_text("amount\n" + "\n".join(f"{a:.2f}" for a in amounts) + "\n")
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(app_url)
        settle(page)
        upload_and_use(page, path)
        page.get_by_role("link", name="Release planner").first.click()
        settle(page, timeout=120)
        _wait_for_chart(page)
        expect(page.locator('[data-testid="stMainBlockContainer"]')).to_contain_text(
            "Privatise", timeout=60_000
        )
        _check_chart(page, "planner_chart_upload_laptop")
        page.set_viewport_size({"width": 390, "height": 844})
        settle(page, timeout=120, start_timeout=1)
        _wait_for_chart(page)
        _check_chart(page, "planner_chart_upload_phone")
    finally:
        context.close()


def test_slow_plan_shows_a_progress_bar_and_the_census_row_first(page, app_url):
    """T = 1000 on an ε_target no other test uses (no cached plan): several seconds."""
    page.goto(f"{app_url}/planner?plan_reps=1000&plan_eps=0.77")
    live = page.locator('[class*="st-key-plan_live_"]')
    live.locator('[data-testid="stProgress"]').first.wait_for(timeout=120_000)
    live.get_by_text("Census,").first.wait_for(timeout=120_000)
    # The census row is shown while the plan still runs: the finished view is not there yet.
    assert page.locator('[class*="st-key-plan_view_"]').count() == 0
    expect(live.first).to_contain_text("Rows known so far", timeout=60_000)
    screenshot(page, "planner_progress_laptop")
    settle(page, timeout=240)
    _wait_for_chart(page)
    assert live.count() == 0  # the finished view replaced the live rows
    assert errors_on_page(page) == [] and exceptions_on_page(page) == []


def test_planner_sizes_toggle_brings_back_the_mean_that_divides_by_n(page, app_url):
    """Issue 35: the mean under add/remove neighbours, N private by default (the page says
    which mean is left out and why); the toggle declares N public and lands in the URL."""
    relation = quote("add or remove one record")
    page.goto(f"{app_url}/planner?{FAST}&plan_stat=mean&plan_rel={relation}")
    settle(page)
    _wait_for_chart(page)
    assert errors_on_page(page) == [] and exceptions_on_page(page) == []
    main = _main_text(page)
    assert "The population size N is not public" in main and "is not offered" in main
    screenshot(page, "planner_sizes_private")
    page.get_by_text("Population size N and cell sizes N_c are public").click()
    settle(page)
    _wait_for_chart(page)
    assert parse_qs(urlparse(page.url).query).get("plan_sizes") == ["true"]
    assert "is declared public" in _main_text(page)
    assert errors_on_page(page) == [] and exceptions_on_page(page) == []
    screenshot(page, "planner_sizes_public")
