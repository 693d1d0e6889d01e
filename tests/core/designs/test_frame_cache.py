"""core.designs.frame_cache: frames kept by content hash, the least recently used forgotten."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import numpy as np
import pytest

from core.designs import frame_cache
from core.designs.frame import Frame
from core.populations import Population


@pytest.fixture(autouse=True)
def _empty_cache():
    frame_cache.clear_frames()
    yield
    frame_cache.clear_frames()


def _stand_in(pop: Population) -> Frame:
    """A stand-in for a built frame (only its size is read by the cache); ``Frame.of``
    itself goes through the cache and may not be called inside a build."""
    return cast(Frame, SimpleNamespace(N=pop.size))


def _pop(shift: float) -> Population:
    return Population("t", np.linspace(0.0, 1.0, 50) + shift, 0.0, 2.0)


def test_equal_populations_share_one_frame_and_others_get_their_own() -> None:
    built: list[float] = []

    def build(pop: Population) -> Frame:
        built.append(float(pop.values[0]))
        return _stand_in(pop)

    a = frame_cache.cached_frame(_pop(0.0), build)
    again = frame_cache.cached_frame(_pop(0.0), build)
    other = frame_cache.cached_frame(_pop(0.5), build)
    assert a is again and other is not a
    assert len(built) == 2


def test_the_least_recently_used_frame_is_forgotten_first(monkeypatch) -> None:
    monkeypatch.setattr(frame_cache, "MAX_FRAMES", 2)
    calls = [0]

    def build(pop: Population) -> Frame:
        calls[0] += 1
        return _stand_in(pop)

    first = frame_cache.cached_frame(_pop(0.0), build)
    frame_cache.cached_frame(_pop(0.1), build)
    assert frame_cache.cached_frame(_pop(0.0), build) is first  # used again: kept
    frame_cache.cached_frame(_pop(0.2), build)  # forgets 0.1, the least recently used
    assert calls[0] == 3
    assert frame_cache.cached_frame(_pop(0.0), build) is first
    frame_cache.cached_frame(_pop(0.1), build)
    assert calls[0] == 4
