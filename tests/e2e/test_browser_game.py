"""End-to-end: the Membership game in Chromium at a laptop (1280×720) and a phone (390×844).

Loaded by link, a few rounds are played with the In/Out buttons, then the last round opens
the ROC chart and the automatic adversary draws its curve; nothing overflows (the DOM
measurement of ``tests/e2e/test_layout.py``) and no error element appears. Screenshots:
``artifacts/screenshots/game_*``.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests.e2e.helpers import (
    VIEWPORTS,
    errors_on_page,
    exceptions_on_page,
    plot_text_appears,
    plot_texts,
    plot_texts_showing,
    screenshot,
    settle,
)
from tests.e2e.test_layout import MEASURE, SLACK

ROUNDS = 5


def _main_text(page) -> str:
    return page.locator('[data-testid="stMainBlockContainer"]').inner_text()


def _wait_for(page, text: str) -> None:
    page.get_by_text(text).first.wait_for()
    settle(page)


@pytest.mark.parametrize(("name", "width", "height"), VIEWPORTS, ids=[v[0] for v in VIEWPORTS])
def test_play_a_game_then_the_adversary(browser, app_url, name, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(90_000)
    problems: list[str] = []
    try:
        page.goto(f"{app_url}/game?game_rounds={ROUNDS}&game_design=Cluster")
        settle(page)
        _wait_for(page, "Round 1 of 5")
        screenshot(page, f"game_round1_{width}x{height}")
        page.get_by_role("button", name="In", exact=True).click()
        settle(page)
        _wait_for(page, "Round 2 of 5")
        page.get_by_role("button", name="Out", exact=True).click()
        _wait_for(page, "Round 3 of 5")
        text = _main_text(page)
        assert "Round 3 of 5" in text and "Score:" in text and "out of 2" in text
        screenshot(page, f"game_round3_{width}x{height}")
        problems += page.evaluate(MEASURE, SLACK)
        for i in range(3, ROUNDS + 1):
            page.get_by_role("button", name="In", exact=True).click()
            _wait_for(page, f"Round {i}: Alice was")
        page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
        assert plot_text_appears(page, "you"), plot_texts(page)[-400:]
        assert plot_text_appears(page, "what clusters allow"), plot_texts(page)[-400:]
        screenshot(page, f"game_result_{width}x{height}")
        page.get_by_role("button", name="Run the automatic adversary (10,000 rounds)").click()
        page.mouse.move(1, 1)  # the button's help tooltip would cover the screenshot
        settle(page)
        page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
        plot_texts_showing(page, "automatic adversary, 10,000 rounds", "best test, exact")
        page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
        screenshot(page, f"game_adversary_{width}x{height}")
        problems += page.evaluate(MEASURE, SLACK)
        page.get_by_text("Logarithmic FPR axis").click()
        settle(page)
        page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
        assert "game_log" in parse_qs(urlparse(page.url).query)
        page.locator('[data-testid="stPlotlyChart"]').first.scroll_into_view_if_needed()
        screenshot(page, f"game_adversary_log_{width}x{height}")
        assert errors_on_page(page) == [] and exceptions_on_page(page) == []
        assert parse_qs(urlparse(page.url).query).get("game_design") == ["Cluster"]
    finally:
        context.close()
    assert not problems, f"game page at {width}×{height} ({name}):\n  " + "\n  ".join(problems)
