"""The records of a planned table (core.publication.records): summary, registry entry, report.

Built on a three-cell table planned at T = 10, so each check reads numbers the plan itself
holds: the CSV is the table, the summary's totals are the table's, the registry entry names
the designs and mechanisms the table used, and the report escapes what a user typed.
"""

from __future__ import annotations

import html
import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from core.population import Population
from core.populations import make_builtin
from core.publication import TablePlan, plan_table
from core.publication.records import (
    RECORD_FILES,
    RELATION_WORDS,
    plan_csv,
    record_files,
    registry_entry,
    relation_words,
    report_html,
    strict_json,
    summary,
)


@pytest.fixture(scope="module")
def planned() -> tuple[Population, TablePlan]:
    pop = make_builtin("establishments", seed=2, size=600)
    keep = np.isin(pop.strata, ["1-4", "5-9", "10-19"])
    small = Population(
        "three size classes",
        pop.values[keep],
        pop.lower,
        pop.upper,
        strata=pop.strata[keep],
        clusters=pop.clusters[keep],
        stratum_label="size_class",
    )
    tp = plan_table(
        small,
        ["strata"],
        ["median", "mean"],
        1.0,
        designs=["poisson"],
        rates=[0.2, 0.5],
        reps=10,
        seed=7,
    )
    return small, tp


def test_plan_csv_is_the_table(planned) -> None:
    _, tp = planned
    back = pd.read_csv(io.StringIO(plan_csv(tp)))
    assert list(back.columns) == list(tp.table.columns)
    np.testing.assert_allclose(back["error_95"], tp.table["error_95"], rtol=1e-11)


def test_summary_carries_the_plan_and_its_settings(planned) -> None:
    pop, tp = planned
    out = summary(tp, pop, name="wages 2026", T=10, seed=7)
    assert out["name"] == "wages 2026" and out["T"] == 10 and out["seed"] == 7
    assert out["population"] == {"name": pop.name, "N": pop.size, "recipe": pop.recipe}
    assert out["groups"] == ["size_class"] and out["statistics"] == ["median", "mean"]
    assert out["rows"] == len(tp.table) and out["publishable"] == int(tp.table["publishable"].sum())


def test_relation_words_say_whether_a_record_may_move_between_cells() -> None:
    assert relation_words("deletion", False) == RELATION_WORDS["deletion"]
    assert relation_words("replacement", True).endswith("the grouping labels are fixed")
    assert "may move between cells" in relation_words("replacement", False)


def test_registry_entry_names_what_the_table_used(planned) -> None:
    pop, tp = planned
    entry = registry_entry(
        tp,
        pop,
        name="wages",
        eps_target=1.0,
        relation="replacement",
        labels_fixed=False,
        run_by="a test",
    )
    assert entry["epsilon"] == 1.0 and entry["delta"] == tp.settings["delta_target"]
    assert entry["privacy_unit"] == "one record of the population"
    assert entry["implementation"].endswith("run by a test")
    assert len(entry["mechanisms"]) >= 1
    # whether the cell sizes are public is part of the guarantee (issue 35)
    assert entry["sizes_public"] is tp.settings["sizes_public"]
    assert entry["sizes"] == tp.summary()["sizes"]
    json.loads(strict_json(entry))  # strict JSON, nothing left unserialisable


def test_report_escapes_user_text_and_states_the_promise(planned) -> None:
    pop, tp = planned
    page = report_html(
        tp,
        pop,
        name="<script>x</script>",
        eps_target=1.0,
        relation="deletion",
        publish_share=0.1,
    )
    assert "<script>x</script>" not in page and "&lt;script&gt;" in page
    assert "ε_target = 1" in page and RELATION_WORDS["deletion"] in page
    assert html.escape(tp.summary()["sizes"]) in page


def test_strict_json_writes_null_for_what_was_not_planned() -> None:
    text = strict_json({"a": math.nan, "b": [np.float64(math.inf), np.int64(3)], 4: (1.5,)})
    assert json.loads(text) == {"a": None, "b": [None, 3], "4": [1.5]}


def test_record_files_are_the_four_records_in_order(planned) -> None:
    """What the batch writes and the page's zip holds: the same texts as each function's."""
    pop, tp = planned
    kw = dict(name="wages", eps_target=1.0, relation="deletion", labels_fixed=True)
    files = record_files(tp, pop, T=10, seed=7, publish_share=0.2, run_by="a test", **kw)
    assert tuple(files) == RECORD_FILES
    assert files["plan.csv"] == plan_csv(tp)
    assert files["summary.json"] == strict_json(summary(tp, pop, name="wages", T=10, seed=7))
    entry = registry_entry(tp, pop, run_by="a test", **kw)
    assert files["registry.json"] == strict_json(entry)
    report = report_html(
        tp, pop, name="wages", eps_target=1.0, relation="deletion", publish_share=0.2
    )
    assert files["report.html"] == report
