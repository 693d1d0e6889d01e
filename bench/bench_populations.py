"""Timings of core.populations: built-in populations and CSV reading and writing.

Run from the repository root:  .venv/bin/python -m bench.bench_populations

* each built-in population at its default size (best of 5 calls), and the paper's exact
  bimodal draw;
* a generated 3-column CSV (id, value, region) of 1e5 and 1e6 rows: read_csv_table,
  load_population_csv with a cluster column, and population_to_csv_bytes (best of 3);
* a CSV of one numeric column, 1e5 and 1e6 rows, to an active Population (issue 15: 1e6 rows
  in at most 1 s), and Parquet files of 1e6 and 1e7 rows (a value and a stratum column)
  through load_population_file;
* the peak memory (resident set) of a process that reads a generated 10-column CSV file of
  256 MB, 512 MB and 1 GB (around the upload limit, 400 MiB) into a Population
  (``--memory``; it writes the files to a temporary directory and takes a few minutes).

Plain prints, no asserts.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from bench._timing import ROOT, best_seconds, load_line
from core.populations import (
    BUILTIN_POPULATIONS,
    load_population_csv,
    load_population_file,
    make_builtin,
    paper_bimodal_population,
    population_to_csv_bytes,
    read_csv_table,
)
from tests.core.bad_csv_corpus import million_rows_csv


def one_column_csv(n: int, seed: int = 3) -> bytes:
    """A CSV of one header and ``n`` lognormal values with two decimals."""
    values = np.round(np.random.default_rng(seed).lognormal(5.0, 0.5, size=n), 2)
    return ("value\n" + "\n".join(values.astype(str).tolist()) + "\n").encode()


def parquet_file(n: int, seed: int = 4) -> bytes:
    """A Parquet file of ``n`` rows: a lognormal value and one of 20 region codes."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "value": rng.lognormal(5.0, 0.5, size=n),
            "region": rng.integers(1, 21, size=n).astype(np.int16),
        }
    )
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    return out.getvalue()


_MEMORY_CHILD = """
import resource, sys, time
from core import csv_io
from core.populations import load_population_file
csv_io.MAX_UPLOAD_BYTES = 2**31  # measured above the upload limit too
start = time.perf_counter()
pop = load_population_file(sys.argv[1], value_column="c0", lower=0, upper=5000,
                           stratum_column="c1")
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{pop.size} {seconds:.1f} {peak:.0f}")
"""


def wide_csv(path: Path, megabytes: int, columns: int = 10) -> None:
    """A CSV of about ``megabytes`` MB: numbers in even columns, short labels in odd ones."""
    rng = np.random.default_rng(5)
    with path.open("w") as fh:
        fh.write(",".join(f"c{j}" for j in range(columns)) + "\n")
        while fh.tell() < megabytes * 2**20:
            n = 200_000
            parts = [
                np.round(rng.lognormal(5, 0.5, n), 2).astype(str)
                if j % 2 == 0
                else np.char.add("group_", rng.integers(0, 50, n).astype(str))
                for j in range(columns)
            ]
            lines = parts[0]
            for part in parts[1:]:
                lines = np.char.add(np.char.add(lines, ","), part)
            fh.write("\n".join(lines.tolist()) + "\n")


def memory() -> None:
    print("Peak memory of reading a CSV into a Population (a fresh process per file)")
    with tempfile.TemporaryDirectory() as tmp:
        for megabytes in (256, 512, 1000):
            path = Path(tmp) / f"wide_{megabytes}.csv"
            wide_csv(path, megabytes)
            out = subprocess.run(
                [sys.executable, "-c", _MEMORY_CHILD, str(path)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            size = path.stat().st_size / 2**20
            n, seconds, peak = int(out[0]), float(out[1]), float(out[2])
            print(
                f"  {size:7.0f} MB, {n:>11,} rows x 10 columns: {seconds:5.1f} s, peak resident "
                f"memory {peak:7.0f} MB ({peak / size:.1f} x the file)"
            )
            path.unlink()


def main() -> None:
    print(load_line())
    print("Built-in populations (default size, best of 5)")
    for key in BUILTIN_POPULATIONS:
        pop = make_builtin(key)
        seconds = best_seconds(lambda key=key: make_builtin(key, seed=1), 5)
        print(f"  {key:15s} N = {pop.size:>9,}  {seconds * 1e3:8.1f} ms")
    seconds = best_seconds(paper_bimodal_population, 3)
    print(f"  {'paper bimodal':15s} N = {10_001:>9,}  {seconds * 1e3:8.1f} ms  (replay of R)")
    big = best_seconds(lambda: make_builtin("establishments", size=1_000_000), 1)
    print(f"  {'establishments':15s} N = {1_000_000:>9,}  {big * 1e3:8.1f} ms")

    print("CSV of id,value,region (best of 3)")
    for n in (100_000, 1_000_000):
        data = million_rows_csv(n)
        read = best_seconds(lambda data=data: read_csv_table(data), 3)
        load = best_seconds(
            lambda data=data: load_population_csv(
                data, value_column="value", cluster_column="region", lower=0, upper=5000
            ),
            3,
        )
        pop = load_population_csv(data, value_column="value", cluster_column="region")
        write = best_seconds(lambda pop=pop: population_to_csv_bytes(pop), 3)
        print(
            f"  {n:>9,} rows, {len(data) / 2**20:5.1f} MB: read_csv_table {read:6.2f} s, "
            f"load_population_csv {load:6.2f} s, population_to_csv_bytes {write:6.2f} s"
        )

    print("CSV of one numeric column to a Population (best of 3; issue 15: 1e6 rows <= 1 s)")
    for n in (100_000, 1_000_000):
        data = one_column_csv(n)
        load = best_seconds(lambda data=data: load_population_csv(data), 3)
        print(f"  {n:>11,} rows, {len(data) / 2**20:6.1f} MB: load_population_csv {load:6.2f} s")

    print("Parquet (value, region) to a Population with strata (best of 2)")
    for n in (1_000_000, 10_000_000):
        data = parquet_file(n)
        load = best_seconds(
            lambda data=data: load_population_file(
                data,
                filename="register.parquet",
                value_column="value",
                lower=0,
                upper=5000,
                stratum_column="region",
            ),
            2,
        )
        print(f"  {n:>11,} rows, {len(data) / 2**20:6.1f} MB: load_population_file {load:6.2f} s")
    if "--memory" in sys.argv:
        memory()


if __name__ == "__main__":
    main()
