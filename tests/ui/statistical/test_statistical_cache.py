"""ui.statistical.cache: every cached table equals core.statistical / core.amplification.

Called outside a Streamlit session (st.cache_data then only warns). Break caught
(tests/break_checks.py ``statistical-cache-swaps-directions``): the worst-case rows of
``privacy_curves`` take the Laplace bound for the Gaussian noise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from core import amplification as amp
from core import statistical as sp
from ui.statistical import cache

N, PI, M, NU, EPS = 200, 0.3, 50, 2.0, 0.5


def test_eps_grid_is_log_spaced_from_a_ten_thousandth_to_the_maximum():
    grid = cache.eps_grid(2.0, points=5)
    np.testing.assert_allclose(grid, [2e-4, 2e-3, 2e-2, 2e-1, 2.0], rtol=1e-12)


def test_privacy_curves_equal_core_for_every_mechanism_and_worst_case():
    curves = cache.privacy_curves(N, PI, M, NU, 3.0)
    eps = cache.eps_grid(3.0)
    for key, name in cache.MECHANISMS.items():
        part = curves[(curves["mechanism"] == name) & (curves["setting"] == "statistical")]
        plus, minus = sp.delta_directions(key, N, PI, eps, m=M, noise_multiplier=NU)
        np.testing.assert_array_equal(part["eps"], eps)
        np.testing.assert_allclose(part["delta"], np.maximum(plus, minus), rtol=1e-12)
        np.testing.assert_allclose(part["delta_positive"], plus, rtol=1e-12)
        np.testing.assert_allclose(part["delta_negative"], minus, rtol=1e-12)
    worst = curves[curves["setting"] == "worst case (DP)"].groupby("mechanism")["delta"]
    np.testing.assert_allclose(
        worst.get_group("Gaussian noise"), sp.delta_dp_gaussian(eps, NU), rtol=1e-12
    )
    np.testing.assert_allclose(
        worst.get_group("Laplace noise"), sp.delta_dp_laplace(eps, NU), rtol=1e-12
    )
    np.testing.assert_allclose(
        worst.get_group("subsampling"), sp.delta_dp_subsampling(N, M, eps), rtol=1e-12
    )
    np.testing.assert_array_equal(worst.get_group("no mechanism"), 1.0)


def test_point_summary_equals_core_at_one_eps():
    table = cache.point_summary(N, PI, M, NU, EPS).set_index("mechanism")
    for key, name in cache.MECHANISMS.items():
        plus, minus = sp.delta_directions(key, N, PI, EPS, m=M, noise_multiplier=NU)
        assert table.loc[name, "δ(+,−): positive record"] == pytest.approx(float(plus))
        assert table.loc[name, "δ(−,+): negative record"] == pytest.approx(float(minus))
        assert table.loc[name, "δ = max"] == pytest.approx(max(float(plus), float(minus)))
    assert table.loc["Gaussian noise", "worst-case δ (DP)"] == pytest.approx(
        float(sp.delta_dp_gaussian(EPS, NU))
    )
    assert table.loc["subsampling", "worst-case δ (DP)"] == pytest.approx(
        float(sp.delta_dp_subsampling(N, M, EPS))
    )


def test_distributions_are_cores_pmfs_and_densities():
    dist = cache.distributions(N, PI, M, NU, "subsampling")
    pmfs = sp.pmfs_subsampling(N, M, PI)
    assert (dist["kind"] == "probability").all()
    index = np.searchsorted(pmfs.values, dist["answer"].to_numpy())
    np.testing.assert_allclose(dist["critical record positive"], pmfs.plus[index], rtol=1e-12)
    np.testing.assert_allclose(dist["critical record negative"], pmfs.minus[index], rtol=1e-12)
    # Only negligible probability (< 1e-6 of the peak) is left out.
    assert dist["critical record positive"].sum() == pytest.approx(1.0, abs=1e-4)
    dens = cache.distributions(N, PI, M, NU, "laplace")
    x = dens["answer"].to_numpy()
    f_plus, f_minus = sp.noisy_query_densities(N, PI, x, NU, "laplace")
    np.testing.assert_allclose(dens["critical record positive"], f_plus, rtol=1e-12)
    np.testing.assert_allclose(dens["critical record negative"], f_minus, rtol=1e-12)
    # The grid holds (almost) all of each density's mass.
    assert np.trapezoid(f_plus, x) == pytest.approx(1.0, abs=1e-3)


def test_delta_vs_pi_and_ratio_vs_nu_equal_core():
    data = cache.delta_vs_pi(N, EPS, "gaussian", (1.0, 3.0))
    assert sorted(set(data["pi"])) == list(cache.PI_GRID)
    for row in data.sample(12, random_state=0).itertuples():
        assert row.delta == pytest.approx(float(sp.delta_gaussian(N, row.pi, EPS, row.nu)))
        assert row.delta_dp == pytest.approx(float(sp.delta_dp_gaussian(EPS, row.nu)))
    ratio = cache.ratio_vs_nu(N, EPS, "laplace", (0.1, 0.5))
    assert sorted(set(ratio["nu"])) == list(cache.NU_GRID)
    for row in ratio.sample(12, random_state=0).itertuples():
        d = float(sp.delta_laplace(N, row.pi, EPS, row.nu))
        w = float(sp.delta_dp_laplace(EPS, row.nu))
        assert row.delta == pytest.approx(d)
        assert row.ratio == (pytest.approx(w / d) if d > 0 else math.inf)


def test_equal_utility_point_calibrates_noise_to_the_samples_utility_loss():
    point = cache.equal_utility_point(N, M, PI, EPS)
    nu_g = sp.equal_utility_noise_multiplier(N, M, PI, "gaussian")
    nu_l = sp.equal_utility_noise_multiplier(N, M, PI, "laplace")
    assert point["nu_gaussian"] == pytest.approx(nu_g)
    assert point["nu_laplace"] == pytest.approx(nu_l)
    assert point["utility_loss"] == pytest.approx(sp.utility_loss_subsampling(N, M, PI))
    # Same utility loss is what "equal utility" means.
    assert sp.utility_loss_noise(N, nu_g, "gaussian") == pytest.approx(point["utility_loss"])
    assert point["subsampling"] == pytest.approx(float(sp.delta_subsampling(N, M, PI, EPS)))
    assert point["gaussian"] == pytest.approx(float(sp.delta_gaussian(N, PI, EPS, nu_g)))
    assert point["laplace"] == pytest.approx(float(sp.delta_laplace(N, PI, EPS, nu_l)))


def test_equal_utility_sweeps_equal_the_point_values():
    by_pi = cache.equal_utility_vs_pi(N, M, EPS)
    assert 0.0 not in set(by_pi["pi"])
    row = by_pi.iloc[len(by_pi) // 2]
    point = cache.equal_utility_point(N, M, float(row["pi"]), EPS)
    for column in ("utility_loss", "subsampling", "gaussian", "laplace"):
        assert row[column] == pytest.approx(point[column], nan_ok=True)
    by_lam = cache.equal_utility_vs_lambda(N, EPS, (0.3,))
    for _, row in by_lam.iloc[::8].iterrows():
        m = int(row["m"])
        assert m == round(row["lambda"] * N) and m < N
        assert row["subsampling"] == pytest.approx(float(sp.delta_subsampling(N, m, 0.3, EPS)))


def test_conjecture_rows_use_the_amplified_eps_target():
    data = cache.conjecture_vs_lambda(N, PI, EPS)
    for row in data.itertuples():
        rate = row.m / N
        assert row.eps_target == pytest.approx(float(amp.eps_target(EPS, rate)))
        assert row.eps_target == pytest.approx(math.log1p(rate * math.expm1(EPS)))
        assert row.subsampling_at_eps_target == pytest.approx(
            float(sp.delta_subsampling(N, row.m, PI, row.eps_target))
        )
        assert row.lambda_times_pure_m == pytest.approx(
            rate * float(sp.delta_no_mechanism(row.m, PI, EPS))
        )
