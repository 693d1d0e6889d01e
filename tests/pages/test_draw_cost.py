"""What the browser must draw when a page opens: every chart is cheap to lay out.

Plotly's default for tick labels (``ticklabeloverflow="hide past div"``) measures each label
after every draw, and each measurement makes the browser lay out the whole page again; on a
page of several charts that was the largest part of the time spent drawing them. Every axis
and colour bar of every chart the pages open with therefore lets its labels be
(``"allow"``), the figure's margins keeping them inside the chart.

A page's "Reproduce in Python" snippets are sent only once the reader opens one: the code
highlighter is the browser's second-largest download after the charts, and a closed
expander's code was loaded, highlighted and resent on every change of a control. Likewise
a second view of numbers already on the screen (the Gains page's heat map of q, the
distributions behind Statistical privacy's curve) is drawn only once its expander is opened.

Breaks caught (tests/break_checks.py): ``draw-cost-tick-labels-measured`` (the app's axis
style no longer sets ``ticklabeloverflow``); ``draw-cost-snippet-sent-closed`` (a snippet's
code is drawn while its expander is closed); ``gains-q-heatmap-drawn-closed`` (a chart behind
a closed expander is drawn); ``statistical-link-closes-distributions`` (a link choosing the
distributions shown opens with them hidden).
"""

from __future__ import annotations

import json

import pytest

from tests.pages.harness import charts, open_page, open_snippets
from ui.charts import OPENED_PREFIX

#: The pages with charts (the Release planner has tests of its own), as they open.
CHART_PAGES = (
    "app_pages/overview.py",
    "app_pages/amplification.py",
    "app_pages/gains.py",
    "app_pages/clusters.py",
    "app_pages/strata.py",
    "app_pages/statistical.py",
)


def _label_settings(figure: dict) -> dict[str, object]:
    """``ticklabeloverflow`` of every axis and colour bar of ``figure``, by name."""
    layout = figure["layout"]
    found: dict[str, object] = {
        name: axis.get("ticklabeloverflow")
        for name, axis in layout.items()
        if name.startswith(("xaxis", "yaxis")) and isinstance(axis, dict)
    }
    for i, trace in enumerate(figure["data"]):
        if "colorbar" in trace or trace.get("type") in ("heatmap", "contour"):
            found[f"colorbar{i}"] = trace.get("colorbar", {}).get("ticklabeloverflow")
    return found


@pytest.mark.parametrize("page", CHART_PAGES)
def test_no_chart_measures_its_tick_labels(page: str) -> None:
    figures = charts(open_page(page))
    assert figures, f"{page} opens without a chart"
    for figure in figures:
        settings = _label_settings(figure)
        assert settings, "a chart without axes"
        measured = {name: value for name, value in settings.items() if value != "allow"}
        assert not measured, f"{page}: tick labels measured after each draw: {measured}"


#: The pages whose first view holds a "Reproduce in Python" snippet.
SNIPPET_PAGES = (
    "app_pages/overview.py",
    "app_pages/amplification.py",
    "app_pages/gains.py",
    "app_pages/clusters.py",
    "app_pages/strata.py",
    "app_pages/statistical.py",
)


@pytest.mark.parametrize("page", SNIPPET_PAGES)
def test_snippets_are_sent_only_when_opened(page: str) -> None:
    at = open_page(page, snippets=False)
    boxes = [
        box.key
        for box in at.get("expander")
        if (box.key or "").startswith(OPENED_PREFIX) and box.label == "Reproduce in Python"
    ]
    assert boxes, f"{page} opens without a lazy snippet"
    assert not at.code, f"{page} sends code inside closed expanders"
    open_snippets(at)
    assert not at.exception
    assert len(at.code) >= len(boxes), "an opened snippet shows no code"
    assert all("import" in c.value for c in at.code)
    at.run()  # a later run keeps it open
    assert len(at.code) >= len(boxes)


def test_gains_draws_its_q_heat_map_only_when_opened() -> None:
    """The Gains page's first tab opens with three charts; the fourth (q over every rate and
    ε) is built and sent once its expander is opened, and then stays."""
    at = open_page("app_pages/gains.py", snippets=False)
    titles = [figure["layout"]["title"]["text"] for figure in charts(at)]
    assert len(titles) == 3, titles
    open_snippets(at)
    assert not at.exception
    assert len(charts(at)) == 4


def test_statistical_draws_the_answer_distributions_when_opened_or_linked() -> None:
    """Statistical privacy opens with its privacy curve alone; the answer distributions are
    drawn once their expander is opened, and a link that chooses them opens it."""
    at = open_page("app_pages/statistical.py", snippets=False)
    assert len(charts(at)) == 1
    open_snippets(at)
    assert not at.exception
    assert len(charts(at)) == 2
    linked = open_page("app_pages/statistical.py", {"sp_dist": "Laplace noise"}, snippets=False)
    assert len(charts(linked)) == 2


#: Bytes of one chart as the server sends it (its JSON spec): the largest a page opens with
#: is the Gains page's r curves (about 66 kB). The r heat map sent as 120 × 120 cells in
#: double precision was 266 kB, and with its axis-long hover the page's largest message.
CHART_BYTES = 80_000


@pytest.mark.parametrize("page", CHART_PAGES)
def test_every_chart_a_page_opens_with_is_light(page: str) -> None:
    """Breaks caught (tests/break_checks.py ``gains-heat-double-precision``,
    ``gains-heat-finer-grid``): the Gains page's heat maps sent in double precision, or the
    r map on a 120 × 120 grid again."""
    for figure in charts(open_page(page)):
        sent = len(json.dumps(figure, separators=(",", ":")))
        title = figure["layout"].get("title", {}).get("text")
        assert sent <= CHART_BYTES, (page, title, sent)
