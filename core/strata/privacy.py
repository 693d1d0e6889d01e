"""Privacy amplification of stratified designs (Bun et al. 2022, Theorems 4.3, 7.2 and 3.1).

Proportional allocation with randomised rounding (:func:`proportional_eps_bound` and its
inverse :func:`proportional_eps_sample_for_target`) and a random, data-independent sample
size (:func:`random_size_eps_bounds`), in ``log1p``/``expm1`` form for small budgets and a
log-domain form for large ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._validation import FloatArray, check_eps, check_rate, check_whole, finish

__all__ = [
    "RandomSizeBounds",
    "proportional_eps_approx",
    "proportional_eps_bound",
    "proportional_eps_sample_for_target",
    "random_size_eps_bounds",
    "truncated_gaussian_pmf",
]


# Beyond this exponent exp() of a double is close to overflow (exp(709.78) = max float).
_EXP_SAFE = 700.0


# --------------------------------------------------------------------------------------------
# Privacy: proportional allocation with randomised rounding (Theorems 4.3 and 7.2)
# --------------------------------------------------------------------------------------------


def _log1p_c_expm1(c: FloatArray, x: FloatArray) -> FloatArray:
    """``log(1 + c (e^x - 1))`` for c > 0, x > 0: exact for small x, finite for large x."""
    with np.errstate(over="ignore", divide="ignore"):
        small = np.log1p(c * np.expm1(np.minimum(x, _EXP_SAFE)))
        # log(c (e^x - 1)) = log c + x + log1p(-e^-x); then log(1 + that) via logaddexp.
        big = np.logaddexp(0.0, np.log(c) + x + np.log1p(-np.exp(-x)))
    return np.where(x <= _EXP_SAFE, small, big)


def proportional_eps_bound(eps_sample: ArrayLike, rate: ArrayLike) -> float | FloatArray:
    """Guarantee for the population under proportional allocation with randomised rounding.

    Bun et al. Theorem 4.3 (one stratum) and Theorem 7.2 (k strata): if a mechanism is
    ε-differentially private on the sample and the sample is drawn by proportional
    allocation with randomised rounding at rate ``r`` (every stratum with ``r N_i >= 1``),
    the whole procedure is ε′-differentially private for the population with::

        ε′ = log(1 + 2r (e^{2ε} - 1)) + log(1 + r (e^{2ε} - 1))   ≈ 6 r ε for small ε.

    Unlike simple random sampling (``log(1 + r(e^ε - 1))``) this is not always below ε: it
    is for small rates (about r < 1/6 when ε is small), while for large ε it grows like
    4ε + log(2r²).

    Parameters
    ----------
    eps_sample : float or array_like
        ε of the mechanism on the sample, finite and > 0.
    rate : float or array_like
        Sampling fraction r in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ε′, broadcast over the arguments; a float when both are scalars.

    Notes
    -----
    Each term is ``log1p(c · expm1(2ε))`` while ``2ε <= 700`` (exact at ε = 1e-12) and
    ``logaddexp(0, log c + 2ε + log1p(-e^{-2ε}))`` beyond (finite at ε = 1000).
    """
    scalar = np.ndim(eps_sample) == 0 and np.ndim(rate) == 0
    e = check_eps("eps_sample", eps_sample)
    r = check_rate("rate", rate)
    e, r = np.broadcast_arrays(e, r)
    x = 2.0 * e
    return finish(_log1p_c_expm1(2.0 * r, x) + _log1p_c_expm1(r, x), scalar)


def proportional_eps_sample_for_target(
    eps_target: ArrayLike, rate: ArrayLike
) -> float | FloatArray:
    """Inverse of :func:`proportional_eps_bound`: the ε_sample whose bound is ``eps_target``.

    Bun et al. (2022), Theorems 4.3 and 7.2, solved for the budget of the mechanism on the
    sample. With ``x = e^{2ε_sample} − 1`` and ``E = e^{ε_target} − 1`` the bound reads
    ``(1 + 2rx)(1 + rx) = 1 + E``, a quadratic in ``x`` with one positive root::

        x = 2E / (r (3 + sqrt(9 + 8E))),        ε_sample = log(1 + x) / 2.

    The root is written without the cancelling difference ``−3 + sqrt(9 + 8E)``, so it is
    exact at ``ε_target = 1e-12`` (where ε_sample ≈ ε_target / (6r)); for
    ``ε_target > 700`` it is evaluated in logarithms
    (``log x = log E / 2 − log 2 / 2 − log r``, exact to rounding there) and stays finite at
    1000. The bound grows strictly with ε_sample from 0 to infinity, so the inverse exists for
    every ``eps_target > 0``; it is *below* ``eps_target`` when the bound does not amplify
    (large rates or large budgets), and the page then says that randomised proportional
    allocation allows less than no sampling at all.

    Parameters
    ----------
    eps_target : float or array_like
        Guarantee promised for the population, finite and > 0.
    rate : float or array_like
        Sampling fraction r in (0, 1].

    Returns
    -------
    float or numpy.ndarray
        ε_sample > 0, broadcast over the arguments; a float when both are scalars.

    Raises
    ------
    ValueError
        For a non-positive or non-finite ``eps_target`` or a rate outside (0, 1].
    """
    scalar = np.ndim(eps_target) == 0 and np.ndim(rate) == 0
    t = check_eps("eps_target", eps_target)
    r = check_rate("rate", rate)
    t, r = np.broadcast_arrays(t, r)
    with np.errstate(over="ignore", invalid="ignore"):
        big_e = np.expm1(np.minimum(t, _EXP_SAFE))
        x = 2.0 * big_e / (r * (3.0 + np.sqrt(9.0 + 8.0 * big_e)))
        small = 0.5 * np.log1p(x)
        log_e = t + np.log1p(-np.exp(-t))
        log_x = 0.5 * log_e - 0.5 * math.log(2.0) - np.log(r)
        big = 0.5 * np.logaddexp(0.0, log_x)
    return finish(np.where(t <= _EXP_SAFE, small, big), scalar)


def proportional_eps_approx(eps_sample: ArrayLike, rate: ArrayLike) -> float | FloatArray:
    """The small-ε form ``6 r ε`` of :func:`proportional_eps_bound` (Bun et al. Theorem 4.3).

    It follows from ``e^x - 1 ≈ x`` and ``log(1 + x) ≈ x``: ``2r·2ε + r·2ε = 6rε``.
    """
    scalar = np.ndim(eps_sample) == 0 and np.ndim(rate) == 0
    e = check_eps("eps_sample", eps_sample)
    r = check_rate("rate", rate)
    return finish(6.0 * r * e, scalar)


# --------------------------------------------------------------------------------------------
# Privacy: a random, data-independent sample size (Theorem 3.1)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RandomSizeBounds:
    """Theorem 3.1 of Bun et al. for one distribution of the sample size.

    Attributes
    ----------
    lower, upper : float
        Lower and upper bound on the population guarantee ε′.
    tilted_mean : float
        ``E_{m ~ t̃}[m]``, the mean sample size under the ε-tilted distribution.
    n : int
        Population size.
    """

    lower: float
    upper: float
    tilted_mean: float
    n: int


def random_size_eps_bounds(eps_sample: float, n: int, size_pmf: ArrayLike) -> RandomSizeBounds:
    """Bounds on ε′ when the sample size is random and independent of the data.

    Bun et al. Theorem 3.1: draw a size ``m ~ t`` on {0, ..., n}, then a simple random
    sample of ``m`` of the ``n`` records, and run an ε-DP (deletion) mechanism on it. With
    the ε-tilted distribution ``t̃(m) ∝ e^{εm} t(m)`` and ``a = E_{m~t̃}[m] / n``::

        upper:  ε′ <= log(1 + a (e^ε - 1))        for every such mechanism,
        lower:  ε′ >= -log(1 - a (1 - e^{-ε}))    for some mechanism and pair of neighbours.

    For a fixed size ``m`` both reduce to ``a = m/n``, and the upper bound is the simple
    random sampling value of Theorem 2.2. The tilt favours large sizes, so a small chance
    of a large sample is enough to spoil amplification.

    Parameters
    ----------
    eps_sample : float
        ε of the mechanism on the sample, finite and > 0.
    n : int
        Population size, >= 1.
    size_pmf : array_like
        ``t(0), ..., t(n)``: non-negative, summing to 1 (to 1e-6; it is renormalised).

    Returns
    -------
    RandomSizeBounds

    Notes
    -----
    The tilt is computed in the log domain (``log t(m) + εm`` minus its maximum), so it
    neither overflows at ε = 1000 nor loses the tilt at ε = 1e-12. With ``b = 1 - a``
    computed as the tilted mean of ``(n - m)/n`` (no cancellation), the bounds are
    ``log1p(a·expm1(ε))`` and ``-log1p(-a·(-expm1(-ε)))`` for moderate arguments, and the
    log-domain forms ``logaddexp(log b, log a + ε)`` and ``-logaddexp(log b, log a - ε)``
    otherwise.
    """
    e = float(check_eps("eps_sample", eps_sample))
    nn = check_whole("n (population size)", n, 1, 100_000_000)
    try:
        t = np.asarray(size_pmf, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("size_pmf must be a list of probabilities") from None
    if t.shape != (nn + 1,):
        raise ValueError(
            f"size_pmf must give the probability of every size 0..n ({nn + 1} numbers); "
            f"got shape {t.shape}"
        )
    if not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("size_pmf must contain finite probabilities >= 0")
    total = float(t.sum())
    if not abs(total - 1.0) <= 1e-6:
        raise ValueError(f"size_pmf must sum to 1; it sums to {total:.6g}")
    sizes = np.arange(nn + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        logw = np.log(t) + e * sizes
    w = np.exp(logw - logw.max())
    w /= w.sum()
    # Plain sums, not ``@``: a BLAS dot product can stall on a busy machine (thread spin).
    mean = float(np.sum(w * sizes))
    a = mean / nn
    b = float(np.sum(w * (nn - sizes))) / nn
    with np.errstate(divide="ignore"):
        if e <= _EXP_SAFE:
            upper = math.log1p(a * math.expm1(e))
        else:
            upper = float(np.logaddexp(np.log(b), np.log(a) + e))
        c = a * -math.expm1(-e)
        lower = -math.log1p(-c) if c <= 0.5 else -float(np.logaddexp(np.log(b), np.log(a) - e))
    return RandomSizeBounds(lower=lower, upper=upper, tilted_mean=mean, n=nn)


def truncated_gaussian_pmf(n: int, mean: float, sd: float) -> FloatArray:
    """A Gaussian restricted to the sizes {0, ..., n}: ``t(m) ∝ exp(-(m - mean)² / (2 sd²))``.

    The distribution of Bun et al. Figure 2 (mean n/2, ``sd`` from 1 to 1,000, n = 10⁴).
    """
    nn = check_whole("n (population size)", n, 1, 100_000_000)
    mu, s = float(mean), float(sd)
    if not (math.isfinite(mu) and math.isfinite(s) and s > 0):
        raise ValueError("mean must be finite and sd a finite number > 0")
    m = np.arange(nn + 1, dtype=np.float64)
    logp = -0.5 * ((m - mu) / s) ** 2
    p = np.exp(logp - logp.max())
    return p / p.sum()
