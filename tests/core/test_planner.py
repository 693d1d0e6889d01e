"""Tests of core.planner: budgets per design, exact rows, Monte Carlo, rankings, composition."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from core import amplification as amp
from core import gains
from core import planner as pl
from core.designs import ClusterSampling, SimpleRandomSampling
from core.designs.frame import Frame
from core.designs.protocol import Point
from core.designs.registry import DESIGNS
from core.planner import errors as plerr
from core.population import Population
from core.populations import make_builtin


@pytest.fixture(scope="module")
def lognormal() -> Population:
    return make_builtin("lognormal", seed=0)


def _labelled(N: int = 2_000, seed: int = 1, half_cluster: bool = False) -> Population:
    rng = np.random.default_rng(seed)
    values = np.sort(rng.gamma(2.0, 10.0, N).clip(0, 100))
    strata = np.arange(N) % 4
    if half_cluster:
        clusters = np.where(np.arange(N) < N // 2, 0, 1 + np.arange(N) % 20)
    else:
        clusters = np.arange(N) % 25
    return Population(
        name="test", values=values, lower=0.0, upper=100.0, strata=strata, clusters=clusters
    )


# --------------------------------------------------------------------------------------
# eps_sample_for and eps_target_for
# --------------------------------------------------------------------------------------

SIZES = np.array([40, 60, 80, 100, 120])
CASES = [
    ("census", {}),
    ("srs", {"rate": 0.1}),
    ("poisson", {"rate": 0.05}),
    ("stratified_proportional", {"rate": 0.2}),
    ("cluster", {"sizes": SIZES, "clusters_sampled": 2}),
]


@pytest.mark.parametrize("relation", pl.RELATIONS)
@pytest.mark.parametrize(("design", "kw"), CASES)
@pytest.mark.parametrize("eps_target", [1e-6, 1e-3, 0.1, 1.0, 5.0, 50.0])
def test_eps_sample_for_round_trips_through_the_theorem(design, kw, eps_target, relation):
    if design == "srs" and relation == "deletion":
        with pytest.raises(ValueError, match="Poisson"):
            pl.eps_sample_for(design, eps_target, relation=relation, **kw)
        return
    e = pl.eps_sample_for(design, eps_target, relation=relation, **kw)
    assert e > 0
    back = pl.eps_target_for(design, e, relation=relation, **kw)
    assert back == pytest.approx(eps_target, rel=1e-9)


def test_eps_sample_for_uses_each_theorem():
    # SRS: Hu et al. Theorem 1 inverted; Poisson under deletion: the same formula.
    assert pl.eps_sample_for("srs", 0.5, rate=0.1) == pytest.approx(amp.eps_sample(0.5, 0.1))
    assert pl.eps_sample_for("poisson", 0.5, rate=0.1, relation="deletion") == pytest.approx(
        amp.eps_sample(0.5, 0.1)
    )
    # Under replacement the add/remove theorems are held to eps_target / 2 (group privacy).
    assert pl.eps_sample_for("poisson", 0.5, rate=0.1) == pytest.approx(amp.eps_sample(0.25, 0.1))
    design = ClusterSampling(SIZES, 2)
    assert pl.eps_target_for(
        "cluster", 1.0, sizes=SIZES, clusters_sampled=2, relation="deletion"
    ) == pytest.approx(design.eps_target(1.0))
    assert pl.eps_sample_for("census", 0.7) == 0.7


def test_neyman_and_missing_parameters_are_refused():
    with pytest.raises(ValueError, match="Neyman"):
        pl.eps_sample_for("neyman", 1.0, rate=0.1)
    with pytest.raises(ValueError, match="rate="):
        pl.eps_sample_for("srs", 1.0)
    with pytest.raises(ValueError, match="clusters_sampled"):
        pl.eps_sample_for("cluster", 1.0)
    with pytest.raises(ValueError, match="design"):
        pl.eps_sample_for("quota", 1.0)
    with pytest.raises(ValueError, match="eps_target"):
        pl.eps_sample_for("srs", -1.0, rate=0.1)


# --------------------------------------------------------------------------------------
# Composition: amplify the sum, never the parts
# --------------------------------------------------------------------------------------


@given(
    e1=hs.floats(1e-4, 20.0),
    e2=hs.floats(1e-4, 20.0),
    rate=hs.floats(1e-3, 1.0),
)
def test_amplifying_the_sum_is_at_least_the_sum_of_amplified_parts(e1, e2, rate):
    # ln(1 + r(e^x - 1)) is convex with value 0 at 0, hence superadditive. (The stratified
    # bound of Theorems 4.3/7.2 is not superadditive everywhere, e.g. at r = 1; the planner
    # amplifies the sum for every design, which is valid whether or not it is.)
    for design in ("srs", "poisson"):
        kw = {"rate": rate, "relation": "deletion" if design != "srs" else "replacement"}
        whole = pl.eps_target_for(design, e1 + e2, **kw)
        parts = pl.eps_target_for(design, e1, **kw) + pl.eps_target_for(design, e2, **kw)
        assert whole >= parts * (1 - 1e-12)


@given(e1=hs.floats(1e-3, 5.0), e2=hs.floats(1e-3, 5.0), ell=hs.integers(1, 5))
def test_cluster_bound_is_superadditive_where_tested(e1, e2, ell):
    kw = {"sizes": SIZES, "clusters_sampled": ell, "relation": "deletion"}
    whole = pl.eps_target_for("cluster", e1 + e2, **kw)
    parts = pl.eps_target_for("cluster", e1, **kw) + pl.eps_target_for("cluster", e2, **kw)
    assert whole >= parts * (1 - 1e-9)


def test_budget_split_reports_the_correct_and_the_naive_total():
    split = pl.budget_split("srs", 2.0, [1, 1], rate=0.05)
    total = amp.eps_sample(2.0, 0.05)
    assert split.eps_sample_total == pytest.approx(total)
    assert split.eps_samples == pytest.approx((total / 2, total / 2))
    assert split.eps_target_correct == pytest.approx(2.0, rel=1e-9)
    naive = 2 * amp.eps_target(total / 2, 0.05)
    assert split.eps_target_naive == pytest.approx(naive)
    assert split.eps_target_naive < split.eps_target_correct
    census = pl.budget_split("census", 1.0, [3, 1])
    assert census.eps_samples == pytest.approx((0.75, 0.25))
    assert census.eps_target_naive == pytest.approx(census.eps_target_correct)
    with pytest.raises(ValueError, match="share"):
        pl.budget_split("srs", 1.0, [], rate=0.1)


# --------------------------------------------------------------------------------------
# Exact rows against Hu et al. eqs. 6-7, and Monte Carlo against them
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_mean_rows_equal_equations_6_and_7(lognormal, eps):
    result = pl.plan(lognormal, statistic="mean", eps_target=eps, designs=["srs"], reps=50)
    t = result.table
    N = lognormal.size
    census = t[t["design"] == "census"].iloc[0]
    v_n = gains.mean_variance_population(eps, N, lognormal.lower, lognormal.upper)
    assert census["rmse"] == pytest.approx(math.sqrt(v_n), rel=1e-12)
    b = (lognormal.upper - lognormal.lower) / (N * eps)
    assert census["error_95"] == pytest.approx(b * math.log(20), rel=1e-9)
    s2 = float(np.var(lognormal.values, ddof=1))
    theta = float(lognormal.values.mean())
    srs = t[(t["design"] == "srs") & (t["mechanism"] == "laplace")]
    assert len(srs) >= 8
    clamped = 0
    for _, row in srs.iterrows():
        v = gains.mean_variance_sample(eps, row["n"], N, s2, lognormal.lower, lognormal.upper)
        sd = math.sqrt((1 - row["n"] / N) * s2 / row["n"])
        reach = 40 * (lognormal.upper - lognormal.lower) / (row["n"] * row["eps_sample"]) + 10 * sd
        if lognormal.lower <= theta - reach and theta + reach <= lognormal.upper:
            assert row["rmse"] == pytest.approx(math.sqrt(v), rel=1e-12)
            assert row["sampling_part"] + row["noise_part"] == pytest.approx(v, rel=1e-12)
        else:  # the release can reach a bound: clamping only shortens the error
            clamped += 1
            assert row["rmse"] <= math.sqrt(v) * (1 + 1e-12)
        assert row["exact"]
    assert clamped < len(srs)


def test_gaussian_mean_rows_are_exact(lognormal):
    from core import mechanisms as mech

    result = pl.plan(lognormal, statistic="mean", eps_target=0.5, designs=["srs"], reps=20)
    t = result.table.set_index(["design", "mechanism"])
    R = lognormal.upper - lognormal.lower
    N = lognormal.size
    d = 1 / (2 * N)
    sigma = mech.analytic_gaussian_sigma(0.5, d, R / N)
    census = t.loc[("census", "gaussian")]
    assert census["rmse"] == pytest.approx(sigma, rel=1e-9)
    assert census["error_95"] == pytest.approx(1.959963984540054 * sigma, rel=1e-9)
    s2 = float(np.var(lognormal.values, ddof=1))
    srs = result.table[
        (result.table["design"] == "srs") & (result.table["mechanism"] == "gaussian")
    ]
    theta = float(lognormal.values.mean())
    for _, row in srs.iterrows():
        n = round(row["n"])
        sig = mech.analytic_gaussian_sigma(row["eps_sample"], row["delta_sample"], R / n)
        assert row["delta_sample"] == pytest.approx(d / (n / N))
        expected = (1 - n / N) * s2 / n + sig**2
        reach = 40 * sig + 10 * math.sqrt((1 - n / N) * s2 / n)
        if lognormal.lower <= theta - reach and theta + reach <= lognormal.upper:
            assert row["rmse"] ** 2 == pytest.approx(expected, rel=1e-9)
        else:  # clamped to the bounds: never a larger error
            assert row["rmse"] ** 2 <= expected * (1 + 1e-9)
        assert row["exact"]


@pytest.mark.parametrize("name", ["smooth_pure", "global_laplace"])
def test_census_rows_of_additive_quantile_mechanisms_are_exact(lognormal, name):
    from core import mechanisms as mech

    result = pl.plan(
        lognormal,
        statistic="quantile",
        quantile=0.9,
        eps_target=1.0,
        designs=["srs"],
        reps=20,
        mechanisms=[name],
    )
    census = result.census
    assert census is not None and census["mechanism"] == name
    m = mech.mechanism_by_name(name, quantile=0.9)
    rel = m.release(
        lognormal.values[None, :],
        1.0,
        0.5,
        lognormal.lower,
        lognormal.upper,
        np.random.default_rng(1),
    )
    b = float(rel.noise_scale[0])
    theta = float(rel.statistic[0])
    # Every release is clamped to [L, U]: a slow reference by numpy draws.
    noisy = theta + b * m.standard_noise(np.random.default_rng(2), (400_000,))
    draws = np.abs(np.clip(noisy, lognormal.lower, lognormal.upper) - theta)
    assert census["error_95"] == pytest.approx(float(np.quantile(draws, 0.95)), rel=0.01)
    # (heavy-tailed noise: the mean square of the draws converges slowly)
    tolerance = 0.05 if name == "smooth_pure" else 0.01
    assert census["rmse"] == pytest.approx(math.sqrt(float(np.mean(draws**2))), rel=tolerance)
    assert census["rmse"] <= b * math.sqrt(m.unit_noise_variance)
    k = sens_rank(lognormal.size, 0.9)
    assert result.population_value == lognormal.values[k - 1]


def sens_rank(n: int, q: float) -> int:
    from core import sensitivity as sens

    return sens.quantile_rank(n, q)


def test_srs_mean_monte_carlo_agrees_with_equation_7(lognormal):
    eps, rate, T = 0.5, 0.05, 4_000
    design = SimpleRandomSampling.from_rate(rate, lognormal.size)
    rng = np.random.default_rng(5)
    R = lognormal.upper - lognormal.lower
    eps_s = amp.eps_sample(eps, design.rate)
    errors = np.empty(T)
    mu = lognormal.values.mean()
    for i in range(T):
        sample = lognormal.values[design.draw(lognormal, rng)]
        errors[i] = sample.mean() + rng.laplace(0, R / (design.sample_size * eps_s)) - mu
    result = pl.plan(
        lognormal, statistic="mean", eps_target=eps, designs=["srs"], rates=[rate], reps=T
    )
    row = result.table[result.table["design"] == "srs"].iloc[0]
    mse = float((errors**2).mean())
    se = float((errors**2).std(ddof=1)) / math.sqrt(T)
    assert row["rmse"] ** 2 == pytest.approx(mse, abs=4 * se)
    q = float(np.quantile(np.abs(errors), 0.95))
    assert row["error_95"] == pytest.approx(q, rel=0.08)


def test_census_median_is_exact_for_both_mechanisms(lognormal):
    from core import sensitivity as sens

    result = pl.plan(lognormal, statistic="median", eps_target=1.0, designs=["srs"], reps=20)
    census = result.table[result.table["design"] == "census"].set_index("mechanism")
    d = 1 / (2 * lognormal.size)
    s = sens.smooth_sensitivity_median(lognormal.values, 1.0, d, lognormal.lower, lognormal.upper)
    assert census.loc["smooth_laplace", "rmse"] == pytest.approx(math.sqrt(8) * s, rel=1e-12)
    assert census.loc["smooth_laplace", "error_95"] == pytest.approx(2 * s * math.log(20))
    assert census["exact"].all()
    assert (census["rmse_se"] == 0).all()


def test_conditional_quantile_matches_brute_force():
    rng = np.random.default_rng(3)
    err = rng.normal(0, 1, 300)
    scale = rng.uniform(0.5, 2, 300)
    x, se = plerr.conditional_quantile(err, scale, 0.95)
    draws = np.abs(err[:, None] + scale[:, None] * rng.laplace(size=(300, 4000))).ravel()
    assert x == pytest.approx(float(np.quantile(draws, 0.95)), rel=0.01)
    assert 0 < se < 0.5
    # e = 0: exactly the Laplace quantile b ln 20.
    x0, _ = plerr.conditional_quantile(np.zeros(5), np.full(5, 2.0), 0.95)
    assert x0 == pytest.approx(2 * math.log(20), rel=1e-9)


# --------------------------------------------------------------------------------------
# Designs draw what they promise
# --------------------------------------------------------------------------------------


def _masks(frame: Frame, name: str, rows: int, rng: np.random.Generator, size: float):
    """``rows`` masks of design ``name`` at the point whose mask threshold is ``size``."""
    design = DESIGNS[name]
    return design.mask(frame, design.draw_keys(frame, rows, rng), Point(size, size, size))


def test_sample_masks_follow_each_design():
    pop = _labelled()
    frame = Frame.of(pop)
    rng = np.random.default_rng(0)
    T = 400
    srs = _masks(frame, "srs", T, rng, 150)
    assert (srs.sum(axis=1) == 150).all()
    assert srs.mean(axis=0) == pytest.approx(np.full(frame.N, 150 / frame.N), abs=0.06)
    strat = _masks(frame, "stratified_proportional", T, rng, 0.1)
    assert frame.strata_codes is not None and frame.strata_sizes is not None
    for j, size in enumerate(frame.strata_sizes):
        got = strat[:, frame.strata_codes == j].sum(axis=1)
        assert set(np.unique(got)) <= {math.floor(0.1 * size), math.ceil(0.1 * size)}
        assert got.mean() == pytest.approx(0.1 * size, abs=0.5)
    clus = _masks(frame, "cluster", T, rng, 3)
    assert frame.cluster_codes is not None
    for row in clus[:20]:
        chosen = np.unique(frame.cluster_codes[row])
        assert chosen.size == 3
        assert row.sum() == np.isin(frame.cluster_codes, chosen).sum()
    pois = _masks(frame, "poisson", T, rng, 0.2)
    assert pois.mean() == pytest.approx(0.2, abs=0.01)


# --------------------------------------------------------------------------------------
# Rankings the papers predict
# --------------------------------------------------------------------------------------


def _best(result: pl.PlanResult, design: str, mechanism: str) -> float:
    rows = result.best_by_design
    return float(
        rows[(rows["design"] == design) & (rows["mechanism"] == mechanism)]["rmse"].iloc[0]
    )


def test_lognormal_srs_median_gains_at_small_eps_and_not_at_3(lognormal):
    small = pl.plan(lognormal, statistic="median", eps_target=0.1, designs=["srs"], reps=100)
    assert _best(small, "srs", "smooth_laplace") < 0.5 * _best(small, "census", "smooth_laplace")
    large = pl.plan(lognormal, statistic="median", eps_target=3.0, designs=["srs"], reps=100)
    assert _best(large, "srs", "smooth_laplace") > _best(large, "census", "smooth_laplace")


@pytest.mark.parametrize("statistic", pl.STATISTICS)
@pytest.mark.parametrize("eps", [0.05, 1.0, 5.0])
def test_a_cluster_holding_half_the_records_never_beats_the_census(statistic, eps):
    pop = _labelled(half_cluster=True)
    result = pl.plan(pop, statistic=statistic, eps_target=eps, designs=["cluster"], reps=60)
    t = result.table
    census = t[t["design"] == "census"]["error_95"].min()
    cluster = t[t["design"] == "cluster"]
    assert len(cluster) > 0
    assert (cluster["error_95"] > census).all()


def test_mean_never_gains_on_the_lognormal(lognormal):
    for eps in (0.1, 1.0, 3.0):
        result = pl.plan(lognormal, statistic="mean", eps_target=eps, designs=["srs"], reps=50)
        srs = result.table[result.table["design"] == "srs"]
        census = result.census
        assert census is not None
        assert (srs["rmse"] > census["rmse"]).all()


# --------------------------------------------------------------------------------------
# The plan's structure, availability and determinism
# --------------------------------------------------------------------------------------


def test_plan_table_columns_best_rows_and_refinement():
    pop = _labelled()
    result = pl.plan(pop, eps_target=1.0, reps=30)
    t = result.table
    for col in (
        "design",
        "rate",
        "eps_sample",
        "rmse",
        "error_95",
        "rmse_se",
        "sampling_part",
        "noise_part",
        "exact",
        "refined",
        "is_best",
    ):
        assert col in t.columns
    assert set(t["design"]) == {
        "census", "srs", "poisson", "stratified_proportional", "cluster", "poisson_cluster",
    }  # fmt: skip
    assert t["refined"].any()
    best = result.best_by_design
    assert best["error_95"].is_monotonic_increasing
    assert result.best["error_95"] == t["error_95"].min()
    assert best.groupby(["design", "mechanism"]).size().max() == 1
    census = result.census
    assert census is not None
    assert best.loc[best["design"] == "census", "gain"].max() == pytest.approx(0.0)
    # A changed record on a Poisson sample: the global-Laplace quantile (both budgets ε)
    # keeps ln(1 + r(e^ε − 1)) exactly; the exponential median (ε/2 for an added or removed
    # record, ε for a changed one) keeps ln((1 − r + r e^{ε/2}) / (1 − r + r e^{−ε/2})).
    row = t[(t["design"] == "poisson") & (t["mechanism"] == "global_laplace")].iloc[0]
    assert row["eps_sample"] == pytest.approx(amp.eps_sample(1.0, row["rate"]), rel=1e-12)
    assert "exact for a changed record" in row["accounting"]
    row = t[(t["design"] == "poisson") & (t["mechanism"] == "exponential")].iloc[0]
    r, x = row["rate"], row["eps_sample"] / 2.0
    assert math.log((1 - r + r * math.exp(x)) / (1 - r + r * math.exp(-x))) == pytest.approx(
        1.0, rel=1e-12
    )
    assert "exact for a changed record" in row["accounting"]
    # A stratified sample uses the exact profile of its stratum sizes, well above group
    # privacy over Bun et al.'s theorems; the exponential median (α = 1/2, γ = 1 = 2α) and
    # the global-Laplace quantile (α = γ = 1) each get their own.
    strat = t[t["design"] == "stratified_proportional"]
    sizes = np.unique(np.asarray(pop.strata), return_counts=True)[1]
    for name in ("global_laplace", "exponential"):
        row = strat[strat["mechanism"] == name].iloc[0]
        group = pl.eps_sample_for(
            "stratified_proportional", 1.0, relation="replacement", rate=row["rate"],
            mechanism=name,
        )  # fmt: skip
        expected = pl.eps_sample_for(
            "stratified_proportional",
            1.0,
            relation="replacement",
            rate=row["rate"],
            sizes=sizes,
            mechanism=row["mechanism"],
        )
        assert row["eps_sample"] == pytest.approx(expected, rel=1e-12)
        assert row["eps_sample"] > group
        assert "exact privacy profile" in row["accounting"]


def test_plan_is_reproducible_and_seeded():
    pop = _labelled()
    a = pl.plan(pop, eps_target=1.0, reps=20, designs=["poisson"], seed=4)
    b = pl.plan(pop, eps_target=1.0, reps=20, designs=["poisson"], seed=4)
    c = pl.plan(pop, eps_target=1.0, reps=20, designs=["poisson"], seed=5)
    assert a.table.equals(b.table)
    assert not a.table["rmse"].equals(c.table["rmse"])


def test_statuses_explain_what_is_missing(lognormal):
    by_name = {s.name: s for s in pl.design_statuses(lognormal)}
    assert not by_name["stratified_proportional"].available
    assert "no stratum" in by_name["stratified_proportional"].reason
    assert not by_name["cluster"].available
    assert not by_name["neyman"].available
    assert "§7" in by_name["neyman"].reason
    deletion = {s.name: s for s in pl.design_statuses(lognormal, relation="deletion")}
    assert not deletion["srs"].available
    assert deletion["poisson"].available and deletion["poisson"].reason == ""
    with pytest.raises(ValueError, match="no stratum"):
        pl.plan(lognormal, eps_target=1.0, designs=["stratified_proportional"])


def test_deletion_relation_uses_add_remove_mechanisms():
    pop = _labelled()
    result = pl.plan(pop, statistic="mean", eps_target=1.0, reps=20, relation="deletion")
    # N is not public by default: the mean that divides by it is refused (issue 35)
    assert set(result.table["mechanism"]) == {"sum_count"}
    assert not result.sizes_public
    assert "srs" not in set(result.table["design"])
    public = pl.plan(
        pop, statistic="mean", eps_target=1.0, reps=20, relation="deletion", sizes_public=True
    )
    assert set(public.table["mechanism"]) == {"ht_mean"}
    assert public.sizes_public
    assert pl.mechanisms_for("median", "srs", "replacement") == pl.QUANTILE_MECHANISMS
    assert pl.mechanisms_for("median", "cluster", "replacement") == (
        "exponential",
        "global_laplace",
        "piecewise_laplace",
    )
    assert pl.mechanisms_for("mean", "srs", "replacement") == ("laplace", "gaussian")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"eps_target": 0.0}, "eps_target"),
        ({"eps_target": 1.0, "statistic": "mode"}, "statistic"),
        ({"eps_target": 1.0, "rates": [1.5]}, "rates"),
        ({"eps_target": 1.0, "rates": []}, "rates"),
        ({"eps_target": 1.0, "reps": 1}, "reps"),
        ({"eps_target": 1.0, "delta_target": 1.0}, "delta_target"),
        ({"eps_target": 1.0, "designs": ["neyman"]}, "not available"),
        ({"eps_target": 1.0, "budget_share": 2.0}, "budget_share"),
        ({"eps_target": 1.0, "objective": "mad"}, "objective"),
    ],
)
def test_plan_refuses_bad_arguments(lognormal, kwargs, match):
    with pytest.raises(ValueError, match=match):
        pl.plan(lognormal, **kwargs)


def test_budget_share_scales_the_sample_budget(lognormal):
    full = pl.plan(lognormal, eps_target=1.0, designs=["srs"], rates=[0.1], reps=20, refine=False)
    half = pl.plan(
        lognormal,
        eps_target=1.0,
        designs=["srs"],
        rates=[0.1],
        reps=20,
        refine=False,
        budget_share=0.5,
    )
    f = full.table.set_index(["design", "mechanism"])["eps_sample"]
    h = half.table.set_index(["design", "mechanism"])["eps_sample"]
    assert (h / f).to_numpy() == pytest.approx(0.5)


def test_default_rates_fit_the_population(lognormal):
    rates = pl.default_rates(lognormal)
    assert len(rates) == 8
    assert rates[0] * lognormal.size >= 20
    assert max(rates) <= 0.8
    tiny = Population(name="tiny", values=np.arange(10.0), lower=0, upper=10)
    assert all(0 < r <= 0.8 for r in pl.default_rates(tiny))
    result = pl.plan(tiny, eps_target=1.0, reps=10)
    assert len(result.table) > 1


# --------------------------------------------------------------------------------------
# Accuracy first
# --------------------------------------------------------------------------------------


def test_smallest_eps_target_reaches_the_bound_and_no_less(lognormal):
    kw = {"statistic": "mean", "designs": ["srs"], "reps": 30}
    census_at_1 = pl.plan(lognormal, eps_target=1.0, **kw).best["error_95"]
    got = pl.smallest_eps_target(lognormal, target_error_95=float(census_at_1), **kw)
    assert got.feasible and got.plan is not None
    # The census at eps = 1 meets the bound exactly, and the mean never gains from sampling.
    assert got.eps_target == pytest.approx(1.0, rel=0.03)
    assert got.plan.best["error_95"] <= census_at_1 * (1 + 1e-9)
    lower = pl.plan(lognormal, eps_target=got.eps_target / 1.05, **kw)
    assert lower.best["error_95"] > census_at_1
    impossible = pl.smallest_eps_target(lognormal, target_error_95=1e-9, eps_range=(0.1, 1), **kw)
    assert not impossible.feasible and math.isnan(impossible.eps_target)
    with pytest.raises(ValueError, match="target_error_95"):
        pl.smallest_eps_target(lognormal, target_error_95=0.0, **kw)


# ---------------------------------------------------------------------------------------
# Windows (core.windowed) for simple random and Poisson samples of large populations
# ---------------------------------------------------------------------------------------


def _spread(m, col):
    """The standard error of a difference of two rows; a bound that clamping puts exactly at
    a public bound (``U − θ``, standard error 0 on both sides) counts as equal to 1e-9."""
    return np.maximum(np.hypot(m[f"{col}_se_a"], m[f"{col}_se_b"]), 1e-9 * m[f"{col}_a"].abs())


@pytest.mark.parametrize("statistic", ["median", "quantile"])
def test_windowed_designs_agree_with_masks(statistic: str) -> None:
    """SRS and Poisson rows drawn as windows equal the mask rows within Monte Carlo error."""
    rng = np.random.default_rng(9)
    pop = Population("test", np.sort(np.round(rng.lognormal(5, 0.5, 4_001))), 0.0, 1_000.0)
    common = dict(
        statistic=statistic, quantile=0.8, eps_target=0.5, reps=1_200, refine=False,
        designs=["census", "srs", "poisson"], rates=[0.002, 0.05, 0.5],
        mechanisms=["smooth_laplace", "smooth_pure", "global_laplace", "exponential"],
    )  # fmt: skip
    a = pl.plan(pop, sampler="full", seed=1, **common).table
    b = pl.plan(pop, sampler="window", seed=2, **common).table
    key = ["design", "mechanism", "rate"]
    m = a.merge(b, on=key, suffixes=("_a", "_b"))
    m = m[m["design"] != "census"]
    assert len(m) == 4 * 3 + 2 * 3  # SRS: four mechanisms; Poisson: global Laplace, exponential
    for col in ("rmse", "error_95"):
        z = (m[f"{col}_a"] - m[f"{col}_b"]) / _spread(m, col)
        assert np.abs(z).max() < 4.0, (col, z.round(2).tolist())
    np.testing.assert_allclose(m["n_a"], m["n_b"], rtol=0.05)


def test_windowed_planner_keeps_empty_poisson_samples() -> None:
    pop = Population("test", np.linspace(0, 1, 300), 0.0, 1.0)
    r = pl.plan(
        pop, eps_target=1.0, reps=400, sampler="window", designs=["poisson"], rates=[0.002],
        mechanisms=["global_laplace"], refine=False,
    )  # fmt: skip
    row = r.table[r.table["design"] == "poisson"].iloc[0]
    assert row["n"] == pytest.approx(0.6, abs=0.15)  # about half the samples are empty
    assert np.isfinite(row["rmse"])


def test_planner_sampler_is_checked() -> None:
    pop = Population("test", np.linspace(0, 1, 30), 0.0, 1.0)
    with pytest.raises(ValueError, match="sampler"):
        pl.plan(pop, eps_target=1.0, sampler="quick")


def test_error_bound_root_falls_back_to_bisection(monkeypatch) -> None:
    """A coverage Brent's method does not settle on still gives its root (by bisection)."""
    rng = np.random.default_rng(3)
    err = rng.standard_normal(300)
    scale = np.where(rng.random(300) < 0.8, 0.0, 0.5)  # mostly steps
    expected, _ = plerr.conditional_quantile(err, scale, 0.95)

    def no_convergence(*args, **kwargs):
        raise RuntimeError("Failed to converge after 200 iterations")

    monkeypatch.setattr(plerr, "brentq", no_convergence)
    got, se = plerr.conditional_quantile(err, scale, 0.95)
    assert got == pytest.approx(expected, rel=1e-10)
    assert math.isfinite(se)


def test_error_bound_of_exact_releases_is_zero() -> None:
    """No sampling error and no noise (ties with a smooth sensitivity of 0): bound 0."""
    assert plerr.conditional_quantile(np.zeros(40), np.zeros(40), 0.95) == (0.0, 0.0)


def test_error_bound_of_subnormal_releases_is_their_bound() -> None:
    """Noise scales of 1e-320 (a smooth sensitivity on ties at a large beta): no root search."""
    x, se = plerr.conditional_quantile(np.zeros(30), np.full(30, 1e-320), 0.95)
    assert 0.0 < x <= 2e-320 and se == 0.0


def test_progress_reports_each_design_with_the_rows_so_far():
    pop = _labelled()
    seen: list[pl.PlanProgress] = []
    result = pl.plan(pop, eps_target=1.0, reps=10, refine=False, progress=seen.append)
    assert [p.done for p in seen] == list(range(1, len(seen) + 1))
    assert {p.total for p in seen} == {len(seen)}
    assert seen[0].design == "census"
    assert set(seen[0].table["design"]) == {"census"}
    sizes = [len(p.table) for p in seen]
    assert sizes == sorted(sizes) and sizes[-1] == len(result.table)
    assert seen[-1].table["error_95"].to_numpy() == pytest.approx(
        result.table["error_95"].to_numpy()
    )


@pytest.mark.parametrize("design", ["cluster", "stratified_proportional"])
def test_windowed_cluster_and_stratified_rows_agree_with_masks(design: str) -> None:
    """Rows of designs with their own window sources equal the mask rows within Monte Carlo
    error (the samplers have the same law)."""
    rng = np.random.default_rng(11)
    N = 3_000
    values = np.sort(np.round(rng.lognormal(5, 0.5, N)))
    labels = rng.integers(0, 30, N)
    pop = Population("test", values, 0.0, 1_000.0, strata=labels % 4, clusters=labels)
    common = dict(
        eps_target=1.0, reps=1_000, refine=False, designs=[design], rates=[0.1, 0.5],
        mechanisms=["global_laplace", "exponential"],
    )  # fmt: skip
    a = pl.plan(pop, sampler="full", seed=1, **common).table
    b = pl.plan(pop, sampler="window", seed=2, **common).table
    m = a.merge(b, on=["design", "mechanism", "rate"], suffixes=("_a", "_b"))
    m = m[m["design"] == design]
    assert len(m) == 2 * 2
    for col in ("rmse", "error_95"):
        z = (m[f"{col}_a"] - m[f"{col}_b"]) / _spread(m, col)
        assert np.abs(z).max() < 4.0, (col, z.round(2).tolist())
    np.testing.assert_allclose(m["n_a"], m["n_b"], rtol=0.05)


def test_error_bound_is_zero_when_most_releases_are_exact() -> None:
    """At least 95 % of the releases without error or noise (ties): the bound is 0."""
    err = np.zeros(100)
    err[:3] = 1.0
    scale = np.zeros(100)
    assert plerr.conditional_quantile(err, scale, 0.95) == (0.0, 0.0)


def test_frame_codes_follow_the_sorted_labels() -> None:
    labels = np.array(["b", "a", "c", "a", "b", "b"], dtype=object)
    pop = Population("t", np.arange(6.0), 0.0, 10.0, strata=labels, clusters=labels)
    frame = Frame.of(pop)
    assert frame.strata_codes is not None and frame.strata_sizes is not None
    assert frame.strata_codes.tolist() == [1, 0, 2, 0, 1, 1]
    assert frame.strata_sizes.tolist() == [2, 3, 1]


def test_theorem_keywords_come_from_the_design() -> None:
    pop = _labelled()
    sizes = np.bincount(Frame.of(pop).cluster_codes)
    assert pl.theorem_keywords(pop, "census", 0.3) == {}
    assert pl.theorem_keywords(pop, "poisson", 0.3) == {"rate": 0.3}
    kw = pl.theorem_keywords(pop, "cluster", 0.3)
    assert kw["clusters_sampled"] == max(1, round(0.3 * sizes.size))
    kw = pl.theorem_keywords(pop, "poisson_cluster", 0.3)
    split = pl.budget_split("poisson_cluster", 1.0, [1, 1], **kw)
    assert split.eps_target_correct == pytest.approx(1.0, rel=1e-9)
    with pytest.raises(ValueError, match="Neyman"):
        pl.theorem_keywords(pop, "neyman", 0.3)
