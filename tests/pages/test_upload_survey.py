"""A new user's path on a labelled Stata health survey (issue 35 §6), through AppTest.

Upload ``health_survey.dta`` (:mod:`tests.survey_file`) on the Population page: the form
pre-selects the design columns it recognises (strata ``stratid``, clusters ``stratid`` ×
``psuid``) and says so, offers only the columns that label groups (not the weight
``finalwgt``, the identifier ``sampl`` or the measurements), and offers no "Select all".
Then the Release planner's accuracy-first tab on the uploaded zinc: the automatic bound is
one the data, recorded in whole micrograms, can show (±1, not ±0.95), and an unreachable
bound names the best bound within reach and its ε_target, with core's numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core import planner
from core.resolution import resolution
from tests import survey_file
from tests.pages.harness import UPLOAD_STATE, open_page
from ui.format import fmt
from ui.page_defaults import delta_target_default
from ui.planner import accuracy_text, text
from ui.population.text import PRESELECTED_REASON

OVERVIEW = "app_pages/overview.py"
PLANNER = "app_pages/planner.py"
USE = "Use this population"
#: The columns that label groups, in the file's order.
OFFERED = ["region", "sex", "race", "highbp", "stratid", "psuid"]


@pytest.fixture(scope="module")
def survey() -> bytes:
    return survey_file.survey_bytes()


def _multiselect(at: AppTest, label_start: str):
    return next(m for m in at.multiselect if m.label.startswith(label_start))


def _captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


def _upload(survey: bytes) -> AppTest:
    at = open_page(OVERVIEW)
    at.file_uploader[0].set_value((survey_file.FILENAME, survey, "application/octet-stream"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _form_checks(at: AppTest, value_column: str) -> None:
    strata, clusters = _multiselect(at, "Stratum"), _multiselect(at, "Cluster")
    assert strata.value == [survey_file.STRATUM]
    assert clusters.value == list(survey_file.CLUSTER)
    for box in (strata, clusters):
        assert list(box.options) == OFFERED  # no weight, identifier or measurement
        assert not box.proto.select_all  # no "Select all" option
    note = next(c for c in _captions(at) if PRESELECTED_REASON in c)
    assert "**stratid** as the stratum column" in note
    assert "**stratid** × **psuid** as the cluster column" in note
    left_out = next(c for c in _captions(at) if c.startswith("Offered as stratum"))
    assert "**finalwgt**, a sampling weight" in left_out
    assert "**age**" in left_out or value_column == "age"


def _use_zinc(survey: bytes, *, check_form: bool) -> AppTest:
    """Upload the survey, choose zinc with the bounds 0–250 and press "Use this population"
    (the pre-selected strata and clusters kept); the form checked on the way if asked."""
    at = _upload(survey)
    assert at.selectbox[0].value == "age"  # the first measurement of the file
    if check_form:
        _form_checks(at, "age")
    at.selectbox[0].set_value(survey_file.VALUE).run()
    if check_form:
        _form_checks(at, survey_file.VALUE)
    at.number_input(key=next(k for k in _keys(at) if k.startswith("up_lower_"))).set_value(
        survey_file.LOWER
    )
    at.number_input(key=next(k for k in _keys(at) if k.startswith("up_upper_"))).set_value(
        survey_file.UPPER
    )
    at.run()
    next(b for b in at.button if b.label == USE).click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_upload_preselects_the_design_and_offers_only_label_columns(survey):
    at = _use_zinc(survey, check_form=True)
    success = next(s.value for s in at.success if "Every page now computes on" in s.value)
    assert "strata stratid" in success and "clusters stratid × psuid" in success
    pop = at.session_state[UPLOAD_STATE]
    assert pop.size == survey_file.ROWS_WITH_ZINC
    assert (pop.lower, pop.upper) == (survey_file.LOWER, survey_file.UPPER)
    assert len(np.unique(pop.strata)) == 31 and len(np.unique(pop.clusters)) == 62


def _keys(at: AppTest) -> list[str]:
    return [n.key for n in at.number_input if n.key]


@pytest.fixture(scope="module")
def survey_population(survey):
    """The population the form made active (the planner's tests continue the user's path)."""
    return _use_zinc(survey, check_form=False).session_state[UPLOAD_STATE]


def test_accuracy_first_defaults_to_a_bound_the_data_can_show(survey_population):
    pop = survey_population
    assert resolution(pop.values) == 1.0
    q1, q3 = np.quantile(pop.values, [0.25, 0.75])
    assert accuracy_text.TARGET_IQR_SHARE * (q3 - q1) < 1.0  # the old automatic bound, ±0.95
    at = open_page(PLANNER, {"plan_view": text.ACCURACY_TAB}, uploaded=pop)
    box = at.number_input(key="plan_target_err")
    assert box.value is None and box.proto.placeholder == "automatic: 1"
    assert "rounded up to a bound the data can show" in box.help
    assert "±1 or below" in at.success[0].value


def test_an_unreachable_bound_names_the_best_bound_and_its_eps_target(survey_population):
    pop = survey_population
    query = {
        "plan_view": text.ACCURACY_TAB,
        "plan_stat": text.STATISTIC_LABELS["mean"],
        "plan_target_err": "0.001",
    }
    at = open_page(PLANNER, query, uploaded=pop)
    designs = tuple(
        s.name for s in planner.design_statuses(pop, "mean", "replacement") if s.available
    )
    designs = tuple(d for d in designs if d in text.PICKABLE_DESIGNS)
    found = planner.smallest_eps_target(
        pop,
        statistic="mean",
        target_error_95=0.001,
        delta_target=delta_target_default(pop.size),
        designs=designs,
        reps=200,
    )
    assert not found.feasible and found.eps_limit == 50.0
    best = planner.plan(
        pop,
        statistic="mean",
        eps_target=found.eps_limit,
        delta_target=delta_target_default(pop.size),
        designs=designs,
        reps=200,
    ).best
    assert found.best_error_95 == pytest.approx(float(best["error_95"]), rel=1e-12)
    answer = at.info[0].value
    assert "No plan reaches a 95 % error bound of ±0.001" in answer
    assert f"**±{fmt(found.best_error_95, 'error')}**" in answer
    assert f"ε_target = {fmt(found.eps_limit, 'guarantee')} (the largest" in answer
    assert text.plan_phrase(found.plan.best) in answer
