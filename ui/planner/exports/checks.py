"""Checks of the exports' arguments and the words the notebook and the report share.

:func:`package_imports` writes the first code of every exported notebook and script: the
imports from the installed package ``dp_sampling``, stopping with how to install it when it
is missing.

Every check raises ``ValueError`` naming the argument and the value it got; a recipe is
accepted only as one call of a population builder with literal arguments, because it is
pasted into the notebook as code.
"""

from __future__ import annotations

import ast
import math
import numbers
from collections.abc import Iterable
from typing import Any

from core.designs.registry import DESIGNS
from core.mechanisms import MECHANISMS
from core.planner import DESIGN_LABELS, MEAN_MECHANISMS, QUANTILE_MECHANISMS

#: The functions a population recipe may call (see :attr:`core.population.Population.recipe`).
_RECIPE_FUNCTIONS = ("make_builtin", "load_population_csv", "load_population_file")

#: Each objective in words, as the notebook and the report state it.
OBJECTIVE_LABELS = {
    "error_95": "95 % error bound (95 % of releases lie within ± this of the population value)",
    "rmse": "root mean squared error (RMSE) of the release around the population value",
}
#: Each neighbouring relation in words.
RELATION_LABELS = {
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


#: How to install the package ``dp_sampling`` that the exported notebooks and script import.
INSTALL_COMMAND = "pip install <folder of a clone of the explorer, or a wheel built from it>"


def package_imports(reader: str, *imports: str) -> str:
    """Python code that imports from the package ``dp_sampling`` or says how to install it.

    Parameters
    ----------
    reader : str
        What runs the code, as its message names it: ``"notebook"`` or ``"script"``.
    *imports : str
        Import statements, one each, such as ``"from dp_sampling.planner import plan"``.

    Returns
    -------
    str
        A comment saying how to install the package, then the imports in a ``try`` whose
        ``except ImportError`` raises an ``ImportError`` saying what to ``pip install``.
    """
    body = "".join(f"    {line}\n" for line in imports)
    return (
        "# The explorer's core installs as the package dp_sampling (Python 3.11 or later): run\n"
        f"#     {INSTALL_COMMAND}\n"
        f"# once in this {reader}'s environment (add [files] for Parquet, Stata, SAS or SPSS "
        "files).\n"
        f"try:\n{body}except ImportError as error:\n"
        "    raise ImportError(\n"
        f'        "This {reader} needs the package dp_sampling, the core of the Sampling & '
        'privacy "\n'
        '        "explorer: pip install it from a clone of the explorer (pip install <its '
        'folder>) "\n'
        f'        "or from a wheel built there, then run the {reader} again."\n'
        "    ) from error\n"
    )


def check_recipe(recipe: Any) -> str:
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


def recipe_function(recipe: str) -> str:
    """The name of the builder a checked recipe (:func:`check_recipe`) calls, such as
    ``"load_population_file"``: the one name its notebook must import."""
    call = ast.parse(check_recipe(recipe), mode="eval").body
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)  # checked above
    return call.func.id


def check_choice(name: str, value: Any, allowed: Iterable[str]) -> str:
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return str(value)


def check_float(
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


def check_int(name: str, value: Any, *, low: int) -> int:
    whole = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and float(value).is_integer()
    )
    if isinstance(value, bool) or not whole:
        raise ValueError(f"{name} must be a whole number; got {value!r}")
    if int(value) < low:
        raise ValueError(f"{name} must be at least {low}; got {value!r}")
    return int(value)


def check_designs(designs: Any) -> tuple[str, ...] | None:
    if designs is None:
        return None
    if isinstance(designs, str) or not isinstance(designs, Iterable):
        raise ValueError(f"designs must be a tuple of design names or None; got {designs!r}")
    chosen = tuple(designs)
    if not chosen:
        raise ValueError("designs must name at least one design (or be None for all)")
    for design in chosen:
        check_choice("each design", design, DESIGN_LABELS)
    return tuple(str(design) for design in chosen)


def check_mechanisms(mechanisms: Any, statistic: str) -> tuple[str, ...] | None:
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
    return tuple(check_choice(f"each mechanism for the {statistic}", m, allowed) for m in chosen)


def statistic_words(statistic: str, quantile: float) -> str:
    """The statistic in words: "median", "mean" or "quantile q = 0.9"."""
    return f"quantile q = {quantile:g}" if statistic == "quantile" else statistic


def mechanism_words(name: str) -> str:
    """A mechanism's label without its statistic ("quantile, exponential mechanism" →
    "exponential mechanism")."""
    head, sep, tail = MECHANISMS[name].label.partition(", ")
    return tail if sep else head


def check_rates(rates: Any) -> tuple[float, ...] | None:
    if rates is None:
        return None
    if isinstance(rates, str) or not isinstance(rates, Iterable):
        raise ValueError(f"rates must be a tuple of sampling rates or None; got {rates!r}")
    chosen = tuple(rates)
    if not chosen:
        raise ValueError("rates must hold at least one rate (or be None for the defaults)")
    return tuple(
        check_float("each rate", r, low=0.0, high=1.0, low_open=True, high_open=False)
        for r in chosen
    )
