"""A promise stated as ρ-zCDP, planned with pure ε-DP mechanisms.

Many agencies state their guarantee as ρ-zero-concentrated differential privacy (Bun &
Steinke 2016; the 2020 US Census did). The planner's mechanisms are pure ε-DP (and a few
(ε, δ) ones). A ρ-zCDP promise is kept by every pure ε-DP release whose ε is small enough:
this module converts between the two with the sharpest conversion known, both ways.

Definitions
-----------
For neighbouring inputs ``x, x'`` write ``P = M(x)``, ``Q = M(x')`` and the Rényi divergence
``D_α(P‖Q) = log E_Q[(P/Q)^α] / (α − 1)`` for ``α > 1``. ``M`` is *ρ-zCDP* when
``D_α(P‖Q) ≤ ρ·α`` for every ``α > 1`` and every neighbouring pair (Bun & Steinke 2016,
Definition 1.1 with ``ξ = 0``). ``M`` is *ε-DP* when ``P/Q ∈ [e^{−ε}, e^{ε}]`` everywhere.

The conversion
--------------
**Theorem** (sharp pure DP to zCDP; Steinke 2024, Theorem 5, improving Bun & Steinke 2016,
Proposition 3.3, which gives ``ε²/2``). An ε-DP mechanism is ρ-zCDP with

    ρ(ε) = ε · (e^ε − 1)/(e^ε + 1) = ε · tanh(ε/2)  ≤  ε²/2,

and no smaller ρ holds for every ε-DP mechanism.

*Proof.* (1) Randomized response is the worst case. Fix ``α > 1`` and a neighbouring pair;
``z = P(y)/Q(y)`` lies in ``[e^{−ε}, e^{ε}]`` and ``E_Q[z] = 1``. Round ``z`` at random to
``e^{±ε}`` keeping its mean: by Jensen (``v ↦ v^α`` is convex) ``E_Q[z^α]`` is at most the
same moment for the two-point law with ``E = 1``, which is randomized response
``RR_ε``: ``P = (p, 1 − p)``, ``Q = (1 − p, p)``, ``p = e^ε/(1 + e^ε)``. So
``D_α(P‖Q) ≤ D_α(RR_ε)`` for every α.

(2) ``D_α(RR_ε) ≤ α·ε·tanh(ε/2)``. Write ``t = α − 1 > 0``, ``m = tanh(ε/2) = 2p − 1`` and
``L = ±ε`` the privacy loss under ``P`` (``+ε`` with probability ``p``). Then
``(α − 1)·D_α = log E_P[e^{tL}] = log(cosh λ + m·sinh λ)`` with ``λ = tε``. The
Kearns–Saul inequality (the sharp sub-Gaussian constant of a Bernoulli variable; Kearns &
Saul 1998, Berend & Kontorovich 2013) gives
``log E e^{λ(L/ε − m)} ≤ λ²·m/ε`` when ``L/ε`` is ±1 with mean ``m`` (its constant
``(1 − 2p)/(4 log((1 − p)/p))`` for a 0/1 variable of mean ``p`` equals ``m/(4ε)``,
and ``L/ε − m`` is twice such a centred variable). Hence
``(α − 1)·D_α ≤ λm + λ²m/ε = t(t + 1)·ε·m``, i.e.
``D_α ≤ α·ε·tanh(ε/2)``.

(3) Tightness: ``D_α(RR_ε)/α → KL(RR_ε) = ε·(2p − 1) = ε·tanh(ε/2)`` as ``α ↓ 1``.
Therefore ``sup_α D_α(RR_ε)/α = ε·tanh(ε/2)`` exactly (the tests compute it independently
with 60-digit Rényi divergences). ∎

Small ε: ``ρ(ε) = ε²/2 − ε⁴/24 + O(ε⁶)``, so the Bun–Steinke ``ε²/2`` is sharp to first
order and the gain is at moderate and large ε (``ρ(ε) → ε`` as ``ε → ∞``, against
``ε²/2``).

The inverse
-----------
Under a promise of ρ-zCDP the planner plans with the largest ``ε_target`` whose pure
guarantee implies it: the unique root of ``ε·tanh(ε/2) = ρ`` (``ρ(ε)`` is continuous and
strictly increasing from 0 to ∞). It lies between ``max(√(2ρ), ρ)`` (since
``ρ(ε) ≤ min(ε²/2, ε)``) and ``(ρ + √(ρ² + 8ρ))/2`` (since ``tanh x ≥ x/(1 + x)`` for
``x ≥ 0``, so ``ρ(ε) ≥ ε²/(2 + ε)``); Brent's method on that bracket gives it to full
relative precision from ``ρ = 1e-300`` to ``1e300``.

An (ε, δ)-DP mechanism with ``δ > 0`` implies no zCDP bound at all (its privacy loss may be
infinite with probability δ), so under a ρ promise those mechanisms are not planned with a
converted ε.

References
----------
Bun, M. & Steinke, T. (2016). Concentrated differential privacy: simplifications, extensions,
and lower bounds. TCC 2016-B (arXiv:1605.02065), Definition 1.1, Proposition 3.3.
Steinke, T. (2024). Sharp RDP & zCDP from pure DP. DifferentialPrivacy.org, Theorems 4–5.
Kearns, M. & Saul, L. (1998). Large deviation methods for approximate probabilistic
inference. UAI 1998.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import optimize

from .._validation import check_choice, finite_scalar

__all__ = [
    "CONVERSION",
    "CONVERSION_FORMULA",
    "PROMISE_KINDS",
    "Promise",
    "bun_steinke_rho",
    "eps_target_for_rho",
    "rho_for_eps",
]

#: The conversion's name, as the plans and reports state it.
CONVERSION = "sharp pure-DP-to-zCDP conversion (Steinke 2024, Theorem 5)"
#: Its formula in plain text.
CONVERSION_FORMULA = "ε-DP implies ρ-zCDP with ρ = ε·tanh(ε/2) = ε·(e^ε − 1)/(e^ε + 1)"
#: How a promise may be stated: pure ε-DP, or ρ-zCDP.
PROMISE_KINDS = ("eps", "zcdp")

_RTOL = 4.0 * 2.0**-52


def _positive(name: str, value: object) -> float:
    x = finite_scalar(name, value)
    if x <= 0:
        raise ValueError(f"{name} must be a finite number > 0; got {value!r}")
    return x


def rho_for_eps(eps: float) -> float:
    """The smallest ρ such that every ε-DP mechanism is ρ-zCDP: ``ε·tanh(ε/2)``.

    Steinke (2024), Theorem 5 (module docstring for the proof); at most Bun & Steinke's
    ``ε²/2`` (:func:`bun_steinke_rho`), equal to it to first order as ``ε → 0``, and
    ``→ ε`` as ``ε → ∞``. Exact to a few ulps for every finite ``ε > 0``.

    Parameters
    ----------
    eps : float
        The pure guarantee ε, finite and > 0.

    Returns
    -------
    float
        ρ, in ``(0, ε)``.

    Raises
    ------
    ValueError
        When ``eps`` is not a finite number > 0.
    """
    e = _positive("eps", eps)
    return e * math.tanh(0.5 * e)


def bun_steinke_rho(eps: float) -> float:
    """Bun & Steinke's (2016, Proposition 3.3) conversion ``ρ = ε²/2``: valid, not sharp.

    Kept as the reference the sharp :func:`rho_for_eps` improves on; ``inf`` when ``ε²``
    overflows.

    Raises
    ------
    ValueError
        When ``eps`` is not a finite number > 0.
    """
    e = _positive("eps", eps)
    return 0.5 * e * e if e < 1e154 else math.inf


def eps_target_for_rho(rho: float) -> float:
    """The largest ε whose pure ε-DP guarantee implies ρ-zCDP: the inverse of
    :func:`rho_for_eps`.

    The root of ``ε·tanh(ε/2) = ρ``, by Brent's method on the bracket
    ``[max(√(2ρ), ρ), (ρ + √ρ·√(ρ + 8))/2]`` (module docstring), to full relative
    precision, rounded down so that ``rho_for_eps`` of it never exceeds ρ:
    ``≈ √(2ρ)`` for small ρ (``√2·1e-6`` at ``ρ = 1e-12``), ``≈ ρ`` for large ρ.

    Parameters
    ----------
    rho : float
        The promised ρ, finite and > 0.

    Returns
    -------
    float
        ε_target, finite and > 0.

    Raises
    ------
    ValueError
        When ``rho`` is not a finite number > 0.
    """
    r = _positive("rho", rho)
    lo = math.sqrt(2.0 * r) if r < 2.0 else r  # max(√(2ρ), ρ) without overflow
    hi = 0.5 * (r + math.sqrt(r) * math.sqrt(r + 8.0))
    if lo >= hi or lo * math.tanh(0.5 * lo) >= r:
        root = lo  # the bracket closes within rounding (large ρ, where ε = ρ)
    elif hi * math.tanh(0.5 * hi) <= r:
        root = hi
    else:
        root = float(
            optimize.brentq(
                lambda e: e * math.tanh(0.5 * e) - r, lo, hi, xtol=1e-300, rtol=_RTOL, maxiter=400
            )
        )
    # Never promise more than ρ: step down the last ulps a rounded root may be above it.
    while root * math.tanh(0.5 * root) > r:
        root = math.nextafter(root, 0.0)
    return root


@dataclass(frozen=True)
class Promise:
    """The guarantee an agency signs off, as it states it: pure ε-DP or ρ-zCDP.

    Attributes
    ----------
    kind : str
        ``"eps"`` (pure ε-DP, the planner's native promise) or ``"zcdp"`` (ρ-zCDP).
    value : float
        ε_target for ``"eps"``, ρ for ``"zcdp"``; finite and > 0.
    """

    kind: str
    value: float

    def __post_init__(self) -> None:
        check_choice("promise", self.kind, PROMISE_KINDS)
        name = "eps_target" if self.kind == "eps" else "rho_target"
        object.__setattr__(self, "value", _positive(name, self.value))

    @classmethod
    def of(cls, eps_target: float, rho_target: float | None) -> Promise:
        """The promise of a plan that carries both: ρ-zCDP when ``rho_target`` is given
        (``eps_target`` is then its conversion), pure ``eps_target`` otherwise."""
        return cls("eps", eps_target) if rho_target is None else cls("zcdp", rho_target)

    @classmethod
    def stated(cls, *, eps_target: object = None, rho_target: object = None) -> Promise:
        """The promise from the two arguments a plan takes, exactly one of them given.

        Raises
        ------
        ValueError
            When both or neither are given, or the one given is not a finite number > 0.
        """
        if (eps_target is None) == (rho_target is None):
            raise ValueError(
                "state the promise once: eps_target (pure ε-DP) or rho_target (ρ-zCDP), not "
                f"both and not neither; got eps_target={eps_target!r}, "
                f"rho_target={rho_target!r}"
            )
        if rho_target is None:
            return cls("eps", eps_target)  # type: ignore[arg-type]
        return cls("zcdp", rho_target)  # type: ignore[arg-type]

    @property
    def eps_target(self) -> float:
        """The pure ε_target the planner plans with (for ρ-zCDP, :func:`eps_target_for_rho`)."""
        return self.value if self.kind == "eps" else eps_target_for_rho(self.value)

    @property
    def rho(self) -> float | None:
        """The promised ρ (``None`` for a pure ε promise)."""
        return self.value if self.kind == "zcdp" else None

    @property
    def conversion(self) -> str:
        """The conversion used, named with its formula (empty for a pure ε promise)."""
        if self.kind == "eps":
            return ""
        return f"{CONVERSION}: {CONVERSION_FORMULA}"

    def describe(self) -> str:
        """The promise in one line, with the converted ε_target and the conversion."""
        if self.kind == "eps":
            return f"ε_target = {self.value:.6g} (pure ε-DP)"
        return (
            f"ρ = {self.value:.6g}-zCDP, kept by pure ε_target = {self.eps_target:.6g}-DP "
            f"({self.conversion})"
        )
