"""core.planner.exact: the census and the means without Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.designs.frame import Frame
from core.designs.registry import DESIGNS
from core.planner import exact
from core.planner.simulate import PointBudget
from core.population import Population


def test_srs_mean_row_is_hu_et_al_equation_7():
    values = np.linspace(0.0, 10.0, 1_001)
    frame = Frame.of(Population("t", values, 0.0, 10.0))
    srs = DESIGNS["srs"]
    point = srs.point(frame, 0.1)
    assert point is not None
    assert exact.has_closed_form(srs, "laplace") and not exact.has_closed_form(srs, "exponential")
    row = exact.mean_row(srs, frame, PointBudget(point, {"laplace": 2.0}, 1e-6, {}), "laplace")
    n, N = point.n, frame.N
    sampling = (1 - n / N) * values.var(ddof=1) / n
    noise = 2 * (10.0 / (2.0 * n)) ** 2
    assert row["rmse"] == pytest.approx(math.sqrt(sampling + noise), rel=1e-12)
    assert row["error_95_method"] == "normal approximation of the sampling error"
