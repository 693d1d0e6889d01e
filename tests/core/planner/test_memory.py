"""core.planner.memory: chunks sized from the budget, refusals in words."""

from __future__ import annotations

import pytest

from core.planner import memory


def test_chunks_fit_the_budget_and_cover_every_repetition():
    rows = memory.chunk_rows(10_000_000, 40, 200, budget=1 << 30)
    assert rows * 10_000_000 * 40 <= (1 << 30) - memory.MARGIN_BYTES
    assert sum(memory.chunks(200, rows)) == 200 and max(memory.chunks(200, rows)) == rows
    assert memory.chunk_rows(1_000, 40, 200, budget=1 << 30) == 200
    assert memory.estimated_peak(10_000_000, 40, 200, budget=1 << 30) <= 1 << 30


def test_a_repetition_larger_than_the_budget_is_refused_with_what_to_lower():
    with pytest.raises(memory.MemoryBudgetError, match="windows"):
        memory.chunk_rows(100_000_000, 40, 10, budget=1 << 30)


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv("PLANNER_MEMORY_BUDGET_MB", raising=False)
    assert memory.budget_bytes() == memory.DEFAULT_BUDGET_BYTES
    monkeypatch.setenv("PLANNER_MEMORY_BUDGET_MB", "2048")
    assert memory.budget_bytes() == 2048 << 20
    monkeypatch.setenv("PLANNER_MEMORY_BUDGET_MB", "12")  # floored at 128 MiB
    assert memory.budget_bytes() == 128 << 20
    monkeypatch.setenv("PLANNER_MEMORY_BUDGET_MB", "lots")
    assert memory.budget_bytes() == memory.DEFAULT_BUDGET_BYTES
