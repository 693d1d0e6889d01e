"""ε read as odds: how sure an attacker can become that a person's record is in the data.

An attacker thinks, before a release, that Alice's record is in the data with probability
``prior``.  After seeing the output of an ε-differentially private mechanism, Bayes' rule
multiplies the prior odds by the likelihood ratio of the output under "Alice in" against
"Alice out", and differential privacy caps that ratio at ``e^ε`` for every output.  Hence::

    posterior odds  <=  e^ε · prior odds,
    posterior       <=  e^ε·o / (1 + e^ε·o),   o = prior / (1 − prior),

which is the logistic function of ``ε + logit(prior)``.  The bound holds for every prior
and every attacker (the worst case over what the attacker already knows about everyone
else), and it is attained: randomized response with parameter ε, after the answer that
points towards "in", gives exactly this posterior.  This is the odds reading of
differential privacy used to explain ε to non-experts (Nanayakkara et al. 2023; the
Bayesian reading of the definition in Kasiviswanathan & Smith 2014).

δ > 0
-----
For an (ε, δ) guarantee no posterior below certainty holds for every output: the
guarantee lets a release give Alice's membership away with a chance of up to δ.  What
does hold is a tail bound on the privacy loss ``L = log(p_in(y)/p_out(y))``: the
guarantee for the event ``{L > ε}`` reads ``E_in[(1 − e^{ε−L}); L > ε] ≤ δ``, and on
``{L > ε + t}`` the integrand is at least ``1 − e^{−t}``, so::

    P_in(L > ε + t)  <=  δ / (1 − e^{−t})        for every t > 0

(:func:`excess_chance`).  Read as odds: the posterior stays below
``posterior_bound(eps + t, prior)`` except with that chance — for example the odds can
double beyond the ε bound (t = ln 2) with a chance of at most 2δ, and reach certainty
with a chance of at most δ.  The functions here return the ε bound itself (the δ = 0
number, exact for pure guarantees and attained by randomized response); ``delta`` is
accepted and checked so that a caller states which guarantee it reads, and it never
changes the number.  (The δ = 0 bound can be exceeded slightly with a large chance:
a post-processing may merge the disclosing outcomes with ordinary ones, so no
"except with chance δ" reading of the bound itself is exact.)

Naming: the functions take a bare ``eps`` because they apply to either budget — pass
``eps_target`` for what the population is promised, ``eps_sample`` for what the
mechanism spends on the sample (the latter is what an attacker who knows Alice was drawn
faces).

All functions broadcast with numpy rules, return a Python ``float`` for scalar arguments
and an ``ndarray`` otherwise, and raise ``ValueError`` naming a bad argument.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (
    FloatOrArray,
    all_scalar,
    broadcast,
    check_interval,
    check_nonnegative,
    finish,
    require,
)

__all__ = ["eps_for_posterior", "excess_chance", "posterior_bound", "posterior_increase"]


def _check_eps_prior(eps: ArrayLike, prior: ArrayLike, delta: float) -> tuple[np.ndarray, ...]:
    e = check_nonnegative("eps", eps)
    p = check_interval("prior", prior, 0.0, 1.0, meaning="a probability")
    check_interval("delta", delta, 0.0, 1.0, high_open=True, meaning="a failure probability")
    return broadcast(eps=e, prior=p)


def posterior_bound(eps: ArrayLike, prior: ArrayLike, delta: float = 0.0) -> FloatOrArray:
    """Largest posterior probability that a record is in the data after an ε-DP release.

    ``posterior = prior / (prior + (1 − prior)·e^−ε)``, equal to ``e^ε·o / (1 + e^ε·o)``
    with prior odds ``o = prior/(1 − prior)`` (Bayes' rule with the likelihood ratio capped
    at e^ε by the definition of differential privacy; Kasiviswanathan & Smith 2014).
    Written with ``e^−ε`` it neither overflows (ε = 1000 gives 1.0) nor cancels.

    Parameters
    ----------
    eps
        The privacy-loss parameter of the release, ≥ 0 (``eps_target`` or ``eps_sample``).
    prior
        The attacker's probability, before the release, that the record is in the data;
        in [0, 1] (0 and 1 stay where they are).
    delta
        The δ of an (ε, δ) guarantee, in [0, 1).  It does not change the number: for
        δ > 0 the bound can be exceeded on rare releases, by a factor ``e^t`` in the
        odds with a chance of at most ``δ/(1 − e^{−t})`` (:func:`excess_chance`; see
        the module docstring).

    Returns
    -------
    float or ndarray
        The bound, in [prior, 1]; a float for scalar arguments.

    Raises
    ------
    ValueError
        If ``eps`` is negative or not finite, ``prior`` is outside [0, 1] or ``delta``
        outside [0, 1).
    """
    scalar = all_scalar(eps, prior)
    e, p = _check_eps_prior(eps, prior, delta)
    return finish(p / (p + (1.0 - p) * np.exp(-e)), scalar)


def posterior_increase(eps: ArrayLike, prior: ArrayLike, delta: float = 0.0) -> FloatOrArray:
    """How far the posterior bound lies above the prior: ``posterior_bound − prior``.

    ``prior·(1 − prior)·(1 − e^−ε) / (prior + (1 − prior)·e^−ε)``, computed with
    ``−expm1(−ε)`` so that a tiny ε keeps its digits: at ε = 1e-12 the result is
    ``ε·prior·(1 − prior)`` to full precision, which the difference of two rounded
    probabilities cannot give.  Same arguments, same δ reading and same errors as
    :func:`posterior_bound`.
    """
    scalar = all_scalar(eps, prior)
    e, p = _check_eps_prior(eps, prior, delta)
    gain = p * (1.0 - p) * -np.expm1(-e) / (p + (1.0 - p) * np.exp(-e))
    return finish(gain, scalar)


def eps_for_posterior(prior: ArrayLike, posterior: ArrayLike) -> FloatOrArray:
    """The ε at which an attacker starting from ``prior`` can reach ``posterior``.

    The inverse of :func:`posterior_bound` in ε: ``ε = logit(posterior) − logit(prior)``,
    computed as ``log1p((posterior − prior) / (prior·(1 − posterior)))`` so that nearby
    probabilities do not cancel.  Any ε-DP release with a smaller ε keeps the attacker
    below ``posterior`` (for an (ε, δ) guarantee, up to the tail of :func:`excess_chance`).

    Parameters
    ----------
    prior
        The attacker's probability before the release, in (0, 1).
    posterior
        The probability the attacker must not reach, in [prior, 1).

    Returns
    -------
    float or ndarray
        ε ≥ 0; a float for scalar arguments.

    Raises
    ------
    ValueError
        If ``prior`` is outside (0, 1), ``posterior`` outside (0, 1) or below ``prior``.
    """
    scalar = all_scalar(prior, posterior)
    p = check_interval("prior", prior, 0.0, 1.0, low_open=True, high_open=True)
    q = check_interval("posterior", posterior, 0.0, 1.0, low_open=True, high_open=True)
    p, q = broadcast(prior=p, posterior=q)
    require("posterior", q, q >= p, "at least the prior")
    return finish(np.log1p((q - p) / (p * (1.0 - q))), scalar)


def excess_chance(delta: ArrayLike, extra_eps: ArrayLike) -> FloatOrArray:
    """Largest chance that an (ε, δ) release moves the odds by more than ``e^{ε + t}``.

    ``P_in(L > ε + t) ≤ δ / (1 − e^{−t})`` for the privacy loss ``L`` of any (ε, δ)-DP
    mechanism (see the module docstring), computed with ``−expm1(−t)``; capped at 1.
    ``t = ln 2`` (odds twice the ε bound) gives ``2δ``; ``t → ∞`` gives δ.

    Parameters
    ----------
    delta
        The δ of the guarantee, in [0, 1).
    extra_eps
        ``t > 0``: how far beyond ε the privacy loss goes (log of the extra odds factor).

    Returns
    -------
    float or ndarray
        The bound on the chance, in [0, 1]; a float for scalar arguments.

    Raises
    ------
    ValueError
        If ``delta`` is outside [0, 1) or ``extra_eps`` is not positive.
    """
    scalar = all_scalar(delta, extra_eps)
    d = check_interval("delta", delta, 0.0, 1.0, high_open=True, meaning="a failure probability")
    t = check_interval(
        "extra_eps", extra_eps, 0.0, np.inf, low_open=True, meaning="log of the extra odds factor"
    )
    d, t = broadcast(delta=d, extra_eps=t)
    return finish(np.minimum(1.0, d / -np.expm1(-t)), scalar)
