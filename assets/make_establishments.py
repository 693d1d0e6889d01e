"""Write assets/establishments.csv: the built-in synthetic establishment population.

Run from the repository root:  .venv/bin/python assets/make_establishments.py

The file is ``make_builtin("establishments", seed=0)`` (N = 100,000) written with
``population_to_csv_bytes``: columns ``employees`` (1 to 10,000, top-coded), ``size_class``
(the 12 employee size classes of Bun et al., App. E.1) and ``region`` (100 regions). It is a
sample upload: loading it with bounds [0, 10000] and the two label columns gives back the
built-in population exactly (same content hash).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.populations import make_builtin, population_to_csv_bytes

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    pop = make_builtin("establishments", seed=0)
    out = ROOT / "assets" / "establishments.csv"
    out.write_bytes(population_to_csv_bytes(pop))
    print(f"wrote {out.relative_to(ROOT)}: {pop.size:,} rows, content hash {pop.content_hash[:12]}")


if __name__ == "__main__":
    main()
