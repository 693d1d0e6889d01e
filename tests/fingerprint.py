"""Fingerprints of computed output that compare numbers, not bits.

A pinned result (a chart's data, a data frame of a simulation) is recorded once and compared
on every run, possibly on another CPU. numpy's vectorised ``exp``, ``log`` and friends may
round differently in the last bit depending on the instruction set the CPU offers (AVX2 or
AVX-512), so a hash of the float bytes, or of their JSON, is not portable. A fingerprint
therefore splits the output into

- its *structure*: everything that is not a number (keys, strings, booleans, ``None``,
  the lengths and dtypes of arrays), kept as a SHA-256 digest (no float enters it);
- its *numbers*: every int and float in document order (plotly's base64 typed arrays
  decoded), stored as they are, grouped by chart or column.

Two fingerprints agree when the structures are identical and every number agrees within
``RTOL`` relative to itself, or within ``ATOL_SCALE`` times the largest finite magnitude of
its group (so an exact 0 recorded as 1e-17 after a cancellation still agrees). NaN and ±inf
must sit at the same places. With ``RTOL = 1e-9`` one ulp (2.2e-16 relative) passes and a
change of 1e-6 relative in one value fails (``tests/test_fingerprint.py``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Relative tolerance of a number against its recorded value.
RTOL = 1e-9
#: Absolute tolerance, as a share of the largest finite magnitude in the same group.
ATOL_SCALE = 1e-12
_NUMBER = "#"


def _decode(value: Mapping[str, Any]) -> np.ndarray:
    """Plotly's typed-array form ``{"dtype": ..., "bdata": base64, "shape"?: ...}``."""
    return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool)


def split_numbers(obj: Any) -> tuple[Any, list[float]]:
    """Replace every number in a JSON-like ``obj`` by a marker; return (skeleton, numbers).

    Dicts are walked in sorted key order, lists and tuples in order. ``bool`` is structure,
    not a number. An array of numbers, whether a list, a numpy array or plotly's base64
    typed array, becomes ``{"array": n}`` in the skeleton and its values join the numbers:
    how a figure stores an array (plotly keeps a list as a list and packs a numpy array) is
    not what the user sees.
    """
    numbers: list[float] = []

    def walk(node: Any) -> Any:
        if isinstance(node, bool) or node is None or isinstance(node, str):
            return node
        if _is_number(node):
            numbers.append(float(node))
            return _NUMBER
        if isinstance(node, np.ndarray):
            flat = node.astype(np.float64, copy=False).ravel()
            numbers.extend(flat.tolist())
            return {"array": int(flat.size)}
        if isinstance(node, Mapping):
            if "bdata" in node and "dtype" in node:
                arr = _decode(node)
                numbers.extend(arr.astype(np.float64).tolist())
                return {"array": int(arr.size)}
            return {str(k): walk(node[k]) for k in sorted(node, key=str)}
        if isinstance(node, list | tuple):
            if node and all(_is_number(item) for item in node):
                numbers.extend(float(item) for item in node)
                return {"array": len(node)}
            return [walk(item) for item in node]
        raise TypeError(f"cannot fingerprint a {type(node).__name__}")

    skeleton = walk(obj)
    return skeleton, numbers


def structure_digest(skeleton: Any) -> str:
    """SHA-256 (16 hex digits) of a skeleton's canonical JSON: no float ever enters it."""
    raw = json.dumps(skeleton, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def fingerprint(obj: Any) -> dict[str, Any]:
    """``{"structure": digest, "numbers": [...]}`` of one group (a chart, a frame, ...).

    Non-finite numbers are stored as the strings ``"nan"``, ``"inf"``, ``"-inf"`` so that
    the record stays valid JSON.
    """
    skeleton, numbers = split_numbers(obj)
    return {"structure": structure_digest(skeleton), "numbers": [_store(x) for x in numbers]}


def frame_fingerprint(frame: Any, columns: Sequence[str]) -> dict[str, Any]:
    """Fingerprint of ``columns`` of a pandas data frame (column names are structure)."""
    return fingerprint({c: np.asarray(frame[c], dtype=np.float64) for c in columns})


def _store(x: float) -> float | str:
    # 12 significant digits: 5e-13 relative, far inside RTOL, and a third less to store.
    return float(f"{x:.12g}") if math.isfinite(x) else str(x)


def _load(x: float | str) -> float:
    return float(x)


def dump_records(records: Any) -> str:
    """JSON text of recorded fingerprints: indented, each number list on one line."""
    lists: list[str] = []

    def compact(node: Any) -> Any:
        if isinstance(node, dict):
            if "numbers" in node:
                lists.append(json.dumps(node["numbers"], separators=(",", ":")))
                return {**node, "numbers": f"@numbers{len(lists) - 1}@"}
            return {k: compact(v) for k, v in node.items()}
        if isinstance(node, list):
            return [compact(v) for v in node]
        return node

    text = json.dumps(compact(records), indent=1, ensure_ascii=False)
    for i, raw in enumerate(lists):
        text = text.replace(f'"@numbers{i}@"', raw, 1)
    return text + "\n"


def number_mismatches(
    got: Iterable[float | str], expected: Iterable[float | str], *, limit: int = 5
) -> list[str]:
    """Why two number lists disagree (empty when they agree within the tolerance)."""
    a = np.array([_load(x) for x in got], dtype=np.float64)
    b = np.array([_load(x) for x in expected], dtype=np.float64)
    if a.size != b.size:
        return [f"{a.size} numbers, expected {b.size}"]
    if a.size == 0:
        return []
    finite = np.isfinite(b)
    scale = float(np.max(np.abs(b[finite]))) if finite.any() else 0.0
    same_special = (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b))
    both_finite = np.isfinite(a) & finite
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        allowed = RTOL * np.maximum(np.abs(a), np.abs(b)) + ATOL_SCALE * scale
    ok = same_special | (both_finite & (diff <= allowed))
    bad = np.flatnonzero(~ok)
    return [f"number {i}: {a[i]!r}, expected {b[i]!r}" for i in bad[:limit]] + (
        [f"... {bad.size - limit} more"] if bad.size > limit else []
    )


def mismatches(got: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    """Why fingerprint ``got`` differs from the recorded ``expected`` (empty if it agrees)."""
    problems = []
    if got["structure"] != expected["structure"]:
        problems.append("the structure (keys, strings, array sizes) changed")
    problems += number_mismatches(got["numbers"], expected["numbers"])
    return problems


def assert_matches(got: Mapping[str, Any], expected: Mapping[str, Any], what: str = "") -> None:
    """Assert that ``got`` agrees with the recorded ``expected`` fingerprint."""
    problems = mismatches(got, expected)
    assert not problems, f"{what}: " + "; ".join(problems)


def check_recorded(path: Path, name: str, got: Mapping[str, Any]) -> None:
    """Compare fingerprint ``got`` with entry ``name`` of the record file ``path``.

    With the environment variable ``RECORD_FINGERPRINTS=1`` the entry is (re)written
    instead; do that only after a deliberate change of the numbers, and run the tests
    without ``-n`` so that one process writes the file.
    """
    records = json.loads(path.read_text()) if path.exists() else {}
    if os.environ.get("RECORD_FINGERPRINTS") == "1":
        records[name] = dict(got)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_records(dict(sorted(records.items()))))
        return
    assert name in records, f"no fingerprint {name!r} in {path.name}: record it"
    assert_matches(got, records[name], name)
