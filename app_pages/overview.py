"""Population: what every page computes on — choose a built-in population or upload a CSV."""

from __future__ import annotations

import streamlit as st

from core.populations import population_to_csv_bytes
from ui.downloads import frame_to_csv_bytes
from ui.population.cache import histogram_data, population_summary, shared_cluster_note
from ui.population.figures import group_counts, histogram_figure
from ui.population.upload import upload_form
from ui.snippets import population_overview_snippet
from ui.state import UPLOADED, active_choice, active_population
from ui.widgets import bound_toggle

st.title("The population")
st.markdown(
    "An agency holds every record of a population of **N** units. It wants to release a "
    "private statistic — a mean or a median — with a promised guarantee **ε_target**. The "
    "question this app explores: is the release *more accurate* if the agency first draws a "
    "secret random sample of **n** units and privatises the sample's statistic, spending the "
    "larger budget **ε_sample** that sampling allows? Choose the population in the sidebar or "
    "upload your own below; every page uses it."
)


pop = active_population()
st.subheader(pop.name)
shared_clusters = shared_cluster_note(pop.content_hash, pop)
for note in pop.notes:
    if note == shared_clusters:
        st.warning(note, icon=":material/warning:")
    else:
        st.info(note, icon=":material/info:")

left, right = st.columns([2, 3], gap="large")
with left:
    summary = population_summary(pop.content_hash, pop)
    # A static table wraps its cells instead of cutting them, whatever the column width.
    st.table(summary.set_index("quantity"))
    st.download_button(
        "Download population (CSV)",
        data=lambda: population_to_csv_bytes(pop),
        file_name="population.csv",
        mime="text/csv",
        on_click="ignore",
        icon=":material/download:",
        key="download_population",
    )
with right:
    c1, c2 = st.columns(2)
    bins = c1.slider("Histogram bins", 10, 200, 60, step=5, key="pop_bins", bind="query-params")
    with c2:
        log_x = bound_toggle(
            "Log value axis", "pop_log_x", default=False, help="Useful for skewed populations."
        )
    if log_x and pop.upper <= 0:
        st.warning("A log axis needs positive values; showing a linear axis instead.")
        log_x = False
    hist = histogram_data(pop.content_hash, pop, int(bins), bool(log_x))
    st.plotly_chart(histogram_figure(pop, hist, log_x=log_x)[0], key="chart_histogram")
    st.download_button(
        "Download histogram (CSV)",
        data=frame_to_csv_bytes(hist),
        file_name="histogram.csv",
        mime="text/csv",
        on_click="ignore",
        key="csv_histogram",
        icon=":material/table:",
    )

st.markdown(
    "**What you see.** Each bar counts the records whose value falls in its interval. The dashed "
    "line marks the median, the dotted line the mean, the grey lines the declared bounds L and "
    "U. The bounds are public knowledge, not read from the data: the Laplace mechanism for a "
    "mean on N records adds noise of scale R/(N·ε), and the median's global sensitivity is the "
    "whole range R."
)
st.latex(r"\Delta^{G}_{\bar y} = \frac{R}{N}, \qquad R = U - L")

if pop.strata is not None or pop.clusters is not None:
    st.subheader("Strata and clusters")
    cols = st.columns(2)
    for col, labels, what in (
        (cols[0], pop.strata, "Stratum"),
        (cols[1], pop.clusters, "Cluster"),
    ):
        if labels is None:
            continue
        with col:
            counts = group_counts(labels, pop.values)
            column = pop.stratum_label if what == "Stratum" else pop.cluster_label
            plural = "Strata" if what == "Stratum" else "Clusters"
            st.markdown(f"**{plural} ({column}): {len(counts):,}**")
            st.dataframe(
                counts.rename(columns={"label": what.lower()}),
                hide_index=True,
                height=260,
                width="stretch",
            )

st.subheader("Upload your own population")
upload_form()

with st.expander("Reproduce in Python", icon=":material/code:"):
    if active_choice() == UPLOADED:
        st.caption("Put your CSV file next to the script (the snippet reads it by its name).")
    st.code(population_overview_snippet(pop), language="python")
