"""Membership game: guess whether Alice's record is in the population, then compare with ε."""

from __future__ import annotations

import streamlit as st

from core import games
from ui.game import text, views
from ui.state import active_seed
from ui.widgets import log_float_control, preset_buttons, result_container

st.title("Membership game: what ε means")
st.markdown(text.INTRO)
st.caption(text.CAPTION)
preset_buttons(text.PRESETS, key="game")

with st.expander("Settings of the game", expanded=False, icon=":material/tune:"):
    c1, c2, c3 = st.columns(3, gap="medium")
    with c1:
        design = st.radio(
            "Sampling design",
            games.DESIGNS,
            format_func=text.labeller(text.DESIGN_LABELS),
            key="game_design",
            bind="query-params",
            help="Simple random: n records drawn without replacement. Cluster: ℓ of the k "
            "clusters drawn, each with all its M records.",
        )
        statistic = st.radio(
            "Release",
            games.STATISTICS,
            format_func=text.labeller(text.STATISTIC_LABELS),
            key="game_statistic",
            bind="query-params",
            help="Count: the noisy number of sampled records with the property. Share: that "
            "count divided by the planned sample size (a mean of yes/no): the same privacy.",
        )
    with c2:
        eps_target = log_float_control(
            "Promised ε_target",
            "game_eps",
            default=1.0,
            min_value=1e-6,
            max_value=50.0,
            help="The guarantee the agency promises for the population.",
        )
        k = int(
            st.number_input(
                "Clusters k", 2, games.MAX_CLUSTERS, 20, key="game_k", bind="query-params"
            )
        )
        size = int(
            st.number_input(
                "Cluster size M",
                1,
                games.MAX_CLUSTER_SIZE,
                25,
                key="game_size",
                bind="query-params",
                help="Records per cluster; the population has N = k·M records.",
            )
        )
    with c3:
        if design == "cluster":
            drawn = int(
                st.number_input(
                    "Clusters drawn ℓ", 1, games.MAX_CLUSTERS, 10, key="game_ell",
                    bind="query-params", help="rate = ℓ/k",
                )
            )  # fmt: skip
        else:
            drawn = int(
                st.number_input(
                    "Sample size n",
                    1,
                    games.MAX_CLUSTERS * games.MAX_CLUSTER_SIZE,
                    100,
                    key="game_n",
                    bind="query-params",
                    help="rate = n/N",
                )
            )
        neighbour = st.selectbox(
            "Who else has the property",
            games.NEIGHBOURS,
            format_func=text.labeller(text.NEIGHBOUR_LABELS),
            key="game_neighbour",
            bind="query-params",
            help="Worst case: only Alice and her M cluster-mates have it (simple random design: "
            "only Alice). Typical: every other record has it with probability π (fixed by the "
            "seed and known to the adversary), and so does Alice.",
        )
        share = float(
            st.number_input(
                "Share π (typical neighbour)",
                0.0,
                1.0,
                0.3,
                step=0.05,
                key="game_pi",
                bind="query-params",
                help="Used by the typical neighbour only.",
            )
        )
        rounds = int(st.number_input("Rounds", 1, 100, 10, key="game_rounds", bind="query-params"))

seed = active_seed()
population = k * size
if design == "cluster" and drawn >= k:
    st.warning(
        f"Drawing ℓ = {drawn} of k = {k} clusters keeps no cluster out of the sample; "
        f"playing with ℓ = k − 1 = {k - 1}.",
        icon=":material/warning:",
    )
    drawn = k - 1
elif design != "cluster" and drawn > population:
    st.warning(
        f"The sample size n = {drawn:,} exceeds the population size N = {population:,}; "
        "using n = N (a census).",
        icon=":material/warning:",
    )
    drawn = population
try:
    setup = games.GameSetup(
        design, k, size, drawn, eps_target, neighbour, share, statistic, population_seed=seed
    )
except ValueError as exc:
    st.error(f"These settings cannot be played: {exc}", icon=":material/error:")
    st.stop()

with result_container("game"):
    st.caption(text.settings_line(setup, rounds))
    views.game_view(views.GameInputs(setup=setup, seed=seed, rounds=rounds))
