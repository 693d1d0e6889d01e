"""The population as designs and the planner read it, prepared once.

Shared by every design and rate of a plan.

A :class:`Frame` holds the sorted values, the public bounds and the stratum and cluster
labels as integer codes.  Designs keep what they prepare from it (per-stratum positions,
per-cluster sorted positions, sums for the closed-form mean) in :meth:`Frame.prepared`, so
a plan that evaluates a design at many rates prepares it once.  Nothing here grows with the
number of repetitions: every array is O(N) and built once per population.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .. import sensitivity as sens
from .._checked import mark_checked
from ..windowed.runs import ValueRuns
from .cluster_windows import _narrowest
from .grouped import group_sizes

if TYPE_CHECKING:
    from ..populations import Population

__all__ = ["Frame"]

_T = TypeVar("_T")

#: Codes renumbered per slice by :func:`_sorted_codes` (its int64 index copy: 8 MB).
_GATHER_SLICE = 1 << 20

#: Held while a frame prepares something, so that threads sharing a frame (the points of a
#: plan, sessions of a server) build each preparation once.  Re-entrant: a preparation may
#: ask for another.
_PREPARING = threading.RLock()


def _sorted_codes(
    population: Population, which: str
) -> tuple[NDArray[np.signedinteger[Any]], NDArray[np.int64]]:
    """The population's ``which`` labels as codes ``0 .. K - 1`` in the sorted order of the
    labels, and the records per code, renumbered from the codes the population already holds
    (:meth:`core.population.Population.label_codes`, numbered in order of first appearance):
    one pass over the codes instead of hashing N labels.

    The codes take the narrowest integer type that holds them (int16 up to 32,768 labels):
    at ``N = 10^8`` an int64 code per record would keep 800 MB per label column.
    """
    got = population.label_codes(which)
    if got is None:  # pragma: no cover - the caller checked that the labels exist
        raise ValueError(f"the population has no {which}")
    codes, uniques = got
    order = np.argsort(np.asarray(uniques), kind="stable")
    rank = np.empty(order.size, dtype=_narrowest(order.size))
    rank[order] = np.arange(order.size)
    # rank[codes] slice by slice: numpy turns an index array into int64 first, which for
    # all N codes at once was 800 MB at N = 10^8.
    inv = np.empty_like(codes, dtype=rank.dtype)
    for start in range(0, codes.size, _GATHER_SLICE):
        stop = start + _GATHER_SLICE
        np.take(rank, codes[start:stop], out=inv[start:stop])
    return inv, group_sizes(inv, minlength=order.size)


@dataclass(frozen=True, eq=False)
class Frame:
    """The population prepared once: sorted values, bounds and label codes.

    Attributes
    ----------
    values : ndarray of float, shape (N,)
        The population's values, ascending (as :class:`core.population.Population` keeps
        them).
    lower, upper : float
        Public bounds.
    strata_codes, strata_sizes : ndarray of int or None
        Stratum code of each record (aligned with ``values``; the narrowest signed integer
        type holding the codes) and records per stratum.
    cluster_codes, cluster_sizes : ndarray of int or None
        Cluster code of each record (the narrowest type, likewise) and records per cluster.
    """

    values: NDArray[np.float64]
    lower: float
    upper: float
    strata_codes: NDArray[np.signedinteger[Any]] | None
    strata_sizes: NDArray[np.int64] | None
    cluster_codes: NDArray[np.signedinteger[Any]] | None
    cluster_sizes: NDArray[np.int64] | None
    _prepared: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def N(self) -> int:
        """Population size."""
        return int(self.values.size)

    @classmethod
    def of(cls, population: Population) -> Frame:
        """The frame of ``population`` (values sorted ascending, labels as codes).

        Kept by the population's ``content_hash`` (which covers everything a frame reads:
        values, bounds, stratum and cluster labels), so every plan of the same population,
        in any session, reuses one frame and what its designs prepared
        (:func:`core.designs.frame_cache.cached_frame`).
        """
        from .frame_cache import cached_frame

        return cached_frame(population, cls._build)

    @classmethod
    def _build(cls, population: Population) -> Frame:
        """A new frame of ``population`` (:meth:`of` without the cache)."""
        values = np.asarray(population.values, dtype=np.float64)
        s_codes = s_sizes = c_codes = c_sizes = None
        if population.strata is not None:
            s_codes, s_sizes = _sorted_codes(population, "strata")
        if population.clusters is not None:
            c_codes, c_sizes = _sorted_codes(population, "clusters")
        mark_checked(values)
        return cls(
            values,
            float(population.lower),
            float(population.upper),
            s_codes,
            s_sizes,
            c_codes,
            c_sizes,
        )

    def prepared(self, key: str, build: Callable[[Frame], _T]) -> _T:
        """``build(self)``, computed on the first call for ``key`` and kept with the frame."""
        if key not in self._prepared:
            with _PREPARING:
                if key not in self._prepared:
                    self._prepared[key] = build(self)
        return self._prepared[key]

    def value_runs(self) -> ValueRuns:
        """The runs of equal values (:class:`core.windowed.runs.ValueRuns`)."""
        return self.prepared("value_runs", lambda f: ValueRuns.of(f.values))

    def tied_runs(self) -> ValueRuns | None:
        """:meth:`value_runs` when the population is tied enough for windows over runs to
        pay, else None."""
        runs = self.value_runs()
        return runs if runs.tied else None

    def value(self, statistic: str, quantile: float = 0.5) -> float:
        """The population's mean, or its order statistic of rank ``quantile_rank(N, q)``."""
        if statistic == "mean":
            return self.prepared("mean", lambda f: float(f.values.mean()))
        return float(self.values[sens.quantile_rank(self.N, quantile) - 1])
