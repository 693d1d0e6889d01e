"""Small Playwright helpers shared by the browser tests."""

from __future__ import annotations

import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"

ERROR_SELECTORS = ('[data-testid="stException"]', '[data-testid="stAlertContentError"]')


def settle(page, *, quiet_checks: int = 4, timeout: float = 60.0) -> None:
    """Wait until the Streamlit script has stopped running and the page is quiet."""
    page.wait_for_selector('[data-testid="stMainBlockContainer"]', timeout=timeout * 1000)
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline:
        running = page.locator('[data-testid="stStatusWidgetRunningIcon"]').count()
        running += page.locator('[data-testid="stSkeleton"]').count()
        quiet = quiet + 1 if running == 0 else 0
        if quiet >= quiet_checks:
            return
        time.sleep(0.25)
    raise AssertionError("the app kept running for more than the time bound")


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
