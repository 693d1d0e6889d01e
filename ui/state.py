"""The active population, shared by every page, and the global sidebar that chooses it.

A built-in population is fully described by two URL parameters, ``population`` and ``seed``,
so a shared link reproduces it. An uploaded CSV lives only in the uploader's own browser
session (``st.session_state``); it is never written to disk or shared with other sessions.
"""

from __future__ import annotations

import streamlit as st

from core.populations import BUILTIN_POPULATIONS, Population, make_builtin

POPULATION_KEY = "population"
SEED_KEY = "seed"
UPLOADED = "uploaded"
_UPLOAD_STATE = "uploaded_population"
#: Set when a link or reload asked for an uploaded population this session does not have.
_UPLOAD_MISSING = "population_upload_missing"
DEFAULT_POPULATION = "lognormal"

#: Short names shown in the selector; they are also what the URL carries (?population=Beta).
_LABELS = {
    "lognormal": "Lognormal",
    "beta": "Beta",
    "bimodal": "Bimodal",
    "bimodal_paper": "Bimodal (paper's draw)",
    "establishments": "Establishments",
    UPLOADED: "Uploaded",
}


@st.cache_data(max_entries=24, show_spinner="Drawing the population…")
def builtin_population(key: str, seed: int) -> Population:
    """A built-in population, cached per (key, seed)."""
    return make_builtin(key, seed=seed)


def population_label(key: str) -> str:
    """Readable name of a population choice in the selector."""
    return _LABELS.get(key, key)


def uploaded_population() -> Population | None:
    """The population this session uploaded, if any."""
    return st.session_state.get(_UPLOAD_STATE)


def use_uploaded_population(pop: Population) -> None:
    """Make ``pop`` this session's active population (call from a button callback)."""
    st.session_state[_UPLOAD_STATE] = pop
    st.session_state[POPULATION_KEY] = UPLOADED
    st.session_state.pop(_UPLOAD_MISSING, None)


def _note_missing_upload() -> None:
    """Remember a URL that asks for an uploaded population this session does not hold.

    Runs before the selector: the selector drops a value it does not offer (and with it the
    URL parameter), so afterwards nothing would tell that the link asked for an upload.
    """
    requested = st.query_params.get(POPULATION_KEY)
    wanted = {UPLOADED, _LABELS[UPLOADED].lower()}
    if requested is not None and requested.lower() in wanted and uploaded_population() is None:
        st.session_state[_UPLOAD_MISSING] = True


def _population_changed() -> None:
    """The user picked a population: the notice about a missing upload has done its job."""
    st.session_state.pop(_UPLOAD_MISSING, None)


def page_notices() -> None:
    """Notices about the app's state shown in the main area of every page, above its title.

    Today one: a shared link or a reload asked for ``population=Uploaded``, but uploaded data
    never travels in a link (it stays in the browser session that uploaded it), so a built-in
    population is shown instead. The notice stays until the user picks a population or
    uploads a file.
    """
    if st.session_state.get(_UPLOAD_MISSING) and active_choice() != UPLOADED:
        shown = population_label(active_choice())
        st.warning(
            f"This link asked for an uploaded population. Uploaded data is never carried in "
            f"links (the file stays in the browser session that uploaded it), so every page "
            f"now shows the built-in population **{shown}** instead. To use your file, upload "
            "it again on the Population page.",
            icon=":material/link_off:",
        )


def population_sidebar() -> None:
    """Global sidebar controls: the population every page uses, and the random seed."""
    _note_missing_upload()
    options = list(BUILTIN_POPULATIONS)
    if uploaded_population() is not None:
        options.append(UPLOADED)
    st.selectbox(
        "Population",
        options=options,
        index=options.index(DEFAULT_POPULATION),
        format_func=population_label,
        key=POPULATION_KEY,
        bind="query-params",
        on_change=_population_changed,
        help="Every page computes on this population. Upload your own on the Population page.",
    )
    choice = active_choice()
    if choice == UPLOADED:
        pop = uploaded_population()
        st.caption(f"Your file: {pop.name if pop is not None else ''}")
    else:
        st.caption(BUILTIN_POPULATIONS[choice])
    st.number_input(
        "Seed",
        min_value=0,
        max_value=2**31 - 1,
        value=0,
        step=1,
        key=SEED_KEY,
        bind="query-params",
        help="Seeds the built-in populations and every simulation, so results can be reproduced.",
    )


def active_seed() -> int:
    """The global seed (0 until the sidebar has run)."""
    value = st.session_state.get(SEED_KEY, 0)
    return int(value) if value is not None else 0


def active_choice() -> str:
    """Key of the active population: a built-in key, or ``"uploaded"``."""
    key = st.session_state.get(POPULATION_KEY) or DEFAULT_POPULATION
    if key == UPLOADED and uploaded_population() is None:
        return DEFAULT_POPULATION
    return str(key)


def active_population() -> Population:
    """The population chosen in the sidebar (the default built-in if nothing is chosen)."""
    key = active_choice()
    if key == UPLOADED:
        pop = uploaded_population()
        assert pop is not None  # active_choice checked it
        return pop
    return builtin_population(key, active_seed())
