"""ui.game.text: round, score and verdict wording at the edge cases."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np

from core import games
from tests.pages.harness import ROOT
from ui.game import text


def test_round_feedback_and_score_lines() -> None:
    assert text.round_line(2, 10) == "Round 3 of 10"
    assert text.feedback(0, True, True).endswith("you guessed in — right.")
    assert text.feedback(4, False, True) == "Round 5: Alice was **out**, you guessed in — wrong."
    assert text.score_line(0, 0) == "No guesses yet."
    assert text.score_line(2, 3) == "Score: 2 right out of 3 (67 %)."


def test_release_values_and_labels() -> None:
    assert text.release_value(1.264, "count") == "1.26"
    assert text.release_value(0.12345, "share") == "0.123"
    assert text.release_label("share") == "Noisy share"
    assert "out of the 100 planned" in text.release_caption("share", "simple random", 100.0)
    assert "drawn clusters" in text.release_caption("count", "cluster", 1.0)


def test_release_caption_says_why_a_count_can_be_negative() -> None:
    """Issue 27: "Noisy count -0.1" needs a word on where a negative count comes from."""
    count = text.release_caption("count", "simple random", 1.0)
    assert "added to the true count" in count and "negative" in count and "decimals" in count
    assert "below 0 or above 1" in text.release_caption("share", "simple random", 100.0)


def test_rates_without_rounds_of_a_kind() -> None:
    assert text.rate_text(math.nan) == "—"
    line = text.rates_line(math.nan, 0.5, 0, 4)
    assert "Alice was in for 0 rounds: you said *in* in — of them (true-positive rate TPR = —)" in (
        line
    )
    assert "out for 4 rounds: you said *in* in 2 of them" in line
    assert "in for 1 round:" in text.rates_line(1.0, 0.0, 1, 3)
    assert text.missing_rate_note(2, 3) is None
    assert "no round with Alice in" in str(text.missing_rate_note(0, 3))
    assert "no round with Alice out" in str(text.missing_rate_note(3, 0))


def test_verdict_holds_for_simple_random_and_breaks_for_clusters() -> None:
    srs = games.GameSetup("simple random", 20, 25, 100, 1.0)
    cl = games.GameSetup("cluster", 20, 25, 4, 1.0)
    srs_line = text.losses_line(srs.design, 1.0, srs.eps_sample, games.privacy_loss(srs))
    cl_line = text.losses_line(cl.design, 1.0, cl.eps_sample, games.privacy_loss(cl))
    assert srs_line.endswith("The promise holds.")
    assert cl_line.endswith("The promise is broken.")
    assert "Theorem 5.3" in text.explanation("cluster", 1.0, 2.26)
    assert "Theorem 5.3" not in text.explanation("simple random", 1.0, 0.99)


def test_settings_line_names_the_design() -> None:
    line = text.settings_line(games.GameSetup("cluster", 20, 25, 4, 1.0, "typical", 0.3), 10)
    assert line.startswith("Cluster sample: ℓ = 4 of k = 20 clusters of M = 25 (rate 20 %)")
    assert "typical, π = 0.3" in line and line.endswith("10 rounds")


def test_snippet_runs_and_prints_the_exact_loss() -> None:
    setup = games.GameSetup("cluster", 20, 25, 4, 1.0)
    out = subprocess.run(
        [sys.executable, "-c", text.snippet(setup, 3)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert f"exact privacy loss {games.privacy_loss(setup)}" in out


def test_knowledge_hint_gives_the_adversarys_numbers():
    cluster = games.GameSetup("cluster", 20, 25, 10, 1.0, "worst case")
    hint = text.knowledge_hint(cluster)
    assert "26 with Alice in and 25 without her" in hint
    assert "not drawn (chance 50 %), 0 either way" in hint
    scale = 1.0 / cluster.eps_sample
    assert f"scale {text.fmt(scale, 'plain', 3)}" in hint
    srs = games.GameSetup("simple random", 20, 25, 100, 1.0, "worst case", statistic="share")
    hint = text.knowledge_hint(srs)
    assert "0.01 if Alice is in and was drawn (chance 20 % when she is in)" in hint
    assert "0 otherwise" in hint and "÷ planned size" in hint
    typical = games.GameSetup("simple random", 20, 25, 100, 1.0, "typical", 0.3)
    dist = games.count_distribution(typical)
    mean_in = float((dist.support * np.exp(dist.log_in)).sum())
    assert f"averages {mean_in:.1f} with Alice in" in text.knowledge_hint(typical)


def test_explanation_follows_the_exact_loss_and_mentions_luck():
    kept = text.explanation("cluster", 1.0, 0.8)
    assert "keeps the promise" in kept and "leave the shaded region" not in kept
    assert "leave the shaded region" in text.explanation("cluster", 1.0, 1.49)
    assert "luck can put it outside" in text.explanation("simple random", 1.0, 0.9)
