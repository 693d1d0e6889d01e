"""The upload form's category column, through AppTest.

A labelled Stata file: choosing its coded ``sector`` as the category column makes the value
labels the categories, and the Population page counts the records of each. A column with
more categories than a table can show is refused with the loader's message, and the page
keeps working.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from core.categories import MAX_CATEGORIES
from tests.core import bad_file_corpus
from tests.pages.harness import UPLOAD_STATE, open_page
from ui.population.upload import NO_CATEGORY

OVERVIEW = "app_pages/overview.py"
USE = "Use this population"
LABEL = "Category column (for counts)"
SECTORS = {1: "Retail", 2: "Industry", 3: "Services"}


def _category_box(at: AppTest):
    return next(s for s in at.selectbox if s.label == LABEL)


def _upload(name: str, data: bytes) -> AppTest:
    at = open_page(OVERVIEW, snippets=False)
    at.file_uploader[0].set_value((name, data, "application/octet-stream"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _use(at: AppTest, category: str) -> AppTest:
    _category_box(at).set_value(category).run()
    next(b for b in at.button if b.label == USE).click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_labelled_category_column_is_counted_on_the_page():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "turnover": np.round(rng.gamma(2.0, 50.0, size=60), 2),
            "sector": np.resize([1.0, 2.0, 3.0, 1.0], 60),
        }
    )
    data = bad_file_corpus._write("stata", frame, {"sector": SECTORS})
    at = _upload("firms.dta", data)
    box = _category_box(at)
    assert box.value is None and box.format_func(box.value) == NO_CATEGORY
    assert "sector" in box.options and "turnover" not in box.options  # not the value column
    at = _use(at, "sector")
    success = next(s.value for s in at.success if "Every page now computes on" in s.value)
    assert "categories sector" in success
    pop = at.session_state[UPLOAD_STATE]
    assert pop.category_label == "sector"
    assert sorted(set(pop.categories.tolist())) == ["Industry", "Retail", "Services"]
    assert "**Categories (sector): 3**" in [m.value for m in at.markdown]
    table = next(d.value for d in at.dataframe if "records" in d.value.columns)
    assert dict(zip(table["sector"], table["records"], strict=True)) == {
        "Retail": 30,
        "Industry": 15,
        "Services": 15,
    }


def test_too_many_categories_are_refused_and_the_page_keeps_working():
    n = MAX_CATEGORIES + 1
    codes = [f"f{i:04d}" for i in range(n)] * 2
    values = np.arange(2 * n) * 0.5
    text = "v,firm\n" + "\n".join(f"{v},{c}" for v, c in zip(values, codes, strict=True))
    at = _upload("firms.csv", text.encode())
    at = _use(at, "firm")
    errors = [e.value for e in at.error]
    assert any("'firm' has 1,001 distinct entries" in e and "at most 1,000" in e for e in errors)
    assert UPLOAD_STATE not in at.session_state or at.session_state[UPLOAD_STATE] is None
    assert at.title[0].value == "The population"  # the rest of the page is drawn
