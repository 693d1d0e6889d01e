"""End-to-end, issue 15 "Done means": a server started with ``--population`` on a Parquet file.

One server of its own (``streamlit run serve.py -- --population FILE --value income ...``) on a
20,000-row Parquet register with a stratum and a cluster column; Chromium opens every page of
:data:`ui.router.PAGES` through the menu and finds the file in the sidebar and no traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import serve
from tests.e2e.helpers import errors_on_page, exceptions_on_page, screenshot, settle
from tests.populations import write_register
from ui.router import DEFAULT_PAGE, PAGES

SIZE = 20_000
LABEL = f"register.parquet (N = {SIZE:,})"


@pytest.fixture(scope="module")
def register_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a server started with the Parquet register on its command line."""
    folder = tmp_path_factory.mktemp("command_line")
    # SIZE establishments: income, 6 regions, 40 districts per region.
    path = write_register(folder / "register.parquet", SIZE, 15, regions=6, districts=40)
    argv = ["--population", str(path), "--value", "income", "--lower", "0", "--upper", "1e7"]
    argv += ["--stratum", "region", "--cluster", "district"]
    with serve(folder / "server.log", extra_args=["--", *argv]) as server:
        yield server.url


def _sidebar(page) -> str:
    return page.locator('[data-testid="stSidebar"]').inner_text()


def _open_from_menu(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    settle(page)


def _population_shown(page) -> str:
    """What the sidebar's population selector shows (its input holds the chosen label)."""
    box = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first
    inputs = box.locator("input")
    value = inputs.first.input_value() if inputs.count() else ""
    return f"{box.inner_text()}\n{value}"


def test_every_page_runs_on_the_register_named_on_the_command_line(page, register_url):
    page.goto(register_url)
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    for spec in PAGES:
        if spec.script != DEFAULT_PAGE:
            _open_from_menu(page, spec.title)
        name = Path(spec.script).stem
        expect(page.locator('[data-testid="stSidebar"]')).to_contain_text(
            "income from register.parquet, N = 20,000", timeout=60_000
        )
        sidebar = _sidebar(page)
        assert LABEL in _population_shown(page), (name, _population_shown(page))
        assert "income from register.parquet, N = 20,000" in sidebar, name
        assert exceptions_on_page(page) == [], name
        assert errors_on_page(page) == [], name
        assert "Traceback" not in page.locator("body").inner_text(), name
        screenshot(page, f"command_line_{name}")
    # The Population page shows the file's labels.
    _open_from_menu(page, PAGES[0].title)
    text = page.locator('[data-testid="stMainBlockContainer"]').inner_text()
    assert "Strata (region): 6" in text and "Clusters (district): 240" in text
