"""AppTest harness shared by the page tests: open a page through the real router.

AppTest's ``switch_page`` does not rerun the router script (the shared sidebar vanishes), so
each test lands directly on its page, as a user following a link would.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

import ui.charts
from core.populations import Population
from ui.charts import OPENED_PREFIX
from ui.state import POPULATION_KEY, UPLOADED

#: The session-state key under which the upload form keeps the session's uploaded population.
UPLOAD_STATE = "uploaded_population"

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120


def app_test(page: str, argv: Sequence[str] = ()) -> AppTest:
    """An AppTest (not yet run) of :func:`ui.router.run_app` landing on ``page``.

    ``argv`` plays the server's script arguments (``streamlit run app.py -- ARGS``), e.g. a
    ``--population`` file.
    """
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from ui.router import run_app\n"
        f"run_app(default_page={page!r}, argv={list(argv)!r})\n"
    )
    return AppTest.from_string(script, default_timeout=TIMEOUT)


def open_page(
    page: str,
    query: dict[str, str] | None = None,
    argv: Sequence[str] = (),
    *,
    uploaded: Population | None = None,
    check: bool = True,
    snippets: bool = True,
) -> AppTest:
    """Run :func:`ui.router.run_app` with ``page`` as the landing page and URL ``query``.

    ``uploaded`` is put into the session as its uploaded, active population before the first
    run, as the upload form leaves it (a URL cannot carry an upload). With ``check`` the page
    must show no exception. With ``snippets`` every "Reproduce in Python" expander is open, as
    a reader leaves it (:func:`open_snippets`), so that the page's code is on it: they are
    opened as they are drawn on the first run (:func:`lazy_expanders_open`), which spares the
    second run that opening them afterwards would cost.
    """
    at = app_test(page, argv)
    query = dict(query or {})
    if uploaded is not None:
        at.session_state[UPLOAD_STATE] = uploaded
        at.session_state[POPULATION_KEY] = UPLOADED
        query.setdefault(POPULATION_KEY, "Uploaded")
    if query:
        at.query_params.update(query)
    if snippets:
        with lazy_expanders_open():
            at.run()
        open_snippets(at)
    else:
        at.run()
    if check:
        assert not at.exception, [e.value for e in at.exception]
    return at


class _OpeningStreamlit:
    """``streamlit`` as :mod:`ui.charts` sees it, but a lazy expander new to the session opens.

    Every other name is streamlit's own. An expander keyed with :data:`ui.charts.OPENED_PREFIX`
    whose key the session does not hold yet is set open just before it is drawn, as if the
    reader had opened it; one the session holds (opened or closed before) keeps its state.
    """

    def __getattr__(self, name: str) -> Any:
        return getattr(st, name)

    def expander(self, label: str, *args: Any, key: Any = None, **kwargs: Any) -> Any:
        if isinstance(key, str) and key.startswith(OPENED_PREFIX) and key not in st.session_state:
            st.session_state[key] = True
        return st.expander(label, *args, key=key, **kwargs)


@contextmanager
def lazy_expanders_open() -> Iterator[None]:
    """While inside, every AppTest run opens each lazy expander as it is first drawn.

    AppTest runs the page in this process, with the modules the tests import, so the page's
    :func:`ui.charts.drawn_when_opened` sees the stand-in for ``streamlit`` set here. The page's
    code is unchanged: only the reader's click is played before the widget is drawn.
    """
    real = ui.charts.st
    ui.charts.st = _OpeningStreamlit()  # type: ignore[assignment]
    try:
        yield
    finally:
        ui.charts.st = real


def open_snippets(at: AppTest) -> AppTest:
    """Open every closed "Reproduce in Python" expander of ``at`` and run the page again.

    Such an expander sends its code only once opened (:func:`ui.charts.reproduce`); it stays
    open for the session's later runs. Every other expander drawn only when opened
    (:func:`ui.charts.drawn_when_opened`: a secondary chart, the planner's link) is opened
    too. Nothing is run when every one is open already.
    """
    closed = [
        box.key
        for box in at.get("expander")
        if box.key and box.key.startswith(OPENED_PREFIX) and not at.session_state[box.key]
    ]
    if closed:
        for key in closed:
            at.session_state[key] = True
        at.run()
    return at


def charts(at: AppTest) -> list[dict]:
    """The plotly figures on the page, as JSON dicts."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def array(value: object) -> np.ndarray:
    """Decode a plotly data array (plain list or plotly's base64 typed-array form)."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


def trace_names(at: AppTest) -> set[str]:
    """Names of every trace of every chart on the page."""
    return {t.get("name") for c in charts(at) for t in c["data"] if t.get("name")}


def tab_containers(node: Any) -> list[Any]:
    """Every tab container below ``node`` (``at.main``, ``at.sidebar``), nested ones included."""
    found = []
    for child in getattr(node, "children", {}).values():
        if getattr(child, "type", None) == "tab_container":
            found.append(child)
        found.extend(tab_containers(child))
    return found


def tab_queries(at: AppTest) -> list[dict[str, str]]:
    """The default view, then one URL query per further tab of the tab containers of ``at``."""
    queries: list[dict[str, str]] = [{}]
    for container in tab_containers(at.main):
        key = container.proto.tab_container.query_param_key
        labels = [tab.label for tab in container.children.values()]
        queries.extend({key: label} for label in labels[1:] if key)
    return queries


def snippet(at: AppTest, marker: str) -> str:
    """The first code block on the page that contains ``marker``."""
    return next(c.value for c in at.get("code") if marker in c.value)


def run_snippet(code: str) -> str:
    """Run a snippet as a user would: a fresh interpreter with the repository as cwd; stdout."""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def printed_numbers(code: str) -> dict[str, float]:
    """Run ``code`` and read its ``name = number`` lines as ``{name: number}``."""
    found = re.findall(r"^(\w[\w ]*?) = ([-+0-9.e]+)$", run_snippet(code), flags=re.M)
    return {name: float(value) for name, value in found}


class Downloads:
    """The files behind an AppTest's download buttons, as a browser would fetch them.

    AppTest swaps in a fresh media file manager for each run and drops it afterwards, and a
    button whose data is a callable stores only that callable until it is clicked. Opened
    with ``Downloads(monkeypatch)`` before the runs, this keeps every manager made, so
    :meth:`data` can read a button's file (or call its callable, as a click would).
    """

    def __init__(self, monkeypatch: Any) -> None:
        from streamlit.runtime.media_file_manager import MediaFileManager
        from streamlit.testing.v1 import app_test as app_test_module

        managers: list[Any] = []
        self.managers = managers

        class Kept(MediaFileManager):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                managers.append(self)

        monkeypatch.setattr(app_test_module, "MediaFileManager", Kept)

    def data(self, at: AppTest, label: str) -> bytes:
        """The bytes of the download button labelled ``label`` on ``at``'s last run."""
        (button,) = [b for b in at.get("download_button") if b.proto.label == label]
        proto = button.proto
        for manager in reversed(self.managers):
            if proto.deferred_file_id:
                entry = manager._deferred_callables.get(proto.deferred_file_id)
                if entry is not None:
                    made = entry["callable"]()
                    return made.encode("utf-8") if isinstance(made, str) else bytes(made)
            elif proto.url:
                found = manager.read_file(proto.url.rsplit("/", 1)[-1])
                if found is not None:
                    return bytes(found.content)
        raise AssertionError(f"no file behind the download button {label!r}")
