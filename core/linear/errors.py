"""The 95 % bound of a linear release's error: sampling error plus the scaled noise.

A release is ``w (Σ_S y + Z)``; its error about ``Σ y`` is ``E + w Z`` with ``E`` the
estimator's sampling error (mean 0, variance ``σ²``, :mod:`core.linear.moments`) and ``Z``
the noise, independent of the sample.

* **Census** (``σ = 0``): the error is ``Z`` itself and its bound is the noise's exact
  quantile (:meth:`core.linear.mechanisms.LinearMechanism.abs_quantile`).
* **A sample**: ``E`` is taken as ``Normal(0, σ²)`` (the planner's rule for the mean,
  :data:`NORMAL_APPROXIMATION`); the convolution with the noise is then exact.  Laplace
  noise gives the normal–Laplace law (:func:`core.designs.normal_laplace.
  normal_laplace_abs_quantile`); an integer noise with law ``p`` gives, with ``Φ`` the
  normal CDF and the symmetry ``p(z) = p(−z)``::

      P(|E + wZ| ≤ x) = Σ_z p(z) [Φ((x − wz)/σ) − Φ((−x − wz)/σ)]
                      = 2 Σ_z p(z) Φ((x − wz)/σ) − 1,

  the sum taken term by term over the ``z`` with ``|x − wz| ≤ 10σ`` (and within the noise's
  ``1 − 10⁻¹⁶`` range), the rest read from the noise's CDF (their ``Φ`` is 0 or 1 to within
  ``10⁻²³``; :func:`lattice_abs_quantile`).  Beyond :data:`TERMS` terms the lattice is
  summed in blocks of ``s`` neighbouring ``z``, each at its middle: a block is at most
  1/200 of ``σ`` wide and 1/50 of the noise's scale, so the coverage moves by less than
  ``10⁻⁵`` (far below the normal approximation's own error).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from scipy import special
from scipy.optimize import brentq

if TYPE_CHECKING:
    from .mechanisms import LinearMechanism

__all__ = ["EXACT", "NORMAL_APPROXIMATION", "TERMS", "lattice_abs_quantile", "release_error"]

#: How ``error_95`` is known: the noise's exact law (census).
EXACT = "exact"
#: ... or the sampling error taken as normal, convolved exactly with the noise.
NORMAL_APPROXIMATION = "normal approximation of the sampling error"
#: Most terms of the lattice sum per evaluation (module docstring).
TERMS = 4000
_REACH = 10.0  # Φ(−10) < 1e-23


def _lower_mass(mechanism: LinearMechanism, parameter: float, z: float) -> float:
    return float(mechanism.cdf(parameter, np.array([z]))[0])


def lattice_abs_quantile(
    mechanism: LinearMechanism, parameter: float, weight: float, sigma: float, level: float
) -> float:
    """``x`` with ``P(|E + wZ| ≤ x) = level``, ``E ~ Normal(0, σ²)``, ``Z`` integer (module
    docstring), by Brent's method on the coverage, which increases with ``x``."""
    reach = mechanism.abs_quantile(parameter, 1.0 - 1e-16)

    def half(x: float) -> float:
        a = max(math.ceil((x - _REACH * sigma) / weight), -reach)
        b = min(math.floor((x + _REACH * sigma) / weight), reach)
        got = _lower_mass(mechanism, parameter, a - 1.0)
        if a > b:
            return got
        count = int(b - a) + 1
        if count <= TERMS:
            z = np.arange(a, b + 1.0)
            mass = mechanism.pmf(parameter, z)
            at = z
        else:
            step = math.ceil(count / TERMS)
            start = np.arange(a, b + 1.0, step)
            end = np.minimum(start + step - 1.0, b)
            mass = mechanism.cdf(parameter, end) - mechanism.cdf(parameter, start - 1.0)
            at = 0.5 * (start + end)
        return got + float(np.dot(mass, special.ndtr((x - weight * at) / sigma)))

    def gap(x: float) -> float:
        return 2.0 * half(x) - 1.0 - level

    # The bracket: |E + wZ| is stochastically larger than |E| (Anderson's theorem, E normal),
    # and P(|E + wZ| > a + b) ≤ P(|E| > a) + P(|wZ| > b) with each (1 − level)/2.
    low = sigma * float(special.ndtri(0.5 + 0.5 * level))
    top = sigma * float(special.ndtri(1.0 - 0.25 * (1.0 - level))) + weight * (
        mechanism.abs_quantile(parameter, 0.5 + 0.5 * level)
    )
    while gap(top) < 0.0:  # guards rounding only
        top *= 2.0
    if gap(low) > 0.0:
        low = 0.0
    return float(brentq(gap, low, top, xtol=1e-10 * top, rtol=1e-10))


def release_error(
    mechanism: LinearMechanism, parameter: float, weight: float, variance: float, level: float
) -> tuple[float, str]:
    """The ``level`` bound of ``|E + wZ|`` and how it is known (module docstring).

    Parameters
    ----------
    mechanism, parameter
        The noise ``Z`` and its parameter.
    weight : float
        ``w``, the estimator's weight (1 for the census).
    variance : float
        ``σ²``, the design variance of the estimator (0: no sampling error).
    level : float
        In (0, 1).
    """
    if variance <= 0.0:
        return weight * mechanism.abs_quantile(parameter, level), EXACT
    sigma = math.sqrt(variance)
    return mechanism.error_bound(parameter, weight, sigma, level), NORMAL_APPROXIMATION
