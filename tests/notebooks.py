"""What an executed notebook printed (its streams, the best plan's values), and exported code
made to read this clone's ``core`` instead of the installed package ``dp_sampling``."""

from __future__ import annotations

import re
from typing import Any

#: ``name = value`` lines the planner's notebook prints for its best plan.
BEST_LINE = re.compile(
    r"^(best design|best mechanism|rate|eps_sample|rmse|error_95) = (.+)$", flags=re.MULTILINE
)


def printed_text(nb: Any) -> str:
    """Everything the code cells of an executed notebook wrote to their streams."""
    return "".join(
        output.get("text", "")
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "stream"
    )


def best_values(printed: str) -> dict[str, str]:
    """The best plan's printed values by name (``best design``, ``rate``, ``rmse``, ...)."""
    return dict(BEST_LINE.findall(printed))


def from_the_clone(code: str) -> str:
    """Exported code whose imports of the installed package ``dp_sampling`` read this clone's
    ``core`` instead: the numbers are this code's; tests/test_packaging.py runs the exports
    as they are, from the package installed in a fresh environment."""
    return code.replace("from dp_sampling.", "from core.")
