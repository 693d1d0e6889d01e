"""Streamlit rendering of a lesson step and of the teacher's view.

A step reads top to bottom (it fits a phone): question, prediction, and once a prediction
is made the verdict, the chart, the link to the page state and the takeaway. Predictions
are kept in this browser session only (``st.session_state``), never in the URL: a link the
teacher shares must not answer the question for the class.
"""

from __future__ import annotations

import streamlit as st

from ui.lessons import handout, links, reveals
from ui.lessons.content import LESSONS, Lesson, Step
from ui.theme import chart_config
from ui.widgets import set_controls

#: Width of a projected QR code in CSS pixels (narrower screens scale it down).
QR_WIDTH = 420

#: Prefix of the session-only prediction controls (one per lesson step).
PREDICTION_PREFIX = "lesson_pred_"


def prediction_key(lesson: Lesson, index: int) -> str:
    """Session-state key of the prediction for step ``index`` (0-based) of ``lesson``."""
    return f"{PREDICTION_PREFIX}{lesson.label}_{index + 1}"


def current_base() -> str:
    """The app's address as the browser sees it (the local default when unknown)."""
    try:
        return links.base_url(st.context.url)
    except (AttributeError, ValueError):
        return links.FALLBACK_BASE


def lesson_label_changed() -> None:
    """A new lesson starts at its first step."""
    set_controls({links.STEP_KEY: 1})


def lesson_link_notice() -> None:
    """Explain a link whose ``lesson`` names no lesson (call before the lesson control)."""
    requested = st.query_params.get(links.LESSON_KEY)
    if requested is not None and requested not in lesson_labels():
        st.warning(
            f"This link asks for a lesson called “{requested[:40]}”, which does not exist, so "
            f"the first lesson is shown. The lessons are: {', '.join(lesson_labels())}.",
            icon=":material/link_off:",
        )


def step_selector(lesson: Lesson) -> int:
    """The step control (URL-bound, ``lesson_step``); returns the 0-based step index.

    A link whose step is not one of the lesson's steps is explained, and opens step 1.
    """
    requested = st.query_params.get(links.STEP_KEY)
    valid = [str(i) for i in range(1, len(lesson.steps) + 1)]
    if requested is not None and requested not in valid:
        st.warning(
            f"This link asks for step “{requested[:20]}”, but the lesson “{lesson.label}” has "
            f"steps 1 to {len(lesson.steps)}, so step 1 is shown.",
            icon=":material/link_off:",
        )
    step = st.radio(
        "Step",
        list(range(1, len(lesson.steps) + 1)),
        horizontal=True,
        key=links.STEP_KEY,
        bind="query-params",
        help="Each step: a question, your prediction, then the answer on the app's own chart.",
    )
    return int(step or 1) - 1


def _move(to: int) -> None:
    set_controls({links.STEP_KEY: to})


def navigation(lesson: Lesson, index: int) -> None:
    """Previous and next buttons (they move the URL-bound step control)."""
    c1, c2 = st.columns(2)
    c1.button(
        "Previous step",
        key="lesson_prev",
        icon=":material/arrow_back:",
        disabled=index == 0,
        on_click=_move,
        args=(index,),
        width="stretch",
    )
    c2.button(
        "Next step",
        key="lesson_next",
        icon=":material/arrow_forward:",
        disabled=index == len(lesson.steps) - 1,
        on_click=_move,
        args=(index + 2,),
        width="stretch",
    )


def reveal(step: Step, base: str) -> None:
    """The chart that answers the step, the link to its page state, and the takeaway."""
    st.markdown(step.reveal)
    try:
        fig = reveals.reveal_figure(step)
    except ValueError as exc:
        st.warning(f"The chart of this step cannot be drawn: {exc}", icon=":material/warning:")
    else:
        st.plotly_chart(
            fig, key="lesson_chart", config=chart_config("lesson_chart"), width="stretch"
        )
    st.link_button(
        "Open this state on its page",
        links.step_url(base, step),
        icon=":material/open_in_new:",
        help="The page this chart comes from, with every control set as in this step.",
    )
    st.markdown(f"**Takeaway.** {step.takeaway}")


def step_view(lesson: Lesson, index: int, base: str) -> None:
    """Question, prediction and, once predicted, the reveal of step ``index`` (0-based)."""
    step = lesson.steps[index]
    st.markdown(f"#### Step {index + 1} of {len(lesson.steps)}")
    st.markdown(f"**Question.** {step.question}")
    choice = st.radio(
        "Your prediction (commit before you look)",
        list(range(len(step.options))),
        format_func=step.options.__getitem__,
        index=None,
        key=prediction_key(lesson, index),
    )
    if choice is None:
        st.info("Make a prediction to see the answer.", icon=":material/lock:")
        return
    answer = step.options[step.correct]
    if choice == step.correct:
        st.success(f"Right: {answer}.", icon=":material/check_circle:")
    else:
        st.warning(f"Not quite. The answer is: {answer}.", icon=":material/lightbulb:")
    reveal(step, base)


def teacher_view(lesson: Lesson, index: int, base: str) -> None:
    """QR codes and addresses of the step (to project), and the lesson's printable handout."""
    step = lesson.steps[index]
    page_url = links.step_url(base, step)
    lesson_url = links.lesson_step_url(base, lesson, index)
    with st.container(border=True):
        st.markdown("**Teacher's view**")
        left, right = st.columns(2, gap="large")
        for column, title, url in (
            (left, "Students predict here (this step)", lesson_url),
            (right, "The answer on its page", page_url),
        ):
            with column:
                st.markdown(title)
                # st.image, not st.html: st.html's sanitiser drops inline SVG.
                st.image(handout.qr_svg(url, title=title), width=QR_WIDTH)
                st.code(url, language=None, wrap_lines=True)
        st.download_button(
            "Printable handout (HTML, A4)",
            data=handout.handout_html(lesson, base),
            file_name=f"lesson-{lesson.label.lower()}.html",
            mime="text/html",
            key="lesson_handout",
            on_click="ignore",
            icon=":material/print:",
            help="Questions, answer options, links with QR codes and takeaways of every step.",
        )


def lesson_labels() -> list[str]:
    """The lessons' labels, in order (the options of the ``lesson`` control)."""
    return [lesson.label for lesson in LESSONS]


_NUMBER_WORDS = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine")


def count_words(n: int) -> str:
    """A small count in words at the start of a sentence ("Six"), digits from ten on."""
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else f"{n:,}"
