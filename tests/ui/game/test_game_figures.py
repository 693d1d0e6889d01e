"""ui.game.figures: the ROC chart's data are core.games' numbers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from core import games
from ui.game import figures


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def test_bound_region_is_the_tradeoff_bound_and_the_data_match_the_traces() -> None:
    fig, data = figures.roc_figure(
        eps_target=1.0, cluster_eps=None, student=(0.2, 0.4), adversary=None
    )
    bound = _trace(fig, "allowed by ε_target = 1")
    np.testing.assert_allclose(bound.y, games.tradeoff_bound(1.0, 0.0, bound.x))
    assert bound.fill == "tozeroy"
    you = _trace(fig, "you")
    assert (you.x[0], you.y[0]) == (0.2, 0.4)
    assert set(data["series"]) == {"allowed by ε_target = 1", "you"}
    assert not any(t.name.startswith("what clusters") for t in fig.data)
    assert fig.layout.xaxis.title.text == "false-positive rate FPR"
    assert fig.layout.yaxis.title.text == "true-positive rate TPR"


def test_cluster_line_adversary_curves_and_missing_student_point() -> None:
    adversary = pd.DataFrame(
        {
            "curve": ["empirical"] * 3 + ["exact"] * 3,
            "fpr": [0.0, 0.3, 1.0, 0.0, 0.5, 1.0],
            "tpr": [0.0, 0.6, 1.0, 0.0, 0.7, 1.0],
        }
    )
    fig, data = figures.roc_figure(
        eps_target=1.0, cluster_eps=2.5, student=(math.nan, 0.5), adversary=adversary
    )
    line = _trace(fig, "what clusters allow: ε = 2.5 (Thm 5.3)")
    np.testing.assert_allclose(line.y, games.tradeoff_bound(2.5, 0.0, line.x))
    assert list(_trace(fig, "automatic adversary, 10,000 rounds").y) == [0.0, 0.6, 1.0]
    assert list(_trace(fig, "best test, exact").x) == [0.0, 0.5, 1.0]
    assert "you" not in {t.name for t in fig.data}
    assert len(data) == 2 * len(figures.FPR_GRID) + 6


def test_log_axis_option() -> None:
    fig, _ = figures.roc_figure(
        eps_target=1.0, cluster_eps=None, student=(0.0, 0.5), adversary=None, log_fpr=True
    )
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.yaxis.type == "linear"
