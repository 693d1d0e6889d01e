"""Tests for core.amplification.

Layers: the numbers printed in the papers; agreement with a 60-digit mpmath reference
(tests/core/reference_amplification.py); hypothesis properties (round trips,
monotonicity, Steinke's bounds, finiteness, broadcasting); argument validation; and
cross-checks against two independent libraries, OpenDP and dp_accounting.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from core import amplification as amp
from tests.conftest import require_module
from tests.core import reference_amplification as ref

EPS_MACH = float(np.finfo(np.float64).eps)

# ---------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------


def _log_uniform(lo_exp: float, hi_exp: float) -> st.SearchStrategy[float]:
    """Floats 10**u with u uniform in [lo_exp, hi_exp]: spreads examples over scales."""
    return st.floats(min_value=lo_exp, max_value=hi_exp).map(lambda u: float(10.0**u))


# Target budgets over the range the app uses and beyond.
EPS = st.one_of(_log_uniform(-12, 3), st.floats(min_value=1e-12, max_value=1e3))
# Rates: small ones, ones just below 1, and 1 itself.
RATES = st.one_of(
    _log_uniform(-9, 0),
    _log_uniform(-15, -1).map(lambda u: 1.0 - u),
    st.floats(min_value=1e-9, max_value=1.0),
    st.just(1.0),
)
RATES_BELOW_ONE = RATES.filter(lambda p: p < 1.0)

FAST = settings(max_examples=300, deadline=None)

# Boundary points the properties below are also checked at (``@example``), whatever the
# random draw: exp() overflows just above 709.78, so budgets of 709.2-709.9 reach an
# eps_sample on either side of it (where code must switch to its overflow-free form);
# 1e-12 is the smallest budget the app promises exactness at; rates 1e-9 and 1 - 1e-12 are
# the extreme rates.
#
# Break it on purpose: set ``core.amplification._EXP_SAFE = 710.0`` (past the overflow
# threshold): an eps_sample in (709.78, 710] then goes through ``expm1`` and gives inf, and
# the @example points below fail on every run, not only in some.
EXP_EDGE = 709.85  # exp(709.85) overflows: a budget just past the threshold
ONE_MINUS = 1.0 - 1e-12


def _close(ours: float, exact: float, rtol: float = 1e-12, atol: float = 0.0) -> bool:
    return abs(ours - exact) <= rtol * abs(exact) + atol


def _check_against_reference(
    ours: Callable[[float, float], float],
    exact: Callable[[float, float], float],
    points: list[tuple[float, float]],
    rtol: float = 1e-12,
) -> None:
    failures = []
    for a, b in points:
        got, want = ours(a, b), exact(a, b)
        # atol: (i) results below 1e-290 are (near-)subnormal or underflow to 0 in
        # doubles, so they carry fewer significant bits than a relative test assumes;
        # (ii) quantities that are exactly 0 (gap and q at rate = 1) come out of the
        # 60-digit textbook formula as ~1e-50 of cancellation noise.
        atol = 1e-300 if abs(want) < 1e-290 else 1e-40
        if not _close(got, want, rtol=rtol, atol=atol):
            failures.append(f"({a!r}, {b!r}): got {got!r}, reference {want!r}")
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------------------
# Numbers printed in the papers
# ---------------------------------------------------------------------------------------


def test_hu_section3_one_percent_sample() -> None:
    # "to achieve eps = 1 based on a 1% simple random sample it would be sufficient to
    # use eps_n = 5.15"
    assert round(amp.eps_sample(1.0, 0.01), 2) == 5.15


@pytest.mark.parametrize(
    ("eps", "percent", "digits"),
    [(3.0, 16.77, 2), (0.1, 61.4, 1)],
    ids=["eps=3:16.77%", "eps=0.1:61.4%"],
)
def test_hu_section41_q_worked_examples(eps: float, percent: float, digits: int) -> None:
    rate = amp.rate_for_q(eps, 0.6)
    assert round(100 * rate, digits) == percent
    assert amp.sampling_variance_bound(eps, rate) == pytest.approx(0.6, rel=1e-13)


@pytest.mark.parametrize(("eps", "printed"), [(0.1, 2.43), (1.0, 5.14)])
def test_hu_section43_population_10001_sample_101(eps: float, printed: float) -> None:
    assert round(amp.eps_sample(eps, 101 / 10001), 2) == printed


def test_hu_eq8_ratio_tends_to_one_as_eps_over_rate_vanishes() -> None:
    # Section 4.2: r -> 1 when (N/n) eps -> 0, and Section 4.1: q -> 1 - (n/N)^2.
    rate = 0.2
    assert amp.noise_variance_gap(1e-9, rate) < 1e-8
    assert amp.sampling_variance_bound(1e-9, rate) == pytest.approx(1 - rate**2, rel=1e-8)


def test_steinke_eq6_known_values() -> None:
    # eps <= 2p guarantees a ratio of at least 1/2 ... in fact log(3)/2 ~ 0.549.
    assert amp.steinke_floor(2.0) == pytest.approx(math.log(3) / 2, rel=1e-15)
    assert amp.steinke_floor(2.0) >= 0.5
    assert amp.steinke_floor(0.0) == 1.0
    assert amp.steinke_floor(1e-300) == 1.0


# ---------------------------------------------------------------------------------------
# Agreement with the 60-digit reference
# ---------------------------------------------------------------------------------------

REF_EPS = [1e-12, 1e-6, 1e-3, 0.1, 1.0, 3.0, 30.0, 700.0, 1000.0]
REF_RATES = [1e-9, 1e-3, 0.01, 0.5, 1 - 1e-9, 1.0]
REF_Q = [0.0, 1e-12, 1e-6, 0.01, 0.3, 0.6, 0.9, 0.999999]
REF_DELTA = [0.0, 1e-12, 1e-6, 0.05, 0.5]
REF_C = [0.0, 1e-300, 1e-12, 1e-6, 0.01, 0.2, 0.5, 1.0, 2.0, 5.0, 100.0, 1e6, 1e300]

EPS_RATE_FUNCTIONS = [
    "eps_sample",
    "eps_target",
    "noise_variance_ratio",
    "noise_variance_gap",
    "sampling_variance_bound",
    "steinke_ratio",
]


@pytest.mark.parametrize("name", EPS_RATE_FUNCTIONS)
@pytest.mark.parametrize("eps", REF_EPS)
def test_reference_eps_rate_grid(name: str, eps: float) -> None:
    # For eps_target the first argument is eps_sample; the same grid serves.
    # Every function here meets 1e-12 relative on the whole grid (measured worst case
    # ~6e-16), including eps = 1e-12 and 1000 and rate = 1e-9 and 1 - 1e-9.
    points = [(eps, rate) for rate in REF_RATES]
    _check_against_reference(getattr(amp, name), getattr(ref, name), points)


@pytest.mark.parametrize("eps", REF_EPS)
def test_reference_rate_for_q(eps: float) -> None:
    # Worst measured error ~4e-14 (eps = 700, q = 0.6): the rate is exp(-d) times a
    # well-conditioned factor with d = eps_sample - eps ~ 240, and d itself carries a few
    # units in its last place; still inside 1e-12.
    _check_against_reference(amp.rate_for_q, ref.rate_for_q, [(eps, q) for q in REF_Q])


@pytest.mark.parametrize("eps", REF_EPS)
def test_reference_rate_for_eps_sample(eps: float) -> None:
    sample_budgets = [eps] + [amp.eps_sample(eps, rate) for rate in REF_RATES]
    sample_budgets += [e for e in REF_EPS if e > eps]
    points = [(eps, es) for es in sample_budgets]
    _check_against_reference(amp.rate_for_eps_sample, ref.rate_for_eps_sample, points)


@pytest.mark.parametrize("name", ["delta_sample", "delta_target"])
def test_reference_delta(name: str) -> None:
    points = [(d, rate) for d in REF_DELTA for rate in REF_RATES]
    _check_against_reference(getattr(amp, name), getattr(ref, name), points, rtol=2 * EPS_MACH)


def test_reference_steinke_floor() -> None:
    for c in REF_C:
        assert _close(amp.steinke_floor(c), ref.steinke_floor(c)), c


def test_gap_is_accurate_where_ratio_rounds_to_one() -> None:
    eps, rate = 1e-12, 1 - 1e-9
    assert amp.noise_variance_ratio(eps, rate) == 1.0  # rounding: the exact r is < 1
    gap = amp.noise_variance_gap(eps, rate)
    assert 0 < gap < 1e-20
    assert _close(gap, ref.noise_variance_gap(eps, rate))
    # Leading-order series: 1 - r ~ 2 (1 - s) ~ eps (1/rate - 1).
    assert gap == pytest.approx(eps * (1 / rate - 1), rel=1e-8)


def test_small_eps_series_for_sqrt_ratio_gap() -> None:
    # 1 - s ~ eps (1/p - 1)/2 - eps^2 (1/6 - 1/(2p) + 1/(3p^2)) for small eps/p.
    for eps, p in [(1e-6, 0.5), (1e-4, 0.1), (1e-9, 1e-3)]:
        s = amp.steinke_ratio(eps, p)
        gap_s = 1 - math.sqrt(1 - amp.noise_variance_gap(eps, p))
        series = eps * (1 / p - 1) / 2 - eps**2 * (1 / 6 - 1 / (2 * p) + 1 / (3 * p * p))
        assert gap_s == pytest.approx(series, rel=1e-6 + 1e4 * (eps / p) ** 2)
        assert 1 - s == pytest.approx(gap_s, rel=1e-3)


# ---------------------------------------------------------------------------------------
# Hypothesis properties
# ---------------------------------------------------------------------------------------


@FAST
@given(eps=EPS, rate=RATES)
@example(eps=EXP_EDGE, rate=ONE_MINUS)
@example(eps=709.2, rate=0.5)
@example(eps=1e-12, rate=1e-9)
@example(eps=1e-12, rate=ONE_MINUS)
@example(eps=1000.0, rate=1e-9)
def test_round_trip_eps(eps: float, rate: float) -> None:
    es = amp.eps_sample(eps, rate)
    assert _close(amp.eps_target(es, rate), eps, rtol=1e-12)


@FAST
@given(es=EPS, rate=RATES)
@example(es=EXP_EDGE, rate=ONE_MINUS)
@example(es=709.2, rate=0.5)
@example(es=1e-12, rate=1e-9)
@example(es=1e-12, rate=ONE_MINUS)
@example(es=1000.0, rate=1e-9)
def test_round_trip_eps_reverse(es: float, rate: float) -> None:
    et = amp.eps_target(es, rate)
    assert _close(amp.eps_sample(et, rate), es, rtol=1e-12)


@FAST
@given(delta=st.floats(min_value=0.0, max_value=1.0, exclude_max=True), rate=RATES)
@example(delta=0.5, rate=1e-9)
@example(delta=1e-12, rate=ONE_MINUS)
def test_round_trip_delta(delta: float, rate: float) -> None:
    # Two correctly rounded operations: at most 2 ulp apart.
    ds = amp.delta_sample(delta, rate)
    assert _close(amp.delta_target(ds, rate), delta, rtol=2 * EPS_MACH)
    dt = amp.delta_target(ds, rate)
    if dt < 1.0:  # rounding can push 1 - ulp up to 1.0, which delta_sample rejects
        assert _close(amp.delta_sample(dt, rate), ds, rtol=4 * EPS_MACH)


@FAST
@given(eps=EPS, q=st.floats(min_value=0.0, max_value=0.999))
@example(eps=EXP_EDGE, q=0.5)
@example(eps=1e-12, q=0.999)
def test_round_trip_rate_for_q(eps: float, q: float) -> None:
    rate = amp.rate_for_q(eps, q)
    assume(rate > 1e-300)  # below this the rate underflows
    q_back = amp.sampling_variance_bound(eps, rate)
    # |dq/dlog(rate)| <= 2, so a relative error e in the returned rate moves q by at most
    # 2e absolutely; e is ~d ulps with d = eps_sample - eps <= ~690 here (else the rate
    # would underflow), hence the absolute 1e-12.  It also covers q ~ 0, where the rate
    # is 1 - O(q) and is representable only to 1.1e-16 absolutely.
    assert _close(q_back, q, rtol=1e-12, atol=1e-12)


@FAST
@given(eps=EPS, rate=RATES)
@example(eps=EXP_EDGE, rate=ONE_MINUS)
@example(eps=709.2, rate=0.5)
@example(eps=1e-12, rate=1e-9)
@example(eps=1e-12, rate=ONE_MINUS)
@example(eps=1000.0, rate=1e-9)
def test_round_trip_rate_for_eps_sample(eps: float, rate: float) -> None:
    es = amp.eps_sample(eps, rate)
    rate_back = amp.rate_for_eps_sample(eps, es)
    # d log(rate) / d eps_sample ~ -1 for large eps_sample: the ~2 ulp error of es
    # becomes ~2 es ulps in the rate (5e-13 at es ~ 1000).
    assert _close(rate_back, rate, rtol=1e-12 + 8 * EPS_MACH * es)


@FAST
@given(eps=EPS, factor=_log_uniform(0, 3))
def test_round_trip_rate_for_eps_sample_reverse(eps: float, factor: float) -> None:
    es = eps * factor
    rate = amp.rate_for_eps_sample(eps, es)
    assume(rate > 1e-300)
    assert _close(amp.eps_sample(eps, rate), es, rtol=1e-12)


@FAST
@given(e1=EPS, e2=EPS, rate=RATES)
def test_eps_sample_increasing_in_eps(e1: float, e2: float, rate: float) -> None:
    lo, hi = sorted((e1, e2))
    assert amp.eps_sample(lo, rate) <= amp.eps_sample(hi, rate)
    if hi > lo * (1 + 1e-9):
        assert amp.eps_sample(lo, rate) < amp.eps_sample(hi, rate)


@FAST
@given(eps=EPS, r1=RATES, r2=RATES)
def test_eps_sample_decreasing_in_rate(eps: float, r1: float, r2: float) -> None:
    lo, hi = sorted((r1, r2))
    assert amp.eps_sample(eps, lo) >= amp.eps_sample(eps, hi)
    assert amp.eps_sample(eps, hi) >= eps
    assert amp.eps_target(eps, lo) <= amp.eps_target(eps, hi) <= eps


@FAST
@given(eps=EPS, r1=RATES, r2=RATES)
def test_accuracy_quantities_monotone_in_rate(eps: float, r1: float, r2: float) -> None:
    # Larger samples: less amplification, so r and the Steinke ratio grow towards 1
    # while 1 - r and q shrink towards 0.
    # Up to a few units in the last place: where r is below ~1e-16, 1 - r rounds to 1.0 or
    # to the double just below it (eps = 157.6 at rates 1e-8 and 10^-8.75).
    lo, hi = sorted((r1, r2))
    ulps = 1.0 - 4e-16
    assert amp.noise_variance_gap(eps, lo) >= amp.noise_variance_gap(eps, hi) * ulps
    assert amp.sampling_variance_bound(eps, lo) >= amp.sampling_variance_bound(eps, hi) * ulps
    assert amp.steinke_ratio(eps, lo) * ulps <= amp.steinke_ratio(eps, hi)


@FAST
@given(eps=EPS, rate=RATES)
@example(eps=EXP_EDGE, rate=ONE_MINUS)
@example(eps=709.2, rate=0.5)
@example(eps=1e-12, rate=1e-9)
@example(eps=1e-12, rate=ONE_MINUS)
@example(eps=1000.0, rate=1e-9)
def test_ratio_at_most_one_and_gap_nonnegative(eps: float, rate: float) -> None:
    r = amp.noise_variance_ratio(eps, rate)
    gap = amp.noise_variance_gap(eps, rate)
    q = amp.sampling_variance_bound(eps, rate)
    assert 0 < r <= 1
    assert 0 <= gap <= 1  # 1.0 when r < 1e-16 (e.g. eps = 100, rate = 1e-9)
    assert 0 <= q <= 1
    assert abs((1 - r) - gap) <= 4 * EPS_MACH
    assert amp.steinke_ratio(eps, rate) ** 2 == pytest.approx(r, rel=8 * EPS_MACH)
    if rate == 1.0:
        assert r == 1.0 and gap == 0.0 and q == 0.0


@FAST
@given(eps=EPS, rate=RATES_BELOW_ONE)
@example(eps=EXP_EDGE, rate=ONE_MINUS)
@example(eps=709.2, rate=0.5)
@example(eps=1e-12, rate=1e-9)
@example(eps=1e-12, rate=ONE_MINUS)
@example(eps=1000.0, rate=1e-9)
def test_gap_strictly_positive_below_rate_one(eps: float, rate: float) -> None:
    assert amp.noise_variance_gap(eps, rate) > 0
    assert amp.sampling_variance_bound(eps, rate) > 0


@FAST
@given(eps=EPS, p=RATES)
@example(eps=EXP_EDGE, p=ONE_MINUS)
@example(eps=709.2, p=0.5)
@example(eps=1e-12, p=1e-9)
@example(eps=1e-12, p=ONE_MINUS)
@example(eps=1000.0, p=1e-9)
def test_steinke_sandwich(eps: float, p: float) -> None:
    # eps/(p + eps) <= log(1 + eps/p) <= eps_p <= eps/p.
    eps_p = amp.eps_sample(eps, p)
    lower = math.log1p(eps / p)
    tol = 1 + 4 * EPS_MACH
    assert eps / (p + eps) <= lower * tol
    assert lower <= eps_p * tol
    assert eps_p <= (eps / p) * tol


@FAST
@given(p=RATES, c=_log_uniform(-6, 3), u=st.floats(min_value=1e-6, max_value=1.0))
def test_steinke_ratio_above_floor(p: float, c: float, u: float) -> None:
    eps = u * c * p  # any eps <= c p
    assume(eps > 0)
    assert amp.steinke_ratio(eps, p) >= amp.steinke_floor(c) * (1 - 4 * EPS_MACH)


@FAST
@given(c=_log_uniform(-300, 300))
def test_steinke_floor_in_unit_interval_and_decreasing(c: float) -> None:
    f = amp.steinke_floor(c)
    assert 0 < f <= 1
    assert amp.steinke_floor(2 * c) <= f


EXTREME_EPS = st.one_of(_log_uniform(-300, 300), st.sampled_from([1e-300, 1e300, 1.7e308]))
EXTREME_RATES = st.one_of(
    _log_uniform(-300, 0),
    st.sampled_from([5e-324, 2.2250738585072014e-308, 1 - 2**-53, 1.0]),
)


@settings(max_examples=500, deadline=None)
@given(eps=EXTREME_EPS, rate=EXTREME_RATES)
@example(eps=EXP_EDGE, rate=ONE_MINUS)
@example(eps=709.2, rate=0.5)
@example(eps=1e-12, rate=1e-9)
@example(eps=1e-12, rate=ONE_MINUS)
@example(eps=1000.0, rate=1e-9)
def test_finite_at_extremes(eps: float, rate: float) -> None:
    es = amp.eps_sample(eps, rate)
    values = [
        es,
        amp.eps_target(eps, rate),
        amp.noise_variance_ratio(eps, rate),
        amp.noise_variance_gap(eps, rate),
        amp.sampling_variance_bound(eps, rate),
        amp.steinke_ratio(eps, rate),
        amp.delta_target(0.5, rate),
    ]
    assert all(math.isfinite(v) for v in values), values
    # delta / rate overflows to inf (= "unconstrained") only for subnormal rates.
    assert math.isfinite(amp.delta_sample(0.5, rate)) or rate < 2.2250738585072014e-308
    assert es >= eps
    assert amp.eps_target(eps, rate) <= eps
    assert 0 <= values[2] <= 1 and 0 <= values[3] <= 1 and 0 <= values[4] <= 1
    assert 0 <= values[5] <= 1


@settings(max_examples=300, deadline=None)
@given(eps=EXTREME_EPS, q=st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
@example(eps=EXP_EDGE, q=0.5)
@example(eps=1e-12, q=1e-12)
def test_rates_finite_at_extremes(eps: float, q: float) -> None:
    rate = amp.rate_for_q(eps, q)
    assert 0 <= rate <= 1
    es = eps * (1 + q) if math.isfinite(eps * (1 + q)) else eps
    rate2 = amp.rate_for_eps_sample(eps, es)
    assert 0 <= rate2 <= 1


def test_named_extremes() -> None:
    assert amp.eps_sample(1000.0, 1e-9) == pytest.approx(1000 + math.log(1e9), rel=1e-15)
    assert amp.eps_target(1000.0, 1e-9) == pytest.approx(1000 + math.log(1e-9), rel=1e-15)
    assert amp.eps_sample(1e-12, 0.5) == pytest.approx(ref.eps_sample(1e-12, 0.5), rel=1e-14)
    assert amp.eps_sample(5.0, 1.0) == 5.0
    assert amp.eps_target(5.0, 1.0) == 5.0
    assert amp.rate_for_q(2.0, 0.0) == 1.0
    assert amp.rate_for_eps_sample(2.0, 2.0) == 1.0
    assert amp.rate_for_eps_sample(2.0, 700.5) == pytest.approx(
        ref.rate_for_eps_sample(2.0, 700.5), rel=1e-14
    )
    assert amp.rate_for_eps_sample(2.0, 1000.0) == 0.0  # exact value ~1e-434 underflows


# ---------------------------------------------------------------------------------------
# Return types and broadcasting
# ---------------------------------------------------------------------------------------

ALL_TWO_ARG = [
    ("eps_sample", 0.5, 0.1),
    ("eps_target", 3.0, 0.1),
    ("delta_sample", 1e-6, 0.1),
    ("delta_target", 1e-5, 0.1),
    ("noise_variance_ratio", 0.5, 0.1),
    ("noise_variance_gap", 0.5, 0.1),
    ("sampling_variance_bound", 0.5, 0.1),
    ("rate_for_q", 0.5, 0.4),
    ("steinke_ratio", 0.5, 0.1),
    ("rate_for_eps_sample", 0.5, 2.0),
]


@pytest.mark.parametrize(("name", "a", "b"), ALL_TWO_ARG, ids=[t[0] for t in ALL_TWO_ARG])
def test_scalar_in_float_out(name: str, a: float, b: float) -> None:
    f = getattr(amp, name)
    first_int = 0 if name in ("delta_sample", "delta_target") else 1
    second = 3 if name == "rate_for_eps_sample" else b
    for args in [(a, b), (np.float64(a), b), (np.array(a), np.array(b)), (first_int, second)]:
        assert type(f(*args)) is float


@pytest.mark.parametrize(("name", "a", "b"), ALL_TWO_ARG, ids=[t[0] for t in ALL_TWO_ARG])
def test_broadcasting(name: str, a: float, b: float) -> None:
    f = getattr(amp, name)
    col = np.array([a, a * 0.5, a * 0.25])[:, None]
    row = np.array([b, b * 0.9, b * 0.8, b * 0.7])[None, :]
    if name == "rate_for_eps_sample":
        row = row * 10  # keep eps_sample >= eps_target
    out = f(col, row)
    assert isinstance(out, np.ndarray) and out.shape == (3, 4) and out.dtype == np.float64
    for i in range(3):
        for j in range(4):
            assert out[i, j] == f(float(col[i, 0]), float(row[0, j]))
    assert f([a], b).shape == (1,)
    assert f(a, [b, b]).shape == (2,)
    assert isinstance(f(np.array([a]), b), np.ndarray)


def test_broadcasting_one_arg() -> None:
    c = np.array([[0.0, 1.0], [2.0, 3.0]])
    out = amp.steinke_floor(c)
    assert out.shape == (2, 2) and out[0, 0] == 1.0
    assert type(amp.steinke_floor(2)) is float


def test_inputs_not_modified() -> None:
    eps = np.array([0.1, 1.0, 10.0])
    rate = np.array([0.01, 0.5, 1.0])
    saved = eps.copy(), rate.copy()
    for name in EPS_RATE_FUNCTIONS:
        getattr(amp, name)(eps, rate)
    np.testing.assert_array_equal(eps, saved[0])
    np.testing.assert_array_equal(rate, saved[1])


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------

BAD_CALLS = [
    # (function, args, argument named in the message, text of the bad value)
    ("eps_sample", (0.0, 0.5), "eps_target", "0.0"),
    ("eps_sample", (-1.0, 0.5), "eps_target", "-1.0"),
    ("eps_sample", (math.nan, 0.5), "eps_target", "nan"),
    ("eps_sample", (math.inf, 0.5), "eps_target", "inf"),
    ("eps_sample", (1.0, 0.0), "rate", "0.0"),
    ("eps_sample", (1.0, 1.5), "rate", "1.5"),
    ("eps_sample", (1.0, -0.1), "rate", "-0.1"),
    ("eps_sample", (1.0, math.nan), "rate", "nan"),
    ("eps_sample", ([1.0, -2.0, 3.0], 0.5), "eps_target", "-2.0"),
    ("eps_sample", ("abc", 0.5), "eps_target", "abc"),
    ("eps_target", (0.0, 0.5), "eps_sample", "0.0"),
    ("eps_target", (1.0, 2.0), "rate", "2.0"),
    ("eps_target", (-math.inf, 0.5), "eps_sample", "-inf"),
    ("delta_sample", (-0.1, 0.5), "delta_target", "-0.1"),
    ("delta_sample", (1.0, 0.5), "delta_target", "1.0"),
    ("delta_sample", (math.nan, 0.5), "delta_target", "nan"),
    ("delta_sample", (0.1, 0.0), "rate", "0.0"),
    ("delta_target", (-1e-9, 0.5), "delta_sample", "-1e-09"),
    ("delta_target", (math.inf, 0.5), "delta_sample", "inf"),
    ("delta_target", (0.1, 1.0000001), "rate", "1.0000001"),
    ("noise_variance_ratio", (0.0, 0.5), "eps_target", "0.0"),
    ("noise_variance_ratio", (1.0, 0.0), "rate", "0.0"),
    ("noise_variance_gap", (-1.0, 0.5), "eps_target", "-1.0"),
    ("noise_variance_gap", (1.0, 3.0), "rate", "3.0"),
    ("sampling_variance_bound", (math.inf, 0.5), "eps_target", "inf"),
    ("sampling_variance_bound", (1.0, -1.0), "rate", "-1.0"),
    ("rate_for_q", (1.0, 1.0), "q", "1.0"),
    ("rate_for_q", (1.0, -0.1), "q", "-0.1"),
    ("rate_for_q", (1.0, math.nan), "q", "nan"),
    ("rate_for_q", (0.0, 0.5), "eps_target", "0.0"),
    ("steinke_ratio", (0.0, 0.5), "eps", "0.0"),
    ("steinke_ratio", (1.0, 0.0), "p", "0.0"),
    ("steinke_floor", (-1.0,), "c", "-1.0"),
    ("steinke_floor", (math.inf,), "c", "inf"),
    ("steinke_floor", (math.nan,), "c", "nan"),
    ("rate_for_eps_sample", (2.0, 1.0), "eps_sample", "1.0"),
    ("rate_for_eps_sample", ([1.0, 2.0], [1.5, 1.9]), "eps_sample", "1.9"),
    ("rate_for_eps_sample", (0.0, 1.0), "eps_target", "0.0"),
    ("rate_for_eps_sample", (1.0, math.inf), "eps_sample", "inf"),
]


@pytest.mark.parametrize(
    ("name", "args", "argname", "shown"),
    BAD_CALLS,
    ids=[f"{c[0]}-{c[2]}={c[3]}" for c in BAD_CALLS],
)
def test_value_errors(name: str, args: tuple, argname: str, shown: str) -> None:
    with pytest.raises(ValueError) as info:
        getattr(amp, name)(*args)
    message = str(info.value)
    assert argname in message
    assert shown in message


def test_value_error_names_range_and_index() -> None:
    with pytest.raises(ValueError, match=r"rate must be in the interval \(0, 1\]") as info:
        amp.eps_sample(1.0, np.array([[0.5, 0.2], [1.2, 0.0]]))
    assert "(1, 0)" in str(info.value) and "2 of 4" in str(info.value)


def test_value_error_for_shapes_that_do_not_broadcast() -> None:
    with pytest.raises(ValueError, match="cannot be broadcast") as info:
        amp.eps_sample([1.0, 2.0, 3.0], [0.5, 0.1])
    assert "eps_target" in str(info.value) and "rate" in str(info.value)


def test_delta_sample_is_not_capped() -> None:
    # delta_target >= rate: the sample mechanism is unconstrained in delta (value >= 1).
    assert amp.delta_sample(0.2, 0.1) == pytest.approx(2.0)
    assert amp.delta_target(2.0, 0.1) == pytest.approx(0.2)


# ---------------------------------------------------------------------------------------
# Cross-checks against independent libraries (skipped only if they cannot be imported, and
# never under CI, where a missing library fails the test)
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dp():
    """The opendp.prelude module with the features the amplifier needs."""
    prelude = require_module("opendp.prelude")
    prelude.enable_features("contrib", "honest-but-curious")
    return prelude


OPENDP_CASES = [
    # (sample size n, population size N, sum bounds (L, U), Laplace scale)
    (101, 10001, (0.0, 1.0), 0.5),
    (101, 10001, (0.0, 1.0), 10.0),
    (1001, 10001, (0.0, 1.0), 1.0),
    (10, 100, (0.0, 10.0), 5.0),
    (50, 5_000_000, (-1.0, 1.0), 0.2),
    (999, 1000, (0.0, 1.0), 0.1),
    (1000, 1000, (0.0, 1.0), 2.0),
]


@pytest.mark.parametrize(("n", "N", "bounds", "scale"), OPENDP_CASES)
def test_opendp_population_amplification(
    dp, n: int, N: int, bounds: tuple[float, float], scale: float
) -> None:
    # A Laplace-noised bounded sum on a sample of known size n.  The sized input domain
    # tells OpenDP n; make_population_amplification(meas, population_size=N) then
    # amplifies the privacy map with rate n/N.  OpenDP's datasets are compared by the
    # symmetric distance: replacing one record (the neighbouring relation of Hu et al.'s
    # Theorem 1) is one removal plus one addition, i.e. d_in = 2, and the sized sum then
    # has sensitivity U - L, so meas.map(2) = (U - L)/scale (plus OpenDP's tiny
    # float-summation slack).  With d_in = 1 a sized dataset cannot change at all.
    lower, upper = bounds
    space = dp.vector_domain(dp.atom_domain(bounds=bounds), size=n), dp.symmetric_distance()
    meas = space >> dp.t.then_sum() >> dp.m.then_laplace(scale=scale)
    eps_sample = meas.map(2)
    assert eps_sample == pytest.approx((upper - lower) / scale, rel=1e-9)

    amplified = dp.c.make_population_amplification(meas, population_size=N)
    theirs = amplified.map(2)
    ours = amp.eps_target(eps_sample, n / N)
    # OpenDP rounds every operation outwards, so it may only be (slightly) larger.
    assert theirs == pytest.approx(ours, rel=1e-9)
    assert theirs >= ours * (1 - 4 * EPS_MACH)
    assert theirs == pytest.approx(amp.eps_target((upper - lower) / scale, n / N), rel=1e-9)


@pytest.mark.parametrize(("n", "N", "delta"), [(101, 10001, 1e-6), (1001, 10001, 1e-9)])
def test_opendp_population_amplification_approximate_dp(dp, n: int, N: int, delta: float) -> None:
    # (eps, delta) version: Gaussian noise (zCDP) converted to approximate DP at a fixed
    # delta; OpenDP amplifies eps as above and delta to (n/N) delta.
    space = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0)), size=n), dp.symmetric_distance()
    meas = space >> dp.t.then_sum() >> dp.m.then_gaussian(scale=2.0)
    meas = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), delta=delta)
    eps_s, delta_s = meas.map(2)
    eps_t, delta_t = dp.c.make_population_amplification(meas, population_size=N).map(2)
    assert eps_t == pytest.approx(amp.eps_target(eps_s, n / N), rel=1e-9)
    assert delta_t == pytest.approx(amp.delta_target(delta_s, n / N), rel=1e-9)


@pytest.mark.parametrize("scale", [0.2, 0.5, 1.0, 2.0, 10.0])
@pytest.mark.parametrize("p", [0.001, 0.01, 0.1, 0.5, 1.0])
def test_dp_accounting_poisson_subsampled_laplace(scale: float, p: float) -> None:
    # dp_accounting's privacy loss distribution (PLD) of the Laplace mechanism with
    # sensitivity 1 and noise parameter `scale` (so eps = 1/scale) under Poisson
    # subsampling with probability p, for add/remove neighbours (it keeps both
    # directions and reports the worse).  Its epsilon at delta = 1e-12 is, up to the
    # 1e-12 tail, the largest privacy loss, which is exactly log(1 + p(e^eps - 1)).
    # The PLD is discretised pessimistically on a grid of width h, so it may only be
    # larger than the exact value, by at most one grid step.
    pld = require_module("dp_accounting.pld.privacy_loss_distribution")
    h = 1e-4
    dist = pld.from_laplace_mechanism(
        scale, sensitivity=1.0, sampling_prob=p, value_discretization_interval=h
    )
    theirs = dist.get_epsilon_for_delta(1e-12)
    ours = amp.eps_target(1.0 / scale, p)
    assert ours - 1e-9 <= theirs <= ours + h
    assert theirs == pytest.approx(ours, abs=1e-3)


# ---------------------------------------------------------------------------------------
# eps_for_noise_gap: the honest "r within tau of 1" frontier (Hu et al. Figure 5)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("rate", [1e-6, 1e-4, 0.01, 0.3, 0.5, 0.9, 0.999])
@pytest.mark.parametrize("tau", [1e-15, 1e-9, 1e-3, 0.1, 0.5])
def test_eps_for_noise_gap_hits_tau(rate, tau):
    eps = amp.eps_for_noise_gap(rate, tau)
    if eps < 1e3:  # otherwise the gap stays below tau on the whole search interval
        assert amp.noise_variance_gap(eps, rate) == pytest.approx(tau, rel=1e-9)


@pytest.mark.parametrize("rate", [1e-4, 0.1, 0.5])
def test_eps_for_noise_gap_small_tau_limit(rate):
    # 1 - r ~ eps (1/rate - 1) for small eps, so the frontier is tau * rate / (1 - rate).
    tau = 1e-10
    assert amp.eps_for_noise_gap(rate, tau) == pytest.approx(tau * rate / (1 - rate), rel=1e-6)


def test_eps_for_noise_gap_rate_one_is_infinite_and_shapes_broadcast():
    out = amp.eps_for_noise_gap(np.array([[0.1], [1.0]]), np.array([1e-3, 1e-6]))
    assert out.shape == (2, 2)
    assert np.all(np.isinf(out[1])) and np.all(np.isfinite(out[0]))
    assert isinstance(amp.eps_for_noise_gap(0.5, 0.01), float)


@given(
    rate=st.floats(1e-6, 0.99),
    tau_small=st.floats(1e-12, 1e-2),
    factor=st.floats(1.5, 50),
)
def test_eps_for_noise_gap_monotone_in_tau(rate, tau_small, factor):
    tau_big = min(tau_small * factor, 0.99)
    assert amp.eps_for_noise_gap(rate, tau_small) <= amp.eps_for_noise_gap(rate, tau_big)


@pytest.mark.parametrize("tau", [0.0, 1.0, -1e-3, float("nan")])
def test_eps_for_noise_gap_rejects_bad_tau(tau):
    with pytest.raises(ValueError, match="tau"):
        amp.eps_for_noise_gap(0.5, tau)


# ---------------------------------------------------------------------------------------
# sample_size: the one rounding of a rate to a number of records (gains and statistical)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("N", "rate", "n"),
    [(10_001, 0.1, 1000), (10, 1e-9, 1), (10, 1.0, 10), (300, 0.25, 75), (5, 0.5, 2)],
)
def test_sample_size_rounds_and_clamps(N, rate, n):
    assert amp.sample_size(N, rate) == n
    assert type(amp.sample_size(N, rate)) is int


@pytest.mark.parametrize(
    ("N", "rate", "match"),
    [(0, 0.5, "N must be a whole number"), (10.5, 0.5, "N"), (10, 0.0, "rate"), (10, 1.5, "rate")],
)
def test_sample_size_rejects_bad_arguments(N, rate, match):
    with pytest.raises(ValueError, match=match):
        amp.sample_size(N, rate)
