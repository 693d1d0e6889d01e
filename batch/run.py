"""Run a table's cell × statistic plans on Dask distributed.

:func:`dask_map` is the ``map_fn`` that :func:`core.publication.plan_table` calls: it
submits every job to the cluster, shows Dask's progress bar on the terminal and gathers the
rows in the jobs' order.  Each job carries its own seed, so a local cluster, an external
one and the built-in ``map`` give the same table.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from core.population import Population
from core.publication import TablePlan, plan_table
from core.publication.config import Config

__all__ = ["cluster_client", "dask_map", "run_plan"]


@contextlib.contextmanager
def cluster_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A Dask ``Client``: to ``scheduler`` if given, else to a new local cluster.

    The local cluster has ``workers`` worker processes with one thread each, listens on
    127.0.0.1 only and has no dashboard.
    """
    from dask.distributed import Client, LocalCluster

    if scheduler:
        with Client(scheduler, timeout="30s") as client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def dask_map(client: Any, *, show_progress: bool = True) -> Callable[..., list[Any]]:
    """A ``map_fn`` for :func:`plan_table` that runs the jobs on ``client``'s cluster.

    The jobs are scattered to the workers, then mapped; the rows come back in the jobs'
    order.
    """
    from dask.distributed import progress

    def run(fn: Callable[[Any], Any], jobs: Iterable[Any]) -> list[Any]:
        # Scattered first: each job (with its cell's records) goes straight to a worker
        # rather than through the scheduler inside the task graph.
        data = client.scatter(list(jobs))
        futures = client.map(fn, data, pure=False)
        if show_progress:
            progress(futures)
        return list(client.gather(futures))

    return run


def run_plan(
    config: Config,
    population: Population,
    *,
    scheduler: str | None = None,
    workers: int = 2,
    show_progress: bool = True,
) -> TablePlan:
    """Plan the config's table on a Dask cluster (local unless ``scheduler`` is given)."""
    with cluster_client(scheduler, workers) as client:
        return plan_table(
            population,
            map_fn=dask_map(client, show_progress=show_progress),
            **config.plan_kwargs(),
        )
