"""core.designs.registry: every design once, in display order, findable by name."""

from __future__ import annotations

import pytest

from core.designs.protocol import PlannerDesign
from core.designs.registry import DESIGNS, design_named


def test_every_design_is_registered_under_its_own_name_with_words():
    assert next(iter(DESIGNS)) == "census" and sum(d.reference for d in DESIGNS.values()) == 1
    for name, d in DESIGNS.items():
        assert isinstance(d, PlannerDesign) and d.name == name
        assert d.label and d.short_label and d.theorem and d.description
        assert design_named(name) is d


def test_an_unknown_design_names_the_choices():
    with pytest.raises(ValueError, match="census"):
        design_named("quota")
