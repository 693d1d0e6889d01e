"""Independent rows of a compiled kernel, run on a few threads at once.

The numba kernels of :mod:`core.sensitivity` release the GIL (``nogil``), and many of them
work row by row, each row writing only its own outputs.  :func:`by_rows` splits such a call
into contiguous ranges of rows and runs them on a shared pool of threads, so a 2-core machine
computes two halves at once.  The result does not depend on the number of threads: every row
is computed by the same code on the same inputs, only the order in time changes.

Plain Python threads are used, not numba's own parallel loops: numba's default threading
layer aborts when two threads launch parallel kernels at once, which a server with several
sessions does.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

__all__ = ["MIN_WORK", "by_rows", "workers"]

#: Calls with less work than this (in the caller's units, e.g. cells) run on the calling thread.
MIN_WORK = 1 << 20
#: Largest number of threads used.
_MOST = 4

_pool: ThreadPoolExecutor | None = None
#: The process that made :data:`_pool`: a child made by ``fork`` inherits the pool object but
#: not its threads, so it makes a pool of its own.
_pool_pid = 0


def workers() -> int:
    """Threads a call is split over: the CPUs this process may use, at most :data:`_MOST`."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity
        cpus = os.cpu_count() or 1
    return max(1, min(_MOST, cpus))


def by_rows(run: Callable[[int, int], None], rows: int, work: float) -> None:
    """Call ``run(start, stop)`` over contiguous ranges covering ``0 .. rows - 1``.

    With at least two rows, ``work >= MIN_WORK`` and more than one worker, the ranges are
    run on a shared thread pool (one range per worker, of equal size up to one row) and
    this call returns when all are done, re-raising the first error; otherwise ``run(0,
    rows)`` runs here.  ``run`` must touch only the rows it is given.
    """
    global _pool, _pool_pid
    parts = min(workers(), rows)
    if parts < 2 or work < MIN_WORK:
        if rows:
            run(0, rows)
        return
    if _pool is None or _pool_pid != os.getpid():
        _pool = ThreadPoolExecutor(max_workers=_MOST, thread_name_prefix="core-rows")
        _pool_pid = os.getpid()
    bounds = [rows * i // parts for i in range(parts + 1)]
    futures = [_pool.submit(run, a, b) for a, b in pairwise(bounds)]
    for f in futures:
        f.result()
