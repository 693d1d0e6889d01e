"""ui.strata.text: metric values, their help and the ε_target → ε_sample reading.

Break caught (tests/break_checks.py ``strata-bound-help-drops-number``): the help text of a
vacuous bound no longer states the bound's number.
"""

from __future__ import annotations

from core import amplification as amp
from ui.format import fmt
from ui.strata import text as strata_text


def test_bound_value_and_help():
    assert strata_text.bound_value(0.123456, 1.0) == "0.123"
    assert strata_text.bound_value(1.2, 1.0) == "no amplification"
    assert strata_text.bound_help(0.123456, 1.0) == "0.123456"
    assert strata_text.bound_help(1.2, 1.0) == f"1.2; {strata_text.NO_AMPLIFICATION} = 1"


def test_target_reading_numbers():
    poisson = float(amp.eps_sample(0.5, 0.1))  # eq. 3 inverted
    words = strata_text.target_reading(0.5, 0.1, 0.9, poisson)
    assert "**ε_target = 0.5** at rate r = 10 %" in words
    assert (
        "**ε_sample = 0.9**" in words
        and f"would allow {fmt(poisson, 'guarantee')} (eq. 3)" in words
    )
    assert strata_text.NO_AMPLIFICATION not in words
    assert strata_text.NO_AMPLIFICATION in strata_text.target_reading(0.5, 0.9, 0.5, 0.6)


def test_neighbour_degradation_names_the_losses_of_core_count_loss():
    """The §7.2 warning (moved out of the page into ui.strata.text) states core's losses."""
    import dataclasses

    from core import strata
    from core.populations import make_builtin
    from ui.strata import cache

    pop = make_builtin("establishments", seed=0)
    summ = cache.summary.__wrapped__(pop.content_hash, pop)
    nb = strata.top_code_neighbour(pop.values, summ, new_value=pop.upper, new_stratum=None)
    cmp = strata.compare_neighbours(summ, nb, 10_000)
    eps = 0.5
    words = strata_text.neighbour_degradation(cmp, eps, summ.k)
    moved = int(abs(cmp.neyman_shift).sum())
    assert moved > 0 and words is not None
    assert f"change by {moved} in total" in words
    assert f"stratum **{cmp.labels[cmp.most_moved]}** moves most" in words
    assert f"leaks {fmt(cmp.count_loss(eps, 'neyman'), 'guarantee')} = {moved}·ε_sample" in words
    assert f"{fmt(cmp.count_loss(eps, 'randomized'), 'guarantee')} under randomised" in words
    assert f"releasing all {summ.k} noisy sizes" in words
    # a comparison in which Neyman does not move gives no warning
    same = dataclasses.replace(cmp, neyman_neighbour=cmp.neyman.copy())
    assert strata_text.neighbour_degradation(same, eps, summ.k) is None
