"""Small Playwright helpers shared by the browser tests."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"

#: (name, width, height) of the two sizes every browser test checks: a laptop and a phone
#: (iPhone 12–15 class). A wider desktop window only gives the layout more room.
VIEWPORTS = (("laptop", 1280, 720), ("phone", 390, 844))

ERROR_SELECTORS = ('[data-testid="stException"]', '[data-testid="stAlertContentError"]')


#: Installed into the page by :func:`settle`: counts the script runs the browser sees.
#: A run is "busy" while Streamlit shows its running icon, a skeleton, or marks elements
#: stale (``data-stale="true"``, set while a rerun has not redrawn them yet). A
#: MutationObserver sees every change of the page, so a run that starts and ends between
#: two polls is still counted.
_RUN_WATCHER = """() => {
    if (window.__stRuns) { return false; }
    const busySelector = '[data-testid="stStatusWidgetRunningIcon"], '
        + '[data-testid="stSkeleton"], [data-stale="true"]';
    const runs = {started: 0, finished: 0, busy: false, settled: 0};
    const update = () => {
        const busy = document.querySelector(busySelector) !== null;
        if (busy && !runs.busy) { runs.started += 1; }
        if (!busy && runs.busy) { runs.finished += 1; }
        runs.busy = busy;
    };
    update();
    new MutationObserver(update).observe(document.documentElement, {
        subtree: true, childList: true, attributes: true,
        attributeFilter: ['data-stale', 'data-testid'],
    });
    window.__stRuns = runs;
    return true;
}"""


#: Polled inside the page by :func:`settle`: whether the run the last action started has
#: started and the page has then stayed idle for :data:`_IDLE_MS`. ``fresh``: the page is a
#: new document, whose first run is done once content is drawn and nothing runs (busy markers
#: alone are not enough: under load the skeleton can go before the running icon comes, and
#: the page looks idle with nothing drawn yet). Else a run newer than the one the previous
#: call saw must start, or the start deadline (``runs.startBy``) pass: some actions start
#: none. Idle is confirmed after a short pause, with no run started in between (a run may
#: trigger a follow-up).
_SETTLED = """([fresh, content, idleMs]) => {
    const runs = window.__stRuns;
    const now = performance.now();
    const started = fresh ? document.querySelector(content) !== null
        : runs.started > runs.settled || now > runs.startBy;
    if (!started || runs.busy) { runs.idleSince = null; return false; }
    if (runs.idleSince === null || runs.idleStarted !== runs.started) {
        runs.idleSince = now;
        runs.idleStarted = runs.started;
        return false;
    }
    if (now - runs.idleSince < idleMs) { return false; }
    runs.settled = runs.started;
    return true;
}"""

#: How long the page must stay idle before :func:`settle` returns, in milliseconds.
_IDLE_MS = 100
#: How often the page checks :data:`_SETTLED`, in milliseconds.
_POLL_MS = 50


def settle(page, *, timeout: float = 60.0, start_timeout: float = 5.0) -> None:
    """Wait until the rerun that the last action started has started and finished.

    The page keeps a count of script runs (see ``_RUN_WATCHER``). After an action, a rerun
    starts a moment later; returning while the page still looks quiet would read the old
    page. So :func:`settle` waits for a run newer than the one the previous call saw to
    start (for at most ``start_timeout`` seconds: some actions start none), then for the
    page to be idle. On a freshly loaded page it waits until content is drawn and idle.
    The page itself checks this every few milliseconds (:data:`_SETTLED`), so the wait costs
    one round trip to the browser, not one per check.

    Raises
    ------
    AssertionError
        If the page is still busy after ``timeout`` seconds.
    """
    page.wait_for_selector('[data-testid="stMainBlockContainer"]', timeout=timeout * 1000)
    fresh = page.evaluate(_RUN_WATCHER)
    page.evaluate(
        "(ms) => { const r = window.__stRuns; r.startBy = performance.now() + ms;"
        " r.idleSince = null; }",
        start_timeout * 1000,
    )
    content = '[data-testid="stMainBlockContainer"] [data-testid="stElementContainer"]'
    try:
        page.wait_for_function(
            _SETTLED, arg=[fresh, content, _IDLE_MS], polling=_POLL_MS, timeout=timeout * 1000
        )
    except PlaywrightTimeoutError as err:
        raise AssertionError(f"the app kept running for more than {timeout} s") from err


def errors_on_page(page) -> list[str]:
    """Texts of exception and error elements currently shown."""
    texts: list[str] = []
    for selector in ERROR_SELECTORS:
        loc = page.locator(selector)
        texts.extend(loc.nth(i).inner_text() for i in range(loc.count()))
    return texts


def exceptions_on_page(page) -> list[str]:
    """Texts of uncaught-exception elements (tracebacks) only."""
    loc = page.locator('[data-testid="stException"]')
    return [loc.nth(i).inner_text() for i in range(loc.count())]


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under ``artifacts/screenshots`` (git-ignored)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def plot_texts(page) -> str:
    """All text drawn inside plotly charts (legends, titles, axis labels)."""
    loc = page.locator('[data-testid="stPlotlyChart"]')
    return "\n".join(loc.nth(i).inner_text() for i in range(loc.count()))


def plot_text_appears(page, text: str, *, timeout: float = 60.0) -> bool:
    """Whether ``text`` is drawn in a plotly chart within ``timeout`` seconds.

    Under load a chart can be redrawn after :func:`settle` has returned (the rerun lags behind
    the click while other sessions use both cores), so a chart's new text is awaited rather
    than read once.
    """
    deadline = time.monotonic() + timeout
    while text not in plot_texts(page):
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(250)
    return True


def plot_texts_showing(page, *shown: str, gone: tuple[str, ...] = (), timeout: float = 60.0) -> str:
    """The charts' text once every string of ``shown`` is drawn and none of ``gone`` is.

    After a control moves, the rerun can redraw a chart a moment after :func:`settle` returns
    (other sessions share the two cores), so the expected text is awaited, not read once.

    Raises
    ------
    AssertionError
        If the charts do not show it within ``timeout`` seconds (the message holds their text).
    """
    deadline = time.monotonic() + timeout
    while True:
        texts = plot_texts(page)
        if all(t in texts for t in shown) and not any(t in texts for t in gone):
            return texts
        if time.monotonic() > deadline:
            raise AssertionError(f"charts never showed {shown} without {gone}: {texts[-600:]}")
        page.wait_for_timeout(250)


UPLOAD_INPUT = '[data-testid="stFileUploaderDropzoneInput"]'


def _names_a_file(line: str, name: str) -> bool:
    """Whether one line of the uploader shows ``name``, whole or shortened in the middle.

    Streamlit shortens a long file name to its first and last characters around "..."
    (``parquet...ed_csv.csv``).
    """
    head, dots, tail = line.strip().partition("...")
    if not dots:
        return line.strip() == name
    return bool(head) and bool(tail) and name.startswith(head) and name.endswith(tail)


def upload_file(page, path: Path, *, timeout: float = 30.0) -> None:
    """Drop ``path`` into the page's upload widget and wait for the rerun it starts.

    Waits until the widget lists the file (by its name, or the shortened form Streamlit
    shows for a long one), then for the page to settle.
    """
    page.locator(UPLOAD_INPUT).set_input_files(str(path))
    uploader = page.locator('[data-testid="stFileUploader"]')
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(_names_a_file(line, path.name) for line in uploader.inner_text().splitlines()):
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the upload widget never listed {path.name}")
    settle(page)  # waits for the rerun the upload triggers to start and finish


def use_population(page) -> None:
    """Press the upload form's "Use this population" and wait for the rerun."""
    page.get_by_role("button", name="Use this population").click()
    settle(page)


def upload_and_use(page, path: Path) -> None:
    """Upload ``path`` and make it the active population (the file must be one that loads)."""
    upload_file(page, path)
    use_population(page)


#: Boxes of a chart's texts (titles, ticks, legend entries, labels, annotations) and of the
#: planner's best-plan star, grouped by what they are; run on a ``stPlotlyChart`` element.
CHART_BOXES = r"""
(chart) => {
  const svg = chart.querySelector('.main-svg');
  const groups = {
    title: '.g-gtitle text', xtitle: '.g-xtitle text', ytitle: '.g-ytitle text',
    xtick: '.xaxislayer-above .xtick text', ytick: '.yaxislayer-above .ytick text',
    legend: '.legend .legendtext', label: '.shapelayer text',
    annotation: '.annotation .annotation-text',
  };
  const items = [];
  const root = chart;
  for (const [group, selector] of Object.entries(groups)) {
    for (const el of root.querySelectorAll(selector)) {
      const b = el.getBoundingClientRect();
      if (b.width > 0 && b.height > 0 && el.textContent.trim()) {
        const turned = /rotate\((?!0[,)])/.test(el.getAttribute('transform') || '');
        items.push({group, text: el.textContent.trim(), turned,
                    box: [b.left, b.top, b.right, b.bottom]});
      }
    }
  }
  const traces = root.querySelectorAll('.scatterlayer .trace');
  const star = traces.length ? traces[traces.length - 1].querySelector('.points path') : null;
  if (star) {
    const b = star.getBoundingClientRect();
    items.push({group: 'star', text: 'best plan', box: [b.left, b.top, b.right, b.bottom]});
  }
  const edge = svg ? svg.getBoundingClientRect() : null;
  return {items, width: edge ? edge.width : 0,
          svg: edge ? [edge.left, edge.top, edge.right, edge.bottom] : [0, 0, 0, 0]};
}
"""

#: Boxes may touch: overlaps up to this many pixels are rounding.
CHART_SLACK_PX = 1.0


def chart_overlaps(items: list[dict]) -> list[str]:
    """Pairs of chart texts (or a text and the star) whose boxes overlap by more than 1 px."""
    found = []
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            if a["group"] == b["group"] == "title":
                continue  # the lines of one wrapped title
            if a["group"] == b["group"] and (a.get("turned") or b.get("turned")):
                continue  # plotly turned the tick labels so they clear each other; their
                # upright boxes overlap although the slanted texts do not
            (l1, t1, r1, b1), (l2, t2, r2, b2) = a["box"], b["box"]
            wide = min(r1, r2) - max(l1, l2)
            tall = min(b1, b2) - max(t1, t2)
            if wide > CHART_SLACK_PX and tall > CHART_SLACK_PX:
                found.append(f"{a['group']} {a['text']!r} × {b['group']} {b['text']!r}")
    return found


#: The reference lines of a chart (layout shapes) with their labels: each line's box and its
#: label's box, in page pixels.
REFERENCE_LINES = r"""
(chart) => Array.from(chart.querySelectorAll('.shapelayer .shape-group')).map((g) => {
  const path = g.querySelector('path');
  const text = g.querySelector('.shape-label-text');
  const box = (el) => { const b = el.getBoundingClientRect();
                        return [b.left, b.top, b.right, b.bottom]; };
  return {line: path ? box(path) : null, text: text ? text.textContent.trim() : '',
          label: text && text.textContent.trim() ? box(text) : null};
})
"""


def labels_on_lines(shapes: list[dict]) -> list[str]:
    """Labels of reference lines that a different reference line crosses (by more than
    1 px inside the label's box), e.g. "your bound" drawn on the census line."""
    found = []
    s = CHART_SLACK_PX
    for i, a in enumerate(shapes):
        if a["label"] is None:
            continue
        left, top, right, bottom = a["label"]
        for j, b in enumerate(shapes):
            if i == j or b["line"] is None:
                continue
            l2, t2, r2, b2 = b["line"]
            across = min(right, r2) - max(left, l2) > s
            if across and t2 < bottom - s and b2 > top + s:
                found.append(f"label {a['text']!r} × line of {b['text'] or j!r}")
    return found


def chart_clipped(measured: dict) -> list[str]:
    """Chart texts whose box reaches past the chart's own SVG (cut at the figure's edge)."""
    left, top, right, bottom = measured["svg"]
    s = CHART_SLACK_PX
    return [
        f"{item['group']} {item['text']!r} at {[round(v) for v in item['box']]}"
        for item in measured["items"]
        if item["group"] != "star"
        and (
            item["box"][0] < left - s
            or item["box"][1] < top - s
            or item["box"][2] > right + s
            or item["box"][3] > bottom + s
        )
    ]
