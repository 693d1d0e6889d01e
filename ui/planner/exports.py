"""The Release planner's two downloads: a notebook that reproduces the plan, and a method report.

* :func:`plan_notebook` writes a Jupyter notebook (``.ipynb`` text, built with the ``nbformat``
  v4 API) that rebuilds the active population from its recipe and calls
  :func:`core.planner.plan` with exactly the page's parameters, so the numbers it prints are
  the page's numbers.
* :func:`method_report` writes one self-contained HTML page for a disclosure review board:
  parameters, the designs and the theorems behind them (with paper sections), the chart (with
  plotly.js inline, so the file opens offline), the ranked plans, the recommendation and a
  note on the method (Monte Carlo with T repetitions and a seed; Hu et al. eqs. 6–7 where the
  error has a closed form).

Both are pure functions of their arguments (no Streamlit) and neither writes a date: the
notebook of one plan is the same text every time, and the report differs only in the random
id plotly gives the chart's element. Every piece of text that can come from a user (a
population or file name, a column name, a link) is escaped before it reaches HTML, and kept
in a code span in the notebook's Markdown.
"""

from __future__ import annotations

import ast
import html
import math
import numbers
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import plotly.graph_objects as go
from nbformat import v4

from core.designs.registry import DESIGNS
from core.mechanisms import MECHANISMS
from core.planner import (
    DESIGN_LABELS,
    MEAN_MECHANISMS,
    OBJECTIVES,
    QUANTILE_MECHANISMS,
    RELATIONS,
    STATISTICS,
    PlanResult,
)
from core.sensitivity import quantile_rank
from ui.format import number, percent, significant

__all__ = ["DESIGN_EXPLANATIONS", "GROUP_PRIVACY_NOTE", "method_report", "plan_notebook"]

#: The functions a population recipe may call (see :attr:`core.population.Population.recipe`).
_RECIPE_FUNCTIONS = ("make_builtin", "load_population_csv", "load_population_file")

_OBJECTIVE_LABELS = {
    "error_95": "95 % error bound (95 % of releases lie within ± this of the population value)",
    "rmse": "root mean squared error (RMSE) of the release around the population value",
}
_RELATION_LABELS = {
    "replacement": "replacement: neighbouring populations differ in one changed record",
    "deletion": "deletion: neighbouring populations differ by one added or removed record",
}

#: One plain-words paragraph per design (its ``description``): what is drawn and which theorem
#: carries the promise.
DESIGN_EXPLANATIONS: dict[str, str] = {name: d.description for name, d in DESIGNS.items()}

#: What designs stated for add/remove neighbours do for a change-one-record promise.
GROUP_PRIVACY_NOTE = (
    "The promise is for neighbours that differ in one changed record. A design whose "
    "theorem is stated for adding or removing a record keeps that promise by group privacy "
    "(a change is one removal and one addition, so the loss at most doubles): it spends the "
    "ε_sample that its theorem allows for ε_target/2."
)

#: Columns of the ranked table in the report: (column of best_by_design, heading, kind);
#: a column named in _STANDARD_ERRORS gets its Monte Carlo standard error in the same cell.
_RANKED_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("design_label", "Design", "text"),
    ("mechanism_label", "Mechanism", "text"),
    ("rate", "Rate n/N", "rate"),
    ("n", "Expected n", "count"),
    ("clusters_sampled", "Clusters drawn ℓ", "count"),
    ("eps_sample", "ε_sample", "number"),
    ("delta_sample", "δ_sample", "number"),
    ("accounting", "Bound that gives ε_sample", "text"),
    ("rmse", "RMSE ± MC s.e.", "number"),
    ("error_95", "95 % error bound ± MC s.e.", "number"),
    ("sampling_part", "Sampling part (MSE)", "number"),
    ("noise_part", "Noise part (MSE)", "number"),
    ("gain", "Against the census", "gain"),
    ("exact", "Error from", "exact"),
)
_STANDARD_ERRORS = {"rmse": "rmse_se", "error_95": "error_95_se"}


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _check_recipe(recipe: Any) -> str:
    """The recipe, stripped, once it is one call of a population builder with literal arguments.

    A recipe is pasted into the notebook as code, so anything else (another function, an
    expression in an argument, a second statement) is refused rather than written out.
    """
    if not isinstance(recipe, str) or not recipe.strip():
        raise ValueError(
            f"recipe must be a non-empty Python call that rebuilds the population, such as "
            f"\"make_builtin('lognormal', seed=0)\"; got {recipe!r}"
        )
    text = recipe.strip()
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as err:
        raise ValueError(f"recipe is not a Python expression ({err.msg}): {text!r}") from None
    call = tree.body
    if not (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id in _RECIPE_FUNCTIONS
    ):
        raise ValueError(
            f"recipe must call one of {', '.join(_RECIPE_FUNCTIONS)} from core.populations; "
            f"got {text!r}"
        )
    for node in [*call.args, *(keyword.value for keyword in call.keywords)]:
        try:
            ast.literal_eval(node)
        except ValueError:
            raise ValueError(
                f"recipe arguments must be plain values (strings, numbers, lists); got "
                f"{ast.unparse(node)!r} in {text!r}"
            ) from None
    if any(keyword.arg is None for keyword in call.keywords):
        raise ValueError(f"recipe must not unpack keyword arguments (**): {text!r}")
    return text


def _check_choice(name: str, value: Any, allowed: Iterable[str]) -> str:
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return str(value)


def _check_float(
    name: str, value: Any, *, low: float, high: float, low_open: bool, high_open: bool
) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number; got {value!r}")
    x = float(value)
    too_low = x <= low if low_open else x < low
    too_high = x >= high if high_open else x > high
    if not math.isfinite(x) or too_low or too_high:
        interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
        raise ValueError(f"{name} must be a finite number in {interval}; got {value!r}")
    return x


def _check_int(name: str, value: Any, *, low: int) -> int:
    whole = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and float(value).is_integer()
    )
    if isinstance(value, bool) or not whole:
        raise ValueError(f"{name} must be a whole number; got {value!r}")
    if int(value) < low:
        raise ValueError(f"{name} must be at least {low}; got {value!r}")
    return int(value)


def _check_designs(designs: Any) -> tuple[str, ...] | None:
    if designs is None:
        return None
    if isinstance(designs, str) or not isinstance(designs, Iterable):
        raise ValueError(f"designs must be a tuple of design names or None; got {designs!r}")
    chosen = tuple(designs)
    if not chosen:
        raise ValueError("designs must name at least one design (or be None for all)")
    for design in chosen:
        _check_choice("each design", design, DESIGN_LABELS)
    return tuple(str(design) for design in chosen)


def _check_mechanisms(mechanisms: Any, statistic: str) -> tuple[str, ...] | None:
    if mechanisms is None:
        return None
    if isinstance(mechanisms, str) or not isinstance(mechanisms, Iterable):
        raise ValueError(
            f"mechanisms must be a tuple of mechanism names or None; got {mechanisms!r}"
        )
    chosen = tuple(mechanisms)
    if not chosen:
        raise ValueError("mechanisms must name at least one mechanism (or be None for all)")
    allowed = MEAN_MECHANISMS if statistic == "mean" else QUANTILE_MECHANISMS
    return tuple(_check_choice(f"each mechanism for the {statistic}", m, allowed) for m in chosen)


def _statistic_words(statistic: str, quantile: float) -> str:
    """The statistic in words: "median", "mean" or "quantile q = 0.9"."""
    return f"quantile q = {quantile:g}" if statistic == "quantile" else statistic


def _mechanism_words(name: str) -> str:
    """A mechanism's label without its statistic ("quantile, exponential mechanism" →
    "exponential mechanism")."""
    head, sep, tail = MECHANISMS[name].label.partition(", ")
    return tail if sep else head


def _check_rates(rates: Any) -> tuple[float, ...] | None:
    if rates is None:
        return None
    if isinstance(rates, str) or not isinstance(rates, Iterable):
        raise ValueError(f"rates must be a tuple of sampling rates or None; got {rates!r}")
    chosen = tuple(rates)
    if not chosen:
        raise ValueError("rates must hold at least one rate (or be None for the defaults)")
    return tuple(
        _check_float("each rate", r, low=0.0, high=1.0, low_open=True, high_open=False)
        for r in chosen
    )


# --------------------------------------------------------------------------------------------
# Notebook
# --------------------------------------------------------------------------------------------


def _app_version() -> str | None:
    """The app's version from ``pyproject.toml`` at the repository root, if it is there."""
    path = Path(__file__).resolve().parents[2] / "pyproject.toml"
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


_SETUP_CODE = """\
# Run this notebook from the repository root of the Sampling & privacy explorer (the folder
# that holds core/planner/) or from a folder below it: the loop below finds that folder by
# walking up from the working directory and puts it on the import path.
import sys
from pathlib import Path

root = next(
    (folder for folder in [Path.cwd(), *Path.cwd().parents]
     if (folder / "core" / "planner" / "__init__.py").is_file()),
    None,
)
if root is None:
    raise FileNotFoundError(
        "core/planner/ was not found in the working directory or any folder above it: "
        "start Jupyter from the repository root of the Sampling & privacy explorer."
    )
if str(root) not in sys.path:
    sys.path.insert(0, str(root))

from core.planner import plan
from core.populations import load_population_csv, make_builtin
"""

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
        :data:`core.planner.MEAN_MECHANISMS`); None for every one. Passed only when given.

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
    recipe = _check_recipe(recipe)
    statistic = _check_choice("statistic", statistic, STATISTICS)
    relation = _check_choice("relation", relation, RELATIONS)
    objective = _check_choice("objective", objective, OBJECTIVES)
    eps = _check_float(
        "eps_target", eps_target, low=0.0, high=math.inf, low_open=True, high_open=True
    )
    delta = (
        None
        if delta_target is None
        else _check_float(
            "delta_target", delta_target, low=0.0, high=1.0, low_open=False, high_open=True
        )
    )
    chosen_designs = _check_designs(designs)
    chosen_rates = _check_rates(rates)
    reps = _check_int("reps", reps, low=1)
    seed = _check_int("seed", seed, low=0)
    q = _check_float("quantile", quantile, low=0.0, high=1.0, low_open=True, high_open=True)
    chosen_mechanisms = _check_mechanisms(mechanisms, statistic)

    version = _app_version()
    made_by = "the Release planner page of the Sampling & privacy explorer" + (
        f" (version {version})" if version else ""
    )
    design_names = chosen_designs if chosen_designs is not None else tuple(DESIGN_LABELS)
    parameters = [
        f"- population: {_code_span(recipe)}",
        f"- statistic: {_statistic_words(statistic, q)}",
        "- mechanisms: "
        + (
            "every mechanism fitting the statistic"
            if chosen_mechanisms is None
            else ", ".join(_mechanism_words(name) for name in chosen_mechanisms)
        ),
        f"- ε_target = {eps!r}",
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
        f"- neighbouring populations: {_RELATION_LABELS[relation]}",
        f"- plans ranked by: {_OBJECTIVE_LABELS[objective]}",
    ]
    intro = "\n".join(
        [
            "# Release plan: reproduce the planner's numbers",
            "",
            f"This notebook was written by {made_by}. It rebuilds the population and calls "
            "`core.planner.plan` with the parameters the page used, so the printed best plan "
            "and the table are the page's numbers.",
            "",
            "**Run it from the repository root** (the folder that holds `core/planner/`); "
            "the first code cell finds that folder and stops with a clear message if it "
            "cannot. A population read from a CSV file is loaded by its file name from the "
            "working directory: put the file there first.",
            "",
            "Parameters:",
            "",
            *parameters,
        ]
    )
    call_arguments = [
        f"statistic={statistic!r}",
        f"eps_target={eps!r}",
        f"delta_target={delta!r}",
        f"designs={chosen_designs!r}",
        f"rates={chosen_rates!r}",
        f"reps={reps!r}",
        f"seed={seed!r}",
        f"relation={relation!r}",
        f"objective={objective!r}",
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
            "The table below is the planner's own list: which designs this population "
            "supports, the theorem each rests on and, for an unavailable design, why.",
        ]
    )
    notebook = v4.new_notebook(
        cells=[
            v4.new_markdown_cell(intro),
            v4.new_code_cell(_SETUP_CODE),
            v4.new_code_cell(plan_code),
            v4.new_markdown_cell(
                "## Best rate of each design, ranked\n\nOne row per design and mechanism at "
                "its best rate, best first; `gain` is 1 − error/error of the census "
                "(positive: tighter than privatising the whole population)."
            ),
            v4.new_code_cell(_RANKED_CODE),
            v4.new_markdown_cell("## The best plan"),
            v4.new_code_cell(_BEST_CODE),
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


# --------------------------------------------------------------------------------------------
# Method report
# --------------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    """Any value as escaped HTML text (quotes too, so it is safe inside attributes)."""
    return html.escape(str(value), quote=True)


def _is_missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _cell(value: Any, kind: str) -> str:
    """One table cell of the ranked table, formatted by its kind and escaped."""
    if kind == "exact":
        return "closed formula" if bool(value) else "Monte Carlo"
    if _is_missing(value):
        return "—"
    if kind == "text":
        return _text(value)
    x = float(value)
    if kind == "rate":
        return _text(percent(x, 4))
    if kind == "count":
        return _text(number(round(x, 1), grouping=True))
    if kind == "gain":
        return _text(_gain_words(x))
    return _text(significant(x, 4))


def _gain_words(gain: float) -> str:
    """``gain`` = 1 − error/census error in words: tighter, looser, or a multiple of the census."""
    if gain == 0:
        return "same as census"
    if gain > 0:
        return f"{percent(gain, 3)} tighter"
    ratio = 1.0 - gain
    if ratio < 10:
        return f"{percent(-gain, 3)} looser"
    return f"{ratio:,.0f} × the census error"


def _emphasis(escaped: str) -> str:
    """Markdown ``**bold**`` in already escaped text as ``<strong>``; nothing else is markup."""
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", escaped)


def _link_html(link: str) -> str:
    text = _text(link)
    if re.match(r"https?://", link, flags=re.IGNORECASE):
        return f'<a href="{text}">{text}</a>'
    return text


def _parameter_rows(
    result: PlanResult, population_label: str, link: str | None
) -> list[tuple[str, str]]:
    delta = float(result.delta_target)
    rows = [
        ("Population", _text(population_label)),
        ("N (population size)", _text(number(result.N, grouping=True))),
        ("Statistic", _text(_statistic_words(result.statistic, result.quantile))),
        ("Population value of the statistic", _text(significant(result.population_value, 6))),
        ("ε_target (promised for the population)", _text(number(result.eps_target))),
        (
            "δ_target",
            _text(
                significant(delta, 4)
                + (" (= 1/(2N), the default)" if math.isclose(delta, 0.5 / result.N) else "")
            ),
        ),
        ("Neighbouring populations", _text(_RELATION_LABELS.get(result.relation, result.relation))),
        ("Plans ranked by", _text(_OBJECTIVE_LABELS.get(result.objective, result.objective))),
        ("Monte Carlo repetitions T", _text(number(result.reps, grouping=True))),
        ("Seed", _text(result.seed)),
    ]
    if result.statistic == "quantile":
        rank = quantile_rank(result.N, result.quantile)
        rows.insert(
            3,
            (
                "Released order statistic",
                _text(
                    f"rank ⌈qN⌉ = {number(rank, grouping=True)} of N = "
                    f"{number(result.N, grouping=True)} (sorted ascending)"
                ),
            ),
        )
    share = float(result.budget_share)
    if share != 1.0:
        rows.append(("Share of ε_sample spent on this statistic", _text(percent(share))))
    if link:
        rows.append(("Link to this plan in the app", _link_html(link)))
    return rows


def _table(headings: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """An HTML table from escaped headings and already escaped/assembled cells."""
    head = "".join(f"<th>{h}</th>" for h in headings)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _designs_html(result: PlanResult) -> str:
    rows = []
    for status in result.statuses:
        # Neyman's reason from core already says what the allocation does and why it gets no
        # claim; for the other designs the reason adds to the plain-words explanation.
        explanation = (
            ""
            if status.name == "neyman" and status.reason
            else _text(DESIGN_EXPLANATIONS.get(status.name, ""))
        )
        if status.reason:
            explanation += f"{'<br>' if explanation else ''}<em>{_text(status.reason)}</em>"
        rows.append(
            [
                f"<strong>{_text(status.label)}</strong>",
                "yes" if status.available else "no",
                _text(status.theorem),
                _text(status.relation),
                explanation,
            ]
        )
    group_note = ""
    stated_by_core = any("group privacy" in s.reason for s in result.statuses)
    if (
        result.relation == "replacement"
        and not stated_by_core
        and any(s.available and s.relation == "deletion" for s in result.statuses)
    ):
        group_note = f"<p>{_text(GROUP_PRIVACY_NOTE)}</p>"
    table = _table(
        ["Design", "Available", "Theorem (paper section)", "Theorem's neighbours", "Notes"], rows
    )
    return table + group_note


def _ranked_html(best: pd.DataFrame) -> str:
    columns = [c for c in _RANKED_COLUMNS if c[0] in best.columns]
    if "clusters_sampled" in best.columns and best["clusters_sampled"].isna().all():
        columns = [c for c in columns if c[0] != "clusters_sampled"]
    headings = ["Rank", *(_text(heading) for _, heading, _ in columns)]
    rows = []
    for rank, (_, row) in enumerate(best.iterrows(), start=1):
        cells = [str(rank)]
        for column, _, kind in columns:
            cell = _cell(row[column], kind)
            se = _STANDARD_ERRORS.get(column)
            if se in best.columns and not _is_missing(row[se]) and float(row[se]) > 0:
                cell += f" ± {_cell(row[se], kind)}"
            cells.append(cell)
        rows.append(cells)
    return _table(headings, rows)


def _method_html(result: PlanResult) -> str:
    exact = bool(result.table["exact"].any()) if "exact" in result.table.columns else False
    exact_note = (
        "<p>Rows whose error has a closed form are computed from it instead of simulated "
        "(marked “closed formula” in the table)."
        + (
            " For the mean these are the census and the simple random sample (Hu et al. "
            "eqs. 6–7): the census release has variance 2·(R/(ε_target·N))², the sample "
            "release (1 − n/N)·S²/n + 2·(R/(ε_sample·n))², where R is the width of the "
            "public bounds and S² the population variance (n − 1 divisor)."
            if result.statistic == "mean"
            else ""
        )
        + "</p>"
        if exact
        else ""
    )
    return (
        "<p>For each design and each candidate sampling rate the planner first solves the "
        "design's amplification theorem for the largest ε_sample that still keeps ε_target "
        "(and δ_target) for the population. It then draws "
        f"T = {_text(number(result.reps, grouping=True))} samples from the population with "
        f"the design, seeded with {_text(result.seed)}, runs the mechanism on each sample "
        "with that budget, and compares each release with the population's value of the "
        "statistic. The RMSE is the root of the mean squared difference; the 95 % error bound "
        "is the distance that 95 % of the releases stay within. The squared error splits into "
        "a sampling part (the sample's statistic against the population's) and a noise part "
        "(the release against the sample's statistic). Monte Carlo standard errors are shown "
        "next to each measure. The best rate of each design is searched over the candidate "
        "rates and refined around the minimum.</p>" + exact_note
    )


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 80rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f2328; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.2rem; margin-top: 1.8rem; border-bottom: 1px solid #d0d7de; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.85rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.5rem; text-align: left;
         vertical-align: top; }
th { background: #f6f8fa; }
.recommendation { background: #eef6ee; border-left: 4px solid #2f7d32; padding: 0.6rem 1rem; }
.subtitle { color: #57606a; margin-top: 0; }
@media print { .chart { page-break-inside: avoid; } }
"""


def method_report(
    result: PlanResult,
    figure: go.Figure,
    recommendation: str,
    population_label: str,
    link: str | None = None,
) -> str:
    """A one-page, self-contained HTML method report of a release plan.

    For a disclosure review board: the parameters (population, N, statistic, ε_target,
    δ_target, neighbouring relation, objective, Monte Carlo repetitions T, seed and the link
    if given), every design with its theorem and paper section (Hu et al. Theorem 1; Bun et
    al. Theorems 2.2, 4.3/7.2, 5.2 and §7 for Neyman allocation), the chart, the ranked table
    of each design's best rate, the recommendation and the method (Monte Carlo with T
    repetitions from the seed; Hu et al. eqs. 6–7 for the mean under census and simple random
    sampling). No date is written, so one plan gives one file.

    Parameters
    ----------
    result : PlanResult
        What :func:`core.planner.plan` returned.
    figure : plotly.graph_objects.Figure
        The page's chart of error against rate; embedded with plotly.js inline (the file works
        offline).
    recommendation : str
        The page's recommendation in plain words (``**bold**`` is kept; all else is text).
    population_label : str
        The population's name as shown on the page (may come from an uploaded file).
    link : str, optional
        The app's URL of this plan; an ``http(s)`` link becomes a hyperlink.

    Returns
    -------
    str
        A complete HTML document. Every user-provided string is escaped with
        :func:`html.escape`.

    Raises
    ------
    ValueError
        If ``result`` is not a plan result, ``figure`` not a plotly figure, or a text argument
        is not a string (the recommendation must not be empty).
    """
    if not isinstance(result, PlanResult):
        raise ValueError(f"result must be a PlanResult from core.planner.plan; got {result!r:.80}")
    if not isinstance(figure, go.Figure):
        raise ValueError(f"figure must be a plotly Figure; got {type(figure).__name__}")
    if not isinstance(recommendation, str) or not recommendation.strip():
        raise ValueError(f"recommendation must be a non-empty string; got {recommendation!r:.80}")
    if not isinstance(population_label, str):
        raise ValueError(f"population_label must be a string; got {population_label!r:.80}")
    if link is not None and not isinstance(link, str):
        raise ValueError(f"link must be a string or None; got {link!r:.80}")

    chart = figure.to_html(full_html=False, include_plotlyjs=True)
    parameters = "".join(
        f"<tr><th>{_text(name)}</th><td>{value}</td></tr>"
        for name, value in _parameter_rows(result, population_label, link)
    )
    sections = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>Release plan: method report — {_text(population_label)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        "<h1>Release plan: method report</h1>",
        f'<p class="subtitle">'
        f"{_text(_statistic_words(result.statistic, result.quantile).capitalize())} of "
        f"{_text(population_label)} at ε_target = {_text(number(result.eps_target))}, "
        "computed by the Release planner of the Sampling &amp; privacy explorer.</p>",
        "<h2>Recommendation</h2>",
        f'<p class="recommendation">{_emphasis(_text(recommendation.strip()))}</p>',
        "<h2>Parameters</h2>",
        f"<table><tbody>{parameters}</tbody></table>",
        "<h2>Designs and the theorems behind them</h2>",
        _designs_html(result),
        "<h2>Error against sampling rate</h2>",
        f'<div class="chart">{chart}</div>',
        "<h2>Best rate of each design, ranked</h2>",
        _ranked_html(result.best_by_design),
        "<h2>Method</h2>",
        _method_html(result),
        "</body>",
        "</html>",
    ]
    return "\n".join(sections) + "\n"
