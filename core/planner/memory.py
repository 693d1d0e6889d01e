"""The memory a plan needs, estimated before it runs, and the chunks that keep it in budget.

A plan's working memory beyond the population's own columns comes from the whole-sample
(mask) Monte Carlo: per chunk of ``rows`` repetitions a design holds its random keys and one
boolean mask over all N records, and the samples cut out of it
(:attr:`core.designs.protocol.PlannerDesign.mask_bytes` per record and repetition).  Windows
hold a few hundred order statistics per repetition and the closed forms nothing that grows
with N.  So the peak is ``max over designs of rows × N × mask_bytes`` plus a fixed margin,
and the chunk size ``rows`` is chosen so that it stays within the budget.  A plan that does
not fit even with one repetition per chunk is refused with a message that says what to
lower.
"""

from __future__ import annotations

import os

__all__ = [
    "DEFAULT_BUDGET_BYTES",
    "MemoryBudgetError",
    "budget_bytes",
    "chunk_rows",
    "chunks",
]

#: Working memory a plan may use by default (1 GiB); the environment variable
#: ``PLANNER_MEMORY_BUDGET_MB`` (set by the server's ``--memory-budget-mb`` option) changes it.
DEFAULT_BUDGET_BYTES = 1 << 30
#: Memory every plan needs whatever N (windows, tables, interpreter objects).
MARGIN_BYTES = 64 << 20


class MemoryBudgetError(ValueError):
    """A plan that cannot fit the memory budget; the message says what to lower."""


def budget_bytes() -> int:
    """The memory budget: ``PLANNER_MEMORY_BUDGET_MB`` MiB when set (≥ 128), else 1 GiB."""
    raw = os.environ.get("PLANNER_MEMORY_BUDGET_MB", "").strip()
    if not raw:
        return DEFAULT_BUDGET_BYTES
    try:
        mb = float(raw)
    except ValueError:
        return DEFAULT_BUDGET_BYTES
    return int(max(mb, 128.0) * (1 << 20))


def chunk_rows(N: int, bytes_per_record: int, reps: int, budget: int | None = None) -> int:
    """Repetitions per chunk so that ``rows × N × bytes_per_record`` fits the budget.

    Raises
    ------
    MemoryBudgetError
        When one repetition alone does not fit.
    """
    total = budget_bytes() if budget is None else int(budget)
    room = total - MARGIN_BYTES
    one = N * bytes_per_record
    if one > room:
        raise MemoryBudgetError(
            f"A whole-sample Monte Carlo of {N:,} records needs about {one / 2**20:,.0f} MiB "
            f"per repetition, more than the planner's memory budget of {total / 2**20:,.0f} MiB. "
            "Choose mechanisms that run on windows (the smooth-sensitivity, exponential, "
            "piecewise-Laplace and global-Laplace quantiles) or closed forms (the means), "
            "fewer designs, or a smaller population."
        )
    return max(1, min(reps, room // one))


def chunks(reps: int, rows: int) -> list[int]:
    """``reps`` repetitions split into chunks of at most ``rows``."""
    return [min(rows, reps - start) for start in range(0, reps, rows)]


def estimated_peak(N: int, bytes_per_record: int, reps: int, budget: int | None = None) -> int:
    """Peak working memory of a mask Monte Carlo in chunks (bytes, beyond the population)."""
    rows = chunk_rows(N, bytes_per_record, reps, budget)
    return MARGIN_BYTES + rows * N * bytes_per_record
