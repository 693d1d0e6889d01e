"""The Compare designs tab shows the first rows while a plan runs, and a rerun reuses the plan.

While :func:`core.planner.plan` computes, the tab holds a progress bar and the rows known so
far (:class:`ui.planner.compare.LiveRows`): the census as soon as it is known, then the
simple random sample, each design's best; the finished view then replaces them.
"""

from __future__ import annotations

from typing import Any

from streamlit.testing.v1 import AppTest

from tests.pages.harness import open_page
from ui.planner import compare

PAGE = "app_pages/planner.py"


def _live_rows(done: int) -> None:
    """Draw the live rows of a small plan as they stand after ``done`` designs."""
    import streamlit as st

    from core import planner
    from core.populations import make_builtin
    from ui.planner.compare import LiveRows
    from ui.planner.inputs import PlannerInputs

    pop = make_builtin("lognormal", seed=0, size=1001)
    args = dict(
        statistic="median",
        eps_target=1.0,
        delta_target=1e-4,
        designs=("census", "srs", "poisson"),
        rates=(0.1, 0.5),
        reps=20,
        seed=0,
        relation="replacement",
        objective="error_95",
    )
    reports: list = []
    planner.plan(pop, **args, progress=reports.append)
    ctx = PlannerInputs(pop=pop, statuses=(), **args)  # type: ignore[arg-type]
    live = LiveRows(st.empty(), ctx, None)
    live.report(None)
    for report in reports[:done]:
        live.report(report)


def _drawn(done: int) -> AppTest:
    at = AppTest.from_function(_live_rows, args=(done,), default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_census_row_shows_first_then_the_simple_random_sample():
    at = _drawn(0)
    (bar,) = at.get("progress")
    assert "the census first" in bar.proto.text
    census = _drawn(1)
    (bar,) = census.get("progress")  # each report replaces the last: one bar
    assert bar.proto.text.startswith("Compared 1 of 3 designs (last: Census)")
    (rows,) = [m.value for m in census.markdown if "Rows known so far" in m.value]
    assert "(1 of 3 designs" in rows and "- Census" in rows and "- SRS" not in rows
    srs = _drawn(2)
    (rows,) = [m.value for m in srs.markdown if "Rows known so far" in m.value]
    assert "(2 of 3 designs" in rows and "- Census" in rows and "- SRS," in rows


def test_the_page_reports_the_census_then_each_design_and_a_rerun_reuses_the_plan(monkeypatch):
    heard: list[Any] = []
    report = compare.LiveRows.report

    def listening(self: compare.LiveRows, progress: Any) -> None:
        heard.append(progress)
        report(self, progress)

    monkeypatch.setattr(compare.LiveRows, "report", listening)
    # An ε_target no other test uses: the plan is not cached yet.
    at = open_page(PAGE, {"plan_reps": "50", "plan_eps": "0.931"})
    assert heard[0] is None  # the bar shows as the plan starts
    designs = [p.design for p in heard[1:]]
    assert designs[:3] == ["census", "srs", "poisson"]
    assert [p.done for p in heard[1:]] == list(range(1, len(designs) + 1))
    assert at.get("progress") == []  # the finished view replaced the live rows
    assert at.success and at.success[0].value.startswith("Privatise")
    heard.clear()
    at.run()  # the same inputs: the cached plan, no progress, the same verdict
    assert heard == [] and not at.exception
    assert at.success[0].value.startswith("Privatise")
