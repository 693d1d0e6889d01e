"""core.accounting.change_designs: the bound each design gets for a changed record."""

from __future__ import annotations

import math

import pytest

from core import amplification as amp
from core.accounting import change_designs as cd
from core.accounting import change_one as co


def test_poisson_uses_the_exact_two_budget_bound_and_round_trips():
    got = cd.change_accounting("poisson", add_remove_factor=1.0, change_factor=1.0,
                               eps_target=1.0, rate=0.05)  # fmt: skip
    assert got.available
    assert got.eps_sample == pytest.approx(math.log1p(math.expm1(1.0) / 0.05), rel=1e-12)
    back = cd.change_accounting("poisson", add_remove_factor=1.0, change_factor=1.0,
                                eps_sample=got.eps_sample, rate=0.05)  # fmt: skip
    assert back.eps_target == pytest.approx(1.0, rel=1e-12)
    assert got.eps_sample == pytest.approx(co.poisson_eps_sample(1.0, 0.05), rel=1e-12)


def test_srs_uses_theorem_1_with_the_change_budget():
    got = cd.change_accounting("srs", add_remove_factor=None, change_factor=1.0,
                               eps_target=0.5, rate=0.1)  # fmt: skip
    assert got.eps_sample == pytest.approx(float(amp.eps_sample(0.5, 0.1)), rel=1e-12)


def test_stratified_without_public_labels_doubles_the_add_remove_bound():
    got = cd.change_accounting("stratified_proportional", add_remove_factor=1.0,
                               change_factor=1.0, eps_target=1.0, rate=0.2,
                               stratum_sizes=[50, 80, 120])  # fmt: skip
    assert got.available and "group" in (got.bound_name + got.reason).lower()


def test_neyman_has_no_bound_and_says_why():
    got = cd.change_accounting("neyman", add_remove_factor=1.0, change_factor=1.0,
                               eps_target=1.0)  # fmt: skip
    assert not got.available and got.eps_sample is None and got.reason
    assert "neyman" in cd.DESIGNS
