"""End-to-end, issue 22 part 4: no request takes the server down.

A server of its own is started on a 5,000,000-record Parquet register named on its command
line (4 regions as strata, 480 districts as clusters). One session opens the Release planner
with its default controls while a second session uses the Amplification page; both must get
their results, and the server's resident memory must stay within the population's own
columns plus the planner's memory budget (1 GiB by default) and a margin for the server.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Server, serve
from tests.e2e.helpers import errors_on_page, exceptions_on_page, screenshot, settle
from tests.populations import write_register

SIZE = 5_000_000
#: Resident memory the server may reach (MB): population columns and caches (~1.5 GB
#: for 5 million records with labels), the planner's 1 GiB budget and Streamlit itself.
MAX_RSS_MB = 4_000.0


@pytest.fixture(scope="module")
def register_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("register_5m")
    path = write_register(folder / "register.parquet", SIZE, 22, regions=4, districts=120)
    argv = ["--population", str(path), "--value", "income", "--lower", "0", "--upper", "1e7"]
    argv += ["--stratum", "region", "--cluster", "district"]
    with serve(folder / "server.log", extra_args=["--", *argv]) as server:
        yield server


def _watch_memory(server: Server, stop: threading.Event, peak: list[float]) -> None:
    while not stop.is_set():
        try:
            peak[0] = max(peak[0], server.rss_mb())
        except (OSError, RuntimeError):
            return
        stop.wait(0.2)


def test_planner_on_a_5_million_record_register_beside_a_second_session(
    browser, register_server: Server
) -> None:
    peak = [0.0]
    stop = threading.Event()
    watcher = threading.Thread(target=_watch_memory, args=(register_server, stop, peak))
    watcher.start()
    planner_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    other_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        planner_page = planner_ctx.new_page()
        other_page = other_ctx.new_page()
        planner_page.goto(f"{register_server.url}/planner")
        other_page.goto(f"{register_server.url}/amplification")
        settle(other_page, timeout=300)
        other_page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=300_000)
        settle(planner_page, timeout=600)
        planner_page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg', timeout=600_000)
        for pg, name in ((planner_page, "planner"), (other_page, "amplification")):
            assert exceptions_on_page(pg) == [], name
            assert errors_on_page(pg) == [], name
            assert "Traceback" not in pg.locator("body").inner_text(), name
        text = planner_page.locator('[data-testid="stMainBlockContainer"]').inner_text()
        assert "N = 5,000,000" in text or "5,000,000" in text
        screenshot(planner_page, "planner_register_5m")
        screenshot(other_page, "amplification_beside_planner_5m")
        # The server is still up and answers a third request.
        other_page.reload()
        settle(other_page, timeout=300)
        assert exceptions_on_page(other_page) == []
    finally:
        stop.set()
        watcher.join()
        planner_ctx.close()
        other_ctx.close()
    print(f"server peak RSS on the 5,000,000-record register: {peak[0]:,.0f} MB")
    assert 0 < peak[0] < MAX_RSS_MB, peak[0]
