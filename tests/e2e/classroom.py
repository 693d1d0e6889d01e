"""A classroom of browsers: many concurrent sessions against one server.

Each simulated student opens its own browser tab (its own Streamlit session), visits its
pages of the app (every page, or a few: :func:`visit_plan`), waits for the first chart to be
drawn (or, on a page with nothing to chart for the default population, its explanation box),
then (every session in the soak, one per page in the suite: :func:`movers`) moves a control,
the sidebar seed, and waits for the page to settle. The driver records
the time from navigation to the first rendered chart and every error or exception element it
sees.

Run as a module (the browser test and ``bench/bench_classroom.py`` do)::

    python -m tests.e2e.classroom http://127.0.0.1:8501 --sessions 30 [--pages-per-session 2]

It prints one JSON object with the per-visit records and a summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from ui.router import PAGES  # noqa: E402

CHART = '[data-testid="stPlotlyChart"] .main-svg'
#: A page is "rendered" when its first chart is drawn, or, for a page that has no chart for
#: the current population (e.g. no strata), when its explanation box is shown.
RENDERED = f'{CHART}, [data-testid="stAlertContentInfo"]'
ERRORS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
RUNNING = '[data-testid="stStatusWidgetRunningIcon"]'


def page_paths() -> list[str]:
    """URL paths of every page the router shows (the first page is the root)."""
    paths = []
    for i, spec in enumerate(PAGES):
        if (ROOT / spec.script).exists():
            paths.append("/" if i == 0 else "/" + Path(spec.script).stem)
    return paths


def movers(sessions: int, pages: int, pages_per_session: int | None) -> list[bool]:
    """Which sessions move the sidebar seed after each page is drawn.

    In the full soak (``pages_per_session`` None) every session does. With a few pages per
    session, one session of each group that loads a page together does (the first of the
    group, :func:`visit_plan`), so that every page reruns on a changed control while its
    other visitors are still on it, and the browser renders a third fewer pages.
    """
    if pages_per_session is None or pages_per_session >= pages:
        return [True] * sessions
    firsts = {-(-(g * sessions) // pages) for g in range(pages)}
    return [i in firsts for i in range(sessions)]


def visit_plan(paths: list[str], sessions: int, pages_per_session: int | None) -> list[list[str]]:
    """The pages each session visits, in order.

    ``None`` (or at least as many pages as there are): every session visits every page. Else
    the sessions are dealt onto the pages in contiguous groups (session ``i`` starts at page
    ``g = ⌊i·P/sessions⌋``), so that the sessions of a group, which start within a few
    stagger steps of each other, load the same page at the same time; each then moves on
    by ``P/pages_per_session`` pages. With 30 sessions, 10 pages and two pages each, every
    page is visited by three sessions at once at the first step and three at the second.
    """
    count = len(paths)
    if pages_per_session is None or pages_per_session >= count:
        return [list(paths) for _ in range(sessions)]
    step = max(1, count // pages_per_session)
    plan = []
    for i in range(sessions):
        first = (i * count) // sessions
        plan.append([paths[(first + j * step) % count] for j in range(pages_per_session)])
    return plan


#: Checked by the page itself every :data:`QUIET_POLL_MS` (:func:`_settle`): whether the
#: running icon has been absent at ``needed`` checks in a row.
_QUIET = """([selector, needed]) => {
    window.__quiet = document.querySelector(selector) === null ? (window.__quiet || 0) + 1 : 0;
    return window.__quiet >= needed;
}"""
QUIET_POLL_MS = 250
#: Checks in a row without the running icon that count as settled (about 0.75 s quiet).
QUIET_CHECKS = 4


#: The path of the websocket a Streamlit page keeps to its session on the server.
STREAM_PATH = "/_stcore/stream"
#: Streamlit's connection badge, shown while the page is not connected to its session.
CONNECTION = '[data-testid="stConnectionStatus"]'


class ConnectionLost(Exception):
    """The page's connection to the server closed while the driver waited for it."""


class Connection:
    """The websocket of one student's tab, watched while the driver waits on the page.

    Streamlit keeps one websocket per tab (:data:`STREAM_PATH`). When the one the page holds
    closes, :attr:`lost` is set, so that a wait on the page ends at once instead of running
    out its deadline for a page that no longer hears from the server. A socket closed by
    navigating away (:meth:`expect_navigation`) is not a loss.
    """

    def __init__(self, page) -> None:
        self.socket = None
        self.lost = asyncio.get_running_loop().create_future()
        page.on("websocket", self._opened)

    def _opened(self, socket) -> None:
        if STREAM_PATH not in socket.url:
            return
        self.socket = socket
        socket.on("close", lambda closed: self._closed(closed))

    def _closed(self, socket) -> None:
        if socket is self.socket and not self.lost.done():
            self.lost.set_result(socket.url)

    def expect_navigation(self) -> None:
        """Before a navigation: the page's current socket may close; watch afresh."""
        self.socket = None
        if self.lost.done():
            self.lost = asyncio.get_running_loop().create_future()


async def _waiting(page, connection: Connection, what: str, wait, waits: list) -> None:
    """Await ``wait`` (a coroutine waiting on the page), logged in ``waits`` as ``what``.

    Raises
    ------
    ConnectionLost
        As soon as the page's websocket closes during the wait.
    TimeoutError
        When ``wait`` runs out its deadline; the message says whether the page showed
        Streamlit's connection badge then.
    """
    from playwright.async_api import TimeoutError as PlaywrightTimeoutError

    t0 = time.perf_counter()
    entry: dict[str, object] = {"for": what}
    waits.append(entry)
    task = asyncio.ensure_future(wait)
    try:
        await asyncio.wait({task, connection.lost}, return_when=asyncio.FIRST_COMPLETED)
        entry["seconds"] = round(time.perf_counter() - t0, 2)
        if not task.done():
            entry["outcome"] = "connection lost"
            raise ConnectionLost(f"the connection to the server closed while waiting for {what}")
        entry["outcome"] = "failed"
        try:
            task.result()
        except PlaywrightTimeoutError as err:
            badge = await page.locator(CONNECTION).count()
            entry["outcome"] = "timed out"
            shown = "; Streamlit shows its connection badge" if badge else ""
            raise TimeoutError(f"timed out waiting for {what}{shown}") from err
        entry["outcome"] = "done"
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def _settle(page, timeout: float) -> None:
    """Wait until the running icon has been absent at :data:`QUIET_CHECKS` checks in a row.

    The page runs the checks (:data:`_QUIET`): thirty sessions polling from the driver would
    spend a good part of a core on round trips to the browser, which the server needs.
    Raises Playwright's TimeoutError after ``timeout`` seconds.
    """
    await page.evaluate("() => { window.__quiet = 0; }")
    await page.wait_for_function(
        _QUIET, arg=[RUNNING, QUIET_CHECKS], polling=QUIET_POLL_MS, timeout=timeout * 1000
    )


async def _visit(
    page, connection: Connection, url: str, index: int, timeout: float, moves: bool, record: dict
) -> None:
    """One visit of ``url`` by student ``index``: rendered, settled, the seed moved, errors."""
    waits = record.setdefault("waits", [])
    t0 = time.perf_counter()
    connection.expect_navigation()
    await _waiting(page, connection, "the page to load", page.goto(url), waits)
    await _waiting(page, connection, "the first chart", page.wait_for_selector(RENDERED), waits)
    record["chart_seconds"] = time.perf_counter() - t0
    await _waiting(page, connection, "the page to settle", _settle(page, timeout), waits)
    if moves:
        seed = page.get_by_role("spinbutton", name="Seed")
        await _waiting(page, connection, "the seed control", seed.fill(str(index + 1)), waits)
        await seed.press("Enter")
        await _waiting(
            page, connection, "the page to settle after the seed", _settle(page, timeout), waits
        )
        await _waiting(
            page, connection, "the chart after the seed", page.wait_for_selector(RENDERED), waits
        )
        record["after_control_seconds"] = time.perf_counter() - t0
    errors = page.locator(ERRORS)
    record["errors"] = [await errors.nth(i).inner_text() for i in range(await errors.count())]


async def _student(
    classroom,
    url: str,
    index: int,
    paths: list[str],
    timeout: float,
    stagger: float,
    moves: bool = True,
) -> list[dict]:
    """Student ``index`` visits ``paths``; one record per visit.

    A visit whose connection to the server closes is made again once from the start, as a
    student's browser reconnects and the student reloads; the record keeps what was lost
    (``reloaded``). A second loss, a timeout or any other failure is the visit's error,
    naming the session, the page and what the driver waited for.
    """
    await asyncio.sleep(index * stagger)  # students do not all press Enter in the same second
    page = await classroom.new_page()
    page.set_default_timeout(timeout * 1000)
    connection = Connection(page)
    records = []
    try:
        for path in paths:
            record: dict[str, object] = {"session": index, "page": path}
            for attempt in range(2):
                try:
                    await _visit(page, connection, url + path, index, timeout, moves, record)
                    break
                except ConnectionLost as lost:
                    if attempt == 0:
                        record["reloaded"] = str(lost)
                        continue
                    record["errors"] = [f"session {index} on {path}: {lost} (after a reload)"]
                except Exception as exc:  # a failed visit is a result, not a crash of the driver
                    text = f"{type(exc).__name__}: {exc}"[:500]
                    record["errors"] = [f"session {index} on {path}: {text}"]
                    break
            records.append(record)
    finally:
        await page.close()
    return records


async def run_classroom(
    url: str,
    sessions: int,
    timeout: float,
    stagger: float = 0.5,
    pages_per_session: int | None = None,
) -> dict:
    """Run ``sessions`` concurrent students against ``url``; return records and a summary.

    Session ``i`` starts ``i * stagger`` seconds after the first, so with the defaults all 30
    are open within 15 seconds and then work concurrently. Each visits the pages
    :func:`visit_plan` gives it (every page when ``pages_per_session`` is ``None``).
    """
    from playwright.async_api import async_playwright

    paths = page_paths()
    plan = visit_plan(paths, sessions, pages_per_session)
    moving = movers(sessions, len(paths), pages_per_session)
    t0 = time.perf_counter()
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        # One browser profile, one tab per student. Every tab is a Streamlit session of its
        # own (a session lives on its tab's connection), so the server sees 30 sessions as
        # from 30 browsers; sharing one profile's script cache spares the two cores
        # compiling the same frontend 30 times, which is the browser's cost, not the app's.
        classroom = await browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            results = await asyncio.gather(
                *(
                    _student(classroom, url, i, plan[i], timeout, stagger, moving[i])
                    for i in range(sessions)
                )
            )
        finally:
            await classroom.close()
            await browser.close()
    records = [r for session in results for r in session]
    times = [r["chart_seconds"] for r in records if "chart_seconds" in r]
    summary = {
        "sessions": sessions,
        "pages": paths,
        "pages_per_session": len(plan[0]) if plan else 0,
        "visits": len(records),
        "visits_with_errors": sum(1 for r in records if r.get("errors")),
        "visits_reloaded": sum(1 for r in records if "reloaded" in r),
        "median_chart_seconds": statistics.median(times) if times else None,
        "worst_chart_seconds": max(times) if times else None,
        "wall_seconds": time.perf_counter() - t0,
    }
    return {"summary": summary, "records": records}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--timeout", type=float, default=420.0, help="seconds per wait")
    parser.add_argument("--stagger", type=float, default=0.5, help="seconds between starts")
    parser.add_argument(
        "--pages-per-session", type=int, default=None, help="pages each session visits (all)"
    )
    args = parser.parse_args()
    result = asyncio.run(
        run_classroom(args.url, args.sessions, args.timeout, args.stagger, args.pages_per_session)
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
