"""Timings of the exact privacy profiles of the sampled Gaussian (prints figures, asserts nothing).

Printed, per call:

1. one evaluation of the closed-form profile (:func:`core.accounting.gaussian_profile.srs_delta`);
2. the inversions the planner needs: the least noise for ``(ε_target, δ_target)``
   (:func:`sigma_for`) and the Gaussian mean's budget (:func:`exact_budget`), uncached
   (every rate of the planner's default grid new) and cached (asked again);
3. the planner's budget of one row with the refinement (:func:`core.planner.profiles.refine`
   after the design's accounting);
4. for comparison, one privacy loss distribution of the Poisson-subsampled Gaussian from
   Google's dp_accounting at a 1e-3 discretisation, and the bisection on ``σ`` that would
   need about 30 of them per rate (when dp_accounting is installed).

Run: ``.venv/bin/python -m bench.bench_gaussian_profile``
"""

from __future__ import annotations

import importlib.util

import numpy as np

from bench._timing import best_seconds, load_line, per_call_seconds
from bench._timing import fmt_seconds as fmt
from core import mechanisms as mech
from core.accounting import gaussian_profile as gp
from core.designs.registry import DESIGNS
from core.planner import profiles

RATES = tuple(float(r) for r in np.geomspace(0.005, 0.8, 8))
EPS_TARGET, DELTA_TARGET = 1.0, 5e-5


def main() -> None:
    print(load_line())
    sigma = gp.sigma_for(EPS_TARGET, DELTA_TARGET, 0.1, "srs")
    print(
        f"srs_delta, one evaluation: {fmt(per_call_seconds(lambda: gp.srs_delta(1.0, sigma, 0.1)))}"
    )
    print(
        "poisson_delta, one evaluation: "
        f"{fmt(per_call_seconds(lambda: gp.poisson_delta(1.0, sigma, 0.1)))}"
    )
    for design in gp.DESIGNS:
        per = per_call_seconds(
            lambda d=design: [gp.sigma_for(EPS_TARGET, DELTA_TARGET, r, d) for r in RATES]
        ) / len(RATES)
        print(f"sigma_for ({design}), per rate: {fmt(per)}")

    def uncached() -> None:
        gp._exact_budget.cache_clear()
        for r in RATES:
            gp.exact_budget(EPS_TARGET, DELTA_TARGET, r, "srs")

    print(f"exact_budget, uncached, per rate: {fmt(per_call_seconds(uncached) / len(RATES))}")
    uncached()
    cached = per_call_seconds(
        lambda: [gp.exact_budget(EPS_TARGET, DELTA_TARGET, r, "srs") for r in RATES]
    ) / len(RATES)
    print(f"exact_budget, cached, per rate: {fmt(cached)}")

    srs = DESIGNS["srs"]
    points = [srs.theorem_point({"rate": r}) for r in RATES]

    def rows() -> None:
        for p in points:
            acc = srs.accounting(EPS_TARGET, "replacement", mech.GaussianMean, p)
            profiles.refine(
                srs,
                mech.GaussianMean,
                acc,
                eps_target=EPS_TARGET,
                delta_target=DELTA_TARGET,
                relation="replacement",
                point=p,
            )

    per_row = per_call_seconds(rows) / len(RATES)
    print(f"planner row budget with the refinement (cached), per rate: {fmt(per_row)}")

    if importlib.util.find_spec("dp_accounting") is None:
        print("dp_accounting not installed: no PLD comparison")
        return
    from dp_accounting.pld import privacy_loss_distribution as pld

    one = best_seconds(
        lambda: pld.from_gaussian_mechanism(
            sigma, value_discretization_interval=1e-3, sampling_prob=0.1
        ),
        5,
    )
    print(
        f"dp_accounting PLD at 1e-3, one σ: {fmt(one)}; a 30-step bisection on σ: {fmt(30 * one)}"
    )


if __name__ == "__main__":
    main()
