"""The planner's budget from an exact privacy profile, where it beats the generic theorem.

A design's accounting (:meth:`core.designs.protocol.PlannerDesign.accounting`) uses its
amplification theorem on the mechanism's ``(ε_sample, δ_sample)``: for a simple random
sample, ``ε_target = ln(1 + r (e^ε_sample − 1))`` and ``δ_target = r δ_sample``, with
``δ_sample`` capped at 0.5 (:meth:`core.designs.individual.SimpleRandom.delta_sample`).
For a mechanism whose noise has an exact privacy profile under the design's sampling
(:attr:`core.mechanisms.Mechanism.exact_profile`, :attr:`PlannerDesign.exact_profile`:
the Gaussian mean on a simple random sample), :func:`refine` takes the larger of that
budget and the exact profile's (:func:`core.accounting.gaussian_profile.exact_budget`),
and names which one it used.

The two agree whenever ``δ_target / r ≤ 0.5``: the analytic Gaussian mechanism is
calibrated to its exact profile, and the generic theorem applied to that profile is
exact for one release (proved in :mod:`core.accounting.gaussian_profile`).  They differ
where the design caps ``δ_sample`` at 0.5 (``r / 2 < δ_target < r``): there the exact
profile lets the mean spend more, and the row's ``accounting`` says so, e.g.
``"… ε_sample 7.9 (exact privacy loss distribution) instead of 6.8 (generic theorem)"``.
When ``δ_target ≥ r`` sampling alone meets ``δ_target`` (the exact profile allows any
noise); the planner keeps the generic budget there, a finite one.

Only a release that spends the whole budget on its own is refined (``share = 1``): with
a budget share the sample's budget is composed with other releases by the generic route,
which the exact profile of one Gaussian does not cover.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..accounting import gaussian_profile as gp
from ..designs.protocol import Accounting, PlannerDesign, Point

if TYPE_CHECKING:
    from ..mechanisms import Mechanism

__all__ = ["refine"]


def refine(
    design: PlannerDesign,
    mechanism: type[Mechanism] | None,
    accounting: Accounting,
    *,
    eps_target: float,
    delta_target: float,
    relation: str,
    point: Point,
    share: float = 1.0,
) -> Accounting:
    """``accounting``, or the exact profile's budget when that is larger (module docstring).

    Parameters
    ----------
    design : PlannerDesign
        The design; refined only when it has an :attr:`~PlannerDesign.exact_profile`.
    mechanism : type of Mechanism or None
        Refined only when its :attr:`~core.mechanisms.Mechanism.exact_profile` is
        ``"gaussian"``.
    accounting : Accounting
        The design's own budget for ``eps_target`` (:meth:`PlannerDesign.accounting`).
    eps_target, delta_target : float
        The promise, ``eps_target > 0`` and ``delta_target`` in (0, 1).
    relation : str
        Refined only under ``"replacement"`` (the simple random sample's profile is for a
        changed record).
    point : Point
        The design's point (its rate).
    share : float
        The release's share of the budget; refined only at 1.

    Returns
    -------
    Accounting
        With ``bound`` naming the exact profile and what it gains, when it gains.
    """
    scheme = design.exact_profile
    if (
        scheme is None
        or mechanism is None
        or mechanism.exact_profile != "gaussian"
        or relation != "replacement"
        or share != 1.0
        or not 0.0 < point.rate < 1.0
        or not 0.0 < delta_target < 1.0
    ):
        return accounting
    budget = gp.exact_budget(
        eps_target, delta_target, point.rate, scheme, design.delta_sample(delta_target, point)
    )
    eps = budget.exact_eps_sample
    if not (math.isfinite(eps) and eps > accounting.eps_sample * (1.0 + 1e-9)):
        return accounting
    return Accounting(
        eps,
        f"{design.theorem}, with the Gaussian mean's exact privacy profile under sampling: "
        f"ε_sample {eps:.3g} ({gp.EXACT_BOUND}) instead of {accounting.eps_sample:.3g} "
        f"({gp.GENERIC_BOUND})",
    )
