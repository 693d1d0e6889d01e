"""Population page in Chromium: the summary table keeps whole values at laptop widths."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.helpers import (
    errors_on_page,
    exceptions_on_page,
    screenshot,
    settle,
    upload_and_use,
)

# Cells whose text is wider than the cell, and cells that stick out of the table's column.
_OVERFLOW = """
(table) => {
  const column = table.closest('[data-testid="stColumn"]') || table.parentElement;
  const limit = column.getBoundingClientRect().right + 1;
  const out = [];
  for (const cell of table.querySelectorAll('th, td')) {
    const box = cell.getBoundingClientRect();
    if (cell.scrollWidth > cell.clientWidth + 1 || box.right > limit) {
      out.push(cell.innerText);
    }
  }
  return out;
}
"""


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (390, 844)])
@pytest.mark.parametrize("population", ["Lognormal", "Establishments"])
def test_summary_table_shows_whole_values(page, app_url, width, height, population):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{app_url}/?population={population}")
    settle(page)
    table = page.locator('[data-testid="stTable"] table').first
    table.wait_for()
    assert table.evaluate(_OVERFLOW) == []
    text = table.inner_text()
    assert ("10,001" if population == "Lognormal" else "100,000") in text
    screenshot(page, f"population_{population.lower()}_{width}x{height}")
    assert not errors_on_page(page) and not exceptions_on_page(page)


def test_uploaded_link_says_so_in_the_main_area(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{app_url}/?population=Uploaded")
    settle(page)
    main = page.locator('[data-testid="stMain"]')
    notice = main.get_by_text("Uploaded data is never carried in links")
    notice.wait_for()
    expect(notice).to_be_visible(timeout=60_000)
    screenshot(page, "population_uploaded_link_1280x720")


def test_summary_table_keeps_a_large_uploaded_mean_whole(page, app_url, tmp_path):
    rows = "\n".join(f"{4_764_250 + 10 * (i % 7 - 3)}" for i in range(500))
    path = tmp_path / "turnover.csv"
    path.write_text("turnover\n" + rows + "\n")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(app_url)
    settle(page)
    upload_and_use(page, path)
    table = page.locator('[data-testid="stTable"] table').first
    table.wait_for()
    expect(table).to_contain_text("4,764,250", timeout=60_000)
    assert table.evaluate(_OVERFLOW) == []
    screenshot(page, "population_uploaded_large_mean_1280x720")
    assert not errors_on_page(page) and not exceptions_on_page(page)
