"""The one timing helper of the benchmarks (plain prints, no asserts anywhere in bench/).

Every bench runs as a module from the repository root, so ``core``, ``ui`` and ``tests`` import
without any ``sys.path`` edit::

    python -m bench.bench_amplification_page

Three ways of timing, for three kinds of call:

* :func:`time_calls` — wall and CPU time of ``repeats`` single calls (page interactions and
  figure builders; the median and the extremes are printed);
* :func:`best_of` / :func:`best_seconds` — the best of a few single calls (heavy computations;
  the least disturbed run), optionally with the call's result;
* :func:`per_call_seconds` / :func:`autorange_seconds` — loops of a fast call, so a call of a
  few microseconds is measured above the timer's resolution;
* :func:`rerun_ms` / :func:`time_reruns` — a whole page rerun under Streamlit's AppTest after
  an interaction (an upper bound on the server-side time; the browser's drawing is not
  included).

The process CPU time (``time.process_time``) is reported where the machine is shared: it does
not count time spent waiting for another process.
"""

from __future__ import annotations

import os
import statistics
import time
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # streamlit is imported only by the benches that drive pages
    from streamlit.testing.v1 import AppTest

T = TypeVar("T")

__all__ = [
    "ROOT",
    "Timing",
    "autorange_seconds",
    "best_of",
    "best_seconds",
    "cpu_seconds",
    "fmt_seconds",
    "load_line",
    "per_call_seconds",
    "rerun_ms",
    "time_calls",
    "time_reruns",
]

#: The repository root (benches that start subprocesses run them there).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Timing:
    """Summary of ``repeats`` timed calls, in milliseconds."""

    median_ms: float
    best_ms: float
    worst_ms: float
    cpu_median_ms: float


def time_calls(fn: Callable[[], object], repeats: int = 10, *, warm_up: bool = False) -> Timing:
    """Time ``repeats`` single calls of ``fn`` (wall clock and process CPU time).

    Parameters
    ----------
    fn : callable
        The call to time, without arguments.
    repeats : int
        Number of timed calls, at least 1.
    warm_up : bool
        Call ``fn`` once, untimed, before the timed calls (imports, first allocations).
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1; got {repeats}")
    if warm_up:
        fn()
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return Timing(statistics.median(wall), min(wall), max(wall), statistics.median(cpu))


def rerun_ms(at: AppTest, action: Callable[[AppTest], object]) -> tuple[float, float]:
    """Wall and process CPU time in ms of ``action(at)`` followed by a whole rerun of the page.

    Raises
    ------
    RuntimeError
        If the page raised during the rerun (a timing of a broken page means nothing).
    """
    t0, c0 = time.perf_counter(), time.process_time()
    action(at)
    at.run()
    wall = (time.perf_counter() - t0) * 1000
    cpu = (time.process_time() - c0) * 1000
    if at.exception:
        raise RuntimeError(f"the page raised: {[e.value for e in at.exception]}")
    return wall, cpu


def time_reruns(
    at: AppTest, actions: Sequence[Callable[[AppTest], object]], rounds: int = 3
) -> Timing:
    """:func:`rerun_ms` of every action in turn, ``rounds`` times over the list."""
    if rounds < 1 or not actions:
        raise ValueError(f"need at least one round and one action; got {rounds}, {len(actions)}")
    samples = [rerun_ms(at, action) for _ in range(rounds) for action in actions]
    wall = [w for w, _ in samples]
    return Timing(
        statistics.median(wall), min(wall), max(wall), statistics.median([c for _, c in samples])
    )


def best_of(fn: Callable[[], T], repeat: int) -> tuple[float, T]:
    """Best wall time in seconds of ``repeat`` calls, and the result of the last call."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1; got {repeat}")
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def best_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Best wall time in seconds of ``repeat`` calls."""
    return best_of(fn, repeat)[0]


def cpu_seconds(fn: Callable[[], object]) -> float:
    """Process CPU time in seconds of one call (insensitive to other load on the machine)."""
    c0 = time.process_time()
    fn()
    return time.process_time() - c0


def per_call_seconds(fn: Callable[[], object], *, min_time: float = 0.3, repeats: int = 5) -> float:
    """Median over ``repeats`` loops of the mean time in seconds of one call.

    The loop length doubles until one loop takes ``min_time / repeats``; ``fn`` is called once
    untimed first.
    """
    fn()
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        if time.perf_counter() - t0 > min_time / repeats:
            break
        loops *= 2
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)


def autorange_seconds(fn: Callable[[], object], repeat: int = 7) -> float:
    """Best time per call in seconds, looping enough to reach ~20 ms per repetition (timeit)."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, number // 10) if number > 10 else number
    return min(timer.repeat(repeat=repeat, number=number)) / number


def fmt_seconds(seconds: float) -> str:
    """A duration in µs, ms or s, right-aligned to a fixed width."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.1f} µs"
    if seconds < 1.0:
        return f"{seconds * 1e3:8.2f} ms"
    return f"{seconds:8.2f} s "


def load_line() -> str:
    """CPU count and the one-minute load average, to read the figures against."""
    return f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
