"""A publication plan's config: a YAML file read and checked field by field, its population built.

The config is what ``python -m batch`` runs on Dask and what the release planner's exported
script ``plan_publication.py`` runs in one process; both read it here, so the installed
package ``dp_sampling`` alone runs the script (``dp_sampling.publication.config``).

Example (``assets/publication_example.yaml``)::

    population:
      builtin: establishments   # or: file: register.csv, value_column, lower, upper,
      seed: 1                   #     strata_column, cluster_column, category_column (a column
      size: 20000               #     name, or a list of names making one label: [stratid, psuid])
    groups: [strata]            # one or two of strata, clusters
    statistics: [median, mean]  # median, mean, {quantile: 0.9}
    eps_target: 1.0             # or, for a promise stated as ρ-zCDP: rho_target: 0.5
    delta_target: 1.0e-6        # optional: 1 / (2N)
    relation: replacement       # or deletion
    sizes_public: false         # N and the cell sizes N_c are not public (the default)
    designs: [poisson]          # optional: every design the table allows
    T: 50                       # Monte Carlo repetitions per plan
    seed: 0

A config with ``table: frequency`` plans a frequency table instead (counts or totals by
cell, released as one histogram): its fields are in :mod:`core.publication.frequency_config`
and ``assets/publication_example_frequency.yaml``.

Every problem raises :class:`ConfigError` naming the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from ..accounting.zcdp import eps_target_for_rho
from ..designs.registry import DESIGNS
from ..mechanisms.registry import MECHANISMS
from ..population import Population
from ..populations import (
    BUILTIN_POPULATIONS,
    load_population_file,
    make_builtin,
    read_file_table,
)
from ..publication.cells import frequency_cells
from ..publication.frequency_config import (
    FREQUENCY_KEYS,
    FrequencySettings,
    check_frequency,
    check_frequency_promise,
)
from ..publication.table import GROUPS, cells_of, parse_statistic

__all__ = ["Config", "ConfigError", "build_population", "label_columns", "load_config"]

REQUIRED = ("population", "groups", "statistics")
#: The promise: exactly one of them (pure ε-DP, or ρ-zCDP converted to a pure ε_target).
PROMISE_KEYS = ("eps_target", "rho_target")
OPTIONAL = (
    "delta_target",
    "relation",
    "labels_fixed",
    "sizes_public",
    "designs",
    "mechanisms",
    "rates",
    "T",
    "seed",
    "split",
    "error_weights",
    "publish_share",
    "max_cells",
    "name",
)
#: The label fields of a file population: each a column name or a list of names.
LABEL_KEYS = ("strata_column", "cluster_column", "category_column")
POPULATION_KEYS = {
    "builtin": ("builtin", "seed", "size"),
    "file": (
        "file",
        "value_column",
        "lower",
        "upper",
        "strata_column",
        "cluster_column",
        "category_column",
    ),
}


class ConfigError(ValueError):
    """A bad config: ``field`` names where, the message says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Config:
    """A checked config (:func:`load_config`); ``population`` is still a description."""

    name: str
    population: dict[str, Any]
    base_dir: Path
    groups: tuple[str, ...]
    statistics: tuple[Any, ...]
    eps_target: float
    delta_target: float | None
    relation: str
    labels_fixed: bool
    designs: tuple[str, ...] | None
    mechanisms: tuple[str, ...] | None
    rates: tuple[float, ...] | None
    T: int
    seed: int
    split: str | tuple[float, ...]
    publish_share: float
    max_cells: int
    error_weights: tuple[float, ...] | None = None
    #: ``N`` and the cell sizes ``N_c`` are declared public (``sizes_public: true``).
    sizes_public: bool = False
    #: The promise as stated in ρ-zCDP (``rho_target``); ``eps_target`` is then the pure
    #: ε_target that keeps it (:func:`core.accounting.zcdp.eps_target_for_rho`).
    rho_target: float | None = None
    #: A frequency table (``table: frequency``): its settings; None for a table of
    #: statistics by cell.
    frequency: FrequencySettings | None = None

    def frequency_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`core.publication.frequency.plan_frequency`."""
        if self.frequency is None:
            raise ValueError("this config plans a table of statistics, not a frequency table")
        return {
            **self.frequency.plan_kwargs(),
            "eps_target": self.eps_target,
            "delta_target": self.delta_target,
            "relation": self.relation,
            "labels_fixed": self.labels_fixed,
            **(
                {}
                if self.rho_target is None
                else {"eps_target": None, "delta_target": None, "rho_target": self.rho_target}
            ),
        }

    def plan_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`core.publication.plan_table` (after the population)."""
        return {
            "groups": list(self.groups),
            "statistics": list(self.statistics),
            **(
                {"eps_target": self.eps_target}
                if self.rho_target is None
                else {"rho_target": self.rho_target}
            ),
            "delta_target": self.delta_target,
            "relation": self.relation,
            "labels_fixed": self.labels_fixed,
            "sizes_public": self.sizes_public,
            "designs": None if self.designs is None else list(self.designs),
            "mechanisms": None if self.mechanisms is None else list(self.mechanisms),
            "rates": None if self.rates is None else list(self.rates),
            "reps": self.T,
            "seed": self.seed,
            "split": self.split if isinstance(self.split, str) else list(self.split),
            "error_weights": None if self.error_weights is None else list(self.error_weights),
            "publish_share": self.publish_share,
            "max_cells": self.max_cells,
        }


def _yaml_number(
    field: str, value: Any, *, low: float, high: float = math.inf, open_low: bool = True
) -> float:
    """A finite number as YAML wrote it (int or float, not a quoted string), above ``low``
    (or at it, with ``open_low=False``) and below ``high``; errors name the config field."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(field, f"must be a number; got {value!r}")
    x = float(value)
    ok = math.isfinite(x) and (x > low if open_low else x >= low) and x < high
    if not ok:
        side = ">" if open_low else "≥"
        upper = "" if high == math.inf else f" and < {high:g}"
        raise ConfigError(field, f"must be a finite number {side} {low:g}{upper}; got {value!r}")
    return x


def _yaml_whole(field: str, value: Any, low: int, high: int) -> int:
    """A whole number as YAML wrote it (an int, not ``50.0`` or ``"50"``), in ``[low, high]``;
    unlike :func:`core._validation.check_whole` it refuses other types and names the config
    field in a :class:`ConfigError`."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(field, f"must be a whole number in [{low:,}, {high:,}]; got {value!r}")
    return int(value)


def _names(field: str, value: Any, allowed: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ConfigError(field, f"must be a non-empty list; got {value!r}")
    for v in value:
        if v not in allowed:
            raise ConfigError(field, f"unknown {v!r}; choose from {', '.join(map(str, allowed))}")
    return tuple(value)


def load_config(path: str | Path) -> Config:
    """Read and check the YAML config at ``path``.

    Parameters
    ----------
    path : str or Path
        The YAML file; a population ``file`` it names is read relative to its folder.

    Returns
    -------
    Config
        The checked settings; :meth:`Config.plan_kwargs` gives the arguments of
        :func:`core.publication.plan_table`.

    Raises
    ------
    ConfigError
        Naming the field: a missing or unknown key, a value of the wrong kind or range.
    """
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError("config", f"cannot read {p.name}: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ConfigError("config", f"{p.name} is not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError("config", "must be a mapping of keys to values")
    table = raw.pop("table", "statistics")
    if table == "frequency":
        return _frequency_config(raw, p)
    if table != "statistics":
        raise ConfigError("table", f"must be 'statistics' or 'frequency'; got {table!r}")
    for key in REQUIRED:
        if key not in raw:
            raise ConfigError(key, "missing (required)")
    for key in raw:
        if key not in REQUIRED + PROMISE_KEYS + OPTIONAL:
            raise ConfigError(
                str(key),
                f"unknown key; the keys are {', '.join(REQUIRED + PROMISE_KEYS + OPTIONAL)}",
            )
    stated = [key for key in PROMISE_KEYS if raw.get(key) is not None]
    if len(stated) != 1:
        raise ConfigError(
            "eps_target",
            "state the promise once: eps_target (pure ε-DP) or rho_target (ρ-zCDP); got "
            + (" and ".join(stated) if stated else "neither"),
        )
    pop = _check_population(raw["population"])
    groups = raw["groups"]
    if isinstance(groups, str):
        groups = [groups]
    groups_t = _names("groups", groups, GROUPS)
    if len(groups_t) > 2 or len(set(groups_t)) != len(groups_t):
        raise ConfigError("groups", f"name one or two distinct of {', '.join(GROUPS)}")
    stats = raw["statistics"]
    if not isinstance(stats, list) or not stats:
        raise ConfigError("statistics", f"must be a non-empty list; got {stats!r}")
    for i, s in enumerate(stats):
        try:
            parse_statistic(s)
        except ValueError as exc:
            raise ConfigError(f"statistics[{i}]", str(exc)) from None
    rho = None
    if raw.get("rho_target") is not None:
        rho = _yaml_number("rho_target", raw["rho_target"], low=0.0)
        eps = eps_target_for_rho(rho)
    else:
        eps = _yaml_number("eps_target", raw["eps_target"], low=0.0)
    delta = raw.get("delta_target")
    if delta is not None:
        delta = _yaml_number("delta_target", delta, low=0.0, high=1.0)
    relation = raw.get("relation", "replacement")
    if relation not in ("replacement", "deletion"):
        raise ConfigError("relation", f"must be 'replacement' or 'deletion'; got {relation!r}")
    labels_fixed = raw.get("labels_fixed", False)
    if not isinstance(labels_fixed, bool):
        raise ConfigError("labels_fixed", f"must be true or false; got {labels_fixed!r}")
    sizes_public = raw.get("sizes_public", False)
    if not isinstance(sizes_public, bool):
        raise ConfigError("sizes_public", f"must be true or false; got {sizes_public!r}")
    designs = raw.get("designs")
    designs_t = None if designs is None else _names("designs", designs, tuple(DESIGNS))
    mechanisms = raw.get("mechanisms")
    mech_t = None if mechanisms is None else _names("mechanisms", mechanisms, tuple(MECHANISMS))
    rates = raw.get("rates")
    rates_t = None
    if rates is not None:
        if not isinstance(rates, list) or not rates:
            raise ConfigError("rates", f"must be a non-empty list; got {rates!r}")
        rates_t = tuple(
            _yaml_number(f"rates[{i}]", r, low=0.0, high=1.0) for i, r in enumerate(rates)
        )
    split = raw.get("split", "equal")
    if isinstance(split, list):
        split = tuple(_yaml_number(f"split[{i}]", w, low=0.0) for i, w in enumerate(split))
        if len(split) != len(stats):
            raise ConfigError("split", f"needs {len(stats)} weights, one per statistic")
    elif split not in ("equal", "optimal"):
        raise ConfigError(
            "split", f"must be 'equal', 'optimal' or a list of weights; got {split!r}"
        )
    weights = raw.get("error_weights")
    weights_t = None
    if weights is not None:
        if split != "optimal":
            raise ConfigError("error_weights", "apply to the optimised split only (split: optimal)")
        if not isinstance(weights, list) or len(weights) != len(stats):
            raise ConfigError(
                "error_weights", f"needs {len(stats)} weights, one per statistic; got {weights!r}"
            )
        weights_t = tuple(
            _yaml_number(f"error_weights[{i}]", w, low=0.0) for i, w in enumerate(weights)
        )
    return Config(
        name=str(raw.get("name", p.stem)),
        population=pop,
        base_dir=p.resolve().parent,
        groups=groups_t,
        statistics=tuple(stats),
        eps_target=eps,
        delta_target=delta,
        relation=relation,
        labels_fixed=labels_fixed,
        designs=designs_t,
        mechanisms=mech_t,
        rates=rates_t,
        T=_yaml_whole("T", raw.get("T", 200), 2, 100_000),
        seed=_yaml_whole("seed", raw.get("seed", 0), 0, 2**63 - 1),
        split=split,
        publish_share=_yaml_number("publish_share", raw.get("publish_share", 0.1), low=0.0),
        max_cells=_yaml_whole("max_cells", raw.get("max_cells", 10_000), 1, 10**7),
        error_weights=weights_t,
        sizes_public=sizes_public,
        rho_target=rho,
    )


def _frequency_config(raw: dict[str, Any], p: Path) -> Config:
    """The config of a frequency table (``table: frequency``)."""
    allowed = ("population", *PROMISE_KEYS, *FREQUENCY_KEYS)
    for key in raw:
        if key not in allowed:
            raise ConfigError(
                str(key), f"unknown key for a frequency table; the keys are {', '.join(allowed)}"
            )
    if raw.get("population") is None:
        raise ConfigError("population", "missing (required)")
    settings = check_frequency(raw)
    eps, rho = check_frequency_promise(raw)
    if rho is not None:
        eps = eps_target_for_rho(rho)
    assert eps is not None
    delta = raw.get("delta_target")
    if delta is not None:
        delta = _yaml_number("delta_target", delta, low=0.0, high=1.0)
    relation = raw.get("relation", "replacement")
    if relation not in ("replacement", "deletion"):
        raise ConfigError("relation", f"must be 'replacement' or 'deletion'; got {relation!r}")
    labels_fixed = raw.get("labels_fixed", False)
    if not isinstance(labels_fixed, bool):
        raise ConfigError("labels_fixed", f"must be true or false; got {labels_fixed!r}")
    return Config(
        name=str(raw.get("name", p.stem)),
        population=_check_population(raw["population"]),
        base_dir=p.resolve().parent,
        groups=settings.rows,
        statistics=(settings.kind,),
        eps_target=eps,
        delta_target=delta,
        relation=relation,
        labels_fixed=labels_fixed,
        designs=settings.designs,
        mechanisms=(settings.mechanism,),
        rates=settings.rates,
        T=2,
        seed=0,
        split="equal",
        publish_share=settings.threshold,
        max_cells=settings.max_cells,
        frequency=settings,
        rho_target=rho,
    )


def _check_population(pop: Any) -> dict[str, Any]:
    if not isinstance(pop, dict):
        raise ConfigError("population", "must be a mapping with 'builtin' or 'file'")
    kinds = [k for k in POPULATION_KEYS if k in pop]
    if len(kinds) != 1:
        raise ConfigError("population", "must name exactly one of 'builtin' or 'file'")
    kind = kinds[0]
    for key in pop:
        if key not in POPULATION_KEYS[kind]:
            raise ConfigError(
                f"population.{key}",
                f"unknown key for a {kind} population; the keys are "
                + ", ".join(POPULATION_KEYS[kind]),
            )
    if kind == "builtin":
        if pop["builtin"] not in BUILTIN_POPULATIONS:
            raise ConfigError(
                "population.builtin",
                f"unknown built-in {pop['builtin']!r}; choose one of "
                + ", ".join(BUILTIN_POPULATIONS),
            )
        _yaml_whole("population.seed", pop.get("seed", 0), 0, 2**63 - 1)
        if pop.get("size") is not None:
            _yaml_whole("population.size", pop["size"], 3, 10**8)
    else:
        if not isinstance(pop["file"], str) or not pop["file"]:
            raise ConfigError("population.file", f"must be a file path; got {pop['file']!r}")
        if "value_column" not in pop:
            raise ConfigError("population.value_column", "missing (required with a file)")
        if not isinstance(pop["value_column"], str) or not pop["value_column"]:
            raise ConfigError(
                "population.value_column", f"must be one column name; got {pop['value_column']!r}"
            )
        for bound in ("lower", "upper"):
            if bound not in pop:
                raise ConfigError(f"population.{bound}", "missing: declare the public bounds")
            if bound == "upper" and pop[bound] == math.inf:
                continue  # .inf: no public upper bound (only the unbounded quantile runs)
            _yaml_number(f"population.{bound}", pop[bound], low=-math.inf)
        for key in LABEL_KEYS:
            label_columns(f"population.{key}", pop.get(key))
    return dict(pop)


def label_columns(field: str, value: Any) -> tuple[str, ...]:
    """A label field of the config as a tuple of column names (empty when not given).

    A label is one column (``stratid``) or several that together make one id
    (``[stratid, psuid]``: survey files number their PSUs within each stratum).

    Raises
    ------
    ConfigError
        Naming ``field``: anything but a non-empty column name or a non-empty list of
        distinct non-empty column names.
    """
    if value is None:
        return ()
    if isinstance(value, str) and value:
        return (value,)
    what = "must be a column name or a list of column names, such as [stratid, psuid]"
    if not isinstance(value, list) or not value:
        raise ConfigError(field, f"{what}; got {value!r}")
    for i, column in enumerate(value):
        if not isinstance(column, str) or not column:
            raise ConfigError(f"{field}[{i}]", f"{what}; got {column!r}")
    if len(set(value)) < len(value):
        twice = next(c for c in value if value.count(c) > 1)
        raise ConfigError(field, f"names the column {twice!r} more than once")
    return tuple(value)


def build_population(config: Config) -> Population:
    """The config's population, and its cells checked (:func:`core.publication.cells_of`).

    Parameters
    ----------
    config : Config
        A checked config (:func:`load_config`).

    Returns
    -------
    Population
        The built-in population or the file's records, with public bounds and labels.

    Raises
    ------
    ConfigError
        A file that cannot be read, a column it does not have, or a grouping without those
        labels or with more than ``max_cells`` cells.
    """
    pop = config.population
    if "builtin" in pop:
        try:
            population = make_builtin(pop["builtin"], seed=pop.get("seed", 0), size=pop.get("size"))
        except ValueError as exc:
            raise ConfigError("population", str(exc)) from None
    else:
        path = Path(pop["file"])
        path = path if path.is_absolute() else config.base_dir / path
        try:
            table = read_file_table(str(path), max_bytes=None)
        except (OSError, ValueError) as exc:
            raise ConfigError("population.file", str(exc)) from None
        chosen = {key: label_columns(f"population.{key}", pop.get(key)) for key in LABEL_KEYS}
        columns = set(map(str, table.frame.columns))
        for key, names in (("value_column", (pop["value_column"],)), *chosen.items()):
            for col in names:
                if col not in columns:
                    raise ConfigError(
                        f"population.{key}",
                        f"the file has no column {col!r}; its columns: "
                        + ", ".join(map(str, list(table.frame.columns)[:20])),
                    )
        try:
            population = load_population_file(
                table,
                value_column=pop["value_column"],
                lower=float(pop["lower"]),
                upper=float(pop["upper"]),
                stratum_column=list(chosen["strata_column"]) or None,
                cluster_column=list(chosen["cluster_column"]) or None,
                category_column=list(chosen["category_column"]) or None,
                name=f"{path.name}: {pop['value_column']}",
            )
        except ValueError as exc:
            raise ConfigError("population", str(exc)) from None
    freq = config.frequency
    try:
        if freq is None:
            cells_of(population, config.groups, max_cells=config.max_cells)
        else:
            frequency_cells(population, freq.rows, freq.column, max_cells=freq.max_cells)
    except ValueError as exc:
        field = "groups" if freq is None else "rows"
        raise ConfigError(field, str(exc).removeprefix("groups: ")) from None
    return population
