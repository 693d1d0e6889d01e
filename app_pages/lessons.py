"""Lessons: a question, a prediction, the app's own chart as the reveal, and a takeaway."""

from __future__ import annotations

import streamlit as st

from ui.lessons import links, views
from ui.lessons.content import LESSONS, lesson_by_label
from ui.widgets import bound_toggle

st.title("Lessons")
st.markdown(
    f"{views.count_words(len(LESSONS))} short lessons for a class. Each step asks a question; "
    "every student commits to a prediction; then the app shows the chart that answers it, "
    "with a link that opens the same state on its page. Predictions stay in your own "
    "browser: a shared link never gives the answer away."
)

views.lesson_link_notice()
c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
with c1:
    label = st.selectbox(
        "Lesson",
        views.lesson_labels(),
        key=links.LESSON_KEY,
        bind="query-params",
        on_change=views.lesson_label_changed,
    )
with c2:
    teacher = bound_toggle(
        "Teacher's view",
        links.TEACHER_KEY,
        default=False,
        help="QR codes of each step's links to project, and a printable handout.",
    )

lesson = lesson_by_label(label or LESSONS[0].label)
st.subheader(lesson.title)
st.markdown(lesson.intro)
index = views.step_selector(lesson)
base = views.current_base()
if teacher:
    views.teacher_view(lesson, index, base)
views.step_view(lesson, index, base)
views.navigation(lesson, index)
