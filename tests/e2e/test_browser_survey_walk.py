"""Issue 35 end to end: a survey methodologist's path through the app in Chromium.

One browser session at laptop size (1280×720) does what the issue's new user did: uploads
the labelled Stata health survey of :mod:`tests.survey_file` through the real widget, keeps
the design columns the form pre-selects, declares zinc's public bounds 0–250, opens the
Release planner from the sidebar (the upload lives in this session only, so every later
step moves controls instead of loading a link) and checks each item of the issue:

- §6 the form pre-selects ``stratid`` and ``stratid`` × ``psuid`` and says why; accuracy
  first offers a bound the data can show (±1 on whole micrograms);
- §1 the planner states whether N is public, and under added or removed records the mean
  that divides by N is left out with the reason; the cluster sample states its frame;
- §4 every Monte Carlo band stays above the axis floor of its log axis; the publication
  heat map lists the strata in numeric order;
- §3 at ε_target 0.1 the verdict never calls a sample tighter than the census and, in the
  next sentence, says sampling gains nothing;
- §2 each row of the several-statistics table names its rate;
- §5 the method report names the value column, the declared bounds, the label columns and
  the rows dropped, and says its link cannot reopen the upload.

Screenshots: ``walk_*`` in ``artifacts/screenshots/``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests import survey_file
from tests.e2e.helpers import (
    errors_on_page,
    exceptions_on_page,
    screenshot,
    settle,
    upload_file,
    use_population,
)
from tests.e2e.test_browser_upload_survey import _chips, use_zinc
from ui.planner.text import (
    ACCURACY_TAB,
    COMPARE_TAB,
    PUBLICATION_TAB,
    RELATION_LABELS,
    SEVERAL_TAB,
    SIZES_LABEL,
)
from ui.population.text import PRESELECTED_REASON

#: Every band (a filled trace) of each chart on the page: its y values and the y axis's
#: type and lower end as drawn (log axes report log10 of the range).
BANDS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map((el) => ({
  axis: el._fullLayout && el._fullLayout.yaxis ? el._fullLayout.yaxis.type : '',
  low: el._fullLayout && el._fullLayout.yaxis ? el._fullLayout.yaxis.range[0] : null,
  bands: (el.data || []).filter((t) => t.fill && t.fill !== 'none')
    .map((t) => (t.y || []).filter((v) => v !== null).map(Number)),
}))"""


def _ok(page, where: str) -> None:
    assert errors_on_page(page) == [], (where, errors_on_page(page))
    assert exceptions_on_page(page) == [], (where, exceptions_on_page(page))


def _main(page) -> str:
    return page.locator('[data-testid="stMainBlockContainer"]').inner_text()


def _wait_for_chart(page) -> None:
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=300_000)


def _open_tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    settle(page, timeout=300)


def _check_bands(page, where: str) -> None:
    charts = page.evaluate(BANDS)
    for chart in charts:
        for ys in chart["bands"]:
            assert all(v == v for v in ys), (where, "a band has NaN")
            if chart["axis"] == "log":
                floor = 10.0 ** float(chart["low"])
                assert min(ys) > 0.0 and min(ys) >= floor * (1 - 1e-6), (where, min(ys), floor)


def test_a_new_user_plans_a_labelled_stata_survey(browser, app_url, tmp_path):
    path = survey_file.write_survey(tmp_path)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(300_000)
    try:
        _walk(page, app_url, path)
    finally:
        context.close()


def _walk(page, app_url: str, path) -> None:
    # §6: the upload form pre-selects the design and says so.
    page.goto(app_url)
    settle(page)
    upload_file(page, path)
    main = page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text(PRESELECTED_REASON, timeout=60_000)
    assert _chips(page, "Stratum column") == [survey_file.STRATUM]
    assert _chips(page, "Cluster column") == list(survey_file.CLUSTER)
    use_zinc(page)
    use_population(page)
    expect(main).to_contain_text(
        f"Every page now computes on {survey_file.FILENAME} ({survey_file.ROWS_WITH_ZINC:,} values",
        timeout=60_000,
    )
    _ok(page, "upload")
    screenshot(page, "walk_upload")

    # The planner, reached from the sidebar so that this session's upload stays active.
    page.get_by_role("link", name="Release planner").first.click()
    settle(page, timeout=300)
    _wait_for_chart(page)
    _ok(page, "planner")
    # Fewer repetitions keep the walk short: the slider moved from 200 to 50 by its keys.
    reps = page.locator('[data-testid="stSlider"]').filter(has_text="Repetitions T")
    reps.get_by_role("slider").focus()
    for _ in range(2):
        page.keyboard.press("ArrowLeft")
    settle(page, timeout=300)
    _wait_for_chart(page)
    assert parse_qs(urlparse(page.url).query).get("plan_reps") == ["50"], page.url
    text = _main(page)
    assert survey_file.FILENAME in page.locator('[data-testid="stSidebar"]').inner_text()
    # §1: the sizes choice is on the page; the cluster sample states its frame.
    assert SIZES_LABEL in text
    _check_bands(page, "compare, eps 1")
    screenshot(page, "walk_compare_eps1")

    # §3: at ε_target 0.1 no recommendation that the next sentence takes back.
    box = page.locator(".st-key-plan_eps input")
    box.fill("0.1")
    box.press("Enter")
    settle(page, timeout=300)
    _wait_for_chart(page)
    _ok(page, "compare, eps 0.1")
    text = _main(page)
    tighter = re.search(r"tighter than privatising the whole register", text)
    assert not (tighter and "Sampling gains nothing" in text), text[:2000]
    _check_bands(page, "compare, eps 0.1")
    screenshot(page, "walk_compare_eps0.1")

    # §5: the method report says what the review board needs and that its link cannot
    # reopen the upload.
    with page.expect_download() as info:
        page.get_by_role("button", name="Download method report (HTML)").click()
    report = open(info.value.path(), encoding="utf-8").read()
    assert "<h2>Data</h2>" in report and survey_file.VALUE in report
    assert "[0, 250]" in report and "stratid (31 strata)" in report
    assert "cannot reopen the uploaded file" in report

    # §1: under added or removed records the mean that divides by N is left out, with why.
    page.get_by_text("Mean", exact=True).first.click()
    settle(page, timeout=300)
    page.get_by_text(RELATION_LABELS["deletion"], exact=True).click()
    settle(page, timeout=300)
    _wait_for_chart(page)
    _ok(page, "mean, add/remove")
    text = _main(page)
    assert "The population size N is not public" in text and "is not offered" in text
    _check_bands(page, "mean, add/remove")
    screenshot(page, "walk_mean_deletion")
    page.get_by_text(RELATION_LABELS["replacement"], exact=True).click()
    settle(page, timeout=300)
    box = page.locator(".st-key-plan_eps input")
    box.fill("1")
    box.press("Enter")
    settle(page, timeout=300)

    # §6: accuracy first offers a bound the data can show.
    _open_tab(page, ACCURACY_TAB)
    _wait_for_chart(page)
    _ok(page, "accuracy first")
    assert "automatic: 1" in page.content()
    _check_bands(page, "accuracy first")
    screenshot(page, "walk_accuracy")

    # §2: each row of the several-statistics table names its rate.
    _open_tab(page, SEVERAL_TAB)
    _ok(page, "several statistics")
    # The grid draws on a canvas; its accessible table (hidden) holds the same texts.
    page.wait_for_selector('[data-testid="stDataFrame"] [role="gridcell"]', state="attached")
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()
    headers = [h.strip() for h in grid.locator('[role="columnheader"]').all_text_contents()]
    cells = [c.strip() for c in grid.locator('[role="gridcell"]').all_text_contents()]
    assert "rate" in headers, (headers, cells)
    width = len(headers)
    rows = [cells[i : i + width] for i in range(0, len(cells), width)]
    at = headers.index("rate")
    assert len(rows) == 2 and all(float(r[at]) == pytest.approx(0.1, rel=1e-3) for r in rows), rows
    screenshot(page, "walk_several")

    # §4: the publication heat map lists the strata in numeric order.
    _open_tab(page, PUBLICATION_TAB)
    _wait_for_chart(page)
    _ok(page, "publication")
    ticks = page.evaluate(
        """() => Array.from(document.querySelectorAll(
              '[data-testid="stPlotlyChart"] .yaxislayer-above .ytick text'))
            .map((t) => t.textContent.trim())"""
    )
    numbers = [int(t) for t in ticks if t.isdigit()]
    assert len(numbers) >= 2 and sorted(numbers) in (numbers, numbers[::-1]), ticks
    screenshot(page, "walk_publication")
    _open_tab(page, COMPARE_TAB)
    _ok(page, "back to compare")
