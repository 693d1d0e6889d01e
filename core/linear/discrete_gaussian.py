"""The discrete Gaussian N_Z(0, σ²) of Canonne, Kamath & Steinke (2020): law, sampler, privacy.

Definition (CKS20, Definition 1)
--------------------------------
``P[X = x] = e^{−x²/(2σ²)} / Z(σ)`` for every integer ``x``, with
``Z(σ) = Σ_{y ∈ ℤ} e^{−y²/(2σ²)}``.  Added to an integer statistic it keeps the release an
integer, so counts stay counts and no floating-point attack applies.

Normaliser and variance (Poisson summation)
-------------------------------------------
The Fourier transform of ``e^{−x²/(2σ²)}`` is ``σ√(2π) e^{−2π²σ²k²}`` and that of
``x² e^{−x²/(2σ²)}`` is ``σ³√(2π)(1 − 4π²σ²k²) e^{−2π²σ²k²}``; Poisson summation gives, with
``q_k = e^{−2π²σ²k²}``,

    Z(σ) = σ√(2π) (1 + 2 Σ_{k≥1} q_k),
    Var[X] = σ² (1 + 2 Σ_{k≥1} (1 − 4π²σ²k²) q_k) / (1 + 2 Σ_{k≥1} q_k).

Both dual sums are exact.  For ``σ > 1`` they are used (``q_k < 1e-300`` beyond ``k = 6``);
for ``σ ≤ 1`` the direct sums over the support (at most 80 terms) are used.  The variance is
below ``σ²`` (CKS20, Proposition 5: ``Var[X] ≤ σ²(1 − 4π²σ²/(e^{4π²σ²} − 1)) < σ²``) and
tends to it: for ``σ ≥ 6`` the two agree to double precision.

Truncation
----------
Direct sums run over ``|x| ≤ K = ⌈37.2 σ⌉ + 1``.  Since ``(K + 1 + j)² ≥ (K + 1)² + 2(K + 1)j``,
the mass left out is at most ``2 e^{−(K+1)²/(2σ²)} / (1 − e^{−(K+1)/σ²}) / Z`` and
``e^{−(K+1)²/(2σ²)} ≤ e^{−690.8} < 1e-300``; with ``Z ≥ 1`` and ``K + 1 ≥ 37σ`` this is below
``1e-300 · max(2, σ/18) ≤ 1e-296`` for ``σ ≤ 200`` (the direct branch below).  Probabilities
below ``1e-300`` are reported as 0.

Privacy
-------
*zCDP* (CKS20, Theorem 4): adding ``N_Z(0, σ²)`` to an integer statistic of sensitivity ``Δ``
is ``ρ``-zCDP with ``ρ = Δ²/(2σ²)``, the same as the continuous Gaussian.

*(ε, δ)-DP, exactly* (CKS20, Theorem 7): for integer ``Δ`` it is ``(ε, δ)``-DP with

    δ(ε) = P[X > εσ²/Δ − Δ/2] − e^ε P[X > εσ²/Δ + Δ/2],

and no smaller δ holds.  *Proof, and the stable form used.*  For neighbours whose statistics
differ by ``Δ`` the privacy loss at noise ``x`` is ``L(x) = ((x + Δ)² − x²)/(2σ²) =
(2xΔ + Δ²)/(2σ²)`` (by symmetry the other direction is the same), and the smallest δ is the
hockey-stick divergence ``Σ_x (P[X = x] − e^ε P[X = x + Δ])_+``.  The term is positive exactly
when ``L(x) > ε``, i.e. ``x > a = εσ²/Δ − Δ/2``, so

    δ(ε) = Σ_{x > a} P[X = x] (1 − e^{ε − L(x)}) = P[X > a] − e^ε P[X > a + Δ],

the theorem.  Every term of the first sum is non-negative, so it is summed as written with
``−expm1(ε − L(x))`` (no cancellation at tiny ε, no overflow of ``e^ε`` at ε = 1000).

Large σ (Euler–Maclaurin)
-------------------------
For ``σ > 200`` the sums have ``O(σ)`` terms; they are evaluated by the Euler–Maclaurin formula
``Σ_{x ≥ m} g(x) = ∫_m^∞ g + g(m)/2 − Σ_{k=1}^{4} B_{2k}/(2k)! g^{(2k−1)}(m) + R`` with
``g(x) = f(x)(1 − e^{ε − L(x)}) = f(x) − e^ε f(x + Δ)``, ``f(x) = e^{−x²/(2σ²)}``,
``f^{(j)}(x) = (−σ)^{−j} He_j(x/σ) f(x)`` (probabilists' Hermite polynomials).  The integral of
the non-negative ``g`` is taken by adaptive quadrature (relative accuracy 1e-13), not as a
difference of two ``erfc``.  The remainder is ``|R| ≤ 2ζ(8)/(2π)^8 ∫_m^∞ |g^{(8)}|``; with
``∫_ℝ |He_8(u)| e^{−u²/2} du ≤ √(8!)·√(2π)`` (Cauchy–Schwarz) each of the two Gaussian
pieces contributes at most ``8.3e-6 σ^{−7}``, so the error in a probability (divided by
``Z ≥ σ√(2π)``) is below ``3.3e-6 σ^{−8}·(1 + e^ε f(·+Δ)/f) ≤ 6.6e-6 σ^{−8} < 3e-24`` on
``x ≥ m > a`` (where ``e^ε f(x + Δ) ≤ f(x)``).  The tests compare both branches with direct
sums and with 50-digit sums.

References
----------
Canonne, C., Kamath, G. & Steinke, T. (2020). The discrete Gaussian for differential privacy.
NeurIPS 2020 (arXiv:2004.00010): Definition 1, Theorems 4 and 7, Proposition 5, Algorithm 3.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

import numpy as np
from numpy.polynomial import hermite_e
from numpy.typing import ArrayLike, NDArray
from scipy import integrate, special
from scipy.optimize import brentq

from .._validation import check_delta_open, check_rng, finite_scalar
from ..mechanisms.base import BudgetFactors
from .mechanisms import LinearMechanism, register

__all__ = [
    "NORMAL_RATIO",
    "SIGMA_DIRECT",
    "DiscreteGaussian",
    "abs_quantile",
    "below",
    "check_sensitivity",
    "delta_curve",
    "delta_for_eps",
    "gaussian_delta",
    "gaussian_sigma",
    "log_normaliser",
    "pmf",
    "rho_for_sigma",
    "sample",
    "sigma_for_eps_delta",
    "sigma_for_rho",
    "support_radius",
    "tail",
    "tails",
    "variance",
]

#: Largest σ whose sums are taken term by term (Euler–Maclaurin above it).
SIGMA_DIRECT = 200.0
#: ``√(2 ln 1e300)``: beyond ``K = ⌈_CUT σ⌉ + 1`` every term is below ``1e-300`` of the mode.
_CUT = math.sqrt(2.0 * 300.0 * math.log(10.0))
#: ``B_{2k}/(2k)!`` for k = 1..4 and the odd orders ``2k − 1`` of the derivatives they multiply.
_EM_COEFFS = (1.0 / 12.0, -1.0 / 720.0, 1.0 / 30240.0, -1.0 / 1209600.0)
_EM_ORDERS = (1, 3, 5, 7)
_LOG_TINY = math.log(1e-300)
#: Below this σ the search for σ visits the kinks of δ(σ) (δ may rise with σ there).
_SCAN_BELOW = 12.0
#: Above this σ the search starts from the continuous Gaussian's σ (:func:`_bracketed`).
_FAST_ABOVE = 2.0 * _SCAN_BELOW
#: Smallest ``s/w`` (sampling sd over the noise's weight) at which the 95 % bound's lattice
#: sum is replaced by the normal law (:meth:`DiscreteGaussian.error_bound`).
NORMAL_RATIO = 3.0


def _sigma(sigma: object) -> float:
    s = finite_scalar("sigma", sigma)
    if s <= 0.0:
        raise ValueError(f"sigma must be positive, got {s!r}")
    return s


def check_sensitivity(sensitivity: object) -> int:
    """The sensitivity as a positive integer (the discrete Gaussian needs an integer one)."""
    d = finite_scalar("sensitivity", sensitivity)
    if d <= 0.0 or d != math.floor(d):
        raise ValueError(
            f"the discrete Gaussian needs a positive whole-number sensitivity, got {d!r} "
            "(integer counts, or totals of integer values between integer bounds)"
        )
    return int(d)


def _eps(eps: object) -> float:
    e = finite_scalar("eps", eps)
    if e < 0.0:
        raise ValueError(f"eps must be non-negative, got {e!r}")
    return e


def support_radius(sigma: float) -> int:
    """``K = ⌈37.2 σ⌉ + 1``: the mass of ``|x| > K`` is below ``1e-296`` (module docstring)."""
    return math.ceil(_CUT * _sigma(sigma)) + 1


def _dual_terms(sigma: float) -> NDArray[np.float64]:
    """``q_k = e^{−2π²σ²k²}`` for the k ≥ 1 whose term exceeds ``1e-300``."""
    kmax = max(1, int(math.ceil(-_LOG_TINY / (2.0 * math.pi**2 * sigma**2)) ** 0.5) + 1)
    k = np.arange(1, kmax + 1, dtype=np.float64)
    return np.asarray(np.exp(-2.0 * math.pi**2 * sigma**2 * k * k), dtype=np.float64)


def log_normaliser(sigma: float) -> float:
    """``log Z(σ) = log Σ_y e^{−y²/(2σ²)}`` (direct for σ ≤ 1, Poisson dual above)."""
    return _log_normaliser(_sigma(sigma))


@functools.lru_cache(maxsize=256)
def _log_normaliser(s: float) -> float:
    if s <= 1.0:
        k = support_radius(s)
        x = np.arange(-k, k + 1, dtype=np.float64)
        return float(math.log(np.sum(np.exp(-x * x / (2.0 * s * s)))))
    q = _dual_terms(s)
    return math.log(s * math.sqrt(2.0 * math.pi)) + math.log1p(2.0 * float(np.sum(q)))


def _log_f(x: ArrayLike, sigma: float) -> NDArray[np.float64]:
    xa = np.asarray(x, dtype=np.float64)
    return np.asarray(-(xa * xa) / (2.0 * sigma * sigma), dtype=np.float64)


def pmf(sigma: float, support: ArrayLike) -> NDArray[np.float64]:
    """``P[X = x]`` at each integer of ``support`` (0 where it is below about 1e-308)."""
    s = _sigma(sigma)
    x = np.asarray(support, dtype=np.float64)
    if np.any(x != np.round(x)):
        raise ValueError("the discrete Gaussian's support holds whole numbers only")
    return np.asarray(np.exp(_log_f(x, s) - log_normaliser(s)), dtype=np.float64)


def variance(sigma: float) -> float:
    """``Var[X]``, exactly (module docstring); below ``σ²``, equal to it in doubles for σ ≥ 6."""
    s = _sigma(sigma)
    if s <= 1.0:
        k = support_radius(s)
        x = np.arange(-k, k + 1, dtype=np.float64)
        p = pmf(s, x)
        return float(np.sum(x * x * p) / np.sum(p))
    q = _dual_terms(s)
    k2 = np.arange(1, q.size + 1, dtype=np.float64) ** 2
    num = 1.0 + 2.0 * float(np.sum((1.0 - 4.0 * math.pi**2 * s * s * k2) * q))
    return s * s * num / (1.0 + 2.0 * float(np.sum(q)))


def _direct_sum(sigma: float, m: int, eps: float | None, sens: int) -> float:
    """``Σ_{x ≥ m} P[X = x] w(x)`` term by term; ``w = 1 − e^{ε − L(x)}`` or 1 (``eps`` None)."""
    k = support_radius(sigma)
    lo = max(m, -k)
    if lo > k:
        return 0.0
    x = np.arange(lo, k + 1, dtype=np.float64)
    terms = np.exp(_log_f(x, sigma) - log_normaliser(sigma))
    if eps is not None:
        terms = terms * -np.expm1(eps - (2.0 * x * sens + sens * sens) / (2.0 * sigma * sigma))
    return float(np.sum(terms[::-1]))  # smallest terms first


def _em_sum(sigma: float, m: int, eps: float | None, sens: int) -> float:
    """The same sum by Euler–Maclaurin (module docstring), scaled by ``f(max(m, 0))``."""
    lo = max(float(m), -math.ceil(_CUT * sigma) - 1.0)
    m0 = max(lo, 0.0)
    log_scale = float(_log_f(m0, sigma)) - log_normaliser(sigma)
    if log_scale < _LOG_TINY:
        return 0.0
    two_s2 = 2.0 * sigma * sigma

    def weight(x: float) -> float:
        return 1.0 if eps is None else -math.expm1(eps - (2.0 * x * sens + sens * sens) / two_s2)

    def g(u: float) -> float:  # g(lo + σu)/f(m0), times σ (dx = σ du)
        x = lo + sigma * u
        return sigma * math.exp((m0 * m0 - x * x) / two_s2) * weight(x)

    integral, _ = integrate.quad(g, 0.0, math.inf, epsabs=0.0, epsrel=1e-13, limit=200)
    f_lo = math.exp((m0 * m0 - lo * lo) / two_s2)
    total = integral + 0.5 * f_lo * weight(lo)
    u = lo / sigma
    shifted = None
    if eps is not None:  # e^ε f(lo + Δ)/f(m0) = f(lo)/f(m0) · e^{ε − L(lo)}
        shifted = f_lo * math.exp(eps - (2.0 * lo * sens + sens * sens) / two_s2)
    for c, j in zip(_EM_COEFFS, _EM_ORDERS, strict=True):
        basis = np.zeros(j + 1)
        basis[j] = 1.0
        deriv = (-1.0 / sigma) ** j * float(hermite_e.hermeval(u, basis)) * f_lo
        if shifted is not None:
            hu = float(hermite_e.hermeval((lo + sens) / sigma, basis))
            deriv -= (-1.0 / sigma) ** j * hu * shifted
        total -= c * deriv
    return max(total, 0.0) * math.exp(log_scale)


def _sum_from(sigma: float, m: int, eps: float | None, sens: int = 1) -> float:
    if sigma <= SIGMA_DIRECT:
        return _direct_sum(sigma, m, eps, sens)
    return _em_sum(sigma, m, eps, sens)


@functools.lru_cache(maxsize=64)
def _upper_tails(sigma: float) -> NDArray[np.float64]:
    """``P[X ≥ m]`` for ``m = 0, 1, …, K + 1`` (σ ≤ :data:`SIGMA_DIRECT`), summed from the
    smallest terms up."""
    k = support_radius(sigma)
    p = pmf(sigma, np.arange(0, k + 1))
    return np.append(np.cumsum(p[::-1])[::-1], 0.0)


def _em_tails(sigma: float, m: NDArray[np.float64]) -> NDArray[np.float64]:
    """``P[X ≥ m]`` for integers ``m ≥ 1`` by Euler–Maclaurin with ``g = f``: the integral is
    ``σ√(π/2) erfc(m/(σ√2))``, and ``Z = σ√(2π)`` to relative ``e^{−2π²σ²}``."""
    u = m / sigma
    f_over_z = np.exp(-0.5 * u * u - log_normaliser(sigma))
    total = 0.5 * special.erfc(u / math.sqrt(2.0)) + 0.5 * f_over_z
    for c, j in zip(_EM_COEFFS, _EM_ORDERS, strict=True):
        basis = np.zeros(j + 1)
        basis[j] = 1.0
        total -= c * (-1.0 / sigma) ** j * hermite_e.hermeval(u, basis) * f_over_z
    return np.asarray(np.maximum(total, 0.0), dtype=np.float64)


def tails(sigma: float, t: ArrayLike) -> NDArray[np.float64]:
    """``P[X > t]`` per entry of ``t`` (exact; 0 below 1e-300), vectorised.

    ``P[X > t] = P[X ≥ m]`` with ``m = ⌊t⌋ + 1``; for ``m ≤ 0`` it is ``1 − P[X ≥ 1 − m]``
    (symmetry), so only upper tails ``m ≥ 1`` are summed: from a cached table of the pmf for
    ``σ ≤ 200``, by Euler–Maclaurin in closed form above (module docstring).
    """
    s = _sigma(sigma)
    tt = np.asarray(t, dtype=np.float64)
    if not np.all(np.isfinite(tt)):
        raise ValueError("the points of a tail probability must be finite numbers")
    m = np.floor(tt) + 1.0
    small = m <= 0.0
    up = np.where(small, 1.0 - m, m)  # ≥ 1
    if s <= SIGMA_DIRECT:
        table = _upper_tails(s)
        idx = np.minimum(up, table.size - 1).astype(np.int64)
        upper = table[idx]
    else:
        upper = _em_tails(s, up)
    return np.asarray(np.where(small, 1.0 - upper, upper), dtype=np.float64)


def tail(sigma: float, t: float) -> float:
    """``P[X > t]`` for real ``t`` (:func:`tails` at one point)."""
    return float(tails(sigma, finite_scalar("t", t)))


def below(sigma: float, t: ArrayLike) -> NDArray[np.float64]:
    """``P[X < t]`` per entry of ``t`` (``= P[X > −t]`` by symmetry; the left-continuous CDF
    :func:`core.linear.postprocess.rounded_coverage` reads)."""
    return tails(sigma, -np.asarray(t, dtype=np.float64))


def delta_for_eps(eps: float, sigma: float, sensitivity: float = 1) -> float:
    """The exact δ of ``N_Z(0, σ²)`` at ``ε`` for an integer sensitivity (CKS20, Theorem 7).

    ``δ = Σ_{x > εσ²/Δ − Δ/2} P[X = x](1 − e^{ε − (2xΔ + Δ²)/(2σ²)})``, a sum of non-negative
    terms equal to ``P[X > εσ²/Δ − Δ/2] − e^ε P[X > εσ²/Δ + Δ/2]`` (module docstring).
    """
    e, s, d = _eps(eps), _sigma(sigma), check_sensitivity(sensitivity)
    a = e * s * s / d - d / 2.0
    return min(1.0, _sum_from(s, math.floor(a) + 1, e, d))


def delta_curve(eps: ArrayLike, sigma: float, sensitivity: float = 1) -> NDArray[np.float64]:
    """:func:`delta_for_eps` at each ``ε`` of ``eps``: the exact (ε, δ) curve of ``N_Z(0, σ²)``."""
    e = np.asarray(eps, dtype=np.float64)
    flat = [delta_for_eps(float(v), sigma, sensitivity) for v in e.ravel()]
    return np.asarray(flat, dtype=np.float64).reshape(e.shape)


def sigma_for_eps_delta(eps: float, delta: float, sensitivity: float = 1) -> float:
    """The smallest σ with ``δ(ε; σ) ≤ delta`` (to relative 1e-10), found by search.

    Unlike the continuous Gaussian's, the discrete Gaussian's δ is *not* monotone in σ when
    ``σ`` is a few lattice steps (the terms of the sum enter one integer at a time): at
    ε = 1.5, Δ = 1 it rises from 0.0381 at σ = 1 to 0.0387 at σ = 1.04 (the tests keep this
    example).  So the search is in two steps: a bisection in ``log σ`` on a bracket with
    ``δ(lo) > delta ≥ δ(hi)`` gives a σ that satisfies the bound; when it is below
    :data:`_SCAN_BELOW` (such rises were seen up to σ ≈ 7.6) the kinks of δ(σ) in
    ``[hi/4, hi]``, its local minima, are searched upwards (:func:`_smallest_on_the_lattice`).
    The σ returned always satisfies the bound.
    """
    e, d = _eps(eps), check_sensitivity(sensitivity)
    dl = check_delta_open("delta", delta)
    return _sigma_for_eps_delta(e, dl, d)


def _bisect(e: float, dl: float, d: int, lo: float, hi: float) -> float:
    """The upper end of ``[lo, hi]`` shrunk to relative 1e-10, keeping
    ``δ(lo) > dl ≥ δ(hi)``."""
    while hi / lo - 1.0 > 1e-10:
        mid = math.sqrt(lo * hi)
        if delta_for_eps(e, mid, d) <= dl:
            hi = mid
        else:
            lo = mid
    return hi


def gaussian_delta(eps: float, sigma: float, sensitivity: float) -> float:
    """The exact δ(ε) of the continuous Gaussian mechanism ``N(0, σ²)`` at sensitivity Δ:
    ``Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)`` (Balle & Wang 2018, Theorem 8), the second
    term as ``exp(ε + log Φ(·))`` (no overflow at ε = 1000)."""
    a = sensitivity / (2.0 * sigma)
    b = eps * sigma / sensitivity
    return float(special.ndtr(a - b) - math.exp(eps + float(special.log_ndtr(-a - b))))


def gaussian_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """The analytic Gaussian mechanism's σ: the root of :func:`gaussian_delta` = δ, which
    decreases in σ (Balle & Wang 2018, Algorithm 1), by Brent's method in ``log σ``."""
    guess = sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / eps
    lo = hi = math.log(guess)
    while gaussian_delta(eps, math.exp(hi), sensitivity) > delta:
        hi += 1.0
    while gaussian_delta(eps, math.exp(lo), sensitivity) <= delta and lo > hi - 200.0:
        lo -= 1.0
    gap = lambda t: gaussian_delta(eps, math.exp(t), sensitivity) - delta  # noqa: E731
    if gap(lo) <= 0.0:
        return math.exp(lo)
    return math.exp(brentq(gap, lo, hi, xtol=1e-12, rtol=1e-14))


def _bracketed(e: float, dl: float, d: int, start: float) -> float | None:
    """The smallest σ with ``δ(σ) ≤ dl`` near ``start`` (the continuous Gaussian's σ), where
    δ decreases in σ (σ above :data:`_SCAN_BELOW`), or None to search from scratch.

    The bracket ``[start/(1 + g), start(1 + g)]`` is widened (``g`` from 1e-9, ×16; the two
    σ differ by about 1e-11 relative at σ = 5·10⁴, 3e-5 at σ = 30) until
    ``δ(lo) > dl ≥ δ(hi)``; Brent's method finds the root of ``δ − dl`` in ``log σ`` to
    ``1e-11``, and the σ returned is moved up from it (relative steps ``1e-11``, growing ×4)
    until it satisfies ``δ(σ) ≤ dl`` as computed exactly (or reaches ``hi``, which does), so
    it keeps the guarantee and lies within relative ``1e-9`` of the smallest such σ.
    """
    gap = 1e-9
    for _ in range(10):
        lo, hi = start / (1.0 + gap), start * (1.0 + gap)
        if lo <= _FAST_ABOVE:
            return None
        above, below_ = delta_for_eps(e, lo, d) - dl, delta_for_eps(e, hi, d) - dl
        if above > 0.0 and below_ <= 0.0:
            break
        gap *= 16.0
    else:
        return None
    root = brentq(
        lambda t: delta_for_eps(e, math.exp(t), d) - dl,
        math.log(lo),
        math.log(hi),
        xtol=1e-11,
        rtol=1e-14,
    )
    step = 1e-11
    sigma = math.exp(root) * (1.0 + step)
    while sigma < hi and delta_for_eps(e, sigma, d) > dl:
        step *= 4.0
        sigma = math.exp(root) * (1.0 + step)
    return min(sigma, hi)  # δ(hi) ≤ dl


@functools.lru_cache(maxsize=4096)
def _sigma_for_eps_delta(e: float, dl: float, d: int) -> float:
    if e > 0.0:
        start = gaussian_sigma(e, dl, d)
        if start > 2.0 * _FAST_ABOVE:
            fast = _bracketed(e, dl, d, start)
            if fast is not None:
                return fast
    if e == 0.0 and dl < 1.0:
        guess = d / dl
    else:
        guess = d * math.sqrt(2.0 * math.log(1.25 / dl)) / max(e, 1e-300)
    guess = max(guess, 1e-3 * d)
    hi = guess
    while delta_for_eps(e, hi, d) > dl:
        hi *= 4.0
    lo = hi / 4.0
    while lo > 1e-6 * d and delta_for_eps(e, lo, d) <= dl:
        hi, lo = lo, lo / 4.0
    if delta_for_eps(e, lo, d) <= dl:
        return lo
    hi = _bisect(e, dl, d, lo, hi)
    if hi > _SCAN_BELOW or e == 0.0:
        return hi
    return _smallest_on_the_lattice(e, dl, d, hi)


def _smallest_on_the_lattice(e: float, dl: float, d: int, hi: float) -> float:
    """The smallest σ in ``[hi/4, hi]`` with ``δ ≤ dl``, from the kinks of δ(σ).

    ``δ(σ)`` is smooth except where ``a(σ) = εσ²/Δ − Δ/2`` crosses an integer ``j`` (a term
    leaves the sum, with weight 0, so δ is continuous there): at ``σ_j = √((j + Δ/2)Δ/ε)``.
    Between kinks the terms that remain first grow with σ and then fall, so δ may rise after
    a kink; the local minima are the kinks.  The first kink ``σ_j`` with ``δ ≤ dl`` ends the
    piece holding the smallest solution, found by bisection from the kink before it.
    """
    start = hi / 4.0
    j0 = max(0, math.ceil(e * start * start / d - d / 2.0))
    j1 = math.floor(e * hi * hi / d - d / 2.0)
    if j1 - j0 > 5000 or delta_for_eps(e, start, d) <= dl:
        return hi
    prev = start
    for j in range(j0, j1 + 1):
        kink = math.sqrt((j + d / 2.0) * d / e)
        if kink <= prev:
            continue
        if kink >= hi:
            break
        if delta_for_eps(e, kink, d) <= dl:
            return min(hi, _bisect(e, dl, d, prev, kink))
        prev = kink
    return hi


def rho_for_sigma(sigma: float, sensitivity: float = 1) -> float:
    """``ρ = Δ²/(2σ²)``: the zCDP of ``N_Z(0, σ²)`` at integer sensitivity Δ (CKS20, Thm 4)."""
    s, d = _sigma(sigma), check_sensitivity(sensitivity)
    return d * d / (2.0 * s * s)


def sigma_for_rho(rho: float, sensitivity: float = 1) -> float:
    """``σ = Δ/√(2ρ)``: the smallest σ that is ρ-zCDP."""
    r = finite_scalar("rho", rho)
    if r <= 0.0:
        raise ValueError(f"rho must be positive, got {r!r}")
    return check_sensitivity(sensitivity) / math.sqrt(2.0 * r)


def abs_quantile(sigma: float, level: float) -> float:
    """The smallest integer ``x ≥ 0`` with ``P(|X| ≤ x) ≥ level``.

    ``P(|X| ≤ x) = 1 − 2 P(X > x)`` by symmetry; bisection over ``[0, K]``.
    """
    s = _sigma(sigma)
    lv = finite_scalar("level", level)
    if not 0.0 < lv < 1.0:
        raise ValueError(f"level must lie strictly between 0 and 1, got {lv!r}")
    if 1.0 - 2.0 * tail(s, 0.0) >= lv:
        return 0.0
    lo, hi = 0, support_radius(s)
    while hi - lo > 1:  # P(|X| ≤ lo) < level ≤ P(|X| ≤ hi)
        mid = (lo + hi) // 2
        if 1.0 - 2.0 * tail(s, mid) >= lv:
            hi = mid
        else:
            lo = mid
    return float(hi)


def sample(rng: np.random.Generator, sigma: float, size: int) -> NDArray[np.int64]:
    """``size`` independent draws of ``N_Z(0, σ²)`` (CKS20, Algorithm 3, vectorised).

    A discrete Laplace proposal ``Y`` with ``P[Y = y] ∝ e^{−|y|/t}``, ``t = ⌊σ⌋ + 1`` (the
    difference of two geometric variables), accepted with probability
    ``exp(−(|Y| − σ²/t)²/(2σ²))``; the accepted ``Y`` follow the discrete Gaussian exactly
    (CKS20, Proposition 14; acceptance rate above 0.4 for every σ).
    """
    gen = check_rng(rng)
    s = _sigma(sigma)
    if size < 0:
        raise ValueError(f"size must be non-negative, got {size!r}")
    t = math.floor(s) + 1.0
    p = -math.expm1(-1.0 / t)
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        want = max(16, int(1.3 * (size - filled) / 0.4))
        y = (gen.geometric(p, want) - gen.geometric(p, want)).astype(np.int64)
        keep = gen.random(want) < np.exp(-((np.abs(y) - s * s / t) ** 2) / (2.0 * s * s))
        acc = y[keep][: size - filled]
        out[filled : filled + acc.size] = acc
        filled += acc.size
    return out


class DiscreteGaussian(LinearMechanism):
    """``Z ~ N_Z(0, σ²)``: the (ε, δ) σ of CKS20 Theorem 7, or ``σ = Δ/√(2ρ)`` for ρ-zCDP.

    Budgets.  The δ of the discrete Gaussian at a given ε grows with the integer sensitivity
    (checked in the tests), so noise calibrated to ``Δ_rel`` keeps the same ``(ε, δ)`` for
    every relation whose sensitivity is not larger: that relation's factor is 1.  A relation
    with a larger sensitivity gets no factor (None): its ``(ε, δ)`` is not a multiple of
    ``eps_sample``.
    """

    name = "discrete_gaussian"
    label = "discrete Gaussian"
    integer = True
    uses_delta = True
    zcdp = True

    def budget_factors(self, sensitivities: Mapping[str, float], relation: str) -> BudgetFactors:
        cal = float(sensitivities[relation])
        ar = 1.0 if float(sensitivities["deletion"]) <= cal else None
        ch = 1.0 if float(sensitivities["replacement"]) <= cal else None
        return BudgetFactors(self.name, ar, ch)

    def parameter(self, eps: float, delta: float | None, sensitivity: float) -> float:
        if delta is None:
            raise ValueError("the discrete Gaussian needs a δ above 0 for an (ε, δ) promise")
        return sigma_for_eps_delta(eps, delta, sensitivity)

    def parameter_for_rho(self, rho: float, sensitivity: float) -> float:
        """``σ = Δ/√(2ρ)`` for a ρ-zCDP promise (CKS20, Theorem 4)."""
        return sigma_for_rho(rho, sensitivity)

    def variance(self, parameter: float) -> float:
        return variance(parameter)

    def abs_quantile(self, parameter: float, level: float) -> float:
        return abs_quantile(parameter, level)

    def cdf(self, parameter: float, x: ArrayLike) -> NDArray[np.float64]:
        """``P(Z ≤ x) = P(Z < ⌊x⌋ + 1)``."""
        return below(parameter, np.floor(np.asarray(x, dtype=np.float64)) + 1.0)

    def below(self, parameter: float, x: ArrayLike) -> NDArray[np.float64]:
        return below(parameter, x)

    def sample(self, rng: np.random.Generator, parameter: float, size: int) -> NDArray[np.float64]:
        return sample(rng, parameter, size).astype(np.float64)

    def pmf(self, parameter: float, support: ArrayLike) -> NDArray[np.float64]:
        return pmf(parameter, support)

    def error_bound(self, parameter: float, weight: float, sigma: float, level: float) -> float:
        """The ``level`` bound of ``|E + wZ|``, ``E ~ N(0, s²)`` (``s`` = ``sigma``), ``Z``
        this discrete Gaussian of parameter ``σ``: for ``σ ≥`` :data:`SIGMA_DIRECT` and
        ``τ = s/w ≥`` :data:`NORMAL_RATIO` the normal law's ``√(s² + w²σ²) Φ⁻¹((1 + level)/2)``,
        otherwise the exact lattice sum (:func:`core.linear.errors.lattice_abs_quantile`).

        *The normal law's coverage is the lattice's to within 1e-21.*  In units of ``z``,
        ``P(|E + wz| ≤ x) = g(z)`` with ``g = 1_{[−a, a]} * φ_τ`` (``a = x/w``), whose Fourier
        transform is ``ĝ(ξ) = sin(2πaξ)/(πξ) · e^{−2π²τ²ξ²}``, so
        ``|ĝ(ξ)| ≤ min(2a, 1/(π|ξ|)) e^{−2π²τ²ξ²}``.  With ``f(z) = e^{−z²/(2σ²)}``
        (``f̂ ≥ 0``, ``∫ f̂ = 1``, ``∫_{|ξ|>½} f̂ = erfc(πσ/√2) ≤ e^{−π²σ²/2}``), Poisson
        summation gives ``Σ_z f g = ∫ f g + Σ_{k≠0} (f̂ * ĝ)(k)``.  For ``|ξ| ≤ ½`` and
        ``k ≠ 0``, ``|k − ξ| ≥ |k|/2``, so ``|ĝ(k − ξ)| ≤ 2/(π|k|) · e^{−π²τ²k²/2}``; the
        rest is at most ``(4a + 1) e^{−π²σ²/2}`` summed over ``k`` (``τ ≥ 1``).  Hence
        ``|Σ_z f g − ∫ f g| ≤ (4/π) e^{−π²τ²/2}/(1 − e^{−π²τ²/2}) + (4a + 1)e^{−π²σ²/2}``.
        The coverage is ``Σ_z f g / Z(σ)`` with ``Z(σ) = σ√(2π)(1 + 2Σ_k q_k)`` (module
        docstring; ``q_1 = e^{−2π²σ²}``), and ``∫ f g/(σ√(2π))`` is the coverage of
        ``E + wY``, ``Y ~ N(0, σ²)``: ``2Φ(x/√(s² + w²σ²)) − 1``.  At ``σ ≥ 200`` and
        ``τ ≥ 3`` the difference is below ``(4/π) e^{−44.4}/(200√(2π)) < 1e-21`` (the
        ``e^{−π²σ²/2}`` and ``q_k`` terms underflow), far below double precision.
        """
        if parameter >= SIGMA_DIRECT and sigma >= NORMAL_RATIO * weight:
            scale = math.hypot(sigma, weight * parameter)
            return scale * float(special.ndtri(0.5 + 0.5 * level))
        return super().error_bound(parameter, weight, sigma, level)

    def log_mgf(self, parameter: float, t: ArrayLike) -> NDArray[np.float64]:
        """``t²σ²/2``: the discrete Gaussian is σ²-subgaussian, ``E[e^{tZ}] ≤ e^{t²σ²/2}``
        for every real ``t`` (Canonne, Kamath & Steinke 2020, its subgaussianity corollary:
        by Poisson summation its moment generating function is at most the continuous
        Gaussian's)."""
        x = np.asarray(t, dtype=np.float64)
        return np.asarray(0.5 * x * x * parameter * parameter, dtype=np.float64)


register(DiscreteGaussian())
