"""Utility loss of subsampling and of noise, and the equal-utility calibration (§4.4, §6).

Breutigam & Reischuk, "Statistical Privacy": the variance each mechanism adds to the
answer, the noise multiplier that matches subsampling's loss, and the ε of Laplace noise at
that multiplier.
"""

from __future__ import annotations

import math

from .._validation import check_choice
from ..statistical.checks import Noise, _check_m, _check_n, _check_nu, _check_pi

__all__ = [
    "equal_utility_noise_multiplier",
    "laplace_eps_at_equal_utility",
    "utility_loss_noise",
    "utility_loss_subsampling",
]


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
