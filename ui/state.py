"""The active population, shared by every page, and the global sidebar that chooses it.

A built-in population is fully described by two URL parameters, ``population`` and ``seed``,
so a shared link reproduces it. An uploaded CSV lives only in the uploader's own browser
session (``st.session_state``); it is never written to disk or shared with other sessions.
A population file named on the server's command line (:mod:`ui.command_line`) is the
server's: every session of that server offers it, first and as the default, so a link
reproduces it on the same server.
"""

from __future__ import annotations

import streamlit as st

from core.populations import BUILTIN_POPULATIONS, Population, make_builtin
from ui.command_line import CommandLineLoad

POPULATION_KEY = "population"
SEED_KEY = "seed"
UPLOADED = "uploaded"
#: The population file named on the server's command line (the key; the label is the file's).
COMMAND_LINE = "command_line"
_UPLOAD_STATE = "uploaded_population"
#: What the router found on the server's command line this run (a CommandLineLoad or None).
_COMMAND_LINE_STATE = "command_line_population"
#: Set when a link or reload asked for an uploaded population this session does not have.
_UPLOAD_MISSING = "population_upload_missing"
DEFAULT_POPULATION = "lognormal"

#: Short names shown in the selector; they are also what the URL carries (?population=Beta).
_LABELS = {
    "lognormal": "Lognormal",
    "lognormal_rounded": "Lognormal rounded (ties)",
    "beta": "Beta",
    "bimodal": "Bimodal",
    "bimodal_paper": "Bimodal (paper's draw)",
    "establishments": "Establishments",
    UPLOADED: "Uploaded",
}


@st.cache_resource(max_entries=24, show_spinner="Drawing the population…")
def builtin_population(key: str, seed: int) -> Population:
    """A built-in population, drawn once per server for each (key, seed) and shared.

    Every session and every call gets the same object: a :class:`Population` cannot be
    changed (a frozen dataclass over read-only arrays), so nothing needs a copy of its own.
    A data cache would hand each call a fresh copy instead (20 ms and 2 MB for the 100,000
    establishments, on every run of every page that shows them).
    """
    return make_builtin(key, seed=seed)


def population_label(key: str) -> str:
    """Readable name of a population choice in the selector (and in the URL).

    The command-line population is labelled with its file name and N, e.g.
    ``"register.csv (N = 20,000)"``.
    """
    if key == COMMAND_LINE:
        pop = command_line_population()
        if pop is None:
            return "Command line"
        return f"{command_line_file_name()} (N = {pop.size:,})"
    return _LABELS.get(key, key)


def set_command_line(load: CommandLineLoad | None) -> None:
    """Record what the server's command line gave (called by the router on every run)."""
    st.session_state[_COMMAND_LINE_STATE] = load


def command_line_load() -> CommandLineLoad | None:
    """What the server's command line gave this run: ``None`` without arguments."""
    load = st.session_state.get(_COMMAND_LINE_STATE)
    return load if isinstance(load, CommandLineLoad) else None


def command_line_population() -> Population | None:
    """The population file named on the server's command line, if it was read."""
    load = command_line_load()
    return load.population if load is not None else None


def command_line_file_name() -> str:
    """Name (without folder) of the command-line population file; empty without one."""
    load = command_line_load()
    return load.settings.file_name if load is not None and load.settings is not None else ""


def default_choice() -> str:
    """The population shown when the URL names none: the command-line file, if it was read."""
    return COMMAND_LINE if command_line_population() is not None else DEFAULT_POPULATION


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
    load = command_line_load()
    if load is not None and load.error is not None:
        st.warning(
            "The population file given on the server's command line could not be used, so "
            "every page shows a built-in population; the sidebar says why.",
            icon=":material/error:",
        )
    if st.session_state.get(_UPLOAD_MISSING) and active_choice() != UPLOADED:
        choice = active_choice()
        shown = (
            f"the population this server was started with, **{population_label(choice)}**"
            if choice == COMMAND_LINE
            else f"the built-in population **{population_label(choice)}**"
        )
        st.warning(
            f"This link asked for an uploaded population. Uploaded data is never carried in "
            f"links (the file stays in the browser session that uploaded it), so every page "
            f"now shows {shown} instead. To use your file, upload it again on the Population "
            "page.",
            icon=":material/link_off:",
        )


def _command_line_sidebar() -> None:
    """The command-line file's error, if it could not be used (in the sidebar)."""
    load = command_line_load()
    if load is None or load.error is None:
        return
    name = load.settings.file_name if load.settings is not None else ""
    what = f"The population file **{name}**" if name else "The population arguments"
    st.error(
        f"{what} given on the server's command line could not be used.\n\n{load.error}\n\n"
        "The built-in populations work as usual.",
        icon=":material/error:",
    )


def population_sidebar() -> None:
    """Global sidebar controls: the population every page uses, and the random seed."""
    _note_missing_upload()
    options = list(BUILTIN_POPULATIONS)
    if command_line_population() is not None:
        options.insert(0, COMMAND_LINE)
    if uploaded_population() is not None:
        options.append(UPLOADED)
    # Labels fixed for this run: the selector (and a test's) formats without session state.
    labels = {key: population_label(key) for key in options}
    st.selectbox(
        "Population",
        options=options,
        index=options.index(default_choice()),
        format_func=lambda key: labels.get(key, str(key)),
        key=POPULATION_KEY,
        bind="query-params",
        on_change=_population_changed,
        help="Every page computes on this population. Upload your own on the Population page.",
    )
    choice = active_choice()
    if choice == UPLOADED:
        pop = uploaded_population()
        st.caption(f"Your file: {pop.name if pop is not None else ''}")
    elif choice == COMMAND_LINE:
        pop = command_line_population()
        st.caption(f"From the server's command line: {pop.name if pop is not None else ''}")
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
    _command_line_sidebar()


def active_seed() -> int:
    """The global seed (0 until the sidebar has run)."""
    value = st.session_state.get(SEED_KEY, 0)
    return int(value) if value is not None else 0


def active_choice() -> str:
    """Key of the active population: a built-in key, ``"uploaded"`` or ``"command_line"``."""
    key = st.session_state.get(POPULATION_KEY) or default_choice()
    if key == UPLOADED and uploaded_population() is None:
        return default_choice()
    if key == COMMAND_LINE and command_line_population() is None:
        return DEFAULT_POPULATION
    return str(key)


def active_population() -> Population:
    """The population chosen in the sidebar (the default built-in if nothing is chosen)."""
    key = active_choice()
    if key == UPLOADED:
        pop = uploaded_population()
        assert pop is not None  # active_choice checked it
        return pop
    if key == COMMAND_LINE:
        pop = command_line_population()
        assert pop is not None  # active_choice checked it
        return pop
    return builtin_population(key, active_seed())


def active_has_upper_bound() -> bool:
    """Whether the active population declares a public upper bound U.

    Every built-in population does; an uploaded file (or a command-line file) may leave
    U empty (stored as ``inf``), and then only what needs no upper bound can run on it.
    Built-in populations are not drawn to answer.
    """
    key = active_choice()
    if key == UPLOADED:
        pop = uploaded_population()
    elif key == COMMAND_LINE:
        pop = command_line_population()
    else:
        return True
    return pop is None or pop.has_upper_bound


def no_upper_bound_message(what: str = "This page") -> str:
    """Why ``what`` cannot run on the active population, and how to give it an upper bound."""
    return (
        f"{what} needs a public upper bound U, and the active population was given without "
        "one. To use it, upload the file again on the Population page with the upper bound "
        "filled in, or pick a built-in population in the sidebar. Without an upper bound, "
        "the Mean & median gains page runs the one quantile mechanism that needs none "
        "(the unbounded quantile)."
    )


def no_upper_bound_notice(what: str = "This page") -> None:
    """Show :func:`no_upper_bound_message` as a warning box."""
    st.warning(no_upper_bound_message(what), icon=":material/vertical_align_top:")
