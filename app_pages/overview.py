"""Population: what every page computes on — choose a built-in population or upload a CSV."""

from __future__ import annotations

import streamlit as st

from ui.population import text, views
from ui.population.upload import upload_form
from ui.state import active_choice, active_population, active_seed

st.title("The population")
st.markdown(text.INTRO)

inputs = views.PopulationInputs(pop=active_population(), seed=active_seed(), choice=active_choice())
views.notes_view(inputs)
views.distribution_view(inputs)
views.groups_view(inputs)
views.categories_view(inputs)

st.subheader(text.UPLOAD_HEADING)
upload_form()

views.snippet_view(inputs)
