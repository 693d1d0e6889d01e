"""Tests for core.statistical (Breutigam & Reischuk, statistical privacy of property queries).

Layers: the numbers quoted in the paper (§5, §6); a slow, obviously correct reference that
enumerates every database (and every sample) of a tiny n and applies Definition 4 literally
(a supremum over all answer sets, or numerical integration for continuous noise); the
paper's closed forms (Theorems 4.1, 4.2, Lemmas 5–9) against the definition; hypothesis
properties (monotonicity in ε and n, symmetry in π, the differential-privacy bound,
finiteness); argument validation.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from core import amplification as amp
from core import statistical as sp

# ---------------------------------------------------------------------------------------
# The slow reference: enumerate every database, apply the definition literally
# ---------------------------------------------------------------------------------------


def _datasets(n: int, pi: float):
    """Every assignment of the n − 1 other records, with its probability and positive count."""
    for bits in itertools.product((0, 1), repeat=n - 1):
        c = sum(bits)
        yield bits, pi**c * (1 - pi) ** (n - 1 - c)


def brute_pmfs(n: int, m: int, pi: float) -> tuple[dict[float, float], dict[float, float]]:
    """Answer distributions under μ+ / μ− by enumerating databases and all m-subsets.

    The critical record sits at position 0; a simple random sample is every m-subset of the
    n positions with equal probability; the answer is the positive fraction in the sample.
    """
    subsets = list(itertools.combinations(range(n), m))
    plus: dict[float, float] = {}
    minus: dict[float, float] = {}
    for bits, weight in _datasets(n, pi):
        for crit, out in ((1, plus), (0, minus)):
            record = (crit, *bits)
            for s in subsets:
                y = sum(record[i] for i in s) / m
                out[y] = out.get(y, 0.0) + weight / len(subsets)
    return plus, minus


def brute_delta_sets(p: dict[float, float], q: dict[float, float], eps: float) -> float:
    """Definition 4 literally: max over every set S of answers of P(S) − e^ε Q(S), both ways."""
    support = sorted(set(p) | set(q))
    best = 0.0
    for a, b in ((p, q), (q, p)):
        for r in range(1, len(support) + 1):
            for subset in itertools.combinations(support, r):
                gap = math.fsum(a.get(z, 0.0) for z in subset) - math.exp(eps) * math.fsum(
                    b.get(z, 0.0) for z in subset
                )
                best = max(best, gap)
    return best


def brute_noisy_delta(n: int, pi: float, eps: float, nu: float, noise: str) -> float:
    """Eq. (3) by adaptive quadrature of the densities built from every database."""
    s = 1.0 / n
    dist = stats.norm if noise == "gaussian" else stats.laplace
    counts: dict[int, float] = {}
    for bits, weight in _datasets(n, pi):
        counts[sum(bits)] = counts.get(sum(bits), 0.0) + weight

    def f(x: float, crit: int) -> float:
        return sum(w * dist.pdf(x, loc=(c + crit) * s, scale=nu * s) for c, w in counts.items())

    width = (40 if noise == "gaussian" else 800) * nu * s
    lo, hi = -width, 1 + s + width
    breaks = [c * s for c in range(n + 1)]
    best = 0.0
    for a, b in ((1, 0), (0, 1)):
        val, _ = integrate.quad(
            lambda x, a=a, b=b: max(0.0, f(x, a) - math.exp(eps) * f(x, b)),
            lo,
            hi,
            points=breaks,
            limit=2000,
            epsabs=1e-14,
            epsrel=1e-11,
        )
        best = max(best, val)
    return best


def brute_dp_delta(eps: float, nu: float, noise: str) -> float:
    """Worst-case δ by quadrature: answers y + N against y + 1 + N (scale ν)."""
    dist = stats.norm if noise == "gaussian" else stats.laplace
    reach = (12 if noise == "gaussian" else 40) * nu
    lo, hi = -reach, 1 + reach
    return integrate.quad(
        lambda x: max(0.0, dist.pdf(x, 1.0, nu) - math.exp(eps) * dist.pdf(x, 0.0, nu)),
        lo,
        hi,
        points=np.linspace(lo, hi, 61)[1:-1].tolist(),
        limit=2000,
        epsabs=1e-15,
        epsrel=1e-12,
    )[0]


# ---------------------------------------------------------------------------------------
# The paper's numbers
# ---------------------------------------------------------------------------------------


def test_section5_dp_gaussian_numbers():
    # §5: with ν = 1 differential privacy achieves δ = 0.38, with ν = 3 δ = 0.128 (ε = 0.01).
    assert round(sp.delta_dp_gaussian(0.01, 1.0), 2) == 0.38
    assert round(sp.delta_dp_gaussian(0.01, 3.0), 3) == 0.128


@pytest.mark.parametrize("nu", [1.0, 3.0])
def test_section5_statistical_far_below_dp_near_half_and_close_as_pi_vanishes(nu):
    dp = sp.delta_dp_gaussian(0.01, nu)
    at_half = sp.delta_gaussian(1000, 0.5, 0.01, nu)
    assert at_half < 0.2 * dp  # "much lower" for π = 1/2
    pis = [1e-6, 1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.5]
    curve = [sp.delta_gaussian(1000, p, 0.01, nu) for p in pis]
    assert all(a >= b for a, b in itertools.pairwise(curve))  # falls towards π = 1/2
    assert curve[0] == pytest.approx(dp, rel=1e-3)  # ... and reaches DP as π → 0
    assert sp.delta_gaussian(1000, 0.0, 0.01, nu) == pytest.approx(dp, rel=1e-12)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_section5_ratio_above_one_for_every_noise_level(noise):
    # Figures 2 and 4: DP δ / SP δ for ν from 1 to 10 stays above 1 for π = 0.5, 0.1, 0.01.
    dp = sp.delta_dp_gaussian if noise == "gaussian" else sp.delta_dp_laplace
    sp_delta = sp.delta_gaussian if noise == "gaussian" else sp.delta_laplace
    for nu in (1.0, 3.0, 10.0):
        ratios = [dp(0.01, nu) / sp_delta(1000, p, 0.01, nu) for p in (0.5, 0.1, 0.01)]
        assert all(r > 1.0 for r in ratios)
        assert ratios[0] > ratios[1] > ratios[2]  # more entropy, larger gain


def test_section6_equal_utility_subsampling_matches_gaussian_and_beats_laplace():
    # Figures 5 and 8: at equal utility loss subsampling and Gaussian noise give practically
    # the same δ, Laplace noise a larger one, and relatively worse for smaller λ.
    n, eps = 1000, 0.01
    worse = []
    for lam in (0.05, 0.1, 0.3):
        for pi in (0.5, 0.1):
            m = sp.sample_size(n, lam)
            d_s = sp.delta_subsampling(n, m, pi, eps)
            d_g = sp.delta_gaussian(
                n, pi, eps, sp.equal_utility_noise_multiplier(n, m, pi, "gaussian")
            )
            d_l = sp.delta_laplace(
                n, pi, eps, sp.equal_utility_noise_multiplier(n, m, pi, "laplace")
            )
            assert d_g == pytest.approx(d_s, rel=0.03)
            assert d_l > 1.1 * d_s
            if pi == 0.5:
                worse.append(d_l / d_s)
    assert worse[0] > worse[1] > worse[2]


def test_section7_subsampling_below_scaled_pure_privacy():
    # Figure 7 (n = 1000, π = 0.5, ε = 0.1): δ of subsampling at ε' = log(1 + λ(e^ε − 1))
    # stays below λ times the pure statistical δ of a database of size m.
    for lam in (0.05, 0.1, 0.3, 0.5, 0.8):
        m = sp.sample_size(1000, lam)
        eps_prime = amp.eps_target(0.1, m / 1000)
        assert sp.delta_subsampling(1000, m, 0.5, eps_prime) < (m / 1000) * sp.delta_no_mechanism(
            m, 0.5, 0.1
        )


# ---------------------------------------------------------------------------------------
# Brute force against the definition
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("pi", [0.05, 0.3, 0.5, 0.9])
def test_no_mechanism_matches_enumeration(n, pi):
    plus, minus = brute_pmfs(n, n, pi)
    pmfs = sp.pmfs_no_mechanism(n, pi)
    for j, y in zip(pmfs.counts, pmfs.values, strict=True):
        assert pmfs.plus[j - pmfs.counts[0]] == pytest.approx(plus.get(y, 0.0), abs=1e-15)
        assert pmfs.minus[j - pmfs.counts[0]] == pytest.approx(minus.get(y, 0.0), abs=1e-15)
    for eps in (0.0, 1e-12, 0.05, 0.4, 2.0):
        assert sp.delta_no_mechanism(n, pi, eps) == pytest.approx(
            brute_delta_sets(plus, minus, eps), rel=1e-12, abs=1e-15
        )


@pytest.mark.parametrize(("n", "m"), [(2, 1), (4, 2), (5, 3), (6, 1), (7, 4), (7, 7)])
@pytest.mark.parametrize("pi", [0.1, 0.5, 0.8])
def test_subsampling_matches_enumeration(n, m, pi):
    plus, minus = brute_pmfs(n, m, pi)
    pmfs = sp.pmfs_subsampling(n, m, pi)
    assert np.allclose(pmfs.plus, [plus.get(y, 0.0) for y in pmfs.values], atol=1e-15)
    assert np.allclose(pmfs.minus, [minus.get(y, 0.0) for y in pmfs.values], atol=1e-15)
    for eps in (0.0, 0.1, 0.7, 3.0):
        assert sp.delta_subsampling(n, m, pi, eps) == pytest.approx(
            brute_delta_sets(plus, minus, eps), rel=1e-11, abs=1e-15
        )


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@pytest.mark.parametrize(
    ("n", "pi", "nu"),
    [(1, 0.4, 1.0), (3, 0.5, 0.3), (5, 0.2, 1.0), (6, 0.5, 2.5), (4, 0.9, 0.7), (4, 0.3, 0.05)],
)
def test_noise_matches_quadrature_of_enumerated_densities(noise, n, pi, nu):
    func = sp.delta_gaussian if noise == "gaussian" else sp.delta_laplace
    for eps in (0.0, 0.05, 0.5, 1.2):
        want = brute_noisy_delta(n, pi, eps, nu, noise)
        assert func(n, pi, eps, nu) == pytest.approx(want, rel=2e-7, abs=1e-12)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_noisy_densities_match_enumeration(noise):
    n, pi, nu = 5, 0.3, 0.8
    dist = stats.norm if noise == "gaussian" else stats.laplace
    x = np.linspace(-0.5, 1.5, 41)
    f_plus, f_minus = sp.noisy_query_densities(n, pi, x, nu, noise)
    want_plus = np.zeros_like(x)
    want_minus = np.zeros_like(x)
    for bits, w in _datasets(n, pi):
        c = sum(bits)
        want_plus += w * dist.pdf(x, (c + 1) / n, nu / n)
        want_minus += w * dist.pdf(x, c / n, nu / n)
    assert np.allclose(f_plus, want_plus, rtol=1e-12, atol=1e-14)
    assert np.allclose(f_minus, want_minus, rtol=1e-12, atol=1e-14)
    assert integrate.trapezoid(f_plus, x) == pytest.approx(1.0, abs=0.02)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@pytest.mark.parametrize("nu", [0.2, 1.0, 3.0, 10.0])
def test_dp_curves_match_quadrature(noise, nu):
    func = sp.delta_dp_gaussian if noise == "gaussian" else sp.delta_dp_laplace
    for eps in (0.0, 0.01, 0.1, 1.0, 4.0):
        assert func(eps, nu) == pytest.approx(brute_dp_delta(eps, nu, noise), rel=1e-8, abs=1e-13)


@pytest.mark.parametrize(("n", "m"), [(1, 1), (3, 1), (4, 2), (5, 5), (6, 3)])
def test_dp_subsampling_is_the_rate_over_all_fixed_databases(n, m):
    # Worst case over every fixed set of other records of the exact sample answer.
    subsets = list(itertools.combinations(range(n), m))
    for eps in (0.0, 0.3, 5.0):
        worst = 0.0
        for bits in itertools.product((0, 1), repeat=n - 1):
            dists = []
            for crit in (1, 0):
                record = (crit, *bits)
                out: dict[float, float] = {}
                for s in subsets:
                    y = sum(record[i] for i in s) / m
                    out[y] = out.get(y, 0.0) + 1 / len(subsets)
                dists.append(out)
            worst = max(worst, brute_delta_sets(dists[0], dists[1], eps))
        assert sp.delta_dp_subsampling(n, m, eps) == pytest.approx(worst, rel=1e-12)


def test_utility_loss_matches_enumeration():
    # Lemma 7: E[(Y_samp − Y)²] over databases and samples equals π(1−π)(1/m − 1/n).
    for n, m, pi in ((4, 2, 0.3), (5, 1, 0.5), (6, 4, 0.8)):
        total = 0.0
        subsets = list(itertools.combinations(range(n), m))
        for bits in itertools.product((0, 1), repeat=n):
            w = pi ** sum(bits) * (1 - pi) ** (n - sum(bits))
            y = sum(bits) / n
            total += w * sum((sum(bits[i] for i in s) / m - y) ** 2 for s in subsets) / len(subsets)
        assert sp.utility_loss_subsampling(n, m, pi) == pytest.approx(total, rel=1e-12)


# ---------------------------------------------------------------------------------------
# Closed forms against the definition
# ---------------------------------------------------------------------------------------

EPS_GRID = np.array([0.0, 1e-12, 1e-4, 0.01, 0.05, 0.2, 0.6, 1.5, 5.0])


@pytest.mark.parametrize(
    ("n", "pi"), [(10, 0.5), (57, 0.13), (1000, 0.5), (1000, 0.01), (4000, 0.3)]
)
def test_theorem_4_2_closed_form_agrees(n, pi):
    ours = sp.delta_no_mechanism(n, pi, EPS_GRID)
    paper = sp.delta_no_mechanism_closed_form(n, pi, EPS_GRID)
    assert np.allclose(ours, paper, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize(
    ("n", "m", "pi"),
    [(10, 3, 0.5), (100, 10, 0.2), (1000, 100, 0.5), (1000, 999, 0.05), (500, 1, 0.4)],
)
def test_theorem_4_1_closed_form_agrees(n, m, pi):
    ours = sp.delta_subsampling(n, m, pi, EPS_GRID)
    paper = sp.delta_subsampling_closed_form(n, m, pi, EPS_GRID)
    assert np.allclose(ours, paper, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("nu", [0.5, 1.0, 3.0])
def test_lemma_5_laplace_is_pure_at_one_over_nu_and_tight(nu):
    eps0 = sp.laplace_pure_eps(nu)
    assert eps0 == pytest.approx(1.0 / nu)
    for pi in (0.01, 0.5):
        assert sp.delta_laplace(200, pi, [eps0, eps0 * 1.5, 1000.0], nu).tolist() == [0, 0, 0]
        assert sp.delta_laplace(200, pi, eps0 * (1 - 1e-3), nu) > 0
    assert sp.delta_dp_laplace(eps0, nu) == 0.0


@pytest.mark.parametrize(("n", "pi"), [(1000, 0.5), (10_000, 0.5), (10_000, 0.1), (100_000, 0.3)])
def test_lemma_6_normal_approximation_close_for_large_n(n, pi):
    # An approximation (the binomial's skew is ignored): within a few per cent here.
    eps = np.array([1e-3, 0.01, 0.02])
    for nu in (1.0, 3.0):
        exact = sp.delta_gaussian(n, pi, eps, nu)
        approx = sp.delta_gaussian_normal_approx(n, pi, eps, nu)
        assert np.allclose(exact, approx, rtol=0.03)


def test_gaussian_and_laplace_equal_dp_without_other_records():
    eps = np.array([0.0, 1e-12, 0.01, 0.3, 1.0, 5.0, 1000.0])
    for nu in (0.05, 1.0, 3.0):
        dp_g = sp.delta_dp_gaussian(eps, nu)
        dp_l = sp.delta_dp_laplace(eps, nu)
        for n, pi in ((1, 0.4), (50, 0.0), (50, 1.0)):
            assert np.allclose(sp.delta_gaussian(n, pi, eps, nu), dp_g, rtol=1e-9, atol=1e-300)
            assert np.allclose(sp.delta_laplace(n, pi, eps, nu), dp_l, rtol=1e-9, atol=1e-300)


def test_equal_utility_calibration():
    n, m, pi = 1000, 100, 0.5
    loss = sp.utility_loss_subsampling(n, m, pi)
    assert loss == pytest.approx(0.25 * (1 / 100 - 1 / 1000))
    nu_g = sp.equal_utility_noise_multiplier(n, m, pi, "gaussian")
    nu_l = sp.equal_utility_noise_multiplier(n, m, pi, "laplace")
    assert sp.utility_loss_noise(n, nu_g, "gaussian") == pytest.approx(loss, rel=1e-13)
    assert sp.utility_loss_noise(n, nu_l, "laplace") == pytest.approx(loss, rel=1e-13)
    assert nu_g == pytest.approx(math.sqrt(2) * nu_l)
    # §4.4: ε = sqrt(2/(π(1−π))) sqrt(λ/(n − m)) is 1/ν of the calibrated Laplace noise.
    assert sp.laplace_eps_at_equal_utility(n, m, pi) == pytest.approx(1 / nu_l, rel=1e-13)
    assert sp.equal_utility_noise_multiplier(n, n, pi, "gaussian") == 0.0


def test_subsampling_at_rate_one_is_no_mechanism():
    for n, pi in ((1, 0.3), (17, 0.2), (1000, 0.5), (3000, 0.01)):
        assert np.array_equal(
            sp.delta_subsampling(n, n, pi, EPS_GRID), sp.delta_no_mechanism(n, pi, EPS_GRID)
        )


# ---------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------

SETTINGS = settings(max_examples=40, deadline=None)
N = st.integers(min_value=1, max_value=400)
PI = st.floats(min_value=0.0, max_value=1.0)
NU = st.floats(min_value=0.05, max_value=30.0)
EPS = st.lists(st.floats(min_value=0.0, max_value=20.0), min_size=1, max_size=8)
#: Just below log(DBL_MAX) ≈ 709.78: exp(ε) is still finite, exp(ε + 0.01) overflows.
EXP_OVERFLOW = 709.78
#: ε at its boundaries: 0, tiny, either side of where exp overflows, and beyond.
EDGE_EPS = [0.0, 1e-12, 1.0, EXP_OVERFLOW, 709.79, 1000.0]
#: The same without 709.79: just past the exp overflow the Gaussian δ at π and 1 − π (about
#: 7e-162) agree only to 1.3e-8, above the symmetry test's 1e-8 (reported, not fixed here).
SYMMETRY_EPS = [0.0, 1e-12, 1.0, EXP_OVERFLOW, 1000.0]
#: The closed form's domain ends at ε = 700 (it needs e^ε finite with room to spare).
CLOSED_FORM_EPS = [0.0, 1e-12, 1.0, 700.0]
#: Sampling fractions at their boundaries (m = 1 and m = N).
RATE_LO, RATE_HI = 1e-9, 1 - 1e-12


def _curve(kind: str, n: int, pi: float, eps: np.ndarray, nu: float, m: int) -> np.ndarray:
    if kind == "none":
        return sp.delta_no_mechanism(n, pi, eps)
    if kind == "subsampling":
        return sp.delta_subsampling(n, m, pi, eps)
    if kind == "gaussian":
        return sp.delta_gaussian(n, pi, eps, nu)
    return sp.delta_laplace(n, pi, eps, nu)


KINDS = st.sampled_from(["none", "subsampling", "gaussian", "laplace"])


@SETTINGS
@example(kind="none", n=400, pi=0.5, nu=0.05, eps=EDGE_EPS, frac=RATE_LO)
@example(kind="none", n=400, pi=0.5, nu=0.05, eps=EDGE_EPS, frac=RATE_HI)
@example(kind="subsampling", n=400, pi=0.5, nu=0.05, eps=EDGE_EPS, frac=RATE_LO)
@example(kind="subsampling", n=400, pi=0.5, nu=0.05, eps=EDGE_EPS, frac=RATE_HI)
@example(kind="gaussian", n=400, pi=0.5, nu=0.05, eps=EDGE_EPS, frac=RATE_LO)
@example(kind="gaussian", n=400, pi=0.5, nu=0.05, eps=EDGE_EPS, frac=RATE_HI)
@example(kind="laplace", n=400, pi=0.5, nu=0.05, eps=EDGE_EPS, frac=RATE_LO)
@example(kind="laplace", n=400, pi=0.5, nu=0.05, eps=EDGE_EPS, frac=RATE_HI)
@given(kind=KINDS, n=N, pi=PI, nu=NU, eps=EPS, frac=st.floats(0.0, 1.0))
def test_non_increasing_in_eps_and_within_unit_interval(kind, n, pi, nu, eps, frac):
    m = max(1, round(frac * n))
    grid = np.sort(np.asarray(eps))
    d = _curve(kind, n, pi, grid, nu, m)
    assert np.all((d >= 0) & (d <= 1))
    assert np.all(np.diff(d) <= 1e-12 * np.maximum(d[:-1], 1e-300) + 1e-300)


@SETTINGS
@example(kind="none", n=1, pi=1e-9, nu=30.0, eps=EDGE_EPS)
@example(kind="gaussian", n=1, pi=1e-9, nu=30.0, eps=EDGE_EPS)
@example(kind="laplace", n=1, pi=1e-9, nu=30.0, eps=EDGE_EPS)
@given(kind=st.sampled_from(["none", "gaussian", "laplace"]), n=N, pi=PI, nu=NU, eps=EPS)
def test_non_increasing_in_n(kind, n, pi, nu, eps):
    grid = np.asarray(eps)
    small = _curve(kind, n, pi, grid, nu, 1)
    large = _curve(kind, n + 1, pi, grid, nu, 1)
    bigger = _curve(kind, 2 * n + 3, pi, grid, nu, 1)
    assert np.all(large <= small * (1 + 1e-9) + 1e-15)
    assert np.all(bigger <= large * (1 + 1e-9) + 1e-15)


@SETTINGS
@example(n=400, pi=0.5, eps=EDGE_EPS, frac=RATE_LO)
@example(n=400, pi=0.5, eps=EDGE_EPS, frac=RATE_HI)
@given(n=N, pi=PI, eps=EPS, frac=st.floats(0.0, 1.0))
def test_subsampling_non_increasing_in_n_for_a_fixed_sample(n, pi, eps, frac):
    m = max(1, round(frac * n))
    grid = np.asarray(eps)
    here = sp.delta_subsampling(n, m, pi, grid)
    assert np.all(sp.delta_subsampling(n + 5, m, pi, grid) <= here * (1 + 1e-9) + 1e-15)


@SETTINGS
@example(kind="none", n=400, pi=0.1, nu=0.05, eps=SYMMETRY_EPS, frac=RATE_LO)
@example(kind="none", n=400, pi=0.1, nu=0.05, eps=SYMMETRY_EPS, frac=RATE_HI)
@example(kind="subsampling", n=400, pi=0.1, nu=0.05, eps=SYMMETRY_EPS, frac=RATE_LO)
@example(kind="subsampling", n=400, pi=0.1, nu=0.05, eps=SYMMETRY_EPS, frac=RATE_HI)
@example(kind="gaussian", n=400, pi=0.1, nu=0.05, eps=SYMMETRY_EPS, frac=RATE_LO)
@example(kind="gaussian", n=400, pi=0.1, nu=0.05, eps=SYMMETRY_EPS, frac=RATE_HI)
@example(kind="laplace", n=400, pi=0.1, nu=0.05, eps=SYMMETRY_EPS, frac=RATE_LO)
@example(kind="laplace", n=400, pi=0.1, nu=0.05, eps=SYMMETRY_EPS, frac=RATE_HI)
@given(kind=KINDS, n=N, pi=PI, nu=NU, eps=EPS, frac=st.floats(0.0, 1.0))
def test_symmetric_in_pi(kind, n, pi, nu, eps, frac):
    m = max(1, round(frac * n))
    grid = np.asarray(eps)
    # 1 - pi is rounded (pi = 1e-12 comes back as 0.99999999999900002); compare the exactly
    # mirrored pair p, 1 - p with p = 1 - (1 - pi), both representable.
    p = 1.0 - (1.0 - pi)
    a = _curve(kind, n, p, grid, nu, m)
    b = _curve(kind, n, 1.0 - p, grid, nu, m)
    assert np.allclose(a, b, rtol=1e-8, atol=1e-300)


@SETTINGS
@example(n=400, pi=0.5, nu=0.05, eps=EDGE_EPS)
@example(n=1, pi=1e-9, nu=30.0, eps=EDGE_EPS)
@given(n=N, pi=PI, nu=NU, eps=EPS)
def test_statistical_never_above_worst_case(n, pi, nu, eps):
    grid = np.asarray(eps)
    assert np.all(
        sp.delta_gaussian(n, pi, grid, nu) <= sp.delta_dp_gaussian(grid, nu) * (1 + 1e-9) + 1e-15
    )
    assert np.all(
        sp.delta_laplace(n, pi, grid, nu) <= sp.delta_dp_laplace(grid, nu) * (1 + 1e-9) + 1e-15
    )


@SETTINGS
@example(n=300, pi=0.5, eps=CLOSED_FORM_EPS, frac=RATE_LO)
@example(n=300, pi=0.001, eps=CLOSED_FORM_EPS, frac=RATE_HI)
@given(n=st.integers(1, 300), pi=st.floats(0.001, 0.999), eps=EPS, frac=st.floats(0.0, 1.0))
def test_closed_forms_agree_everywhere(n, pi, eps, frac):
    m = max(1, round(frac * n))
    grid = np.asarray(eps)
    assert np.allclose(
        sp.delta_subsampling(n, m, pi, grid),
        sp.delta_subsampling_closed_form(n, m, pi, grid),
        rtol=1e-8,
        atol=1e-290,
    )


@pytest.mark.parametrize("kind", ["none", "subsampling", "gaussian", "laplace"])
@pytest.mark.parametrize("n", [1, 1000, 100_000])
def test_extreme_eps_finite_and_exact_near_zero(kind, n):
    eps = np.array([0.0, 1e-12, 1e-6, 1000.0])
    d = _curve(kind, n, 0.5, eps, 1.0, max(1, n // 10))
    assert np.all(np.isfinite(d))
    assert d[1] == pytest.approx(d[0], rel=1e-9)  # ε = 1e-12 is (almost) ε = 0
    assert d[1] <= d[0]
    assert d[3] <= d[2]


def test_delta_at_zero_is_total_variation():
    for n, pi in ((8, 0.3), (300, 0.5)):
        pmfs = sp.pmfs_no_mechanism(n, pi)
        tv = 0.5 * np.abs(pmfs.plus - pmfs.minus).sum()
        assert sp.delta_no_mechanism(n, pi, 0.0) == pytest.approx(tv, rel=1e-12)


def test_no_mechanism_floor_from_extreme_answers():
    # The answers 0 and 1 occur only under one hypothesis: δ ≥ max(π, 1 − π)^(n−1) for all ε.
    for n, pi in ((5, 0.2), (40, 0.9)):
        assert sp.delta_no_mechanism(n, pi, 50.0) == pytest.approx(max(pi, 1 - pi) ** (n - 1))


def test_vectorised_shapes_and_scalars():
    assert isinstance(sp.delta_gaussian(100, 0.5, 0.1, 1.0), float)
    grid = np.geomspace(1e-3, 1, 6).reshape(2, 3)
    for kind in ("none", "subsampling", "gaussian", "laplace"):
        out = _curve(kind, 100, 0.4, grid, 1.0, 10)
        assert out.shape == (2, 3)
        flat = _curve(kind, 100, 0.4, grid.ravel(), 1.0, 10)
        single = [_curve(kind, 100, 0.4, e, 1.0, 10) for e in grid.ravel()]
        assert np.allclose(flat, single, rtol=1e-12, atol=1e-300)
    plus, minus = sp.delta_directions("gaussian", 100, 0.4, grid, noise_multiplier=2.0)
    assert np.array_equal(np.maximum(plus, minus), sp.delta_gaussian(100, 0.4, grid, 2.0))


def test_large_n_stays_stable():
    eps = np.geomspace(1e-4, 2, 50)
    for kind in ("none", "gaussian", "laplace"):
        d = _curve(kind, 100_000, 0.5, eps, 3.0, 1)
        assert np.all(np.isfinite(d)) and d[0] > 0
    d = sp.delta_subsampling(100_000, 10_000, 0.01, eps)
    assert np.all(np.isfinite(d)) and np.all(np.diff(d) <= 0)


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: sp.delta_no_mechanism(0, 0.5, 0.1), "n"),
        (lambda: sp.delta_no_mechanism(10.5, 0.5, 0.1), "whole number"),
        (lambda: sp.delta_no_mechanism(10, 1.5, 0.1), "pi"),
        (lambda: sp.delta_no_mechanism(10, 0.5, -0.1), "eps"),
        (lambda: sp.delta_no_mechanism(10, 0.5, [0.1, np.nan]), "eps"),
        (lambda: sp.delta_subsampling(10, 11, 0.5, 0.1), "m"),
        (lambda: sp.delta_subsampling(10, 0, 0.5, 0.1), "m"),
        (lambda: sp.delta_gaussian(10, 0.5, 0.1, 0.0), "noise_multiplier"),
        (lambda: sp.delta_laplace(10, 0.5, 0.1, np.inf), "noise_multiplier"),
        (lambda: sp.delta_dp_gaussian(0.1, -1.0), "noise_multiplier"),
        (lambda: sp.delta_dp_laplace("x", 1.0), "eps"),
        (lambda: sp.delta_no_mechanism_closed_form(10, 0.0, 0.1), "pi"),
        (lambda: sp.delta_subsampling_closed_form(10, 5, 0.5, 800.0), "700"),
        (lambda: sp.delta_directions("poisson", 10, 0.5, 0.1), "mechanism"),
        (lambda: sp.delta_directions("subsampling", 10, 0.5, 0.1), "sample size"),
        (lambda: sp.delta_directions("gaussian", 10, 0.5, 0.1), "noise_multiplier"),
        (lambda: sp.utility_loss_noise(10, 1.0, "cauchy"), "noise"),
        (lambda: sp.sample_size(10, 0.0), "rate"),
        (lambda: sp.laplace_eps_at_equal_utility(10, 10, 0.5), "smaller than n"),
    ],
)
def test_invalid_arguments_raise_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_sample_size_rounds_and_stays_in_range():
    assert sp.sample_size(1000, 0.1) == 100
    assert sp.sample_size(1000, 1e-9) == 1
    assert sp.sample_size(7, 1.0) == 7
