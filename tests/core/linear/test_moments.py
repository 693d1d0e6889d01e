"""Each design's estimator of a total against every sample it can draw (the slow reference)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.designs.frame import Frame
from core.designs.registry import DESIGNS
from core.linear.moments import poisson_moments, srs_moments
from core.linear.sums import group_sums
from tests.core.planner import exact_release as ref

TOY = ref.Toy(
    (
        (0, 0, 0),
        (1, 0, 0),
        (1, 0, 1),
        (3, 0, 1),
        (4, 1, 2),
        (2, 1, 2),
        (5, 1, 3),
    ),
    0.0,
    5.0,
)
LINEAR = [name for name, d in DESIGNS.items() if d.has_linear_moments]
RATES = (0.4, 0.5, 0.75)


def _exact(design: str, frame: Frame, y: np.ndarray, rate: float) -> tuple[float, float] | None:
    """Mean and variance of ``w Σ_S y`` over every sample, by enumeration."""
    d = DESIGNS[design]
    point = d.point(frame, rate)
    if point is None:
        return None
    w = d.linear_moments(frame, group_sums(frame, y), point).weight
    law = ref.ENUMERATORS[design](frame, point)
    est = np.array([w * y[list(idx)].sum() for idx, _ in law])
    prob = np.array([p for _, p in law])
    assert prob.sum() == pytest.approx(1.0)
    mean = float(prob @ est)
    return mean, float(prob @ (est - mean) ** 2)


def test_every_planner_design_with_a_closed_form_is_enumerated() -> None:
    assert set(LINEAR) == {
        "census",
        "srs",
        "poisson",
        "stratified_proportional",
        "cluster",
        "poisson_cluster",
    }


@pytest.mark.parametrize("design", LINEAR)
@pytest.mark.parametrize("rate", RATES)
@pytest.mark.parametrize("which", ["values", "count"])
def test_estimator_is_unbiased_with_the_stated_variance(
    design: str, rate: float, which: str
) -> None:
    frame = TOY.frame()
    y = frame.values.copy() if which == "values" else (frame.values >= 2).astype(float)
    got = _exact(design, frame, y, rate)
    assert got is not None, "every rate here has a point on the toy"
    mean, var = got
    d = DESIGNS[design]
    moments = d.linear_moments(frame, group_sums(frame, y), d.point(frame, rate))
    assert mean == pytest.approx(y.sum(), rel=1e-12, abs=1e-12)
    assert moments.variance[0] == pytest.approx(var, rel=1e-9, abs=1e-9)


def test_several_variables_at_once_equal_one_at_a_time() -> None:
    frame = TOY.frame()
    ys = np.stack([frame.values, (frame.values <= 1).astype(float), np.ones(frame.N)])
    together = group_sums(frame, ys)
    for design in LINEAR:
        d = DESIGNS[design]
        point = d.point(frame, 0.5)
        assert point is not None
        both = d.linear_moments(frame, together, point).variance
        for v, y in enumerate(ys):
            alone = d.linear_moments(frame, group_sums(frame, y), point).variance[0]
            assert both[v] == pytest.approx(alone, rel=1e-12, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    n_pop=st.integers(5, 400),
    share=st.floats(0.01, 1.0),
    ones=st.floats(0.0, 1.0),
)
def test_variance_falls_with_the_rate_and_vanishes_at_the_census(
    n_pop: int, share: float, ones: float
) -> None:
    y = (np.arange(n_pop) < round(ones * n_pop)).astype(float)
    frame = Frame.of(ref.Toy(tuple((float(v), 0, 0) for v in y), 0.0, 1.0).population())
    sums = group_sums(frame, y)
    rates = np.linspace(0.05, 1.0, 12)
    poisson = [poisson_moments(sums, r).variance[0] for r in rates]
    assert np.all(np.diff(poisson) <= 1e-9 * max(poisson[0], 1.0))
    assert poisson[-1] == 0.0
    n = max(1, round(share * n_pop))
    assert srs_moments(sums, n_pop).variance[0] == pytest.approx(0.0, abs=1e-9)
    assert (
        srs_moments(sums, n).variance[0] >= srs_moments(sums, min(n_pop, n + 1)).variance[0] - 1e-9
    )
