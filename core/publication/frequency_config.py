"""The ``table: frequency`` section of a publication config: a frequency table's fields.

A config with ``table: frequency`` plans a frequency table
(:func:`core.publication.frequency.plan_frequency`) instead of a table of statistics by
cell.  Example (``assets/publication_example_frequency.yaml``)::

    table: frequency            # counts (or totals) by cell, released as one histogram
    population:
      builtin: establishments
      seed: 1
      size: 100000
    rows: [clusters]            # one or two of strata, clusters, categories
    column: strata              # optional: a label column whose categories make the columns
    kind: count                 # count, or total (of the population's bounded value)
    mechanism: laplace          # laplace, geometric, discrete_gaussian
    eps_target: 1.0             # or, for a promise stated as ρ-zCDP: rho_target: 0.5
    delta_target: 1.0e-6        # optional: 1 / (2N); used by the discrete Gaussian only
    relation: replacement       # or deletion
    labels_fixed: false
    designs: [census, poisson]  # optional: the designs compared (the census always)
    rates: [0.1, 0.5]           # optional: the rates compared
    design: census              # optional: the released table's design (default: the best)
    rate: 0.1                   # optional: its rate (default: the best of the design)
    threshold: 0.5              # publishable: 95 % error at most half the cell's count
    round: false                # true: the released cells are rounded to non-negative integers
    margins: none               # rows: each row's total is released, the cells add up to it
    margin_share: 0.3           # with margins: rows, the margins' share of the budget
    max_cells: 100000

A promise stated as ρ-zCDP (``rho_target`` instead of ``eps_target``) is kept by the
discrete Gaussian on the census (claim 8 of :mod:`core.publication.composition`): the
mechanism is then ``discrete_gaussian`` (the default under ρ), and ``delta_target`` is not
used (:func:`check_frequency_promise`).

Every problem raises :class:`core.publication.config.ConfigError` naming the field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..designs.registry import DESIGNS
from ..linear.mechanisms import LINEAR_MECHANISMS
from ..publication.cells import LABEL_COLUMNS, MAX_COLUMN_CATEGORIES
from ..publication.frequency import (
    DEFAULT_THRESHOLD,
    FREQUENCY_KINDS,
    ZCDP_MECHANISM,
    check_rho_promise,
    check_threshold,
)
from ..publication.margins import DEFAULT_MARGIN_SHARE, MARGIN_OPTIONS

__all__ = ["FREQUENCY_KEYS", "FrequencySettings", "check_frequency", "check_frequency_promise"]

#: The keys of a frequency table's config besides ``population`` and the promise.
FREQUENCY_KEYS = (
    "table",
    "name",
    "rows",
    "column",
    "kind",
    "mechanism",
    "delta_target",
    "relation",
    "labels_fixed",
    "designs",
    "rates",
    "design",
    "rate",
    "threshold",
    "round",
    "max_cells",
    "margins",
    "margin_share",
)


@dataclass(frozen=True)
class FrequencySettings:
    """A checked ``table: frequency`` section (:func:`check_frequency`)."""

    rows: tuple[str, ...]
    column: str | None
    kind: str
    mechanism: str
    designs: tuple[str, ...] | None
    rates: tuple[float, ...] | None
    design: str | None
    rate: float | None
    threshold: float
    max_cells: int
    round_release: bool = False
    margins: str = "none"
    margin_share: float = DEFAULT_MARGIN_SHARE

    def plan_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`plan_frequency` (after the population and the promise)."""
        return {
            "rows": list(self.rows),
            "column": self.column,
            "kind": self.kind,
            "mechanism": self.mechanism,
            "designs": None if self.designs is None else list(self.designs),
            "rates": None if self.rates is None else list(self.rates),
            "design": self.design,
            "rate": self.rate,
            "threshold": self.threshold,
            "max_cells": self.max_cells,
            "max_columns": MAX_COLUMN_CATEGORIES,
            "round_release": self.round_release,
            "margins": self.margins,
            "margin_share": self.margin_share,
        }

    def as_dict(self) -> dict[str, Any]:
        """The section as YAML-ready values (the keys a config writes)."""
        out: dict[str, Any] = {"rows": list(self.rows)}
        if self.column is not None:
            out["column"] = self.column
        out.update(kind=self.kind, mechanism=self.mechanism)
        if self.designs is not None:
            out["designs"] = list(self.designs)
        if self.rates is not None:
            out["rates"] = list(self.rates)
        if self.design is not None:
            out["design"] = self.design
        if self.rate is not None:
            out["rate"] = self.rate
        out.update(threshold=self.threshold, round=self.round_release, max_cells=self.max_cells)
        if self.margins != "none":
            out.update(margins=self.margins, margin_share=self.margin_share)
        return out


def _error(field: str, message: str) -> Exception:
    from ..publication.config import ConfigError

    return ConfigError(field, message)


def _label(field: str, value: Any) -> str:
    if value not in LABEL_COLUMNS:
        raise _error(field, f"must be one of {', '.join(LABEL_COLUMNS)}; got {value!r}")
    return str(value)


def check_frequency(raw: dict[str, Any]) -> FrequencySettings:
    """Check a frequency table's fields of the config ``raw`` (a YAML mapping).

    Raises
    ------
    ConfigError
        Naming the field: a missing ``rows``, an unknown label column, kind, mechanism or
        design, a rate outside (0, 1], a threshold outside (0, 10].
    """
    for key in ("groups", "statistics"):
        if key in raw:
            raise _error(
                key,
                "belongs to a table of statistics by cell; a frequency table names its "
                "cells with rows (and column)",
            )
    if "rows" not in raw:
        raise _error("rows", "missing (required for table: frequency): one or two label columns")
    rows = raw["rows"]
    rows = [rows] if isinstance(rows, str) else rows
    if (
        not isinstance(rows, list)
        or not 1 <= len(rows) <= 2
        or len(set(map(str, rows))) < len(rows)
    ):
        raise _error(
            "rows", f"name one or two distinct of {', '.join(LABEL_COLUMNS)}; got {rows!r}"
        )
    rows_t = tuple(_label(f"rows[{i}]", r) for i, r in enumerate(rows))
    column = raw.get("column")
    if column is not None:
        column = _label("column", column)
        if column in rows_t:
            raise _error("column", f"{column!r} is also a row; choose another column")
    kind = raw.get("kind", "count")
    if kind not in FREQUENCY_KINDS:
        raise _error("kind", f"must be one of {', '.join(FREQUENCY_KINDS)}; got {kind!r}")
    under_rho = raw.get("rho_target") is not None
    mechanism = raw.get("mechanism", ZCDP_MECHANISM if under_rho else "laplace")
    if mechanism not in LINEAR_MECHANISMS:
        raise _error(
            "mechanism", f"must be one of {', '.join(LINEAR_MECHANISMS)}; got {mechanism!r}"
        )
    designs = raw.get("designs")
    if designs is not None:
        if not isinstance(designs, list) or not designs:
            raise _error("designs", f"must be a non-empty list; got {designs!r}")
        for d in designs:
            if d not in DESIGNS:
                raise _error("designs", f"unknown {d!r}; choose from {', '.join(DESIGNS)}")
        designs = tuple(designs)
    design = raw.get("design")
    if design is not None and design not in DESIGNS:
        raise _error("design", f"unknown {design!r}; choose from {', '.join(DESIGNS)}")
    rates = raw.get("rates")
    if rates is not None:
        if not isinstance(rates, list) or not rates:
            raise _error("rates", f"must be a non-empty list; got {rates!r}")
        rates = tuple(_rate(f"rates[{i}]", r) for i, r in enumerate(rates))
    rate = raw.get("rate")
    rate = None if rate is None else _rate("rate", rate)
    try:
        threshold = check_threshold(raw.get("threshold", DEFAULT_THRESHOLD))
    except ValueError as exc:
        raise _error("threshold", str(exc)) from None
    round_release = raw.get("round", False)
    if not isinstance(round_release, bool):
        raise _error("round", f"must be true or false; got {round_release!r}")
    margins, margin_share = _margins(raw, column, round_release)
    max_cells = raw.get("max_cells", 100_000)
    if isinstance(max_cells, bool) or not isinstance(max_cells, int) or not 1 <= max_cells <= 10**7:
        raise _error("max_cells", f"must be a whole number in [1, 10,000,000]; got {max_cells!r}")
    return FrequencySettings(
        rows=rows_t,
        column=column,
        kind=str(kind),
        mechanism=str(mechanism),
        designs=designs,
        rates=rates,
        design=design,
        rate=rate,
        threshold=threshold,
        max_cells=int(max_cells),
        round_release=round_release,
        margins=margins,
        margin_share=margin_share,
    )


def _margins(raw: dict[str, Any], column: str | None, round_release: bool) -> tuple[str, float]:
    """``margins`` and ``margin_share``, checked in plain words."""
    margins = raw.get("margins", "none")
    if margins is None or margins is False:
        margins = "none"
    if margins not in MARGIN_OPTIONS:
        raise _error(
            "margins",
            f"must be one of {', '.join(MARGIN_OPTIONS)} (rows: each row's total over the "
            f"columns is released and the cells are made to add up to it); got {margins!r}",
        )
    share = raw.get("margin_share")
    if share is not None and margins == "none":
        raise _error("margin_share", "is the margins' share of the budget: set margins: rows too")
    if share is None:
        share = DEFAULT_MARGIN_SHARE
    if isinstance(share, bool) or not isinstance(share, (int, float)):
        raise _error("margin_share", f"must be a number strictly between 0 and 1; got {share!r}")
    if not (math.isfinite(float(share)) and 0.0 < float(share) < 1.0):
        raise _error("margin_share", f"must be a number strictly between 0 and 1; got {share!r}")
    if margins == "rows" and round_release:
        raise _error(
            "margins",
            "rounding after the projection breaks the sums (the rounded cells no longer add up "
            "to their margin); choose one: round: false, or margins: none",
        )
    if margins == "rows" and raw.get("rho_target") is not None:
        raise _error(
            "margins",
            "row margins split an ε promise between the cells and the margins; under "
            "rho_target the table releases its cells alone: set margins: none",
        )
    if margins == "rows" and column is None:
        raise _error(
            "margins",
            "a table without a column has one cell per row, which is its own margin; name a "
            "column to release row margins",
        )
    return str(margins), float(share)


def _rate(field: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _error(field, f"must be a number in (0, 1); got {value!r}")
    r = float(value)
    if not (math.isfinite(r) and 0.0 < r < 1.0):
        raise _error(field, f"must be a number in (0, 1); got {value!r}")
    return r


def check_frequency_promise(raw: dict[str, Any]) -> tuple[float | None, float | None]:
    """The promise of a frequency table's config ``raw``: ``(eps_target, rho_target)``, one
    of them None.

    Exactly one of ``eps_target`` (pure ε-DP) and ``rho_target`` (ρ-zCDP), a finite number
    above 0 as YAML wrote it; under ρ the mechanism must be the discrete Gaussian
    (:func:`core.publication.frequency.check_rho_promise`).

    Raises
    ------
    ConfigError
        Naming the field, in words: both or neither stated, a number not above 0, or a ρ
        promise with another mechanism.
    """
    stated = [key for key in ("eps_target", "rho_target") if raw.get(key) is not None]
    if len(stated) != 1:
        raise _error(
            "eps_target" if not stated else "rho_target",
            "state the table's promise once: eps_target (pure ε-DP) or rho_target (ρ-zCDP); "
            "got " + (" and ".join(stated) if stated else "neither"),
        )
    key = stated[0]
    value = raw[key]
    ok = not isinstance(value, bool) and isinstance(value, (int, float))
    if not (ok and math.isfinite(float(value)) and float(value) > 0.0):
        raise _error(key, f"must be a finite number above 0; got {value!r}")
    if key == "eps_target":
        return float(value), None
    if raw.get("delta_target") is not None:
        raise _error(
            "delta_target",
            "is not used under a ρ-zCDP promise (the discrete Gaussian's ρ-zCDP needs no δ); "
            "remove it, or state the promise as eps_target",
        )
    mechanism = raw.get("mechanism", ZCDP_MECHANISM)
    try:
        rho = check_rho_promise(None, float(value), str(mechanism))
    except ValueError as exc:
        raise _error("mechanism", str(exc)) from None
    return None, rho
