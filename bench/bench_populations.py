"""Timings of core.populations: built-in populations and CSV reading and writing.

Run from the repository root:  .venv/bin/python -m bench.bench_populations

* each built-in population at its default size (best of 5 calls), and the paper's exact
  bimodal draw;
* a generated 3-column CSV (id, value, region) of 1e5 and 1e6 rows: read_csv_table,
  load_population_csv with a cluster column, and population_to_csv_bytes (best of 3).

Plain prints, no asserts.
"""

from __future__ import annotations

from bench._timing import best_seconds
from core.populations import (
    BUILTIN_POPULATIONS,
    load_population_csv,
    make_builtin,
    paper_bimodal_population,
    population_to_csv_bytes,
    read_csv_table,
)
from tests.core.bad_csv_corpus import million_rows_csv


def main() -> None:
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


if __name__ == "__main__":
    main()
