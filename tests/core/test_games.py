"""core.games: the membership game's exact densities, the adversary and the DP trade-off bound.

The reference here is deliberately slow and obvious: it lists every record of a tiny
population (N = 6), enumerates every possible sample, and sums Laplace densities directly.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from core import clusters as cl
from core import games as g

EPS_LIST = (0.1, 0.5, 1.0, 2.0, 5.0)
Z = 4.0
ROUNDS = 10_000


def setup(design: str = "simple random", neighbour: str = "worst case", **kw) -> g.GameSetup:
    defaults = {"clusters": 20, "cluster_size": 25, "eps_target": 1.0}
    defaults["drawn"] = 4 if design == "cluster" else 100
    defaults.update(kw)
    return g.GameSetup(design=design, neighbour=neighbour, **defaults)


ALL_KINDS = [(d, nb) for d in g.DESIGNS for nb in g.NEIGHBOURS]


# ---------------------------------------------------------------------------------------
# The slow reference: enumerate records and samples
# ---------------------------------------------------------------------------------------


def reference_count_pmfs(s: g.GameSetup) -> tuple[dict[int, float], dict[int, float]]:
    """PMF of the sampled count in both worlds by listing every sample of every record."""
    counts = g.cluster_counts(s)
    m = s.cluster_size
    # records: (cluster, has property); Alice is the extra record of cluster 0 with property.
    out_records = [(c, j < counts[c]) for c in range(s.clusters) for j in range(m)]
    in_records = [*out_records, (0, True)]
    pmfs = []
    for records in (in_records, out_records):
        pmf: dict[int, float] = {}
        if s.design == "simple random":
            samples = [
                sum(records[i][1] for i in idx)
                for idx in itertools.combinations(range(len(records)), s.drawn)
            ]
        else:
            samples = [
                sum(has for c, has in records if c in chosen)
                for chosen in itertools.combinations(range(s.clusters), s.drawn)
            ]
        for x in samples:
            pmf[x] = pmf.get(x, 0.0) + 1.0 / len(samples)
        pmfs.append(pmf)
    return pmfs[0], pmfs[1]


def reference_density(pmf: dict[int, float], eps: float, x: float) -> float:
    return sum(p * eps / 2 * math.exp(-eps * abs(x - c)) for c, p in pmf.items())


TINY = [
    g.GameSetup("simple random", 3, 2, n, 1.0, nb, share=0.5, population_seed=seed)
    for n in (1, 3, 6)
    for nb in g.NEIGHBOURS
    for seed in (0, 4)
] + [
    g.GameSetup("cluster", 3, 2, ell, 1.0, nb, share=0.5, population_seed=seed)
    for ell in (1, 2)
    for nb in g.NEIGHBOURS
    for seed in (0, 4)
]


@pytest.mark.parametrize("s", TINY, ids=lambda s: f"{s.design}-{s.drawn}-{s.neighbour}")
def test_likelihood_ratio_matches_enumerating_every_sample(s: g.GameSetup) -> None:
    pmf_in, pmf_out = reference_count_pmfs(s)
    dist = g.count_distribution(s)
    for c, lp in zip(dist.support, dist.log_in, strict=True):
        assert math.exp(lp) == pytest.approx(pmf_in.get(int(c), 0.0), abs=1e-12)
    for c, lp in zip(dist.support, dist.log_out, strict=True):
        assert math.exp(lp) == pytest.approx(pmf_out.get(int(c), 0.0), abs=1e-12)
    x = np.linspace(-3.0, 10.0, 131)
    eps = s.eps_sample
    want = [
        math.log(reference_density(pmf_in, eps, v)) - math.log(reference_density(pmf_out, eps, v))
        for v in x
    ]
    np.testing.assert_allclose(g.likelihood_ratio_test(s, x), want, rtol=1e-10, atol=1e-12)


def test_the_tiny_populations_are_what_the_model_says() -> None:
    assert list(g.cluster_counts(g.GameSetup("simple random", 3, 2, 2, 1.0))) == [0, 0, 0]
    assert list(g.cluster_counts(g.GameSetup("cluster", 3, 2, 2, 1.0))) == [2, 0, 0]
    typical = g.GameSetup("cluster", 3, 2, 2, 1.0, "typical", share=0.5, population_seed=4)
    again = g.cluster_counts(typical)
    assert np.array_equal(again, g.cluster_counts(typical))
    assert np.all((again >= 0) & (again <= 2))


@pytest.mark.parametrize("eps_target", [1e-6, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
@pytest.mark.parametrize("neighbour", g.NEIGHBOURS)
def test_simple_random_release_keeps_the_promise_on_tiny_neighbours(eps_target, n, neighbour):
    """Exact loss, from the enumerated output distribution, never exceeds ε_target."""
    s = g.GameSetup("simple random", 3, 2, n, eps_target, neighbour, share=0.5, population_seed=1)
    pmf_in, pmf_out = reference_count_pmfs(s)
    eps = s.eps_sample
    # The ratio is monotone between integers and constant outside: integers give the sup.
    points = np.r_[np.arange(-1, 8), np.linspace(-1, 8, 91)]
    loss = max(
        abs(
            math.log(reference_density(pmf_in, eps, x) / reference_density(pmf_out, eps, x))
            if eps < 5
            else float(g.likelihood_ratio_test(s, [x])[0])
        )
        for x in points
    )
    assert loss <= eps_target * (1 + 1e-9)
    assert g.privacy_loss(s) == pytest.approx(loss, rel=1e-6, abs=1e-12)


# ---------------------------------------------------------------------------------------
# Exact densities and losses
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("design", "neighbour"), ALL_KINDS)
@pytest.mark.parametrize("eps_target", [0.1, 1.0, 5.0])
def test_densities_integrate_to_one(design, neighbour, eps_target):
    s = setup(design, neighbour, eps_target=eps_target, statistic="share")
    dist = g.count_distribution(s)
    assert np.exp(dist.log_in).sum() == pytest.approx(1.0, abs=1e-12)
    assert np.exp(dist.log_out).sum() == pytest.approx(1.0, abs=1e-12)
    spread = math.ceil(40.0 / s.eps_sample)
    lo, hi = int(dist.support[0]) - spread, int(dist.support[-1]) + spread
    # Cells of 1/50 aligned with the integers (the kinks): Simpson on each smooth piece.
    x = np.arange(lo * 50, hi * 50 + 1) / 50.0
    for log_p in g.log_release_densities(s, x / s.scale):
        p = np.exp(log_p) / s.scale  # density in count units
        h = 1 / 50
        simpson = h / 3 * (p[0:-1:2] + 4 * p[1::2] + p[2::2]).sum()
        assert simpson == pytest.approx(1.0, abs=2e-5)


@pytest.mark.parametrize("eps_target", [1e-6, 0.01, 0.5, 1.0, 5.0, 20.0, 50.0])
@pytest.mark.parametrize("n", [1, 25, 250, 500])
def test_simple_random_worst_case_loss_is_the_closed_form(eps_target, n):
    s = setup(drawn=n, eps_target=eps_target)
    r = n / (s.population_size + 1)
    closed = math.log1p(r * math.expm1(s.eps_sample))
    assert g.privacy_loss(s) == pytest.approx(closed, rel=1e-7, abs=1e-14)
    assert g.privacy_loss(s) <= eps_target
    # for x ≥ 1 the ratio is flat at the closed form
    llr = g.likelihood_ratio_test(s, [1.0, 1.5, 7.0, 1e4])
    np.testing.assert_allclose(llr, closed, rtol=1e-7, atol=1e-14)


@pytest.mark.parametrize("eps_target", [1e-6, 0.01, 0.5, 1.0, 5.0, 50.0])
@pytest.mark.parametrize(("k", "m", "ell"), [(20, 25, 4), (10, 1, 1), (5, 3, 4), (50, 10, 25)])
def test_cluster_worst_case_loss_is_the_theorem_5_3_bound(eps_target, k, m, ell):
    s = setup("cluster", clusters=k, cluster_size=m, drawn=ell, eps_target=eps_target)
    eps, r = s.eps_sample, ell / k
    closed = math.log1p(r * math.expm1(eps) / (r + (1 - r) * math.exp(-m * eps)))
    assert g.cluster_bound_eps(s) == pytest.approx(closed, rel=1e-9, abs=1e-15)
    assert g.privacy_loss(s) == pytest.approx(closed, rel=1e-7, abs=1e-14)
    llr = g.likelihood_ratio_test(s, [m + 1.0, m + 3.5, 1e4])
    np.testing.assert_allclose(llr, closed, rtol=1e-7, atol=1e-14)


@pytest.mark.parametrize(("design", "neighbour"), ALL_KINDS)
def test_privacy_loss_is_the_sup_on_a_fine_grid(design, neighbour):
    s = setup(design, neighbour, eps_target=1.0)
    dist = g.count_distribution(s)
    x = np.linspace(dist.support[0] - 5.0, dist.support[-1] + 5.0, 200_001)
    grid = float(np.max(np.abs(g.likelihood_ratio_test(s, x, dist))))
    assert grid <= g.privacy_loss(s) + 1e-12
    assert grid == pytest.approx(g.privacy_loss(s), rel=1e-9)


def test_clusters_erase_the_amplification_the_agency_claims() -> None:
    s = setup("cluster", eps_target=1.0)
    assert g.privacy_loss(s) > 2.0 * s.eps_target
    assert g.privacy_loss(setup(eps_target=1.0)) <= 1.0


@pytest.mark.parametrize("eps_target", [1e-6, 50.0])
@pytest.mark.parametrize(("design", "neighbour"), ALL_KINDS)
def test_extreme_eps_stays_finite(eps_target, design, neighbour):
    s = setup(design, neighbour, eps_target=eps_target, drawn=1 if design == "cluster" else 5)
    loss = g.privacy_loss(s)
    assert math.isfinite(loss) and 0.0 <= loss <= s.eps_sample * (1 + 1e-9)
    _, rel = g.play_rounds(s, np.random.default_rng(0), 100)
    assert np.all(np.isfinite(g.likelihood_ratio_test(s, rel)))
    fpr, tpr = g.exact_roc(s)
    assert np.all(np.isfinite(fpr)) and np.all(np.isfinite(tpr))


# ---------------------------------------------------------------------------------------
# The automatic adversary against the bound
# ---------------------------------------------------------------------------------------


def adversary(s: g.GameSetup, seed: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    secrets, releases = g.play_rounds(s, np.random.default_rng(seed), ROUNDS)
    fpr, tpr = g.empirical_roc(g.likelihood_ratio_test(s, releases), secrets)
    return fpr, tpr, int(secrets.sum()), int((~secrets).sum())


@pytest.mark.parametrize("eps_target", EPS_LIST)
@pytest.mark.parametrize(("design", "neighbour"), ALL_KINDS)
def test_adversary_stays_under_the_bound_within_sampling_error(eps_target, design, neighbour):
    s = setup(design, neighbour, eps_target=eps_target)
    eps = eps_target if design == "simple random" else g.privacy_loss(s)
    fpr, tpr, n_in, n_out = adversary(s, seed=int(eps_target * 10) + len(design))
    bound = g.tradeoff_bound(eps, 0.0, fpr)
    # standard error of TPR_hat − e^ε FPR_hat (and of the mirror), rates kept off 0 and 1
    p_t = np.clip(tpr, 1 / n_in, 1 - 1 / n_in)
    p_f = np.clip(fpr, 1 / n_out, 1 - 1 / n_out)
    slope = np.where(fpr * math.exp(eps) < 1 - math.exp(-eps) * (1 - fpr), math.exp(eps), 0.0)
    slope = np.maximum(slope, math.exp(-eps))
    se = np.sqrt(p_t * (1 - p_t) / n_in + slope**2 * p_f * (1 - p_f) / n_out)
    assert np.all(tpr <= bound + Z * se), float(np.max(tpr - bound - Z * se))


def sup_region_rates(s: g.GameSetup, seed: int) -> tuple[float, float, int, int]:
    """TP and FP counts of the test "guess in where the LR is at its supremum"."""
    secrets, releases = g.play_rounds(s, np.random.default_rng(seed), ROUNDS)
    llr = g.likelihood_ratio_test(s, releases)
    top = llr >= g.privacy_loss(s) - 1e-9
    return int(np.sum(top & secrets)), int(np.sum(top & ~secrets)), secrets.sum(), (~secrets).sum()


def log_ratio_and_se(s: g.GameSetup, seed: int) -> tuple[float, float]:
    tp, fp, n_in, n_out = sup_region_rates(s, seed)
    assert tp >= 30 and fp >= 30, (tp, fp)
    tpr, fpr = tp / n_in, fp / n_out
    se = math.sqrt((1 - tpr) / tp + (1 - fpr) / fp)
    return math.log(tpr / fpr), se


@pytest.mark.parametrize("eps_target", [0.1, 0.5, 1.0, 2.0])
def test_adversary_reaches_the_bound_for_simple_random_worst_case(eps_target):
    s = setup(drawn=250, eps_target=eps_target)
    log_ratio, se = log_ratio_and_se(s, seed=7)
    r = 250 / (s.population_size + 1)
    assert abs(log_ratio - math.log1p(r * math.expm1(s.eps_sample))) <= Z * se


@pytest.mark.parametrize(("k", "ell"), [(20, 4), (20, 10)])
def test_adversary_beats_the_promise_for_clusters(k, ell):
    s = setup("cluster", clusters=k, cluster_size=25, drawn=ell, eps_target=1.0)
    log_ratio, se = log_ratio_and_se(s, seed=11)
    assert abs(log_ratio - g.privacy_loss(s)) <= Z * se
    assert log_ratio - Z * se > s.eps_target  # above e^{ε_target} beyond sampling error


@pytest.mark.parametrize(("design", "neighbour"), ALL_KINDS)
def test_exact_roc_is_a_valid_curve_under_the_bound(design, neighbour):
    s = setup(design, neighbour, eps_target=1.0)
    fpr, tpr = g.exact_roc(s)
    assert fpr[0] == tpr[0] == 0.0 and fpr[-1] == pytest.approx(1.0)
    assert tpr[-1] == pytest.approx(1.0)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    eps = s.eps_target if design == "simple random" else g.privacy_loss(s)
    assert np.all(tpr <= g.tradeoff_bound(eps, 0.0, fpr) + 1e-9)
    assert np.all(tpr >= fpr - 1e-9)  # the LR test beats guessing


def test_exact_roc_touches_the_bound_in_the_worst_case() -> None:
    s = setup(drawn=250, eps_target=1.0)
    fpr, tpr = g.exact_roc(s)
    loss = g.privacy_loss(s)
    # the first step (the region x ≥ 1 and beyond) lies on TPR = e^loss FPR
    first = (fpr > 0) & (fpr <= 0.5 * math.exp(-s.eps_sample) + 1e-12)
    assert first.any()
    np.testing.assert_allclose(tpr[first] / fpr[first], math.exp(loss), rtol=1e-6)


def test_same_seed_replays_the_same_rounds() -> None:
    s = setup("cluster", "typical")
    a = g.play_rounds(s, np.random.default_rng(3), 50)
    b = g.play_rounds(s, np.random.default_rng(3), 50)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = g.play_rounds(s, np.random.default_rng(4), 50)
    assert not np.array_equal(a[1], c[1])


def test_share_is_the_count_rescaled_with_the_same_test() -> None:
    count = setup("cluster", "typical")
    share = setup("cluster", "typical", statistic="share")
    sc, rc = g.play_rounds(count, np.random.default_rng(5), 200)
    ss, rs = g.play_rounds(share, np.random.default_rng(5), 200)
    assert np.array_equal(sc, ss)
    np.testing.assert_allclose(rs * share.scale, rc)
    np.testing.assert_allclose(
        g.likelihood_ratio_test(share, rs), g.likelihood_ratio_test(count, rc), atol=1e-12
    )
    assert g.privacy_loss(share) == pytest.approx(g.privacy_loss(count), rel=1e-12)


# ---------------------------------------------------------------------------------------
# The trade-off bound, rates and ROC helpers
# ---------------------------------------------------------------------------------------


def test_tradeoff_bound_values() -> None:
    f = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    np.testing.assert_allclose(g.tradeoff_bound(0.0, 0.0, f), f)
    want = np.minimum(np.e * f, 1 - np.exp(-1) * (1 - f))
    np.testing.assert_allclose(g.tradeoff_bound(1.0, 0.0, f), want)
    assert g.tradeoff_bound(1.0, 0.1, [0.0])[0] == pytest.approx(0.1)
    assert np.all(np.isfinite(g.tradeoff_bound(1000.0, 0.0, f)))
    assert g.tradeoff_bound(1000.0, 0.0, [0.0])[0] == 0.0


UNIT = st.floats(0.0, 1.0)
EPS = st.floats(0.0, 60.0)


@given(EPS, EPS, st.floats(0.0, 0.5), UNIT)
@example(0.0, 50.0, 0.0, 0.0)
def test_tradeoff_bound_grows_with_eps(e1, e2, delta, fpr):
    lo, hi = sorted((e1, e2))
    assert g.tradeoff_bound(lo, delta, [fpr])[0] <= g.tradeoff_bound(hi, delta, [fpr])[0] + 1e-12


@given(EPS, st.floats(0.0, 0.5), UNIT, UNIT)
@example(50.0, 0.0, 0.0, 1e-30)
def test_tradeoff_bound_grows_with_fpr_and_stays_in_the_square(eps, delta, f1, f2):
    lo, hi = sorted((f1, f2))
    a, b = g.tradeoff_bound(eps, delta, [lo, hi])
    assert a <= b + 1e-12
    assert lo <= a <= 1.0 and hi <= b <= 1.0


def test_student_rates() -> None:
    rates = g.student_rates([True, True, False, False, False], [True, False, True, False, False])
    assert rates == g.Rates(0.5, 1 / 3, 2, 3)
    only_in = g.student_rates([True], [False])
    assert only_in.tpr == 0.0 and math.isnan(only_in.fpr)
    with pytest.raises(ValueError, match="equal length"):
        g.student_rates([True], [True, False])


def test_empirical_roc_counts_ties_once() -> None:
    fpr, tpr = g.empirical_roc([2.0, 1.0, 1.0, 0.0], [True, True, False, False])
    np.testing.assert_allclose(fpr, [0.0, 0.0, 0.5, 1.0])
    np.testing.assert_allclose(tpr, [0.0, 0.5, 1.0, 1.0])
    with pytest.raises(ValueError, match="both"):
        g.empirical_roc([1.0], [True])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"design": "stratified"}, "design"),
        ({"drawn": 501}, "sample size n"),
        ({"design": "cluster", "drawn": 20}, "clusters drawn"),
        ({"eps_target": 0.0}, "eps_target"),
        ({"eps_target": 51.0}, "eps_target"),
        ({"eps_target": float("nan")}, "eps_target"),
        ({"clusters": 1}, "clusters"),
        ({"cluster_size": 101}, "cluster_size"),
        ({"share": 1.5}, "share"),
        ({"neighbour": "best"}, "neighbour"),
        ({"statistic": "mean"}, "statistic"),
    ],
)
def test_invalid_setups_are_refused(kwargs, match):
    args = {
        "design": "simple random",
        "clusters": 20,
        "cluster_size": 25,
        "drawn": 100,
        "eps_target": 1.0,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        g.GameSetup(**args)


def test_cluster_bound_needs_the_cluster_design() -> None:
    with pytest.raises(ValueError, match="cluster"):
        g.cluster_bound_eps(setup())
    s = setup("cluster")
    assert g.cluster_bound_eps(s) == pytest.approx(
        cl.hypothesis_test_bound(s.eps_sample, 25 * s.eps_sample, 20, 4)
    )


def test_expected_counts_are_the_means_of_the_exact_laws() -> None:
    s = g.GameSetup("cluster", 20, 25, 10, 1.0, "worst case")
    mean_in, mean_out = g.expected_counts(s)
    # Alice's cluster (25 holders, 26 with her) is drawn with chance 10/20
    assert mean_in == pytest.approx(13.0) and mean_out == pytest.approx(12.5)
    srs = g.GameSetup("simple random", 20, 25, 100, 1.0, "worst case")
    assert g.expected_counts(srs) == pytest.approx((100 / 501, 0.0))
