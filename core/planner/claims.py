"""When the planner may claim that a sample beats the census.

A sampled plan's error is a Monte Carlo estimate: ``T`` samples give its objective (the RMSE
or the 95 % error bound) with a standard error ``se`` (:mod:`core.planner.errors`).  The
census row is usually exact (a closed form of the mechanism's noise law on the whole
population, ``se = 0``); the unbounded quantile's census is simulated and has one too.  A
sample whose estimate is below the census's by less than its own noise has not been shown to
be better: the planner would recommend it at one seed and the census at another.

**The rule** (:func:`beats_reference`).  A plan beats its reference when its objective plus
``z`` standard errors of the difference is still below the reference's objective,

.. math::

    \\hat b_{\\text{sample}} + z \\sqrt{\\mathrm{se}_{\\text{sample}}^2
    + \\mathrm{se}_{\\text{census}}^2} < \\hat b_{\\text{census}},

with ``z = 2`` (:data:`CLAIM_SES`; about a 2.3 % one-sided chance of a false claim for a
normal estimate when the two are equally accurate).  The two estimates come from
independent draws, so the variance of their difference is the sum of their variances; an
exact census contributes 0.  Otherwise the two are indistinguishable at this Monte Carlo
precision, and the simpler release, the census (no sample to draw, no amplification to
state), is recommended (:func:`recommended_row`).  This is a reporting rule of this
product, in the spirit of reading a simulation with its Monte Carlo error (Hu, Drechsler &
Kim 2023, §4.3 report their simulated MSE curves with such errors); it is not a theorem.
"""

from __future__ import annotations

import math

import pandas as pd

from .._validation import check_choice, finite_scalar
from ..designs.registry import DESIGNS
from ..planner import ties

__all__ = [
    "CLAIM_SES",
    "beats_reference",
    "recommended_row",
    "standard_error_column",
]

#: Standard errors of the difference a sample's gain over the census must exceed.
CLAIM_SES = 2.0

#: Objective column → its Monte Carlo standard-error column in a plan's table.
_SE_COLUMNS = {"error_95": "error_95_se", "rmse": "rmse_se"}


def _measure(name: str, value: object, missing: bool = False) -> float:
    """An error or its standard error: a number ≥ 0 (``inf`` allowed; NaN only where
    ``missing`` allows an error that could not be computed)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, not a boolean; got {value!r}")
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number; got {value!r}") from exc
    if (math.isnan(x) and not missing) or x < 0:
        raise ValueError(f"{name} must be a number >= 0; got {value!r}")
    return x


def standard_error_column(objective: str) -> str:
    """The column holding the Monte Carlo standard error of ``objective`` in a plan's table
    (``"error_95"`` → ``"error_95_se"``, ``"rmse"`` → ``"rmse_se"``).

    Raises
    ------
    ValueError
        For another objective.
    """
    return _SE_COLUMNS[check_choice("objective", objective, tuple(_SE_COLUMNS))]


def beats_reference(
    value: float,
    value_se: float,
    reference: float,
    reference_se: float = 0.0,
    ses: float = CLAIM_SES,
) -> bool:
    """Whether a plan's error is below the reference's by more than the Monte Carlo noise.

    True when ``value + ses · sqrt(value_se² + reference_se²) < reference`` (module
    docstring): the gain ``reference − value`` exceeds ``ses`` standard errors of the
    difference of two independent estimates.

    Parameters
    ----------
    value, value_se : float
        The plan's objective (RMSE or 95 % error bound) and its Monte Carlo standard error,
        numbers >= 0 (``value`` may be ``inf``, or NaN when it could not be computed: no
        claim then).
    reference, reference_se : float
        The reference's objective (NaN: no claim) and standard error (0 for an exact
        census).
    ses : float
        How many standard errors the gain must exceed, finite and >= 0 (default 2).

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        For a negative measure, a NaN standard error, or a bad ``ses``.
    """
    v = _measure("value", value, missing=True)
    v_se = _measure("value_se", value_se)
    ref = _measure("reference", reference, missing=True)
    ref_se = _measure("reference_se", reference_se)
    z = finite_scalar("ses", ses)
    if z < 0:
        raise ValueError(f"ses must be a finite number >= 0; got {ses!r}")
    if math.isinf(v) or math.isnan(v) or math.isnan(ref):
        return False  # an error not computed, or unbounded, supports no claim
    noise = z * math.hypot(v_se, ref_se) if z > 0 else 0.0
    # A bound the same as the reference's to the root search's tolerance is no gain
    # (core.planner.ties): e.g. both at the clip jump U − θ, found by different searches.
    return v + noise < ref and not ties.same(v + noise, ref)


def recommended_row(best_by_design: pd.DataFrame, objective: str) -> pd.Series:
    """The plan to recommend: the best sampled plan if it beats the census, else the census.

    ``best_by_design`` holds one best row per design and mechanism, ranked by ``objective``
    (:attr:`core.planner.PlanResult.best_by_design`).  The reference is the best census
    row (the design whose ``reference`` flag is set).  The first ranked row is recommended
    when it is a census row, when there is no census row, or when
    :func:`beats_reference` holds for it against the census (with both standard errors);
    otherwise the census row is: the two are indistinguishable at this Monte Carlo
    precision, and the census is the simpler release.

    Parameters
    ----------
    best_by_design : pandas.DataFrame
        Columns ``design``, ``objective`` and its standard-error column
        (:func:`standard_error_column`), ranked best first; at least one row.
    objective : str
        ``"error_95"`` or ``"rmse"``.

    Returns
    -------
    pandas.Series
        A row of ``best_by_design``.

    Raises
    ------
    ValueError
        For an unknown objective or an empty table.
    """
    se = standard_error_column(objective)
    if not len(best_by_design):
        raise ValueError("best_by_design must hold at least one row")
    first = best_by_design.iloc[0]
    is_census = best_by_design["design"].map(_is_reference)
    census = best_by_design[is_census.to_numpy(dtype=bool)]
    if not len(census) or _is_reference(first["design"]):
        return first
    ref = census.iloc[0]
    if beats_reference(
        float(first[objective]),
        _se(first, se),
        float(ref[objective]),
        _se(ref, se),
    ):
        return first
    return ref


def _is_reference(name: object) -> bool:
    """Whether ``name`` is the reference design (the census); False for an unknown name."""
    design = DESIGNS.get(str(name))
    return bool(design is not None and design.reference)


def _se(row: pd.Series, column: str) -> float:
    """A row's standard error (0 when the table has none or it is missing)."""
    value = row.get(column, 0.0)
    x = float(value) if value is not None else 0.0
    return 0.0 if math.isnan(x) else x
