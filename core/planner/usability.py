"""Is a planned release usable, and do its RMSE and its 95 % bound tell the same story?

Two reading rules for a row of the planner (:func:`core.planner.plan`), both about the
error measures of :mod:`core.planner.errors` (the RMSE ``sqrt(E[(θ̃ − θ)^2])`` and the 95 %
error bound ``x`` with ``P(|θ̃ − θ| ≤ x) = 0.95``, Hu, Drechsler & Kim 2023, §4.3):

* **Usable or too noisy** (:func:`is_usable`). A release is of no use when its error is
  as large as the value it reports: a median of 148 released "within ±1,690" says nothing.
  The rule compares the 95 % bound with a share ``s`` of a reference scale: the absolute
  population value ``|θ|``, or the declared public range ``upper − lower`` when ``θ = 0``
  (a relative error about 0 has no meaning). This is a reporting rule of this product,
  not a result of the papers; the share is the user's to choose.
* **Heavy-tailed noise** (:func:`is_heavy_tailed`). For light-tailed errors the RMSE is
  about half the 95 % bound (Laplace noise: ``√2 / ln 20 ≈ 0.47``; Gaussian noise:
  ``1 / 1.96 ≈ 0.51``). Chebyshev's inequality, ``P(|e| ≥ k·RMSE) ≤ 1/k²``, caps the bound
  at ``√20 · RMSE ≈ 4.5 RMSE``, so the two can only disagree a lot the other way: an RMSE
  far above the bound means that a few rare, large errors (fewer than 5 % of releases)
  dominate the mean square while 95 % of releases stay within the bound.
"""

from __future__ import annotations

import math

from .._validation import check_bounds_or_no_upper, finite_scalar

__all__ = [
    "DEFAULT_USABLE_SHARE",
    "HEAVY_TAIL_RATIO",
    "is_heavy_tailed",
    "is_usable",
    "reference_scale",
    "relative_error",
]

#: Default share: a 95 % bound above half the reference scale makes a release unusable.
DEFAULT_USABLE_SHARE = 0.5

#: RMSE / 95 % bound above this reads as heavy-tailed noise (light tails give about 0.5).
HEAVY_TAIL_RATIO = 2.0


def _error(name: str, value: object) -> float:
    """An error measure: a number ≥ 0, ``inf`` allowed, NaN kept (not computed)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a number, not a boolean; got {value!r}")
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a number; got {value!r}") from exc
    if x < 0:
        raise ValueError(f"{name} must be >= 0 (an error size); got {value!r}")
    return x


def _share(share: object) -> float:
    s = finite_scalar("share", share)
    if s <= 0:
        raise ValueError(f"share must be a finite number > 0; got {share!r}")
    return s


def reference_scale(value: float, lower: float, upper: float) -> float:
    """The scale an error is read against: ``|θ|``, or ``upper − lower`` when ``θ = 0``.

    Parameters
    ----------
    value
        The population value θ of the released statistic (any sign; finite).
    lower, upper
        The declared public bounds; ``upper`` may be ``inf`` (no public upper bound), and
        then the range, used only for ``θ = 0``, is ``inf``.

    Returns
    -------
    float
        ``|value|`` when it is not 0, else ``upper − lower`` (> 0, possibly ``inf``).

    Raises
    ------
    ValueError
        If ``value`` is not finite or the bounds are not valid public bounds.
    """
    theta = finite_scalar("value", value)
    lo, hi = check_bounds_or_no_upper(lower, upper)
    return abs(theta) if theta != 0.0 else hi - lo


def relative_error(bound: float, value: float, lower: float, upper: float) -> float:
    """The 95 % bound as a share of :func:`reference_scale`: ``x / |θ|`` (or ``x / (U − L)``).

    ``bound`` is ``x`` (≥ 0; ``inf`` gives ``inf``; NaN, a bound not computed, gives NaN).
    A finite bound against an infinite range gives 0.
    """
    x = _error("bound", bound)
    scale = reference_scale(value, lower, upper)
    if math.isnan(x) or math.isinf(x):
        return x
    return x / scale


def is_usable(bound: float, value: float, lower: float, upper: float, share: float) -> bool:
    """Whether a release with 95 % error bound ``bound`` is usable: ``x ≤ s · scale``.

    The rule of the module docstring: ``scale`` is ``|θ|``, or the declared range
    ``upper − lower`` when ``θ = 0`` (:func:`reference_scale`).

    Parameters
    ----------
    bound
        The 95 % error bound ``x`` of the release, ≥ 0 (``inf``: unbounded error, never
        usable; NaN: not computed, not usable either).
    value
        The population value θ (any sign).
    lower, upper
        The declared public bounds (``upper`` may be ``inf``).
    share
        The largest usable ``x / scale``, a finite number > 0 (``0.5``: the bound may be at
        most half the value).

    Raises
    ------
    ValueError
        If ``bound`` is negative, ``share`` is not a finite number > 0, or ``value`` and the
        bounds are invalid.
    """
    s = _share(share)
    rel = relative_error(bound, value, lower, upper)
    return bool(rel <= s)  # NaN compares False


def is_heavy_tailed(rmse: float, bound: float, ratio: float = HEAVY_TAIL_RATIO) -> bool:
    """Whether ``RMSE / bound > ratio``: rare large errors dominate the RMSE.

    See the module docstring: light-tailed errors give ``RMSE / x ≈ 0.5`` and Chebyshev's
    inequality bounds ``x / RMSE`` by ``√20``, so only a large ``RMSE / x`` is a
    disagreement worth explaining. A bound of 0 with an RMSE above 0 (95 % of releases
    exact, a few far off) is heavy-tailed; an RMSE of 0, an infinite RMSE or bound, or a NaN
    is not (nothing to explain, or nothing measured).

    Raises
    ------
    ValueError
        If ``rmse`` or ``bound`` is negative, or ``ratio`` is not a finite number > 0.
    """
    r = _error("rmse", rmse)
    x = _error("bound", bound)
    k = finite_scalar("ratio", ratio)
    if k <= 0:
        raise ValueError(f"ratio must be a finite number > 0; got {ratio!r}")
    if not (math.isfinite(r) and math.isfinite(x)) or r == 0.0:
        return False
    return r > k * x
