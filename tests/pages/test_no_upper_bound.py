"""A population uploaded without a public upper bound, on every page (issue 23, part 3).

The upload form takes an emptied U box as "no public upper bound" and stores the population
with ``upper = inf``. Every page of :data:`ui.router.PAGES` then opens without an exception:
a page registered with ``needs_upper`` shows the router's notice instead of running, the
Mean & median gains page runs only the unbounded quantile on its quantile tabs and shows the
notice on the tabs that need U, the Release planner plans quantiles with the unbounded
quantile only (and says why the mean is off), and every other page runs as usual.

Break it on purpose (``tests/break_checks.py``, ``no-upper-page-guard``): let the router run
every page whatever the population's bounds.
"""

from __future__ import annotations

import math

import pytest
from streamlit.testing.v1 import AppTest

from core.populations import Population
from tests.pages.harness import UPLOAD_STATE, open_page, tab_queries, trace_names
from ui.population.upload import NO_UPPER_TEXT, UPPER_NEEDED_TEXT
from ui.router import PAGES
from ui.state import no_upper_bound_message

POPULATION_PAGE = "app_pages/overview.py"
GAINS_PAGE = "app_pages/gains.py"
FILENAME = "open_top.csv"
#: 60 incomes in 6 strata of 3 clusters, with no public upper bound.
CSV = ("income,region,psu\n" + "".join(
    f"{20 + 7 * i + (i % 5) ** 3},{'r' + str(i % 6)},{'p' + str(i % 18)}\n" for i in range(60)
)).encode()  # fmt: skip
#: Cheap settings for the gains page's simulations.
GAINS_QUERY = {"gain_reps": "50", "gain_cmp_reps": "50", "gain_exp_rates": "0.2, 0.5",
               "gain_cmp_rates": "0.2, 0.5", "gain_exp_eps": "1"}  # fmt: skip
NOTICE = no_upper_bound_message()
TAB_NOTICE = no_upper_bound_message("This tab")


def _upload(clear_upper: bool = True) -> AppTest:
    """The Population page after uploading :data:`CSV` with U emptied, strata and clusters."""
    at = open_page(POPULATION_PAGE)
    at.file_uploader[0].set_value((FILENAME, CSV, "text/csv"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    upper = next(n for n in at.number_input if n.label.startswith("Upper bound U"))
    assert upper.value is not None  # starts at the data's range, like L
    if clear_upper:
        upper.set_value(None)
    at.multiselect(key=next(k for k in _keys(at) if k.startswith("up_stratum_"))).set_value(
        ["region"]
    )
    at.multiselect(key=next(k for k in _keys(at) if k.startswith("up_cluster_"))).set_value(["psu"])
    at.run()
    next(b for b in at.button if b.label == "Use this population").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _keys(at: AppTest) -> list[str]:
    return [m.key for m in at.multiselect if m.key]


@pytest.fixture(scope="module")
def uploaded() -> Population:
    """The population the upload form stored, U left empty."""
    at = _upload()
    pop = at.session_state[UPLOAD_STATE]
    assert isinstance(pop, Population)
    return pop


def _texts(at: AppTest, kind: str) -> list[str]:
    return [m.value for m in at.get(kind)]


def test_the_form_says_which_mechanisms_need_u_and_stores_none() -> None:
    at = _upload()
    assert any(UPPER_NEEDED_TEXT in m for m in _texts(at, "markdown"))
    assert NO_UPPER_TEXT in _texts(at, "info")
    success = " ".join(_texts(at, "success"))
    assert f"Every page now computes on {FILENAME}" in success
    assert "no upper bound" in success
    pop = at.session_state[UPLOAD_STATE]
    assert pop.upper == math.inf and not pop.has_upper_bound and pop.lower == 0.0
    assert pop.strata is not None and pop.clusters is not None
    summary = at.table[0].value
    assert summary.loc["Declared upper bound", "value"] == "none public"
    assert not at.warning  # the Population page itself runs


def test_a_filled_upper_bound_is_stored_as_before() -> None:
    at = _upload(clear_upper=False)
    pop = at.session_state[UPLOAD_STATE]
    assert pop.has_upper_bound and math.isfinite(pop.upper)
    assert NO_UPPER_TEXT not in _texts(at, "info")


def _views(spec_script: str, pop: Population) -> list[AppTest]:
    """The page opened on ``pop`` in each of its tabs."""
    query = GAINS_QUERY if spec_script == GAINS_PAGE else {}
    first = open_page(spec_script, query, uploaded=pop)
    return [first] + [
        open_page(spec_script, {**query, **q}, uploaded=pop) for q in tab_queries(first)[1:]
    ]


@pytest.mark.parametrize("spec", PAGES, ids=[s.title for s in PAGES])
def test_every_page_opens_on_a_population_without_u(spec, uploaded: Population) -> None:
    """No exception anywhere; the notice exactly on the pages that need U (gains: its tabs)."""
    for at in _views(spec.script, uploaded):  # open_page checks there is no exception
        warnings = _texts(at, "warning")
        assert (NOTICE in warnings) == spec.needs_upper, (spec.title, warnings)
        if spec.needs_upper:
            assert len(at.main.children) <= 4, spec.title  # the page itself did not run
    if spec.script == GAINS_PAGE:
        assert not spec.needs_upper


def test_gains_runs_only_the_unbounded_quantile(uploaded: Population) -> None:
    from ui.gains import text

    compare = open_page(GAINS_PAGE, {**GAINS_QUERY, "gain_view": text.CMP_TAB}, uploaded=uploaded)
    assert text.NO_UPPER_NOTE in _texts(compare, "info")
    assert compare.multiselect(key="gain_cmp_mechs").options == [text.MECHANISM_SHORT["unbounded"]]
    assert text.MECHANISM_SHORT["unbounded"] in trace_names(compare)
    assert not trace_names(compare) & {text.MECHANISM_SHORT["smooth_laplace"]}
    assert "unbounded quantile" in " ".join(_texts(compare, "markdown"))
    experiment = open_page(
        GAINS_PAGE, {**GAINS_QUERY, "gain_view": text.EXP_TAB}, uploaded=uploaded
    )
    assert experiment.selectbox(key="gain_mechanism").options == [
        text.MECHANISM_LABELS["unbounded"]
    ]
    assert text.NO_UPPER_NOTE in _texts(experiment, "info")
    assert experiment.get("plotly_chart")
    for tab in (text.MEAN_POP_TAB, text.SENS_TAB):
        at = open_page(GAINS_PAGE, {"gain_view": tab}, uploaded=uploaded)
        assert TAB_NOTICE in _texts(at, "warning"), tab
        assert not at.get("plotly_chart"), tab


def test_planner_runs_only_the_unbounded_quantile(uploaded: Population) -> None:
    from core import planner
    from core.mechanisms import MECHANISMS
    from ui.planner import compare_text
    from ui.planner import figures as figs
    from ui.planner import text as plan_text
    from ui.planner.several_text import NO_UPPER_JOINT, NO_UPPER_SEVERAL

    page = "app_pages/planner.py"
    at = open_page(page, {"plan_reps": "50", "plan_lines": "every mechanism"}, uploaded=uploaded)
    mechs = at.multiselect(key="plan_mechs")
    assert mechs.options == [plan_text.MECHANISM_SHORT["unbounded"]]
    assert plan_text.NO_UPPER_NOTE in _texts(at, "caption")
    assert figs.series_name("srs", MECHANISMS["unbounded"].label) in trace_names(at)
    result = planner.plan(
        uploaded, eps_target=1.0, reps=50, designs=("srs", "poisson", "stratified_proportional",
        "cluster", "poisson_cluster"),
    )  # fmt: skip
    assert set(result.table["mechanism"]) == {"unbounded"}
    clusters = len(set(uploaded.clusters.tolist()))
    assert at.success[0].value == compare_text.recommendation(result, clusters=clusters)
    mean = open_page(page, {"plan_stat": "mean", "plan_reps": "50"}, uploaded=uploaded)
    assert plan_text.NO_UPPER_MEAN in _texts(mean, "warning")
    several = open_page(
        page,
        {"plan_view": plan_text.SEVERAL_TAB, "plan_reps": "50",
         "plan_ms_stats": ["lower quartile", "median", "mean"]},
        uploaded=uploaded,
    )  # fmt: skip
    infos = _texts(several, "info")
    assert NO_UPPER_SEVERAL in infos and NO_UPPER_JOINT in infos
    assert list(several.dataframe[0].value["statistic"]) == ["lower quartile", "median"]
