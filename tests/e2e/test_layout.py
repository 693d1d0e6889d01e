"""Every page at laptop and phone sizes: nothing overflows, the sidebar stays aside.

For each page of the router (``ui.router.PAGES``, so a new page is covered without new test
code) and each viewport, the page is loaded as a link would open it and measured in the DOM:

- tables (``st.dataframe``): the grid's scroller must not be wider than the grid, i.e. no
  column is cut off (a cut value column hides digits: "10,00" for 10,001); on a phone a
  wide table may scroll sideways under a line that says so (``ui.theme.TABLE_HINT_CSS``);
- formulas (KaTeX display blocks): no wider than the column they sit in;
- chart titles (plotly ``.gtitle``): inside the figure's SVG and clear of the chart toolbar
  (``.modebar``);
- page headings: no horizontal overflow; the page itself never scrolls sideways;
- no text cut short: no label wider than its box ending in "…" (issue 27 §1; the app's CSS
  lets long labels wrap, ``ui.theme.WRAP_CSS``), and no tab or multiselect chip out of
  sight behind the edge of its bar (tab bars and chips wrap);
- no chart text on another: titles, axis titles, tick labels, legend entries, labels and
  annotations of every shown chart (``helpers.CHART_BOXES``);
- every tab of the page as well as the first: each is opened in turn and measured again;
- on a phone, the sidebar starts collapsed and does not cover the main content.

A failure names each offending element, its page and the overflow in pixels. Screenshots of
every page at every size are saved under ``artifacts/screenshots/layout_*``.

The same load checks the teaching screens of issue 27 (:data:`TEACHING`): the words a student
must see in the main area, the text a chart must draw, and a screenshot of that chart as
``teach_<page>_chart_<width>``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    CHART_BOXES,
    SCREENSHOTS,
    VIEWPORTS,
    chart_clipped,
    chart_overlaps,
    errors_on_page,
    exceptions_on_page,
    plot_text_appears,
    plot_texts,
    plot_texts_showing,
    screenshot,
    settle,
)
from tests.e2e.test_browser_statistical import EU_TAB, PI_TAB, _screenshot_each_chart
from ui.router import PAGES, ROOT

#: URL path of every page the router shows (the first page is the root).
PAGE_PATHS = [
    "/" if i == 0 else "/" + Path(spec.script).stem
    for i, spec in enumerate(PAGES)
    if (ROOT / spec.script).exists()
]

#: The teaching screens of issue 27, by page slug: (text in the main area, text drawn in a
#: chart or "" for none, index of that chart).
TEACHING = {
    "gains": ("Advanced: the tolerance τ", "ε 0.01", 2),
    "strata": ("not the active population", "Records drawn per stratum", 0),
    "population": ("The data run from", "off the axis", 0),
    "amplification": ("Budget you may spend", "no constraint left", 1),
    "statistical": ("worst case of differential", "dotted: worst case", 0),
    "game": ("can be negative or have decimals", "", 0),
    "clusters": ("Type exact values", "your clusters: 10 records", 0),
}

#: The Gains page's tabs, in order; at laptop width each is also checked for a drawn chart and
#: captured as ``gains_tab_{i}``.
GAIN_TABS = (
    "Mean: noise ratio r and bound q",
    "Mean on this population",
    "Median: smooth sensitivity",
    "Median: sample or population?",
)

#: Width of the laptop viewport.
WIDE = VIEWPORTS[0][1]

#: Pixels of slack for sub-pixel rounding.
SLACK = 2

#: Runs in the browser; returns one plain-words line per overflowing element.
MEASURE = """(slack) => {
  const problems = [];
  const short = (text) => (text || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
  const vw = window.innerWidth;
  if (document.documentElement.scrollWidth > vw + slack) {
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px ` +
                  `wide in a ${vw} px window`);
  }
  document.querySelectorAll('[data-testid="stDataFrame"]').forEach((grid, i) => {
    const scroller = grid.querySelector('.dvn-scroller');
    if (!scroller) return;
    const over = scroller.scrollWidth - scroller.clientWidth;
    // On a phone a wide table may scroll sideways when a line under it says so
    // (ui.theme.TABLE_HINT_CSS); at laptop width every column must fit.
    const hinted = getComputedStyle(grid, '::after').content.includes('Swipe');
    if (over > slack && !hinted) {
      const head = [...grid.querySelectorAll('[role="columnheader"]')]
        .map((h) => h.textContent).join(' | ');
      problems.push(`table #${i + 1} (columns: ${short(head)}) is cut by ${over} px: ` +
                    `${scroller.scrollWidth} px of columns in a ${scroller.clientWidth} px box`);
    }
  });
  document.querySelectorAll('[data-testid="stTable"] table').forEach((table, i) => {
    const box = table.parentElement;
    const over = table.scrollWidth - box.clientWidth;
    if (over > slack) {
      problems.push(`static table #${i + 1} overflows by ${over} px`);
    }
  });
  document.querySelectorAll('.katex-display').forEach((formula, i) => {
    const column = formula.parentElement;
    const over = formula.scrollWidth - column.clientWidth;
    if (over > slack) {
      const tex = short(formula.querySelector('annotation')?.textContent);
      problems.push(`formula #${i + 1} "${tex}" ` +
                    `is ${formula.scrollWidth} px wide in a ${column.clientWidth} px column ` +
                    `(${over} px cut)`);
    }
  });
  document.querySelectorAll('.js-plotly-plot').forEach((plot, i) => {
    const title = plot.querySelector('.gtitle');
    const svg = plot.querySelector('svg.main-svg');
    if (!title || !svg || !title.textContent.trim()) return;
    const t = title.getBoundingClientRect();
    const s = svg.getBoundingClientRect();
    const name = `chart #${i + 1} title "${short(title.textContent)}"`;
    if (t.right > s.right + slack || t.left < s.left - slack) {
      problems.push(`${name} runs ${Math.round(Math.max(t.right - s.right, s.left - t.left))} ` +
                    `px past its ${Math.round(s.width)} px figure`);
    }
    if (t.top < s.top - slack) {
      problems.push(`${name} starts ${Math.round(s.top - t.top)} px above its figure`);
    }
    const bar = plot.querySelector('.modebar');
    if (bar) {
      const b = bar.getBoundingClientRect();
      const overlap = b.width > 0 && t.left < b.right && b.left < t.right &&
                      t.top < b.bottom && b.top < t.bottom;
      if (overlap) problems.push(`${name} is covered by the chart toolbar`);
    }
  });
  // Text cut short with "…": a label wider than its box (a preset button, a metric, a
  // widget label, a chip of a multiselect). The sidebar counts only while it is open.
  const side = document.querySelector('[data-testid="stSidebar"]');
  const sideOpen = side && side.getAttribute('aria-expanded') !== 'false' &&
                   side.getBoundingClientRect().right > 0;
  const scopes = '[data-testid="stMain"] *' + (sideOpen ? ', [data-testid="stSidebar"] *' : '');
  const cut = new Set();
  document.querySelectorAll(scopes).forEach((el) => {
    if (el.children.length > 3) return;
    if (getComputedStyle(el).textOverflow !== 'ellipsis') return;
    const text = short(el.textContent);
    if (text && el.getClientRects().length && el.scrollWidth > el.clientWidth + slack) {
      cut.add(text);
    }
  });
  cut.forEach((text) => problems.push(`text cut short: "${text}"`));
  // Tabs behind the edge of a tab bar that scrolls sideways (on a phone only two or three
  // tabs would show, behind a small arrow); the bar wraps instead.
  document.querySelectorAll('[data-testid="stTabs"] [role="tablist"]').forEach((list) => {
    const box = list.getBoundingClientRect();
    const hidden = [...list.querySelectorAll('[role="tab"]')].filter((t) => {
      const r = t.getBoundingClientRect();
      return r.right > Math.min(box.right, vw) + slack || r.left < box.left - slack;
    }).map((t) => short(t.textContent));
    if (hidden.length) problems.push(`tabs out of sight: ${hidden.join(' | ')}`);
  });
  // Chips of a multiselect behind the edge of its box (Streamlit scrolls them sideways
  // behind a fade; the app's CSS wraps them onto more lines).
  document.querySelectorAll('[data-testid="stMultiSelectTagsContainer"]').forEach((box) => {
    const b = box.getBoundingClientRect();
    const hidden = [...box.querySelectorAll('[data-tag]')].filter((t) => {
      const r = t.getBoundingClientRect();
      return r.width && (r.right > b.right + slack || r.bottom > b.bottom + slack);
    }).map((t) => short(t.textContent));
    if (hidden.length) problems.push(`chips out of sight: ${hidden.join(' | ')}`);
  });
  document.querySelectorAll('[data-testid="stMain"] h1, [data-testid="stMain"] h2')
    .forEach((h) => {
      const over = h.scrollWidth - h.clientWidth;
      if (over > slack) problems.push(`heading "${short(h.textContent)}" overflows by ${over} px`);
    });
  return problems;
}"""

#: Runs in the browser: how much of the main content the sidebar covers, in pixels.
SIDEBAR_COVER = """() => {
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!sidebar || !main) return 0;
  const s = sidebar.getBoundingClientRect();
  const m = main.getBoundingClientRect();
  if (s.width === 0 || s.right <= 0) return 0;
  return Math.max(0, Math.min(s.right, m.right) - Math.max(s.left, m.left));
}"""


def _drawn(page) -> None:
    """Wait until every chart is drawn and every font loaded."""
    page.wait_for_function(
        """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
                 .every((c) => c.querySelector('.main-svg'))"""
    )
    page.evaluate("document.fonts.ready")


def _load(page, url: str) -> None:
    page.goto(url)
    settle(page)
    _drawn(page)  # every chart drawn and every formula typeset before measuring
    settle(page, start_timeout=0.0)  # drawing starts no run: a run under way is waited for


def _chart_problems(page) -> list[str]:
    """Texts of a shown chart that lie on each other or run past the figure's edge."""
    problems = []
    charts = page.locator('[data-testid="stPlotlyChart"]')
    for i in range(charts.count()):
        chart = charts.nth(i)
        if not chart.is_visible():
            continue  # in a tab not shown
        measured = chart.evaluate(CHART_BOXES)
        items = [x for x in measured["items"] if x["group"] != "star"]
        title = next((x["text"] for x in items if x["group"] == "title"), f"#{i + 1}")
        problems += [f'chart "{title[:50]}": {p} overlap' for p in chart_overlaps(items)]
        problems += [
            f'chart "{title[:50]}": {p} is cut at the edge' for p in chart_clipped(measured)
        ]
    return problems


def _measure(page) -> list[str]:
    """Everything :data:`MEASURE` finds, and overlapping chart texts."""
    return list(page.evaluate(MEASURE, SLACK)) + _chart_problems(page)


def _statistical_tab(page, index: int) -> None:
    """The Statistical privacy page's own checks of its tab ``index`` (0: the default)."""
    if index == 0:
        heading = page.get_by_role("heading", name="Statistical privacy").first
        expect(heading).to_be_visible(timeout=60_000)
        main = page.locator('[data-testid="stMainBlockContainer"]').inner_text()
        assert "does not use the population chosen in the sidebar" in main
        plot_texts_showing(page, "no mechanism", "worst case (DP)")
    elif index == 1:
        plot_texts_showing(page, "worst case (DP) δ = 0.38", "δ = 0.128")  # §5's numbers
        assert parse_qs(urlparse(page.url).query).get("sp_view") == [PI_TAB]
    else:
        assert plot_text_appears(page, "subsampling, π = 0.5"), plot_texts(page)[-400:]
    assert errors_on_page(page) == []
    stem = "statistical_" + ("curve", "pi", "equal_utility")[index]
    screenshot(page, stem)
    _screenshot_each_chart(page, stem)


def _every_tab(page, shots: str = "") -> list[str]:
    """Open each tab after the first in turn and measure it (issue 27 §1: every tab).

    A tab that shows an exception is a problem on every page. With ``shots`` (a prefix), each
    tab must also show a drawn chart, and is captured as ``{shots}_tab_{i}``.
    """
    problems = []
    tabs = page.locator('[data-testid="stTab"]')
    for i in range(1, tabs.count()):
        tab = tabs.nth(i)
        label = " ".join(tab.inner_text().split())
        tab.click()
        settle(page)
        _drawn(page)
        if shots:
            page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
        page.wait_for_timeout(300)  # plotly lays a legend out after the first paint
        problems += [f'tab "{label}": {p}' for p in _measure(page)]
        problems += [f'tab "{label}": an exception is shown'] if exceptions_on_page(page) else []
        if shots == "statistical":
            _statistical_tab(page, i)
        elif shots:
            screenshot(page, f"{shots}_tab_{i}")
    return problems


def _teaching_screen(page, slug: str, width: int, height: int) -> None:
    """The checks of :data:`TEACHING` for the page ``slug`` (loaded and measured already)."""
    words, drawn, chart = TEACHING[slug]
    page.locator('[data-testid="stMainBlockContainer"]').get_by_text(words).first.wait_for()
    if drawn:
        assert plot_text_appears(page, drawn), plot_texts(page)[-400:]
    assert errors_on_page(page) == [] and exceptions_on_page(page) == []
    if slug == "clusters":  # the exact boxes wait behind the toggle: the result comes soon
        assert not page.locator(".st-key-cl_size input").is_visible()
        first_metric = page.locator('[data-testid="stMetric"]').first.bounding_box()
        assert first_metric is not None and first_metric["y"] < 2 * height
        page.locator(".st-key-cl_exact").scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"teach_clusters_controls_{width}.png"))
    if drawn:
        element = page.locator('[data-testid="stPlotlyChart"]').nth(chart)
        element.scroll_into_view_if_needed()
        element.screenshot(path=str(SCREENSHOTS / f"teach_{slug}_chart_{width}.png"))


@pytest.mark.parametrize(("name", "width", "height"), VIEWPORTS, ids=[v[0] for v in VIEWPORTS])
@pytest.mark.parametrize("path", PAGE_PATHS, ids=[p.strip("/") or "population" for p in PAGE_PATHS])
def test_nothing_overflows(browser, app_url, path, name, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(90_000)
    slug = path.strip("/") or "population"
    try:
        _load(page, app_url + path)
        screenshot(page, f"layout_{slug}_{width}x{height}")
        problems = _measure(page)
        cover = page.evaluate(SIDEBAR_COVER)
        if slug in TEACHING:
            _teaching_screen(page, slug, width, height)
        if slug == "gains" and width == WIDE:
            labels = [" ".join(t.split()) for t in page.get_by_role("tab").all_inner_texts()]
            assert labels[: len(GAIN_TABS)] == list(GAIN_TABS), labels
            problems += _every_tab(page, shots="gains")
        elif slug == "statistical" and width == WIDE:
            labels = [" ".join(t.split()) for t in page.get_by_role("tab").all_inner_texts()]
            assert labels[1:3] == [PI_TAB, EU_TAB], labels
            _statistical_tab(page, 0)
            problems += _every_tab(page, shots="statistical")
        else:
            problems += _every_tab(page)
    finally:
        context.close()
    if width < 640:
        problems += [f"the sidebar covers {cover:.0f} px of the content"] if cover > 0 else []
    where = f"page {path} at {width}×{height} ({name})"
    assert not problems, f"{where}:\n  " + "\n  ".join(problems)


def test_every_teaching_screen_is_a_page():
    slugs = {p.strip("/") or "population" for p in PAGE_PATHS}
    assert set(TEACHING) <= slugs, set(TEACHING) - slugs
