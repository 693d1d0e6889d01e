"""Fixtures shared by the tests of core.strata."""

from __future__ import annotations

import pytest

from core import strata as S
from core.populations import make_builtin


@pytest.fixture(scope="module")
def establishments():
    pop = make_builtin("establishments")
    return pop, S.stratum_summary(pop.values, pop.strata)
