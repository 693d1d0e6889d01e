"""Exact privacy profiles of the Gaussian mechanism under sampling, and what they buy.

A mechanism's *privacy profile* is ``δ(ε) = sup H_{e^ε}(M(D) ‖ M(D'))`` over neighbours,
with the hockey-stick divergence ``H_α(μ ‖ ν) = ∫ (dμ − α dν)_+`` (Balle, Barthe &
Gaboardi 2018, Section 2).  ``M`` is ``(ε, δ)``-DP exactly when ``δ(ε) ≤ δ``.  This module
gives the profile of Gaussian noise on a statistic of sensitivity 1 (``σ`` is the noise's
standard deviation divided by the sensitivity; for the Gaussian mean ``σ = sd / (R / n)``)
when the statistic runs on

* a **Poisson sample** of rate ``r`` (each record in with probability ``r``), for an added
  or removed record (:func:`poisson_delta`); and
* a **simple random sample** of ``n = r N`` records without replacement, for a changed
  record (:func:`srs_delta`), the case of :class:`core.mechanisms.GaussianMean`.

Both are closed forms in ``Φ``, so no privacy loss distribution (PLD) has to be built: one
evaluation takes microseconds, where a PLD of the same mechanism from Google's
``dp_accounting`` takes tens of milliseconds; the tests check the closed forms against
``dp_accounting``'s PLDs (pessimistic and optimistic) and its per-direction integrals.

What they buy: nothing for one release of the analytically calibrated Gaussian mean
-------------------------------------------------------------------------------------
Both profiles equal ``r · δ_G(ε_s)`` at ``ε_s = ln(1 + (e^ε − 1) / r)``, where ``δ_G``
is the unsampled Gaussian's exact profile (Balle & Wang 2018, Theorem 8). That is the
generic amplification theorem (Balle, Barthe & Gaboardi 2018, for Poisson sampling and
sampling without replacement; Hu, Drechsler & Kim Theorem 1: ``ε_target = ln(1 + r
(e^ε_sample − 1))``, ``δ_target = r δ_sample``) applied at the single point ``(ε_sample,
δ_G(ε_sample))`` -- and the analytic Gaussian mechanism calibrates ``σ`` so that
``δ_G(ε_sample) = δ_sample`` exactly. So the planner's budget for the Gaussian mean on a
simple random sample, ``ε_sample = ln(1 + (e^ε_target − 1) / r)`` with ``δ_sample =
δ_target / r``, is already the largest any accounting of one release can give:
:func:`exact_budget` finds the same ``ε_sample`` (the tests check it to 1e-8 over a
grid), and is larger only where the planner caps ``δ_sample`` at 0.5 (``δ_target > r /
2``). Privacy loss distributions gain over the generic theorem under *composition* (many
releases of one sample) and for mechanisms calibrated by a loose bound, neither of which
the planner's Gaussian mean is.

Proofs
------
Write ``P = N(0, σ²)``, ``Q = N(1, σ²)``, ``α = e^ε``.

*Gaussian* (Balle & Wang 2018, Theorem 8): the loss ``ln(p / q)(x) = (1 − 2x) / (2σ²)``
decreases in ``x``, so the optimal set of ``H_α(P ‖ Q)`` is ``{x < 1/2 − εσ²}`` and
``δ_G(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)``, for every real ``ε``; by symmetry
``H_α(Q ‖ P)`` is the same.

*The mixture identity*: for ``α' ≥ 1`` and ``α = 1 + (α' − 1) / r``,
``H_α'((1 − r) ν + r μ ‖ ν) = sup_E [r μ(E) − (α' − 1 + r) ν(E)] = r H_α(μ ‖ ν)``.

*Poisson, added or removed record* (the dominating pairs of Poisson subsampling in Zhu,
Dong & Wang 2022, "Optimal accounting of differential privacy via characteristic
function"; the pairs of ``dp_accounting``'s ``GaussianPrivacyLoss``): with
``D' = D ∪ {z}``, the sample of ``D'`` is that of ``D`` plus ``z`` with probability ``r``,
independently.  Conditioning on the sample ``S`` of ``D`` (joint convexity of ``H_α'``)
and translating by the statistic on ``S``, the outputs are ``(1 − r) N(0, σ²) +
r N(v, σ²)`` against ``N(0, σ²)`` with ``|v| ≤ 1``.  *Removal*: by the identity the
divergence is ``r H_α(N(v) ‖ N(0))``.  *Addition*: ``H_α'(N(0) ‖ (1 − r) N(0) + r N(v))
= ∫ (c p − α' r q_v)_+`` with ``c = 1 − α'(1 − r)``: 0 when ``c ≤ 0``, else
``c H_β(N(0) ‖ N(v))`` with ``β = α' r / c``.  Both are largest at ``|v| = 1``: the pair
``(N(0, σ²), N(v, σ²))`` is the image of ``(N(0, σ²), N(1, σ²))`` under
``x ↦ v x + N(0, σ²(1 − v²))``, and post-processing never increases ``H_β``; at
``|v| = 1`` they are ``r δ_G(ln α)`` and ``c δ_G(ln β)``.
The profile is the larger of the two (:func:`poisson_delta`).  The addition term never
exceeds the removal term (checked on a grid by the tests), so ``poisson_delta`` is
``r δ_G(ε_s)`` as well.

*Simple random sample, changed record* (the mean of a fixed-size sample, Gaussian noise;
the skeleton of Balle, Barthe & Gaboardi's 2018 bound for sampling without replacement):
``D`` and ``D'`` differ in record ``i``; in units of the sensitivity ``R / n`` a record
``j`` moves the statistic by ``u_j`` and ``|u_j − u_k| ≤ 1`` for every two values. Draw
the sample as ``T`` (``n − 1`` records other than ``i``, uniform) and then ``i`` with
probability ``r``, else a uniform other record ``j ∉ T``: this is a uniform
``n``-subset. So ``M(D) = E_T [(1 − r) ν_T + r N(t + u_i)]`` and ``M(D')`` the same with
``u_i'``, where ``ν_T = E_j N(t + u_j)`` is common to both. Joint convexity over ``T``
and the advanced joint convexity of Balle et al. (``β = α' / α``) give ``H_α'(M(D) ‖
M(D')) ≤ r H_α(N(u_i) ‖ (1 − β) ν + β N(u_i'))`` ``≤ r [(1 − β) max_j H_α(N(u_i) ‖
N(u_j)) + β H_α(N(u_i) ‖ N(u_i'))] ≤ r δ_G(ln α)``.
It is attained: record ``i`` at the lower bound in ``D`` and at the upper bound in
``D'``, every other record at the upper bound, so ``M(D') = N(1)`` (in units, up to a
shift) and ``M(D) = (1 − r) N(1) + r N(0)``, whose divergence is ``r δ_G(ln α)`` by the
identity.  Hence :func:`srs_delta` ``= r δ_G(ε_s)`` exactly (``1 ≤ n < N``).  The pair
is the removal pair of Poisson sampling, ``((1 − r) Q + r P, Q)``, as in the dominating
pairs of sampling without replacement under substitution (Zhu, Dong & Wang 2022; Lebeda,
Regehr, Kamath & Steinke 2024, who show that under *Poisson* sampling a substitution needs
the mixture-against-mixture pair instead, ``dp_accounting``'s ``REPLACE`` adjacency: that
pair is not used here).  The tests
check both the bound and the equality on every sample of tiny populations.

Inverses
--------
The profile decreases in ``σ`` (``N(0, σ'²)`` is ``N(0, σ²)`` plus independent noise for
``σ' > σ``: post-processing) and in ``ε``, so :func:`sigma_for` (the least noise meeting
``(ε_target, δ_target)``) and :func:`eps_target_for` (the least ``ε_target`` a noise meets)
are found by Brent's method on the closed forms, in about a millisecond: no grid is
needed (``python -m bench.bench_gaussian_profile``; :func:`exact_budget` caches its answers,
a few microseconds when asked again).  :func:`exact_budget` turns the noise into the pair
``(ε_sample, δ_sample)`` the Gaussian mean calibrates with (it keeps the design's
``δ_sample`` and finds the largest ``ε_sample`` whose analytic ``σ`` is still at least the
exact noise) and says which bound gave it.

The smooth-sensitivity Laplace quantile (:class:`core.mechanisms.SmoothLaplaceQuantile`)
stays on the generic theorem: its ``(ε, δ)`` guarantee comes from the smooth-sensitivity
argument (Nissim, Raskhodnikova & Smith 2007, Lemma 2.6), a bound whose noise scale
depends on the data through the smooth sensitivity of each neighbour, and no dominating
pair of distributions is known for it, so no exact profile can be stated.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from .. import amplification as amp
from .._validation import (
    FloatArray,
    check_choice,
    check_delta_open,
    check_nonnegative,
    finite_scalar,
)

__all__ = [
    "DESIGNS",
    "GaussianBudget",
    "eps_target_for",
    "exact_budget",
    "gaussian_delta",
    "poisson_add_delta",
    "poisson_delta",
    "poisson_remove_delta",
    "profile_delta",
    "sigma_for",
    "srs_delta",
]

#: The sampling schemes with an exact profile: Poisson (added or removed record) and the
#: simple random sample without replacement (changed record).
DESIGNS = ("poisson", "srs")

#: Relative tolerance of the inverses (Brent's method on ``log σ`` and on ``ε``).
_RTOL = 1e-13

EXACT_BOUND = "exact privacy loss distribution"
GENERIC_BOUND = "generic theorem"


def _sigma_array(sigma: ArrayLike) -> FloatArray:
    s = np.asarray(sigma, dtype=np.float64)
    if not np.all(np.isfinite(s) & (s > 0)):
        raise ValueError(f"sigma must be finite and > 0; got {sigma!r}")
    return s


def _rate(rate: float) -> float:
    r = finite_scalar("rate", rate)
    if not 0.0 < r <= 1.0:
        raise ValueError(f"rate must be in the interval (0, 1]; got {rate!r}")
    return r


def gaussian_delta(eps: ArrayLike, sigma: ArrayLike) -> FloatArray:
    """``δ_G(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)``: Gaussian noise, sensitivity 1.

    The exact privacy profile of adding ``N(0, σ²)`` to a statistic of sensitivity 1
    (Balle & Wang 2018, Theorem 8; module docstring), for every real ``ε`` (negative ``ε``
    is used by :func:`poisson_add_delta`).  Evaluated as ``Φ(a) (1 − e^{ε + log Φ(b) −
    log Φ(a)})`` with ``log_ndtr`` and ``expm1``, so ``ε = 1000`` does not overflow and
    ``ε = 1e-12`` keeps its digits.

    Parameters
    ----------
    eps : array_like
        Real numbers (finite).
    sigma : array_like
        Noise standard deviation over the sensitivity, finite and > 0 (broadcast).

    Returns
    -------
    ndarray
        ``δ_G`` in [0, 1], the broadcast shape.
    """
    e = np.asarray(eps, dtype=np.float64)
    if not np.all(np.isfinite(e)):
        raise ValueError(f"eps must be finite; got {eps!r}")
    s = _sigma_array(sigma)
    a = 0.5 / s - e * s
    b = -0.5 / s - e * s
    la = special.log_ndtr(a)
    gap = np.minimum(e + special.log_ndtr(b) - la, 0.0)
    return np.asarray(np.clip(np.exp(la) * -np.expm1(gap), 0.0, 1.0), dtype=np.float64)


def _base_eps(eps: FloatArray, r: float) -> FloatArray:
    """``ln(1 + (e^ε − 1) / r)`` for ``ε ≥ 0``, overflow-free (as :func:`amp.eps_sample`).

    ``log1p(expm1(ε) / r)`` up to ``ε = 700``; beyond, ``ε − ln r + ln(1 − (1 − r) e^{−ε})``.
    """
    small = np.minimum(eps, 700.0)
    direct = np.log1p(np.expm1(small) / r)
    far = eps - math.log(r) + np.log1p(-(1.0 - r) * np.exp(-eps))
    return np.asarray(np.where(eps > 700.0, far, direct), dtype=np.float64)


def poisson_remove_delta(eps: ArrayLike, sigma: float, rate: float) -> FloatArray:
    """Removal direction under Poisson sampling: ``r δ_G(ln(1 + (e^ε − 1) / r))``.

    ``H_{e^ε}((1 − r) N(0, σ²) + r N(1, σ²) ‖ N(0, σ²))`` (module docstring, the mixture
    identity); ``ε ≥ 0``.
    """
    r = _rate(rate)
    e = check_nonnegative("eps", eps)
    return np.asarray(r * gaussian_delta(_base_eps(e, r), sigma), dtype=np.float64)


def poisson_add_delta(eps: ArrayLike, sigma: float, rate: float) -> FloatArray:
    """Addition direction under Poisson sampling: ``H_{e^ε}(N(0) ‖ (1 − r) N(0) + r N(1))``.

    ``c δ_G(ln(e^ε r / c))`` with ``c = 1 − e^ε (1 − r)`` when ``c > 0``, else 0 (module
    docstring); ``ε ≥ 0``.
    """
    r = _rate(rate)
    e = check_nonnegative("eps", eps)
    with np.errstate(divide="ignore"):
        log_kept = e + math.log1p(-r) if r < 1.0 else np.full_like(e, -np.inf)
    live = log_kept < 0
    c = -np.expm1(np.where(live, log_kept, 0.0))  # 1 − e^ε (1 − r), > 0 where live
    out = np.zeros_like(e)
    if live.any():
        shifted = e[live] + math.log(r) - np.log(c[live])
        out[live] = c[live] * gaussian_delta(shifted, sigma)
    return out


def poisson_delta(eps: ArrayLike, sigma: float, rate: float) -> FloatArray:
    """Exact profile of the Poisson-subsampled Gaussian, added or removed record.

    The larger of :func:`poisson_remove_delta` and :func:`poisson_add_delta` (Zhu, Dong &
    Wang 2022; proved in the module docstring).  ``ε ≥ 0``, ``σ > 0``, ``rate`` in (0, 1].
    """
    return np.maximum(poisson_remove_delta(eps, sigma, rate), poisson_add_delta(eps, sigma, rate))


def srs_delta(eps: ArrayLike, sigma: float, rate: float) -> FloatArray:
    """Exact profile of a fixed-size sample's mean with Gaussian noise, changed record.

    ``r δ_G(ln(1 + (e^ε − 1) / r))`` for a simple random sample of ``n = r N`` records
    without replacement (``1 ≤ n < N``, or ``r = 1``), ``σ`` in units of the mean's
    sensitivity ``R / n``: the upper bound by (advanced) joint convexity and its equality
    on a two-valued population are proved in the module docstring.
    """
    return poisson_remove_delta(eps, sigma, rate)


def profile_delta(eps: ArrayLike, sigma: float, rate: float, design: str) -> FloatArray:
    """:func:`poisson_delta` or :func:`srs_delta` by ``design`` (``"poisson"``, ``"srs"``)."""
    check_choice("design", design, DESIGNS)
    return poisson_delta(eps, sigma, rate) if design == "poisson" else srs_delta(eps, sigma, rate)


def _profile(eps: float, sigma: float, rate: float, design: str) -> float:
    return float(profile_delta(np.array([eps]), sigma, rate, design)[0])


def sigma_for(eps_target: float, delta_target: float, rate: float, design: str) -> float:
    """The least noise (in units of the sensitivity) meeting ``(ε_target, δ_target)``.

    The smallest ``σ`` with ``profile_delta(ε_target; σ) ≤ δ_target`` (module docstring:
    the profile decreases in ``σ``), by Brent's method on ``log σ`` to a relative 1e-13,
    rounded up so the returned ``σ`` meets the target.  0 when ``δ_target`` is at least the
    profile's limit as ``σ → 0`` (``r``: sampling alone meets it).

    Raises
    ------
    ValueError
        For ``ε_target`` not finite and ≥ 0, ``δ_target`` outside (0, 1), a rate outside
        (0, 1] or an unknown design.
    """
    e = float(check_nonnegative("eps_target", eps_target))
    d = check_delta_open("delta_target", delta_target)
    r = _rate(rate)
    check_choice("design", design, DESIGNS)
    if d >= r:
        return 0.0

    def excess(log_s: float) -> float:
        return math.log(max(_profile(e, math.exp(log_s), r, design), 1e-320)) - math.log(d)

    lo, hi = -1.0, 1.0
    while excess(lo) <= 0:
        lo -= 2.0
    while excess(hi) > 0:
        hi += 2.0
    root = optimize.brentq(excess, lo, hi, xtol=1e-15, rtol=_RTOL)
    s = math.exp(root) * (1.0 + 4 * _RTOL)
    while _profile(e, s, r, design) > d:  # make sure the returned noise meets the target
        s *= 1.0 + 1e-12
    return s


def eps_target_for(sigma: float, delta_target: float, rate: float, design: str) -> float:
    """The least ``ε_target ≥ 0`` that noise ``σ`` meets at ``δ_target`` (exact profile).

    The smallest ``ε`` with ``profile_delta(ε; σ) ≤ δ_target`` (the profile decreases in
    ``ε``), by Brent's method to a relative 1e-13 and rounded up.
    """
    s = float(_sigma_array(sigma))
    d = check_delta_open("delta_target", delta_target)
    r = _rate(rate)
    check_choice("design", design, DESIGNS)
    if _profile(0.0, s, r, design) <= d:
        return 0.0

    def excess(e: float) -> float:
        return _profile(e, s, r, design) - d

    hi = 1.0
    while excess(hi) > 0:
        hi *= 2.0
    eps = optimize.brentq(excess, 0.0, hi, xtol=1e-300, rtol=_RTOL) * (1.0 + 4 * _RTOL)
    while excess(eps) > 0:
        eps *= 1.0 + 1e-12
    return eps


@dataclass(frozen=True)
class GaussianBudget:
    """What the Gaussian mean may spend on the sample for ``(ε_target, δ_target)``.

    Attributes
    ----------
    eps_sample : float
        The larger of :attr:`exact_eps_sample` and :attr:`generic_eps_sample`.
    delta_sample : float
        The ``δ_sample`` the mean calibrates ``σ`` with (the design's, unchanged).
    bound : str
        ``"exact privacy loss distribution"`` when the exact profile gives more, else
        ``"generic theorem"``.
    generic_eps_sample : float
        ``ln(1 + (e^ε_target − 1) / r)`` (Balle, Barthe & Gaboardi 2018).
    exact_eps_sample : float
        The largest ``ε_sample`` whose analytic ``σ`` at ``δ_sample`` is at least
        :func:`sigma_for` (``inf`` when sampling alone meets ``δ_target``).
    sigma : float
        :func:`sigma_for`, in units of the sensitivity.
    """

    eps_sample: float
    delta_sample: float
    bound: str
    generic_eps_sample: float
    exact_eps_sample: float
    sigma: float

    @property
    def gain(self) -> str:
        """``"ε_sample 1.9 (exact privacy loss distribution) instead of 1.4 (generic
        theorem)"`` when the exact profile gives more, else an empty string."""
        if self.bound != EXACT_BOUND:
            return ""
        return (
            f"ε_sample {self.eps_sample:.3g} ({EXACT_BOUND}) instead of "
            f"{self.generic_eps_sample:.3g} ({GENERIC_BOUND})"
        )


def exact_budget(
    eps_target: float,
    delta_target: float,
    rate: float,
    design: str,
    delta_sample: float | None = None,
) -> GaussianBudget:
    """``(ε_sample, δ_sample)`` for the analytically calibrated Gaussian mean, exact profile.

    The Gaussian mean adds ``σ = σ_BW(ε_sample, δ_sample)`` (Balle & Wang's smallest noise,
    :func:`core.mechanisms.analytic_gaussian_sigma`).  With ``σ* = sigma_for(ε_target,
    δ_target)``, any ``ε_sample`` with ``σ_BW(ε_sample, δ_sample) ≥ σ*`` keeps the target;
    since ``σ_BW(ε, δ) ≥ σ*`` exactly when ``δ_G(ε; σ*) ≥ δ``, the largest is the root of
    ``δ_G(ε; σ*) = δ_sample`` (Brent's method).  The result is the larger of it and the
    generic theorem's ``ln(1 + (e^ε_target − 1) / r)``.  With ``delta_sample = δ_target /
    r ≤ 0.5`` the two agree (module docstring); they differ where the design caps
    ``δ_sample``.

    Parameters
    ----------
    eps_target : float
        Finite and > 0.
    delta_target : float
        In (0, 1).
    rate : float
        In (0, 1].
    design : str
        ``"srs"`` or ``"poisson"``.
    delta_sample : float, optional
        The design's ``δ_sample``, in (0, 1); ``min(δ_target / r, 0.5)`` by default (the
        simple random sample's, :meth:`core.designs.individual.SimpleRandom.delta_sample`).
    """
    t = finite_scalar("eps_target", eps_target)
    if not t > 0:
        raise ValueError(f"eps_target must be a finite number > 0; got {eps_target!r}")
    d = check_delta_open("delta_target", delta_target)
    r = _rate(rate)
    check_choice("design", design, DESIGNS)
    ds = min(d / r, 0.5) if delta_sample is None else check_delta_open("delta_sample", delta_sample)
    return _exact_budget(t, d, r, design, ds)


@functools.lru_cache(maxsize=4096)
def _exact_budget(t: float, d: float, r: float, design: str, ds: float) -> GaussianBudget:
    """:func:`exact_budget` on checked arguments, cached (the planner asks each rate once
    per mechanism and again when it refines its grid)."""
    generic = float(amp.eps_sample(t, r))
    sigma = sigma_for(t, d, r, design)
    if sigma == 0.0:
        exact = math.inf
    elif float(gaussian_delta(0.0, sigma)) <= ds:
        exact = 0.0  # even ε_sample → 0 calibrates less noise than σ*: no pair fits
    else:

        def excess(e: float) -> float:
            return float(gaussian_delta(e, sigma)) - ds

        hi = max(generic, 1.0)
        while excess(hi) > 0:
            hi *= 2.0
        exact = optimize.brentq(excess, 0.0, hi, xtol=1e-300, rtol=_RTOL) * (1.0 - 4 * _RTOL)
    better = exact > generic * (1.0 + 1e-9)
    return GaussianBudget(
        eps_sample=exact if better else generic,
        delta_sample=ds,
        bound=EXACT_BOUND if better else GENERIC_BOUND,
        generic_eps_sample=generic,
        exact_eps_sample=exact,
        sigma=sigma,
    )
