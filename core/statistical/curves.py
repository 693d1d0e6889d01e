"""The public privacy curves δ(ε) of a property query, and of worst-case DP for comparison.

Breutigam & Reischuk, "Statistical Privacy", Definition 5 (eqs. 3 and 4) for no mechanism,
subsampling, Gaussian and Laplace noise, each vectorised over ``eps``; and the worst-case
differential privacy of the same mechanisms (§5).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from .._validation import FloatOrArray
from ..statistical.checks import (
    Mechanism,
    _check_m,
    _check_n,
    _check_nu,
    _check_pi,
    _finish_flat,
    _flat_eps,
)
from ..statistical.distributions import _discrete_deltas, _subsampling_pmfs
from ..statistical.noise import _gaussian_deltas, _laplace_deltas

__all__ = [
    "delta_directions",
    "delta_dp_gaussian",
    "delta_dp_laplace",
    "delta_dp_subsampling",
    "delta_gaussian",
    "delta_laplace",
    "delta_no_mechanism",
    "delta_subsampling",
]


def delta_directions(
    mechanism: Mechanism,
    n: int,
    pi: float,
    eps: ArrayLike,
    *,
    m: int | None = None,
    noise_multiplier: float | None = None,
) -> tuple[FloatOrArray, FloatOrArray]:
    """Both directions of the privacy curve, ``(δ_{+,-}(ε), δ_{-,+}(ε))`` (eqs. 3–4).

    ``δ_{+,-}`` bounds what a positive critical record reveals (the answer tends to be
    larger), ``δ_{-,+}`` what a negative one reveals.  The achievable δ is their maximum.

    Parameters
    ----------
    mechanism
        ``"none"`` (Theorem 4.2), ``"subsampling"`` (Theorem 4.1, needs ``m``),
        ``"gaussian"`` or ``"laplace"`` (Lemmas 5–6, need ``noise_multiplier``).
    n, pi, eps
        Database size, property probability π in [0, 1], and ε ≥ 0 (array-like).
    m
        Sample size for subsampling (1 ≤ m ≤ n; rate λ = m/n).
    noise_multiplier
        ν: the noise standard deviation (Gaussian) or scale (Laplace) is ν/n.
    """
    n = _check_n(n)
    pi = _check_pi(pi)
    flat, shape, scalar = _flat_eps(eps)
    if mechanism == "none":
        plus, minus = _discrete_deltas(_subsampling_pmfs(n, n, pi), flat)
    elif mechanism == "subsampling":
        if m is None:
            raise ValueError("subsampling needs the sample size m")
        plus, minus = _discrete_deltas(_subsampling_pmfs(n, _check_m(m, n), pi), flat)
    elif mechanism in ("gaussian", "laplace"):
        if noise_multiplier is None:
            raise ValueError(f"{mechanism} noise needs noise_multiplier")
        nu = _check_nu(noise_multiplier)
        run = _gaussian_deltas if mechanism == "gaussian" else _laplace_deltas
        plus, minus = run(n, pi, nu, flat)
    else:
        raise ValueError(
            f"mechanism must be 'none', 'subsampling', 'gaussian' or 'laplace'; got {mechanism!r}"
        )
    return _finish_flat(plus, shape, scalar), _finish_flat(minus, shape, scalar)


def _max_directions(pair: tuple[FloatOrArray, FloatOrArray]) -> FloatOrArray:
    plus, minus = pair
    if isinstance(plus, float):
        return max(plus, float(minus))
    return np.maximum(plus, minus)


def delta_no_mechanism(n: int, pi: float, eps: ArrayLike) -> FloatOrArray:
    """δ(ε) of the exact property query, from the definition (Theorem 4.2, eqs. 3–4).

    ``δ(ε) = max_{a≠b∈{+,−}} Σ_j max(0, P_a(j) − e^ε P_b(j))`` over the exact PMFs of
    :func:`pmfs_no_mechanism`.  It decreases exponentially in n for fixed π (Chernoff), and
    it is at least ``max(π, 1 − π)^{n−1}``: the answers 0 and 1 give the record away.

    Parameters
    ----------
    n
        Number of records.
    pi
        Property probability π in [0, 1].
    eps
        ε ≥ 0, scalar or array.
    """
    return _max_directions(delta_directions("none", n, pi, eps))


def delta_subsampling(n: int, m: int, pi: float, eps: ArrayLike) -> FloatOrArray:
    """δ(ε) of the query answered on a random sample of m of the n records (Theorem 4.1).

    Computed from the definition (eqs. 3–4) over the exact PMFs of :func:`pmfs_subsampling`;
    at ``m = n`` it equals :func:`delta_no_mechanism`.

    Parameters
    ----------
    n
        Number of records.
    m
        Sample size, 1 ≤ m ≤ n (rate λ = m/n).
    pi
        Property probability π in [0, 1].
    eps
        ε ≥ 0, scalar or array.
    """
    return _max_directions(delta_directions("subsampling", n, pi, eps, m=m))


def delta_gaussian(n: int, pi: float, eps: ArrayLike, noise_multiplier: float) -> FloatOrArray:
    """δ(ε) of the query plus Gaussian noise of standard deviation ν/n (§4.3, Lemma 6).

    Exact: eq. (3) for the mixture densities ``f±(x) = Σ_j P±(j) φ_{ν/n}(x − j/n)``.  The
    region where ``f+ > e^ε f−`` is a half-line ``x > x*``, so
    ``δ_{+,-} = P+(Y + N > x*) − e^ε P−(Y + N > x*)`` with x* found numerically and both
    probabilities summed exactly over the binomial atoms (normal tails in log space); the
    other direction likewise.  Lemma 6's normal approximation is
    :func:`delta_gaussian_normal_approx`.  At π ∈ {0, 1} or n = 1 it equals
    :func:`delta_dp_gaussian`, and it never exceeds it (convexity of the hockey stick).

    Parameters
    ----------
    n, pi, eps
        Database size, property probability π in [0, 1], ε ≥ 0 (array-like).
    noise_multiplier
        ν ≥ 0.01: noise standard deviation in units of the sensitivity 1/n.
    """
    return _max_directions(
        delta_directions("gaussian", n, pi, eps, noise_multiplier=noise_multiplier)
    )


def delta_laplace(n: int, pi: float, eps: ArrayLike, noise_multiplier: float) -> FloatOrArray:
    """δ(ε) of the query plus Laplace noise of scale ν/n (§4.3, Lemma 5).

    Exact: eq. (3) for the mixture densities ``f±(x) = Σ_j P±(j) (n/2ν) e^{−n|x − j/n|/ν}``,
    integrated in closed form between consecutive multiples of 1/n.  Lemma 5: the
    log-ratio of the two densities never exceeds 1/ν, so δ(ε) = 0 for ε ≥ 1/ν.

    Parameters
    ----------
    n, pi, eps
        Database size, property probability π in [0, 1], ε ≥ 0 (array-like).
    noise_multiplier
        ν ≥ 0.01: Laplace scale in units of the sensitivity 1/n.
    """
    return _max_directions(
        delta_directions("laplace", n, pi, eps, noise_multiplier=noise_multiplier)
    )


def delta_dp_gaussian(eps: ArrayLike, noise_multiplier: float) -> FloatOrArray:
    """Worst-case (differential privacy) δ(ε) of Gaussian noise σ = ν·s, sensitivity s (§5).

    The adversary knows every other record, so the two answers are ``y + N`` and
    ``y + s + N``; their hockey stick is the analytic Gaussian curve::

        δ(ε) = Φ(1/(2ν) − εν) − e^ε Φ(−1/(2ν) − εν).

    §5 quotes δ = 0.38 for ν = 1 and 0.128 for ν = 3 at ε = 0.01.  Evaluated as
    ``Φ(a)(1 − exp(ε + log Φ(b) − log Φ(a)))`` with ``log_ndtr``: finite at ε = 1000.

    Parameters
    ----------
    eps
        ε ≥ 0, scalar or array.
    noise_multiplier
        ν ≥ 0.01.
    """
    flat, shape, scalar = _flat_eps(eps)
    nu = _check_nu(noise_multiplier)
    a = special.log_ndtr(0.5 / nu - flat * nu)
    b = special.log_ndtr(-0.5 / nu - flat * nu)
    with np.errstate(invalid="ignore"):
        val = np.exp(a) * -np.expm1(flat + b - a)
    return _finish_flat(np.clip(np.nan_to_num(val, nan=0.0), 0.0, 1.0), shape, scalar)


def delta_dp_laplace(eps: ArrayLike, noise_multiplier: float) -> FloatOrArray:
    """Worst-case (differential privacy) δ(ε) of Laplace noise of scale ν·s (§5).

    For ``y + N`` against ``y + s + N`` with ``N ~ Laplace(ν s)`` the privacy loss lies in
    [−1/ν, 1/ν] and::

        δ(ε) = 1 − exp((ε − 1/ν)/2)  for ε < 1/ν,   0 otherwise,

    computed as ``−expm1((ε − 1/ν)/2)``.  So the mechanism is (1/ν, 0)-DP (and, Lemma 5,
    (1/ν, 0)-statistically private).

    Parameters
    ----------
    eps
        ε ≥ 0, scalar or array.
    noise_multiplier
        ν ≥ 0.01.
    """
    flat, shape, scalar = _flat_eps(eps)
    nu = _check_nu(noise_multiplier)
    val = np.where(flat < 1.0 / nu, -np.expm1(np.minimum(flat - 1.0 / nu, 0.0) / 2.0), 0.0)
    return _finish_flat(val, shape, scalar)


def delta_dp_subsampling(n: int, m: int, eps: ArrayLike) -> FloatOrArray:
    """Worst-case (differential privacy) δ(ε) of the noiseless sample answer: λ = m/n.

    Against an adversary who knows every other record the exact answer gives the critical
    record away (δ = 1 for every ε, the case m = n).  Answering from a sample of m records
    hides it only when it is not drawn: writing both answer distributions as
    ``λ·A± + (1 − λ)·C`` with C common gives δ ≤ λ, and a database whose other records are all
    negative attains it (the answer is positive only if the critical record is drawn), so
    ``δ(ε) = λ`` for every ε ≥ 0 (compare §6: subsampling turns (ε, δ) into
    (log(1 + λ(e^ε − 1)), λδ), here with δ = 1).

    Parameters
    ----------
    n
        Number of records.
    m
        Sample size, 1 ≤ m ≤ n.
    eps
        ε ≥ 0, scalar or array.
    """
    n = _check_n(n)
    m = _check_m(m, n)
    flat, shape, scalar = _flat_eps(eps)
    return _finish_flat(np.full(flat.shape, m / n), shape, scalar)
