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

The package holds one module per step: :mod:`core.statistical.checks` (argument checks and
limits), :mod:`core.statistical.distributions` (the exact output PMFs and the discrete
hockey sticks), :mod:`core.statistical.noise` (the Gaussian and Laplace mixtures),
:mod:`core.statistical.curves` (the public privacy curves ``delta_*``),
:mod:`core.statistical.closed_forms` (the paper's closed forms, as cross-checks) and
:mod:`core.statistical.utility` (utility loss and the equal-utility calibration).
"""

from __future__ import annotations

from ..amplification import sample_size
from ..statistical.checks import MAX_N, MIN_NOISE_MULTIPLIER
from ..statistical.checks import Mechanism as Mechanism
from ..statistical.checks import Noise as Noise
from ..statistical.closed_forms import (
    delta_gaussian_normal_approx,
    delta_no_mechanism_closed_form,
    delta_subsampling_closed_form,
    laplace_pure_eps,
)
from ..statistical.curves import (
    delta_directions,
    delta_dp_gaussian,
    delta_dp_laplace,
    delta_dp_subsampling,
    delta_gaussian,
    delta_laplace,
    delta_no_mechanism,
    delta_subsampling,
)
from ..statistical.distributions import OutputPmfs, pmfs_no_mechanism, pmfs_subsampling
from ..statistical.noise import noisy_query_densities
from ..statistical.utility import (
    equal_utility_noise_multiplier,
    laplace_eps_at_equal_utility,
    utility_loss_noise,
    utility_loss_subsampling,
)

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
