"""core.planner.composition: several statistics compose on the sample, then amplify once."""

from __future__ import annotations

import pytest

from core.planner import composition


def test_composing_then_amplifying_keeps_the_promise_and_the_naive_sum_understates():
    split = composition.budget_split("poisson", 1.0, [1, 3], relation="deletion", rate=0.05)
    assert split.shares == pytest.approx((0.25, 0.75))
    assert sum(split.eps_samples) == pytest.approx(split.eps_sample_total)
    assert split.eps_target_correct == pytest.approx(1.0, rel=1e-9)
    assert split.eps_target_naive < split.eps_target_correct
    with pytest.raises(ValueError, match="share"):
        composition.budget_split("poisson", 1.0, [], rate=0.05)
