"""The :class:`Population` value type every page computes on.

A population is a sorted, read-only vector of values with declared public bounds, optional
stratum, cluster and category labels aligned with the values, and a content hash that
caching layers use as the key (never the raw arrays). Also here:
:func:`cluster_strata_note` (a warning about cluster labels shared by strata) and
:func:`suggest_bounds` (round bounds from data, a starting point only, since bounds read
from the data are not private).

The papers are cited in full in :mod:`core.populations`.
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._validation import number_text, plural, quoted
from .categories import MAX_CATEGORIES, check_category_count

__all__ = [
    "MAX_CATEGORIES",
    "FileSettings",
    "Population",
    "cluster_strata_note",
    "suggest_bounds",
]

#: Joins the names of the columns of a label built from several columns ("region × psu").
LABEL_NAME_JOIN = " × "

# --------------------------------------------------------------------------------------------
# Population
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileSettings:
    """How a population was read from a file: what an export must repeat to rebuild it.

    A config, a notebook or a method report cannot carry the file itself (an upload stays
    in the browser session), so they repeat these settings and leave only the file's path
    to the reader.

    Parameters
    ----------
    file : str
        The file's name as it was read (no folder).
    value_column : str
        The column of values.
    lower, upper : float
        The bounds the values were clipped to (``upper`` may be ``inf``: none public).
    bounds_declared : bool
        Whether both bounds were declared (False when one was read from the data).
    stratum_columns, cluster_columns : tuple of str
        The label columns (several joined make one label); empty when none.
    rows_read : int
        Rows in the file.
    rows_dropped : int
        Rows dropped because their value was blank, not a number or infinite.
    clipped_below, clipped_above : int
        Values clipped up to ``lower`` and down to ``upper``.
    category_column : tuple of str
        The column(s) of categories counted by counts and frequency tables (several joined
        make one category, as for strata); empty when none.
    """

    file: str
    value_column: str
    lower: float
    upper: float
    bounds_declared: bool = True
    stratum_columns: tuple[str, ...] = ()
    cluster_columns: tuple[str, ...] = ()
    rows_read: int = 0
    rows_dropped: int = 0
    clipped_below: int = 0
    clipped_above: int = 0
    category_column: tuple[str, ...] = ()

    @property
    def values_clipped(self) -> int:
        """Values clipped to the bounds, below and above together."""
        return self.clipped_below + self.clipped_above

    @property
    def clipped_share(self) -> float:
        """The clipped values as a share of the values kept (0 when none was kept)."""
        kept = self.rows_read - self.rows_dropped
        return self.values_clipped / kept if kept > 0 else 0.0


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
        Declared public bounds, ``lower < upper``; every value lies in between. ``lower`` is
        finite; ``upper`` is finite, or ``inf`` when no upper bound is public (then only a
        mechanism that needs none, the unbounded quantile, can use the population; see
        :attr:`has_upper_bound`).
    strata, clusters : numpy.ndarray, pandas.Categorical or None
        Optional labels aligned with the sorted ``values`` (stratified sampling, Bun et al.
        (2022), §7; cluster sampling, §5). Integer labels are stored as int64, all
        others as Python ``str`` in an object array. A categorical of text labels (what the
        file loaders pass) is read through its codes, without hashing each record's text.
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
    file_settings : FileSettings or None
        For a population read from a file: the file's name, value column, bounds, label
        columns and the rows dropped and values clipped (the exports repeat them); None
        otherwise. Not hashed.
    categories : numpy.ndarray, pandas.Categorical or None
        Optional categorical labels aligned with the sorted ``values``, the column counts,
        proportions and frequency tables count by (e.g. a size class or a sector). Stored
        like ``strata`` and ``clusters``; at most :data:`MAX_CATEGORIES` distinct labels.
        Hashed only when present, so a population without categories keeps the hash it
        had before categories existed.
    category_label : str
        Column name of the categories (downloads, table headers). Not hashed.

    Raises
    ------
    ValueError
        If the bounds are not finite (``upper`` may be ``inf``) with ``lower < upper``, a
        value is not finite, lies outside the bounds or is out of order, or labels do not
        have one entry per value, or there are more than :data:`MAX_CATEGORIES` distinct
        categories.
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
    file_settings: FileSettings | None = None
    categories: np.ndarray | None = field(default=None, repr=False)
    category_label: str = "category"

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
        if not (math.isfinite(lower) and (math.isfinite(upper) or upper == math.inf)):
            raise ValueError(
                f"The lower bound must be a finite number and the upper bound a finite number "
                f"or inf (no public upper bound), got [{lower}, {upper}]."
            )
        if not lower < upper:
            raise ValueError(
                f"The lower bound must be smaller than the upper bound, got [{number_text(lower)}, "
                f"{number_text(upper)}]."
            )
        if math.isfinite(upper) and not math.isfinite(upper - lower):
            raise ValueError(
                f"The bounds [{number_text(lower)}, {number_text(upper)}] are too far apart "
                "to compute with."
            )
        if not np.all(np.isfinite(values)):
            bad = int(np.count_nonzero(~np.isfinite(values)))
            raise ValueError(f"The population has {plural(bad, 'value')} that are not finite.")
        values += 0.0  # turns -0.0 into 0.0 so equal numbers hash equally
        if values.size > 1 and not np.all(values[1:] >= values[:-1]):
            raise ValueError("Population values must be sorted in ascending order.")
        if values[0] < lower or values[-1] > upper:
            raise ValueError(
                f"Population values span [{number_text(values[0])}, {number_text(values[-1])}], "
                "outside the "
                f"declared bounds [{number_text(lower)}, {number_text(upper)}]."
            )
        values.setflags(write=False)
        setattr_(self, "values", values)
        setattr_(self, "lower", lower)
        setattr_(self, "upper", upper)
        strata, strata_codes = _normalise_labels(self.strata, values.size, "stratum")
        clusters, cluster_codes = _normalise_labels(self.clusters, values.size, "cluster")
        categories, category_codes = _normalise_labels(self.categories, values.size, "category")
        if category_codes is not None:
            check_category_count(len(category_codes[1]), str(self.category_label))
        setattr_(self, "strata", strata)
        setattr_(self, "clusters", clusters)
        setattr_(self, "categories", categories)
        # Not a field: replace() and comparisons ignore it; pickling keeps it.
        setattr_(
            self,
            "_label_codes",
            {"strata": strata_codes, "clusters": cluster_codes, "categories": category_codes},
        )
        setattr_(self, "name", str(self.name))
        setattr_(self, "value_label", str(self.value_label))
        setattr_(self, "stratum_label", str(self.stratum_label))
        setattr_(self, "cluster_label", str(self.cluster_label))
        setattr_(self, "category_label", str(self.category_label))
        setattr_(self, "notes", tuple(str(n) for n in self.notes))
        setattr_(self, "recipe", str(self.recipe))
        setattr_(self, "content_hash", self._compute_hash())

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickled arrays (e.g. from st.cache_data) come back writeable: freeze them again.
        for key in _PICKLED_ARRAYS:
            arr = state.get(key)
            if isinstance(arr, np.ndarray):
                arr.setflags(write=False)
        for pair in (state.get("_label_codes") or {}).values():
            for arr in pair or ():
                arr.setflags(write=False)
        self.__dict__.update(state)

    def with_details(self, **changes: Any) -> Population:
        """A copy with other descriptive fields, sharing the arrays (no copy, check or hash).

        Only the fields the content hash leaves out may change: ``name``, ``value_label``,
        ``notes``, ``stratum_label``, ``cluster_label``, ``category_label``, ``recipe`` and
        ``file_settings``.
        ``dataclasses.replace`` would copy, check and hash every record again.

        Raises
        ------
        ValueError
            If a field of the content (values, bounds, labels) is named.
        """
        content = sorted(set(changes) - set(_DETAIL_FIELDS))
        if content:
            raise ValueError(
                f"with_details changes descriptive fields only, not {', '.join(content)}; "
                "use dataclasses.replace to change the content."
            )
        copy = object.__new__(Population)
        copy.__dict__.update(self.__dict__)
        for key, value in changes.items():
            if key == "notes":
                value = tuple(str(n) for n in value)
            elif key != "file_settings":
                value = str(value)
            object.__setattr__(copy, key, value)
        return copy

    def label_codes(self, which: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The stratum, cluster or category labels as integer codes, for vectorised group-bys.

        ``codes, uniques = pop.label_codes("clusters")`` gives ``uniques[codes]`` equal to
        ``pop.clusters``, with the labels numbered in order of first appearance, exactly as
        ``pandas.factorize(labels, sort=False)`` numbers them. The factorisation is made
        once, when the population is built (the content hash needs it), so a page can count
        or sum per label with ``numpy.bincount(codes, ...)`` in O(N) without hashing 10⁷
        labels again.

        Parameters
        ----------
        which : {"strata", "clusters", "categories"}
            Which label vector.

        Returns
        -------
        (codes, uniques) or None
            Read-only arrays: ``codes`` (int32, or int64 beyond 2³¹ labels) has one entry
            per record, ``uniques`` (int64 or object of str) one per distinct label. None
            when the population has no such labels.

        Raises
        ------
        ValueError
            If ``which`` is not ``"strata"``, ``"clusters"`` or ``"categories"``.
        """
        if which not in LABEL_KINDS:
            raise ValueError(f"which must be 'strata', 'clusters' or 'categories', got {which!r}.")
        labels = getattr(self, which)
        if labels is None:
            return None
        cached = getattr(self, "_label_codes", None)
        if cached is None:  # pickled before the codes were kept
            cached = {}
            object.__setattr__(self, "_label_codes", cached)
        if cached.get(which) is None:
            cached[which] = _factorize(labels)
        return cached[which]

    @property
    def has_upper_bound(self) -> bool:
        """Whether a public upper bound was declared (False when ``upper`` is ``inf``)."""
        return math.isfinite(self.upper)

    @property
    def size(self) -> int:
        """Number of records N."""
        return int(self.values.size)

    def to_frame(self) -> pd.DataFrame:
        """The population as a table: the value column, then stratum, cluster and category
        if present."""
        data: dict[str, Any] = {self.value_label: self.values}
        if self.strata is not None:
            data[_unique_key(data, self.stratum_label)] = self.strata
        if self.clusters is not None:
            data[_unique_key(data, self.cluster_label)] = self.clusters
        if self.categories is not None:
            data[_unique_key(data, self.category_label)] = self.categories
        return pd.DataFrame(data)

    def _compute_hash(self) -> str:
        h = hashlib.sha256(b"dp-sampling-explorer/population/v1\0")
        h.update(struct.pack("<q", self.values.size))
        h.update(_contiguous(self.values.astype("<f8", copy=False)))
        h.update(struct.pack("<dd", self.lower, self.upper))
        for tag, which in ((b"strata", "strata"), (b"clusters", "clusters")):
            h.update(tag)
            _hash_labels(h, getattr(self, which), self.label_codes(which))
        if self.categories is not None:  # absent: the hash of the populations before them
            h.update(b"categories")
            _hash_labels(h, self.categories, self.label_codes("categories"))
        return h.hexdigest()


#: The fields :meth:`Population.with_details` may change (the content hash leaves them out).
_DETAIL_FIELDS = (
    "name",
    "value_label",
    "notes",
    "stratum_label",
    "cluster_label",
    "category_label",
    "recipe",
    "file_settings",
)
#: The label vectors of a population, the names :meth:`Population.label_codes` accepts.
LABEL_KINDS = ("strata", "clusters", "categories")
#: The arrays a pickled population holds, frozen again when it is unpickled.
_PICKLED_ARRAYS = ("values", *LABEL_KINDS)


def _contiguous(arr: np.ndarray) -> memoryview:
    """The bytes of ``arr`` for a hash, without the copy ``tobytes`` makes."""
    return np.ascontiguousarray(arr).data.cast("B")


def _unique_key(existing: Mapping[str, Any], key: str) -> str:
    candidate, k = key, 2
    while candidate in existing:
        candidate, k = f"{key}_{k}", k + 1
    return candidate


def _normalise_labels(
    labels: Any, n: int, what: str
) -> tuple[np.ndarray | None, tuple[np.ndarray, np.ndarray] | None]:
    """Read-only copy of a label vector (int64 for integers, else an object array of str),
    and its factorisation :func:`_factorize` (None, None without labels).

    Strings are recognised by pandas' C type inference and the factorisation that the hash
    needs anyway, instead of a Python loop over the records: at 10⁷ labels that loop took
    seconds.
    """
    if labels is None:
        return None, None
    if isinstance(labels, pd.Categorical):
        fast = _text_categorical(labels, n, what)
        if fast is not None:
            return fast
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"The {what} labels must be one-dimensional.")
    if arr.size != n:
        raise ValueError(f"There are {arr.size:,} {what} labels for {n:,} values; need one each.")
    codes: tuple[np.ndarray, np.ndarray] | None = None
    if arr.dtype.kind == "i" or (
        arr.dtype.kind == "u" and (arr.size == 0 or arr.max() <= np.iinfo(np.int64).max)
    ):
        out = arr.astype(np.int64, copy=True)
    elif arr.dtype.kind == "O" and pd.api.types.infer_dtype(arr, skipna=False) == "string":
        out = arr.copy()
        codes = _factorize(out)
        if not all(type(u) is str for u in codes[1].tolist()):
            # A subclass of str (numpy.str_) among the labels: store plain str, as below.
            out, codes = np.array([str(x) for x in arr.tolist()], dtype=object), None
    else:
        out = np.array([str(x) for x in arr.tolist()], dtype=object)
    out.setflags(write=False)
    return out, codes if codes is not None else _factorize(out)


def _text_categorical(
    labels: pd.Categorical, n: int, what: str
) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]] | None:
    """:func:`_normalise_labels` of a categorical of ``str`` labels, read through its codes.

    The result is the one the object array ``numpy.asarray(labels)`` gives: the same labels,
    numbered in order of first appearance. Only the codes (small integers) are factorised;
    the text of each distinct label is looked at once. None when the categorical holds
    missing entries or labels other than ``str`` (then the general path decides).
    """
    categories = np.asarray(labels.categories, dtype=object)
    if not all(type(c) is str for c in categories.tolist()):
        return None
    raw = np.asarray(labels.codes)
    if raw.size != n:
        raise ValueError(f"There are {raw.size:,} {what} labels for {n:,} values; need one each.")
    if raw.size and raw.min() < 0:
        return None
    codes, first = pd.factorize(raw, sort=False)
    uniques = categories[first]
    out = uniques[codes]
    codes = codes.astype(np.int32 if len(uniques) < 2**31 else np.int64, copy=False)
    for arr in (out, codes, uniques):
        arr.setflags(write=False)
    return out, (codes, uniques)


def _factorize(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize(labels, sort=False)`` as read-only arrays (compact int codes)."""
    codes, uniques = pd.factorize(labels, sort=False)
    codes = codes.astype(np.int32 if len(uniques) < 2**31 else np.int64, copy=False)
    uniques = np.asarray(uniques, dtype=labels.dtype)
    codes.setflags(write=False)
    uniques.setflags(write=False)
    return codes, uniques


def _hash_labels(
    h: Any, labels: np.ndarray | None, codes: tuple[np.ndarray, np.ndarray] | None
) -> None:
    if labels is None or codes is None:
        h.update(b"\0none")
        return
    index, uniques = codes
    kind = b"i" if labels.dtype.kind == "i" else b"s"
    h.update(b"\0" + kind + struct.pack("<q", len(uniques)))
    for u in uniques.tolist():
        b = str(u).encode("utf-8", "surrogatepass")
        h.update(struct.pack("<q", len(b)) + b)
    h.update(_contiguous(index.astype("<i8", copy=False)))


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
    strata, clusters = pop.label_codes("strata"), pop.label_codes("clusters")
    if strata is None or clusters is None:
        return None
    shared, n_clusters = _shared_clusters(strata[0], len(strata[1]), clusters[0], len(clusters[1]))
    return _cluster_strata_text(shared, n_clusters, pop.stratum_label, pop.cluster_label)


def cluster_strata_message(
    strata: np.ndarray, clusters: np.ndarray, stratum_label: str, cluster_label: str
) -> str | None:
    """The text of :func:`cluster_strata_note` for aligned label arrays (or categoricals)."""
    s_codes, s_uniques = pd.factorize(_factorizable(strata), sort=False)
    c_codes, c_uniques = pd.factorize(_factorizable(clusters), sort=False)
    shared, n_clusters = _shared_clusters(s_codes, len(s_uniques), c_codes, len(c_uniques))
    return _cluster_strata_text(shared, n_clusters, stratum_label, cluster_label)


def _factorizable(labels: Any) -> Any:
    """A categorical as it is (factorised through its codes), anything else as an array."""
    return labels if isinstance(labels, pd.Categorical) else np.asarray(labels)


def _shared_clusters(
    s_codes: np.ndarray, n_strata: int, c_codes: np.ndarray, n_clusters: int
) -> tuple[int, int]:
    """(clusters found in more than one stratum, clusters), from factorised labels in O(N).

    Each record's (stratum, cluster) pair is one integer ``s·K + c``; the distinct pairs are
    marked in a table of H·K cells when that is not much larger than N, else found by
    sorting the pair numbers.
    """
    pairs = s_codes.astype(np.int64) * n_clusters + c_codes
    if n_strata * n_clusters <= max(4 * pairs.size, 1 << 20):
        seen = np.bincount(pairs, minlength=n_strata * n_clusters).reshape(n_strata, n_clusters)
        strata_per_cluster = np.count_nonzero(seen, axis=0)
    else:
        strata_per_cluster = np.bincount(np.unique(pairs) % n_clusters, minlength=n_clusters)
    return int(np.count_nonzero(strata_per_cluster > 1)), n_clusters


def _cluster_strata_text(
    shared: int, n_clusters: int, stratum_label: str, cluster_label: str
) -> str | None:
    if not shared:
        return None
    # A label built from several columns is named "a × b": suggest every column once.
    parts = stratum_label.split(LABEL_NAME_JOIN) + cluster_label.split(LABEL_NAME_JOIN)
    combined = list(dict.fromkeys(parts))
    verb = "occurs" if shared == 1 else "occur"
    return (
        f"{shared:,} of the {plural(n_clusters, 'cluster label')} in "
        f"{quoted(cluster_label)} {verb} in more than one stratum of {quoted(stratum_label)}. "
        "If the file numbers its clusters (PSUs) 1, 2, … within each stratum, one such label "
        "stands for several different clusters, and cluster sampling would draw them as one: "
        "choose "
        + " and ".join(quoted(c) for c in combined)
        + " together as the cluster id. If the clusters really cut across strata (regions "
        "across size classes, say), this is expected and nothing needs to change."
    )


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
