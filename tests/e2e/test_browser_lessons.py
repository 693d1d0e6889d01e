"""End-to-end: the Lessons page in Chromium, every lesson with its first step revealed.

At a laptop (1280×720) and a phone (390×844) width: a student opens the lesson by link,
commits to a prediction, and sees the verdict, the chart, the link to the page state and the
takeaway; nothing overflows (``tests/e2e/test_layout.py``'s measurements). The teacher's view
draws its QR codes. Screenshots: ``artifacts/screenshots/lessons_<lesson>_<size>.png``.
"""

from __future__ import annotations

from urllib.parse import urlencode

from playwright.sync_api import expect

from tests.e2e.helpers import VIEWPORTS, errors_on_page, exceptions_on_page, screenshot, settle
from tests.e2e.test_layout import MEASURE, SLACK
from ui.lessons.content import LESSONS
from ui.lessons.links import page_path


def _reveal(page, app_url: str, lesson, teacher: bool) -> None:
    query = {"lesson": lesson.label, "lesson_step": "1"}
    if teacher:
        query["lesson_teacher"] = "true"
    page.goto(f"{app_url}/lessons?{urlencode(query)}")
    settle(page)
    step = lesson.steps[0]
    assert page.locator('[data-testid="stPlotlyChart"]').count() == 0  # hidden until predicted
    radio = page.locator('[data-testid="stRadio"]').filter(has_text="Your prediction")
    radio.get_by_text(step.options[step.correct], exact=True).click()
    settle(page)
    page.wait_for_selector('[data-testid="stPlotlyChart"] .main-svg')
    page.evaluate("document.fonts.ready")


def test_every_lesson_reveals_its_chart_at_laptop_and_phone_width(browser, app_url):
    for size, width, height in VIEWPORTS:
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.set_default_timeout(60_000)
        try:
            for i, lesson in enumerate(LESSONS):
                teacher = i == 0
                _reveal(page, app_url, lesson, teacher)
                main = page.locator('[data-testid="stMainBlockContainer"]')
                text = main.inner_text()
                assert "Right:" in text and lesson.steps[0].takeaway in " ".join(text.split())
                link = page.get_by_role("link", name="Open this state on its page")
                href = link.get_attribute("href") or ""
                assert f"/{page_path(lesson.steps[0].page)}?" in href
                if teacher:
                    qr = main.locator('[data-testid="stImage"] img')
                    assert qr.count() == 2
                    box = qr.first.bounding_box()
                    assert box is not None and box["width"] >= min(250, width - 80)
                assert exceptions_on_page(page) == [] and errors_on_page(page) == []
                problems = page.evaluate(MEASURE, SLACK)
                assert not problems, f"{lesson.label} at {size} width: {problems}"
                stem = f"lessons_{lesson.label.lower()}_{size}"
                if teacher:  # Streamlit scrolls inside its main block: bring each part into view
                    qr.first.scroll_into_view_if_needed()
                    page.wait_for_timeout(300)
                    screenshot(page, f"{stem}_teacher")
                page.locator('[data-testid="stPlotlyChart"]').scroll_into_view_if_needed()
                page.wait_for_timeout(300)
                screenshot(page, stem)
            if size == "laptop":  # Next moves the step, writes it into the URL, hides the reveal
                page.get_by_role("button", name="Next step").click()
                settle(page)
                expect(main).to_contain_text("Step 2 of", timeout=60_000)
                assert "lesson_step=2" in page.url
                assert page.locator('[data-testid="stPlotlyChart"]').count() == 0
        finally:
            context.close()
