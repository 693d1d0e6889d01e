"""ui.gains.cache: the cached tables equal core.gains / core.illustrations for the population.

Called outside a Streamlit session (st.cache_data then only warns). Break caught
(tests/break_checks.py ``gains-cache-simulation-wrong-n``): the simulation check simulates
a sample one record smaller than the formula's n.
"""

from __future__ import annotations

import pytest

from core import gains, illustrations
from core.populations import make_builtin
from ui.gains import cache

POP = make_builtin("beta", seed=2, size=301)


def test_mean_table_is_cores_mean_gain_table():
    table = cache.mean_table(POP.content_hash, POP, (0.5, 1.0), (0.1, 0.5))
    expected = gains.mean_gain_table(POP.values, POP.lower, POP.upper, (0.5, 1.0), (0.1, 0.5))
    assert table.equals(expected)


def test_mean_simulation_check_compares_eq_7_with_cores_simulation():
    check = cache.mean_simulation_check(POP.content_hash, POP, 1.0, (30, 150), 400, 5)
    s2 = float(POP.values.var(ddof=1))
    for row in check.to_dict("records"):
        n = row["n"]
        formula = float(gains.mean_variance_sample(1.0, n, POP.size, s2, POP.lower, POP.upper))
        simulated = gains.simulate_mean_release(POP.values, POP.lower, POP.upper, 1.0, n, 400, 5)
        assert row["V_n, eq. (7)"] == pytest.approx(formula)
        assert row["V_n, simulated"] == pytest.approx(float(simulated))
        assert row["simulated ÷ formula"] == pytest.approx(float(simulated) / formula)
        assert row["n/N"] == n / POP.size


def test_release_illustrations_and_sample_medians_are_cores():
    out = cache.release_illustrations(POP.content_hash, POP, (0.5, 2.0), 20, 1e-4, 3)
    assert out["means"].equals(
        illustrations.privatized_means(POP.values, POP.lower, POP.upper, (0.5, 2.0), 20, 3)
    )
    smooth = illustrations.privatized_medians(
        POP.values, POP.lower, POP.upper, (0.5, 2.0), 20, 1e-4, 3, sensitivity="smooth"
    )
    assert out["medians_smooth"].equals(smooth)
    medians = cache.sample_medians(POP.content_hash, POP, (0.1, 0.5), 10, 4)
    assert medians.equals(illustrations.sample_medians(POP.values, (0.1, 0.5), 10, 4))
