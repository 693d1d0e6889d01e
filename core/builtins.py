"""The built-in populations of the papers, drawn reproducibly from a seed.

* ``"lognormal"`` -- Lognormal(mu=5, sigma=0.5), the skewed population of Hu, Drechsler
  & Kim (2023), §4.3 (figures 6-8).
* ``"beta"`` -- Beta(2, 10) on [0, 1], Hu et al. (2023), §2.4 (figures 1-2).
* ``"lognormal_rounded"`` -- the same Lognormal(5, 0.5) draws rounded to multiples of 10,
  as incomes reported in round figures: a population with atoms (many records tied at
  each value), on which the exponential mechanism and the smooth-sensitivity mechanisms
  swap places.
* ``"bimodal"`` -- the two-component scaled Beta mixture of Hu et al. (2023), §4.4 and
  Appendix B (figures 9-13), whose median sits at the top of the first component.
* ``"bimodal_paper"`` -- the paper's own R draw (:mod:`core.r_replay`; the seed is not used).
* ``"establishments"`` -- a synthetic establishment register in the spirit of Bun et al.
  (2022), §7.2 and Appendix E.1: employees top-coded at 10,000, twelve employee size
  classes as strata and about 100 regions as clusters.

The papers are cited in full in :mod:`core.populations`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from ._validation import check_seed, check_whole, plural
from .population import Population
from .r_replay import bimodal_mixture, paper_bimodal_population

__all__ = [
    "BUILTIN_POPULATIONS",
    "EMPLOYEES_TOP_CODE",
    "ESTABLISHMENT_SIZE_CLASSES",
    "LOGNORMAL_BOUNDS",
    "MAX_BUILTIN_SIZE",
    "ROUNDING_STEP",
    "make_builtin",
]

#: Largest population :func:`make_builtin` will draw (10⁸ records: a national register; the
#: sidebar offers only the default sizes).
MAX_BUILTIN_SIZE: int = 100_000_000

# --------------------------------------------------------------------------------------------
# Built-in populations
# --------------------------------------------------------------------------------------------

#: Built-in populations, in display order: key -> short description.
BUILTIN_POPULATIONS: Mapping[str, str] = MappingProxyType(
    {
        "lognormal": "Lognormal(μ=5, σ=0.5): skewed like income (Hu et al. §4.3)",
        "lognormal_rounded": (
            "The Lognormal(μ=5, σ=0.5) incomes rounded to multiples of 10: many tied records"
        ),
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
    "lognormal_rounded": 10_001,
    "beta": 10_001,
    "bimodal": 10_001,
    "bimodal_paper": 10_001,
    "establishments": 100_000,
}

#: Public bounds of the lognormal population (see :func:`make_builtin`).
LOGNORMAL_BOUNDS: tuple[float, float] = (0.0, 2000.0)
#: Rounding step of ``"lognormal_rounded"``: values are reported as multiples of it.
ROUNDING_STEP: float = 10.0
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
        ``"lognormal_rounded"``
            The ``"lognormal"`` population of the same seed and size (same draws, same
            top-coding at 2000) with every value rounded to the nearest multiple of
            :data:`ROUNDING_STEP` = 10, as incomes reported in round figures. Bounds [0, 2000]
            as for ``"lognormal"`` (both are multiples of 10). The values are atoms: with the
            default N = 10,001 about 5 % of the records share the median's value. Ties make
            the smooth sensitivity of the median nearly zero (a record can move the median
            only to a value that is already tied), while the exponential mechanism, which
            draws a point inside a gap between two different records, cannot land on a tied
            value, so its error is about half a rounding step (issue 23).
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
        [3, 100,000,000].

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
    seed = check_seed(seed)
    n = _DEFAULT_SIZES[key] if size is None else check_whole("size", size, 3, MAX_BUILTIN_SIZE)
    size_arg = "" if size is None else f", size={n}"
    recipe = f"make_builtin({key!r}, seed={seed}{size_arg})"
    pop = _draw_builtin(key, seed, n, recipe)
    # The two bimodal builders live in core.r_replay and set no recipe; the others are built
    # with it (a second construction would copy and hash 10⁷ records again).
    return pop if pop.recipe == recipe else dataclasses.replace(pop, recipe=recipe)


def _draw_builtin(key: str, seed: int, n: int, recipe: str) -> Population:
    rng = np.random.Generator(np.random.PCG64(seed))
    tail = f"N = {n:,}, seed {seed}"
    if key == "lognormal_rounded":
        base = _draw_builtin("lognormal", seed, n, recipe)
        return Population(
            name=f"Lognormal(5, 0.5) rounded to 10s, {tail}",
            values=np.round(base.values / ROUNDING_STEP) * ROUNDING_STEP,
            lower=base.lower,
            upper=base.upper,
            notes=(
                *base.notes,
                "Every value rounded to the nearest multiple of 10, as incomes reported in "
                "round figures: many records share each value (ties).",
            ),
            recipe=recipe,
        )
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
            notes.append(f"Top-coded {plural(n_top, 'value')} above 2,000 to 2,000.")
        return Population(
            name=f"Lognormal(5, 0.5), {tail}",
            values=np.sort(np.minimum(draws, upper)),
            lower=lower,
            upper=upper,
            notes=tuple(notes),
            recipe=recipe,
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
            recipe=recipe,
        )
    if key == "bimodal":
        first = rng.beta(2.0, 10.0, size=(n + 1) // 2) / 2.0
        second = rng.beta(2.0, 10.0, size=n // 2) + 1.0
        return bimodal_mixture(first, second, f"Bimodal Beta mixture, {tail}")
    if key == "bimodal_paper":
        return paper_bimodal_population(size=n)
    return _establishments(rng, n, tail, recipe)


def _establishments(rng: np.random.Generator, n: int, tail: str, recipe: str) -> Population:
    shares = _SIZE_CLASS_SHARES / _SIZE_CLASS_SHARES.sum()
    counts = _largest_remainder(shares, n)
    # Heterogeneous region sizes; larger size classes lean towards the larger regions.
    weights = rng.lognormal(0.0, 1.0, size=_N_REGIONS)
    region_names = np.array([f"R{r + 1:03d}" for r in range(_N_REGIONS)], dtype=object)
    class_names = np.array([label for label, _, _ in ESTABLISHMENT_SIZE_CLASSES], dtype=object)
    # Labels are drawn as small integer codes and turned into strings once, after sorting:
    # object arrays of 10⁷ strings are slow to fill, concatenate and permute.
    values, classes, regions = [], [], []
    n_classes = len(ESTABLISHMENT_SIZE_CLASSES)
    for k, ((_, lo, hi), m) in enumerate(zip(ESTABLISHMENT_SIZE_CLASSES, counts, strict=True)):
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
        classes.append(np.full(m, k, dtype=np.int8))
        regions.append(rng.choice(_N_REGIONS, size=m, p=p / p.sum()).astype(np.int16))
    v = np.concatenate(values)
    order = np.argsort(v, kind="stable")
    v = v[order]
    n_top = int(np.count_nonzero(v >= EMPLOYEES_TOP_CODE))
    return Population(
        name=f"Synthetic establishments, {tail}",
        values=v,
        lower=0.0,
        upper=float(EMPLOYEES_TOP_CODE),
        strata=class_names[np.concatenate(classes)[order]],
        clusters=region_names[np.concatenate(regions)[order]],
        value_label="employees",
        stratum_label="size_class",
        cluster_label="region",
        notes=(
            "Synthetic data shaped after the establishment example of Bun et al. §7.2 and "
            "Appendix E.1; not real establishments.",
            "Employees are top-coded at 10,000 "
            f"({plural(n_top, 'establishment')} at the top code); bounds [0, 10,000] are public.",
            "Strata: the paper's 12 employee size classes. Clusters: 100 regions of unequal size.",
        ),
        recipe=recipe,
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
