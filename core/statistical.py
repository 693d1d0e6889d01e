"""Statistical privacy of property queries: δ(ε) when the adversary knows only the distribution.

Breutigam & Reischuk, "Statistical Privacy", study a *property query*: the fraction
``Y = K/n`` of the ``n`` records of a database that have some property, where every record
has the property independently with probability ``pi`` (written π).  The adversary knows this
distribution but not the other records.  Fixing the critical record to be positive (μ+) or
negative (μ−) gives two output distributions; the privacy curve is the hockey-stick
divergence between them, taken in both directions (Definition 5, eqs. 3 and 4)::

    δ(ε) = max(δ_{+,-}(ε), δ_{-,+}(ε)),
    δ_{a,b}(ε) = ∫ max(0, f_a(z) − e^ε f_b(z)) dz      (a sum over z for discrete outputs).

Mechanisms and the exact output distributions used here (``B ~ Binomial(n − 1, π)`` counts
the positive records among the other ``n − 1``; ``s = 1/n`` is the sensitivity):

* no mechanism (§4.2, Theorem 4.2): ``K = 1 + B`` under μ+ and ``K = B`` under μ−;
* subsampling ``m`` of the ``n`` records without replacement at rate ``λ = m/n`` (§4.1,
  Lemma 4, Theorem 4.1): the critical record is drawn with probability λ and the other
  sampled records are i.i.d. Bernoulli(π), so the sample count is the mixture
  ``λ·(1 + Bin(m − 1, π)) + (1 − λ)·Bin(m, π)`` under μ+ and
  ``λ·Bin(m − 1, π) + (1 − λ)·Bin(m, π)`` under μ−, and the answer is that count over ``m``;
* additive noise (§4.3, Definition 6, Lemmas 5 and 6): ``Y + N`` with ``N`` Gaussian of
  standard deviation ``ν·s`` or Laplace of scale ``ν·s``; ``ν`` is the *noise multiplier*.

These distributions are exact for the product distribution (no normal approximation).
Worst-case differential privacy (Definition 3) for the same noise is the hockey stick between
``y + N`` and ``y + s + N`` (§5).

Method
------
Discrete outputs: every log-PMF comes from ``scipy.stats.binom.logpmf`` (log-gamma, no
overflow for n up to 10⁵ and beyond), the log-likelihood ratio ``log Q+(j)`` from the
closed form of Lemma 4, and δ is the log-sum-exp of the positive terms
``log P_a(j) + log(1 − e^{ε − L(j)})`` (``log(-expm1(.))``), so no term cancels and
``ε = 1e-12`` is as exact as ``ε = 0``.

Continuous outputs: in record units ``u = n·y`` the answer is ``U = B + W`` under μ− and
``U + 1`` under μ+, with ``W`` of scale ν.  The binomial weights are log-concave and both noise
densities are log-concave, so the likelihood ratio ``f(u − 1)/f(u)`` is non-decreasing in
``u`` (total positivity of order 2 of the location kernel), and the set where it exceeds
``e^ε`` is a half-line.  Hence δ_{+,-}(ε) = S(u* − 1) − e^ε S(u*) with ``S`` the survival
function of ``U`` and ``u*`` the root of ``log f(u − 1) − log f(u) = ε`` (found by safeguarded
Newton on the log-sum-exp mixture density).  For Laplace noise the mixture density is, between
two integers, a sum of two exponentials, so the integral of eq. (3) is evaluated cell by cell
in closed form.  ``δ`` is finite at ε = 1000 (it underflows to 0 there).

Atoms of ``B`` whose log-probability is below −800 (weights under 10⁻³⁴⁷, below the smallest
double) are dropped; this changes no representable result.

Every ``delta_*`` function is vectorised over ``eps`` (all other arguments are scalars) and
returns a ``float`` for a scalar ``eps`` and an ``ndarray`` of the same shape otherwise.
Invalid arguments raise ``ValueError`` naming the argument and the allowed range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import signal, special
from scipy.stats import binom

from core._validation import (
    FloatArray,
    FloatOrArray,
    check_choice,
    check_interval,
    check_nonnegative,
    check_whole,
    finish,
    finite_scalar,
    require,
)
from core.amplification import sample_size

__all__ = [
    "MAX_N",
    "MIN_NOISE_MULTIPLIER",
    "OutputPmfs",
    "delta_directions",
    "delta_dp_gaussian",
    "delta_dp_laplace",
    "delta_dp_subsampling",
    "delta_gaussian",
    "delta_gaussian_normal_approx",
    "delta_laplace",
    "delta_no_mechanism",
    "delta_no_mechanism_closed_form",
    "delta_subsampling",
    "delta_subsampling_closed_form",
    "equal_utility_noise_multiplier",
    "laplace_eps_at_equal_utility",
    "laplace_pure_eps",
    "noisy_query_densities",
    "pmfs_no_mechanism",
    "pmfs_subsampling",
    "sample_size",
    "utility_loss_noise",
    "utility_loss_subsampling",
]

Mechanism: TypeAlias = Literal["none", "subsampling", "gaussian", "laplace"]
Noise: TypeAlias = Literal["gaussian", "laplace"]

#: Largest database size accepted (the computations stay exact; only time grows).
MAX_N = 10_000_000
#: Smallest noise multiplier ν accepted: below it the query is practically noiseless and the
#: Laplace ratio bound e^{1/ν} would overflow a double.
MIN_NOISE_MULTIPLIER = 0.01
#: Atoms of B with a smaller log-probability are dropped (e^-800 ≈ 1e-348 < smallest double).
_LOG_TINY = -800.0
#: Gaussian tail cut in noise standard deviations: Φ(−39) ≈ e^{-764}.
_GAUSS_TAIL = 39.0
#: Half-width, in noise standard deviations, of the window of binomial atoms around the
#: posterior mode used for the mixture density: atoms outside weigh < e^{-50} of the largest.
_MODE_WINDOW = 10.0
#: Newton iterations of the threshold search (each falls back to bisection when it strays).
_NEWTON_STEPS = 80


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------


def _check_n(n: object) -> int:
    return check_whole("n (number of records)", n, 1, MAX_N)


def _check_m(m: object, n: int) -> int:
    return check_whole(f"m (sample size, at most n = {n:,})", m, 1, n)


def _check_pi(pi: object, *, open_interval: bool = False) -> float:
    """The property probability π, in [0, 1] (or (0, 1) for the closed forms)."""
    value = finite_scalar("pi (property probability)", pi)
    return float(
        check_interval(
            "pi (property probability)",
            value,
            0.0,
            1.0,
            low_open=open_interval,
            high_open=open_interval,
        )
    )


def _check_nu(nu: object) -> float:
    name = "noise_multiplier (noise scale in units of 1/n)"
    value = finite_scalar(name, nu)
    require(
        name,
        np.asarray(value),
        value >= MIN_NOISE_MULTIPLIER,
        f"a finite number ≥ {MIN_NOISE_MULTIPLIER}",
    )
    return value


def _flat_eps(eps: ArrayLike) -> tuple[FloatArray, tuple[int, ...], bool]:
    """Flat float array of ε values (finite, ≥ 0), the original shape, and 'was scalar'."""
    arr = check_nonnegative("eps", eps)
    return arr.reshape(-1), arr.shape, arr.ndim == 0


def _finish_flat(flat: FloatArray, shape: tuple[int, ...], scalar: bool) -> FloatOrArray:
    return finish(np.asarray(flat).reshape(shape), scalar)


# ---------------------------------------------------------------------------------------
# Exact output distributions
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputPmfs:
    """The query's answer distribution with the critical record positive or negative.

    Attributes
    ----------
    counts
        Possible counts ``j`` of positive records in what the query looks at (the whole
        database, or the sample); atoms with both probabilities below e^-800 are dropped.
    values
        The answers ``j / size`` (``size`` is ``n``, or ``m`` for subsampling).
    log_plus, log_minus
        Natural logs of ``P[answer = j/size]`` under μ+ and μ− (``-inf`` for impossible).
    log_ratio
        ``log(P+/P−)`` (``log Q+(j)`` of Lemma 4), ``±inf`` where one side is impossible.
    """

    counts: NDArray[np.int64]
    values: FloatArray
    log_plus: FloatArray
    log_minus: FloatArray
    log_ratio: FloatArray

    @property
    def plus(self) -> FloatArray:
        """P[answer = j/size | critical record positive]."""
        return np.exp(self.log_plus)

    @property
    def minus(self) -> FloatArray:
        """P[answer = j/size | critical record negative]."""
        return np.exp(self.log_minus)


def _binom_logpmf(k: NDArray[np.int64], trials: int, pi: float) -> FloatArray:
    with np.errstate(divide="ignore"):
        return np.asarray(binom.logpmf(k, trials, pi), dtype=np.float64)


def _trim(*logs: FloatArray) -> slice:
    """The contiguous index range where any of the log-probabilities is above e^-800."""
    keep = np.zeros(logs[0].shape, dtype=bool)
    for lg in logs:
        keep |= lg >= _LOG_TINY
    idx = np.flatnonzero(keep)
    return slice(int(idx[0]), int(idx[-1]) + 1)


def _subsampling_pmfs(n: int, m: int, pi: float) -> OutputPmfs:
    """Lemma 4: the count in a sample of ``m`` of ``n`` records, critical record ±."""
    lam = m / n
    j = np.arange(m + 1, dtype=np.int64)
    with np.errstate(divide="ignore"):
        log_lam = math.log(lam)
        log_rest = math.log1p(-lam) if lam < 1 else -math.inf
    drawn_plus = _binom_logpmf(j - 1, m - 1, pi)
    drawn_minus = _binom_logpmf(j, m - 1, pi)
    not_drawn = _binom_logpmf(j, m, pi)
    log_plus = np.logaddexp(log_lam + drawn_plus, log_rest + not_drawn)
    log_minus = np.logaddexp(log_lam + drawn_minus, log_rest + not_drawn)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = log_plus - log_minus
        if 0.0 < pi < 1.0:
            # Lemma 4: Q+(j) = (λj + (1 − λ)mπ) / (λ(m − j)ξ + (1 − λ)mπ), ξ = π/(1 − π);
            # more accurate than a difference of two log-PMFs.
            xi = pi / (1.0 - pi)
            jf = j.astype(np.float64)
            ratio = np.log(lam * jf + (1.0 - lam) * m * pi) - np.log(
                lam * (m - jf) * xi + (1.0 - lam) * m * pi
            )
    keep = _trim(log_plus, log_minus)
    counts = j[keep]
    return OutputPmfs(
        counts=counts,
        values=counts / float(m),
        log_plus=log_plus[keep],
        log_minus=log_minus[keep],
        log_ratio=ratio[keep],
    )


def pmfs_no_mechanism(n: int, pi: float) -> OutputPmfs:
    """Exact answer distributions of the plain property query (§4.2).

    With ``B ~ Binomial(n − 1, π)`` the other records' count, the answer is ``(1 + B)/n``
    under μ+ and ``B/n`` under μ−, so ``P+(j) = C(n−1, j−1) π^{j−1}(1−π)^{n−j}`` and
    ``P−(j) = C(n−1, j) π^j (1−π)^{n−1−j}``; their ratio is
    ``j(1 − π) / ((n − j) π)`` (Lemma 4 with λ = 1).

    Parameters
    ----------
    n
        Number of records (1 to ``MAX_N``).
    pi
        Probability π that a record has the property, in [0, 1].
    """
    n = _check_n(n)
    pi = _check_pi(pi)
    return _subsampling_pmfs(n, n, pi)


def pmfs_subsampling(n: int, m: int, pi: float) -> OutputPmfs:
    """Exact answer distributions when the query runs on a simple random sample (§4.1).

    A sample of ``m`` out of ``n`` records is drawn without replacement; the critical record
    is in it with probability ``λ = m/n``.  The other sampled records are i.i.d.
    Bernoulli(π), so (Lemma 4)::

        P+(j) = λ C(m−1, j−1) π^{j−1}(1−π)^{m−j} + (1 − λ) C(m, j) π^j (1−π)^{m−j}
        P−(j) = λ C(m−1, j) π^j (1−π)^{m−1−j}   + (1 − λ) C(m, j) π^j (1−π)^{m−j}

    and the answer is ``j/m``.  At ``m = n`` this is :func:`pmfs_no_mechanism`.

    Parameters
    ----------
    n
        Number of records.
    m
        Sample size, 1 ≤ m ≤ n.
    pi
        Property probability π in [0, 1].
    """
    n = _check_n(n)
    m = _check_m(m, n)
    pi = _check_pi(pi)
    return _subsampling_pmfs(n, m, pi)


def _atoms(n: int, pi: float) -> tuple[FloatArray, FloatArray]:
    """Positions k and log-weights of ``B ~ Binomial(n − 1, π)``, trimmed at e^-800."""
    k = np.arange(n, dtype=np.int64)
    logp = _binom_logpmf(k, n - 1, pi)
    keep = _trim(logp)
    return k[keep].astype(np.float64), logp[keep]


def noisy_query_densities(
    n: int, pi: float, x: ArrayLike, noise_multiplier: float, noise: Noise = "gaussian"
) -> tuple[FloatArray, FloatArray]:
    """Densities of the noisy answer ``Y + N`` at ``x`` under μ+ and μ− (Lemmas 5 and 6).

    ``f±(x) = Σ_j P±(j) · g(x − j/n)`` where ``P±`` are the exact answer distributions of
    :func:`pmfs_no_mechanism` and ``g`` is the density of Gaussian noise with standard
    deviation ``ν/n`` or Laplace noise with scale ``ν/n`` (Definition 6).  Densities are with
    respect to the answer scale (a fraction), so they integrate to 1 over ``x``.

    Returns
    -------
    (f_plus, f_minus)
        Arrays of the shape of ``x``.
    """
    n = _check_n(n)
    pi = _check_pi(pi)
    nu = _check_nu(noise_multiplier)
    kind = check_choice("noise", noise, ("gaussian", "laplace"))
    u = np.asarray(x, dtype=np.float64) * n
    k, logp = _atoms(n, pi)
    flat = u.reshape(-1)
    if kind == "gaussian":
        win = _gaussian_mixture(n, pi, nu)
        log_minus, _ = win.log_density(flat)
        log_plus, _ = win.log_density(flat - 1.0)
        const = math.log(n) - math.log(nu * math.sqrt(2.0 * math.pi))
    else:
        d = np.abs(flat[:, None] - k[None, :])
        log_minus = special.logsumexp(logp[None, :] - d / nu, axis=1)
        d = np.abs(flat[:, None] - 1.0 - k[None, :])
        log_plus = special.logsumexp(logp[None, :] - d / nu, axis=1)
        const = math.log(n) - math.log(2.0 * nu)
    return (
        np.exp(log_plus + const).reshape(u.shape),
        np.exp(log_minus + const).reshape(u.shape),
    )


# ---------------------------------------------------------------------------------------
# Discrete hockey sticks
# ---------------------------------------------------------------------------------------


def _log_hockey_discrete(log_a: FloatArray, log_ratio: FloatArray, eps: FloatArray) -> FloatArray:
    """log Σ_j a_j · max(0, 1 − e^{ε − L_j}) for each ε (eq. 3 for a PMF; L = log a/b)."""
    useful = log_ratio > 0  # only atoms with L > ε >= 0 contribute
    la, lr = log_a[useful], log_ratio[useful]
    if la.size == 0:
        return np.full(eps.shape, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        gap = np.minimum(eps[:, None] - lr[None, :], 0.0)  # −inf where b_j = 0
        terms = la[None, :] + np.log(-np.expm1(gap))
    return np.asarray(special.logsumexp(terms, axis=1), dtype=np.float64)


def _discrete_deltas(pmfs: OutputPmfs, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
    plus = np.exp(_log_hockey_discrete(pmfs.log_plus, pmfs.log_ratio, eps))
    minus = np.exp(_log_hockey_discrete(pmfs.log_minus, -pmfs.log_ratio, eps))
    return np.minimum(plus, 1.0), np.minimum(minus, 1.0)


# ---------------------------------------------------------------------------------------
# Gaussian noise: mixture density, threshold search, survival functions
# ---------------------------------------------------------------------------------------


class _GaussianMixture:
    """``U = B + W``, W ~ N(0, ν²), in record units; B has atoms ``k`` with log-weights."""

    def __init__(self, k: FloatArray, logp: FloatArray, nu: float, mean: float, var: float) -> None:
        self.mean = mean
        self.var = var
        self.k = k
        self.logp = logp
        self.nu = nu
        self.size = k.size
        # Posterior mode of B given U = u: the objective logp_i − (u − k_i)²/(2ν²) is concave
        # in i; its forward difference is positive exactly when u > g_i (g increasing).
        d = np.diff(logp)
        self.g = (k[:-1] + 0.5) - nu * nu * d
        # The objective is strongly concave with modulus 1/ν² + κ (κ: the smallest curvature
        # of −log p, positive for the binomial), so atoms further than sqrt(100/modulus)
        # from the mode weigh less than e^-50 of it.
        kappa = float(max(0.0, (-np.diff(d)).min())) if d.size >= 2 else 0.0
        modulus = 1.0 / (nu * nu) + kappa
        half = math.ceil(_MODE_WINDOW / math.sqrt(modulus)) + 1
        self.offsets = (
            None if 2 * half + 1 >= self.size else np.arange(-half, half + 1, dtype=np.int64)
        )
        tail = math.ceil(_GAUSS_TAIL * nu) + 1
        self.tail_width = None if 2 * tail + 2 >= self.size else 2 * tail + 2

    def _window(self, u: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Atom positions and log-weights (−inf outside) around each u's posterior mode."""
        if self.offsets is None:
            return self.k[None, :], self.logp[None, :]
        mode = np.searchsorted(self.g, u, side="left")
        idx = mode[:, None] + self.offsets[None, :]
        valid = (idx >= 0) & (idx < self.size)
        idx = np.clip(idx, 0, self.size - 1)
        return self.k[idx], np.where(valid, self.logp[idx], -np.inf)

    def log_density(self, u: FloatArray) -> tuple[FloatArray, FloatArray]:
        """log f(u) up to the constant −log(ν√(2π)), and the posterior mean E[B | U = u]."""
        k, lw = self._window(u)
        z = u[:, None] - k
        terms = lw - 0.5 * (z / self.nu) ** 2
        top = terms.max(axis=1, keepdims=True)
        w = np.exp(terms - top)
        total = w.sum(axis=1)
        mean = (w * k).sum(axis=1) / total
        return top[:, 0] + np.log(total), mean

    def log_ratio(self, u: FloatArray) -> tuple[FloatArray, FloatArray]:
        """L(u) = log f(u − 1) − log f(u) and its derivative (1 − E[B|u] + E[B|u−1])/ν²."""
        lf1, m1 = self.log_density(u - 1.0)
        lf0, m0 = self.log_density(u)
        return lf1 - lf0, (1.0 - m0 + m1) / (self.nu * self.nu)

    def _tail_window(self, t: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Atoms within 39ν of each t (−inf weight outside)."""
        lo = np.ceil(t - _GAUSS_TAIL * self.nu)
        if self.tail_width is None:
            k, lw = self.k[None, :], self.logp[None, :]
            inside = (k >= lo[:, None]) & (k <= t[:, None] + _GAUSS_TAIL * self.nu)
            return np.broadcast_to(k, inside.shape), np.where(inside, lw, -np.inf)
        start = np.clip(lo - self.k[0], 0, self.size - 1).astype(np.int64)
        idx = start[:, None] + np.arange(self.tail_width, dtype=np.int64)[None, :]
        valid = idx < self.size
        idx = np.minimum(idx, self.size - 1)
        k = self.k[idx]
        valid &= (k >= lo[:, None]) & (k <= t[:, None] + _GAUSS_TAIL * self.nu)
        return k, np.where(valid, self.logp[idx], -np.inf)

    def log_sf(self, t: FloatArray, n: int, pi: float) -> FloatArray:
        """log P(U > t): atoms within 39ν exactly, atoms above t + 39ν as Binomial SF."""
        k, lw = self._tail_window(t)
        near = special.logsumexp(lw + special.log_ndtr((k - t[:, None]) / self.nu), axis=1)
        with np.errstate(divide="ignore"):
            far = binom.logsf(np.floor(t + _GAUSS_TAIL * self.nu), n - 1, pi)
        return np.logaddexp(near, far)

    def log_cdf(self, t: FloatArray, n: int, pi: float) -> FloatArray:
        """log P(U ≤ t): atoms within 39ν exactly, atoms below t − 39ν as Binomial CDF."""
        k, lw = self._tail_window(t)
        near = special.logsumexp(lw + special.log_ndtr((t[:, None] - k) / self.nu), axis=1)
        with np.errstate(divide="ignore"):
            far = binom.logcdf(np.ceil(t - _GAUSS_TAIL * self.nu) - 1, n - 1, pi)
        return np.logaddexp(near, far)

    def solve(self, target: FloatArray) -> tuple[FloatArray, NDArray[np.int8]]:
        """Roots u of L(u) = target (L non-decreasing); side −1/+1 when below/above the range.

        Safeguarded Newton: a bracket [lo, hi] with L(lo) ≤ target ≤ L(hi) is kept and a
        bisection step replaces any Newton step that leaves it.
        """
        reach = _GAUSS_TAIL * self.nu + 1.0
        lo0, hi0 = self.k[0] - reach, self.k[-1] + 1.0 + reach
        ends, _ = self.log_ratio(np.array([lo0, hi0]))
        side = np.zeros(target.shape, dtype=np.int8)
        side[target < ends[0]] = -1
        side[target > ends[1]] = 1
        active = np.flatnonzero(side == 0)
        root = np.where(side < 0, lo0, hi0).astype(np.float64)
        if active.size == 0:
            return root, side
        c = target[active]
        lo = np.full(c.shape, lo0)
        hi = np.full(c.shape, hi0)
        # Start from the normal approximation of Lemma 6 (record units).
        u = np.clip(self.mean + 0.5 + c * (self.nu**2 + self.var), lo, hi)
        todo = np.arange(c.size)
        for _ in range(_NEWTON_STEPS):
            val, slope = self.log_ratio(u[todo])
            f = val - c[todo]
            below = f < 0
            lo[todo] = np.where(below, u[todo], lo[todo])
            hi[todo] = np.where(below, hi[todo], u[todo])
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                step = u[todo] - f / slope
            inside = np.isfinite(step) & (step > lo[todo]) & (step < hi[todo])
            new = np.where(inside, step, 0.5 * (lo[todo] + hi[todo]))
            hit = np.abs(f) <= 1e-15 * np.maximum(1.0, np.abs(c[todo]))
            new = np.where(hit, u[todo], new)  # already a root: keep it
            scale = np.maximum(1.0, np.abs(new))
            done = hit | (np.abs(new - u[todo]) <= 1e-13 * scale)
            done |= hi[todo] - lo[todo] <= 4e-16 * scale
            u[todo] = new
            todo = todo[~done]
            if todo.size == 0:
                break
        root[active] = u
        return root, side


def _gaussian_mixture(n: int, pi: float, nu: float) -> _GaussianMixture:
    k, logp = _atoms(n, pi)
    return _GaussianMixture(k, logp, nu, (n - 1) * pi, (n - 1) * pi * (1.0 - pi))


def _gaussian_deltas(
    n: int, pi: float, nu: float, eps: FloatArray
) -> tuple[FloatArray, FloatArray]:
    mix = _gaussian_mixture(n, pi, nu)
    out = []
    for sign in (1.0, -1.0):
        root, side = mix.solve(sign * eps)
        delta = np.zeros(eps.shape)
        # δ+: a root beyond the upper end means the region {L > ε} holds no mass (δ = 0);
        # δ−: likewise below the lower end.  A root past the other end puts the threshold
        # at that end (all the mass is in the region), which the formula below handles.
        ok = side != (1 if sign > 0 else -1)
        if ok.any():
            r = root[ok]
            e = eps[ok]
            if sign > 0:
                big = mix.log_sf(r - 1.0, n, pi)
                small = mix.log_sf(r, n, pi)
            else:
                big = mix.log_cdf(r, n, pi)
                small = mix.log_cdf(r - 1.0, n, pi)
            with np.errstate(invalid="ignore", over="ignore"):
                val = np.exp(big) * -np.expm1(e + small - big)
            delta[ok] = np.where(np.isfinite(val), np.clip(val, 0.0, 1.0), 0.0)
        out.append(delta)
    return out[0], out[1]


# ---------------------------------------------------------------------------------------
# Laplace noise: exact cell-by-cell integral
# ---------------------------------------------------------------------------------------


def _laplace_upper(qa: FloatArray, qb: FloatArray, nu: float, eps: FloatArray) -> FloatArray:
    """∫ max(0, f_a − e^ε f_b) du for Laplace mixtures whose log-ratio log(f_a/f_b) rises.

    ``f(u) = (1/2ν) Σ_i q_i e^{−|u − i|/ν}`` over atoms at the integers i = 0..K.  On the cell
    [c, c + 1), with t = u − c, ``f = (1/2ν)(A_c e^{−t/ν} + B_c e^{−(1−t)/ν})`` where
    ``A_c = Σ_{i≤c} q_i r^{c−i}``, ``B_c = Σ_{i>c} q_i r^{i−c−1}`` and ``r = e^{−1/ν}``; the cell
    holds mass ``(1 − r)(A_c + B_c)/2``, the half-lines below atom 0 and above atom K hold
    ``B_{−1}/2`` and ``A_K/2``.  Because the log-ratio is non-decreasing (see the module
    notes), the region {f_a > e^ε f_b} is a half-line starting in one cell c: the cells above
    it count in full (suffix sums of their masses) and cell c in part, where
    ``α e^{−t/ν} + β e^{−(1−t)/ν}`` (α = A_a − e^ε A_b, β = B_a − e^ε B_b) changes sign at
    ``t = (1 + ν log(−α/β))/2``, so its integral is closed form.
    """
    r = math.exp(-1.0 / nu)
    one_minus_r = -math.expm1(-1.0 / nu)

    def parts(q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, float]:
        a = signal.lfilter([1.0], [1.0, -r], q)  # A_c, c = 0..K
        b_incl = signal.lfilter([1.0], [1.0, -r], q[::-1])[::-1]  # Σ_{i≥c} q_i r^{i−c}
        b = np.append(b_incl[1:], 0.0)  # B_c, c = 0..K (B_K = 0)
        mass = 0.5 * one_minus_r * (a[:-1] + b[:-1])  # cells c = 0..K−1
        right = 0.5 * a[-1]
        suffix = np.append(np.cumsum(mass[::-1])[::-1], 0.0) + right  # mass above atom c
        return a, b, suffix, float(b_incl[0])

    a_a, b_a, tail_a, left_a = parts(qa)
    a_b, b_b, tail_b, left_b = parts(qb)
    with np.errstate(divide="ignore", invalid="ignore"):
        # log f_a/f_b at each atom u = c (t = 0): (A_c + r B_c) over the same for b.
        at_atoms = np.log(a_a + r * b_a) - np.log(a_b + r * b_b)
    at_atoms = np.maximum.accumulate(np.nan_to_num(at_atoms, nan=-np.inf))
    out = np.zeros(eps.shape)
    scale = np.exp(np.minimum(eps, 1.0 / nu))  # ε ≥ 1/ν gives δ = 0 below anyway
    # Cell holding the start of the region: the last atom with log-ratio ≤ ε.
    cell = np.searchsorted(at_atoms, eps, side="right") - 1
    last = qa.size - 1
    inside = (cell >= 0) & (cell < last)
    c = cell[inside]
    e = scale[inside]
    alpha = a_a[c] - e * a_b[c]
    beta = b_a[c] - e * b_b[c]
    t0 = np.zeros(c.shape)
    t1 = np.ones(c.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = np.clip(0.5 * (1.0 + nu * np.log(-alpha / beta)), 0.0, 1.0)
    t0 = np.where((alpha < 0) & (beta > 0), cross, t0)
    t1 = np.where((alpha > 0) & (beta < 0), cross, t1)
    t1 = np.where((alpha <= 0) & (beta <= 0), t0, t1)
    e1 = np.exp(-t0 / nu) - np.exp(-t1 / nu)
    e2 = np.exp(-(1.0 - t1) / nu) - np.exp(-(1.0 - t0) / nu)
    partial = np.maximum(0.5 * (alpha * e1 + beta * e2), 0.0)
    full = tail_a[c + 1] - e * tail_b[c + 1]  # cells above c and the upper half-line
    out[inside] = partial + np.maximum(full, 0.0)
    below = cell < 0  # the region starts below atom 0: part of the lower half-line counts
    if below.any():
        e = scale[below]
        out[below] = np.maximum(tail_a[0] - e * tail_b[0], 0.0) + 0.5 * np.maximum(
            left_a - e * left_b, 0.0
        )
    out[eps >= 1.0 / nu] = 0.0  # Lemma 5: the log-ratio never exceeds 1/ν
    return np.clip(out, 0.0, 1.0)


def _laplace_deltas(n: int, pi: float, nu: float, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Eq. (3) for Laplace noise, integrated exactly between consecutive integers.

    In record units the answer under μ− is a Laplace mixture over the binomial atoms, and
    under μ+ the same mixture moved up by one record.  δ_{+,-} is :func:`_laplace_upper` on
    the atoms as they are; δ_{-,+} is the same computation on the mirrored axis, where the
    roles of the two distributions swap.
    """
    _, logp = _atoms(n, pi)
    p = np.exp(logp)
    q_minus = np.append(p, 0.0)  # atoms k_0 + i, i = 0..K; the + side is moved up by one
    q_plus = np.insert(p, 0, 0.0)
    plus = _laplace_upper(q_plus, q_minus, nu, eps)
    minus = _laplace_upper(q_minus[::-1].copy(), q_plus[::-1].copy(), nu, eps)
    return plus, minus


# ---------------------------------------------------------------------------------------
# Public privacy curves
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# The paper's closed forms (cross-checks)
# ---------------------------------------------------------------------------------------


def _closed_form_sums(n: int, m: int, pi: float, eps: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Theorem 4.1's two sums (Theorem 4.2 at m = n), for ε where e^ε is finite."""
    lam = m / n
    xi = pi / (1.0 - pi)
    j = np.arange(m + 1, dtype=np.float64)
    inner = j[:-1]  # j = 0..m−1; the j = m term is added as its limit below
    log_front = (
        (inner - 1) * math.log(pi)
        + (m - inner - 1) * math.log1p(-pi)
        + special.gammaln(m)
        - special.gammaln(inner + 1)
        - special.gammaln(m - inner)
    )
    front = np.exp(log_front)
    e = np.exp(eps)[:, None]
    dj = (m - inner)[None, :]
    common = (1.0 - lam) * (1.0 - e) * m * pi * (1.0 - pi) / dj
    up = lam * (inner[None, :] * (1.0 - pi) / dj - e * pi) + common
    down = lam * (pi - e * inner[None, :] * (1.0 - pi) / dj) + common
    # Thresholds j+* = (λ + (e^ε − 1)/(1 + e^ε ξ)) nπ and j−* = (λ + (e^−ε − 1)/(1 + e^−ε ξ)) nπ,
    # with (e^ε − 1)/(1 + e^ε ξ) written as (1 − e^−ε)/(e^−ε + ξ) to avoid overflow.
    em = np.exp(-eps)
    j_plus = (lam - np.expm1(-eps) / (em + xi)) * n * pi
    j_minus = (lam + np.expm1(-eps) / (1.0 + em * xi)) * n * pi
    take_up = inner[None, :] >= np.ceil(j_plus)[:, None]
    take_down = inner[None, :] <= np.floor(j_minus)[:, None]
    plus = (np.where(take_up, up, 0.0) * front).sum(axis=1)
    minus = (np.where(take_down, down, 0.0) * front).sum(axis=1)
    # j = m: P+(m) − e^ε P−(m) = λ π^{m−1} + (1 − λ)(1 − e^ε) π^m, if m ≥ ⌈j+*⌉.
    last = lam * pi ** (m - 1) + (1.0 - lam) * (1.0 - e[:, 0]) * pi**m
    plus += np.where(m >= np.ceil(j_plus), last, 0.0)
    return plus, minus


def delta_subsampling_closed_form(n: int, m: int, pi: float, eps: ArrayLike) -> FloatOrArray:
    """Theorem 4.1's closed form for subsampling (a cross-check of the definition).

    With λ = m/n and ξ = π/(1 − π), δ(ε) = max(δ+, δ−) where::

        δ+ = Σ_{j=⌈j+*⌉}^{m} π^{j−1}(1−π)^{m−j−1} C(m−1, j)
             · [λ(j(1−π)/(m−j) − e^ε π) + (1−λ)(1−e^ε) mπ(1−π)/(m−j)]
        δ− = Σ_{j=0}^{⌊j−*⌋} π^{j−1}(1−π)^{m−j−1} C(m−1, j)
             · [λ(π − e^ε j(1−π)/(m−j)) + (1−λ)(1−e^ε) mπ(1−π)/(m−j)]
        j+* = (λ + (e^ε − 1)/(1 + e^ε ξ)) nπ,   j−* = (λ + (e^{−ε} − 1)/(1 + e^{−ε} ξ)) nπ.

    Reading notes: the j = m summand is 0·∞ as printed and is taken as its limit
    ``λπ^{m−1} + (1−λ)(1−e^ε)π^m``; the printed caps ``min{λ, ·}`` and ``max{0, ·}`` are read
    as "an empty sum when the threshold leaves [0, m]"; δ− sums up to ⌊j−*⌋ (the last j with
    Q−(j) ≥ e^ε, as in the derivation before the theorem).  Requires 0 < π < 1 and
    ``e^ε`` finite (ε ≤ 700).
    """
    n = _check_n(n)
    m = _check_m(m, n)
    pi = _check_pi(pi, open_interval=True)
    flat, shape, scalar = _flat_eps(eps)
    if (flat > 700).any():
        raise ValueError("the closed form needs e^eps to be finite: eps must be <= 700")
    plus, minus = _closed_form_sums(n, m, pi, flat)
    return _finish_flat(np.clip(np.maximum(plus, minus), 0.0, 1.0), shape, scalar)


def delta_no_mechanism_closed_form(n: int, pi: float, eps: ArrayLike) -> FloatOrArray:
    """Theorem 4.2's closed form (Theorem 4.1 with λ = 1), a cross-check of the definition.

    ``δ+ = Σ_{j≥⌈j+*⌉} π^{j−1}(1−π)^{n−j−1} C(n−1, j) (j(1−π)/(n−j) − e^ε π)`` and
    ``δ− = Σ_{j≤⌊j−*⌋} π^{j−1}(1−π)^{n−j−1} C(n−1, j) (π − e^ε j(1−π)/(n−j))`` with
    ``j+* = (1 + (e^ε − 1)/(1 + e^ε ξ)) nπ`` and ``j−* = (1 + (e^{−ε} − 1)/(1 + e^{−ε} ξ)) nπ``
    (the "1 +" multiplies nπ; the j = n term is its limit π^{n−1}).  Requires 0 < π < 1.
    """
    return delta_subsampling_closed_form(n, n, pi, eps)


def delta_gaussian_normal_approx(
    n: int, pi: float, eps: ArrayLike, noise_multiplier: float
) -> FloatOrArray:
    """Lemma 6: Gaussian noise with the binomial replaced by a normal distribution.

    With ``σ² = (ν/n)² + π(1−π)(n−1)/n²``, ``Y+N ≈ N(π(1−1/n) + 1/n, σ²)`` under μ+ and
    ``N(π(1−1/n), σ²)`` under μ−, and::

        δ+ ≈ P+[Y+N ≥ x*] − e^ε P−[Y+N ≥ x*],    x*  = π + nσ²ε + (1/2 − π)/n
        δ− ≈ P−[Y+N ≤ x**] − e^ε P+[Y+N ≤ x**],  x** = π − nσ²ε + (1/2 − π)/n.

    Both equal the worst-case Gaussian curve with the effective multiplier
    ``ν_eff = nσ = sqrt(ν² + π(1−π)(n−1))``.  An approximation: accurate when nπ(1−π) is
    large and ε is not far in the tail.
    """
    n = _check_n(n)
    pi = _check_pi(pi)
    flat, shape, scalar = _flat_eps(eps)
    nu = _check_nu(noise_multiplier)
    sigma = math.sqrt((nu / n) ** 2 + pi * (1.0 - pi) * (n - 1) / n**2)
    mu_plus = pi * (1.0 - 1.0 / n) + 1.0 / n
    mu_minus = pi * (1.0 - 1.0 / n)
    x1 = pi + n * sigma**2 * flat + (0.5 - pi) / n
    x2 = pi - n * sigma**2 * flat + (0.5 - pi) / n
    a = special.log_ndtr((mu_plus - x1) / sigma)
    b = special.log_ndtr((mu_minus - x1) / sigma)
    c = special.log_ndtr((x2 - mu_minus) / sigma)
    d = special.log_ndtr((x2 - mu_plus) / sigma)
    with np.errstate(invalid="ignore"):
        plus = np.exp(a) * -np.expm1(flat + b - a)
        minus = np.exp(c) * -np.expm1(flat + d - c)
    val = np.clip(np.nan_to_num(np.maximum(plus, minus), nan=0.0), 0.0, 1.0)
    return _finish_flat(val, shape, scalar)


def laplace_pure_eps(noise_multiplier: float) -> float:
    """Lemma 5: Laplace noise of scale ψ = ν/n gives (1/(ψn), 0) = (1/ν, 0) privacy.

    The bound is tight in both the worst case and the statistical setting: the answer set
    [1, ∞) has probabilities exactly e^{1/ν} apart.
    """
    return 1.0 / _check_nu(noise_multiplier)


# ---------------------------------------------------------------------------------------
# Utility loss and the equal-utility calibration (§4.4, §6)
# ---------------------------------------------------------------------------------------


def utility_loss_subsampling(n: int, m: int, pi: float) -> float:
    """Lemmas 7–8: mean squared error that subsampling adds, ``π(1−π)(1/m − 1/n)``.

    The expected squared difference between the sample answer and the full answer; it
    equals the statistical utility loss (the increase of the MSE for estimating π).
    """
    n = _check_n(n)
    m = _check_m(m, n)
    pi = _check_pi(pi)
    return pi * (1.0 - pi) * (1.0 / m - 1.0 / n)


def utility_loss_noise(n: int, noise_multiplier: float, noise: Noise) -> float:
    """Lemma 9: additive zero-mean noise adds its variance to the MSE.

    Gaussian noise of standard deviation ν/n: ``(ν/n)²``; Laplace noise of scale ν/n:
    ``2(ν/n)²``.
    """
    n = _check_n(n)
    nu = _check_nu(noise_multiplier)
    factor = 1.0 if check_choice("noise", noise, ("gaussian", "laplace")) == "gaussian" else 2.0
    return factor * (nu / n) ** 2


def equal_utility_noise_multiplier(n: int, m: int, pi: float, noise: Noise) -> float:
    """§6: the noise multiplier ν whose noise costs as much MSE as subsampling m of n.

    Solving Lemma 9 = Lemma 7: Gaussian ``(ν/n)² = π(1−π)(1/m − 1/n)`` and Laplace
    ``2(ν/n)² = π(1−π)(1/m − 1/n)`` (the paper's ``2ψ² = π(1−π)(1/m − 1/n)``).  Returns 0
    when m = n or π ∈ {0, 1} (subsampling then costs nothing).
    """
    loss = utility_loss_subsampling(n, m, pi)
    factor = 1.0 if check_choice("noise", noise, ("gaussian", "laplace")) == "gaussian" else 2.0
    return float(n * math.sqrt(loss / factor))


def laplace_eps_at_equal_utility(n: int, m: int, pi: float) -> float:
    """§4.4: the ε of Laplace noise calibrated to subsampling's utility loss.

    ``ε = sqrt(2/(π(1−π))) · sqrt(λ/(n − m))`` with λ = m/n, i.e. 1/ν for the ν of
    :func:`equal_utility_noise_multiplier` (Lemma 5).  Needs m < n and 0 < π < 1.
    """
    n = _check_n(n)
    m = _check_m(m, n)
    pi = _check_pi(pi, open_interval=True)
    if m == n:
        raise ValueError("m must be smaller than n: a full sample needs no noise to match")
    return math.sqrt(2.0 / (pi * (1.0 - pi))) * math.sqrt((m / n) / (n - m))
