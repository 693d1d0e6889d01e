"""AppTest for the Lessons page (issue 16, item 1).

- every step's link opens the promised state on its page: the page's controls hold the
  step's values (by key), the promised tab is open, the population and seed are the step's;
- the reveal chart on the Lessons page has the same trace data as a chart of the linked page;
- every lesson and step runs; the prediction hides and shows the reveal; previous and next
  move through the steps; the URL reproduces lesson, step and teacher's view.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.harness import charts, open_page, tab_containers
from ui.lessons.content import LESSONS, Lesson, Step
from ui.lessons.links import LESSON_KEY, STEP_KEY, TEACHER_KEY, step_query
from ui.lessons.views import count_words, prediction_key

PAGE = "app_pages/lessons.py"
WIDGET_KINDS = ("text_input", "number_input", "toggle", "selectbox", "radio", "select_slider")

STEPS = [
    pytest.param(lesson, i, id=f"{lesson.label}-{i + 1}")
    for lesson in LESSONS
    for i in range(len(lesson.steps))
]


def _widgets(at: AppTest) -> dict[str, Any]:
    return {w.key: w for kind in WIDGET_KINDS for w in at.get(kind) if w.key}


def _open_tabs(at: AppTest) -> dict[str, str]:
    """Query key → label of the open tab, for every URL-bound tab container."""
    opened = {}
    for container in tab_containers(at.main):
        proto = container.proto.tab_container
        labels = [tab.label for tab in container.children.values()]
        if proto.query_param_key:
            opened[proto.query_param_key] = labels[proto.default_tab_index]
    return opened


def _same(value: Any, wanted: str) -> bool:
    if isinstance(value, bool):
        return str(value).lower() == wanted.lower()
    if isinstance(value, int | float):
        return math.isclose(float(value), float(wanted), rel_tol=1e-12)
    return str(value) == wanted


def _lesson_page(lesson: Lesson, index: int, choice: int | None = None) -> AppTest:
    at = open_page(PAGE, {LESSON_KEY: lesson.label, STEP_KEY: str(index + 1)})
    if choice is not None:
        at.radio(key=prediction_key(lesson, index)).set_value(choice).run()
        assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize(("lesson", "index"), STEPS)
def test_each_step_link_opens_the_promised_state_and_draws_the_reveal_chart(lesson, index):
    step: Step = lesson.steps[index]
    linked = open_page(step.page, step_query(step))
    widgets, tabs = _widgets(linked), _open_tabs(linked)
    assert linked.selectbox(key="population").value == step.population
    assert linked.number_input(key="seed").value == step.seed
    for key, wanted in step.query.items():
        if key in tabs:
            assert tabs[key] == wanted, f"{key}: tab {tabs[key]!r} open, not {wanted!r}"
        else:
            assert key in widgets, f"{step.page} has no control {key!r} in this state"
            assert _same(widgets[key].value, wanted), (key, widgets[key].value, wanted)
    lesson_at = _lesson_page(lesson, index, step.correct)
    (reveal,) = charts(lesson_at)
    page_data = [chart["data"] for chart in charts(linked)]
    assert reveal["data"] in page_data, f"the reveal of {step.figure} is not on {step.page}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.label)
def test_the_prediction_hides_then_shows_the_reveal_and_says_if_it_was_right(lesson):
    step = lesson.steps[0]
    at = _lesson_page(lesson, 0)
    assert not charts(at) and not at.link_button, "the reveal shows before a prediction"
    assert any("prediction" in i.value for i in at.info)
    wrong = (step.correct + 1) % len(step.options)
    at.radio(key=prediction_key(lesson, 0)).set_value(wrong).run()
    assert not at.exception
    assert len(charts(at)) == 1 and not at.success
    assert step.options[step.correct] in at.warning[0].value
    at.radio(key=prediction_key(lesson, 0)).set_value(step.correct).run()
    assert at.success and step.takeaway in " ".join(m.value for m in at.markdown)


def test_next_and_previous_move_through_the_steps_and_stop_at_the_ends():
    lesson = LESSONS[0]
    at = _lesson_page(lesson, 0)
    assert at.button(key="lesson_prev").disabled
    for expected in range(2, len(lesson.steps) + 1):
        at.button(key="lesson_next").click().run()
        assert at.radio(key=STEP_KEY).value == expected
        assert any(f"Step {expected} of" in m.value for m in at.markdown)
    assert at.button(key="lesson_next").disabled
    at.button(key="lesson_prev").click().run()
    assert at.radio(key=STEP_KEY).value == len(lesson.steps) - 1


def test_a_new_lesson_starts_at_its_first_step():
    at = _lesson_page(LESSONS[0], 1)
    at.selectbox(key=LESSON_KEY).select(LESSONS[1].label).run()
    assert not at.exception
    assert at.radio(key=STEP_KEY).value == 1
    assert LESSONS[1].title in [s.value for s in at.subheader]
    assert at.markdown[0].value.startswith(f"{count_words(len(LESSONS))} short lessons")


def test_the_lesson_count_is_said_in_words() -> None:
    assert [count_words(n) for n in (1, 5, 6, 12)] == ["One", "Five", "Six", "12"]


def test_the_url_reproduces_lesson_step_and_teacher_view():
    lesson = LESSONS[3]
    at = open_page(PAGE, {LESSON_KEY: lesson.label, STEP_KEY: "2", TEACHER_KEY: "true"})
    assert at.selectbox(key=LESSON_KEY).value == lesson.label
    assert at.radio(key=STEP_KEY).value == 2
    assert at.toggle(key=TEACHER_KEY).value is True
    assert lesson.steps[1].question in " ".join(m.value for m in at.markdown)
    codes = [c.value for c in at.code]
    assert any("/strata?" in c for c in codes) and any("/lessons?" in c for c in codes)
    assert at.get("download_button"), "no handout download in the teacher's view"
    plain = open_page(PAGE, {LESSON_KEY: lesson.label, STEP_KEY: "2"})
    assert not plain.code and not plain.get("download_button")


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ({LESSON_KEY: "No such lesson"}, "lesson called “No such lesson”"),
        ({LESSON_KEY: "Clusters", STEP_KEY: "9"}, "step “9”, but the lesson “Clusters” has"),
        ({STEP_KEY: "x"}, "step “x”"),
    ],
)
def test_a_broken_lesson_link_is_explained_and_opens_a_lesson_start(query, said):
    at = open_page(PAGE, query)
    assert at.radio(key=STEP_KEY).value == 1
    assert at.selectbox(key=LESSON_KEY).value in {lesson.label for lesson in LESSONS}
    assert any(said in w.value for w in at.warning), [w.value for w in at.warning]


def test_a_good_link_gets_no_warning():
    at = open_page(PAGE, {LESSON_KEY: "Clusters", STEP_KEY: "2"})
    assert not at.warning
