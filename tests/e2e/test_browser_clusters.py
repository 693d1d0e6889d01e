"""End-to-end: the Cluster sampling page in Chromium (sliders, URL, tabs, presets, downloads)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from playwright.sync_api import expect

from tests.e2e.helpers import (
    errors_on_page,
    exceptions_on_page,
    plot_text_appears,
    plot_texts,
    screenshot,
    settle,
)

TABS = (
    "ε_target vs fraction drawn",
    "This population's clusters",
    "Two-stage",
    "PPS & systematic",
    "Hypothesis-testing view",
)


def _query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def _metric(page, index: int) -> str:
    return page.locator('[data-testid="stMetricValue"]').nth(index).inner_text()


def _main_text(page) -> str:
    return page.locator('[data-testid="stMainBlockContainer"]').inner_text()


def _open(page, url: str) -> None:
    page.goto(url)
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')


def test_cluster_page_loads_from_the_menu_with_all_lines(page, app_url):
    page.goto(app_url)
    settle(page)
    page.get_by_role("link", name="Cluster sampling").click()
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    assert page.get_by_role(
        "heading", name="Cluster sampling: how cluster size erases"
    ).is_visible()
    texts = plot_texts(page)
    for name in (
        "lower bound (Thm 5.1)",
        "upper bound (Thm 5.2)",
        "Poisson sampling, same fraction (eq. 3)",
        "no amplification (ε_target = ε_sample)",
    ):
        assert name in texts, name
    assert "Reading." in _main_text(page)
    assert errors_on_page(page) == []
    screenshot(page, "clusters_default")


def test_size_slider_moves_the_result_and_the_url(page, app_url):
    _open(page, f"{app_url}/clusters")
    before = _metric(page, 0)
    slider = page.locator('.st-key-cl_size__slider input[type="range"]')
    for _ in range(3):  # one step at a time: each step reruns the script
        slider.focus()
        slider.press("ArrowRight")
        settle(page)
    box = page.locator(".st-key-cl_size input")
    assert box.input_value() == "30"  # 10 → 15 → 20 → 30 on the 1-1.5-2-3-5-7 grid
    assert not box.is_visible()  # the exact box waits behind the "Type exact values" toggle
    assert _query(page).get("cl_size") == ["30"]
    assert _metric(page, 0) != before
    assert plot_text_appears(page, "your clusters: 30 records"), plot_texts(page)[-400:]
    assert errors_on_page(page) == []


def test_exact_boxes_and_url_reproduce_a_design(page, app_url):
    _open(page, f"{app_url}/clusters?cl_size=1000&cl_k=100&cl_l=10&cl_eps=0.1&cl_exact=true")
    expect(page.locator(".st-key-cl_k input")).to_be_visible(timeout=60_000)
    assert "in effect none" in _main_text(page)
    assert plot_text_appears(page, "ℓ/k = 10 %)"), plot_texts(page)[-400:]
    box = page.locator(".st-key-cl_k input")
    box.fill("5000")
    box.press("Enter")
    settle(page)
    assert _query(page).get("cl_k") == ["5000"]
    assert plot_text_appears(page, "ℓ/k = 0.2 %)"), plot_texts(page)[-400:]
    # More clusters drawn than exist: explained, not a crash.
    box = page.locator(".st-key-cl_l input")
    box.fill("9000")
    box.press("Enter")
    settle(page)
    warnings = page.locator('[data-testid="stAlertContentWarning"]').all_inner_texts()
    assert any("cannot be drawn" in w for w in warnings)
    assert exceptions_on_page(page) == []
    screenshot(page, "clusters_from_url")


def test_every_tab_renders_and_is_kept_in_the_url(page, app_url):
    _open(page, f"{app_url}/clusters?population=Establishments")
    for tab in TABS:
        page.get_by_role("tab", name=tab).click()
        settle(page)
        page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
        assert exceptions_on_page(page) == [], tab
        assert errors_on_page(page) == [], tab
        assert _query(page).get("cl_view") == [tab]
        screenshot(page, "clusters_tab_" + tab.split()[0].lower().replace("'", ""))
    assert plot_text_appears(page, "Theorem 5.3: lower bound"), plot_texts(page)[-400:]


def test_preset_and_population_switch(page, app_url):
    page.goto(f"{app_url}/clusters?cl_view=This+population%27s+clusters")
    settle(page)
    # Waits for the text: under load the first run may not have drawn anything yet.
    main = page.locator('[data-testid="stMainBlockContainer"]')
    expect(main).to_contain_text("has no cluster column", timeout=60_000)
    page.get_by_role("button", name="Use the Establishments population").click()
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    assert plot_text_appears(page, "PPS cluster sampling: lower bound"), plot_texts(page)[-400:]
    assert _query(page).get("population") == ["Establishments"]
    page.get_by_role("button", name="Regions").click()
    settle(page)
    assert page.locator(".st-key-cl_size input").input_value() == "1000"
    assert exceptions_on_page(page) == []


def test_chart_data_download(page, app_url):
    _open(page, f"{app_url}/clusters?cl_size=5")
    with page.expect_download() as info:
        page.locator(".st-key-csv_cluster_eps_vs_size button").click()
    download = info.value
    assert download.suggested_filename == "cluster_eps_vs_size.csv"
    header = open(download.path(), encoding="utf-8").readline()
    assert header.startswith("cluster_size,smallest_other,largest_other,eps")
    assert "eps_lower_thm51" in header and "eps_srs_eq3" in header
