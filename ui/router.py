"""Navigation and the shared sidebar of the app, used by ``app.py`` (and by the page tests).

Streamlit executes ``app.py`` as a script (its ``__name__`` is not ``"__main__"``), so the
router lives here as a function: ``app.py`` calls :func:`run_app`, and the tests call it with
another landing page.

:data:`PAGES` is the one place where pages are registered. Every entry must point at an
existing script: :func:`check_pages` raises a clear error otherwise, so a missing file never
turns into a silently vanished menu entry (the tests also check that every
``app_pages/*.py`` is registered).
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from ui.command_line import command_line_population, reading, start_preparation
from ui.glossary import glossary_expander
from ui.state import (
    active_has_upper_bound,
    no_upper_bound_notice,
    page_notices,
    population_sidebar,
    set_command_line,
)
from ui.theme import APP_CSS
from ui.widgets import write_presets_to_url

ROOT = Path(__file__).resolve().parents[1]

#: Title of the About page; the glossary under it starts open.
ABOUT_TITLE = "About and references"

#: The page shown at the root URL.
DEFAULT_PAGE = "app_pages/overview.py"


class PageSpec(NamedTuple):
    """One menu entry: the page script (relative to the repository root), title and icon.

    ``needs_upper``: the page computes with the public upper bound U of the active
    population. On a population given without one (an upload with U left empty), the router
    shows :func:`ui.state.no_upper_bound_notice` instead of running such a page. A page that
    runs without U (or deals with its absence itself) sets it to False.
    """

    script: str
    title: str
    icon: str
    needs_upper: bool = True


#: Every page, in menu order: the only registry of pages.
PAGES: tuple[PageSpec, ...] = (
    PageSpec("app_pages/overview.py", "Population", ":material/groups:", needs_upper=False),
    # Without U the planner compares the unbounded quantile (and says why the mean is off).
    PageSpec("app_pages/planner.py", "Release planner", ":material/checklist:", needs_upper=False),
    PageSpec("app_pages/lessons.py", "Lessons", ":material/school:", needs_upper=False),
    PageSpec(
        "app_pages/amplification.py", "Amplification", ":material/zoom_in:", needs_upper=False
    ),
    # The gains page runs, on a population without U, the mechanisms that need none.
    PageSpec(
        "app_pages/gains.py", "Mean & median gains", ":material/query_stats:", needs_upper=False
    ),
    PageSpec(
        "app_pages/clusters.py", "Cluster sampling", ":material/workspaces:", needs_upper=False
    ),
    PageSpec("app_pages/strata.py", "Stratified sampling", ":material/stacked_bar_chart:"),
    PageSpec(
        "app_pages/statistical.py", "Statistical privacy", ":material/casino:", needs_upper=False
    ),
    PageSpec("app_pages/game.py", "Membership game", ":material/person_search:", needs_upper=False),
    PageSpec("app_pages/about.py", ABOUT_TITLE, ":material/info:", needs_upper=False),
)


def check_pages(pages: Sequence[PageSpec] = PAGES, root: Path = ROOT) -> None:
    """Raise unless every entry of ``pages`` is unique and points at an existing script.

    The converse (every ``app_pages/*.py`` is registered) is checked by the tests, so a stray
    helper file never stops the app.

    Parameters
    ----------
    pages : sequence of PageSpec
        The registry to check (default: :data:`PAGES`).
    root : pathlib.Path
        Repository root the scripts are relative to.

    Raises
    ------
    FileNotFoundError
        If an entry points at a script that does not exist.
    ValueError
        If the registry is empty or a script or title is registered twice.
    """
    if not pages:
        raise ValueError("the page registry ui.router.PAGES is empty")
    for field in ("script", "title"):
        seen = [getattr(spec, field) for spec in pages]
        twice = sorted({value for value in seen if seen.count(value) > 1})
        if twice:
            raise ValueError(f"page {field}s registered more than once in PAGES: {twice}")
    missing = [spec.script for spec in pages if not (root / spec.script).is_file()]
    if missing:
        raise FileNotFoundError(
            f"PAGES in ui/router.py registers page scripts that do not exist: {missing}; "
            "create the file or remove its entry"
        )


def navigation_pages(
    default_page: str = DEFAULT_PAGE, pages: Sequence[PageSpec] = PAGES, root: Path = ROOT
) -> list[st.Page]:
    """The ``st.Page`` objects of the menu, after :func:`check_pages`.

    Raises
    ------
    ValueError
        If ``default_page`` is not a registered script (or the registry is inconsistent).
    FileNotFoundError
        If a registered script does not exist.
    """
    check_pages(pages, root)
    scripts = [spec.script for spec in pages]
    if default_page not in scripts:
        raise ValueError(
            f"default_page must be one of the registered pages {scripts}; got {default_page!r}"
        )
    return [
        st.Page(
            str(root / spec.script),
            title=spec.title,
            icon=spec.icon,
            default=spec.script == default_page,
        )
        for spec in pages
    ]


def page_modules(pages: Sequence[PageSpec] = PAGES, root: Path = ROOT) -> tuple[str, ...]:
    """The project modules (``core``, ``ui``) the page scripts import, in menu order.

    ``from ui.gains import text, views`` names ``ui.gains``, ``ui.gains.text`` and
    ``ui.gains.views`` (each name that is a module of its own); read from the scripts'
    source, so a new page needs no list kept by hand.
    """
    names: list[str] = []
    for spec in pages:
        tree = ast.parse((root / spec.script).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                folder = root.joinpath(*node.module.split("."))
                found = [node.module] + [
                    f"{node.module}.{alias.name}"
                    for alias in node.names
                    if (folder / f"{alias.name}.py").is_file()
                    or (folder / alias.name / "__init__.py").is_file()
                ]
            else:
                continue
            names.extend(name for name in found if name.split(".")[0] in ("core", "ui"))
    return tuple(dict.fromkeys(names))


_WARM_LOCK = threading.Lock()
_warm_thread: threading.Thread | None = None


#: The warm-up thread's nice value (Linux sets it per thread): when it shares the cores with
#: a visitor's run and the browser, the scheduler serves those first. A fresh server's first
#: page, opened while the warm-up runs, settled in 2.38 s instead of 2.53 s (median of three
#: runs of ``bench.bench_browser --rows open``).
WARM_NICE = 19


def _lower_priority() -> None:
    """Give the calling thread the nice value :data:`WARM_NICE` (best effort: Linux applies
    it to the thread alone; elsewhere, or without the right, nothing changes)."""
    if not sys.platform.startswith("linux"):  # a thread id is no process id elsewhere
        return
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), WARM_NICE)
    except (AttributeError, OSError):  # no setpriority (Windows), or not allowed
        pass


def _import_all(modules: Sequence[str]) -> None:
    _lower_priority()
    import_page_modules(modules)
    # The planner's compiled kernels: numba's start (about a second) is paid here, once per
    # server, instead of by the first plan a visitor asks for.
    from core.planner.warm import warm_up

    warm_up()


def import_page_modules(modules: Sequence[str]) -> None:
    """Import ``modules`` (names from :func:`page_modules`) in the calling thread."""
    for name in modules:
        importlib.import_module(name)


def import_while_reading(spec: PageSpec | None, argv: Sequence[str]) -> tuple[str, ...]:
    """Import the requested page's modules while the command line's file is being read.

    The server's first run used to wait for the file (about 1.5 s for 5 million records),
    then import the page's modules (numpy, scipy, plotly's figures, the page's own), one
    after the other. The read spends most of its time in pyarrow and numpy, which release
    the interpreter's lock, so the imports now go on beside it (the first page of a
    5-million-record register about 0.4 s sooner, ``bench.bench_browser --rows register``).
    Without a read under way (no file, or a later run) nothing is imported here.

    Parameters
    ----------
    spec : PageSpec or None
        The page the run shows.
    argv : sequence of str
        The server's script arguments.

    Returns
    -------
    tuple of str
        The modules imported (empty when no read was under way).
    """
    if spec is None or not reading(argv):
        return ()
    names = page_modules((spec,))
    import_page_modules(names)
    return names


def warm_page_modules(modules: Sequence[str] | None = None) -> threading.Thread | None:
    """Import every page's modules in a background thread, once per server process.

    The first visit of a page used to import its modules (numpy, scipy, numba kernels,
    plotly's figure classes) while the visitor waited, seconds on a busy machine; then the
    planner's compiled kernels are loaded (:func:`core.planner.warm.warm_up`), at the
    lowest priority (:data:`WARM_NICE`). The server calls this as it starts
    (:func:`ui.server.start_server`); under ``streamlit run app.py`` the router calls it
    after the server's first page has been sent. Either way the pages a visitor opens next
    find their modules imported. Later calls do nothing and return ``None``; the first
    returns the started (daemon) thread.

    Parameters
    ----------
    modules : sequence of str, optional
        Modules to import (default: :func:`page_modules`).
    """
    global _warm_thread
    with _WARM_LOCK:
        if _warm_thread is not None:
            return None
        names = tuple(modules) if modules is not None else page_modules()
        _warm_thread = threading.Thread(
            target=_import_all, args=(names,), name="warm-page-modules", daemon=True
        )
        _warm_thread.start()
        return _warm_thread


def run_app(default_page: str = DEFAULT_PAGE, argv: Sequence[str] = ()) -> None:
    """Configure the page, draw the shared sidebar, run the selected page, add the glossary.

    ``default_page`` is the page shown at the root URL; tests use it to open a page directly.
    ``argv`` are the server's script arguments (``app.py`` passes ``sys.argv[1:]``): a
    population file given there (``--population FILE --value COLUMN ...``, see
    :mod:`ui.command_line`) becomes a population choice of every session. Nothing a browser
    sends reaches ``argv``.
    A registry that does not match the page scripts raises (see :func:`check_pages`).
    After the first page the server sends, every page's modules are imported in the
    background (:func:`warm_page_modules`).
    The sidebar starts collapsed on narrow (phone) screens and open on wider ones.
    """
    st.set_page_config(
        page_title="Sampling & privacy explorer",
        page_icon=":material/insights:",
        layout="wide",
        initial_sidebar_state="auto",  # collapsed on phones, open on wider screens
    )
    navigation = st.navigation(navigation_pages(default_page, PAGES))
    st.html(f"<style>{APP_CSS}</style>")
    spec = next((p for p in PAGES if p.title == navigation.title), None)
    start_preparation(argv)  # serve.py or app.py started it already; a test's run starts it
    import_while_reading(spec, argv)
    set_command_line(command_line_population(argv))
    with st.sidebar:
        st.markdown("### Sampling & privacy explorer")
        st.caption(
            "Can an agency that holds the whole population release a more accurate private "
            "statistic by privatising a random sample instead?"
        )
        population_sidebar()
        st.caption(
            "A teaching and analysis tool: it computes what the papers' formulas imply; it does "
            "not release real private statistics."
        )
    page_notices()
    if spec is not None and spec.needs_upper and not active_has_upper_bound():
        st.title(spec.title)
        no_upper_bound_notice()
    else:
        navigation.run()
    glossary_expander(expanded=navigation.title == ABOUT_TITLE)
    write_presets_to_url()
    warm_page_modules()  # once per server: the next pages' modules load in the background
