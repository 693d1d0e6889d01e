"""Issue 7 in the browser: bad files through the real upload widget, isolation between
sessions, URLs that reproduce a page, and memory that stays bounded under many uploads."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.core.bad_csv_corpus import EXPECTED_OUTCOMES, build_corpus, million_rows_csv
from tests.e2e.conftest import ROOT
from tests.e2e.helpers import errors_on_page, exceptions_on_page, screenshot, settle

UPLOAD = '[data-testid="stFileUploaderDropzoneInput"]'
CHART = '[data-testid="stPlotlyChart"] .main-svg'


def _upload(page, path: Path) -> None:
    page.locator(UPLOAD).set_input_files(str(path))
    uploader = page.locator('[data-testid="stFileUploader"]')
    deadline = time.monotonic() + 30
    while path.name not in uploader.inner_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.6)  # let the rerun that the upload triggers begin before waiting for quiet
    settle(page)


def _use_population(page) -> None:
    page.get_by_role("button", name="Use this population").click()
    settle(page)


def _sidebar(page) -> str:
    return page.locator('[data-testid="stSidebar"]').inner_text()


def _repo_csv_files() -> set[str]:
    """CSV files inside the project (an upload must never be written there)."""
    skip = (".venv", ".git", "artifacts", ".hypothesis", ".pytest_cache")
    return {
        str(p.relative_to(ROOT))
        for p in ROOT.rglob("*.csv")
        if not any(part in skip for part in p.relative_to(ROOT).parts)
    }


def test_bad_file_corpus_through_the_upload_widget(page, app_url, tmp_path):
    corpus = {k: v for k, v in build_corpus(include_large=True).items() if k != "million_rows"}
    files_before = _repo_csv_files()
    page.goto(app_url)
    settle(page)
    outcomes = {}
    for name, data in corpus.items():
        path = tmp_path / f"{name}.csv"
        path.write_bytes(data)
        _upload(page, path)
        assert exceptions_on_page(page) == [], name
        if page.get_by_role("button", name="Use this population").count():
            _use_population(page)
            assert exceptions_on_page(page) == [], name
            text = page.locator('[data-testid="stMainBlockContainer"]').inner_text()
            done = f"Every page now computes on {name}.csv" in text
            outcomes[name] = "population" if done else "error"
        else:
            outcomes[name] = "error"
        if outcomes[name] == "error":
            # The user is told why: an error box from the app, or the uploader's size message.
            uploader = page.locator('[data-testid="stFileUploader"]').inner_text()
            assert errors_on_page(page) or "MB" in uploader, name
    # The browser agrees with the loader on which files make a population (a file the
    # loader rejects must never become the active population).
    for name, outcome in outcomes.items():
        if EXPECTED_OUTCOMES.get(name) == "error":
            assert outcome == "error", name
    screenshot(page, "upload_corpus_last")
    assert _repo_csv_files() == files_before, "an upload wrote files into the project"


def test_million_row_upload_and_a_page_computes_on_it(page, app_url, tmp_path):
    path = tmp_path / "million.csv"
    path.write_bytes(million_rows_csv())
    page.goto(app_url)
    settle(page)
    t0 = time.perf_counter()
    _upload(page, path)
    t_read = time.perf_counter() - t0
    _use_population(page)
    t_loaded = time.perf_counter() - t0
    assert "Your file: million.csv" in _sidebar(page)
    t1 = time.perf_counter()
    page.goto(f"{page.url.split('?')[0].rstrip('/')}/gains?gain_view=Mean+on+this+population")
    settle(page)
    page.wait_for_selector(CHART)
    t_page = time.perf_counter() - t1
    assert exceptions_on_page(page) == []
    print(
        f"1e6-row upload: read and preview {t_read:.1f} s, population ready {t_loaded:.1f} s, "
        f"mean page drawn {t_page:.1f} s"
    )
    screenshot(page, "million_rows_mean_page")


def test_two_sessions_never_see_each_others_upload(browser, app_url, tmp_path):
    contexts = [browser.new_context(viewport={"width": 1280, "height": 1000}) for _ in range(2)]
    pages = [c.new_page() for c in contexts]
    try:
        for i, page in enumerate(pages):
            path = tmp_path / f"school_{i}.csv"
            path.write_text("score\n" + "\n".join(str(10 * i + k) for k in range(50)))
            page.goto(app_url)
            settle(page)
            _upload(page, path)
            _use_population(page)
        for i, page in enumerate(pages):
            page.get_by_role("link", name="Amplification").click()
            settle(page)
            sidebar = _sidebar(page)
            assert f"school_{i}.csv" in sidebar and f"school_{1 - i}.csv" not in sidebar
        # A reload starts a new session: an upload lives only in the tab that made it (by
        # design: a capability link to uploaded data would break isolation).
        pages[0].reload()
        settle(pages[0])
        assert "school_" not in _sidebar(pages[0])
        # A third, new session sees only the built-in populations.
        third = browser.new_context().new_page()
        third.goto(app_url)
        settle(third)
        assert "school_" not in _sidebar(third)
        third.context.close()
    finally:
        for c in contexts:
            c.close()


def _chart_data(page) -> list:
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(
            el => el.data.map(t => ({name: t.name, x: Array.from(t.x || []),
                                     y: Array.from(t.y || [])})))"""
    )


def test_copied_url_reproduces_inputs_and_chart_data(browser, app_url):
    first = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    first.goto(f"{app_url}/amplification")
    settle(first)
    box = first.get_by_role("textbox", name="Target ε values (ε_target)")
    box.fill("0.25, 4")
    box.press("Enter")
    settle(first)
    first.get_by_role("spinbutton", name="Seed").fill("11")
    first.get_by_role("spinbutton", name="Seed").press("Enter")
    settle(first)
    first.get_by_role("tab", name="Steinke: limits of amplification").click()
    settle(first)
    first.get_by_role("tab", name="ε_sample against the rate").click()
    settle(first)
    first.wait_for_selector(CHART)
    url = first.url
    data_first = _chart_data(first)

    second = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    second.goto(url)
    settle(second)
    second.wait_for_selector(CHART)
    assert second.get_by_role("textbox", name="Target ε values (ε_target)").input_value() == (
        "0.25, 4"
    )
    assert second.get_by_role("spinbutton", name="Seed").input_value() == "11"
    assert json.dumps(_chart_data(second)) == json.dumps(data_first)

    # Switching pages keeps every setting; a reload with the URL restores them.
    second.get_by_role("link", name="Population").click()
    settle(second)
    second.get_by_role("link", name="Amplification").click()
    settle(second)
    assert second.get_by_role("textbox", name="Target ε values (ε_target)").input_value() == (
        "0.25, 4"
    )
    second.reload()
    settle(second)
    second.wait_for_selector(CHART)
    assert json.dumps(_chart_data(second)) == json.dumps(data_first)
    first.context.close()
    second.context.close()


@pytest.mark.parametrize("uploads", [20])
def test_memory_stays_bounded_over_many_uploads(browser, fresh_server, tmp_path, uploads):
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.goto(fresh_server.url)
    settle(page)
    rss = [fresh_server.rss_mb()]
    for i in range(uploads):
        path = tmp_path / f"pop_{i}.csv"
        rows = 100_000
        path.write_text(
            "value\n"
            + "\n".join(f"{(k * 7919 + i * 104729) % 100_000 / 7.0:.4f}" for k in range(rows))
        )
        _upload(page, path)
        _use_population(page)
        assert f"pop_{i}.csv" in _sidebar(page)
        rss.append(fresh_server.rss_mb())
    page.context.close()
    print("server RSS (MB) after each upload:", [round(r) for r in rss])
    growth_second_half = rss[-1] - rss[len(rss) // 2]
    # Caches are bounded (max_entries, ttl) and each session keeps only its latest upload, so
    # the second ten uploads must not keep adding memory at the rate of the first ones.
    assert growth_second_half < 300, rss
