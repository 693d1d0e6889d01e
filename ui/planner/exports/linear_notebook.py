"""The reproducing notebook of a plan for a count, total or proportion.

:func:`linear_notebook` rebuilds the active population from its recipe and calls
:func:`core.linear.plan.plan_linear` with exactly the page's parameters, so the numbers it
prints are the page's numbers (every row is exact: no seed, no repetitions). It writes no
date.
"""

from __future__ import annotations

from collections.abc import Sequence

import nbformat
from nbformat import v4

from core.linear.mechanisms import LINEAR_MECHANISMS
from core.linear.post_errors import POST_CHOICES
from core.linear.statistic import KINDS
from core.planner import DESIGN_LABELS, OBJECTIVES, RELATIONS
from ui.planner.exports.checks import (
    OBJECTIVE_LABELS,
    RELATION_LABELS,
    check_choice,
    check_designs,
    check_float,
    check_rates,
    check_recipe,
    package_imports,
    recipe_function,
)
from ui.planner.exports.notebook import _RANKED_CODE, _STATUS_CODE, _code_span
from ui.planner.linear_text import statistic_code

__all__ = ["linear_notebook"]

_VERDICT_CODE = """\
# The census against every sample: each design's best rate, rate × eps_sample (below
# eps_target for every rate under 1) and its error against the census's.
census = result.census
print(f"census mechanism = {census['mechanism']}, error_95 = {float(census['error_95'])!r}")
best = result.best_by_design.copy()
best["rate_x_eps_sample"] = best["rate"] * best["eps_sample"]
best[["design", "mechanism", "rate", "eps_sample", "rate_x_eps_sample", "error_95", "gain"]]
"""

_POST_TEXT = (
    "## After rounding to whole numbers ≥ 0\n\nRounding is post-processing: it reads the "
    "released number only, so it costs no privacy. `post_method` says how each error after "
    "rounding is known: exact from the noise's law (no sampling error), or bounded by the "
    "error before rounding plus ½."
)
_POST_CODE = """\
result.best_by_design[
    ["design", "mechanism", "rate", "rmse", "rmse_post", "error_95", "error_95_post",
     "post_method"]
]
"""


def linear_notebook(
    *,
    recipe: str,
    kind: str,
    column: str | None,
    category: str | None,
    value_range: tuple[float, float] | None,
    eps_target: float,
    delta_target: float | None,
    designs: Sequence[str] | None,
    rates: Sequence[float] | None,
    mechanisms: Sequence[str] | None,
    relation: str,
    objective: str = "error_95",
    sizes_public: bool = False,
    rho_target: float | None = None,
    post: str = "none",
) -> str:
    """A Jupyter notebook (JSON text) that plans the page's count, total or proportion.

    Parameters
    ----------
    recipe
        One call of a population builder with literal arguments (the population's recipe).
    kind, column, category, value_range
        The statistic (:class:`core.linear.statistic.LinearStatistic`).
    eps_target, delta_target, designs, rates, mechanisms, relation, sizes_public, rho_target
        :func:`core.linear.plan.plan_linear`'s arguments as the page passed them.
    post
        ``"round"``: the release is rounded to whole numbers ≥ 0 and the notebook prints the
        errors after rounding; ``"none"``: not.

    Raises
    ------
    ValueError
        For an unknown kind, design, mechanism or relation, a bad number or recipe.
    """
    recipe = check_recipe(recipe)
    kind = check_choice("kind", kind, KINDS)
    relation = check_choice("relation", relation, RELATIONS)
    objective = check_choice("objective", objective, OBJECTIVES)
    post = check_choice("post", post, POST_CHOICES)
    eps = check_float(
        "eps_target", eps_target, low=0.0, high=float("inf"), low_open=True, high_open=True
    )
    chosen_designs = check_designs(designs)
    chosen_rates = check_rates(rates)
    chosen_mechanisms = (
        None
        if mechanisms is None
        else tuple(check_choice("mechanism", m, LINEAR_MECHANISMS) for m in mechanisms)
    )
    stat = statistic_code(kind, column, category, value_range)
    promise = f"eps_target={eps!r}" + ("" if rho_target is None else f", rho_target={rho_target!r}")
    parameters = [
        f"- population: {_code_span(recipe)}",
        f"- statistic: {_code_span(stat)}",
        f"- promise: {_code_span(promise)}, δ_target = {delta_target!r}",
        "- designs: "
        + (
            "every design the population supports"
            if chosen_designs is None
            else ", ".join(DESIGN_LABELS[name] for name in chosen_designs)
        ),
        "- rates: "
        + ("the default rates" if chosen_rates is None else ", ".join(map(repr, chosen_rates))),
        "- mechanisms: "
        + (
            "every linear mechanism"
            if chosen_mechanisms is None
            else ", ".join(str(LINEAR_MECHANISMS[m].label) for m in chosen_mechanisms)
        ),
        f"- neighbouring populations: {RELATION_LABELS[relation]}",
        f"- plans ranked by: {OBJECTIVE_LABELS[objective]}",
    ]
    if post != "none":
        parameters.append(
            "- release: rounded to whole numbers ≥ 0 (post-processing: it costs no privacy)"
        )
    intro = "\n".join(
        [
            "# Release plan for a count, total or proportion: reproduce the planner's numbers",
            "",
            "This notebook was written by the Release planner page of the Sampling & privacy "
            "explorer. It rebuilds the population and calls `dp_sampling.linear.plan."
            "plan_linear` with the page's parameters. Every error is a closed form (no Monte "
            "Carlo), so the printed numbers are the page's to the last digit.",
            "",
            "**It needs the package `dp_sampling`**, the explorer's core: install it once with "
            "`pip install <folder of a clone of the explorer>`.",
            "",
            "Parameters:",
            "",
            *parameters,
        ]
    )
    call = [
        "stat",
        f"eps_target={eps!r}",
        f"delta_target={delta_target!r}",
        f"designs={chosen_designs!r}",
        f"rates={chosen_rates!r}",
        f"mechanisms={chosen_mechanisms!r}",
        f"relation={relation!r}",
        f"objective={objective!r}",
        f"sizes_public={bool(sizes_public)!r}",
    ]
    if rho_target is not None:
        call.append(f"rho_target={float(rho_target)!r}")
    if post != "none":
        call.append(f"post={post!r}")
    plan_code = (
        f"pop = {recipe}\n"
        'print(f"N = {pop.size:,}")\n\n'
        f"stat = {stat}\n"
        "result = plan_linear(\n    pop,\n" + "".join(f"    {a},\n" for a in call) + ")\n"
    )
    setup = package_imports(
        "notebook",
        "from dp_sampling.linear.plan import plan_linear",
        "from dp_sampling.linear.statistic import LinearStatistic",
        f"from dp_sampling.populations import {recipe_function(recipe)}",
    )
    notebook = v4.new_notebook(
        cells=[
            v4.new_markdown_cell(intro),
            v4.new_code_cell(setup),
            v4.new_code_cell(plan_code),
            v4.new_markdown_cell(
                "## Best rate of each design, ranked\n\nOne row per design and mechanism at "
                "its best rate, best first; `gain` is 1 − error/error of the census."
            ),
            v4.new_code_cell(_RANKED_CODE),
            v4.new_markdown_cell("## The verdict: privatise the whole register, and why"),
            v4.new_code_cell(_VERDICT_CODE),
            *(
                [
                    v4.new_markdown_cell(_POST_TEXT),
                    v4.new_code_cell(_POST_CODE),
                ]
                if post != "none"
                else []
            ),
            v4.new_markdown_cell("## The designs and their theorems"),
            v4.new_code_cell(_STATUS_CODE),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
    )
    nbformat.validate(notebook)
    return str(nbformat.writes(notebook))
