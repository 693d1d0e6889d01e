"""AppTest harness shared by the page tests: open a page through the real router.

AppTest's ``switch_page`` does not rerun the router script (the shared sidebar vanishes), so
each test lands directly on its page, as a user following a link would.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120


def open_page(page: str, query: dict[str, str] | None = None) -> AppTest:
    """Run :func:`ui.router.run_app` with ``page`` as the landing page and URL ``query``."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from ui.router import run_app\n"
        f"run_app(default_page={page!r})\n"
    )
    at = AppTest.from_string(script, default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def charts(at: AppTest) -> list[dict]:
    """The plotly figures on the page, as JSON dicts."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def array(value: object) -> np.ndarray:
    """Decode a plotly data array (plain list or plotly's base64 typed-array form)."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
    return np.asarray(value, dtype=float)


def trace_names(at: AppTest) -> set[str]:
    """Names of every trace of every chart on the page."""
    return {t.get("name") for c in charts(at) for t in c["data"] if t.get("name")}
