"""The reproducing notebook of a release plan (``.ipynb`` text built with the nbformat v4 API).

:func:`plan_notebook` rebuilds the active population from its recipe and calls
:func:`core.planner.plan` with exactly the page's parameters, so the numbers it prints are the
page's numbers. It writes no date: one plan gives the same text every time. User text (a
population or file name) is kept in a code span in the notebook's Markdown.
"""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

import nbformat
from nbformat import v4

from core.accounting.zcdp import CONVERSION, CONVERSION_FORMULA
from core.planner import DESIGN_LABELS, OBJECTIVES, RELATIONS, STATISTICS
from core.planner.usability import DEFAULT_USABLE_SHARE
from ui.format import fmt
from ui.planner.compare_text import CLAIM_RULE
from ui.planner.exports.checks import (
    DESIGN_EXPLANATIONS,
    GROUP_PRIVACY_NOTE,
    OBJECTIVE_LABELS,
    RELATION_LABELS,
    check_choice,
    check_designs,
    check_float,
    check_int,
    check_mechanisms,
    check_rates,
    check_recipe,
    mechanism_words,
    package_imports,
    recipe_function,
    statistic_words,
)
from ui.planner.text import sizes_words

__all__ = ["plan_notebook"]


def _app_version() -> str | None:
    """The app's version from ``pyproject.toml`` at the repository root, if it is there."""
    path = Path(__file__).resolve().parents[3] / "pyproject.toml"
    try:
        with path.open("rb") as handle:
            version = tomllib.load(handle)["project"]["version"]
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError):
        return None
    return str(version)


def _code_span(text: str) -> str:
    """``text`` as a Markdown code span: shown literally, never rendered as Markdown or HTML."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _setup_code(loader: str) -> str:
    """The notebook's imports: the planner and the one builder its recipe calls."""
    return package_imports(
        "notebook",
        "from dp_sampling.planner import plan",
        f"from dp_sampling.populations import {loader}",
    )


_RANKED_CODE = """\
ranked = result.best_by_design
for rank, row in enumerate(ranked.to_dict("records"), start=1):
    print(
        f"{rank}. {row['design']} / {row['mechanism']}: rate = {float(row['rate'])!r}, "
        f"eps_sample = {float(row['eps_sample'])!r}, rmse = {float(row['rmse'])!r}, "
        f"error_95 = {float(row['error_95'])!r}"
    )
ranked
"""

_BEST_CODE = """\
best = result.best
print(f"best design = {best['design']}")
print(f"best mechanism = {best['mechanism']}")
print(f"rate = {float(best['rate'])!r}")
print(f"eps_sample = {float(best['eps_sample'])!r}")
print(f"rmse = {float(best['rmse'])!r}")
print(f"error_95 = {float(best['error_95'])!r}")
best
"""

#: The recommended plan and the page's usability flag (``{share}``: the usable share).
_RECOMMENDED_CODE = """\
# The plan to recommend: the best plan when it beats the census by more than two Monte Carlo
# standard errors of the difference, otherwise the census (the simpler release).
from dp_sampling.planner.usability import is_usable

chosen = result.recommended
usable = is_usable(
    float(chosen["error_95"]), result.population_value, pop.lower, pop.upper, {share!r}
)
print(f"recommended design = {{chosen['design']}}")
print(f"recommended mechanism = {{chosen['mechanism']}}")
print(f"recommended error_95 = {{float(chosen['error_95'])!r}}")
if usable:
    print("usable: its 95 % error bound is within {percent} of the population value")
else:
    print(
        "TOO NOISY TO USE: its 95 % error bound is above {percent} of the population value "
        "(of the declared range when the value is 0); raise eps_target or accept a larger "
        "error"
    )
chosen
"""

_STATUS_CODE = """\
import pandas as pd

pd.DataFrame(
    [
        {
            "design": status.label,
            "available": status.available,
            "theorem": status.theorem,
            "theorem's neighbours": status.relation,
            "note": status.reason,
        }
        for status in result.statuses
    ]
)
"""


def plan_notebook(
    *,
    recipe: str,
    statistic: str,
    eps_target: float,
    delta_target: float | None,
    designs: tuple[str, ...] | None,
    rates: tuple[float, ...] | None,
    reps: int,
    seed: int,
    relation: str,
    objective: str,
    quantile: float = 0.5,
    mechanisms: tuple[str, ...] | None = None,
    sizes_public: bool = False,
    usable_share: float = DEFAULT_USABLE_SHARE,
    rho_target: float | None = None,
) -> str:
    """A Jupyter notebook (``.ipynb`` JSON text) that reproduces a release plan.

    The notebook rebuilds the population from ``recipe`` and calls
    :func:`core.planner.plan` with exactly these arguments: error of each design at each rate
    by Monte Carlo with ``reps`` repetitions from ``seed`` (closed forms for the mean under
    census and simple random sampling, Hu et al. eqs. 6–7), ε_sample from each design's
    amplification theorem inverted (Hu et al. Theorem 1; Bun et al. Theorems 2.2, 4.3/7.2,
    5.2). It prints the best plan and shows ``result.best_by_design`` and the designs'
    theorems, with a Markdown cell explaining each theorem in plain words.

    Parameters
    ----------
    recipe : str
        The population's recipe (:attr:`core.population.Population.recipe`): one call of
        ``make_builtin``, ``load_population_csv`` or ``load_population_file`` with literal
        arguments. A file recipe reads the file by name (or the path given on the server's
        command line) from the notebook's working directory.
    statistic : str
        One of :data:`core.planner.STATISTICS`.
    eps_target : float
        The guarantee promised for the population, > 0.
    delta_target : float or None
        In [0, 1); None for the planner's default 1/(2N).
    designs : tuple of str or None
        Names from :data:`core.planner.DESIGN_LABELS`; None for every design the population
        supports.
    rates : tuple of float or None
        Sampling rates in (0, 1]; None for :func:`core.planner.default_rates`.
    reps : int
        Monte Carlo repetitions T, ≥ 1.
    seed : int
        Seed of the simulation, ≥ 0.
    relation : str
        One of :data:`core.planner.RELATIONS`.
    objective : str
        One of :data:`core.planner.OBJECTIVES`.
    quantile : float
        The level q in (0, 1) of ``statistic="quantile"`` (the order statistic of rank
        ⌈qN⌉); passed to :func:`core.planner.plan` only for that statistic.
    mechanisms : tuple of str or None
        Mechanism names fitting the statistic (:data:`core.planner.QUANTILE_MECHANISMS` or
        :data:`core.planner.MEAN_MECHANISMS`); None for the default ones
        (:func:`core.planner.default_mechanisms`). Passed only when given.
    sizes_public : bool
        The population size N is declared public (:func:`core.planner.plan`); written in
        the call and stated in the notes.
    usable_share : float
        The page's usable error, a share of the population value (> 0): the notebook flags
        the recommended plan usable or too noisy to use by
        :func:`core.planner.usability.is_usable`, as the page does.
    rho_target : float or None
        The promise stated as ρ-zCDP (> 0), or None for a pure ε promise: the call then
        passes ``rho_target`` in place of ``eps_target`` (the planner converts it), and
        the parameters name the conversion.

    Returns
    -------
    str
        The notebook as ``.ipynb`` JSON (nbformat 4), validated.

    Raises
    ------
    ValueError
        For an empty or unsafe recipe (anything but one builder call with literal arguments),
        an unknown statistic, design, relation, objective or mechanism, or a number out of
        range.
    """
    recipe = check_recipe(recipe)
    statistic = check_choice("statistic", statistic, STATISTICS)
    relation = check_choice("relation", relation, RELATIONS)
    objective = check_choice("objective", objective, OBJECTIVES)
    eps = check_float(
        "eps_target", eps_target, low=0.0, high=math.inf, low_open=True, high_open=True
    )
    rho = (
        None
        if rho_target is None
        else check_float(
            "rho_target", rho_target, low=0.0, high=math.inf, low_open=True, high_open=True
        )
    )
    delta = (
        None
        if delta_target is None
        else check_float(
            "delta_target", delta_target, low=0.0, high=1.0, low_open=False, high_open=True
        )
    )
    chosen_designs = check_designs(designs)
    chosen_rates = check_rates(rates)
    reps = check_int("reps", reps, low=1)
    seed = check_int("seed", seed, low=0)
    q = check_float("quantile", quantile, low=0.0, high=1.0, low_open=True, high_open=True)
    chosen_mechanisms = check_mechanisms(mechanisms, statistic)
    share = check_float(
        "usable_share", usable_share, low=0.0, high=math.inf, low_open=True, high_open=True
    )

    version = _app_version()
    made_by = "the Release planner page of the Sampling & privacy explorer" + (
        f" (version {version})" if version else ""
    )
    design_names = chosen_designs if chosen_designs is not None else tuple(DESIGN_LABELS)
    parameters = [
        f"- population: {_code_span(recipe)}",
        f"- statistic: {statistic_words(statistic, q)}",
        "- mechanisms: "
        + (
            "the planner's default mechanisms for the statistic"
            if chosen_mechanisms is None
            else ", ".join(mechanism_words(name) for name in chosen_mechanisms)
        ),
        f"- ε_target = {eps!r}"
        if rho is None
        else f"- promise: ρ = {rho!r}-zCDP, planned at the pure ε_target = {eps!r} that keeps "
        f"it by the {CONVERSION}: {CONVERSION_FORMULA}; the (ε, δ) mechanisms, which imply "
        "no zCDP bound, are not planned",
        "- δ_target = " + ("1/(2N), the planner's default" if delta is None else repr(delta)),
        "- designs: "
        + (
            "every design the population supports"
            if chosen_designs is None
            else ", ".join(DESIGN_LABELS[name] for name in chosen_designs)
        ),
        "- rates: "
        + (
            "the planner's default rates"
            if chosen_rates is None
            else ", ".join(repr(r) for r in chosen_rates)
        ),
        f"- Monte Carlo repetitions T = {reps}, seed = {seed}",
        f"- neighbouring populations: {RELATION_LABELS[relation]}",
        f"- plans ranked by: {OBJECTIVE_LABELS[objective]}",
    ]
    intro = "\n".join(
        [
            "# Release plan: reproduce the planner's numbers",
            "",
            f"This notebook was written by {made_by}. It rebuilds the population and calls "
            "`dp_sampling.planner.plan` with the parameters the page used, so the printed "
            "best plan and the table are the page's numbers.",
            "",
            "**It needs the package `dp_sampling`**, the explorer's core: install it once with "
            "`pip install <folder of a clone of the explorer>` (or from a wheel built there); "
            "the first code cell stops with a clear message if it is missing. A population "
            "read from a file (CSV, Parquet, Stata, SAS or SPSS) is loaded by its file name "
            "from the working directory, with the value column, public bounds and label "
            "columns the page used: put the file there first (a binary format needs "
            "`pip install <folder>[files]`).",
            "",
            "Parameters:",
            "",
            *parameters,
        ]
    )
    call_arguments = [
        f"statistic={statistic!r}",
        f"eps_target={eps!r}" if rho is None else f"rho_target={rho!r}",
        f"delta_target={delta!r}",
        f"designs={chosen_designs!r}",
        f"rates={chosen_rates!r}",
        f"reps={reps!r}",
        f"seed={seed!r}",
        f"relation={relation!r}",
        f"objective={objective!r}",
        f"sizes_public={bool(sizes_public)!r}",
    ]
    if statistic == "quantile":
        call_arguments.append(f"quantile={q!r}")
    if chosen_mechanisms is not None:
        call_arguments.append(f"mechanisms={chosen_mechanisms!r}")
    plan_code = (
        f"pop = {recipe}\n"
        'print(f"N = {pop.size:,}")\n\n'
        "result = plan(\n    pop,\n"
        + "".join(f"    {argument},\n" for argument in call_arguments)
        + ")\n"
    )
    theorems = "\n".join(
        [
            "## The designs and the theorems behind them",
            "",
            "Each design is allowed the largest ε_sample for which its theorem still "
            "promises ε_target for the population.",
            "",
            *(
                f"- **{DESIGN_LABELS[name]}** — {DESIGN_EXPLANATIONS[name]}"
                for name in design_names
                if name in DESIGN_EXPLANATIONS
            ),
            *(["", GROUP_PRIVACY_NOTE] if relation == "replacement" else []),
            "",
            f"**Sizes.** {sizes_words(relation, bool(sizes_public))}",
            "",
            "The table below is the planner's own list: which designs this population "
            "supports, the theorem each rests on and, for an unavailable design, why.",
        ]
    )
    notebook = v4.new_notebook(
        cells=[
            v4.new_markdown_cell(intro),
            v4.new_code_cell(_setup_code(recipe_function(recipe))),
            v4.new_code_cell(plan_code),
            v4.new_markdown_cell(
                "## Best rate of each design, ranked\n\nOne row per design and mechanism at "
                "its best rate, best first; `gain` is 1 − error/error of the census "
                "(positive: tighter than privatising the whole population)."
            ),
            v4.new_code_cell(_RANKED_CODE),
            v4.new_markdown_cell("## The best plan"),
            v4.new_code_cell(_BEST_CODE),
            v4.new_markdown_cell(
                "## The recommended plan, usable or too noisy\n\n" + CLAIM_RULE + " A plan "
                "whose 95 % error bound is above the usable share of the population value "
                "is flagged too noisy to use, as on the page."
            ),
            v4.new_code_cell(_RECOMMENDED_CODE.format(share=share, percent=fmt(share, "share"))),
            v4.new_markdown_cell(theorems),
            v4.new_code_cell(_STATUS_CODE),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
    )
    nbformat.validate(notebook)
    return str(nbformat.writes(notebook))
