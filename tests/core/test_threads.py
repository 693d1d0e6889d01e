"""core.threads: rows split over threads, each row once, results as if run in one call."""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from core import sensitivity as sens
from core import threads


@pytest.mark.parametrize("rows", [0, 1, 2, 3, 7, 100])
@pytest.mark.parametrize("work", [0, threads.MIN_WORK])
def test_every_row_is_run_once(rows: int, work: int) -> None:
    seen = np.zeros(rows, dtype=int)
    lock = threading.Lock()

    def run(a: int, b: int) -> None:
        with lock:
            seen[a:b] += 1

    threads.by_rows(run, rows, work)
    assert (seen == 1).all()


def test_small_calls_stay_on_the_calling_thread() -> None:
    names: list[str] = []
    threads.by_rows(lambda a, b: names.append(threading.current_thread().name), 10, 1)
    assert names == [threading.current_thread().name]


def test_large_calls_use_several_threads_when_there_are_cpus(monkeypatch) -> None:
    monkeypatch.setattr(threads, "workers", lambda: 2)
    names: set[str] = set()
    barrier = threading.Barrier(2, timeout=10)

    def run(a: int, b: int) -> None:
        names.add(threading.current_thread().name)
        barrier.wait()  # both halves run at the same time

    threads.by_rows(run, 10, threads.MIN_WORK)
    assert len(names) == 2


def test_an_error_in_a_range_reaches_the_caller(monkeypatch) -> None:
    monkeypatch.setattr(threads, "workers", lambda: 2)

    def run(a: int, b: int) -> None:
        if a > 0:
            raise ValueError("second half")

    with pytest.raises(ValueError, match="second half"):
        threads.by_rows(run, 10, threads.MIN_WORK)


def test_window_sensitivities_on_threads_equal_one_row_at_a_time(monkeypatch) -> None:
    """A batch large enough to be split gives each row what a call of that row alone gives."""
    monkeypatch.setattr(threads, "workers", lambda: 3)
    rng = np.random.default_rng(7)
    reps, width, n = 12, 120_000, 400_000
    cells = np.sort(rng.lognormal(3, 0.5, (reps, width)), axis=1)
    first = np.full(reps, 140_001)
    length = np.full(reps, width)
    k = first + width // 2
    args = (np.full(reps, n), k, 1e-4, 0.0, 500.0)
    assert cells.size >= threads.MIN_WORK
    s, ok = sens.smooth_sensitivity_window_batch(cells, first, length, *args)
    for r in (0, 5, 11):
        one = sens.smooth_sensitivity_window_batch(
            cells[r : r + 1], first[r : r + 1], length[r : r + 1], np.array([n]), k[r : r + 1],
            *args[2:],
        )  # fmt: skip
        assert s[r] == pytest.approx(one[0][0], rel=1e-15) and ok[r] == one[1][0]


def test_a_forked_child_gets_a_pool_of_its_own(monkeypatch) -> None:
    """A child made by fork inherits the pool object without its threads; it must not wait on
    them forever."""
    monkeypatch.setattr(threads, "workers", lambda: 2)
    threads.by_rows(lambda a, b: None, 4, threads.MIN_WORK)  # the parent's pool exists
    pid = os.fork()
    if pid == 0:  # the child: run a split call, exit 0 when it returns
        seen = []
        threads.by_rows(lambda a, b: seen.append((a, b)), 4, threads.MIN_WORK)
        os._exit(0 if sorted(seen) == [(0, 2), (2, 4)] else 1)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child waited on its parent's threads")


@pytest.mark.parametrize("items", [0, 1, 2, 5, 17])
def test_each_returns_every_result_in_the_items_order(monkeypatch, items: int) -> None:
    monkeypatch.setattr(threads, "workers", lambda: 2)
    got = threads.each(lambda x: x * x, range(items), cost=[(7 * i) % 5 for i in range(items)])
    assert got == [i * i for i in range(items)]


def test_each_runs_two_tasks_at_once_and_the_costliest_first(monkeypatch) -> None:
    monkeypatch.setattr(threads, "workers", lambda: 2)
    barrier = threading.Barrier(2, timeout=10)
    started: list[int] = []
    lock = threading.Lock()

    def run(i: int) -> str:
        with lock:
            started.append(i)
        if i in (3, 1):  # the two costliest meet: they run at the same time
            barrier.wait()
        return threading.current_thread().name

    names = threads.each(run, [0, 1, 2, 3], cost=[1.0, 5.0, 2.0, 9.0])
    assert sorted(started[:2]) == [1, 3]
    assert {names[1], names[3]} != {threading.current_thread().name}
    assert names[1] != names[3]


def test_each_inside_a_task_runs_on_that_task_s_thread(monkeypatch) -> None:
    monkeypatch.setattr(threads, "workers", lambda: 2)

    def outer(i: int) -> set[str]:
        inner = threads.each(lambda _: threading.current_thread().name, range(4))
        return {threading.current_thread().name, *inner}

    for names in threads.each(outer, range(2)):
        assert len(names) == 1  # the nested call did not wait for the outer call's threads


def test_each_with_one_worker_stays_on_the_calling_thread(monkeypatch) -> None:
    monkeypatch.setattr(threads, "workers", lambda: 1)
    names = threads.each(lambda _: threading.current_thread().name, range(3))
    assert names == [threading.current_thread().name] * 3


def test_each_raises_a_task_s_error_after_every_task_ended(monkeypatch) -> None:
    monkeypatch.setattr(threads, "workers", lambda: 2)
    done: list[int] = []

    def run(i: int) -> int:
        if i == 0:
            raise ValueError("task 0")
        time.sleep(0.01)
        done.append(i)
        return i

    with pytest.raises(ValueError, match="task 0"):
        threads.each(run, range(6))
    assert sorted(done) == [1, 2, 3, 4, 5]


def test_rows_split_inside_a_task_stay_on_the_task_s_thread(monkeypatch) -> None:
    """Two tasks already keep two workers busy: their kernels are not split again."""
    monkeypatch.setattr(threads, "workers", lambda: 2)

    def task(_: int) -> set[str]:
        names: set[str] = set()
        threads.by_rows(
            lambda a, b: names.add(threading.current_thread().name), 10, threads.MIN_WORK
        )
        return names | {threading.current_thread().name}

    for names in threads.each(task, range(2)):
        assert len(names) == 1
