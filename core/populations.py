"""Finite populations: the built-in ones of the papers and the ones users upload as CSV.

Every page of the explorer computes on a :class:`Population`: a sorted, read-only vector of
values with declared public bounds, optional stratum and cluster labels, and a content hash
that caching layers use as the key (never the raw arrays).

Built-in populations (:data:`BUILTIN_POPULATIONS`, :func:`make_builtin`)
    * ``"lognormal"`` -- Lognormal(mu=5, sigma=0.5), the skewed population of Hu, Drechsler
      & Kim (2023), §4.3 (figures 6-8).
    * ``"beta"`` -- Beta(2, 10) on [0, 1], Hu et al. (2023), §2.4 (figures 1-2).
    * ``"bimodal"`` -- the two-component scaled Beta mixture of Hu et al. (2023), §4.4 and
      Appendix B (figures 9-13), whose median sits at the top of the first component.
      :func:`paper_bimodal_population` replays the paper's own R code with ``set.seed(123)``
      bit for bit.
    * ``"bimodal_paper"`` -- that exact draw of the paper (the seed argument is not used).
    * ``"establishments"`` -- a synthetic establishment register in the spirit of Bun et al.
      (2022), §7.2 and Appendix E.1: employees top-coded at 10,000, twelve employee size
      classes as strata and about 100 regions as clusters.

CSV upload (:func:`read_csv_table`, :func:`load_population_csv`)
    Every cell is read as text and numbers are converted by us; nothing in the file is ever
    evaluated. Every problem a user can cause with a file surfaces as a :class:`ValueError`
    whose message can be shown as is.

References
----------
Hu, J., Drechsler, J. & Kim, H. J. (2023). Accuracy gains from privacy amplification through
sampling for differential privacy. Journal of Survey Statistics and Methodology.
arXiv:2103.09705.
Bun, M., Drechsler, J., Gaboardi, M., McMillan, A. & Sarathy, J. (2022). Controlling privacy
loss in sampling schemes: an analysis of stratified and cluster sampling. Foundations of
Responsible Computing (FORC 2022). arXiv:2007.12674.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import math
import os
import re
import struct
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "BUILTIN_POPULATIONS",
    "EMPLOYEES_TOP_CODE",
    "ESTABLISHMENT_SIZE_CLASSES",
    "LOGNORMAL_BOUNDS",
    "MAX_BUILTIN_SIZE",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MAX_UPLOAD_BYTES",
    "CsvTable",
    "Population",
    "cluster_strata_note",
    "csv_safe_text",
    "load_population_csv",
    "make_builtin",
    "paper_bimodal_population",
    "population_to_csv_bytes",
    "read_csv_table",
    "suggest_bounds",
]

#: Largest upload accepted, in bytes (checked before anything is parsed).
MAX_UPLOAD_BYTES: int = 50 * 1024 * 1024
#: Largest number of data rows accepted from a CSV (the same ceiling as the built-ins).
MAX_ROWS: int = 5_000_000
#: Largest number of columns accepted from a CSV.
MAX_COLUMNS: int = 1_000
#: Largest population :func:`make_builtin` will draw.
MAX_BUILTIN_SIZE: int = 5_000_000

_MIN_VALUES = 3
_MAX_LABELS = 10_000
_MISSING_LABEL = "(missing)"
#: Joins the parts of a label built from several columns ("3 / 1") and their names.
_LABEL_JOIN = " / "
_LABEL_NAME_JOIN = " × "


# --------------------------------------------------------------------------------------------
# Population
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Population:
    """A finite population of real values with declared public bounds.

    The population is the confidential data set Y_N of Hu et al. (2023), §2.1 (bounded
    differential privacy: neighbours have the same size N and differ in one record). The
    bounds ``[lower, upper]`` are the public range R of Hu et al. (2023), §2.2: they enter the
    global sensitivity of the mean, R/N, and pad the order statistics in the smooth
    sensitivity of the median (§2.2, equation 4). They must be known without looking
    at the data; a range read from the data is itself a disclosure.

    Parameters
    ----------
    name : str
        Human-readable description, e.g. ``"Lognormal(5, 0.5), N = 10,001, seed 0"``.
    values : numpy.ndarray
        The values, float64, sorted ascending. Stored as a private read-only copy; -0.0 is
        stored as 0.0.
    lower, upper : float
        Declared public bounds, finite, ``lower < upper``; every value lies in between.
    strata, clusters : numpy.ndarray or None
        Optional labels aligned with the sorted ``values`` (stratified sampling, Bun et al.
        (2022), §7; cluster sampling, §5). Integer labels are stored as int64, all
        others as Python ``str`` in an object array.
    value_label : str
        Name of the value column, used on axes and in downloads.
    notes : tuple of str
        Messages for the user: rows dropped, values clipped, where the bounds came from.
    content_hash : str
        SHA-256 (hex) over the values, the bounds and the labels. Always recomputed from the
        content when the object is built, so ``dataclasses.replace`` can never leave a stale
        hash behind; a value passed in is ignored.
    stratum_label, cluster_label : str
        Column names of the stratum and cluster labels (downloads, table headers).
    recipe : str
        A Python expression that rebuilds this population with this module's functions, e.g.
        ``make_builtin("lognormal", seed=0)`` or ``load_population_csv("file.csv", ...)``;
        empty when unknown. Used by the app's "Reproduce in Python" snippets. Not hashed.

    Raises
    ------
    ValueError
        If the bounds are not finite with ``lower < upper``, a value is not finite, lies
        outside the bounds or is out of order, or labels do not have one entry per value.
    """

    name: str
    values: np.ndarray = field(repr=False)
    lower: float
    upper: float
    strata: np.ndarray | None = field(default=None, repr=False)
    clusters: np.ndarray | None = field(default=None, repr=False)
    value_label: str = "value"
    notes: tuple[str, ...] = ()
    content_hash: str = ""
    stratum_label: str = "stratum"
    cluster_label: str = "cluster"
    recipe: str = ""

    def __post_init__(self) -> None:
        setattr_ = object.__setattr__
        try:
            values = np.array(self.values, dtype=np.float64, copy=True)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Population values must be numbers: {exc}") from None
        if values.ndim != 1:
            raise ValueError(
                f"Population values must be one-dimensional, got shape {values.shape}."
            )
        if values.size == 0:
            raise ValueError("A population needs at least one value.")
        try:
            lower, upper = float(self.lower), float(self.upper)
        except (TypeError, ValueError):
            raise ValueError("The bounds must be numbers.") from None
        if not (math.isfinite(lower) and math.isfinite(upper)):
            raise ValueError(f"The bounds must be finite numbers, got [{lower}, {upper}].")
        if not lower < upper:
            raise ValueError(
                f"The lower bound must be smaller than the upper bound, got [{_fmt(lower)}, "
                f"{_fmt(upper)}]."
            )
        if not math.isfinite(upper - lower):
            raise ValueError(
                f"The bounds [{_fmt(lower)}, {_fmt(upper)}] are too far apart to compute with."
            )
        if not np.all(np.isfinite(values)):
            bad = int(np.count_nonzero(~np.isfinite(values)))
            raise ValueError(f"The population has {_count(bad, 'value')} that are not finite.")
        values += 0.0  # turns -0.0 into 0.0 so equal numbers hash equally
        if values.size > 1 and not np.all(values[1:] >= values[:-1]):
            raise ValueError("Population values must be sorted in ascending order.")
        if values[0] < lower or values[-1] > upper:
            raise ValueError(
                f"Population values span [{_fmt(values[0])}, {_fmt(values[-1])}], outside the "
                f"declared bounds [{_fmt(lower)}, {_fmt(upper)}]."
            )
        values.setflags(write=False)
        setattr_(self, "values", values)
        setattr_(self, "lower", lower)
        setattr_(self, "upper", upper)
        setattr_(self, "strata", _normalise_labels(self.strata, values.size, "stratum"))
        setattr_(self, "clusters", _normalise_labels(self.clusters, values.size, "cluster"))
        setattr_(self, "name", str(self.name))
        setattr_(self, "value_label", str(self.value_label))
        setattr_(self, "stratum_label", str(self.stratum_label))
        setattr_(self, "cluster_label", str(self.cluster_label))
        setattr_(self, "notes", tuple(str(n) for n in self.notes))
        setattr_(self, "recipe", str(self.recipe))
        setattr_(self, "content_hash", self._compute_hash())

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickled arrays (e.g. from st.cache_data) come back writeable: freeze them again.
        for key in ("values", "strata", "clusters"):
            arr = state.get(key)
            if isinstance(arr, np.ndarray):
                arr.setflags(write=False)
        self.__dict__.update(state)

    @property
    def size(self) -> int:
        """Number of records N."""
        return int(self.values.size)

    def to_frame(self) -> pd.DataFrame:
        """The population as a table: the value column, then stratum and cluster if present."""
        data: dict[str, Any] = {self.value_label: self.values}
        if self.strata is not None:
            data[_unique_key(data, self.stratum_label)] = self.strata
        if self.clusters is not None:
            data[_unique_key(data, self.cluster_label)] = self.clusters
        return pd.DataFrame(data)

    def _compute_hash(self) -> str:
        h = hashlib.sha256(b"dp-sampling-explorer/population/v1\0")
        h.update(struct.pack("<q", self.values.size))
        h.update(self.values.astype("<f8", copy=False).tobytes())
        h.update(struct.pack("<dd", self.lower, self.upper))
        for tag, labels in ((b"strata", self.strata), (b"clusters", self.clusters)):
            h.update(tag)
            _hash_labels(h, labels)
        return h.hexdigest()


def _unique_key(existing: Mapping[str, Any], key: str) -> str:
    candidate, k = key, 2
    while candidate in existing:
        candidate, k = f"{key}_{k}", k + 1
    return candidate


def _normalise_labels(labels: Any, n: int, what: str) -> np.ndarray | None:
    """Read-only copy of a label vector: int64 for integers, else an object array of str."""
    if labels is None:
        return None
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"The {what} labels must be one-dimensional.")
    if arr.size != n:
        raise ValueError(f"There are {arr.size:,} {what} labels for {n:,} values; need one each.")
    if arr.dtype.kind == "i" or (
        arr.dtype.kind == "u" and (arr.size == 0 or arr.max() <= np.iinfo(np.int64).max)
    ):
        out = arr.astype(np.int64, copy=True)
    elif arr.dtype.kind == "O" and all(type(x) is str for x in arr):
        out = arr.copy()
    else:
        out = np.array([str(x) for x in arr.tolist()], dtype=object)
    out.setflags(write=False)
    return out


def _hash_labels(h: Any, labels: np.ndarray | None) -> None:
    if labels is None:
        h.update(b"\0none")
        return
    codes, uniques = pd.factorize(labels, sort=False)
    kind = b"i" if labels.dtype.kind == "i" else b"s"
    h.update(b"\0" + kind + struct.pack("<q", len(uniques)))
    for u in uniques.tolist():
        b = str(u).encode("utf-8", "surrogatepass")
        h.update(struct.pack("<q", len(b)) + b)
    h.update(np.asarray(codes, dtype="<i8").tobytes())


def _count(n: int, noun: str) -> str:
    """'1 row', '12 rows', '1,234 rows' (regular plurals only)."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _short(x: Any, limit: int = 40) -> str:
    """Quoted, shortened text for messages (column names can be arbitrarily long)."""
    text = str(x)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return repr(text)


def _fmt(x: float) -> str:
    """Short, readable number for messages."""
    x = float(x)
    if x == int(x) and abs(x) < 1e15:
        return f"{int(x):,}"
    return f"{x:.6g}"


def cluster_strata_note(pop: Population) -> str | None:
    """A warning when one cluster label occurs in more than one stratum, else None.

    Survey files often number their primary sampling units (PSUs) 1, 2, ... inside each
    stratum, so the PSU column alone does not identify a cluster: "PSU 1" of stratum 3 and
    "PSU 1" of stratum 4 are different clusters. Cluster sampling (Bun et al. (2022), §5)
    draws whole clusters, so it needs one id per cluster; choosing the stratum and the PSU
    column together as the cluster id (:func:`load_population_csv` accepts a list of
    columns) gives one.

    Parameters
    ----------
    pop : Population
        A population with stratum and cluster labels; without either, there is nothing to
        check and the result is None.

    Returns
    -------
    str or None
        The message for the user (how many cluster labels are shared, and what to do), or
        None when every cluster label lies within a single stratum.
    """
    if pop.strata is None or pop.clusters is None:
        return None
    return _cluster_strata_message(pop.strata, pop.clusters, pop.stratum_label, pop.cluster_label)


def _cluster_strata_message(
    strata: np.ndarray, clusters: np.ndarray, stratum_label: str, cluster_label: str
) -> str | None:
    """The text of :func:`cluster_strata_note` for aligned label arrays."""
    pairs = pd.DataFrame({"s": strata, "c": clusters}).drop_duplicates()
    per_cluster = pairs.groupby("c", sort=False)["s"].nunique()
    shared = int(np.count_nonzero(per_cluster.to_numpy() > 1))
    if not shared:
        return None
    # A label built from several columns is named "a × b": suggest every column once.
    parts = stratum_label.split(_LABEL_NAME_JOIN) + cluster_label.split(_LABEL_NAME_JOIN)
    combined = list(dict.fromkeys(parts))
    verb = "occurs" if shared == 1 else "occur"
    return (
        f"{shared:,} of the {_count(per_cluster.size, 'cluster label')} in "
        f"{_short(cluster_label)} {verb} in more than one stratum of {_short(stratum_label)}. "
        "If the file numbers its clusters (PSUs) 1, 2, … within each stratum, one such label "
        "stands for several different clusters, and cluster sampling would draw them as one: "
        "choose "
        + " and ".join(_short(c) for c in combined)
        + " together as the cluster id. If the clusters really cut across strata (regions "
        "across size classes, say), this is expected and nothing needs to change."
    )


# --------------------------------------------------------------------------------------------
# Built-in populations
# --------------------------------------------------------------------------------------------

#: Built-in populations, in display order: key -> short description.
BUILTIN_POPULATIONS: Mapping[str, str] = MappingProxyType(
    {
        "lognormal": "Lognormal(μ=5, σ=0.5): skewed like income (Hu et al. §4.3)",
        "beta": "Beta(2, 10) on [0, 1] (Hu et al. §2.4)",
        "bimodal": "Two-component Beta mixture, median in the gap (Hu et al. §4.4, App. B)",
        "bimodal_paper": (
            "The paper's own bimodal draw (R seed 123), median 0.21; the seed is not used "
            "(Hu et al. App. B, Figures 9-13)"
        ),
        "establishments": (
            "Synthetic establishments: employees, 12 size classes, ~100 regions "
            "(Bun et al. §7.2, App. E.1)"
        ),
    }
)

_DEFAULT_SIZES = {
    "lognormal": 10_001,
    "beta": 10_001,
    "bimodal": 10_001,
    "bimodal_paper": 10_001,
    "establishments": 100_000,
}

#: Public bounds of the lognormal population (see :func:`make_builtin`).
LOGNORMAL_BOUNDS: tuple[float, float] = (0.0, 2000.0)
#: Top code of the establishment population (Bun et al. (2022), §7.2, App. E.1).
EMPLOYEES_TOP_CODE: int = 10_000

#: The 12 employee size classes of Bun et al. (2022), App. E.1 (footnote 6), as (label, low, high).
ESTABLISHMENT_SIZE_CLASSES: tuple[tuple[str, int, int], ...] = (
    ("1-4", 1, 4),
    ("5-9", 5, 9),
    ("10-19", 10, 19),
    ("20-49", 20, 49),
    ("50-99", 50, 99),
    ("100-249", 100, 249),
    ("250-499", 250, 499),
    ("500-999", 500, 999),
    ("1000-1499", 1000, 1499),
    ("1500-2499", 1500, 2499),
    ("2500-4999", 2500, 4999),
    ("5000-10000", 5000, 10_000),
)

# Share of establishments per size class. Loosely modelled on the shape of the U.S. County
# Business Patterns tabulation that Bun et al. (2022) start from (most establishments are tiny, the
# counts fall roughly like 1/size beyond ten employees); they are not CBP figures.
_SIZE_CLASS_SHARES = np.array(
    [0.5452, 0.170, 0.115, 0.095, 0.038, 0.026, 0.0070, 0.0025, 0.0006, 0.0004, 0.0002, 0.0001]
)
_N_REGIONS = 100


def make_builtin(key: str, *, seed: int = 0, size: int | None = None) -> Population:
    """Draw one of the built-in populations, reproducibly from ``seed``.

    All draws use ``numpy.random.Generator(PCG64(seed))``, so a (key, seed, size) triple
    always gives the same population, on every platform numpy supports.

    Parameters
    ----------
    key : str
        One of :data:`BUILTIN_POPULATIONS`:

        ``"lognormal"``
            N draws from Lognormal(mu=5, sigma=0.5), the skewed population of Hu et
            al. (2023), §4.3 (figures 6-8). Public bounds [0, 2000]. The paper does not state
            which range it pads the smooth sensitivity with, so we fix one that a data holder
            could declare from the model alone: 0 is the natural floor of a positive
            quantity, and 2000 ~ exp(5 + 0.5 * 5.2) is the 1 - 1e-7 quantile, so with the
            default N = 10,001 the chance that any draw exceeds it is about 0.1 %. Any draw
            above 2000 is top-coded to 2000 and reported in ``notes``. The upper bound
            matters: at small epsilon the padding term (upper - lower) * exp(-k beta)
            dominates the smooth sensitivity of the median.
        ``"beta"``
            N draws from Beta(2, 10), Hu et al. (2023), §2.4 (figures 1-2); bounds [0, 1], the
            support of the distribution (the paper's range R = 1).
        ``"bimodal"``
            The mixture of Hu et al. (2023), §4.4, built exactly as the R code of Appendix B:
            (N + 1) // 2 draws of Beta(2, 10) / 2 and N // 2 draws of Beta(2, 10) + 1, then
            min-max rescaled to [0, 1]. Bounds [0, 1], the range the rescaling produces. The
            components cannot overlap (the first lies in [0, 0.5], the second in [1, 2]
            before rescaling), so for odd N the median is the largest value of the first
            component and sits next to an empty gap, which makes the population's smooth
            sensitivity large. The paper's own draw (R ``set.seed(123)``) has median 0.21;
            with numpy draws the median varies with the seed (about 0.17-0.24; 0.18 for
            seed 0). :func:`paper_bimodal_population` reproduces the paper's draw exactly.
            For even N both middle order statistics fall in the first component's top pair
            and the gap, so the median lies inside the gap.
        ``"bimodal_paper"``
            :func:`paper_bimodal_population` (the paper's R draw, median 0.21); ``seed`` is
            ignored.
        ``"establishments"``
            A synthetic establishment register (value column ``employees``, integers 1 to
            10,000) shaped after the example of Bun et al. (2022), §7.2 and Appendix E.1: the
            employee size is top-coded at 10,000 and the 12 strata ``size_class`` are the
            paper's employee size classes (:data:`ESTABLISHMENT_SIZE_CLASSES`). Class sizes
            are fixed shares of N (largest-remainder rounding) with a long right tail; within
            a class, employees follow a Pareto(1) law truncated to the class, and in the top
            class 5000-10000 the Pareto tail is top-coded (about half of its establishments
            sit at 10,000). Clusters ``region``: 100 regions whose sizes follow lognormal
            weights (heterogeneous, from a few dozen to a few thousand establishments);
            large establishments favour large regions, which gives some within-region
            similarity. Bounds [0, 10000].
    seed : int, default 0
        Non-negative seed of the PCG64 generator.
    size : int, optional
        Population size N; default 10,001 (100,000 for ``"establishments"``). Must lie in
        [3, 5,000,000].

    Returns
    -------
    Population

    Raises
    ------
    ValueError
        For an unknown key, a negative or non-integer seed, or a size out of range.
    """
    if not isinstance(key, str) or key not in BUILTIN_POPULATIONS:
        raise ValueError(
            f"Unknown built-in population {key!r}; choose one of: {', '.join(BUILTIN_POPULATIONS)}."
        )
    seed = _check_int(seed, "seed", 0, 2**63 - 1)
    n = _DEFAULT_SIZES[key] if size is None else _check_int(size, "size", 3, MAX_BUILTIN_SIZE)
    pop = _draw_builtin(key, seed, n)
    size_arg = "" if size is None else f", size={n}"
    return dataclasses.replace(pop, recipe=f"make_builtin({key!r}, seed={seed}{size_arg})")


def _draw_builtin(key: str, seed: int, n: int) -> Population:
    rng = np.random.Generator(np.random.PCG64(seed))
    tail = f"N = {n:,}, seed {seed}"
    if key == "lognormal":
        lower, upper = LOGNORMAL_BOUNDS
        draws = rng.lognormal(mean=5.0, sigma=0.5, size=n)
        n_top = int(np.count_nonzero(draws > upper))
        notes = [
            "Simulated from Lognormal(μ=5, σ=0.5) as in Hu et al. §4.3.",
            "Public bounds [0, 2,000] fixed from the model (2,000 is about its 1 − 10⁻⁷ "
            "quantile), not read from the data.",
        ]
        if n_top:
            notes.append(f"Top-coded {_count(n_top, 'value')} above 2,000 to 2,000.")
        return Population(
            name=f"Lognormal(5, 0.5), {tail}",
            values=np.sort(np.minimum(draws, upper)),
            lower=lower,
            upper=upper,
            notes=tuple(notes),
        )
    if key == "beta":
        return Population(
            name=f"Beta(2, 10), {tail}",
            values=np.sort(rng.beta(2.0, 10.0, size=n)),
            lower=0.0,
            upper=1.0,
            notes=(
                "Simulated from Beta(2, 10) as in Hu et al. §2.4; bounds [0, 1] are its support.",
            ),
        )
    if key == "bimodal":
        first = rng.beta(2.0, 10.0, size=(n + 1) // 2) / 2.0
        second = rng.beta(2.0, 10.0, size=n // 2) + 1.0
        return _bimodal_population(first, second, f"Bimodal Beta mixture, {tail}")
    if key == "bimodal_paper":
        return paper_bimodal_population(size=n)
    return _establishments(rng, n, tail)


def _check_int(x: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(x, bool):
        raise ValueError(f"The {what} must be an integer, got {x!r}.")
    try:
        v = int(x)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"The {what} must be an integer, got {x!r}.") from None
    if v != x:
        raise ValueError(f"The {what} must be an integer, got {x!r}.")
    if not lo <= v <= hi:
        raise ValueError(f"The {what} must lie between {lo:,} and {hi:,}, got {v:,}.")
    return v


def _bimodal_population(first: np.ndarray, second: np.ndarray, name: str) -> Population:
    """Min-max rescaled two-component mixture (Hu et al. (2023), App. B) as a Population."""
    y = np.concatenate([first, second])
    lo, hi = y.min(), y.max()
    y = (y - lo) / (hi - lo)
    return Population(
        name=name,
        values=np.sort(y),
        lower=0.0,
        upper=1.0,
        notes=(
            f"{first.size:,} draws of Beta(2, 10)/2 and {second.size:,} draws of "
            "Beta(2, 10) + 1, rescaled to [0, 1] (Hu et al. §4.4 and Appendix B).",
            "The median is the largest value of the first component, next to an empty gap.",
        ),
    )


def _establishments(rng: np.random.Generator, n: int, tail: str) -> Population:
    shares = _SIZE_CLASS_SHARES / _SIZE_CLASS_SHARES.sum()
    counts = _largest_remainder(shares, n)
    # Heterogeneous region sizes; larger size classes lean towards the larger regions.
    weights = rng.lognormal(0.0, 1.0, size=_N_REGIONS)
    region_names = np.array([f"R{r + 1:03d}" for r in range(_N_REGIONS)], dtype=object)
    values, strata, regions = [], [], []
    n_classes = len(ESTABLISHMENT_SIZE_CLASSES)
    for k, ((label, lo, hi), m) in enumerate(zip(ESTABLISHMENT_SIZE_CLASSES, counts, strict=True)):
        if m == 0:
            continue
        u = rng.random(m)
        if hi == EMPLOYEES_TOP_CODE:
            # Untruncated Pareto(1) tail from `lo`, then top-coded (Bun et al. (2022), App. E.1).
            x = lo / (1.0 - u)
        else:
            # Pareto(1) truncated to [lo, hi + 1), then floored: integers in [lo, hi].
            x = 1.0 / (1.0 / lo - u * (1.0 / lo - 1.0 / (hi + 1)))
        emp = np.clip(np.floor(x), lo, hi)
        p = weights ** (1.0 + 0.5 * k / (n_classes - 1))
        values.append(emp)
        strata.append(np.full(m, label, dtype=object))
        regions.append(region_names[rng.choice(_N_REGIONS, size=m, p=p / p.sum())])
    v = np.concatenate(values)
    order = np.argsort(v, kind="stable")
    n_top = int(np.count_nonzero(v >= EMPLOYEES_TOP_CODE))
    return Population(
        name=f"Synthetic establishments, {tail}",
        values=v[order],
        lower=0.0,
        upper=float(EMPLOYEES_TOP_CODE),
        strata=np.concatenate(strata)[order],
        clusters=np.concatenate(regions)[order],
        value_label="employees",
        stratum_label="size_class",
        cluster_label="region",
        notes=(
            "Synthetic data shaped after the establishment example of Bun et al. §7.2 and "
            "Appendix E.1; not real establishments.",
            "Employees are top-coded at 10,000 "
            f"({_count(n_top, 'establishment')} at the top code); bounds [0, 10,000] are public.",
            "Strata: the paper's 12 employee size classes. Clusters: 100 regions of unequal size.",
        ),
    )


def _largest_remainder(shares: np.ndarray, n: int) -> np.ndarray:
    """Integer counts summing to n, proportional to shares (Hamilton's method)."""
    raw = shares * n
    counts = np.floor(raw).astype(np.int64)
    short = n - int(counts.sum())
    if short:
        order = np.argsort(-(raw - counts), kind="stable")
        counts[order[:short]] += 1
    return counts


# --- Replay of R's generator, for the paper's exact bimodal population -----------------------

_R_DOUBLE_MAX = 1.7976931348623157e308
_R_EXPMAX = 1024 * math.log(2.0)  # DBL_MAX_EXP * M_LN2 in R's nmath/rbeta.c


class _RUniform:
    """R's default ``unif_rand`` (Mersenne-Twister) after ``set.seed(seed)``.

    R scrambles the seed with 50 rounds of the congruential map s -> 69069 s + 1 (mod 2^32),
    fills the 624-word Mersenne-Twister state with 624 further rounds (after one discarded
    word, the position slot), and returns each tempered 32-bit output times 2^-32.
    """

    def __init__(self, seed: int) -> None:
        s = seed & 0xFFFFFFFF
        for _ in range(50):
            s = (69069 * s + 1) & 0xFFFFFFFF
        words = []
        for _ in range(625):
            s = (69069 * s + 1) & 0xFFFFFFFF
            words.append(s)
        self._bitgen = np.random.MT19937()
        self._bitgen.state = {
            "bit_generator": "MT19937",
            "state": {"key": np.array(words[1:], dtype=np.uint32), "pos": 624},
        }
        self._buffer: list[float] = []
        self._next = 0

    def __call__(self) -> float:
        if self._next >= len(self._buffer):
            u = self._bitgen.random_raw(8192).astype(np.float64) * 2.3283064365386963e-10
            u[u <= 0.0] = 0.5 * 2.328306437080797e-10  # R's fixup() keeps u in (0, 1)
            self._buffer, self._next = u.tolist(), 0
        value = self._buffer[self._next]
        self._next += 1
        return value


def _r_rbeta(n: int, aa: float, bb: float, unif: _RUniform) -> np.ndarray:
    """R's ``rbeta(n, aa, bb)`` for min(aa, bb) > 1: Cheng's (1978) algorithm BB."""
    a, b = min(aa, bb), max(aa, bb)
    alpha = a + b
    beta = math.sqrt((alpha - 2.0) / (2.0 * a * b - alpha))
    gamma = a + 1.0 / beta
    out = np.empty(n)
    for i in range(n):
        while True:
            u1, u2 = unif(), unif()
            v = beta * math.log(u1 / (1.0 - u1))
            if v <= _R_EXPMAX:
                w = a * math.exp(v)
                if not math.isfinite(w):
                    w = _R_DOUBLE_MAX
            else:
                w = _R_DOUBLE_MAX
            z = u1 * u1 * u2
            r = gamma * v - 1.3862944
            s = a + r - w
            if s + 2.609438 >= 5.0 * z:
                break
            t = math.log(z)
            if s > t:
                break
            if not r + alpha * math.log(alpha / (b + w)) < t:
                break
        out[i] = b / (b + w) if aa != a else w / (b + w)
    return out


def paper_bimodal_population(*, r_seed: int = 123, size: int = 10_001) -> Population:
    """The bimodal population of Hu et al. (2023), §4.4, exactly as the paper drew it.

    Replays the R code of Appendix B (``set.seed(123)``; ``rbeta`` with a = 2, b = 10; first
    component ``rbeta((N+1)/2, a, b) / 2``, second ``rbeta((N-1)/2, a, b) + 1``; min-max
    rescaling) with a pure-numpy copy of R's default Mersenne-Twister seeding and of R's
    ``rbeta`` (Cheng's algorithm BB). The result matches R 4.2 bit for bit; its median is
    0.2109246..., the "0.21" of the paper's figure 9, and it is the largest value of the first
    component.

    Parameters
    ----------
    r_seed : int, default 123
        The argument of R's ``set.seed``.
    size : int, default 10,001
        Population size N (odd N reproduces the paper's layout).

    Returns
    -------
    Population
        Bounds [0, 1].
    """
    r_seed = _check_int(r_seed, "R seed", -(2**31), 2**31 - 1)
    n = _check_int(size, "size", 3, 200_001)
    unif = _RUniform(r_seed)
    first = _r_rbeta((n + 1) // 2, 2.0, 10.0, unif) / 2.0
    second = _r_rbeta(n // 2, 2.0, 10.0, unif) + 1.0
    pop = _bimodal_population(
        first, second, f"Bimodal Beta mixture as in Hu et al. (R set.seed({r_seed})), N = {n:,}"
    )
    return pop


# --------------------------------------------------------------------------------------------
# Bounds
# --------------------------------------------------------------------------------------------


def suggest_bounds(values: Any) -> tuple[float, float]:
    """The values' range rounded outward to round numbers, e.g. [3, 97] -> [0, 100].

    Convenient as a starting point, but a range read from the data is not differentially
    private (Hu et al. (2023), §2.2 and §4.2, ask for a range R that does not depend on the
    data): the user should replace it with bounds known from outside the data.

    Parameters
    ----------
    values : array_like
        Numbers; non-finite entries are ignored.

    Returns
    -------
    (lower, upper) : tuple of float
        Finite with ``lower < upper``. The step is a power of ten no larger than the range;
        a constant column gets one step either side of a value that is not itself round.

    Raises
    ------
    ValueError
        If there is no finite value.
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0:
        raise ValueError("There is no finite value to take bounds from.")
    lo, hi = float(v.min()), float(v.max())
    span = hi - lo
    if span == 0.0:
        span = max(abs(lo), 1.0)
    if not math.isfinite(span):
        return _widen(lo, hi)
    exponent = math.floor(math.log10(span))
    step = float(f"1e{exponent}")
    if step == 0.0:
        return _widen(lo, hi)
    q_lo, q_hi = lo / step, hi / step
    if not (math.isfinite(q_lo) and math.isfinite(q_hi)):
        return _widen(lo, hi)
    k_lo, k_hi = math.floor(q_lo), math.ceil(q_hi)
    if k_lo == k_hi:
        k_lo, k_hi = k_lo - 1, k_hi + 1

    def multiple(k: int) -> float:
        # The double nearest to the decimal k * 10**exponent, so bounds print as round numbers.
        return float(f"{k}e{exponent}")

    lower, upper = multiple(k_lo), multiple(k_hi)
    if lower > lo:
        lower = multiple(k_lo - 1)
    if upper < hi:
        upper = multiple(k_hi + 1)
    if not (math.isfinite(lower) and math.isfinite(upper)) or lower > lo or upper < hi:
        return _widen(lo, hi)
    return lower, upper


def _widen(lo: float, hi: float) -> tuple[float, float]:
    if lo < hi:
        return lo, hi
    down, up = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)
    return (down if math.isfinite(down) else lo), (up if math.isfinite(up) else hi)


# --------------------------------------------------------------------------------------------
# CSV reading
# --------------------------------------------------------------------------------------------

_DELIMITERS = (",", ";", "\t", "|")
_SNIFF_CHARS = 64 * 1024
_IRREGULAR_QUOTING = "The file has irregular quoting"
_DELIM_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}

# Only signatures that no text header could start with (other binaries fail the NUL and
# control-byte checks anyway).
_BINARY_SIGNATURES = (
    (b"PK\x03\x04", "a ZIP archive or an Excel .xlsx workbook", "save the sheet as CSV first"),
    (b"\xd0\xcf\x11\xe0", "an old Excel .xls workbook", "save the sheet as CSV first"),
    (b"%PDF-", "a PDF document", ""),
    (b"\x89PNG", "a PNG image", ""),
    (b"\xff\xd8\xff", "a JPEG image", ""),
    (b"GIF87a", "a GIF image", ""),
    (b"GIF89a", "a GIF image", ""),
    (b"\x1f\x8b", "a gzip-compressed file", "decompress it first"),
    (b"\xfd7zXZ\x00", "an xz-compressed file", "decompress it first"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive", "extract it first"),
    (b"SQLite format 3\x00", "an SQLite database", "export the table as CSV first"),
    (b"\x7fELF", "a program", ""),
)

_NAN_SPELLINGS = frozenset({"nan", "+nan", "-nan"})
_PLAIN_NUMBER = r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)"
_US_THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")
_EU_DECIMAL = re.compile(r"[+-]?(?:[0-9]{1,3}(?:\.[0-9]{3})+|[0-9]*),[0-9]+")
_AMBIGUOUS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+")


@dataclass(frozen=True, eq=False)
class CsvTable:
    """A CSV file read as text, with the columns that can serve as values or labels.

    Attributes
    ----------
    frame : pandas.DataFrame
        Every data row (header excluded) and every column, as stripped text; blank cells are
        empty strings.
    numeric_columns : list of str
        Columns with at least 3 finite numbers: candidates for the value column.
    label_columns : list of str
        Columns with between 2 and 10,000 distinct entries (a blank counts as one entry):
        candidates for a stratum or cluster column.
    delimiter : str
        The field delimiter that was detected.
    has_header : bool
        Whether the first row was taken as column names.
    notes : tuple of str
        Messages for the user about how the file was read.
    """

    frame: pd.DataFrame
    numeric_columns: list[str]
    label_columns: list[str]
    delimiter: str
    has_header: bool
    notes: tuple[str, ...] = ()
    source_name: str | None = None
    _numbers: dict[str, tuple[np.ndarray, str | None]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def column_values(self, column: str) -> np.ndarray:
        """A column converted to float64, NaN where a cell is blank or not a number.

        Uses the same conversion as :func:`load_population_csv`, including numbers written
        with thousands separators ("1,234") or a decimal comma ("1,5" in a semicolon file).

        Raises
        ------
        ValueError
            If the column does not exist.
        """
        if column not in self.frame.columns:
            raise ValueError(_unknown_column(column, self.frame.columns))
        if column not in self._numbers:
            self._numbers[column] = _to_numbers(self.frame[column], self.delimiter, column)
        return self._numbers[column][0]


def _unknown_column(column: Any, columns: Any) -> str:
    names = ", ".join(_short(c) for c in list(columns)[:20])
    more = "" if len(columns) <= 20 else f" and {len(columns) - 20} more"
    return f"There is no column named {_short(column)}. The columns are: {names}{more}."


def read_csv_table(source: Any) -> CsvTable:
    """Read a CSV file as a table of text cells, detecting its delimiter and header.

    Reading never evaluates anything from the file: cells are read as text by pandas' C
    parser (``dtype=str``, no NA conversion), whitespace is stripped, and numbers are
    converted by :meth:`CsvTable.column_values`.

    * Size: more than :data:`MAX_UPLOAD_BYTES` bytes is refused before parsing (a file-like
      object is read up to one byte past the limit); more than :data:`MAX_ROWS` data rows or
      :data:`MAX_COLUMNS` columns is refused too.
    * Decoding: UTF-8 (a byte-order mark is removed); UTF-16 or UTF-32 with a byte-order mark,
      and UTF-16 without one, are decoded with a note; other non-UTF-8 text is read as
      Windows-1252 (or Latin-1) with a note. Files with NUL or many control bytes, or with
      the signature of a known binary format (Excel, ZIP, PDF, images...), are refused.
    * Delimiter: each of ``, ; TAB |`` splits the first 64 KB with Python's ``csv`` reader;
      the one that gives at least two fields with the most consistent field count wins (ties
      go to the earlier candidate), else a comma. We score candidates ourselves rather than
      call ``csv.Sniffer``, whose regular expressions can take quadratic time on long quoted
      lines and which often picks a decimal comma as the delimiter.
    * Header: the first row is a header when none of its non-blank cells is a number. Blank
      names become ``column_k`` (k = position), duplicates get ``_2``, ``_3``...; without a
      header the columns are ``column_1``, ``column_2``...
    * Ragged rows: short rows are padded with blanks; cells beyond the header's width land in
      extra ``column_k`` columns. Rows whose cells are all blank are dropped.

    Parameters
    ----------
    source : str, os.PathLike, bytes or binary file-like
        A path, the file's bytes, or an object with ``read()`` (e.g. Streamlit's
        ``UploadedFile``; it is rewound first when it can seek).

    Returns
    -------
    CsvTable

    Raises
    ------
    ValueError
        With a message for the user when the file is missing, too large, empty, binary, not
        decodable, has no data row, or cannot be split into rows and columns.
    """
    data, source_name = _read_source_bytes(source)
    text, notes = _decode(data)
    if not text.strip():
        raise ValueError("The file is empty.")
    delimiter, text = _excel_sep_line(text)
    if delimiter is None:
        delimiter = _sniff_delimiter(text)
    else:
        notes.append(f"The file's first line declares the delimiter ({_DELIM_NAMES[delimiter]}).")
        if not text.strip():
            raise ValueError("The file has no rows after its 'sep=' line.")
    raw = _parse(text, delimiter, notes)
    # Drop columns that are blank everywhere (padding) and rows that are blank everywhere.
    nonblank = raw != ""
    raw = raw.loc[nonblank.any(axis=1).to_numpy(), nonblank.any(axis=0).to_numpy()]
    if raw.shape[0] == 0:
        raise ValueError("The file holds no data: every cell is blank (only delimiters or spaces).")
    positions = [int(c) for c in raw.columns]
    first = [str(x) for x in raw.iloc[0].tolist()]
    has_header = _looks_like_header(first, delimiter)
    if has_header:
        names = _column_names(first, positions)
        frame = raw.iloc[1:]
        if frame.shape[0] == 0:
            raise ValueError(
                "The file has a header row but no data rows below it "
                f"(columns: {', '.join(_short(n) for n in names[:20])})."
            )
        ragged = [n for n, f in zip(names, first, strict=True) if f == ""]
        if ragged and len(ragged) < len(names):
            notes.append(
                "Some rows have more cells than the header row or cells under a blank header; "
                f"those columns are named {', '.join(ragged[:5])}{'…' if len(ragged) > 5 else ''}."
            )
    else:
        names = [f"column_{p + 1}" for p in positions]
        frame = raw
        notes.append(
            "The first row holds numbers, so it was read as data; columns are named "
            "column_1, column_2, …"
        )
    if frame.shape[0] > MAX_ROWS:
        raise ValueError(f"The file has more than {MAX_ROWS:,} data rows; that is the limit.")
    frame = frame.reset_index(drop=True)
    frame.columns = names
    table = CsvTable(
        frame=frame,
        numeric_columns=[],
        label_columns=[],
        delimiter=delimiter,
        has_header=has_header,
        notes=(),
        source_name=source_name,
    )
    numeric, labels = [], []
    for name in names:
        numbers = table.column_values(name)
        if int(np.count_nonzero(np.isfinite(numbers))) >= _MIN_VALUES:
            numeric.append(name)
        n_distinct = frame[name].nunique(dropna=False)
        if 2 <= n_distinct <= _MAX_LABELS:
            labels.append(name)
    for name in numeric:
        conversion_note = table._numbers[name][1]
        if conversion_note:
            notes.append(conversion_note)
    object.__setattr__(table, "numeric_columns", numeric)
    object.__setattr__(table, "label_columns", labels)
    object.__setattr__(table, "notes", tuple(notes))
    return table


def _read_source_bytes(source: Any) -> tuple[bytes, str | None]:
    """The raw bytes of a path, bytes object or binary file-like, refusing oversize input."""
    limit = MAX_UPLOAD_BYTES
    too_big = f"The file is larger than {limit // 2**20} MB, the upload limit."
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        if len(data) > limit:
            raise ValueError(too_big)
        return data, None
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            is_file = path.is_file()
        except (OSError, ValueError):
            is_file = False
        if not is_file:
            raise ValueError(f"There is no file at {_short(path, 200)}.")
        try:
            if path.stat().st_size > limit:
                raise ValueError(too_big)
            with path.open("rb") as fh:
                data = fh.read(limit + 1)
        except OSError as exc:
            raise ValueError(
                f"The file {_short(path, 200)} cannot be read: {exc.strerror}."
            ) from None
        if len(data) > limit:
            raise ValueError(too_big)
        return data, path.name
    if hasattr(source, "read"):
        seek = getattr(source, "seek", None)
        if callable(seek):
            try:
                seek(0)
            except (OSError, ValueError):
                pass
        try:
            data = source.read(limit + 1)
        except (OSError, ValueError) as exc:
            raise ValueError(f"The upload cannot be read: {exc}.") from None
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("The file object's read() must return bytes.")
        data = bytes(data)
        if len(data) > limit:
            raise ValueError(too_big)
        name = getattr(source, "name", None)
        return data, name if isinstance(name, str) else None
    raise TypeError(f"Expected a path, bytes or a binary file object, got {type(source).__name__}.")


def _decode(data: bytes) -> tuple[str, list[str]]:
    """Text of the file and notes about its encoding; ValueError for binary content."""
    notes: list[str] = []
    if not data:
        raise ValueError("The file is empty.")
    for signature, what, advice in _BINARY_SIGNATURES:
        if data.startswith(signature):
            raise ValueError(
                f"This looks like {what}, not a CSV text file" + (f"; {advice}." if advice else ".")
            )
    text: str | None = None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        text = _decode_strict(data, "utf-32", "UTF-32")
        notes.append("The file is encoded as UTF-32; it was converted.")
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = _decode_strict(data, "utf-16", "UTF-16")
        notes.append("The file is encoded as UTF-16; it was converted.")
    elif b"\x00" in data:
        encoding = _utf16_without_bom(data)
        if encoding is None:
            raise ValueError(
                "This looks like a binary file (it contains NUL bytes), not a CSV text file."
            )
        text = _decode_strict(data, encoding, "UTF-16")
        notes.append("The file is encoded as UTF-16; it was converted.")
    if text is None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            if _control_share(data[:_SNIFF_CHARS].decode("latin-1")) > 0.01:
                raise ValueError(
                    "This looks like a binary file, not a CSV text file (it is not valid text)."
                ) from None
            try:
                text = data.decode("cp1252")
                notes.append(
                    "The file is not UTF-8; it was read as Windows-1252. Check that accented "
                    "letters look right, or save the file as UTF-8."
                )
            except UnicodeDecodeError:
                text = data.decode("latin-1")
                notes.append(
                    "The file is not UTF-8; it was read as Latin-1. Check that accented letters "
                    "look right, or save the file as UTF-8."
                )
    if "\x00" in text:
        raise ValueError("This looks like a binary file (it contains NUL characters).")
    if _control_share(text[:_SNIFF_CHARS]) > 0.01:
        raise ValueError(
            "This looks like a binary file, not a CSV text file (it is full of control bytes)."
        )
    return text, notes


def _decode_strict(data: bytes, codec: str, label: str) -> str:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        raise ValueError(f"The file looks like {label} text but is not valid {label}.") from None


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' or 'utf-16-be' when NULs sit at every other byte, as in ASCII UTF-16."""
    sample = data[: 2 * 4096]
    if len(sample) < 4 or len(sample) % 2:
        return None
    even, odd = sample[0::2], sample[1::2]
    nul_even, nul_odd = even.count(0) / len(even), odd.count(0) / len(odd)
    if nul_odd > 0.9 and nul_even < 0.1:
        return "utf-16-le"
    if nul_even > 0.9 and nul_odd < 0.1:
        return "utf-16-be"
    return None


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _control_share(text: str) -> float:
    if not text:
        return 0.0
    return len(_CONTROL.findall(text)) / len(text)


def _excel_sep_line(text: str) -> tuple[str | None, str]:
    """Honour Excel's optional first line ``sep=;`` (returns the delimiter and the rest)."""
    first = _first_line(text)
    if len(first) == 5 and first.lower().startswith("sep=") and first[4] in _DELIMITERS:
        return first[4], text[len(first) :].lstrip("\r\n")
    return None, text


def _sniff_delimiter(text: str) -> str:
    """The candidate delimiter giving the most consistent field count (>= 2) in the head."""
    sample = text[:_SNIFF_CHARS]
    if len(text) > _SNIFF_CHARS:
        cut = max(sample.rfind("\n"), sample.rfind("\r"))
        if cut > 0:
            sample = sample[:cut]
    best: tuple[float, int] | None = None
    choice = ","
    for index, delimiter in enumerate(_DELIMITERS):
        if delimiter not in sample:
            continue
        try:
            rows = [
                r
                for r in csv.reader(io.StringIO(sample, newline=""), delimiter=delimiter)
                if any(c.strip() for c in r)
            ]
        except csv.Error:
            continue
        if not rows:
            continue
        counts = Counter(len(r) for r in rows)
        modal, freq = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if modal < 2:
            continue
        score = (freq / len(rows), -index)
        if best is None or score > best:
            best, choice = score, delimiter
    return choice


def _first_line(text: str) -> str:
    ends = [i for i in (text.find("\n"), text.find("\r")) if i >= 0]
    return text[: min(ends)] if ends else text


def _parse(text: str, delimiter: str, notes: list[str]) -> pd.DataFrame:
    """All rows as stripped text; columns are labelled 0, 1, ... by position."""
    first = _first_line(text)
    if first.count(delimiter) + 1 > MAX_COLUMNS and _count_fields(first, delimiter) > MAX_COLUMNS:
        raise ValueError(f"The file has more than {MAX_COLUMNS:,} columns; that is the limit.")
    frame: pd.DataFrame | None = None
    try:
        frame = _read_c(text, delimiter, None)
    except (pd.errors.ParserError, ValueError, OverflowError):
        width = _max_fields_bound(text, delimiter)
        if width <= MAX_COLUMNS:
            try:
                frame = _read_c(text, delimiter, width)
            except (pd.errors.ParserError, ValueError, OverflowError):
                frame = None
    if frame is None:
        frame = _read_python(text, delimiter)
        notes.append(f"{_IRREGULAR_QUOTING}; it was read with a lenient parser. Check the preview.")
    if frame.shape[1] > MAX_COLUMNS:
        raise ValueError(f"The file has more than {MAX_COLUMNS:,} columns; that is the limit.")
    if frame.shape[0] > MAX_ROWS + 1:
        raise ValueError(f"The file has more than {MAX_ROWS:,} data rows; that is the limit.")
    frame.columns = range(frame.shape[1])
    for col in frame.columns:
        frame[col] = frame[col].fillna("").astype(str).str.strip()
    return frame


def _read_c(text: str, delimiter: str, width: int | None) -> pd.DataFrame:
    return pd.read_csv(
        io.StringIO(text),
        sep=delimiter,
        header=None,
        names=None if width is None else list(range(width)),
        index_col=False,
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        engine="c",
        quotechar='"',
        doublequote=True,
        skip_blank_lines=True,
        nrows=MAX_ROWS + 2,
    )


def _count_fields(line: str, delimiter: str) -> int:
    try:
        row = next(csv.reader([line], delimiter=delimiter, strict=False), [])
    except csv.Error:
        return line.count(delimiter) + 1
    return len(row)


def _max_fields_bound(text: str, delimiter: str) -> int:
    """Upper bound on the fields of any single-line row: delimiters per line + 1."""
    raw = np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    breaks = np.flatnonzero((raw == 10) | (raw == 13))
    delims = np.flatnonzero(raw == ord(delimiter))
    if delims.size == 0:
        return 1
    per_line = np.bincount(np.searchsorted(breaks, delims))
    return int(per_line.max()) + 1


def _read_python(text: str, delimiter: str) -> pd.DataFrame:
    """Lenient fallback parse with Python's csv module (irregular quotes, ragged rows)."""
    rows: list[list[str]] = []
    width = 0
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=False):
            if not row:
                continue
            width = max(width, len(row))
            if width > MAX_COLUMNS:
                raise ValueError(
                    f"The file has more than {MAX_COLUMNS:,} columns; that is the limit."
                )
            rows.append(row)
            if len(rows) > MAX_ROWS + 1:
                raise ValueError(
                    f"The file has more than {MAX_ROWS:,} data rows; that is the limit."
                )
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise ValueError(
                f"A cell is longer than {csv.field_size_limit():,} characters; this is not a "
                "table of values."
            ) from None
        raise ValueError(f"The file cannot be split into rows and columns ({exc}).") from None
    if not rows:
        raise ValueError("The file is empty.")
    return pd.DataFrame([r + [""] * (width - len(r)) for r in rows], dtype=object)


def _looks_like_header(first: list[str], delimiter: str) -> bool:
    cells = [c for c in first if c != ""]
    if not cells:
        return False
    numbers, _ = _to_numbers(pd.Series(cells, dtype=object), delimiter, None)
    # A literal "nan" counts as a number here, so a first row of numbers and NaNs is data.
    spelled_nan = np.array([c.lower() in _NAN_SPELLINGS for c in cells])
    return not bool(np.any(~np.isnan(numbers) | spelled_nan))


def _column_names(first: list[str], positions: list[int]) -> list[str]:
    names: list[str] = []
    taken: set[str] = set()
    base = [c if c else f"column_{p + 1}" for c, p in zip(first, positions, strict=True)]
    reserved = set(base)
    for name in base:
        candidate, k = name, 2
        while candidate in taken or (candidate != name and candidate in reserved):
            candidate, k = f"{name}_{k}", k + 1
        taken.add(candidate)
        names.append(candidate)
    return names


def _to_numbers(
    cells: pd.Series, delimiter: str, column: str | None
) -> tuple[np.ndarray, str | None]:
    """Convert text cells to float64 (NaN if not a number); also a note on separators.

    A cell is a number when it matches a plain decimal grammar: optional sign, digits with an
    optional decimal point, optional exponent (``-1.5``, ``.5``, ``2.``, ``6.02e23``), or one
    of ``inf``, ``infinity``, ``nan`` in any case. Matching cells are converted with correct
    rounding (the same double as Python's ``float``). Other cells are tried as numbers with
    thousands separators ("1,234,567.5") or with a decimal comma ("1,5", "1.234,5"); a bare
    "1,234" counts as a decimal comma only in a semicolon-delimited file (the European
    convention) and as thousands otherwise. Everything else becomes NaN. Nothing else
    (hexadecimal, underscores, currency signs, percentages) is interpreted.
    """
    text = cells.astype(str)
    values = np.full(len(text), np.nan)
    if len(text) == 0:
        return values, None
    plain = text.str.fullmatch(_PLAIN_NUMBER, case=False).to_numpy(dtype=bool)
    if plain.any():
        subset = text[plain]
        try:
            values[plain] = subset.astype("float64").to_numpy(dtype=np.float64)
        except (ValueError, TypeError, OverflowError):
            values[plain] = pd.to_numeric(subset, errors="coerce").to_numpy(dtype=np.float64)
    failed = ~plain & (text != "").to_numpy(dtype=bool)
    if not failed.any():
        return values, None
    candidates = text[failed]
    has_comma = candidates.str.contains(",", regex=False)
    if not has_comma.any():
        return values, None
    candidates = candidates[has_comma]
    us = candidates.str.fullmatch(_US_THOUSANDS.pattern)
    eu = candidates.str.fullmatch(_EU_DECIMAL.pattern)
    ambiguous = candidates.str.fullmatch(_AMBIGUOUS.pattern)
    us_only = bool((us & ~ambiguous).any())
    eu_only = bool((eu & ~ambiguous).any())
    if eu_only and not us_only:
        european = True
    elif us_only and not eu_only:
        european = False
    else:
        european = delimiter == ";"
    if european:
        mask = eu
        converted = candidates[mask].str.replace(".", "", regex=False).str.replace(",", ".")
        how = "a decimal comma (e.g. '1,5' = 1.5)"
    else:
        mask = us
        converted = candidates[mask].str.replace(",", "", regex=False)
        how = "commas as thousands separators (e.g. '1,234' = 1234)"
    if not mask.any():
        return values, None
    parsed = pd.to_numeric(converted, errors="coerce")
    index = np.flatnonzero(failed)[has_comma.to_numpy()][mask.to_numpy()]
    values[index] = np.asarray(parsed, dtype=np.float64)
    prefix = f"Column {_short(column)}: read" if column is not None else "Read"
    note = f"{prefix} {_count(int(mask.sum()), 'cell')} as numbers written with {how}."
    return values, note


# --------------------------------------------------------------------------------------------
# Population from CSV
# --------------------------------------------------------------------------------------------


def load_population_csv(
    source: Any,
    *,
    value_column: str | None = None,
    lower: float | None = None,
    upper: float | None = None,
    stratum_column: str | Sequence[str] | None = None,
    cluster_column: str | Sequence[str] | None = None,
    name: str | None = None,
) -> Population:
    """Build a :class:`Population` from a CSV file.

    Parameters
    ----------
    source : str, os.PathLike, bytes, binary file-like or CsvTable
        As for :func:`read_csv_table`; an already read :class:`CsvTable` is used as is.
    value_column : str, optional
        Column of values; default the first numeric column. Blank, non-numeric and infinite
        cells are dropped (with their rows) and counted in a note.
    lower, upper : float, optional
        Declared public bounds (Hu et al. (2023), §2.2: the range R must not be read from the data).
        Values outside are clipped to them, with a note. A bound left as None is taken from
        the data with :func:`suggest_bounds`, with a warning that such bounds are not
        differentially private.
    stratum_column, cluster_column : str or sequence of str, optional
        Label columns for stratified sampling (Bun et al. (2022), §7) and cluster sampling
        (§5). A list of several columns builds one id from all of them: survey files number
        their PSUs 1, 2, ... within each stratum, so ``cluster_column=["stratid", "psuid"]``
        is the cluster id there. Combined labels read ``"3 / 1"`` (the parts joined by
        ``" / "``) and the label name ``"stratid × psuid"``. Blank cells become
        ``"(missing)"``. Labels are reordered together with the values (stable sort). When
        cluster labels occur in more than one stratum, the text of
        :func:`cluster_strata_note` is added to the notes.
    name : str, optional
        Display name; default built from the file name and the value column.

    Returns
    -------
    Population

    Raises
    ------
    ValueError
        Any problem with the file (see :func:`read_csv_table`), an unknown column, a value
        column with fewer than 3 usable numbers, or bounds that are not finite with
        lower < upper.
    """
    table = source if isinstance(source, CsvTable) else read_csv_table(source)
    columns = list(table.frame.columns)
    if value_column is None:
        if not table.numeric_columns:
            hint = (
                " The file has irregular quoting (an unmatched '\"' can swallow the rest of "
                "the file); check the quotes."
                if any(n.startswith(_IRREGULAR_QUOTING) for n in table.notes)
                else ""
            )
            raise ValueError(
                "No column holds at least 3 numbers, so there is no value column. Columns: "
                + ", ".join(_short(c) for c in columns[:20])
                + "."
                + hint
            )
        value_column = table.numeric_columns[0]
    stratum_columns = _column_list(stratum_column, "stratum")
    cluster_columns = _column_list(cluster_column, "cluster")
    for col in [value_column, *stratum_columns, *cluster_columns]:
        if col not in columns:
            raise ValueError(_unknown_column(col, columns))
    numbers = table.column_values(value_column)
    usable = np.isfinite(numbers)
    n_usable = int(np.count_nonzero(usable))
    notes: list[str] = []
    if n_usable < _MIN_VALUES:
        raise ValueError(
            f"Column {_short(value_column)} has {_count(n_usable, 'usable number')}; at least "
            f"{_MIN_VALUES} are needed."
        )
    dropped = numbers.size - n_usable
    if dropped:
        notes.append(
            f"Dropped {_count(dropped, 'row')} whose value was blank, not a number or infinite."
        )
    values = numbers[usable]
    declared_lo, declared_hi = _check_bound(lower, "lower"), _check_bound(upper, "upper")
    if declared_lo is not None and declared_hi is not None and not declared_lo < declared_hi:
        raise ValueError(
            f"The lower bound ({_fmt(declared_lo)}) must be smaller than the upper bound "
            f"({_fmt(declared_hi)})."
        )
    data_lo, data_hi = suggest_bounds(values)
    lo = declared_lo if declared_lo is not None else data_lo
    hi = declared_hi if declared_hi is not None else data_hi
    if declared_lo is None and declared_hi is not None and lo >= hi:
        lo = min(data_lo, hi - max(1.0, abs(hi)))
    if declared_hi is None and declared_lo is not None and hi <= lo:
        hi = max(data_hi, lo + max(1.0, abs(lo)))
    if not lo < hi:
        raise ValueError(f"The bounds [{_fmt(lo)}, {_fmt(hi)}] are empty.")
    if declared_lo is not None or declared_hi is not None:
        n_below = int(np.count_nonzero(values < lo))
        n_above = int(np.count_nonzero(values > hi))
        if n_below or n_above:
            notes.append(
                f"Clipped {_count(n_below + n_above, 'value')} to the declared bounds "
                f"[{_fmt(lo)}, {_fmt(hi)}] ({n_below:,} below, {n_above:,} above)."
            )
            values = np.clip(values, lo, hi)
        notes.append(
            "Declared bounds must be public knowledge (a legal limit, a top-code, a physical "
            "range), not read from this data."
        )
    if declared_lo is None or declared_hi is None:
        which = (
            "Both bounds were"
            if declared_lo is None and declared_hi is None
            else ("The lower bound was" if declared_lo is None else "The upper bound was")
        )
        notes.append(
            f"{which} read from the data (range rounded outward to [{_fmt(lo)}, {_fmt(hi)}]). "
            "Bounds read from the data are not differentially private; declare public bounds "
            "instead."
        )
    order = np.argsort(values, kind="stable")
    strata = _labels(table, stratum_columns, usable, order, notes, "stratum")
    clusters = _labels(table, cluster_columns, usable, order, notes, "cluster")
    stratum_label = _LABEL_NAME_JOIN.join(stratum_columns) or "stratum"
    cluster_label = _LABEL_NAME_JOIN.join(cluster_columns) or "cluster"
    if strata is not None and clusters is not None:
        shared = _cluster_strata_message(strata, clusters, stratum_label, cluster_label)
        if shared is not None:
            notes.append(shared)
    if name is None:
        origin = table.source_name or "uploaded CSV"
        name = f"{value_column} from {origin}, N = {n_usable:,}"
    file_name = table.source_name or "population.csv"
    args = [
        repr(file_name),
        f"value_column={str(value_column)!r}",
        f"lower={lo!r}",
        f"upper={hi!r}",
    ]
    for keyword, chosen in (
        ("stratum_column", stratum_columns),
        ("cluster_column", cluster_columns),
    ):
        if len(chosen) == 1:
            args.append(f"{keyword}={chosen[0]!r}")
        elif chosen:
            args.append(f"{keyword}={chosen!r}")
    return Population(
        name=name,
        values=values[order],
        lower=lo,
        upper=hi,
        strata=strata,
        clusters=clusters,
        value_label=str(value_column),
        notes=tuple(list(table.notes) + notes),
        stratum_label=stratum_label,
        cluster_label=cluster_label,
        recipe=f"load_population_csv({', '.join(args)})",
    )


def _check_bound(x: Any, which: str) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"The {which} bound must be a number, got {_short(x)}.") from None
    if not math.isfinite(v):
        raise ValueError(f"The {which} bound must be a finite number, got {x!r}.")
    return v


def _column_list(column: Any, what: str) -> list[str]:
    """The label column argument as a list of column names (empty for None)."""
    if column is None:
        return []
    if isinstance(column, str):
        return [column]
    if not isinstance(column, (list, tuple)):
        raise ValueError(
            f"The {what} column must be a column name or a list of column names, got "
            f"{_short(column)}."
        )
    names = list(column)
    for c in names:
        if not isinstance(c, str):
            raise ValueError(f"The {what} columns must be column names, got {_short(c)}.")
    twice = [c for c, k in Counter(names).items() if k > 1]
    if twice:
        raise ValueError(f"The {what} columns name {_short(twice[0])} more than once.")
    return names


def _labels(
    table: CsvTable,
    columns: list[str],
    usable: np.ndarray,
    order: np.ndarray,
    notes: list[str],
    what: str,
) -> np.ndarray | None:
    """Label cells of the usable rows in value order; several columns joined as "a / b"."""
    if not columns:
        return None
    parts = []
    blank_rows = np.zeros(int(np.count_nonzero(usable)), dtype=bool)
    for column in columns:
        cells = table.frame[column].to_numpy(dtype=object)[usable][order]
        blank = cells == ""
        if blank.any():
            cells = cells.copy()
            cells[blank] = _MISSING_LABEL
            blank_rows |= blank
        parts.append(cells)
    if blank_rows.any():
        where = " or ".join(_short(c) for c in columns)
        part = "label part" if len(columns) > 1 else "label"
        notes.append(
            f"Gave the {what} {part} {_MISSING_LABEL!r} to "
            f"{_count(int(blank_rows.sum()), 'row')} whose cell in {where} is blank."
        )
    if len(parts) == 1:
        return parts[0]
    joined = parts[0].astype(str)
    for cells in parts[1:]:
        joined = np.char.add(np.char.add(joined, _LABEL_JOIN), cells.astype(str))
    return joined.astype(object)


# --------------------------------------------------------------------------------------------
# CSV writing
# --------------------------------------------------------------------------------------------


def csv_safe_text(s: str) -> str:
    """Neutralise a spreadsheet formula in a text cell by prefixing a single quote.

    Spreadsheet programs run a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a
    formula (and some strip a leading tab or carriage return first), which lets a crafted
    label such as ``=cmd|' /C calc'!A0`` run code when a downloaded CSV is opened (OWASP,
    "CSV injection"). Apply this to column names and label cells, never to numbers: a
    negative number must stay a number.
    """
    s = str(s)
    if s and s[0] in "=+-@\t\r":
        return "'" + s
    return s


def _format_numbers(values: np.ndarray) -> list[str]:
    if values.size and np.all(values == np.round(values)) and np.max(np.abs(values)) < 2**53:
        return values.astype(np.int64).astype(str).tolist()
    return [repr(v) for v in values.tolist()]


def population_to_csv_bytes(pop: Population) -> bytes:
    """The population as UTF-8 CSV for download: values, then stratum and cluster labels.

    Whole numbers are written without a decimal point, other values with the shortest text
    that reads back to the same float64. Column names and label cells pass through
    :func:`csv_safe_text`; numbers do not.
    """
    header = [csv_safe_text(pop.value_label)]
    columns: list[list[str]] = [_format_numbers(pop.values)]
    for labels, label in ((pop.strata, pop.stratum_label), (pop.clusters, pop.cluster_label)):
        if labels is not None:
            header.append(csv_safe_text(label))
            if labels.dtype.kind == "i":  # integer labels are numbers: written as they are
                columns.append(labels.astype(str).tolist())
            else:
                columns.append([csv_safe_text(x) for x in labels.tolist()])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(zip(*columns, strict=True))
    return out.getvalue().encode("utf-8")
