"""The Lessons page: guided steps of question, prediction, reveal and takeaway.

- :mod:`ui.lessons.content`: the six lessons as data (no Streamlit);
- :mod:`ui.lessons.links`: the URL of each step's page state and of each lesson step;
- :mod:`ui.lessons.handout`: QR codes (segno) and the printable HTML handout;
- :mod:`ui.lessons.reveals`: each step's chart, drawn by the target page's own figure code;
- :mod:`ui.lessons.views`: the Streamlit rendering of a step and of the teacher's view.
"""
