"""Shared test configuration: hypothesis profiles, the CI switch and the project root.

Under CI (environment variable ``CI`` set) the suite must not pass by skipping: optional
cross-check libraries and numba are required (:func:`require_module`, :func:`skip_unless`),
and Hypothesis runs the derandomised ``ci`` profile, so a failure found once is found on
every run (the boundary cases the properties must hold at are pinned with ``@example``).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]

#: True when the suite runs under CI (``CI`` set to anything non-empty).
UNDER_CI = bool(os.environ.get("CI"))

# No per-example deadline: a 2-core CI machine running tests in parallel has noisy timings.
settings.register_profile(
    "default", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
# CI: the same examples on every run (derandomize, no example database), a fixed budget.
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=300,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if UNDER_CI else "default"))


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--soak``: the long load tests at full length (``make soak``, before a release)."""
    parser.addoption(
        "--soak",
        action="store_true",
        default=False,
        help="run the classroom test with every session visiting every page",
    )


def require_module(name: str) -> ModuleType:
    """Import ``name``; skip the test when it is missing, but fail under CI.

    A cross-check that silently skips proves nothing, so CI must have every optional
    test dependency installed.
    """
    if not UNDER_CI:
        return pytest.importorskip(name)
    try:
        return importlib.import_module(name)
    except ImportError as err:
        pytest.fail(f"{name} cannot be imported under CI ({err}); install requirements-dev.txt")


def skip_unless(condition: bool, reason: str) -> None:
    """Skip the calling test when ``condition`` is false, but fail under CI."""
    if condition:
        return
    if UNDER_CI:
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)
