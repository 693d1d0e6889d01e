"""Issue 12: the restructuring changes nothing a user sees.

For a few fixed URL states of every page, each chart's ``data`` agrees with the fingerprint
recorded before the ui/ modules were moved into topic packages: the same structure and the
same numbers within a relative 1e-9 (:mod:`tests.fingerprint`), so that the snapshot holds on
a CPU that rounds ``exp`` or ``log`` differently in the last bit. The page's code blocks and
texts (no raw floats in them, only numbers formatted for people) keep an exact digest.
Record again (only after a deliberate, visible change) with::

    python -m tests.pages.test_restructure_snapshots
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fingerprint import assert_matches, dump_records, fingerprint, structure_digest
from tests.pages.harness import charts, open_page

SNAPSHOT = Path(__file__).parent / "snapshots" / "restructure.json"
EST = {"population": "Establishments"}

#: (name, page, URL query) of every recorded state.
STATES: tuple[tuple[str, str, dict[str, str]], ...] = (
    ("overview-default", "app_pages/overview.py", {}),
    ("overview-est", "app_pages/overview.py", EST),
    ("amp-forward", "app_pages/amplification.py", {"amp_view": "ε_sample against the rate"}),
    ("amp-reverse", "app_pages/amplification.py", {"amp_view": "Reverse view and calculator"}),
    ("amp-steinke", "app_pages/amplification.py", {"amp_view": "Steinke: limits of amplification"}),
    ("gain-mean", "app_pages/gains.py", {"gain_view": "Mean: noise ratio r and bound q"}),
    ("gain-mean-pop", "app_pages/gains.py", {"gain_view": "Mean on this population"}),
    ("gain-sens", "app_pages/gains.py", {"gain_view": "Median: smooth sensitivity"}),
    (
        "gain-exp",
        "app_pages/gains.py",
        {
            "gain_view": "Median: sample or population?",
            "gain_reps": "50",
            "gain_exp_eps": "1",
            "gain_exp_rates": "0.1, 0.3",
        },
    ),
    ("cl-size", "app_pages/clusters.py", {**EST, "cl_view": "ε_target vs cluster size"}),
    ("cl-fraction", "app_pages/clusters.py", {**EST, "cl_view": "ε_target vs fraction drawn"}),
    ("cl-pop", "app_pages/clusters.py", {**EST, "cl_view": "This population's clusters"}),
    ("cl-pop-beta", "app_pages/clusters.py", {"cl_view": "This population's clusters"}),
    ("cl-two", "app_pages/clusters.py", {**EST, "cl_view": "Two-stage"}),
    ("cl-other", "app_pages/clusters.py", {**EST, "cl_view": "PPS & systematic"}),
    ("cl-test", "app_pages/clusters.py", {**EST, "cl_view": "Hypothesis-testing view"}),
    ("strat-alloc", "app_pages/strata.py", {**EST, "strat_view": "Allocations and accuracy"}),
    ("strat-alloc-m", "app_pages/strata.py", {**EST, "strat_m": "2000"}),
    ("strat-alloc-beta", "app_pages/strata.py", {}),
    ("strat-privacy", "app_pages/strata.py", {**EST, "strat_view": "Privacy"}),
    ("strat-sim", "app_pages/strata.py", {**EST, "strat_view": "Simulation check"}),
    (
        "strat-size",
        "app_pages/strata.py",
        {**EST, "strat_view": "Random sample size (Theorem 3.1)"},
    ),
    ("sp-curve", "app_pages/statistical.py", {"sp_view": "Privacy curve δ(ε)"}),
    ("sp-pi", "app_pages/statistical.py", {"sp_view": "δ against π (Figures 1–4, 6)"}),
    ("sp-eu", "app_pages/statistical.py", {"sp_view": "Equal utility (Figures 5, 7, 8)"}),
)


def page_fingerprint(page: str, query: dict[str, str]) -> dict[str, object]:
    """Fingerprints of every chart's data (in page order); digests of code blocks and texts."""
    at = open_page(page, query)
    return {
        "charts": [fingerprint(chart["data"]) for chart in charts(at)],
        "code": structure_digest([c.value for c in at.code]),
        "text": structure_digest(
            [
                m.value
                for kind in ("markdown", "caption", "success", "info", "warning", "error")
                for m in at.get(kind)
            ]
        ),
    }


@pytest.mark.parametrize(("name", "page", "query"), STATES, ids=[s[0] for s in STATES])
def test_charts_match_the_snapshot_recorded_before_the_restructuring(name, page, query):
    expected = json.loads(SNAPSHOT.read_text())[name]
    got = page_fingerprint(page, query)
    assert len(got["charts"]) == len(expected["charts"]), "a chart appeared or vanished"
    for i, (chart, recorded) in enumerate(zip(got["charts"], expected["charts"], strict=True)):
        assert_matches(chart, recorded, f"{name}, chart {i + 1}")
    assert got["code"] == expected["code"], "the code blocks changed"
    assert got["text"] == expected["text"], "the page's texts changed"


def record() -> None:
    """Write the snapshot file from the current code."""
    data = {name: page_fingerprint(page, query) for name, page, query in STATES}
    SNAPSHOT.write_text(dump_records(data))


if __name__ == "__main__":
    record()
