"""Tests for core.r_replay: the paper's bimodal draw replayed from R's generator."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.builtins import make_builtin
from core.population import Population
from core.r_replay import paper_bimodal_population


def _gap_at_median(pop: Population) -> tuple[float, float]:
    m = (pop.size - 1) // 2
    return float(pop.values[m]), float(pop.values[m + 1] - pop.values[m])


def test_paper_bimodal_population_matches_r():
    """Values printed by R 4.2.2 for the code of Hu et al. Appendix B with set.seed(123)."""
    pop = paper_bimodal_population()
    assert pop.size == 10_001
    median = float(np.median(pop.values))
    assert round(median, 2) == 0.21
    assert median == 0.21092464078532763
    r_values = [
        0.030466029235499847,  # y_N[1]
        0.040730604026250790,  # y_N[2]
        0.100311823348903567,  # y_N[5001], last draw of the first component
        0.876595525800023201,  # y_N[5002]
        0.648862169711180381,  # y_N[10001]
    ]
    assert np.all(np.isin(r_values, pop.values))
    assert math.isclose(float(pop.values.sum()), 3753.4482483481725, rel_tol=1e-12)
    m, gap = _gap_at_median(pop)
    assert m == median and gap > 0.25
    assert paper_bimodal_population().content_hash == pop.content_hash


def test_bimodal_paper_builtin_is_the_papers_draw():
    pop = make_builtin("bimodal_paper", seed=5)
    assert pop.content_hash == paper_bimodal_population().content_hash
    assert pop.values[(pop.size - 1) // 2] == pytest.approx(0.2109, abs=5e-5)
