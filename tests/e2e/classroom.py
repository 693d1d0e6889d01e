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


async def _settle(page, timeout: float) -> None:
    """Wait until the running icon has been absent at :data:`QUIET_CHECKS` checks in a row.

    The page runs the checks (:data:`_QUIET`): thirty sessions polling from the driver would
    spend a good part of a core on round trips to the browser, which the server needs.
    """
    from playwright.async_api import TimeoutError as PlaywrightTimeoutError

    await page.evaluate("() => { window.__quiet = 0; }")
    try:
        await page.wait_for_function(
            _QUIET, arg=[RUNNING, QUIET_CHECKS], polling=QUIET_POLL_MS, timeout=timeout * 1000
        )
    except PlaywrightTimeoutError as err:
        raise TimeoutError("page kept running") from err


async def _student(
    classroom,
    url: str,
    index: int,
    paths: list[str],
    timeout: float,
    stagger: float,
    moves: bool = True,
) -> list[dict]:
    await asyncio.sleep(index * stagger)  # students do not all press Enter in the same second
    page = await classroom.new_page()
    page.set_default_timeout(timeout * 1000)
    records = []
    try:
        for path in paths:
            record: dict[str, object] = {"session": index, "page": path}
            t0 = time.perf_counter()
            try:
                await page.goto(url + path)
                await page.wait_for_selector(RENDERED)
                record["chart_seconds"] = time.perf_counter() - t0
                await _settle(page, timeout)
                if moves:
                    seed = page.get_by_role("spinbutton", name="Seed")
                    await seed.fill(str(index + 1))
                    await seed.press("Enter")
                    await _settle(page, timeout)
                    await page.wait_for_selector(RENDERED)
                    record["after_control_seconds"] = time.perf_counter() - t0
                errors = page.locator(ERRORS)
                record["errors"] = [
                    await errors.nth(i).inner_text() for i in range(await errors.count())
                ]
            except Exception as exc:  # a failed visit is a result, not a crash of the driver
                record["errors"] = [f"{type(exc).__name__}: {exc}"[:500]]
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
