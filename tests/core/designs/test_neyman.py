"""core.designs.neyman: listed, never planned, with its reason."""

from __future__ import annotations

import pytest

from core.designs.neyman import NEYMAN_REASON, NeymanStratified
from core.designs.protocol import Point


def test_neyman_is_unavailable_for_every_relation_and_fits_no_mechanism():
    from core import mechanisms as mech

    d = NeymanStratified()
    for relation in ("replacement", "deletion"):
        assert d.unavailable_for_relation(relation) == NEYMAN_REASON
        assert not d.fits(mech.ExponentialQuantile, relation)
    with pytest.raises(ValueError, match="Bun et al"):
        d.deamplified(1.0, Point(0.1, 0.1, 10.0))
