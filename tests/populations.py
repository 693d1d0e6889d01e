"""Test populations built in code, shared by core, page and browser tests.

Each builder is deterministic in its arguments, so a test that needs a larger register asks
for a larger ``size`` instead of writing a builder of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from core.populations import Population


def lognormal_register(
    size: int,
    seed: int,
    *,
    log_mean: float = 3.0,
    name: str = "register.csv",
    strata: int = 3,
    clusters: int = 30,
    **fields: Any,
) -> Population:
    """Sorted Lognormal(``log_mean``, 0.6) values clipped to the public bounds [0, 500].

    ``strata`` equal strata in blocks and ``clusters`` equal clusters dealt round-robin
    (``size`` must be a multiple of both); ``fields`` go to :class:`Population` (labels).
    """
    rng = np.random.default_rng(seed)
    return Population(
        name=name,
        values=np.sort(np.clip(rng.lognormal(log_mean, 0.6, size), 0.0, 500.0)),
        lower=0.0,
        upper=500.0,
        strata=np.repeat(np.arange(strata), size // strata),
        clusters=np.tile(np.arange(clusters), size // clusters),
        **fields,
    )


def register_frame(size: int, seed: int, *, regions: int, districts: int) -> pd.DataFrame:
    """An establishment register: ``income``, a ``region`` stratum and ``district`` clusters.

    ``districts`` districts are nested in each region, numbered ``region·10^k + d`` with
    ``10^k`` the first power of ten above ``districts``.
    """
    rng = np.random.default_rng(seed)
    region = rng.integers(0, regions, size)
    stride = 10 ** len(str(districts))
    return pd.DataFrame(
        {
            "income": rng.lognormal(10.0, 1.0, size).round(2),
            "region": region,
            "district": region * stride + rng.integers(0, districts, size),
        }
    )


def write_register(
    path: Path, size: int = 600, seed: int = 3, *, regions: int = 4, districts: int = 5
) -> Path:
    """:func:`register_frame` written to ``path`` as CSV or, for a ``.parquet`` name, Parquet."""
    frame = register_frame(size, seed, regions=regions, districts=districts)
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return path
