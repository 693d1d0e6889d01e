"""A labelled Stata health survey, built in memory, for the tests that walk a new user's path.

It has the shape of a national health examination survey: 10,351 respondents, of whom 14 have
no serum zinc value (the upload drops them: 10,337 rows remain); zinc recorded in whole
micrograms per decilitre inside the public bounds 0–250; a design of 31 strata (``stratid``)
with two primary sampling units each (``psuid``); a continuous sampling weight
(``finalwgt``); labelled categorical columns (``region``, ``sex``, ``race``, ``highbp``);
an identifier (``sampl``) and a continuous age. Every number is drawn from a fixed seed, so
the file is the same bytes on every run of one machine (and the same values on any CPU:
only integer draws and rounding go into it).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

#: Rows in the file, and rows with a zinc value (what the upload keeps).
ROWS = 10_351
ROWS_WITH_ZINC = 10_337
#: The file name the tests upload it under.
FILENAME = "health_survey.dta"
#: The value column, its declared public bounds and the design columns.
VALUE = "zinc"
LOWER, UPPER = 0.0, 250.0
STRATUM = "stratid"
CLUSTER = ("stratid", "psuid")

REGION_LABELS = {1: "Northeast", 2: "Midwest", 3: "South", 4: "West"}
SEX_LABELS = {1: "Male", 2: "Female"}
RACE_LABELS = {1: "White", 2: "Black", 3: "Other"}
HIGHBP_LABELS = {0: "No", 1: "Yes"}


def survey_frame(seed: int = 20261127) -> tuple[pd.DataFrame, dict[str, dict[int, str]]]:
    """The survey's columns and the value labels of its categorical columns."""
    rng = np.random.default_rng(seed)
    stratid = rng.integers(1, 32, size=ROWS)  # 31 strata
    psuid = rng.integers(1, 3, size=ROWS)  # two units per stratum
    region = (stratid - 1) % 4 + 1
    sex = rng.integers(1, 3, size=ROWS)
    race = rng.choice([1, 2, 3], size=ROWS, p=[0.85, 0.1, 0.05])
    age = rng.integers(20, 75, size=ROWS).astype(np.float64)
    highbp = (rng.random(ROWS) < 0.4).astype(np.int64)
    # zinc: whole numbers, centred near 86 with a long right tail, inside 0-250
    zinc = np.rint(rng.gamma(36.0, 86.0 / 36.0, size=ROWS) + 2.0 * (sex == 1))
    zinc = np.clip(zinc, 0.0, 250.0)
    missing = rng.choice(ROWS, size=ROWS - ROWS_WITH_ZINC, replace=False)
    zinc[missing] = np.nan
    finalwgt = np.round(rng.gamma(4.0, 3_000.0, size=ROWS), 0)
    frame = pd.DataFrame(
        {
            "sampl": np.arange(1, ROWS + 1, dtype=np.int64),
            "region": region.astype(np.int64),
            "sex": sex.astype(np.int64),
            "race": race.astype(np.int64),
            "age": age,
            "zinc": zinc,
            "highbp": highbp,
            "stratid": stratid.astype(np.int64),
            "psuid": psuid.astype(np.int64),
            "finalwgt": finalwgt,
        }
    )
    labels = {
        "region": REGION_LABELS,
        "sex": SEX_LABELS,
        "race": RACE_LABELS,
        "highbp": HIGHBP_LABELS,
    }
    return frame, labels


def survey_bytes(seed: int = 20261127) -> bytes:
    """The survey as the bytes of a labelled Stata (.dta) file."""
    import pyreadstat

    frame, labels = survey_frame(seed)
    with tempfile.TemporaryDirectory() as tmp:  # pyreadstat writes to a path only
        path = Path(tmp) / FILENAME
        pyreadstat.write_dta(frame, str(path), variable_value_labels=labels)
        return path.read_bytes()


def write_survey(folder: Path, seed: int = 20261127) -> Path:
    """Write the survey into ``folder`` as :data:`FILENAME`; returns its path."""
    path = Path(folder) / FILENAME
    path.write_bytes(survey_bytes(seed))
    return path
