"""core.designs.cluster: ℓ of k clusters, every record of the drawn ones."""

from __future__ import annotations

import numpy as np
import pytest

from core.designs import ClusterSampling
from core.designs.cluster import ClusterDesign, missing_clusters
from core.designs.frame import Frame
from core.population import Population

CODES = np.repeat(np.arange(6), [3, 5, 2, 7, 4, 4])
FRAME = Frame.of(Population("t", np.linspace(0, 1, CODES.size), 0.0, 1.0, clusters=CODES))


def test_rate_means_round_r_k_clusters_and_theorem_5_2():
    d = ClusterDesign()
    p = d.point(FRAME, 0.34)
    assert p is not None and p.clusters_sampled == 2 and p.rate == pytest.approx(2 / 6)
    theorem = ClusterSampling(FRAME.cluster_sizes, 2)
    assert d.amplified(0.7, p) == pytest.approx(float(theorem.eps_target(0.7)))
    assert d.theorem_keywords(FRAME, 0.34)["clusters_sampled"] == 2


def test_masks_and_windows_keep_whole_clusters():
    d = ClusterDesign()
    p = d.point(FRAME, 0.34)
    assert p is not None
    rng = np.random.default_rng(0)
    for row in d.mask(FRAME, d.draw_keys(FRAME, 30, rng), p):
        kept = np.unique(CODES[row])
        assert kept.size == 2 and row.sum() == np.isin(CODES, kept).sum()
    sizes = d.window_draw(FRAME, p, 30, rng).sizes
    pair_sums = {
        a + b for i, a in enumerate([3, 5, 2, 7, 4, 4]) for b in [3, 5, 2, 7, 4, 4][i + 1 :]
    }
    assert set(sizes.tolist()) <= pair_sums


def test_missing_clusters_are_said_in_words():
    plain = Frame.of(Population("t", np.linspace(0, 1, 10), 0.0, 1.0))
    assert "no cluster labels" in missing_clusters(plain)
    assert missing_clusters(FRAME) == ""
