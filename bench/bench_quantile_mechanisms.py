"""Timings and errors of the quantile mechanisms of issue 23 (prints; no asserts).

Run: ``.venv/bin/python -m bench.bench_quantile_mechanisms`` from the project root.

Targets: one release on a sample of n = 10,001 in <= 1 ms; the Figure 8 grid (6 eps x 10
rates + the population, T = 1000, N = 10,001 lognormal) through
``core.gains.median_gain_experiment`` in <= 2 s per mechanism.  Then the RMSE of each
mechanism on a census of the lognormal (N = 10,001), the tie-heavy rounded lognormal
(N = 10,001, multiples of 10) and establishments (N = 100,000) populations at
eps = 0.1, 1, 5 about the population median: exact where the mechanism states its law
(``exact_error``), else from T = 1000 releases (marked ``mc``).

Several quantiles at once (``--joint-exp`` runs only this part): JointExp with the nine
deciles on a lognormal sample of n = 10^5, target <= 0.5 s per release; then its RMSE per
decile (2,000 draws) on the lognormal population of N = 10^4 at eps = 1 as a census, about
the population deciles, against releasing each decile separately with the exponential
mechanism at eps / 9 (exact, ``exponential_quantile_error``).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from bench._timing import best_of, best_seconds, fmt_seconds, load_line, per_call_seconds
from core import gains, sensitivity
from core import mechanisms as mech
from core.populations import make_builtin

FIG8_EPS = [0.01, 0.1, 0.5, 1.0, 3.0, 5.0]
FIG8_RATES = [0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
NEW = ("smooth_polyplace", "piecewise_laplace", "unbounded")
TABLE = ("smooth_laplace", "smooth_pure", "smooth_polyplace", "exponential", "piecewise_laplace")
TABLE_EPS = (0.1, 1.0, 5.0)


def one_release(values: np.ndarray, lower: float, upper: float) -> None:
    print("\nOne release, n = 10,001 (lognormal census), eps = 1, per call:")
    x = values[np.newaxis, :]
    rng = np.random.default_rng(0)
    delta = 1.0 / (2 * values.size)
    for name in (*NEW, "smooth_pure", "exponential"):
        m = mech.mechanism_by_name(name)
        hi = math.inf if name == "unbounded" else upper
        used = delta if m.uses_delta else 0.5
        secs = per_call_seconds(
            lambda m=m, hi=hi, used=used: m.release(x, 1.0, used, lower, hi, rng)
        )
        print(f"  {name:18s} {fmt_seconds(secs)}")


def figure8_grid(pop) -> None:
    print("\nFigure 8 grid per mechanism (lognormal, 6 eps x 10 rates + population, T = 1000):")
    for name in (*NEW, "smooth_pure", "exponential"):  # the last two: today's, for scale
        run = lambda name=name: gains.median_gain_experiment(  # noqa: E731
            pop.values, lower=pop.lower, upper=pop.upper, eps_targets=FIG8_EPS,
            rates=FIG8_RATES, reps=1000, seed=0, mechanism=name,
        )  # fmt: skip
        best, ex = best_of(run, 2)
        print(f"  {name:18s} {best:7.3f} s wall   (estimator {ex.estimator})")


def _census_rmse(m: mech.Mechanism, pop, eps: float) -> tuple[float, str]:
    delta = 1.0 / (2 * pop.values.size)
    used = delta if m.uses_delta else 0.5
    exact = m.exact_error(pop.values, eps, used, pop.lower, pop.upper, 0.95)
    if exact is not None:
        return math.sqrt(exact[0]), "exact"
    rng = np.random.default_rng(1)
    centre = float(m.statistic(pop.values[np.newaxis, :])[0])
    hi = math.inf if isinstance(m, mech.UnboundedQuantile) else pop.upper
    squares = []
    for _ in range(10):  # 10 chunks of 100 releases keep the batch small at N = 100,000
        batch = np.broadcast_to(pop.values, (100, pop.values.size))
        out = m.release(batch, eps, used, pop.lower, hi, rng)
        squares.append((out.released - centre) ** 2)
    return math.sqrt(float(np.mean(np.concatenate(squares)))), "mc"


def rmse_table(pops: dict[str, object]) -> None:
    print("\nRMSE about the population median, census (n = N), by mechanism:")
    header = (
        "  "
        + f"{'mechanism':18s}"
        + "".join(f"{f'{p} eps={e:g}':>27s}" for p in pops for e in TABLE_EPS)
    )
    print(header)
    for name in (*TABLE, "unbounded"):
        m = mech.mechanism_by_name(name)
        cells = []
        for pop in pops.values():
            for eps in TABLE_EPS:
                value, how = _census_rmse(m, pop, eps)
                cells.append(f"{value:17.4g} ({how:>5s})")
        print(f"  {name:18s}" + "".join(f"{c:>27s}" for c in cells))


DECILES = np.arange(1, 10) / 10


def joint_exp_timing() -> None:
    print("\nJointExp, nine deciles, lognormal n = 100,000, eps = 1 (target <= 0.5 s):")
    pop = make_builtin("lognormal", seed=0, size=100_000)
    joint = mech.JointExpQuantiles(DECILES)
    x = pop.values[np.newaxis, :]
    rng = np.random.default_rng(0)
    joint.release(x, 1.0, 0.5, pop.lower, pop.upper, rng)  # compile outside the timing
    one = best_seconds(lambda: joint.release(x, 1.0, 0.5, pop.lower, pop.upper, rng), 5)
    many = best_seconds(lambda: joint.release_draws(x, 1.0, 0.5, pop.lower, pop.upper, rng, 100), 3)
    print(f"  one release                {fmt_seconds(one)}")
    print(f"  100 draws, one sample      {fmt_seconds(many)}  ({fmt_seconds(many / 100)} each)")


def joint_exp_accuracy(draws: int = 2000) -> None:
    pop = make_builtin("lognormal", seed=0, size=10_000)
    n = pop.values.size
    print(
        f"\nRMSE per decile, lognormal census n = {n:,}, eps = 1 in total, about the "
        f"population deciles (JointExp: {draws:,} draws; separate: exact):"
    )
    centre = np.array([pop.values[sensitivity.quantile_rank(n, q) - 1] for q in DECILES])
    joint = mech.JointExpQuantiles(DECILES).rmse(
        [pop.values], 1.0, 0.5, pop.lower, pop.upper, np.random.default_rng(0), draws, centre
    )
    alone = np.array([
        math.sqrt(mech.exponential_quantile_error(
            pop.values, 1.0 / 9, pop.lower, pop.upper, c, quantile=q
        )[0])
        for q, c in zip(DECILES, centre, strict=True)
    ])  # fmt: skip
    print(f"  {'decile':>8s} {'value':>10s} {'JointExp':>10s} {'9 x exp eps/9':>14s} {'ratio':>7s}")
    for q, c, a, b in zip(DECILES, centre, joint, alone, strict=True):
        print(f"  {q:8.1f} {c:10.3f} {a:10.4f} {b:14.4f} {a / b:7.3f}")


def main() -> None:
    print(load_line() + f", numba: {sensitivity.HAVE_NUMBA}")
    sensitivity.warm_up()
    if "--joint-exp" in sys.argv:
        joint_exp_timing()
        joint_exp_accuracy()
        return
    lognormal = make_builtin("lognormal", seed=0)
    establishments = make_builtin("establishments", seed=0)
    one_release(lognormal.values, lognormal.lower, lognormal.upper)
    figure8_grid(lognormal)
    rounded = make_builtin("lognormal_rounded", seed=0)
    rmse_table(
        {"lognormal": lognormal, "lognormal_rounded": rounded, "establishments": establishments}
    )
    joint_exp_timing()
    joint_exp_accuracy()


if __name__ == "__main__":
    main()
