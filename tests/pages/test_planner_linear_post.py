"""AppTest for the Release planner's rounding of a count, total or proportion to whole numbers
≥ 0: the control adds the errors after rounding to the ranked plans, with the sentence that
rounding costs no privacy, and a link reproduces it (snippet included)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from streamlit.testing.v1 import AppTest

from tests.pages.harness import app_test, open_page, open_snippets
from ui.planner import linear_text

PAGE = "app_pages/planner.py"
PAGE_URL = "http://localhost:8501/planner"
AFTER = "after rounding to whole numbers ≥ 0"


def _ranked(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("1. **"))


def test_the_rounding_control_adds_the_errors_after_rounding():
    at = open_page(PAGE, {"population": "Establishments", "plan_stat": "count"})
    assert at.toggle(key="plan_post").value is False
    assert AFTER not in _ranked(at)
    assert linear_text.POST_NOTE not in [i.value for i in at.info]
    at.toggle(key="plan_post").set_value(True).run()
    assert not at.exception
    assert AFTER in _ranked(at)
    assert linear_text.POST_NOTE in [i.value for i in at.info]


def test_the_link_reproduces_the_rounded_release():
    query = {"population": "Establishments", "plan_stat": "proportion", "plan_post": "true"}
    at = app_test(PAGE)
    at.context = {"url": PAGE_URL}
    at.query_params.update(query)
    at.run()
    open_snippets(at)
    assert not at.exception
    assert at.toggle(key="plan_post").value is True
    code = "\n".join(c.value for c in at.code)
    assert "post='round'" in code
    link = next(c.value for c in at.code if c.value.startswith(PAGE_URL))
    carried = parse_qs(urlsplit(link).query, keep_blank_values=True)
    assert carried.get("plan_post") == ["true"]
    again = app_test(PAGE)
    again.query_params.update(carried)
    again.run()
    assert not again.exception
    assert again.toggle(key="plan_post").value is True
    assert _ranked(again) == _ranked(at) and AFTER in _ranked(again)
