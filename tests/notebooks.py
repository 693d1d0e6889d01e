"""What an executed notebook printed: the text of its streams and the best plan's values."""

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
