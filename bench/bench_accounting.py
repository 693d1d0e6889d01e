"""What each design may spend: the papers' bounds against the planner's accounting (printed).

Run from the repository root:  .venv/bin/python -m bench.bench_accounting

For the exponential median, ``ε_target`` 0.1 and 1 and both neighbouring relations, each
row gives ``ε_sample`` of a design divided by ``ε_sample`` of a simple random sample at the
same rate (``ln(1 + (e^ε_target − 1)/r)``), at rates 0.01, 0.1, 0.5 and 0.9:

* ``papers``: Bun et al.'s theorems (4.3/7.2 for proportional stratified samples, 5.2 for
  cluster samples and its argument for Poisson cluster samples), with group privacy for a
  changed record -- what the planner used before it knew the population's sizes;
* ``planner``: :func:`core.planner.eps_sample_for` now (the exact profile of the stratum
  sizes, the coupling bound for cluster samples, whichever is best), with the bound named.

Populations: the built-in establishments (12 size classes as strata, regions as clusters)
and a survey-like frame of 31 strata of about 300 records, two clusters in each (62).  The
last lines time one inversion ``ε_target → ε_sample`` of the stratified profile, its cache
cleared each time (median and worst over every row above).
"""

from __future__ import annotations

import math
import statistics
import time

import numpy as np

from core import amplification as amp
from core import planner as pl
from core.accounting import stratified_profile
from core.builtins import make_builtin
from core.designs import ClusterSampling
from core.designs.poisson_cluster import poisson_cluster_eps_sample
from core.strata import proportional_eps_sample_for_target

RATES = (0.01, 0.1, 0.5, 0.9)
TARGETS = (0.1, 1.0)
RELATIONS = ("deletion", "replacement")
MECHANISM = "exponential"


def _survey_frame() -> tuple[np.ndarray, np.ndarray]:
    """31 strata of 250-350 records, each split into two clusters (62)."""
    strata = np.array([300 + (h * 37) % 101 - 50 for h in range(31)])
    clusters = np.concatenate([[s // 2, s - s // 2] for s in strata])
    return strata, clusters


def _papers(design: str, t: float, relation: str, rate: float, sizes: np.ndarray) -> float:
    """``ε_sample`` by the papers' theorems alone (group privacy for a changed record)."""
    alpha = t / pl.eps_sample_for("census", t, relation="deletion", mechanism=MECHANISM)
    target = t if relation == "deletion" else t / 2.0
    if design == "stratified_proportional":
        if np.any(rate * sizes < 1):
            return math.nan  # the theorems need r·N_h ≥ 1 in every stratum
        return float(proportional_eps_sample_for_target(target, rate)) / alpha
    if design == "cluster":
        ell = min(sizes.size, max(1, round(rate * sizes.size)))
        return float(ClusterSampling(sizes, ell).eps_sample(target)) / alpha
    return poisson_cluster_eps_sample(target, rate, int(sizes.max())) / alpha


def _planner(design: str, t: float, relation: str, rate: float, sizes: np.ndarray) -> float:
    keywords: dict = {"sizes": sizes}
    if design == "cluster":
        keywords["clusters_sampled"] = min(sizes.size, max(1, round(rate * sizes.size)))
    else:
        keywords["rate"] = rate
    try:
        return pl.eps_sample_for(design, t, relation=relation, mechanism=MECHANISM, **keywords)
    except ValueError:
        return math.nan


def _row(label: str, values: list[float]) -> str:
    return f"  {label:<34}" + "".join(
        f"{v:>9.3f}" if math.isfinite(v) else f"{'—':>9}" for v in values
    )


def main() -> None:
    est = make_builtin("establishments")
    frames = {
        "establishments (12 strata, regions as clusters)": (
            np.unique(np.asarray(est.strata), return_counts=True)[1],
            np.unique(np.asarray(est.clusters), return_counts=True)[1],
        ),
        "survey-like (31 strata, 62 clusters)": _survey_frame(),
    }
    print(f"ε_sample / ε_sample of a simple random sample at rates {RATES} ({MECHANISM} median)")
    for name, (strata, clusters) in frames.items():
        print(f"\n{name}")
        for t in TARGETS:
            for relation in RELATIONS:
                print(f" ε_target {t:g}, {relation}")
                srs = [float(amp.eps_sample(t, r)) for r in RATES]
                for design, sizes in (
                    ("stratified_proportional", strata),
                    ("cluster", clusters),
                    ("poisson_cluster", clusters),
                ):
                    before = [_papers(design, t, relation, r, sizes) for r in RATES]
                    after = [_planner(design, t, relation, r, sizes) for r in RATES]
                    print(
                        _row(f"{design} papers", [b / s for b, s in zip(before, srs, strict=True)])
                    )
                    print(
                        _row(f"{design} planner", [a / s for a, s in zip(after, srs, strict=True)])
                    )
    times = []
    for strata, _ in frames.values():
        for t in TARGETS:
            for relation in RELATIONS:
                for r in RATES:
                    stratified_profile._eps_sample.cache_clear()
                    t0 = time.perf_counter()
                    stratified_profile.stratified_eps_sample(t, r, strata, 0.5, 1.0, relation)
                    times.append(time.perf_counter() - t0)
    print(
        f"\none inversion of the stratified profile (cache cleared): median "
        f"{statistics.median(times) * 1e3:.1f} ms, worst {max(times) * 1e3:.1f} ms "
        f"over {len(times)} (the first includes enumerating the rays once per process)"
    )


if __name__ == "__main__":
    main()
