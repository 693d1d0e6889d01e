"""Several statistics released from one sample: their budgets compose, then amplify once.

The k releases run on the same secret sample, so they compose there (basic composition)
and the design amplifies the total once.  Amplifying each part and adding understates the
loss when the design's bound is superadditive (OpenDP issue #2933 records this pitfall).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.planner.budgets import eps_sample_for, eps_target_for
from core.planner.budgets import positive as _positive

__all__ = ["BudgetSplit", "budget_split"]


@dataclass(frozen=True)
class BudgetSplit:
    """Budgets of several statistics released from one sample (:func:`budget_split`).

    Attributes
    ----------
    design : str
    eps_target : float
        The promise for all statistics together.
    shares : tuple of float
        Each statistic's share of the sample budget (normalised to sum to 1).
    eps_sample_total : float
        The budget the design allows on the sample for ``eps_target``.
    eps_samples : tuple of float
        Each statistic's part of ``eps_sample_total``.
    eps_target_correct : float
        ``amp(ε_1 + … + ε_k)``: the budgets compose on the sample, then the design
        amplifies once (equals ``eps_target``).
    eps_target_naive : float
        ``amp(ε_1) + … + amp(ε_k)``: amplifying each and adding, which understates the
        loss when the design's bound is superadditive (always for SRS and Poisson).
    """

    design: str
    eps_target: float
    shares: tuple[float, ...]
    eps_sample_total: float
    eps_samples: tuple[float, ...]
    eps_target_correct: float
    eps_target_naive: float


def budget_split(
    design: str,
    eps_target: float,
    shares: Sequence[float],
    *,
    relation: str = "replacement",
    rate: float | None = None,
    sizes: Any = None,
    clusters_sampled: int | None = None,
) -> BudgetSplit:
    """Split the sample budget for ``eps_target`` across statistics released from one sample.

    The k releases run on the same secret sample, so they compose there (basic composition:
    ``ε_1 + … + ε_k``) and the sampling amplifies the total once:
    ``ε_target = amp(ε_1 + … + ε_k)``. The naive total ``Σ amp(ε_i)`` treats each release
    as if it had its own independent sample; for a convex ``amp`` with ``amp(0) = 0``
    (SRS and Poisson: ``ln(1 + r(e^ε − 1))``) it is never larger, so it understates the loss
    (OpenDP issue #2933 records this pitfall).

    Parameters
    ----------
    design, relation, rate, sizes, clusters_sampled
        As for :func:`eps_sample_for`.
    eps_target : float
        The promise for all statistics together.
    shares : sequence of float
        Positive weights, one per statistic (normalised).

    Returns
    -------
    BudgetSplit
    """
    w = np.asarray([_positive("share", x) for x in shares], dtype=np.float64)
    if w.size == 0:
        raise ValueError("shares must list at least one positive weight")
    w = w / w.sum()
    kw: dict[str, Any] = {
        "relation": relation,
        "rate": rate,
        "sizes": sizes,
        "clusters_sampled": clusters_sampled,
    }
    total = eps_sample_for(design, eps_target, **kw)
    parts = tuple(float(total * x) for x in w)
    correct = eps_target_for(design, total, **kw)
    naive = float(sum(eps_target_for(design, e, **kw) for e in parts))
    return BudgetSplit(
        design,
        _positive("eps_target", eps_target),
        tuple(map(float, w)),
        total,
        parts,
        correct,
        naive,
    )
