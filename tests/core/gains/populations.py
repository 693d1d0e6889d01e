"""Populations shared by the tests of core.gains: the paper's built-ins, a small lognormal."""

from __future__ import annotations

import numpy as np

from core.populations import make_builtin

N_PAPER = 10_001
DELTA_PAPER = 1.0 / (2 * N_PAPER)  # 4.9995e-5, as in the paper


def _paper_pop(key: str, seed: int = 0):
    return make_builtin(key, seed=seed)


def _small_pop(seed: int = 5, N: int = 151) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(rng.lognormal(1.0, 0.6, N), 0.0, 30.0)
