"""core.designs.individual: simple random and Poisson samples."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import amplification as amp
from core import mechanisms as mech
from core.accounting import change_one as co
from core.designs.frame import Frame
from core.designs.individual import Poisson, SimpleRandom
from core.designs.protocol import Point
from core.population import Population

FRAME = Frame.of(Population("t", np.linspace(0.0, 1.0, 1_000), 0.0, 1.0))


def test_srs_point_rounds_n_and_scales_delta():
    srs = SimpleRandom()
    point = srs.point(FRAME, 0.0123)
    assert point is not None and point.size == 12 and point.rate == 0.012
    assert srs.delta_sample(1e-6, point) == pytest.approx(1e-6 / 0.012)
    assert srs.delta_sample(0.4, point) == 0.5  # capped


def test_srs_masks_hold_n_records_and_poisson_masks_the_rate():
    rng = np.random.default_rng(2)
    srs, poi = SimpleRandom(), Poisson()
    p = srs.point(FRAME, 0.1)
    assert p is not None
    assert (srs.mask(FRAME, srs.draw_keys(FRAME, 50, rng), p).sum(axis=1) == 100).all()
    q = poi.point(FRAME, 0.1)
    assert q is not None
    share = poi.mask(FRAME, poi.draw_keys(FRAME, 200, rng), q).mean()
    assert abs(share - 0.1) < 4 * math.sqrt(0.1 * 0.9 / 200_000)


def test_poisson_change_accounting_is_exact_and_inverts():
    poi = Poisson()
    p = poi.point(FRAME, 0.05)
    assert p is not None
    factors = mech.GlobalLaplaceQuantile.budget_factors(0.5)  # alpha = gamma = 1
    acc = poi.accounting(1.0, "replacement", factors, p)
    assert acc.eps_sample == pytest.approx(float(amp.eps_sample(1.0, 0.05)), rel=1e-12)
    assert "exact for a changed record" in acc.bound
    back = poi.eps_target_of(acc.eps_sample, "replacement", factors, p)
    assert back == pytest.approx(1.0, rel=1e-12)
    # The exponential median: ε_ar = ε_sample / 2 and ε_sub = ε_sample, the closed form
    # ln((1 − r + r e^x) / (1 − r + r e^{−x})) = 1 at x = ε_sample / 2.
    median = mech.ExponentialQuantile.budget_factors(0.5)
    acc = poi.accounting(1.0, "replacement", median, p)
    x = acc.eps_sample / 2.0
    got = math.log((0.95 + 0.05 * math.exp(x)) / (0.95 + 0.05 * math.exp(-x)))
    assert got == pytest.approx(1.0, rel=1e-12)
    assert acc.eps_sample > float(amp.eps_sample(1.0, 0.05))
    # Without a mechanism: group privacy, the theorem at ε_target / 2.
    group = poi.accounting(1.0, "replacement", None, p)
    assert group.eps_sample == pytest.approx(float(amp.eps_sample(0.5, 0.05)), rel=1e-12)


def test_window_draws_have_the_designs_sizes():
    rng = np.random.default_rng(3)
    srs, poi = SimpleRandom(), Poisson()
    p = srs.point(FRAME, 0.2)
    assert p is not None
    assert (srs.window_draw(FRAME, p, 7, rng).sizes == 200).all()
    q = poi.point(FRAME, 0.2)
    assert q is not None
    sizes = poi.window_draw(FRAME, q, 4_000, rng).sizes
    assert abs(sizes.mean() - 200) < 4 * math.sqrt(200 * 0.8 / 4_000)


#: The budget pairs (α, γ) of the mechanisms the planner runs on Poisson samples: the
#: exponential quantile at several levels, the α = γ = 1 quantiles, the means over N.
_PAIRS = [
    (f.add_remove, f.change)
    for f in [
        *(mech.ExponentialQuantile.budget_factors(q) for q in (0.5, 0.25, 0.1)),
        mech.GlobalLaplaceQuantile.budget_factors(0.5),
        mech.SumCountMean.budget_factors(0.5),
    ]
]


def _composed_target(pairs, shares, eps_target, rate, shared):
    """``ε_target`` of releases sharing one Poisson sample, each at its share of its own
    accounting: the budgets add on the sample (basic composition), then the two-budget
    bound (P) of the composed release."""
    poi = Poisson()
    point = Point(rate, rate, math.nan, theorem={"rate": rate})
    a = s = 0.0
    for (alpha, gamma), w in zip(pairs, shares, strict=True):
        f = mech.BudgetFactors("m", alpha, gamma)
        e = w * poi.accounting(eps_target, "replacement", f, point, shared=shared).eps_sample
        a += alpha * e
        s += min(gamma, 2 * alpha) * e
    return co.poisson_eps_target(a, s, rate)


@settings(max_examples=200, deadline=None)
@given(
    picks=st.lists(st.sampled_from(range(len(_PAIRS))), min_size=2, max_size=4),
    raw=st.lists(st.floats(0.05, 1.0), min_size=4, max_size=4),
    eps_target=st.sampled_from([0.1, 0.5, 1.0, 2.0, 5.0]),
    rate=st.sampled_from([0.01, 0.1, 0.5, 0.9]),
)
def test_shared_sample_shares_compose_within_eps_target(picks, raw, eps_target, rate) -> None:
    """With ``shared`` the shares of any mechanisms add to at most ``eps_target`` through the
    exact two-budget bound of the composed release."""
    pairs = [_PAIRS[i] for i in picks]
    w = np.array(raw[: len(pairs)]) / sum(raw[: len(pairs)])
    got = _composed_target(pairs, w, eps_target, rate, shared=True)
    assert got <= eps_target * (1 + 1e-9)


def test_unshared_two_budget_shares_of_different_mechanisms_overshoot() -> None:
    """Why ``shared`` exists: each release at its share of its own two-budget ε_sample, the
    exponential median (α = 1/2, γ = 1) and quartile (α = 3/4), or the median and the
    global-Laplace quantile (α = γ = 1), compose past ``eps_target``; with ``shared``
    they do not, and a mechanism with γ = 2α keeps its exact budget."""
    median, quartile, laplace = _PAIRS[0], _PAIRS[1], _PAIRS[3]
    over = _composed_target([median, quartile], [0.45, 0.55], 2.0, 0.5, shared=False)
    assert over > 2.0 * 1.01
    over = _composed_target([median, laplace], [0.45, 0.55], 2.0, 0.5, shared=False)
    assert over > 2.0 * 1.04
    assert _composed_target([median, laplace], [0.45, 0.55], 2.0, 0.5, shared=True) <= 2.0 * (
        1 + 1e-12
    )
    poi, point = Poisson(), Point(0.5, 0.5, math.nan, theorem={"rate": 0.5})
    f = mech.ExponentialQuantile.budget_factors(0.5)
    alone = poi.accounting(2.0, "replacement", f, point)
    shared = poi.accounting(2.0, "replacement", f, point, shared=True)
    assert shared.eps_sample == pytest.approx(alone.eps_sample, rel=1e-12)
    assert "share the sample" in shared.bound
    back = poi.eps_target_of(shared.eps_sample, "replacement", f, point, shared=True)
    assert back == pytest.approx(2.0, rel=1e-12)
    g = mech.GlobalLaplaceQuantile.budget_factors(0.5)
    assert poi.accounting(2.0, "replacement", g, point, shared=True).eps_sample < (
        poi.accounting(2.0, "replacement", g, point).eps_sample
    )
