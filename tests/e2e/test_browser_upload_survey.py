"""Issue 35 §6 in Chromium: the upload form on a labelled Stata health survey.

At a laptop (1280×720) and a phone (390×844) size, ``health_survey.dta``
(:mod:`tests.survey_file`) goes through the real upload widget. The form pre-selects the
design columns it recognises (strata ``stratid``, clusters ``stratid`` × ``psuid``) and says
why; the stratum list offers only the columns that label groups (no weight ``finalwgt``, no
identifier, no measurement, no "Select all"); nothing scrolls sideways. With the value
column ``zinc`` and the public bounds 0–250 the survey becomes the active population, its
strata and clusters those pre-selected. Screenshots: ``upload_survey_form_<w>x<h>`` (the
form), ``upload_survey_strata_<w>x<h>`` (the stratum list open), ``upload_survey_used_<w>x<h>``.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests import survey_file
from tests.e2e.helpers import (
    VIEWPORTS,
    errors_on_page,
    exceptions_on_page,
    screenshot,
    settle,
    upload_file,
    use_population,
)
from ui.population.text import PRESELECTED_REASON

#: The columns that label groups, in the file's order (the value column aside).
OFFERED = ["region", "sex", "race", "highbp", "stratid", "psuid"]

_SIDEWAYS = "() => document.documentElement.scrollWidth - window.innerWidth"


def _chips(page, label: str, count: int | None = None) -> list[str]:
    """The chosen entries of the multiselect whose label starts with ``label``; with
    ``count``, once that many are drawn (the form's note can arrive before its chips)."""
    box = page.locator('[data-testid="stMultiSelect"]').filter(has_text=label)
    tags = box.locator("[data-tag]")
    if count is not None:
        expect(tags).to_have_count(count, timeout=30_000)
    return [t.strip() for t in tags.all_inner_texts()]


def _open_list(page, box):
    """Open a multiselect's list (a click during a rerun can be lost: tried a few times)."""
    options = page.get_by_role("option")
    for _ in range(5):
        # Nothing before the click starts a run; one already under way is still waited for.
        settle(page, start_timeout=1.0)
        box.get_by_role("button", name="Open").click()
        try:
            expect(options.first).to_be_visible(timeout=5_000)
            return options
        except AssertionError:
            continue
    raise AssertionError("the stratum list never opened")


def use_zinc(page) -> None:
    """Choose the value column zinc on the upload form and declare its bounds 0–250."""
    choose = page.get_by_role("combobox", name="Value column (y)")
    choose.click()
    choose.fill(survey_file.VALUE)
    page.get_by_role("option", name=survey_file.VALUE, exact=True).click()
    settle(page)
    for label, value in (
        ("Lower bound L", survey_file.LOWER),
        ("Upper bound U", survey_file.UPPER),
    ):
        field = page.get_by_role("spinbutton", name=label)
        field.fill(f"{value:g}")
        field.press("Enter")
        settle(page)


@pytest.mark.parametrize(("size", "width", "height"), VIEWPORTS)
def test_survey_upload_form_preselects_the_design(page, app_url, tmp_path, size, width, height):
    path = survey_file.write_survey(tmp_path)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(app_url)
    settle(page)
    upload_file(page, path)
    main = page.locator('[data-testid="stMain"]')
    expect(main).to_contain_text(PRESELECTED_REASON, timeout=60_000)
    assert _chips(page, "Stratum column", 1) == [survey_file.STRATUM]
    assert _chips(page, "Cluster column", len(survey_file.CLUSTER)) == list(survey_file.CLUSTER)
    assert "finalwgt, a sampling weight" in main.inner_text()
    assert page.evaluate(_SIDEWAYS) <= 2, f"the page scrolls sideways at {width} px"
    note = main.get_by_text(PRESELECTED_REASON)
    note.scroll_into_view_if_needed()
    screenshot(page, f"upload_survey_form_{width}x{height}")

    # The stratum list: the other label columns only; no weight, no "Select all".
    box = page.locator('[data-testid="stMultiSelect"]').filter(has_text="Stratum column")
    options = _open_list(page, box)
    offered = [o.strip() for o in options.all_inner_texts()]
    assert offered == [c for c in OFFERED if c != survey_file.STRATUM], offered
    screenshot(page, f"upload_survey_strata_{width}x{height}")
    page.keyboard.press("Escape")

    # zinc with the public bounds 0–250: the survey becomes active with the design.
    page.keyboard.press("Escape")
    use_zinc(page)
    assert _chips(page, "Cluster column") == list(survey_file.CLUSTER)
    use_population(page)
    expect(main).to_contain_text(
        f"Every page now computes on {survey_file.FILENAME} ({survey_file.ROWS_WITH_ZINC:,} values",
        timeout=60_000,
    )
    text = main.inner_text()
    assert "bounds [0, 250]" in text and "strata stratid, clusters stratid × psuid" in text
    assert page.evaluate(_SIDEWAYS) <= 2
    main.get_by_text("Every page now computes on").scroll_into_view_if_needed()
    screenshot(page, f"upload_survey_used_{width}x{height}")
    assert not errors_on_page(page) and not exceptions_on_page(page)
