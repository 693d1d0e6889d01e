"""What one plan promises and what each mechanism may spend at each point of a design.

:class:`Setting` holds the checked arguments of one :func:`core.planner.engine.plan` call
that every design shares (statistic, promise, relation, budget share, ...).
:func:`point_budgets` asks the design's accounting, at each point, how much every fitting
mechanism may spend (with the exact privacy profile where one is known,
:mod:`core.planner.profiles`), and names the bound; :func:`base_row` starts a plan-table
row from it; :func:`census_rows` are the exact rows of privatising the whole population.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import mechanisms as mech
from ..accounting.zcdp import Promise
from ..designs.frame import Frame
from ..designs.protocol import PlannerDesign
from ..planner import exact, profiles
from ..planner.budgets import default_mechanisms, mechanisms_for, promise_refusal
from ..planner.errors import LEVEL, exact_row, summary_row
from ..planner.simulate import PointBudget, simulate_census

__all__ = ["Setting", "base_row", "census_rows", "point_budgets"]


@dataclass(frozen=True)
class Setting:
    """The checked arguments of one :func:`plan` call that every design shares."""

    statistic: str
    quantile: float
    eps_target: float
    delta_target: float
    relation: str
    reps: int
    seed: int
    share: float
    theta: float
    mechanisms: tuple[str, ...] | None
    sampler: str = "auto"
    memory_budget: int | None = None
    #: The population has a public upper bound (otherwise only the mechanisms that need
    #: none, :data:`core.planner.budgets.NO_UPPER_MECHANISMS`, run).
    bounded: bool = True
    #: The population size ``N`` is public (an invariant published with the release); a
    #: mechanism that divides by it fits added/removed neighbours only then
    #: (:func:`core.planner.budgets.size_refusal`).
    sizes_public: bool = False
    #: The promise is ρ-zCDP with this ρ, and ``eps_target`` its conversion; the (ε, δ)
    #: mechanisms are then not planned (:func:`core.planner.budgets.promise_refusal`).
    rho_target: float | None = None

    def names(self, design: str) -> tuple[str, ...]:
        """The mechanisms fitting ``design``, restricted to the ones asked for (by default
        :func:`core.planner.budgets.default_mechanisms`)."""
        fit = mechanisms_for(
            self.statistic,
            design,
            self.relation,
            bounded=self.bounded,
            sizes_public=self.sizes_public,
        )
        asked = (
            default_mechanisms(
                self.statistic,
                bounded=self.bounded,
                relation=self.relation,
                sizes_public=self.sizes_public,
            )
            if self.mechanisms is None
            else self.mechanisms
        )
        kind = self.promise.kind
        return tuple(m for m in fit if m in asked and not promise_refusal(m, kind))

    @property
    def promise(self) -> Promise:
        """The promise as stated (:meth:`core.accounting.zcdp.Promise.of`)."""
        return Promise.of(self.eps_target, self.rho_target)


def base_row(design: PlannerDesign, name: str, pb: PointBudget) -> dict[str, Any]:
    uses_delta = mech.MECHANISMS[name].uses_delta
    return {
        "design": design.name,
        "design_label": design.label,
        "mechanism": name,
        "mechanism_label": mech.MECHANISMS[name].label,
        "rate": pb.point.rate,
        "n": pb.point.n,
        "clusters_sampled": pb.point.clusters_sampled,
        "eps_sample": pb.eps_sample[name],
        "delta_sample": pb.delta_sample if uses_delta else 0.0,
        "accounting": pb.bound[name],
        "exact": False,
        "error_95_method": "Monte Carlo",
    }


def point_budgets(
    design: PlannerDesign, names: Sequence[str], points: Iterable[Any], setting: Setting
) -> list[PointBudget]:
    """Each point with the budget every mechanism may spend there (times the share).

    The mechanisms' budgets are those at the level planned
    (:meth:`core.mechanisms.Mechanism.budget_factors`); a share below 1 leaves the rest of
    the sample's budget to other releases from the same sample, so the accounting must let
    the shares add (``shared``, :meth:`core.designs.protocol.PlannerDesign.accounting`).
    """
    out = []
    for p in points:
        eps: dict[str, float] = {}
        bound: dict[str, str] = {}
        conversion = setting.promise.conversion
        for m in names:
            factors = mech.MECHANISMS[m].budget_factors(setting.quantile)
            acc = design.accounting(
                setting.eps_target, setting.relation, factors, p, shared=setting.share < 1.0
            )
            acc = profiles.refine(
                design,
                mech.MECHANISMS[m],
                acc,
                eps_target=setting.eps_target,
                delta_target=setting.delta_target,
                relation=setting.relation,
                point=p,
                share=setting.share,
            )
            eps[m] = acc.eps_sample * setting.share
            bound[m] = (
                acc.bound
                if not conversion
                else f"{acc.bound}; the promised ρ = {setting.rho_target:.6g}-zCDP is kept by "
                f"ε_target = {setting.eps_target:.6g} ({conversion})"
            )
        delta = design.delta_sample(setting.delta_target, p) * setting.share
        out.append(PointBudget(p, eps, delta, bound))
    return out


def census_rows(design: PlannerDesign, frame: Frame, setting: Setting) -> list[dict[str, Any]]:
    """Exact rows of privatising the whole population with each fitting mechanism."""
    rows = []
    point = design.point(frame, 1.0)
    assert point is not None
    (pb,) = point_budgets(design, setting.names(design.name), [point], setting)
    for j, name in enumerate(setting.names(design.name)):
        m = exact.mechanism_on_population(name, frame, setting.quantile)
        err = m.exact_error(
            frame.values, pb.eps_sample[name], pb.delta_sample, frame.lower, frame.upper, LEVEL
        )
        row = base_row(design, name, pb)
        if err is None:  # no closed form (the unbounded quantile): releases of the population
            draws = simulate_census(
                m, frame, pb.eps_sample[name], pb.delta_sample, setting.reps, [setting.seed, j]
            )
            summary = summary_row(draws, setting.theta)
            summary.pop("mean_sample_size")
            row.update(summary)
        else:
            mse, e95 = err
            row.update(
                exact_row(math.sqrt(mse), e95, 0.0, mse), exact=True, error_95_method="exact"
            )
        rows.append(row)
    return rows
