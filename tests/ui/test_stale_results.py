"""Results after a refused number box are faded: the CSS rule and the containers it targets.

Checked by hand in Chromium (planner "Accuracy first" with the target error 0, the gains
comparison with ε_target = 0, Statistical privacy with π = 0, the sidebar's seed at −1): the
results after the red box are faded to 30 % with the caption, and
come back at full opacity once a valid value is typed.

A number box refuses a value outside its range in the browser (Streamlit's number input
turns red, sets ``aria-invalid`` and never sends the value; the server resets an out-of-range
value from a URL to the default), so the page cannot react on the server: the rule in
``ui.theme.stale_css``, sent with each ``ui.widgets.result_container``, fades it after such a
box. These tests check the rules and that each page draws its charts inside a result container.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1.element_tree import Block

from tests.pages.harness import open_page
from ui import theme


def test_rules_fade_a_result_container_after_an_invalid_number_box():
    css = theme.stale_css("x")
    assert "stale" not in theme.APP_CSS.lower() and "aria-invalid" not in theme.APP_CSS
    holder = (
        ':is(.stElementContainer, .stColumn, .stTabs, [data-testid="stTabPanel"], '
        '[data-testid="stLayoutWrapper"]):has(input[aria-invalid="true"])'
    )
    result = f".st-key-{theme.RESULT_PREFIX}x"
    # After the box: a later sibling, or inside a later sibling, of a block child holding it.
    assert f".stMain {holder} ~ {result} > .stElementContainer" in css
    assert f".stMain {holder} ~ * {result} > .stColumn" in css
    assert "opacity: 0.3" in css and "pointer-events: none" in css
    assert f'content: "{theme.STALE_RESULT_TEXT}"' in css
    # A box in the sidebar (the seed): every result container of the page.
    assert f'[data-testid="stSidebar"]:has(input[aria-invalid="true"]) ~ * .stMain {result}' in css
    # After a box inside a result container (on a tab): the rest of that container, and
    # the box says so.
    assert f".stMain {result} {holder} ~ .stTabs" in css
    assert f'content: "{theme.STALE_BOX_TEXT}"' in css
    assert css.count("{") == css.count("}")


def test_rules_never_test_every_element():
    """Each rule's subject is the container or a block child named by class or test id: a
    rule ending in ``*`` or reading every element's class attribute made the browser's
    style recalculation two to five times slower on every page, with no box red."""
    css = theme.stale_css("x")
    selectors = [s.strip() for block in css.split("}") for s in block.split("{")[0].split(",\n")]
    selectors = [s for s in selectors if s]
    assert len(selectors) > 10
    for selector in selectors:
        subject = selector.split(" ")[-1].split("::")[0]
        assert subject != "*" and "class*=" not in selector, selector


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


def _sent_rules(at: object) -> str:
    """Every ``<style>`` the run sent (the app's and the result containers')."""
    return "\n".join(str(h.proto.body) for h in at.get("html"))  # type: ignore[attr-defined]


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
    name = {
        "statistical": "sp_view",
        "amplification": "amp_view",
        "clusters": "cl_view",
        "strata": "strat_view",
        "gains": "gain_view",
    }[page.split("/")[-1].removesuffix(".py")]
    assert theme.stale_css(name) in _sent_rules(at)


def test_planner_accuracy_answer_has_its_own_result_container():
    """The accuracy-first answer comes after the tab's own number box (the target error), so
    it sits in a result container of its own, inside the page's."""
    at = open_page("app_pages/planner.py", {"plan_view": "Accuracy first", "plan_reps": "50"})
    drawn = _charts(at.main)
    assert drawn and all(inside for _kind, inside in drawn), drawn
    keys: list[str] = []
    ancestors: dict[str, str] = {}

    def walk(node: object, above: str = "") -> None:
        for child in getattr(node, "children", {}).values():
            if isinstance(child, Block):
                key = str(getattr(child.proto, "id", ""))
                keys.append(key)
                ancestors[key] = above
                walk(child, f"{above} {key}")

    walk(at.main)
    assert any(k.endswith(f"-{theme.RESULT_PREFIX}plan_view") for k in keys)
    assert any(k.endswith(f"-{theme.RESULT_PREFIX}plan_accuracy") for k in keys)
    # The answer's container sits inside the page's, which alone sends rules: a nested
    # container with rules of its own would be faded twice.
    assert "plan_accuracy" in theme.NESTED_RESULTS
    inner = [k for k in keys if k.endswith(f"{theme.RESULT_PREFIX}plan_accuracy")]
    assert inner and all(f"{theme.RESULT_PREFIX}plan_view" in ancestors[k] for k in inner)
    sent = _sent_rules(at)
    assert theme.stale_css("plan_view") in sent
    assert f"{theme.RESULT_PREFIX}plan_accuracy" not in sent
