"""Small samples and their neighbours, shared by the exact privacy checks of the mechanisms.

One record changed (:func:`_replacements`) or one added or removed
(:func:`_additions_removals`), over candidate values that include both bounds; the worst
cases (all values equal, values at the bounds, n = 1 and 2) are among :data:`SAMPLES`.
"""

from __future__ import annotations

import itertools

import numpy as np

from core import mechanisms as mech

LOWER, UPPER = 0.0, 10.0

SAMPLES = [
    [3.0],
    [0.0],
    [2.0, 7.0],
    [0.0, 10.0],
    [5.0, 5.0, 5.0],
    [0.0, 0.0, 10.0],
    [1.0, 4.0, 4.0, 9.0],
    [5.0, 5.0, 5.0, 5.0, 5.0],
    [0.0, 1.0, 2.0, 8.0, 10.0],
]


CANDIDATES = [0.0, 1.0, 4.0, 5.0, 10.0]


def _replacements(values: list[float]) -> list[list[float]]:
    out = []
    for j, v in itertools.product(range(len(values)), CANDIDATES):
        out.append(sorted([*values[:j], v, *values[j + 1 :]]))
    return out


def _additions_removals(values: list[float]) -> list[list[float]]:
    out = [sorted([*values, v]) for v in CANDIDATES]
    if len(values) > 1:
        out += [values[:j] + values[j + 1 :] for j in range(len(values))]
    return out


def _one(m: mech.Mechanism, values: list[float], eps: float, delta: float):
    """Statistic, sensitivity and noise scale of one sample, from the mechanism itself."""
    x = np.array([sorted(values)])
    s = m.sensitivity(x, eps, delta, LOWER, UPPER)
    return float(m.statistic(x)[0]), float(s[0]), float(m.noise_scale(s, eps)[0])
