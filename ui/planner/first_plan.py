"""The Release planner's comparison at the page's defaults, computed before anyone asks.

A server started with a large register (:mod:`ui.command_line`) shows that register on every
page by default, so the planner's first visitor asks for one known plan: the comparison at the
page's default controls. :func:`plan_page_defaults` computes it through the page's own cached
calls (:mod:`ui.planner.cache`), in the background thread that read the file, and the
planner's first visit then finds it (or waits for it to finish, as for any cached call another
session is computing) instead of starting it. A visitor who changes a control first gets a
plan of their own, as before.
"""

from __future__ import annotations

from core.populations import Population
from ui.page_defaults import delta_target_default
from ui.planner import cache, compare, text
from ui.planner.inputs import PlannerInputs, population_problem

__all__ = ["default_inputs", "plan_page_defaults"]


def default_inputs(pop: Population, seed: int = 0) -> PlannerInputs:
    """The planner page's inputs before any control is touched, on ``pop`` with ``seed``.

    Each control's first option or default value, read where the page's controls read
    them: the median, the pure ε promise at :data:`ui.planner.text.EPS_TARGET_DEFAULT`,
    δ_target = 1/(2N), the first relation and objective,
    :data:`ui.planner.text.REPS_DEFAULT` repetitions, every pickable design the population
    supports, the default mechanisms and rates, sizes not public.
    """
    statistic = next(iter(text.STATISTIC_LABELS))
    relation = next(iter(text.RELATION_LABELS))
    statuses = cache.statuses(pop.content_hash, pop, statistic, relation)
    available = {s.name for s in statuses if s.available}
    return PlannerInputs(
        pop=pop,
        seed=seed,
        statistic=statistic,
        eps_target=text.EPS_TARGET_DEFAULT,
        delta_target=delta_target_default(max(pop.size, 1)),
        relation=relation,
        designs=tuple(d for d in text.PICKABLE_DESIGNS if d in available),
        rates=None,
        reps=text.REPS_DEFAULT,
        objective=next(iter(text.OBJECTIVE_LABELS)),
        statuses=statuses,
    )


def plan_page_defaults(pop: Population, seed: int = 0) -> None:
    """Fill the page's caches with the comparison it shows first on ``pop``.

    The designs' statuses, the default rates and the plan at :func:`default_inputs`, each
    through the cached call the page makes, so the page's first run finds them. Nothing is
    computed for a population the planner refuses (:func:`ui.planner.inputs.population_problem`).
    """
    if population_problem(pop) is not None:
        return
    cache.default_rates(pop.content_hash, pop)
    compare.run_plan(default_inputs(pop, seed))
