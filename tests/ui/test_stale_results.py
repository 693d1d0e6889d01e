"""Results after a refused number box are faded: the CSS rule and the containers it targets.

Checked by hand in Chromium (planner "Accuracy first" with the target error 0, the gains
comparison with ε_target = 0, Statistical privacy with π = 0, the sidebar's seed at −1): the
results after the red box are faded to 30 % with the caption, and
come back at full opacity once a valid value is typed.

A number box refuses a value outside its range in the browser (Streamlit's number input
turns red, sets ``aria-invalid`` and never sends the value; the server resets an out-of-range
value from a URL to the default), so the page cannot react on the server: the rule in
``ui.theme.STALE_CSS`` fades every ``ui.widgets.result_container`` after such a box. These
tests check the rule and that each page draws its charts inside a result container.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1.element_tree import Block

from tests.pages.harness import open_page
from ui import theme


def test_rule_fades_result_containers_after_an_invalid_number_box():
    css = theme.APP_CSS
    assert theme.STALE_CSS in css
    invalid = ':has(input[aria-invalid="true"])'
    result = f'[class*="st-key-{theme.RESULT_PREFIX}"]'
    # After the box: a later sibling, or inside a later sibling, of an element holding it.
    assert f".stMain {invalid} ~ {result} > *" in css
    assert f".stMain {invalid} ~ * {result} > *" in css
    assert "opacity: 0.3" in css and "pointer-events: none" in css
    assert f'content: "{theme.STALE_RESULT_TEXT}"' in css
    # A nested result container is not faded twice, nor captioned twice.
    assert f".stMain {invalid} ~ {result} {result} > *," in css
    assert "{ opacity: 1; filter: none; }" in css
    # A box in the sidebar (the seed): every result container of the page.
    assert f'[data-testid="stSidebar"]{invalid} ~ * .stMain {result} > *' in css
    # After a box inside a result container (on a tab): the rest of that container, and
    # the box says so.
    assert f".stMain {result} {invalid} ~ * {{ opacity: 0.3;" in css
    assert f'content: "{theme.STALE_BOX_TEXT}"' in css
    assert css.count("{") == css.count("}")


def _charts(node: object, inside: bool = False) -> list[tuple[str, bool]]:
    """(element type, drawn inside a result container) for every chart and metric."""
    found: list[tuple[str, bool]] = []
    for child in getattr(node, "children", {}).values():
        if isinstance(child, Block):
            key = str(getattr(child.proto, "id", ""))
            found += _charts(child, inside or f"-{theme.RESULT_PREFIX}" in key)
        elif child.type in ("plotly_chart", "metric"):
            found.append((child.type, inside))
    return found


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("app_pages/statistical.py", {}),
        ("app_pages/amplification.py", {}),
        ("app_pages/clusters.py", {"cl_dir": "From ε_target"}),
        ("app_pages/strata.py", {}),
        ("app_pages/gains.py", {}),
    ],
)
def test_every_chart_and_metric_is_inside_a_result_container(page, query):
    at = open_page(page, query)
    drawn = _charts(at.main)
    assert drawn, "the page shows no chart"
    assert all(inside for _kind, inside in drawn), drawn


def test_planner_accuracy_answer_has_its_own_result_container():
    """The accuracy-first answer comes after the tab's own number box (the target error), so
    it sits in a result container of its own, inside the page's."""
    at = open_page("app_pages/planner.py", {"plan_view": "Accuracy first", "plan_reps": "50"})
    drawn = _charts(at.main)
    assert drawn and all(inside for _kind, inside in drawn), drawn
    keys = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            if isinstance(child, Block):
                keys.append(str(getattr(child.proto, "id", "")))
                walk(child)

    walk(at.main)
    assert any(k.endswith(f"-{theme.RESULT_PREFIX}plan_view") for k in keys)
    assert any(k.endswith(f"-{theme.RESULT_PREFIX}plan_accuracy") for k in keys)
