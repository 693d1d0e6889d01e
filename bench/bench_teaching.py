"""Timings of the teaching pages: the membership game's core and the Lessons page.

Run from the repository root:  .venv/bin/python -m bench.bench_teaching

1. ``core.games`` per setup: the exact privacy loss, the automatic adversary's 10,000 rounds
   (play, likelihood-ratio test, empirical ROC) and the exact ROC of that test — the work
   behind the game page's "Run the automatic adversary" button (best of 3);
2. ``core.risk.posterior_bound`` on a 10⁶-point grid (the odds tab's table and chart);
3. a whole rerun of the Lessons page under AppTest when a student moves to each step of
   each lesson (the reveal's chart computed from a cold cache, then cached), and of the
   Membership game page after a guess.

Plain prints, no asserts.
"""

from __future__ import annotations

import time

import numpy as np

from bench._timing import best_seconds, fmt_seconds, load_line, rerun_ms
from core import games, risk
from tests.pages.harness import open_page
from ui.lessons.content import LESSONS
from ui.lessons.links import LESSON_KEY, STEP_KEY
from ui.lessons.views import prediction_key

SETUPS: dict[str, games.GameSetup] = {
    "simple random, worst case, N = 500, n = 100": games.GameSetup(
        "simple random", 20, 25, 100, 1.0, "worst case"
    ),
    "cluster, worst case, k = 20, M = 25, l = 10": games.GameSetup(
        "cluster", 20, 25, 10, 1.0, "worst case"
    ),
    "cluster, typical, k = 20, M = 25, l = 10": games.GameSetup(
        "cluster", 20, 25, 10, 1.0, "typical", 0.3
    ),
    "simple random, typical, N = 10,000, n = 5,000": games.GameSetup(
        "simple random", 100, 100, 5000, 1.0, "typical", 0.3
    ),
    "cluster, typical, k = 100, M = 100, l = 50": games.GameSetup(
        "cluster", 100, 100, 50, 1.0, "typical", 0.3
    ),
}


def _adversary(setup: games.GameSetup) -> None:
    rng = np.random.default_rng(0)
    secrets, releases = games.play_rounds(setup, rng, 10_000)
    games.empirical_roc(games.likelihood_ratio_test(setup, releases), secrets)


def bench_games() -> None:
    print("1. core.games (best of 3)")
    print(f"   {'setup':<48}{'loss':>10}{'adversary':>12}{'exact ROC':>12}")
    for name, setup in SETUPS.items():
        loss = best_seconds(lambda s=setup: games.privacy_loss(s), 3)
        adversary = best_seconds(lambda s=setup: _adversary(s), 3)
        exact = best_seconds(lambda s=setup: games.exact_roc(s), 3)
        print(
            f"   {name:<48}{fmt_seconds(loss):>10}{fmt_seconds(adversary):>12}"
            f"{fmt_seconds(exact):>12}"
        )


def bench_odds() -> None:
    eps = np.geomspace(1e-3, 50, 1000)[:, None]
    prior = np.geomspace(1e-6, 0.5, 1000)[None, :]
    seconds = best_seconds(lambda: risk.posterior_bound(eps, prior), 5)
    print(f"\n2. posterior_bound on 1000 x 1000 (eps, prior) points: {fmt_seconds(seconds)}")


def bench_pages() -> None:
    print("\n3. page reruns under AppTest (wall ms)")
    print("   a student opens each lesson step by its link, then commits a prediction (the")
    print("   reveal's chart is computed then; each step's first visit, so a cold cache)")
    for lesson in LESSONS:
        for index, step in enumerate(lesson.steps):
            query = {LESSON_KEY: lesson.label, STEP_KEY: str(index + 1)}
            t0 = time.perf_counter()
            at = open_page("app_pages/lessons.py", query)
            opened = (time.perf_counter() - t0) * 1000
            key = prediction_key(lesson, index)
            wall, _ = rerun_ms(at, lambda app, k=key, c=step.correct: app.radio(key=k).set_value(c))
            print(
                f"   lessons  {lesson.label:<14} step {index + 1}: open {opened:6.0f} ms, "
                f"predict and reveal {wall:6.0f} ms"
            )
    game = open_page("app_pages/game.py")
    wall, _ = rerun_ms(game, lambda app: app.button(key="game_in").click())
    print(f"   game     a guess ('In'): {wall:6.0f} ms")


def main() -> None:
    print(load_line())
    bench_games()
    bench_odds()
    bench_pages()


if __name__ == "__main__":
    main()
