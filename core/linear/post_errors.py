"""The error of a planner row after its release is rounded to a non-negative whole number.

What is released
----------------
A count or a total is released as ``y = w (Σ_S y + Z)`` (:mod:`core.linear.plan`) and
post-processed to ``post = max(0, ⌊y + ½⌋)``: the nearest non-negative integer.  A proportion
is the count released and post-processed so, then divided by the public ``N``:
``max(0, ⌊y + ½⌋)/N`` (so it is a multiple of ``1/N``).  Rounding reads the release only
(and the public ``N``), never the data, so it keeps every guarantee of the release
(:mod:`core.linear.postprocess`, Dwork & Roth 2014, Proposition 2.1): it costs no privacy.

Which statistics
----------------
The truth ``θ = Σ y`` must be non-negative for the clamp at 0 to be a move towards it:
counts and proportions always; a total only when its public lower bound is ``L ≥ 0``
(:func:`check_post`).  A total of values that are not whole numbers may still be rounded
(payroll to whole units); its truth is then not an integer, and the bounds below say so.

The errors
----------
*Exact* when the release has no sampling error (the census, or a design whose estimator has
variance 0): ``y = θ + w Z`` with ``Z`` of a known law.  The mean squared error is
:func:`core.linear.postprocess.rounded_moments` (closed form for Laplace noise, exact sums
for integer noise), and the 95 % bound is the smallest ``x`` with
``P(|post − θ| ≤ x) ≥ level`` (:func:`core.linear.postprocess.rounded_coverage`, from the
noise's CDF).  ``|post − θ|`` only takes the values ``|k − θ|`` for whole ``k ≥ 0``, and the
coverage is a step function of ``x`` that rises only at those values, so the smallest such
``x`` is found by bisection over them (:func:`exact_post_bound`).

*A proven bound* with sampling error.  **Lemma.**  For ``θ ≥ 0`` and every real ``y``,
``|post − θ| ≤ |y − θ| + ½``, and for a whole ``θ`` also ``|post − θ| ≤ ⌊|y − θ| + ½⌋``.
*Proof.*  ``k = ⌊y + ½⌋`` satisfies ``|k − y| ≤ ½``, so ``|k − θ| ≤ |y − θ| + ½`` (triangle
inequality).  Clamping at 0 moves ``k`` towards the interval ``[0, ∞)``, which holds ``θ``: if
``k < 0 ≤ θ`` then ``|0 − θ| = θ < θ − k = |k − θ|``; otherwise nothing moves.  So
``|post − θ| ≤ |k − θ| ≤ |y − θ| + ½``; when ``θ`` is whole, ``post − θ`` is whole too, so
it is at most the integer part of the right-hand side.  ∎

Hence (Minkowski's inequality) ``RMSE(post) ≤ RMSE(y) + ½``, and if ``|y − θ| ≤ x`` with
probability at least ``level`` then ``|post − θ| ≤ x + ½`` (``⌊x + ½⌋`` for a whole ``θ``)
with at least that probability: the row's 95 % bound plus ½ is a 95 % bound after rounding
(under the same normal approximation of the sampling error as the row's own bound,
:mod:`core.linear.errors`).  Dividing by ``N`` divides every error by ``N``.

Clamping a proportion further to at most 1 (the count to at most ``N``, a set that also
holds the truth) would move it towards the truth only, so these figures bound the error of
that release too.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .postprocess import (
    MAX_ROUNDING_SUPPORT,
    exact_rounding_feasible,
    rounded_coverage,
    rounded_moments,
)

if TYPE_CHECKING:
    from .mechanisms import LinearMechanism

__all__ = [
    "POST_BOUND",
    "POST_CHOICES",
    "POST_EXACT",
    "check_post",
    "exact_post_bound",
    "post_errors",
]

#: The post-processings :func:`core.linear.plan.plan_linear` knows: none, or rounding.
POST_CHOICES = ("none", "round")
#: ``post_method`` of a row whose errors after rounding are exact.
POST_EXACT = "exact: the noise's law, rounded"
#: ``post_method`` of a row whose errors after rounding are bounded (module docstring).
POST_BOUND = "bound: the error before rounding + ½"


def check_post(post: str, kind: str, lower: float) -> str:
    """``post`` when the statistic's truth is known to be non-negative, else a ValueError."""
    if post not in POST_CHOICES:
        raise ValueError(f"post must be one of {', '.join(POST_CHOICES)}; got {post!r}")
    if post == "round" and kind == "total" and float(lower) < 0.0:
        raise ValueError(
            "Rounding to whole numbers of at least 0 moves a release towards the truth only "
            "when the truth cannot be negative; this total's public lower bound is below 0, "
            "so it is released without rounding."
        )
    return post


def exact_post_bound(
    mechanism: LinearMechanism, parameter: float, weight: float, theta: float, level: float
) -> float:
    """The smallest ``x`` with ``P(|max(0, ⌊θ + wZ + ½⌋) − θ| ≤ x) ≥ level`` (exact).

    The candidates are the values ``|k − θ|`` (``k`` whole, ``≥ 0``) up to
    ``w q + ½``, with ``q`` the noise's own ``level`` bound: by the lemma of the module
    docstring (``y − θ = wZ``) that value already has the coverage asked, so the answer is
    among them; the coverage increases with ``x``, so a bisection over them finds it.
    """
    top = weight * float(mechanism.abs_quantile(parameter, level)) + 0.5
    lo_k = max(0.0, math.floor(theta - top))
    hi_k = math.ceil(theta + top)
    k = np.arange(lo_k, hi_k + 1.0)
    candidates = np.unique(np.abs(k - theta))
    candidates = candidates[candidates <= top + 1e-9 * max(1.0, top)]
    if candidates.size == 0 or candidates[-1] < top:
        candidates = np.append(candidates, top)

    def covered(x: float) -> bool:
        # a few ulps of slack so that θ ∓ x lands on the whole k it was computed from
        slack = 4.0 * np.finfo(np.float64).eps * max(1.0, abs(theta) + x)
        got = rounded_coverage(
            theta, theta, float(x) + slack, lambda t: mechanism.below(parameter, t), weight
        )
        return bool(float(got) >= level)

    lo, hi = 0, candidates.size - 1  # covered(candidates[hi]) holds (the lemma)
    if covered(float(candidates[0])):
        return float(candidates[0])
    while hi - lo > 1:  # not covered at lo, covered at hi
        mid = (lo + hi) // 2
        if covered(float(candidates[mid])):
            hi = mid
        else:
            lo = mid
    return float(candidates[hi])


def post_errors(
    mechanism: LinearMechanism,
    parameter: float,
    weight: float,
    variance: float,
    theta: float,
    rmse: float,
    error_95: float,
    level: float,
) -> tuple[float, float, str]:
    """RMSE and ``level`` bound of ``max(0, ⌊y + ½⌋)`` about ``θ``, and how they are known.

    Parameters
    ----------
    mechanism, parameter
        The noise ``Z`` and its parameter.
    weight : float
        ``w``, the estimator's weight.
    variance : float
        The estimator's design variance (0: no sampling error, the errors are exact).
    theta : float
        The truth ``Σ y`` (≥ 0), in the count's or total's unit.
    rmse, error_95 : float
        The row's errors before rounding, in the same unit.
    level : float

    Returns
    -------
    (rmse_post, error_95_post, method)
        :data:`POST_EXACT` or :data:`POST_BOUND` (module docstring).  The bound also serves
        a release without sampling error whose noise is too wide to sum exactly (more than
        :data:`core.linear.postprocess.MAX_ROUNDING_SUPPORT` values to sum or to search).
    """
    span = 2.0 * (weight * float(mechanism.abs_quantile(parameter, level)) + 1.0)
    cheap = exact_rounding_feasible(mechanism, parameter) and span <= MAX_ROUNDING_SUPPORT
    if variance <= 0.0 and cheap:
        _, mse = rounded_moments(mechanism, parameter, theta, theta, weight)
        bound = exact_post_bound(mechanism, parameter, weight, theta, level)
        return math.sqrt(float(mse)), bound, POST_EXACT
    whole = float(theta).is_integer()
    bound = math.floor(error_95 + 0.5) if whole else error_95 + 0.5
    return rmse + 0.5, float(bound), POST_BOUND
