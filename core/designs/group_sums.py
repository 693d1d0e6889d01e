"""Per-group sums of deviations in two passes over the records, without N-sized temporaries.

:func:`core.designs.mean_error.prepare_mean_population` needs, for the strata and for the
clusters of a population, each group's size ``N_h``, the sum of its deviations
``Σ_{i∈h} d_i`` and, with ``m_h`` that sum over ``N_h`` and ``e_i = d_i − m_h``, the
corrected second pass ``Σ_{i∈h} e_i`` and ``Σ_{i∈h} e_i²`` (Chan, Golub & LeVeque 1983).

Written with ``numpy.bincount``, each pass builds arrays of N entries: a copy of the codes
in the platform's index type for every ``bincount`` (the frame keeps codes in the narrowest
integer type), the gathered means ``m_{h(i)}`` and the squares ``e_i²``.  At 10⁸ records
these temporaries are about 2.4 GB.  :func:`two_pass_sums` reads the codes and deviations
where they are and keeps only arrays of ``H`` entries (one per group).

Invariant: the sums are accumulated record by record in index order, exactly as
``numpy.bincount`` adds its weights, so the results equal the ``bincount`` formulation up to
the floating-point rounding of the same operations in the same order.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

try:  # numba is optional: without it callers use the numpy formulation instead.
    import numba as _numba
except ImportError:  # pragma: no cover - exercised only where numba is missing
    _numba = None  # type: ignore[assignment]

__all__ = ["COMPILED", "shifted_sums", "two_pass_sums"]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

#: Whether :func:`two_pass_sums` is compiled (without numba it would loop in Python).
COMPILED = _numba is not None


def _passes(
    values: FloatArray,
    first: float,
    second: float,
    codes: NDArray[np.integer],
    counts: IntArray,
    sums: FloatArray,
    t1: FloatArray,
    t2: FloatArray,
) -> None:
    """Fill ``counts``, ``sums``, ``t1``, ``t2`` (zeroed, one entry per code) in two passes
    over the deviations ``d_i = (values_i − first) − second``, formed record by record."""
    n = values.shape[0]
    for i in range(n):
        c = codes[i]
        counts[c] += 1
        sums[c] += (values[i] - first) - second
    means = np.zeros(counts.shape[0])
    for h in range(counts.shape[0]):
        if counts[h] > 0:
            means[h] = sums[h] / counts[h]
    for i in range(n):
        c = codes[i]
        e = ((values[i] - first) - second) - means[c]
        t1[c] += e
        t2[c] += e * e


def _shifted(values: FloatArray, shift: float, codes: NDArray[np.integer], out: FloatArray) -> None:
    """``out[c] += values[i] − shift`` for every record ``i`` of code ``c``, in index order."""
    for i in range(values.shape[0]):
        out[codes[i]] += values[i] - shift


if _numba is not None:
    _passes = _numba.njit(cache=True, nogil=True)(_passes)
    _shifted = _numba.njit(cache=True, nogil=True)(_shifted)


def shifted_sums(
    values: FloatArray, shift: float, codes: NDArray[np.integer], groups: int
) -> FloatArray:
    """``Σ_{i∈h} (x_i − shift)`` for each group code ``h < groups``.

    The same sums as ``numpy.bincount(codes, weights=values - shift, minlength=groups)``,
    added in the same order, without its two arrays of N entries (the shifted values and the
    codes' copy in the index type).  Without numba, that ``bincount`` runs instead.
    """
    if not COMPILED:  # pragma: no cover - exercised only where numba is missing
        return np.asarray(
            np.bincount(codes, weights=values - shift, minlength=groups), dtype=np.float64
        )
    out = np.zeros(groups)
    _shifted(
        np.ascontiguousarray(values, dtype=np.float64),
        float(shift),
        np.ascontiguousarray(codes),
        out,
    )
    return out


def two_pass_sums(
    deviations: FloatArray,
    codes: NDArray[np.integer],
    groups: int,
    shifts: tuple[float, float] = (0.0, 0.0),
) -> tuple[IntArray, FloatArray, FloatArray, FloatArray]:
    """Sizes and two-pass sums of ``deviations`` by group code.

    Parameters
    ----------
    deviations : ndarray of float64
        ``d_i``, one per record; with ``shifts = (a, b)``, the values ``x_i`` whose
        deviations are ``d_i = (x_i − a) − b``, formed record by record with the same two
        roundings as ``numpy``'s ``d = x - a; d -= b``, without that array of N entries.
    codes : ndarray of integers
        The group code of each record, ``0 ≤ code < groups`` (any signed or unsigned integer
        type below 64 bits, or int64; not checked here).
    groups : int
        ``H``, one more than the largest code.
    shifts : tuple of two floats, default (0, 0)
        ``(a, b)`` above (``x − 0 − 0`` is ``x`` exactly).

    Returns
    -------
    counts : ndarray of int64
        ``N_h`` (0 for a code no record has).
    sums : ndarray of float64
        ``Σ_{i∈h} d_i``.
    t1, t2 : ndarray of float64
        ``Σ_{i∈h} e_i`` and ``Σ_{i∈h} e_i²`` with ``e_i = d_i − Σ_{j∈h} d_j / N_h``
        (all three are 0 for an empty group).
    """
    counts = np.zeros(groups, dtype=np.int64)
    sums = np.zeros(groups)
    t1 = np.zeros(groups)
    t2 = np.zeros(groups)
    _passes(
        np.ascontiguousarray(deviations, dtype=np.float64),
        float(shifts[0]),
        float(shifts[1]),
        np.ascontiguousarray(codes),
        counts,
        sums,
        t1,
        t2,
    )
    return counts, sums, t1, t2
