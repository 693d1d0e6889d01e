"""The number fingerprints of :mod:`tests.fingerprint` tolerate one ulp and catch a real change.

Run on the recorded page snapshots themselves: every recorded number moved by one ulp (the
difference another CPU's ``exp``/``log`` makes) must still agree, and one number changed by
1e-6 relative (a change a user could see in a hover value) must not.
"""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from tests.fingerprint import (
    check_recorded,
    fingerprint,
    frame_fingerprint,
    mismatches,
    split_numbers,
)
from tests.pages.test_restructure_snapshots import SNAPSHOT


def _recorded_charts() -> list[tuple[str, dict]]:
    data = json.loads(SNAPSHOT.read_text())
    return [
        (f"{state}/{i}", chart)
        for state, fp in data.items()
        for i, chart in enumerate(fp["charts"])
        if chart["numbers"]
    ]


def _values(chart: dict) -> np.ndarray:
    return np.array([float(x) for x in chart["numbers"]])


def _with(chart: dict, values: np.ndarray) -> dict:
    """``chart`` with its numbers replaced by ``values`` (stored as a record stores them)."""
    return {**chart, "numbers": [x if np.isfinite(x) else str(x) for x in values.tolist()]}


def test_every_recorded_number_moved_by_one_ulp_still_agrees() -> None:
    charts = _recorded_charts()
    assert len(charts) > 30
    for direction in (np.inf, -np.inf):
        for name, chart in charts:
            moved = _with(chart, np.nextafter(_values(chart), direction))
            assert mismatches(moved, chart) == [], name


def test_one_number_changed_by_a_millionth_is_caught_in_every_chart() -> None:
    for name, chart in _recorded_charts():
        values = _values(chart)
        finite = np.flatnonzero(np.isfinite(values) & (values != 0))
        if finite.size == 0:
            continue
        # The largest magnitude and a typical one: both must be caught.
        for k in {int(finite[np.argmax(np.abs(values[finite]))]), int(finite[finite.size // 2])}:
            if abs(values[k]) < 1e-3 * np.max(np.abs(values[finite])):
                continue  # far below the chart's scale: see the absolute tolerance
            changed = values.copy()
            changed[k] *= 1 + 1e-6
            assert mismatches(_with(chart, changed), chart), (
                f"{name}: number {k} changed by 1e-6 passed"
            )


def test_structure_is_everything_but_the_numbers() -> None:
    a = {"x": [1.0, 2.0], "name": "ε_sample", "visible": True}
    skeleton, numbers = split_numbers(a)
    assert numbers == [1.0, 2.0]
    assert skeleton == {"name": "ε_sample", "visible": True, "x": {"array": 2}}
    assert fingerprint(a)["structure"] != fingerprint({**a, "name": "ε_target"})["structure"]
    assert fingerprint(a)["structure"] != fingerprint({**a, "x": [1.0]})["structure"]
    assert fingerprint(a)["structure"] == fingerprint({**a, "x": [5.0, 6.0]})["structure"]


def test_plotly_typed_arrays_are_decoded() -> None:
    values = np.array([0.5, -1.25, 3.0])
    packed = {"dtype": "f8", "bdata": base64.b64encode(values.tobytes()).decode()}
    assert fingerprint({"y": packed})["numbers"] == [0.5, -1.25, 3.0]
    assert fingerprint({"y": packed})["structure"] == fingerprint({"y": values})["structure"]
    # A list and a packed array of the same numbers are the same chart.
    assert fingerprint({"y": packed}) == fingerprint({"y": values.tolist()})


def test_special_values_must_sit_at_the_same_places() -> None:
    recorded = fingerprint([1.0, float("nan"), float("inf"), 0.0])
    assert recorded["numbers"] == [1.0, "nan", "inf", 0.0]
    assert mismatches(fingerprint([1.0, float("nan"), float("inf"), 1e-20]), recorded) == []
    assert mismatches(fingerprint([1.0, 2.0, float("inf"), 0.0]), recorded)
    assert mismatches(fingerprint([1.0, float("nan"), -float("inf"), 0.0]), recorded)
    assert mismatches(fingerprint([1.0, float("nan"), float("inf")]), recorded)


def test_an_exact_zero_may_come_back_as_cancellation_noise() -> None:
    # 1e-17 where 0 was recorded, on a chart whose values are of order 1: one ulp of 0.1.
    recorded = fingerprint([0.0, 0.1, 1.0])
    assert mismatches(fingerprint([1e-17, 0.1, 1.0]), recorded) == []
    assert mismatches(fingerprint([1e-9, 0.1, 1.0]), recorded)


def test_check_recorded_writes_only_when_asked(tmp_path, monkeypatch) -> None:
    import pandas as pd

    path = tmp_path / "pins.json"
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, np.exp(1.0)]})
    fp = frame_fingerprint(frame, ["a", "b"])
    with pytest.raises(AssertionError, match="record it"):
        check_recorded(path, "frame", fp)
    monkeypatch.setenv("RECORD_FINGERPRINTS", "1")
    check_recorded(path, "frame", fp)
    monkeypatch.delenv("RECORD_FINGERPRINTS")
    check_recorded(path, "frame", frame_fingerprint(frame * (1 + 1e-15), ["a", "b"]))
    with pytest.raises(AssertionError, match="number 3"):
        check_recorded(path, "frame", frame_fingerprint(frame * (1 + 1e-6), ["a", "b"]))
