"""Texts of the Release planner's Accuracy first tab: the answer of the search for the smallest
ε_target, its progress bar and how the default target error was chosen.

Pure functions of numbers (no Streamlit); the words every tab shares are in
:mod:`ui.planner.text`.
"""

from __future__ import annotations

import math

import pandas as pd

from core.accounting.zcdp import CONVERSION
from core.planner import (
    SearchProgress,
)
from ui.format import fmt
from ui.planner.text import (
    bound_words,
    plan_phrase,
    resolution_words,
    share_words,
)

#: Share of the population's interquartile range used as the default target error.
TARGET_IQR_SHARE = 0.05


def accuracy_rho_words(rho_target: float) -> str:
    """The accuracy-first answer's ρ, under a ρ-zCDP promise."""
    return (
        f"As ρ-zCDP that is **ρ = {fmt(rho_target, 'guarantee', 4)}** (ρ = ε·tanh(ε/2), "
        f"the {CONVERSION}); only pure mechanisms were searched."
    )


#: The accuracy-first tab's way out of a useless plan: the user set the bound.
ASK_SMALLER_BOUND = "Ask for a smaller 95 % error bound above"


def accuracy_answer(
    target: float, eps_target: float, feasible: bool, best: pd.Series | None, eps_max: float
) -> str:
    """The answer of the accuracy-first search in plain words.

    ``best`` is the best row of the search's plan: at ``eps_target`` when the bound is
    reached; otherwise at ``eps_max``, the largest ε_target searched, where it is the best
    bound within reach (said with its ε_target, so the user knows what to ask for).
    """
    if not feasible or best is None or not math.isfinite(eps_target):
        head = (
            f"No plan reaches a 95 % error bound of ±{bound_words(target)} with ε_target up to "
            f"{fmt(eps_max, 'guarantee')}: even a weak guarantee leaves more sampling or noise "
            "error than that."
        )
        if best is None or not math.isfinite(float(best["error_95"])):
            return f"{head} Allow a wider bound."
        reached = float(best["error_95"])
        return (
            f"{head} The best bound within reach is **±{bound_words(reached)}**, at "
            f"ε_target = {fmt(eps_max, 'guarantee')} (the largest the search tries), "
            f"privatising {plan_phrase(best)}. Allow a wider bound; the wider it is, the "
            "stronger the guarantee that reaches it."
        )
    return (
        f"The smallest ε_target that brings the 95 % error bound to ±{bound_words(target)} or "
        f"below is **{fmt(eps_target, 'guarantee')}**, privatising {plan_phrase(best)} "
        f"(its bound: ±{bound_words(float(best['error_95']))})."
    )


#: The progress bar's words before the accuracy-first search has tried an ε_target.
SEARCH_STARTS = "Searching for the smallest ε_target: trying ε_target = 1 first…"


def search_progress(progress: SearchProgress, target: float) -> tuple[float, str]:
    """The fraction done and the words of the accuracy-first progress bar."""
    fraction = min(1.0, progress.done / progress.total)
    if progress.stage == "plan":
        return fraction, (
            f"Found ε_target = {fmt(progress.eps_target, 'guarantee')}; planning every design "
            "there for the chart…"
        )
    verdict = "reaches" if progress.best_error_95 <= target else "misses"
    plans = "plan" if progress.rows == 1 else "plans"
    return fraction, (
        f"Tried ε_target = {fmt(progress.eps_target, 'guarantee')}: the best of "
        f"{progress.rows:,} {plans} gives ±{bound_words(progress.best_error_95)}, which "
        f"{verdict} ±{bound_words(target)}…"
    )


def default_target_reason(target: float, share: float, resolution: float | None) -> str:
    """How the default target error was chosen: ``share`` is
    :data:`TARGET_IQR_SHARE` of the interquartile range, ``target`` the short number at
    least ``share`` and no finer than the data's ``resolution``."""
    words = (
        f"Empty: ±{bound_words(target)}, from {share_words(TARGET_IQR_SHARE)} of the population's "
        f"interquartile range (the spread of its middle half), ±{bound_words(share)}"
    )
    if resolution is not None and share < resolution <= target:
        return (
            f"{words}, which is finer than the data can show ({resolution_words(resolution)}): "
            "rounded up to a bound the data can show."
        )
    return f"{words}." if target == share else f"{words}, rounded up to a short number."
