"""Row margins of a frequency table: the projection's exact error, its bound, the plan."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from core.designs.registry import DESIGNS
from core.linear.mechanisms import LINEAR_MECHANISMS
from core.linear.postprocess import project_to_margin
from core.linear.sums import cell_sums
from core.publication.frequency import frequency_sums, plan_frequency
from core.publication.margins import (
    METHOD_CHEBYSHEV,
    METHOD_CHERNOFF,
    METHOD_UNION,
    balanced_share,
    check_margins,
    margin_errors,
    project_release,
    projected_bounds,
    projected_noise_variance,
    row_sums,
)
from tests.core.planner import exact_release as ref
from tests.core.publication.test_frequency import _population

# -- checks and sums -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "margins, share, kw, words",
    [
        ("columns", 0.2, {}, "margins must be one of"),
        ("rows", 0.0, {}, "strictly between 0 and 1"),
        ("rows", 1.0, {}, "strictly between 0 and 1"),
        ("rows", "half", {}, "strictly between 0 and 1"),
        ("rows", True, {}, "strictly between 0 and 1"),
        ("rows", 0.2, {"round_release": True}, "choose one"),
        ("rows", 0.2, {"n_columns": 1}, "choose a column"),
    ],
)
def test_bad_margin_settings_get_plain_words(margins, share, kw, words) -> None:
    with pytest.raises(ValueError, match=words):
        check_margins(margins, share, **kw)


def test_the_plan_refuses_rounding_with_margins() -> None:
    with pytest.raises(ValueError, match="rounding after the projection"):
        plan_frequency(
            _population(),
            ["clusters"],
            "strata",
            eps_target=1.0,
            margins="rows",
            round_release=True,
        )


def test_row_sums_are_the_sums_of_the_rows() -> None:
    pop = _population()
    plan = plan_frequency(pop, ["clusters"], "strata", eps_target=1.0, designs=["census"])
    cells = plan.cells
    from core.designs.frame import Frame

    fr = Frame.of(pop)
    got = row_sums(frequency_sums(pop, cells, "total", frame=fr), cells.n_columns)
    direct = cell_sums(fr, cells.codes // cells.n_columns, cells.n_rows, fr.values)
    for name in ("total", "square", "strata_total", "strata_square", "cluster_total"):
        np.testing.assert_allclose(getattr(got, name), getattr(direct, name), rtol=1e-12)


# -- the projected noise -------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(k=st.integers(2, 60), share=st.floats(0.01, 0.99))
def test_projection_never_beats_the_cells_alone_at_equal_budget(k: int, share: float) -> None:
    """Module docstring: f(s) = (1 − 1/K)/(1 − s)² + 1/(K² s²) ≥ 1 (v₀ = 1)."""
    v, vm = 1.0 / (1.0 - share) ** 2, 1.0 / share**2
    assert projected_noise_variance(v, vm, k) >= 1.0 - 1e-12
    # ... and its minimum is (a + b)³ (closed form against a grid)
    s = np.linspace(1e-3, 1 - 1e-3, 20001)
    f = (1 - 1 / k) / (1 - s) ** 2 + 1 / (k * k * s * s)
    a, b = (1 - 1 / k) ** (1 / 3), k ** (-2 / 3)
    assert f.min() == pytest.approx((a + b) ** 3, rel=1e-5)
    # against the same split unprojected, projection helps exactly when s > 1/(1 + √K)
    helps = projected_noise_variance(v, vm, k) < v
    assert helps == (share > 1 / (1 + math.sqrt(k))) or abs(share - 1 / (1 + math.sqrt(k))) < 1e-9


def test_the_balanced_share_minimises_cells_and_margins_together() -> None:
    s = np.linspace(0.001, 0.999, 99_901)
    for k in (2, 5, 12, 50):
        total = (k - 1) / (1 - s) ** 2 + (1 + 1 / k) / s**2
        assert balanced_share(k) == pytest.approx(s[total.argmin()], abs=2e-3)
    assert balanced_share(12) == pytest.approx(0.316, abs=1e-3)


def test_projected_cells_add_up_to_the_margin() -> None:
    rng = np.random.default_rng(3)
    y, m = rng.normal(size=12), rng.normal(size=4)
    x = project_release(y, m, 3, 2.0)
    np.testing.assert_allclose(x.reshape(4, 3).sum(axis=1), m, atol=1e-12)
    # equal noises: each cell of a row moves by the same amount
    np.testing.assert_allclose(np.diff((x - y).reshape(4, 3), axis=1), 0.0, atol=1e-12)


@pytest.mark.parametrize("mechanism", ["laplace", "geometric"])
def test_the_log_mgf_is_exact(mechanism: str) -> None:
    m = LINEAR_MECHANISMS[mechanism]
    b = 1.7
    z = np.arange(-3000, 3001)
    for t in (0.1, 0.4, 0.55):
        if m.integer:
            q = math.exp(-1 / b)
            want = float(logsumexp(math.log((1 - q) / (1 + q)) - np.abs(z) / b + t * z))
        else:
            want = -math.log(1 - (b * t) ** 2)
        assert float(m.log_mgf(b, t)) == pytest.approx(want, rel=1e-9)
    assert np.isinf(m.log_mgf(b, 1.0 / b + 1e-9))


def test_the_discrete_gaussian_log_mgf_bounds_its_own() -> None:
    m = LINEAR_MECHANISMS["discrete_gaussian"]
    for sigma in (0.4, 1.0, 3.0):
        z = np.arange(-60 * max(1, int(sigma)), 60 * max(1, int(sigma)) + 1)
        p = m.pmf(sigma, z)
        for t in (0.05, 0.5, 2.0):
            assert math.log(float(p @ np.exp(t * z))) <= float(m.log_mgf(sigma, t)) + 1e-12


@pytest.mark.parametrize(
    "mechanism, cell, margin", [("laplace", 2.0, 6.0), ("geometric", 2.0, 6.0)]
)
def test_the_bound_after_projection_covers_its_level(mechanism, cell, margin) -> None:
    m = LINEAR_MECHANISMS[mechanism]
    rng = np.random.default_rng(11)
    k, w, reps = 5, 1.5, 100_000
    sd = np.array([0.0, 3.0, 300.0])
    bound, methods = projected_bounds(sd**2, m, cell, margin, w, k)
    assert methods[0] == METHOD_CHERNOFF and methods[2] == METHOD_UNION
    z = m.sample(rng, cell, reps * k).reshape(reps, k)
    zm = m.sample(rng, margin, reps)
    noise = z[:, 0] + (zm - z.sum(axis=1)) / k
    err = sd[:, None] * rng.standard_normal((3, reps)) + w * noise
    cover = np.mean(np.abs(err) <= bound[:, None], axis=1)
    assert np.all(cover >= 0.95)
    # a bound, not a wild one: within twice the simulated quantile
    q = np.quantile(np.abs(err), 0.95, axis=1)
    assert np.all(bound <= 2.0 * q)


# -- the exact error after projection ------------------------------------------------------


def _toy() -> ref.Toy:
    # (value, stratum = the row, cluster = the column)
    return ref.Toy(
        ((1.0, 0, 0), (2.0, 0, 1), (2.0, 0, 1), (3.0, 1, 0), (4.0, 1, 1), (1.0, 1, 1), (2.0, 1, 0)),
        0.0,
        4.0,
    )


@pytest.mark.parametrize("design, rate", [("stratified_proportional", 0.5), ("poisson", 0.4)])
def test_the_mse_after_projection_by_enumeration_of_every_sample(design: str, rate: float) -> None:
    toy = _toy()
    pop, frame = toy.population(), toy.frame()
    d = DESIGNS[design]
    point = d.point(frame, rate)
    assert point is not None
    cells = plan_frequency(pop, ["strata"], "clusters", kind="total", eps_target=1.0).cells
    sums = frequency_sums(pop, cells, "total", frame=frame)
    m_cells = d.linear_moments(frame, sums, point)
    m_rows = d.linear_moments(frame, row_sums(sums, cells.n_columns), point)
    mech = LINEAR_MECHANISMS["laplace"]
    got = margin_errors(mech, 1.3, None, 4.0, 0.3, cells.n_columns, m_cells, m_rows)
    w, k = m_cells.weight, cells.n_columns
    theta = np.asarray(sums.total)
    v, vm = mech.variance(got.cell_parameter), mech.variance(got.margin_parameter)
    # every sample with its probability; noise integrated in closed form (independent)
    sq = np.zeros_like(theta)
    for idx, p in ref.ENUMERATORS[design](frame, point):
        est = w * np.bincount(cells.codes[list(idx)], frame.values[list(idx)], cells.n_cells)
        margin = est.reshape(-1, k).sum(axis=1)  # the margin's estimator: its row's sample
        projected = project_release(est, margin, k)  # noise-free part of the projection
        np.testing.assert_allclose(projected, est, atol=1e-9)  # M − Σy has no sampling part
        sq += p * (projected - theta) ** 2
    # the noise part, by the projection's matrix: x − θ = E + w A (Z, Z')
    a = np.eye(k) - 1.0 / k
    noise = w * w * (v * (a * a).sum(axis=1) + vm / k**2)
    np.testing.assert_allclose(got.cell_variance, sq + noise[0], rtol=1e-9)
    assert np.all(got.margin_variance >= w * w * vm)


def test_the_mse_after_projection_by_simulation() -> None:
    pop = _population(seed=9, n=600)
    plan = plan_frequency(
        pop,
        ["clusters"],
        "strata",
        eps_target=1.0,
        designs=["poisson"],
        rates=[0.3],
        design="poisson",
        rate=0.3,
        margins="rows",
        margin_share=0.3,
    )
    row = plan.designs.iloc[1]
    from core.designs.frame import Frame

    fr = Frame.of(pop)
    rng = np.random.default_rng(2024)
    reps, k = 20_000, plan.cells.n_columns
    r, w = float(row["rate"]), float(row["weight"])
    b_c, b_m = float(row["noise_parameter"]), float(row["margin_noise_parameter"])
    codes, n_cells = plan.cells.codes, plan.cells.n_cells
    theta = plan.table["value"].to_numpy()
    err2 = np.empty((reps, n_cells))
    step = 2000
    for i in range(0, reps, step):
        keep = rng.random((step, fr.N)) < r
        rows = np.arange(step)[:, None] * n_cells + codes[None, :]
        counts = np.bincount(rows[keep], minlength=step * n_cells).reshape(step, n_cells)
        y = w * (counts + rng.laplace(0, b_c, (step, n_cells)))
        m = w * (
            counts.reshape(step, -1, k).sum(axis=2) + rng.laplace(0, b_m, (step, n_cells // k))
        )
        x = project_to_margin(y.reshape(step, -1, k), m).reshape(step, n_cells)
        err2[i : i + step] = (x - theta) ** 2
    mse, se = err2.mean(axis=0), err2.std(axis=0) / math.sqrt(reps)
    want = plan.table["rmse"].to_numpy() ** 2
    assert np.all(np.abs(mse - want) <= 4.0 * se)


# -- the plan -------------------------------------------------------------------------------


def test_a_plan_with_margins_reports_the_errors_after_projection() -> None:
    pop = _population()
    kw = dict(eps_target=1.0, designs=["census", "poisson"], rates=[0.2, 0.6])
    plain = plan_frequency(pop, ["clusters"], "strata", **kw)
    got = plan_frequency(pop, ["clusters"], "strata", **kw, margins="rows", margin_share=0.3)
    assert plain.margins is None and got.margins is not None
    assert len(got.margins) == got.cells.n_rows
    np.testing.assert_allclose(
        got.margins["value"], plain.table["value"].to_numpy().reshape(-1, 3).sum(axis=1)
    )
    k = got.cells.n_columns
    # census: cells at 0.7 ε_sample, margins at 0.3; the projected variance in closed form
    b = 1.0 / (0.7 * float(plain.designs.iloc[0]["eps_sample"]))
    bm = 1.0 / (0.3 * float(plain.designs.iloc[0]["eps_sample"]))
    want = 2 * b * b * (1 - 1 / k) + 2 * bm * bm / k**2
    np.testing.assert_allclose(got.table["census_rmse"] ** 2, want, rtol=1e-12)
    np.testing.assert_allclose(got.margins["census_rmse"] ** 2, 2 * bm * bm, rtol=1e-12)
    assert set(got.table["error_95_method"]) <= {METHOD_CHERNOFF, METHOD_UNION, METHOD_CHEBYSHEV}
    assert {"margin_noise_parameter", "margin_rmse_total"} <= set(got.designs.columns)
    # the same design compared under the same settings: the projection costs the cells
    assert np.all(got.designs["rmse_total"].to_numpy() > plain.designs["rmse_total"].to_numpy())
    assert got.summary()["margins"]["share"] == 0.3
    assert got.settings["margins"] == "rows"


def test_the_plan_refuses_margins_without_a_column() -> None:
    with pytest.raises(ValueError, match="choose a column"):
        plan_frequency(_population(), ["clusters"], eps_target=1.0, margins="rows")


@settings(max_examples=15, deadline=None)
@given(
    sd=st.lists(st.floats(0.0, 1e4), min_size=2, max_size=6),
    mechanism=st.sampled_from(["laplace", "geometric", "discrete_gaussian"]),
    k=st.integers(2, 30),
)
def test_the_bound_after_projection_grows_with_the_sampling_error(sd, mechanism, k) -> None:
    m = LINEAR_MECHANISMS[mechanism]
    s = np.sort(np.asarray(sd))
    bound, _ = projected_bounds(s**2, m, 2.0, 5.0, 1.3, k)
    assert np.all(np.diff(bound) >= -1e-9 * bound[1:])
    # |E + wN| is stochastically larger than |E| (Anderson's theorem: E normal, N symmetric
    # and independent), so any 95 % bound is at least E's own, 1.96 σ
    assert np.all(bound >= 1.959 * s)


@pytest.mark.parametrize("mechanism", ["laplace", "discrete_gaussian"])
@pytest.mark.parametrize("eps", [1e-12, 1000.0])
def test_margins_at_extreme_budgets_are_finite(mechanism: str, eps: float) -> None:
    plan = plan_frequency(
        _population(n=600), ["clusters"], "strata", eps_target=eps, mechanism=mechanism,
        designs=["census", "poisson"], rates=[0.3], margins="rows",
    )  # fmt: skip
    assert plan.margins is not None
    for frame in (plan.table, plan.margins):
        assert np.all(np.isfinite(frame[["rmse", "error_95", "census_rmse"]].to_numpy()))
    if eps == 1e-12 and mechanism == "laplace":  # the noise alone, in closed form
        k, e = plan.cells.n_columns, float(plan.designs.iloc[0]["eps_sample"])
        b, bm = 1 / (0.7 * e), 1 / (0.3 * e)
        want = 2 * b * b * (1 - 1 / k) + 2 * bm * bm / k**2
        np.testing.assert_allclose(plan.table["census_rmse"] ** 2, want, rtol=1e-9)


def test_margins_under_a_rho_promise_are_refused_in_words() -> None:
    with pytest.raises(ValueError, match="under a ρ-zCDP promise the table releases its cells"):
        plan_frequency(
            _population(), ["clusters"], "strata", rho_target=0.5,
            mechanism="discrete_gaussian", margins="rows",
        )  # fmt: skip
