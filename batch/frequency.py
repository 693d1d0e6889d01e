"""A frequency table in batch: the cells' sums on Dask, then the exact plan.

A frequency table's only pass over the records is its cells' sufficient sums
(:func:`core.linear.sums.cell_sums`); everything after them costs O(cells × groups).  The
records are cut into contiguous chunks, each chunk's sums are computed on a worker, and the
chunks' sums are added: every field of :class:`core.linear.sums.GroupSums` is a sum over
records, so the sums of the chunks add up to the sums of the population.  Counts, and totals
of whole numbers, are whole numbers below 2⁵³, added exactly in any order: the table is
then identical to the page's, which computes the sums in one pass (other totals agree to
the rounding of a different order of additions).

Files written: ``plan.csv`` (one row per cell), ``designs.csv`` (one row per design and
rate) and ``summary.json``; with ``margins: rows`` also ``margins.csv`` (one row per row of
the table: its released margin's errors), the cells' errors in ``plan.csv`` being those
after their projection onto the margins.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from core.designs.frame import Frame
from core.linear.sums import GroupSums
from core.population import Population
from core.publication.cells import frequency_cells
from core.publication.config import Config
from core.publication.frequency import FrequencyPlan, plan_frequency, y_bounds
from core.publication.records import strict_json

__all__ = [
    "FREQUENCY_OUTPUTS",
    "MARGINS_OUTPUT",
    "add_sums",
    "chunk_frames",
    "run_frequency",
    "write_frequency",
]

#: The files a frequency table's batch writes.
FREQUENCY_OUTPUTS = ("plan.csv", "designs.csv", "summary.json")
#: ... and with row margins.
MARGINS_OUTPUT = "margins.csv"


def _counts(codes: np.ndarray | None, n: int | None) -> np.ndarray | None:
    if codes is None or n is None:
        return None
    return np.bincount(codes, minlength=n).astype(np.int64)


def chunk_frames(frame: Frame, chunks: int) -> list[tuple[Frame, slice]]:
    """``frame`` cut into ``chunks`` contiguous frames (sizes per chunk, the same codes)."""
    edges = np.linspace(0, frame.N, chunks + 1).astype(int)
    H = None if frame.strata_sizes is None else frame.strata_sizes.size
    K = None if frame.cluster_sizes is None else frame.cluster_sizes.size
    out = []
    for a, b in itertools.pairwise(edges):
        part = slice(int(a), int(b))
        s = None if frame.strata_codes is None else frame.strata_codes[part]
        c = None if frame.cluster_codes is None else frame.cluster_codes[part]
        out.append(
            (
                Frame(
                    frame.values[part], frame.lower, frame.upper, s, _counts(s, H), c, _counts(c, K)
                ),
                part,
            )
        )
    return out


def add_sums(parts: list[GroupSums]) -> GroupSums:
    """The sums of the union of disjoint chunks: every field added."""
    first = parts[0]
    values: dict[str, Any] = {}
    for f in fields(first):
        got = [getattr(p, f.name) for p in parts]
        if got[0] is None:
            values[f.name] = None
        elif f.name == "N":
            values[f.name] = int(sum(got))
        else:
            total = got[0].copy()
            for g in got[1:]:
                total = total + g
            values[f.name] = total
    return type(first)(**values)


def _chunk_sums(chunk: tuple[Frame, np.ndarray, np.ndarray | None], n_cells: int) -> Any:
    """One chunk's sums: ``cell_sums`` of its frame, cell codes and weights."""
    from core.linear.sums import cell_sums

    frame, codes, weights = chunk
    return cell_sums(frame, codes, n_cells, weights)


def run_frequency(
    config: Config,
    population: Population,
    *,
    scheduler: str | None = None,
    workers: int = 2,
    chunks: int | None = None,
) -> FrequencyPlan:
    """Plan the config's frequency table with the cells' sums computed on a Dask cluster.

    Parameters
    ----------
    config : Config
        A ``table: frequency`` config.
    population : Population
    scheduler : str, optional
        An existing scheduler's address; default a local cluster of ``workers`` processes.
    workers : int
    chunks : int, optional
        Chunks of records; default two per worker.
    """
    from batch.run import cluster_client

    freq = config.frequency
    if freq is None:
        raise ValueError("the config plans a table of statistics, not a frequency table")
    kwargs = config.frequency_kwargs()
    cells = frequency_cells(
        population,
        freq.rows,
        freq.column,
        max_cells=freq.max_cells,
        max_columns=kwargs["max_columns"],
    )
    frame = Frame.of(population)
    y_bounds(population, freq.kind)  # a total needs a public upper bound: say so before the run
    weights = None if freq.kind == "count" else frame.values
    with cluster_client(scheduler, workers) as client:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})) or workers)
        parts = chunk_frames(frame, chunks or 2 * n_workers)
        # Scattered first: each chunk's records go straight to a worker, not through the
        # scheduler inside the task graph.
        data = client.scatter(
            [
                (part, cells.codes[where], None if weights is None else weights[where])
                for part, where in parts
            ]
        )
        futures = [client.submit(_chunk_sums, d, cells.n_cells, pure=False) for d in data]
        sums = add_sums(list(client.gather(futures)))
    return plan_frequency(population, frame=frame, sums=sums, **kwargs)


def write_frequency(
    out: Path, config: Config, population: Population, plan: FrequencyPlan
) -> list[Path]:
    """Write :data:`FREQUENCY_OUTPUTS` into ``out`` (created if needed); their paths."""
    out.mkdir(parents=True, exist_ok=True)
    summary = plan.summary()
    summary.update(
        name=config.name,
        population={"name": population.name, "N": population.size, "recipe": population.recipe},
        run_by="python -m batch",
    )
    texts = {
        "plan.csv": plan.table.to_csv(index=False, float_format="%.12g"),
        "designs.csv": plan.designs.to_csv(index=False, float_format="%.12g"),
        "summary.json": strict_json(summary),
    }
    names = list(FREQUENCY_OUTPUTS)
    if plan.margins is not None:
        texts[MARGINS_OUTPUT] = plan.margins.to_csv(index=False, float_format="%.12g")
        names.append(MARGINS_OUTPUT)
    paths = []
    for name in names:
        path = out / name
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(texts[name], encoding="utf-8")
        os.replace(tmp, path)
        paths.append(path)
    return paths
