"""Independent rows of a compiled kernel, or independent tasks, run on a few threads at once.

The numba kernels of :mod:`core.sensitivity` release the GIL (``nogil``), and many of them
work row by row, each row writing only its own outputs.  :func:`by_rows` splits such a call
into contiguous ranges of rows and runs them on a shared pool of threads, so a 2-core machine
computes two halves at once.  The result does not depend on the number of threads: every row
is computed by the same code on the same inputs, only the order in time changes.

:func:`each` runs whole tasks the same way (the parts of a plan's rates, each drawing from
random streams of its own): each call makes threads of its own, apart from the pool of
:func:`by_rows`, so a task may still split its kernels.  A call of :func:`each` from inside a
task runs its items on that task's thread.

Plain Python threads are used, not numba's own parallel loops: numba's default threading
layer aborts when two threads launch parallel kernels at once, which a server with several
sessions does.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import TypeVar

__all__ = ["MIN_WORK", "by_rows", "each", "workers"]

_T = TypeVar("_T")
_R = TypeVar("_R")

#: Calls with less work than this (in the caller's units, e.g. cells) run on the calling thread.
#: A window kernel call of 2^17 cells takes about a quarter of a millisecond, far more than
#: handing a range to a pool thread.
MIN_WORK = 1 << 17
#: Largest number of threads used.
_MOST = 4

_pool: ThreadPoolExecutor | None = None
#: The process that made :data:`_pool`: a child made by ``fork`` inherits the pool object but
#: not its threads, so it makes a pool of its own.
_pool_pid = 0
#: Marks the threads :func:`each` makes: a nested :func:`each` or :func:`by_rows` runs
#: inline there.
_in_task = threading.local()


def workers() -> int:
    """Threads a call is split over: the CPUs this process may use, at most :data:`_MOST`."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity
        cpus = os.cpu_count() or 1
    return max(1, min(_MOST, cpus))


def by_rows(run: Callable[[int, int], None], rows: int, work: float) -> None:
    """Call ``run(start, stop)`` over contiguous ranges covering ``0 .. rows - 1``.

    With at least two rows, ``work >= MIN_WORK``, more than one worker and a caller that is
    not itself a task of :func:`each` (whose siblings keep the other workers busy), the
    ranges are run on a shared thread pool (one range per worker, of equal size up to one
    row) and this call returns when all are done, re-raising the first error; otherwise
    ``run(0, rows)`` runs here.  ``run`` must touch only the rows it is given.
    """
    global _pool, _pool_pid
    parts = min(workers(), rows)
    # Inside a task of :func:`each` the other workers are busy with the other tasks.
    if parts < 2 or work < MIN_WORK or getattr(_in_task, "active", False):
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


def _mark_task_thread() -> None:
    _in_task.active = True


def each(
    run: Callable[[_T], _R], items: Sequence[_T], cost: Sequence[float] | None = None
) -> list[_R]:
    """``[run(item) for item in items]``, the items run on up to :func:`workers` threads at once.

    The tasks must be independent: each touches only its own outputs and draws from its own
    random streams, so the results do not depend on the order in time.  With ``cost`` (one
    number per item) the costliest items start first, so that the last one to start is a
    short one.  One item, one worker, or a call from inside a task: everything runs on the
    calling thread, in order.  Each call has threads of its own (made and ended with it, a
    fraction of a millisecond), so two sessions' calls never queue behind each other and a
    process made by ``fork`` inherits nothing.  The first error is re-raised after every
    task has ended.
    """
    seq = list(items)
    threads = min(workers(), len(seq))
    if threads < 2 or getattr(_in_task, "active", False):
        return [run(x) for x in seq]
    order = list(range(len(seq)))
    if cost is not None:
        order.sort(key=lambda i: -float(cost[i]))
    with ThreadPoolExecutor(
        max_workers=threads, thread_name_prefix="core-tasks", initializer=_mark_task_thread
    ) as pool:
        futures = {i: pool.submit(run, seq[i]) for i in order}
    for i in order:
        error = futures[i].exception()
        if error is not None:
            raise error
    return [futures[i].result() for i in range(len(seq))]
