"""End-to-end: the Release planner's HTML method report, opened in Chromium at 1280×720.

The report is written by the page's own functions (the page's chart, recommendation and
report builder) to a temporary file and opened from disk, as a reviewer opens the download.
It gets the layout checks of the pages: the page-level measure of ``tests/e2e/test_layout.py``
(nothing wider than its box, no sideways scrolling) and, for every chart in the report, the
chart-text boxes of ``tests/e2e/test_browser_planner.py``: no tick label, axis title, legend
entry or label overlaps another, and none reaches past the chart's edge (clipped). A screenshot
is saved as ``artifacts/screenshots/report_laptop.png`` (and
``report_cramped_chart_laptop.png``).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import plotly.graph_objects as go
import pytest

from core import planner
from core.populations import make_builtin
from tests.e2e.helpers import CHART_BOXES, chart_clipped, chart_overlaps, screenshot
from tests.e2e.test_layout import MEASURE, SLACK
from ui.planner import compare_text, downloads
from ui.planner import figures as figs

#: A link to a plan as the page writes it: every control, so hundreds of characters without a
#: space (the report must wrap it, not scroll sideways).
LINK = "http://localhost:8501/planner?" + urlencode(
    {
        "plan_eps": "0.001",
        "plan_delta": "0.00025",
        "plan_designs": [
            "Census (privatise the whole population)",
            "Simple random sample (without replacement)",
            "Poisson sample",
            "Poisson cluster sample (each cluster kept with probability r)",
        ],
        "plan_mechs": [
            "Laplace noise scaled to the smooth sensitivity",
            "heavy-tailed noise scaled to the smooth sensitivity (pure ε)",
            "exponential mechanism",
        ],
        "plan_obj": "95 % error bound",
        "population": "Lognormal",
        "seed": "0",
    },
    doseq=True,
)


def _cramped(fig: go.Figure) -> go.Figure:
    """The chart with no room for its axes: no margins, no automargin, titles on the axes."""
    layout = fig.layout.to_plotly_json()
    layout["margin"] = {**layout["margin"], "l": 0, "r": 0}
    for axis in ("xaxis", "yaxis"):
        layout[axis] = {**layout[axis], "automargin": False}
        layout[axis]["title"] = {**layout[axis]["title"], "standoff": 0}
    return go.Figure(data=fig.data, layout=layout)


@pytest.fixture(scope="module")
def planned() -> tuple[planner.PlanResult, str]:
    """A small plan whose errors run into the thousands (wide y tick labels), and its population."""
    pop = make_builtin("lognormal", seed=0, size=2000)
    result = planner.plan(
        pop,
        statistic="median",
        eps_target=0.001,
        designs=("census", "srs", "poisson"),
        rates=(0.05, 0.2, 0.5),
        reps=30,
        seed=0,
        relation="replacement",
        objective="error_95",
    )
    return result, pop.name


def _report_html(planned: tuple[planner.PlanResult, str], *, cramped: bool) -> str:
    """The report of :func:`planned` as the page writes it, with the page's chart (or, with
    ``cramped``, the page's chart with its margins taken away: the report lays the chart out
    itself, whatever margins the page gives it)."""
    result, name = planned
    fig, _ = figs.objective_figure(result)
    link = LINK
    chart = _cramped(fig) if cramped else fig
    return downloads.report_bytes(
        result, chart, compare_text.recommendation(result), name, link
    ).decode()


def _problems(page, path: Path) -> list[str]:
    """Everything cut short or overlapping in the report at ``path``, as lines of words."""
    page.goto(path.as_uri())
    page.wait_for_selector(".js-plotly-plot .main-svg")
    page.evaluate("document.fonts.ready")
    page.wait_for_timeout(300)  # plotly lays the legend out after the first paint
    screenshot(page, f"{path.stem}_laptop")
    problems = [f"{path.stem}: {p}" for p in page.evaluate(MEASURE, SLACK)]
    charts = page.locator(".js-plotly-plot")
    assert charts.count() >= 1
    for i in range(charts.count()):
        chart = charts.nth(i)
        measured = chart.evaluate(CHART_BOXES)
        groups = {item["group"] for item in measured["items"]}
        assert {"xtitle", "ytitle", "xtick", "ytick", "legend"} <= groups, groups
        where = f"{path.stem}, chart #{i + 1}"
        problems += [f"{where}: {p} overlap" for p in chart_overlaps(measured["items"])]
        problems += [f"{where}: {p} is clipped" for p in chart_clipped(measured)]
    return problems


def test_report_charts_fit_at_laptop_size(browser, planned, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.set_default_timeout(30_000)
    problems = []
    try:
        for name, cramped in (("report", False), ("report_cramped_chart", True)):
            path = tmp_path / f"{name}.html"
            path.write_text(_report_html(planned, cramped=cramped), encoding="utf-8")
            problems += _problems(page, path)
    finally:
        context.close()
    assert not problems, "method report at 1280×720:\n  " + "\n  ".join(problems)
