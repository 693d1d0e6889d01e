"""The Membership game page through the router: rounds, score, chart, adversary, URL state."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core import games
from tests.pages.harness import array, charts, open_page, trace_names
from ui.game import text

PAGE = "app_pages/game.py"
SHORT = {"game_rounds": "5"}  # seed 0: four rounds out, then one in


def release_shown(at: AppTest) -> str:
    return str(at.metric[0].value)


def round_heading(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("#### Round"))


def score(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith(("Score", "No guesses")))


def play(at: AppTest, guesses: list[bool]) -> AppTest:
    for guess in guesses:
        at.button(key="game_in" if guess else "game_out").click().run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def no_problems(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    # the only warnings allowed here are the "wrong guess" feedback
    assert all("you guessed" in str(w.value) for w in at.warning), [w.value for w in at.warning]


def test_default_page_shows_round_one_with_two_buttons() -> None:
    at = open_page(PAGE)
    no_problems(at)
    assert round_heading(at) == "#### Round 1 of 10"
    assert {b.key for b in at.button} >= {"game_in", "game_out"}
    assert score(at) == "No guesses yet."
    assert not charts(at)
    # an info box says where the chart will be (the classroom driver waits for a chart or one)
    assert any("appears after the last round" in i.value for i in at.info)


def test_guesses_advance_rounds_and_the_score_follows_the_secrets() -> None:
    at = open_page(PAGE)
    setup = games.GameSetup("simple random", 20, 25, 100, 1.0)
    secrets, releases = games.play_rounds(setup, np.random.default_rng([0, 1]), 10)
    assert release_shown(at) == text.release_value(releases[0], "count")
    play(at, [True])
    assert round_heading(at) == "#### Round 2 of 10"
    assert release_shown(at) == text.release_value(releases[1], "count")
    right = int(secrets[0])
    assert score(at).startswith(f"Score: {right} right out of 1")
    feedback = [*at.success, *at.warning]
    assert len(feedback) == 1 and "Round 1: Alice was" in feedback[0].value
    play(at, [not secrets[1]])
    assert score(at).startswith(f"Score: {right} right out of 2")
    assert at.warning and "wrong" in at.warning[0].value


def test_after_the_last_round_the_chart_shows_the_students_point() -> None:
    at = play(open_page(PAGE, SHORT), [True, False, True, False, True])
    no_problems(at)
    assert not any(b.key == "game_in" for b in at.button)
    names = trace_names(at)
    assert {"you", "allowed by ε_target = 1"} <= names
    assert "automatic adversary, 10,000 rounds" not in names
    setup = games.GameSetup("simple random", 20, 25, 100, 1.0)
    secrets, _ = games.play_rounds(setup, np.random.default_rng([0, 1]), 5)
    rates = games.student_rates(secrets, [True, False, True, False, True])
    you = next(t for t in charts(at)[0]["data"] if t.get("name") == "you")
    got = (float(array(you["x"])[0]), float(array(you["y"])[0]))
    want = (rates.fpr, rates.tpr)
    assert np.allclose(got, want)


def test_a_rate_without_rounds_of_its_kind_is_explained_not_drawn() -> None:
    at = play(open_page(PAGE, {"game_rounds": "3"}), [True, False, True])  # all three out
    no_problems(at)
    assert "you" not in trace_names(at)
    assert any("no round with Alice in" in i.value for i in at.info)


def test_automatic_adversary_draws_its_curves_under_the_bound() -> None:
    at = play(open_page(PAGE, SHORT), [True] * 5)
    at.button(key="game_auto").click().run()
    no_problems(at)
    data = {t["name"]: t for t in charts(at)[0]["data"]}
    assert {"automatic adversary, 10,000 rounds", "best test, exact"} <= set(data)
    exact = data["best test, exact"]
    fpr, tpr = array(exact["x"]), array(exact["y"])
    assert np.all(tpr <= games.tradeoff_bound(1.0, 0.0, fpr) + 1e-9)


def test_cluster_design_adds_the_theorem_5_3_line_and_breaks_the_promise() -> None:
    at = play(open_page(PAGE, {**SHORT, "game_design": "Cluster"}), [False] * 5)
    no_problems(at)
    assert any(name.startswith("what clusters allow") for name in trace_names(at))
    assert any("The promise is broken." in m.value for m in at.markdown)
    at.toggle(key="game_log").set_value(True).run()
    no_problems(at)
    assert charts(at)[0]["layout"]["xaxis"]["type"] == "log"


def test_play_again_starts_a_new_game() -> None:
    at = play(open_page(PAGE, SHORT), [True] * 5)
    first_release = text.release_value(
        games.play_rounds(
            games.GameSetup("simple random", 20, 25, 100, 1.0), np.random.default_rng([0, 1]), 5
        )[1][0],
        "count",
    )
    at.button(key="game_again").click().run()
    no_problems(at)
    assert round_heading(at) == "#### Round 1 of 5"
    assert score(at) == "No guesses yet."
    assert release_shown(at) != first_release


def test_a_link_reproduces_the_controls_and_the_rounds() -> None:
    query = {
        "game_design": "Cluster",
        "game_statistic": "Share",
        "game_eps": "2.0",
        "game_k": "30",
        "game_size": "10",
        "game_ell": "5",
        "game_neighbour": "Typical",
        "game_pi": "0.5",
        "game_rounds": "4",
        "seed": "7",
    }
    at = open_page(PAGE, query)
    no_problems(at)
    assert at.radio(key="game_design").value == "cluster"
    assert at.radio(key="game_statistic").value == "share"
    assert at.number_input(key="game_eps").value == 2.0
    assert at.number_input(key="game_k").value == 30
    assert at.number_input(key="game_size").value == 10
    assert at.number_input(key="game_ell").value == 5
    assert at.selectbox(key="game_neighbour").value == "typical"
    assert at.number_input(key="game_pi").value == 0.5
    assert at.number_input(key="game_rounds").value == 4
    setup = games.GameSetup("cluster", 30, 10, 5, 2.0, "typical", 0.5, "share", 7)
    assert text.release_label("share") == at.metric[0].label
    _, releases = games.play_rounds(setup, np.random.default_rng([7, 1]), 4)
    assert round_heading(at) == "#### Round 1 of 4"
    assert release_shown(at) == text.release_value(releases[0], "share")
    again = open_page(PAGE, query)
    assert release_shown(again) == release_shown(at)


def test_controls_change_the_release() -> None:
    base = release_shown(open_page(PAGE))
    assert release_shown(open_page(PAGE, {"game_eps": "0.1"})) != base
    assert release_shown(open_page(PAGE, {"seed": "5"})) != base


@pytest.mark.parametrize(
    "query",
    [
        {"game_eps": "1e-06"},
        {"game_eps": "50.0"},
        {"game_k": "2", "game_size": "1", "game_n": "2"},
        {"game_design": "Cluster", "game_eps": "50.0", "game_k": "100", "game_size": "100"},
        {"game_design": "Cluster", "game_eps": "1e-06", "game_neighbour": "Typical"},
    ],
)
def test_extreme_settings_play_to_the_chart_without_a_traceback(query) -> None:
    at = play(open_page(PAGE, {**query, **SHORT}), [True, False, True, False, True])
    at.button(key="game_auto").click().run()
    no_problems(at)
    assert "automatic adversary, 10,000 rounds" in trace_names(at)


def test_too_large_samples_get_a_message_and_a_fallback() -> None:
    at = open_page(PAGE, {"game_k": "2", "game_size": "3", "game_n": "50"})
    assert not at.exception and not at.error
    assert any("exceeds the population size N = 6; using n = N" in w.value for w in at.warning)
    assert any("n = 6 of N = 6" in c.value for c in at.caption)
    at = open_page(PAGE, {"game_design": "Cluster", "game_k": "5", "game_ell": "9"})
    assert not at.exception and not at.error
    assert any("playing with ℓ = k − 1 = 4" in w.value for w in at.warning)


def test_round_says_why_the_noisy_count_can_be_negative():
    """Issue 27: the caption next to "Noisy count" explains negative and fractional values."""
    at = open_page(PAGE)
    assert any(m.label == "Noisy count" for m in at.metric)
    assert any("can be negative or have decimals" in c.value for c in at.caption)
