"""The server of the privacy–accuracy explorer: ``streamlit run serve.py`` (what ``make run`` runs).

Streamlit finds the application ``app`` below and serves ``app.py``, the script it runs once
per visit, as ``streamlit run app.py`` would. The difference is the lifespan
(:func:`ui.server.lifespan`): as the server starts, before any browser connects, it begins
reading a population file named on the command line
(``streamlit run serve.py -- --population FILE --value COLUMN ...``) and importing every
page's modules, so the first visitor waits for less.
"""

import streamlit as st

from ui.server import lifespan

app = st.App("app.py", lifespan=lifespan)
