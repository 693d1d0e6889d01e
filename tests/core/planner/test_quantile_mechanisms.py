"""The planner's newer quantile mechanisms: which designs they fit, the budget each spends,
their census rows and their windows (issue 23, "everywhere a mechanism is chosen")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from core import mechanisms as mech
from core import planner
from core import sensitivity as sens
from core.designs.registry import DESIGNS
from core.planner import simulate
from core.population import Population

NEW = ("smooth_polyplace", "piecewise_laplace")


def _population(size: int = 600, seed: int = 3) -> Population:
    rng = np.random.default_rng(seed)
    clusters = rng.integers(0, 10, size)
    values = np.sort(np.round(rng.lognormal(2.0, 0.6, size), 1))
    return Population("t", values, 0.0, 100.0, strata=clusters % 3, clusters=clusters)


@pytest.mark.parametrize("relation", planner.RELATIONS)
def test_each_new_mechanism_fits_the_designs_its_budgets_allow(relation: str) -> None:
    """PolyPlace holds only for a changed record (fixed-size designs, replacement); the
    piecewise-Laplace quantile for both relations (every design with a theorem)."""
    for name, d in DESIGNS.items():
        if d.unavailable_for_relation(relation):
            continue
        fit = planner.mechanisms_for("median", name, relation)
        polyplace = d.fits(mech.MECHANISMS["smooth_polyplace"], relation)
        assert ("smooth_polyplace" in fit) == polyplace
        assert polyplace == (relation == "replacement" and d.fixed_size), name
        assert "piecewise_laplace" in fit, name
    assert set(NEW) <= set(planner.QUANTILE_MECHANISMS)
    assert not set(NEW) & set(planner.DEFAULT_QUANTILE_MECHANISMS)


def test_rows_spend_the_mechanisms_own_budgets() -> None:
    """Every row's ε_sample is the design's accounting for that mechanism; the piecewise
    Laplace quantile (α = γ = 1) spends what the exponential median (α = 1/2, γ = 1) spends
    where only its change budget counts (SRS) and no more elsewhere, and on a Poisson
    sample under "change one record" that is ln(1 + (e^ε_target − 1)/r), not the
    group-privacy ε_sample of ε_target / 2."""
    pop = _population()
    t = 1.0
    result = planner.plan(
        pop, eps_target=t, reps=20, refine=False, rates=(0.1, 0.3),
        mechanisms=planner.QUANTILE_MECHANISMS, sampler="window",
    )  # fmt: skip
    table = result.table
    assert set(NEW) <= set(table["mechanism"])
    for _, row in table.iterrows():
        if row["design"] == "census":
            continue
        kw = planner.theorem_keywords(pop, row["design"], row["rate"])
        want = planner.eps_sample_for(row["design"], t, mechanism=row["mechanism"], **kw)
        assert row["eps_sample"] == pytest.approx(want, rel=1e-12)
    both = table.pivot_table(index=["design", "rate"], columns="mechanism", values="eps_sample")
    # Where only a changed record counts (SRS) both spend the same; elsewhere the add/remove
    # budget counts, ε_sample / 2 for the exponential median against ε_sample here.
    srs = both.loc["srs"]
    np.testing.assert_allclose(srs["piecewise_laplace"], srs["exponential"], rtol=1e-12)
    assert (both["exponential"] >= both["piecewise_laplace"] * (1 - 1e-12)).all()
    poisson = table[(table["design"] == "poisson") & (table["mechanism"] == "piecewise_laplace")]
    for _, row in poisson.iterrows():
        exact = math.log1p(math.expm1(t) / row["rate"])
        assert row["eps_sample"] == pytest.approx(exact, rel=1e-9)
        group = planner.eps_sample_for("poisson", t, relation="replacement", rate=row["rate"])
        assert row["eps_sample"] > group
    # PolyPlace runs only where a changed record is covered: the census and SRS.
    assert set(table.loc[table["mechanism"] == "smooth_polyplace", "design"]) == {"census", "srs"}


def test_census_rows_are_the_mechanisms_exact_laws() -> None:
    pop = _population(400)
    result = planner.plan(
        pop, eps_target=0.5, reps=20, refine=False, designs=("srs",), rates=(0.2,),
        mechanisms=NEW,
    )  # fmt: skip
    census = result.table[result.table["design"] == "census"].set_index("mechanism")
    values = np.sort(pop.values)
    theta = values[sens.quantile_rank(values.size, 0.5) - 1]
    mse, _ = mech.piecewise_laplace_error(values, 0.5, 0.0, 100.0, theta)
    assert census.loc["piecewise_laplace", "rmse"] == pytest.approx(math.sqrt(mse), rel=1e-12)
    poly = mech.PolyPlaceQuantile()
    s = poly.sensitivity(values[None, :], 0.5, 0.5, 0.0, 100.0)
    scale = mech.polyplace_scale_factor(0.5) * s[0]
    # The release is clamped to [0, 100] (issue 35): its mean square by quadrature of the
    # noise density 2 (1 + |t|)^-5 (unclamped it would be scale² / 3).
    lo, hi = (0.0 - theta) / scale, (100.0 - theta) / scale
    inside = integrate.quad(lambda t: (scale * t) ** 2 * 2 * (1 + abs(t)) ** -5, lo, 0)[0]
    inside += integrate.quad(lambda t: (scale * t) ** 2 * 2 * (1 + abs(t)) ** -5, 0, hi)[0]
    tails = (theta - 0.0) ** 2 * 0.5 * (1 - lo) ** -4 + (100.0 - theta) ** 2 * 0.5 * (1 + hi) ** -4
    want = math.sqrt(inside + tails)
    assert census.loc["smooth_polyplace", "rmse"] == pytest.approx(want, rel=1e-6)
    assert want < scale / math.sqrt(3)
    assert census["exact"].all()


def test_a_default_plan_compares_the_default_four() -> None:
    pop = _population(300)
    result = planner.plan(pop, eps_target=1.0, reps=10, refine=False, rates=(0.2,))
    assert set(result.table["mechanism"]) == set(planner.DEFAULT_QUANTILE_MECHANISMS)
    assert planner.default_mechanisms("quantile") == planner.DEFAULT_QUANTILE_MECHANISMS
    assert planner.default_mechanisms("mean") == planner.DEFAULT_MEAN_MECHANISMS
    assert planner.default_mechanisms("mean", relation="deletion") == planner.MEAN_MECHANISMS
    assert (
        planner.default_mechanisms("mean", relation="deletion", sizes_public=True)
        == planner.DEFAULT_MEAN_MECHANISMS
    )


def test_new_mechanisms_run_on_windows_with_the_law_of_whole_samples(monkeypatch) -> None:
    """Both are windowed: PolyPlace through the statistic and S, the piecewise Laplace ring
    by ring (``piecewise=True``); windows and whole samples agree within Monte Carlo error."""
    assert all(mech.MECHANISMS[m].windowed for m in NEW)
    calls: list[bool] = []
    real = simulate.window_exponential_draws

    def spy(*args, **kwargs):
        calls.append(bool(kwargs.get("piecewise")))
        return real(*args, **kwargs)

    monkeypatch.setattr(simulate, "window_exponential_draws", spy)
    pop = _population(3_000, seed=5)
    common = dict(
        eps_target=1.0, reps=50, refine=False, designs=("srs", "poisson"), rates=(0.05,),
        mechanisms=NEW, objective="rmse",
    )  # fmt: skip
    window = planner.plan(pop, sampler="window", seed=1, **common).table
    assert True in calls
    full = planner.plan(pop, sampler="full", seed=2, **common).table
    key = ["design", "mechanism"]
    a = window[window["design"] != "census"].set_index(key)
    b = full[full["design"] != "census"].set_index(key)
    assert set(a.index) == set(b.index) == {
        ("srs", "smooth_polyplace"), ("srs", "piecewise_laplace"),
        ("poisson", "piecewise_laplace"),
    }  # fmt: skip
    for k in a.index:
        gap = abs(a.loc[k, "rmse"] - b.loc[k, "rmse"])
        se = math.hypot(a.loc[k, "rmse_se"], b.loc[k, "rmse_se"])
        assert gap < 4 * se, (k, a.loc[k, "rmse"], b.loc[k, "rmse"], se)


def _no_upper(size: int = 800) -> Population:
    rng = np.random.default_rng(6)
    clusters = rng.integers(0, 8, size)
    values = np.sort(rng.lognormal(2.0, 0.8, size))
    return Population("open", values, 0.0, math.inf, strata=clusters % 2, clusters=clusters)


def test_a_population_without_upper_bound_is_planned_with_the_unbounded_quantile() -> None:
    """upper = inf: only the mechanisms that need no U (the unbounded quantile, α = γ = 1,
    so every design); its census row comes from releases of the population itself."""
    pop = _no_upper()
    assert planner.NO_UPPER_MECHANISMS == ("unbounded",)
    assert planner.offered_mechanisms("median", bounded=False) == ("unbounded",)
    assert planner.offered_mechanisms("mean", bounded=False) == ()
    result = planner.plan(pop, eps_target=1.0, reps=30, refine=False, rates=(0.2, 0.5))
    table = result.table
    assert set(table["mechanism"]) == {"unbounded"}
    assert {"census", "srs", "poisson", "cluster"} <= set(table["design"])
    census = result.census
    assert census is not None and not census["exact"]
    assert census["error_95_method"] == "Monte Carlo"
    assert np.isfinite(table["error_95"]).all()
    for _, row in table[table["design"] != "census"].iterrows():
        kw = planner.theorem_keywords(pop, row["design"], row["rate"])
        want = planner.eps_sample_for(row["design"], 1.0, mechanism="unbounded", **kw)
        assert row["eps_sample"] == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match="needs a public upper bound"):
        planner.plan(pop, statistic="mean", eps_target=1.0)
    with pytest.raises(ValueError, match="mechanism"):
        planner.plan(pop, eps_target=1.0, mechanisms=("exponential",))


def test_census_releases_are_the_mechanisms_own_on_the_population(monkeypatch) -> None:
    """simulate_census: ``reps`` releases of the fixed population, in chunks, with the
    mechanism's law (against releases of the same rows made directly)."""
    monkeypatch.setattr(simulate, "CENSUS_CHUNK_RECORDS", 7 * 400)  # chunks of 7 rows
    pop = _no_upper(400)
    frame = simulate.Frame.of(pop)
    m = mech.UnboundedQuantile()
    small = simulate.simulate_census(m, frame, 1.0, 0.5, 300, [1])
    rel = np.concatenate(small.released)
    assert rel.size == 300 and np.isfinite(rel).all()
    assert np.all(np.concatenate(small.statistic) == frame.value("median"))
    direct = m.release(
        np.tile(frame.values, (300, 1)), 1.0, 0.5, 0.0, math.inf, np.random.default_rng(3)
    ).released
    from scipy import stats

    assert stats.ks_2samp(rel, direct).pvalue > 1e-4
