"""End-to-end, issue 35 §4: the planner's charts on the labelled health survey.

A server of its own is started with the survey of :mod:`tests.survey_file` on its command
line (value zinc, public bounds 0–250, strata ``stratid``, clusters ``stratid`` × ``psuid``),
so the cluster designs are in the plan. At ε_target 0.1, at laptop and phone sizes, the
comparison chart (with its Monte Carlo bands), the accuracy-first chart and the publication
heat map are drawn without an error, their texts clear of each other and of the reference
lines, and saved as screenshots (``survey_*`` in ``artifacts/screenshots/``) to look at.
The walk of ``test_browser_survey_walk.py`` checks the bands at ε_target 1 too.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.e2e.conftest import serve
from tests.e2e.helpers import (
    REFERENCE_LINES,
    SCREENSHOTS,
    errors_on_page,
    exceptions_on_page,
    labels_on_lines,
    screenshot,
    settle,
)
from tests.e2e.test_browser_planner import SIZES, _check_chart
from tests.survey_file import CLUSTER, LOWER, STRATUM, UPPER, VALUE, write_survey
from ui.planner.text import ACCURACY_TAB, COMPARE_TAB, PUBLICATION_TAB

#: The texts of the chart's SVG elements matching a selector, in document order.
TEXTS = "(c, sel) => Array.from(c.querySelectorAll(sel)).map((t) => t.textContent.trim())"

#: The same, from the top of the chart down (as a reader sees them).
TOP_DOWN = """(c, sel) => Array.from(c.querySelectorAll(sel))
  .map((t) => [t.getBoundingClientRect().top, t.textContent.trim()])
  .sort((a, b) => a[0] - b[0]).map((pair) => pair[1])"""

#: Fewer repetitions keep the runs short; the publication tab caps them at 50 anyway.
FAST = "plan_reps=50"


@pytest.fixture(scope="module")
def survey_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a server started with the labelled survey on its command line."""
    folder = tmp_path_factory.mktemp("survey")
    path = write_survey(folder)
    argv = ["--population", str(path), "--value", VALUE]
    argv += ["--lower", f"{LOWER:g}", "--upper", f"{UPPER:g}", "--stratum", STRATUM]
    for column in CLUSTER:
        argv += ["--cluster", column]
    with serve(folder / "server.log", extra_args=["--", *argv]) as server:
        yield server.url


def _open(page, url: str, eps: str, tab: str) -> None:
    page.goto(f"{url}/planner?{FAST}&plan_eps={eps}&plan_view={quote(tab)}")
    settle(page, timeout=300)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=300_000)
    page.evaluate("document.fonts.ready")
    assert errors_on_page(page) == [] and exceptions_on_page(page) == [], (eps, tab)


@pytest.mark.parametrize("eps", ["0.1"])  # ε_target 1: tests/e2e/test_browser_survey_walk.py
def test_planner_charts_on_the_labelled_survey(browser, survey_url, eps):
    for label, width, height in SIZES:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(300_000)
        try:
            _open(page, survey_url, eps, COMPARE_TAB)
            measured = _check_chart(page, f"survey_compare_eps{eps}_{label}")
            legend = " ".join(i["text"] for i in measured["items"] if i["group"] == "legend")
            assert "Poisson clusters" in legend and "Cluster" in legend, legend

            _open(page, survey_url, eps, ACCURACY_TAB)
            measured = _check_chart(page, f"survey_accuracy_eps{eps}_{label}")
            labels = {i["text"] for i in measured["items"] if i["group"] == "label"}
            assert "your bound" in labels, labels

            _open(page, survey_url, eps, PUBLICATION_TAB)
            # The heat map of 31 strata is taller than the screen, and Streamlit scrolls
            # inside its own container: a window of its height shows the whole chart.
            page.set_viewport_size({"width": width, "height": 1500})
            heat = page.locator('[data-testid="stPlotlyChart"]').last
            heat.scroll_into_view_if_needed()
            page.wait_for_timeout(800)
            name = f"survey_publication_eps{eps}_{label}"
            heat.screenshot(path=str(SCREENSHOTS / f"{name}_chart.png"))
            screenshot(page, name)
            texts = heat.evaluate(TEXTS, ".colorbar text")
            assert any("limit" in t for t in texts), texts  # the share, on the colour bar
            ticks = heat.evaluate(TOP_DOWN, ".yaxislayer-above .ytick text")
            assert ticks == [str(s) for s in range(1, 32)], ticks  # 1, 2, …, 31: not as text
            assert not labels_on_lines(heat.evaluate(REFERENCE_LINES))
        finally:
            context.close()
