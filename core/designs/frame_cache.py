"""The frames of the populations planned lately, kept by content hash.

A plan reads the population through a :class:`core.designs.frame.Frame`, and its designs keep
what they prepare from it (per-stratum and per-cluster positions and sums, run tables) with
the frame.  Building all that passes over every record several times -- tens of seconds at
``N = 10^8`` -- while a plan that reuses it costs what its rates and repetitions cost.  So
frames are kept here by the population's ``content_hash`` (values, bounds, stratum and
cluster labels: everything a frame reads), and every plan of the same population reuses one,
whichever session or copy of the population asks (a Streamlit cache hands out copies).

At most :data:`MAX_FRAMES` frames and :data:`MAX_RECORDS` records are kept, the least
recently used forgotten first; the newest frame is always kept.  A population without a
content hash gets a new frame each time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..populations import Population
    from .frame import Frame

__all__ = ["MAX_FRAMES", "MAX_RECORDS", "cached_frame", "clear_frames"]

#: Most frames kept.
MAX_FRAMES = 8
#: Most records kept over all frames (the newest frame is kept whatever its size).
MAX_RECORDS = 150_000_000

_FRAMES: OrderedDict[str, Frame] = OrderedDict()
_LOCK = threading.Lock()
#: One lock per content hash being built, so that two sessions build a frame once.
_BUILDING: dict[str, threading.Lock] = {}


def cached_frame(population: Population, build: Callable[[Population], Frame]) -> Frame:
    """The kept frame of ``population`` (by ``content_hash``), or ``build(population)``,
    kept."""
    key = str(getattr(population, "content_hash", "") or "")
    if not key:
        return build(population)
    with _LOCK:
        got = _FRAMES.get(key)
        if got is not None:
            _FRAMES.move_to_end(key)
            return got
        lock = _BUILDING.setdefault(key, threading.Lock())
    with lock:
        with _LOCK:
            got = _FRAMES.get(key)
        if got is None:
            got = build(population)
            with _LOCK:
                _FRAMES[key] = got
                _trim()
        with _LOCK:
            _BUILDING.pop(key, None)
        return got


def _trim() -> None:
    """Forget the least recently used frames beyond the limits (the newest stays)."""
    while len(_FRAMES) > 1 and (
        len(_FRAMES) > MAX_FRAMES or sum(f.N for f in _FRAMES.values()) > MAX_RECORDS
    ):
        _FRAMES.popitem(last=False)


def clear_frames() -> None:
    """Forget every kept frame."""
    with _LOCK:
        _FRAMES.clear()
