"""ui.state: the selector's names and the cached built-in populations.

Break caught (tests/break_checks.py ``state-builtin-ignores-seed``): the cached built-in
population is always drawn with seed 0.
"""

from __future__ import annotations

from core.populations import BUILTIN_POPULATIONS, make_builtin
from ui import state


def test_population_label_names_every_choice():
    assert state.population_label("bimodal_paper") == "Bimodal (paper's draw)"
    assert state.population_label(state.UPLOADED) == "Uploaded"
    assert state.population_label("unknown") == "unknown"
    assert all(state.population_label(k) != k for k in BUILTIN_POPULATIONS)


def test_builtin_population_is_cores_draw_for_the_key_and_seed():
    pop = state.builtin_population("beta", 3)
    assert pop.content_hash == make_builtin("beta", seed=3).content_hash
    assert pop.content_hash != state.builtin_population("beta", 4).content_hash


def test_builtin_population_is_drawn_once_and_shared_not_copied():
    """Break caught (tests/break_checks.py ``population-copied-per-call``): a data cache
    hands every call (every run of every session) a fresh copy of the population."""
    first = state.builtin_population("establishments", 0)
    assert state.builtin_population("establishments", 0) is first
    assert not first.values.flags.writeable  # shared safely: nobody can change it
