"""Noise for a linear statistic: what is added to a sample's sum ``Σ_S y`` before it is scaled.

A linear release is ``w · (Σ_S y + Z)``: the sum of ``y`` over the sample, a noise ``Z``
independent of the sample, and the estimator's weight ``w`` (1 for the census, ``1/r`` for a
sample; :class:`core.linear.moments.LinearMoments`).  A :class:`LinearMechanism` owns the law
of ``Z`` at a parameter (``b`` for Laplace, the same ``b`` for the two-sided geometric, ``σ``
for the discrete Gaussian), the parameter that a budget buys for a sensitivity, and its two
budgets (:meth:`LinearMechanism.budget_factors`).

Invariants every subclass keeps
-------------------------------
* ``parameter`` gives the noise that makes ``Σ y + Z`` ``eps``-DP (or ``(eps, delta)``-DP)
  for neighbours whose sums differ by at most ``sensitivity``; it is decreasing in ``eps``.
* ``variance(parameter)`` is the exact variance of ``Z``; ``abs_quantile`` the exact
  ``level`` quantile of ``|Z|``.
* Integer mechanisms (:attr:`LinearMechanism.integer`) add integers, so a count stays a whole
  number; they need an integer sensitivity.

References
----------
Dwork, McSherry, Nissim & Smith (2006), the Laplace mechanism.  Ghosh, Roughgarden &
Sundararajan (2012), the two-sided geometric mechanism.  Canonne, Kamath & Steinke (2020),
the discrete Gaussian (:mod:`core.linear.discrete_gaussian`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..designs.normal_laplace import normal_laplace_abs_quantile
from ..mechanisms.base import BudgetFactors

__all__ = [
    "LINEAR_MECHANISMS",
    "Geometric",
    "Laplace",
    "LinearMechanism",
    "check_budget",
    "register",
]

FloatArray = NDArray[np.float64]


def check_budget(eps: float, sensitivity: float) -> tuple[float, float]:
    """``(eps, sensitivity)`` as floats, each finite and positive (ValueError otherwise)."""
    e, s = float(eps), float(sensitivity)
    if not (math.isfinite(e) and e > 0.0):
        raise ValueError(f"the budget ε must be a finite number above 0; got {eps!r}")
    if not (math.isfinite(s) and s > 0.0):
        raise ValueError(f"the sensitivity must be a finite number above 0; got {sensitivity!r}")
    return e, s


class LinearMechanism(ABC):
    """Additive noise for a sum of bounded values (the abstract seam of the linear plans)."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    #: Adds whole numbers (needs a whole-number sensitivity).
    integer: ClassVar[bool] = False
    #: Its guarantee for a pure ε promise is (ε, δ) (δ spent as the design allows).
    uses_delta: ClassVar[bool] = False
    #: States a ρ-zCDP guarantee (the mechanism a ρ-zCDP promise uses).
    zcdp: ClassVar[bool] = False

    def budget_factors(self, sensitivities: Mapping[str, float], relation: str) -> BudgetFactors:
        """The two budgets per unit of ``eps_sample`` when calibrated to ``relation``.

        The noise is set for the sensitivity ``Δ_rel`` of the relation planned
        (``sensitivities`` maps ``"deletion"`` and ``"replacement"`` to the sensitivity of
        ``Σ y`` under each).  For Laplace and the geometric the privacy loss at a shift
        ``d`` is at most ``ε |d| / Δ_rel``, so the mechanism is ``(Δ_add / Δ_rel) ε``-DP
        when a record is added or removed and ``(Δ_change / Δ_rel) ε``-DP when one changes.
        """
        cal = float(sensitivities[relation])
        return BudgetFactors(
            self.name,
            float(sensitivities["deletion"]) / cal,
            float(sensitivities["replacement"]) / cal,
        )

    @abstractmethod
    def parameter(self, eps: float, delta: float | None, sensitivity: float) -> float:
        """The noise parameter that spends ``eps`` (and ``delta``) on ``sensitivity``."""

    @abstractmethod
    def variance(self, parameter: float) -> float:
        """``Var Z`` at ``parameter``."""

    @abstractmethod
    def abs_quantile(self, parameter: float, level: float) -> float:
        """The smallest ``x`` with ``P(|Z| ≤ x) ≥ level``."""

    @abstractmethod
    def cdf(self, parameter: float, x: ArrayLike) -> FloatArray:
        """``P(Z ≤ x)`` elementwise."""

    @abstractmethod
    def sample(self, rng: np.random.Generator, parameter: float, size: int) -> FloatArray:
        """``size`` independent draws of ``Z``."""

    def below(self, parameter: float, x: ArrayLike) -> FloatArray:
        """``P(Z < x)`` elementwise (equal to :meth:`cdf` for a continuous law)."""
        return self.cdf(parameter, x)

    def parameter_for_rho(self, rho: float, sensitivity: float) -> float:
        """The parameter that is ``rho``-zCDP (only for mechanisms with :attr:`zcdp`)."""
        raise ValueError(f"{self.label} states no zCDP guarantee")

    def pmf(self, parameter: float, support: ArrayLike) -> FloatArray:
        """``P(Z = z)`` at whole numbers ``support`` (integer mechanisms only)."""
        raise ValueError(f"{self.label} is not an integer mechanism")

    def log_mgf(self, parameter: float, t: ArrayLike) -> FloatArray:
        """An upper bound of ``log E[e^{tZ}]`` (``inf`` where it is infinite), for Chernoff
        bounds of sums of independent noises (:mod:`core.publication.margins`)."""
        raise ValueError(f"{self.label} states no bound of its moment generating function")

    def error_bound(self, parameter: float, weight: float, sigma: float, level: float) -> float:
        """``x`` with ``P(|E + weight·Z| ≤ x) = level`` for ``E ~ Normal(0, sigma²)``.

        For an integer mechanism the exact lattice sum over its law
        (:func:`core.linear.errors.lattice_abs_quantile`, which reads :meth:`pmf` and
        :meth:`cdf`); a continuous mechanism overrides this with its closed form.
        """
        if not self.integer:
            raise ValueError(f"{self.label} has no error bound with sampling error")
        from .errors import lattice_abs_quantile

        return lattice_abs_quantile(self, parameter, weight, sigma, level)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Laplace(LinearMechanism):
    """``Z ~ Laplace(0, b)``, ``b = Δ/ε``: ``Var Z = 2b²``, ``P(|Z| ≤ x) = 1 − e^{−x/b}``."""

    name = "laplace"
    label = "Laplace"

    def parameter(self, eps: float, delta: float | None, sensitivity: float) -> float:
        e, s = check_budget(eps, sensitivity)
        return s / e

    def variance(self, parameter: float) -> float:
        return 2.0 * parameter * parameter

    def abs_quantile(self, parameter: float, level: float) -> float:
        return -parameter * math.log1p(-level)

    def cdf(self, parameter: float, x: ArrayLike) -> FloatArray:
        t = np.asarray(x, dtype=np.float64) / parameter
        half = 0.5 * np.exp(-np.abs(t))
        return np.asarray(np.where(t < 0, half, 1.0 - half), dtype=np.float64)

    def sample(self, rng: np.random.Generator, parameter: float, size: int) -> FloatArray:
        return rng.laplace(0.0, parameter, size)

    def error_bound(self, parameter: float, weight: float, sigma: float, level: float) -> float:
        """The normal–Laplace law (Reed 2006), :func:`core.designs.normal_laplace.
        normal_laplace_abs_quantile`, with Laplace scale ``weight · b``."""
        return normal_laplace_abs_quantile(level, sigma, weight * parameter)

    def log_mgf(self, parameter: float, t: ArrayLike) -> FloatArray:
        """``log E[e^{tZ}] = −log(1 − b²t²)`` for ``|t| < 1/b`` (exact), ``inf`` beyond."""
        u = np.abs(np.asarray(t, dtype=np.float64)) * parameter
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(np.where(u < 1.0, -np.log1p(-(np.minimum(u, 1.0) ** 2)), np.inf))


class Geometric(LinearMechanism):
    """The two-sided geometric law ``P(Z = z) = (1 − q)/(1 + q) · q^{|z|}``, ``q = e^{−1/b}``.

    With ``b = Δ/ε`` (``Δ`` a whole number) the ratio of the laws of ``s + Z`` and
    ``s' + Z`` is at most ``q^{−|s − s'|} ≤ e^{ε}`` (Ghosh, Roughgarden & Sundararajan 2012).
    ``Var Z = 2q/(1 − q)²``: with ``u = 1 − q = −expm1(−1/b)`` this is ``2q/u²``,
    finite at ``ε = 1000`` (``q = e^{−1000}``, variance ``≈ 2e^{−1000}``, 0 in doubles; ``q``
    read directly, not as ``1 − u``, so it keeps its digits at ``ε = 40``) and
    exact at ``ε = 1e-12`` (``u ≈ 1e-12``, variance ``≈ 2e24``).
    ``P(|Z| ≥ k) = 2q^k/(1 + q)`` for ``k ≥ 1``.
    """

    name = "geometric"
    label = "two-sided geometric"
    integer = True

    def parameter(self, eps: float, delta: float | None, sensitivity: float) -> float:
        e, s = check_budget(eps, sensitivity)
        if s != math.floor(s):
            raise ValueError(
                "the two-sided geometric mechanism adds whole numbers: it needs a whole-number "
                f"sensitivity (counts, or totals of whole numbers); got {sensitivity!r}"
            )
        return s / e

    def variance(self, parameter: float) -> float:
        # q = e^{−1/b} directly: 1 − u would lose q's digits once q < 1e-8 (large ε).
        u = -math.expm1(-1.0 / parameter)
        return 2.0 * math.exp(-1.0 / parameter) / (u * u)

    def abs_quantile(self, parameter: float, level: float) -> float:
        # P(|Z| ≤ k) = 1 − 2q^{k+1}/(1 + q) ≥ level  ⇔  (k + 1)/b ≥ log(2/((1 + q)(1 − level))).
        # Compared in log space: 1 − 2q^{k+1}/(1 + q) rounds to the same double for
        # millions of neighbouring k once b is large (ε = 1e-12), and a loop over k on it
        # would not end; the exponent (k + 1)/b moves by 1/b per step and stays exact.
        q = math.exp(-1.0 / parameter)
        need = math.log(2.0) - math.log1p(q) - math.log1p(-level)
        k = max(0, math.ceil(need * parameter - 1.0))
        while k > 0 and k / parameter >= need:
            k -= 1  # guard against rounding up past the smallest k
        while (k + 1) / parameter < need:
            k += 1
        return float(k)

    def cdf(self, parameter: float, x: ArrayLike) -> FloatArray:
        # P(Z ≤ k) = 1 − q^{k+1}/(1 + q) for k ≥ 0, q^{−k}/(1 + q) for k < 0.
        k = np.floor(np.asarray(x, dtype=np.float64))
        q = math.exp(-1.0 / parameter)
        upper = 1.0 - np.exp(-(np.maximum(k, 0.0) + 1.0) / parameter) / (1.0 + q)
        lower = np.exp(np.minimum(k, 0.0) / parameter) / (1.0 + q)
        return np.asarray(np.where(k >= 0, upper, lower), dtype=np.float64)

    def below(self, parameter: float, x: ArrayLike) -> FloatArray:
        return self.cdf(parameter, np.ceil(np.asarray(x, dtype=np.float64)) - 1.0)

    def sample(self, rng: np.random.Generator, parameter: float, size: int) -> FloatArray:
        p = -math.expm1(-1.0 / parameter)  # the difference of two geometric variables
        return (rng.geometric(p, size) - rng.geometric(p, size)).astype(np.float64)

    def pmf(self, parameter: float, support: ArrayLike) -> FloatArray:
        z = np.asarray(support, dtype=np.float64)
        if np.any(z != np.round(z)):
            raise ValueError("the geometric law's support holds whole numbers only")
        u = -math.expm1(-1.0 / parameter)
        return np.asarray(u / (2.0 - u) * np.exp(-np.abs(z) / parameter), dtype=np.float64)

    def log_mgf(self, parameter: float, t: ArrayLike) -> FloatArray:
        """``log E[e^{tZ}] = 2 log(1 − q) − log(1 − q e^t) − log(1 − q e^{−t})`` for
        ``|t| < 1/b`` (the two geometric series; exact), ``inf`` beyond."""
        a = np.abs(np.asarray(t, dtype=np.float64))
        inv = 1.0 / parameter
        inside = a < inv
        x = np.where(inside, a, 0.0)
        with np.errstate(divide="ignore"):
            got = (
                2.0 * math.log(-math.expm1(-inv))
                - np.log(-np.expm1(x - inv))
                - np.log(-np.expm1(-x - inv))
            )
        return np.asarray(np.where(inside, got, np.inf), dtype=np.float64)


_REGISTRY: dict[str, LinearMechanism] = {}
#: Every linear mechanism by name, in display order (read-only view).
LINEAR_MECHANISMS: Mapping[str, LinearMechanism] = MappingProxyType(_REGISTRY)


def register(mechanism: LinearMechanism) -> None:
    """Add ``mechanism`` to :data:`LINEAR_MECHANISMS` (ValueError if its name is taken)."""
    if mechanism.name in _REGISTRY and type(_REGISTRY[mechanism.name]) is not type(mechanism):
        raise ValueError(f"a linear mechanism named {mechanism.name!r} is registered already")
    _REGISTRY[mechanism.name] = mechanism


register(Laplace())
register(Geometric())

from . import discrete_gaussian as _discrete_gaussian  # noqa: E402, F401  (registers itself)
