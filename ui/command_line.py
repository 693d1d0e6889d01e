"""A population file named on the server's command line (``make run POPULATION=...``).

An analyst who runs the app on their own machine starts it with their register::

    streamlit run serve.py -- --population register.parquet --value income --lower 0 --upper 1e6

(``make run POPULATION=register.parquet VALUE=income LOWER=0 UPPER=1000000`` does the same).
The file, in any format :func:`core.populations.load_population_file` reads (CSV, Parquet,
Stata, SAS, SPSS), then appears as a population choice in the sidebar of every session of
that server.

Where the path may come from
----------------------------
Only from the arguments of the server process (``sys.argv``, which ``app.py`` hands to
:func:`ui.router.run_app`). Nothing a browser sends, neither a URL parameter nor a widget,
ever names a file: a link can only pick the population this server was started with, by its
label in the sidebar, exactly as it picks a built-in.

Reading
-------
The file is read once per server process: :func:`command_line_population` is an
``st.cache_resource`` keyed by the arguments, and every session shares the one
read-only :class:`core.populations.Population` it returns (no copy per session). A file that
cannot be read is remembered the same way, as a message, so a bad argument costs one read,
not one per rerun; the built-in populations keep working and the sidebar says what went wrong.

Preparing
---------
The server reads the file in a background thread (:func:`start_preparation`), started as the
server starts (:mod:`ui.server`; under ``streamlit run app.py``, by its first run), and each
run takes the population from it. The same thread then computes, while the first page is drawn
and read, the planner's step of the recorded values, the planner page's comparison at its
default controls (:func:`ui.planner.first_plan.plan_page_defaults`, in the page's own cache; it
prepares what a median plan reads), then the rest of the per-record preparation every plan of a
large register reads (:func:`core.planner.prepare_population`: the sort into runs, the strata
and cluster indexes and grids, the mean sums; kept by the population's content hash). The
planner's first visit then finds them done instead of computing them while its visitor waits.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import math
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import NoReturn

import streamlit as st

from core.populations import Population, load_population_file

_LOG = logging.getLogger(__name__)

__all__ = [
    "USAGE",
    "CommandLineLoad",
    "CommandLineSettings",
    "command_line_population",
    "parse_command_line",
    "read_command_line_population",
    "reading",
    "start_preparation",
]

#: One-line summary of the arguments, shown with every argument error.
USAGE = (
    "streamlit run serve.py -- --population FILE [--value COLUMN] [--lower NUMBER] "
    "[--upper NUMBER] [--stratum COLUMN] [--cluster COLUMN] [--category COLUMN]"
)


@dataclasses.dataclass(frozen=True)
class CommandLineSettings:
    """The population arguments of the server's command line, parsed and checked.

    Parameters
    ----------
    path : str
        The population file as typed (``~`` expanded); relative paths are relative to the
        directory the server was started in.
    value_column : str or None
        Column of values; ``None`` lets the loader take the first numeric column.
    lower, upper : float or None
        Declared public bounds (Hu et al. (2023), §2.2: the range must not be read from the
        data); ``None`` lets the loader read a bound from the data, with its warning.
    stratum_columns, cluster_columns : tuple of str
        Label columns for stratified (Bun et al. (2022), §7) and cluster sampling (§5);
        several columns build one combined label. Empty when not given.
    category_columns : tuple of str
        The column of categories that counts and frequency tables count by (several
        columns build one combined category). Empty when not given.
    """

    path: str
    value_column: str | None = None
    lower: float | None = None
    upper: float | None = None
    stratum_columns: tuple[str, ...] = ()
    cluster_columns: tuple[str, ...] = ()
    category_columns: tuple[str, ...] = ()

    @property
    def file_name(self) -> str:
        """The file's name without its folder (what the sidebar shows)."""
        return Path(self.path).name


@dataclasses.dataclass(frozen=True)
class CommandLineLoad:
    """What became of the population arguments: a population, or a message saying why not.

    Exactly one of ``population`` and ``error`` is set. ``settings`` is ``None`` when the
    arguments themselves could not be parsed.
    """

    settings: CommandLineSettings | None
    population: Population | None = None
    error: str | None = None


class _ArgumentError(ValueError):
    """An argument the parser rejects (raised instead of argparse's exit)."""


class _Parser(argparse.ArgumentParser):
    """``argparse`` that raises :class:`ValueError` instead of printing and exiting.

    Inside a running Streamlit script an exit would end the rerun with a traceback; a
    ValueError becomes a message in the sidebar.
    """

    def error(self, message: str) -> NoReturn:
        raise _ArgumentError(f"{message}. Usage: `{USAGE}`.")


def _parser() -> _Parser:
    parser = _Parser(prog="serve.py", add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("--population", metavar="FILE")
    parser.add_argument("--value", metavar="COLUMN")
    parser.add_argument("--lower", metavar="NUMBER")
    parser.add_argument("--upper", metavar="NUMBER")
    parser.add_argument("--stratum", metavar="COLUMN", action="append", default=[])
    parser.add_argument("--cluster", metavar="COLUMN", action="append", default=[])
    parser.add_argument("--category", metavar="COLUMN", action="append", default=[])
    return parser


def _bound(text: str | None, flag: str) -> float | None:
    """``text`` as a finite float, or ``None`` when the flag was not given or left blank."""
    if text is None or not text.strip():
        return None
    try:
        value = float(text.strip())
    except ValueError:
        raise ValueError(f"{flag} must be a number; got {text!r}.") from None
    if not math.isfinite(value):
        raise ValueError(f"{flag} must be a finite number; got {text!r}.")
    return value


def _columns(names: Sequence[str], flag: str) -> tuple[str, ...]:
    """Column names given with ``flag`` (repeatable); blank ones are an error."""
    if any(not name.strip() for name in names):
        raise ValueError(f"{flag} needs a column name; got an empty one.")
    return tuple(names)


def parse_command_line(argv: Sequence[str]) -> CommandLineSettings | None:
    """Parse the server's script arguments into :class:`CommandLineSettings`.

    Parameters
    ----------
    argv : sequence of str
        The arguments after the script name (``sys.argv[1:]`` of ``streamlit run serve.py --
        ...``).

    Returns
    -------
    CommandLineSettings or None
        ``None`` when no argument was given (or only blank ones, as ``make run`` without
        ``POPULATION`` passes none): the app runs on the built-in populations alone.

    Raises
    ------
    ValueError
        For an unknown argument, a missing value, a bound that is not a finite number, an
        empty column name, or column and bound arguments without ``--population``. The
        message names the argument and ends with :data:`USAGE`.
    """
    args = [str(arg) for arg in argv]
    if not any(arg.strip() for arg in args):
        return None
    try:
        parsed = _parser().parse_args(args)
    except argparse.ArgumentError as err:
        raise ValueError(f"{err}. Usage: `{USAGE}`.") from None
    path = parsed.population
    if path is None or not path.strip():
        given = [a for a in args if a.startswith("--")]
        raise ValueError(
            f"--population FILE is missing (the arguments were {' '.join(given) or args}). "
            f"Usage: `{USAGE}`."
        )
    value = parsed.value.strip() if parsed.value is not None else ""
    return CommandLineSettings(
        path=str(Path(path).expanduser()),
        value_column=value or None,
        lower=_bound(parsed.lower, "--lower"),
        upper=_bound(parsed.upper, "--upper"),
        stratum_columns=_columns(parsed.stratum, "--stratum"),
        cluster_columns=_columns(parsed.cluster, "--cluster"),
        category_columns=_columns(parsed.category, "--category"),
    )


def _column_argument(columns: tuple[str, ...]) -> str | list[str] | None:
    """The loader's form of a label column argument: one name, a list, or ``None``."""
    if not columns:
        return None
    return columns[0] if len(columns) == 1 else list(columns)


def _recipe(settings: CommandLineSettings, pop: Population) -> str:
    """The loader call that rebuilds ``pop`` from the path as typed on the command line.

    The bounds are the population's own (declared, or the ones the loader read from the
    data), so a snippet reproduces the page even when the command line gave none.
    """
    args = [
        repr(settings.path),
        f"value_column={pop.value_label!r}",
        f"lower={pop.lower!r}",
        f"upper={pop.upper!r}",
    ]
    for keyword, columns in (
        ("stratum_column", settings.stratum_columns),
        ("cluster_column", settings.cluster_columns),
        ("category_column", settings.category_columns),
    ):
        chosen = _column_argument(columns)
        if chosen is not None:
            args.append(f"{keyword}={chosen!r}")
    return f"load_population_file({', '.join(args)})"


def read_command_line_population(settings: CommandLineSettings) -> CommandLineLoad:
    """Read the population file that ``settings`` name (uncached: see the caching wrapper).

    Parameters
    ----------
    settings : CommandLineSettings
        The parsed arguments.

    Returns
    -------
    CommandLineLoad
        The population, whose recipe rebuilds it from the path as typed, or the loader's
        message (missing or unreadable file, unknown column, bounds that are not
        ``lower < upper``, too few numbers) when it cannot be read.
    """
    try:
        pop = load_population_file(
            settings.path,
            value_column=settings.value_column,
            lower=settings.lower,
            upper=settings.upper,
            stratum_column=_column_argument(settings.stratum_columns),
            cluster_column=_column_argument(settings.cluster_columns),
            category_column=_column_argument(settings.category_columns),
            max_bytes=None,  # the server's own file: no upload limit
        )
    except ValueError as err:
        return CommandLineLoad(settings=settings, error=str(err))
    read = pop.file_settings
    pop = pop.with_details(
        recipe=_recipe(settings, pop),
        # The exports (the batch config, the method report) name the file by its path as
        # typed: the server's own file, which a config run on this machine reads as it is.
        file_settings=None if read is None else dataclasses.replace(read, file=settings.path),
    )
    return CommandLineLoad(settings=settings, population=pop)


#: Records from which :func:`start_preparation` prepares the population for the planner in
#: the background; a smaller population is prepared by its first plan in a moment.
PREPARE_MIN_RECORDS = 100_000

#: The reads started by :func:`start_preparation`, by argument tuple: the cached read of a
#: run takes its result from here instead of reading the file a second time.
_STARTED: dict[tuple[str, ...], Future[CommandLineLoad | None]] = {}
_STARTED_LOCK = threading.Lock()


def _key(argv: Sequence[str]) -> tuple[str, ...]:
    """The arguments as the key of their read (in :data:`_STARTED` and the cache)."""
    return tuple(str(arg) for arg in argv)


def _load(argv: tuple[str, ...]) -> CommandLineLoad | None:
    """Parse ``argv`` and read the file it names (uncached), logging a problem."""
    try:
        settings = parse_command_line(argv)
    except ValueError as err:
        _LOG.warning("Population arguments not used: %s", err)
        return CommandLineLoad(settings=None, error=str(err))
    if settings is None:
        return None
    load = read_command_line_population(settings)
    if load.error is not None:
        _LOG.warning("Population file %s not used: %s", settings.path, load.error)
    elif load.population is not None:
        _LOG.info("Population file %s: %s", settings.path, load.population.name)
    return load


@st.cache_resource(max_entries=4, show_spinner="Reading the population file of the command line…")
def _command_line_population(argv: tuple[str, ...]) -> CommandLineLoad | None:
    with _STARTED_LOCK:
        started = _STARTED.get(argv)
    if started is not None:
        return started.result()
    return _load(argv)


def _prepare_for_planner(pop: Population) -> None:
    """The planner page's first comparison on ``pop``, then the rest of the per-record
    preparation that other plans read, kept where the page finds them: the recorded step
    and the plan at the page's defaults in the page's caches, the frame by content hash."""
    from core.planner import prepare_population
    from ui.planner import cache, first_plan, inputs

    if pop.size < PREPARE_MIN_RECORDS or inputs.population_problem(pop) is not None:
        return
    start = time.perf_counter()
    # The step first: the planner's page asks for it before its plan. The plan at the
    # page's defaults then prepares what a median plan reads, and is cached the sooner;
    # the preparation for the other statistics (the mean's sums) comes after it.
    cache.resolution(pop.content_hash, pop)
    first_plan.plan_page_defaults(pop)
    planned = time.perf_counter()
    prepare_population(pop)
    _LOG.info(
        "The planner's default plan on the population in %.1f s, the rest of its "
        "preparation in %.1f s",
        planned - start,
        time.perf_counter() - planned,
    )


def _read_and_prepare(argv: tuple[str, ...], read: Future[CommandLineLoad | None]) -> None:
    try:
        load = _load(argv)
    except BaseException as err:  # the run that waits for the read raises it
        read.set_exception(err)
        return
    read.set_result(load)
    if load is None or load.population is None:
        return
    try:
        _prepare_for_planner(load.population)
    except Exception:  # the first plan prepares (and reports) it again
        _LOG.exception("Preparing the population file for the planner failed")


def start_preparation(argv: Sequence[str]) -> threading.Thread | None:
    """Read the population file ``argv`` names, then prepare it for the planner, in a
    background thread: once per server process and arguments.

    :func:`command_line_population` calls it, then waits for the read alone: the
    preparation (the planner's step of the recorded values, its comparison at the page's
    defaults, then :func:`core.planner.prepare_population`, for a population of at least
    :data:`PREPARE_MIN_RECORDS` records) goes on while the first page is drawn, so the
    planner's first visit finds it done.

    Parameters
    ----------
    argv : sequence of str
        ``sys.argv[1:]`` of the server process.

    Returns
    -------
    threading.Thread or None
        The started (daemon) thread; None without arguments, or when the same arguments
        were started before in this process.
    """
    key = _key(argv)
    if not any(arg.strip() for arg in key):
        return None
    with _STARTED_LOCK:
        if key in _STARTED:
            return None
        read: Future[CommandLineLoad | None] = Future()
        _STARTED[key] = read
    thread = threading.Thread(
        target=_read_and_prepare, args=(key, read), name="command-line-population", daemon=True
    )
    thread.start()
    return thread


def reading(argv: Sequence[str]) -> bool:
    """Whether the background read of the file ``argv`` names has started and not ended.

    While it reads, a run has other work it can do before it waits for the population:
    the router imports the requested page's modules in that time (the read spends most of
    its time in pyarrow and numpy, which release the interpreter's lock).

    Parameters
    ----------
    argv : sequence of str
        ``sys.argv[1:]`` of the server process.

    Returns
    -------
    bool
        True from :func:`start_preparation` until the population (or its message) is
        there; False without arguments, before the start and after the read.
    """
    key = _key(argv)
    with _STARTED_LOCK:
        started = _STARTED.get(key)
    return started is not None and not started.done()


def command_line_population(argv: Sequence[str]) -> CommandLineLoad | None:
    """The population the server was started with, from its script arguments.

    The arguments are parsed and the file is read once per server process
    (``st.cache_resource`` keyed by the arguments, read by :func:`start_preparation`'s
    thread, which then prepares the population for the planner); every session gets the
    same read-only population, and a problem is reported once on the server's console too.

    Parameters
    ----------
    argv : sequence of str
        ``sys.argv[1:]`` of the server process (never anything a browser sent).

    Returns
    -------
    CommandLineLoad or None
        ``None`` without arguments; otherwise the loaded population or the message that
        explains why the arguments or the file could not be used.
    """
    key = _key(argv)
    start_preparation(key)
    return _command_line_population(key)
