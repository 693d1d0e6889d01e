"""Hockey sticks of a property query with additive Gaussian or Laplace noise (§4.3).

Breutigam & Reischuk, "Statistical Privacy", Definition 6, Lemmas 5 and 6: the densities
of the noisy answer (:func:`noisy_query_densities`), the binomial mixture density of the
noisy count, the half-line where its likelihood ratio exceeds ``e^ε`` (safeguarded Newton),
and the survival functions that give δ; for Laplace noise the integral of eq. (3) cell by
cell in closed form.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import signal, special
from scipy.stats import binom

from .._validation import FloatArray, check_choice
from ..statistical.checks import Noise, _check_n, _check_nu, _check_pi
from ..statistical.distributions import _binom_logpmf, _trim

__all__ = [
    "noisy_query_densities",
]


#: Gaussian tail cut in noise standard deviations: Φ(−39) ≈ e^{-764}.
_GAUSS_TAIL = 39.0
#: Half-width, in noise standard deviations, of the window of binomial atoms around the
#: posterior mode used for the mixture density: atoms outside weigh < e^{-50} of the largest.
_MODE_WINDOW = 10.0
#: Newton iterations of the threshold search (each falls back to bisection when it strays).
_NEWTON_STEPS = 80


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
