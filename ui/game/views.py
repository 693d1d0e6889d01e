"""Views of the Membership game page: the rounds, the score and the ROC chart.

The student's guesses live in ``st.session_state`` (never in the URL); every control and the
seed are in the URL, so the same link replays the same secrets and releases.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from core import games
from ui.charts import chart_block, reproduce
from ui.game import cache, text
from ui.game.figures import roc_figure
from ui.widgets import bound_toggle

#: Session-state key of the student's game: identity, game number, guesses, adversary shown.
STATE_KEY = "_game_progress"


@dataclass(frozen=True)
class GameInputs:
    """The page's inputs: the game's setup, the sidebar seed and the number of rounds."""

    setup: games.GameSetup
    seed: int
    rounds: int

    @property
    def identity(self) -> tuple[Any, ...]:
        """What a game depends on; a change starts a new game."""
        return (cache.setup_key(self.setup), self.seed, self.rounds)


def progress(inputs: GameInputs) -> dict[str, Any]:
    """The student's progress for these inputs, reset when the controls or the seed change."""
    state = st.session_state.get(STATE_KEY)
    if not isinstance(state, dict) or state.get("identity") != inputs.identity:
        state = {"identity": inputs.identity, "game": 1, "guesses": [], "auto": False}
        st.session_state[STATE_KEY] = state
    return state


def _guess(identity: tuple[Any, ...], rounds: int, value: bool) -> None:
    state = st.session_state.get(STATE_KEY)
    if isinstance(state, dict) and state["identity"] == identity and len(state["guesses"]) < rounds:
        state["guesses"] = [*state["guesses"], value]


def _play_again(identity: tuple[Any, ...]) -> None:
    state = st.session_state.get(STATE_KEY)
    if isinstance(state, dict) and state["identity"] == identity:
        state.update(game=state["game"] + 1, guesses=[], auto=False)


def _show_adversary(identity: tuple[Any, ...]) -> None:
    state = st.session_state.get(STATE_KEY)
    if isinstance(state, dict) and state["identity"] == identity:
        state["auto"] = True


def game_view(inputs: GameInputs) -> None:
    """The current round (release and the two buttons), the last feedback and the score."""
    state = progress(inputs)
    setup, rounds = inputs.setup, inputs.rounds
    key = cache.setup_key(setup)
    secrets, releases = cache.game_rounds(key, inputs.seed, state["game"], rounds)
    guesses: list[bool] = state["guesses"]
    played = len(guesses)
    right = sum(s == g for s, g in zip(secrets, guesses, strict=False))
    if played:
        i = played - 1
        message = text.feedback(i, secrets[i], guesses[i])
        if secrets[i] == guesses[i]:
            st.success(message, icon=":material/check_circle:")
        else:
            st.warning(message, icon=":material/cancel:")
    st.markdown(text.score_line(right, played))
    if played < rounds:
        with st.container(border=True):
            st.markdown(f"#### {text.round_line(played, rounds)}")
            st.caption(text.release_caption(setup.statistic, setup.design, setup.scale))
            st.metric(
                text.release_label(setup.statistic),
                text.release_value(releases[played], setup.statistic),
            )
            st.caption(text.knowledge_hint(setup, cache.expected_counts(key)))
            st.markdown("Was Alice's record in the population?")
            c_in, c_out = st.columns(2)
            c_in.button(
                "In",
                key="game_in",
                type="primary",
                width="stretch",
                icon=":material/person_check:",
                on_click=_guess,
                args=(inputs.identity, rounds, True),
            )
            c_out.button(
                "Out",
                key="game_out",
                type="primary",
                width="stretch",
                icon=":material/person_off:",
                on_click=_guess,
                args=(inputs.identity, rounds, False),
            )
    if played < rounds:
        st.info(
            "The chart of your guesses against what ε allows appears after the last round.",
            icon=":material/info:",
        )
        return
    results_view(inputs, secrets, guesses)


def results_view(inputs: GameInputs, secrets: list[bool], guesses: list[bool]) -> None:
    """After the last round: the rates, the losses, the ROC chart and the adversary."""
    state = progress(inputs)
    setup = inputs.setup
    key = cache.setup_key(setup)
    rates = games.student_rates(secrets, guesses)
    loss = cache.losses(key)
    st.markdown(text.rates_line(rates.tpr, rates.fpr, rates.rounds_in, rates.rounds_out))
    missing = text.missing_rate_note(rates.rounds_in, rates.rounds_out)
    if missing:
        st.info(missing, icon=":material/info:")
    st.markdown(text.losses_line(setup.design, setup.eps_target, loss["eps_sample"], loss["exact"]))
    b1, b2 = st.columns(2)
    b1.button(
        "Run the automatic adversary (10,000 rounds)",
        key="game_auto",
        width="stretch",
        icon=":material/smart_toy:",
        help=text.ADVERSARY_HELP,
        on_click=_show_adversary,
        args=(inputs.identity,),
    )
    b2.button(
        "Play again",
        key="game_again",
        width="stretch",
        icon=":material/replay:",
        help="A new game: new coins and releases (the same controls).",
        on_click=_play_again,
        args=(inputs.identity,),
    )
    adversary = cache.adversary_curves(key, inputs.seed) if state["auto"] else None
    log_fpr = bound_toggle(
        "Logarithmic FPR axis",
        "game_log",
        default=False,
        help="Small false-positive rates, where the promise e^ε·FPR is tightest, spread out.",
    )
    fig, data = roc_figure(
        eps_target=setup.eps_target,
        cluster_eps=loss.get("cluster"),
        student=(rates.fpr, rates.tpr),
        adversary=adversary,
        log_fpr=log_fpr,
    )
    chart_block(
        fig,
        data,
        key="game_roc",
        explanation=text.explanation(setup.design, setup.eps_target, loss["exact"]),
        formulas=text.FORMULAS,
    )
    st.caption(text.FORMULA_WORDS)
    with st.expander("Your rounds", icon=":material/list:"):
        st.dataframe(
            pd.DataFrame(
                {
                    "round": range(1, len(guesses) + 1),
                    "Alice": ["in" if s else "out" for s in secrets],
                    "your guess": ["in" if g else "out" for g in guesses],
                }
            ),
            hide_index=True,
        )
    reproduce(text.snippet(setup, inputs.seed), key="game")
