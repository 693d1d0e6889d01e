"""ui.game.cache: the cached rounds and adversary are core.games' numbers for the same seed."""

from __future__ import annotations

import numpy as np

from core import games
from ui.game import cache

SETUP = games.GameSetup("cluster", 20, 25, 4, 1.0, "typical", 0.3, "share", 2)


def test_rounds_are_core_rounds_of_the_game_stream() -> None:
    secrets, releases = cache.game_rounds(cache.setup_key(SETUP), 2, 3, 6)
    want = games.play_rounds(SETUP, np.random.default_rng([2, 3]), 6)
    assert secrets == list(want[0])
    np.testing.assert_array_equal(releases, want[1])
    other = cache.game_rounds(cache.setup_key(SETUP), 2, 4, 6)[1]
    assert other != releases


def test_adversary_curves_are_thinned_with_their_ends_kept() -> None:
    frame = cache.adversary_curves(cache.setup_key(SETUP), 2)
    for curve in ("empirical", "exact"):
        part = frame[frame["curve"] == curve]
        assert 2 <= len(part) <= cache.MAX_CURVE_POINTS + 1
        assert part["fpr"].iloc[0] == 0.0 and part["tpr"].iloc[0] == 0.0
        assert part["fpr"].iloc[-1] == 1.0 and part["tpr"].iloc[-1] == 1.0
        assert np.all(np.diff(part["fpr"]) >= 0)


def test_losses() -> None:
    loss = cache.losses(cache.setup_key(SETUP))
    assert loss["exact"] == games.privacy_loss(SETUP)
    assert loss["cluster"] == games.cluster_bound_eps(SETUP)
    srs = games.GameSetup("simple random", 20, 25, 100, 1.0)
    assert "cluster" not in cache.losses(cache.setup_key(srs))


def test_exact_curve_starts_with_its_straight_first_segment() -> None:
    worst = games.GameSetup("cluster", 20, 25, 10, 1.0)
    frame = cache.adversary_curves(cache.setup_key(worst), 0)
    exact = frame[frame["curve"] == "exact"]
    fpr, tpr = exact["fpr"].to_numpy(), exact["tpr"].to_numpy()
    small = (fpr > 0) & (fpr < 1e-3)
    assert small.sum() >= 10  # the line from the origin is drawn on a log axis too
    np.testing.assert_allclose(
        tpr[small] / fpr[small], np.exp(games.privacy_loss(worst)), rtol=1e-6
    )
