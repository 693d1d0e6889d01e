"""What the server does once, when it starts: before any browser connects.

Streamlit runs ``app.py`` once per visit and nothing of the app's before the first visit. So a
server started with a register on its command line used to begin reading it only when the
first visitor arrived, who then waited for the read (about 1.5 s for 5 million records) and
for the pages' modules to import. ``serve.py`` (the command ``make run`` runs) wraps ``app.py``
in a :class:`streamlit.App` whose lifespan calls :func:`start_server`: the read and the
imports begin as the server starts, while the visitor's browser is still starting and
loading the frontend.

Invariants
----------
* Nothing here waits: the lifespan starts background (daemon) threads and returns, so the
  server answers its first request as soon as it would without them.
* Everything started here is what the first visit would start anyway, under the same keys
  (:func:`ui.command_line.start_preparation` once per arguments,
  :func:`ui.router.warm_page_modules` once per process), so the visit finds it started and
  does not start it twice; ``streamlit run app.py`` still serves the same app, only without
  the early start.
* Only the server process's own arguments reach :func:`start_server`, never anything a
  browser sends (see :mod:`ui.command_line`).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from ui.command_line import start_preparation
from ui.router import warm_page_modules

__all__ = ["lifespan", "start_server"]


def start_server(argv: Sequence[str]) -> tuple[threading.Thread, ...]:
    """Start reading the population file ``argv`` names and importing every page's modules.

    Parameters
    ----------
    argv : sequence of str
        The server's script arguments (``sys.argv[1:]``: what follows ``--`` on the command
        line ``streamlit run serve.py -- --population FILE ...``).

    Returns
    -------
    tuple of threading.Thread
        The threads started (the read first, then the imports); empty when both had been
        started before in this process, and without the read when ``argv`` names no file.
    """
    read = start_preparation(argv)
    imports = warm_page_modules()
    return tuple(thread for thread in (read, imports) if thread is not None)


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    """The server's lifespan (:class:`streamlit.App`): :func:`start_server` with the
    process's arguments as the server starts; nothing to undo when it stops (the threads
    are daemons)."""
    del app  # the threads need nothing from the App
    start_server(sys.argv[1:])
    yield None
