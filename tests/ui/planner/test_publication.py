"""The pure parts of the planner's publication tab (ui.planner.publication), without an app.

The batch config it writes loads with ``core.publication.config.load_config`` (as the batch
loads it) and asks for the same plan; the heat map's colours are the table's relative errors
(capped) with the unpublishable cells marked; the composition words state the cell budget,
the shares and the recomputed ε.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from core.populations import make_builtin
from core.publication import TablePlan, plan_table
from core.publication.config import load_config
from ui.format import fmt
from ui.planner import publication_text as ptext
from ui.planner.exports.publication_package import config_yaml

POP = make_builtin("establishments", seed=3, size=400)


@functools.cache
def _plan() -> TablePlan:
    """The table the tests read, planned once per test process when a test first needs it
    (not while the suite is collected)."""
    return plan_table(
        POP, ["strata"], ["median", {"quantile": 0.9}], 1.0, designs=["poisson"], reps=10, seed=4
    )


def test_groups_and_statistics_offered() -> None:
    assert ptext.groups_of(POP) == ["strata", "clusters"]
    assert ptext.group_label(POP, "strata") == f"{POP.stratum_label} (strata)"
    lognormal = make_builtin("lognormal", seed=0, size=50)
    assert ptext.groups_of(lognormal) == []
    assert "mean" in ptext.statistics_offered(True)
    assert "mean" not in ptext.statistics_offered(False)


@pytest.mark.parametrize("labels_fixed", [False, True])
def test_config_loads_in_batch_and_asks_for_the_same_plan(tmp_path, labels_fixed: bool) -> None:
    settings = {**_plan().settings, "labels_fixed": labels_fixed, "rates": [0.1, 0.5]}
    entry = ptext.population_entry(POP, "establishments", 3)
    config = ptext.config_dict(entry, settings, ["median", {"quantile": 0.9}])
    path = tmp_path / "publication.yaml"
    path.write_text(config_yaml(config), encoding="utf-8")
    loaded = load_config(path)
    kwargs = loaded.plan_kwargs()
    assert loaded.population == {"builtin": "establishments", "seed": 3, "size": 400}
    for key in ("groups", "eps_target", "relation", "designs", "seed", "publish_share"):
        assert kwargs[key] == settings[key], key
    assert kwargs["labels_fixed"] is labels_fixed
    assert kwargs["reps"] == settings["reps"] and kwargs["rates"] == [0.1, 0.5]
    assert kwargs["delta_target"] == pytest.approx(settings["delta_target"], rel=1e-15)
    assert kwargs["statistics"] == ["median", {"quantile": 0.9}]


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    """The labelled Stata survey on disk and its population as the upload form builds it."""
    from core.populations import load_population_file
    from tests import survey_file

    folder = tmp_path_factory.mktemp("survey")
    path = survey_file.write_survey(folder)
    pop = load_population_file(
        path.read_bytes(),
        filename=survey_file.FILENAME,
        value_column=survey_file.VALUE,
        lower=survey_file.LOWER,
        upper=survey_file.UPPER,
        stratum_column=[survey_file.STRATUM],
        cluster_column=list(survey_file.CLUSTER),
        name=survey_file.FILENAME,
    )
    return folder, pop


def test_an_uploaded_files_config_says_what_the_page_used(survey) -> None:
    """Issue 35 §5: the config of an upload was a placeholder (register.csv, value, [0, 1], no
    labels); it now names the file, the value column, the bounds and the label columns, says
    how the file was read, and builds the page's population once the file is beside it."""
    from core.publication.config import build_population

    folder, pop = survey
    entry = ptext.population_entry(pop, "uploaded", 0)
    assert entry == {
        "file": "health_survey.dta",
        "value_column": "zinc",
        "lower": 0.0,
        "upper": 250.0,
        "strata_column": "stratid",
        "cluster_column": ["stratid", "psuid"],
    }
    config = ptext.config_dict(entry, {**_plan().settings, "groups": ["strata"]}, ["median"])
    text = config_yaml(config, pop)
    comments = " ".join(line for line in text.splitlines() if line.startswith("#"))
    assert "health_survey.dta" in comments and "put its path" in comments
    assert "10,351 rows in the file" in comments
    assert "14 rows dropped" in comments and "0 values clipped" in comments
    path = folder / "publication.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_config(path)
    assert loaded.population == entry
    built = build_population(loaded)
    assert built.content_hash == pop.content_hash
    assert built.stratum_label == "stratid" and built.cluster_label == "stratid × psuid"


def test_a_population_built_in_code_gets_its_own_columns_and_bounds(tmp_path) -> None:
    entry = ptext.population_entry(POP, "uploaded", 0)
    assert entry == {
        "file": "population.csv",
        "value_column": POP.value_label,
        "lower": POP.lower,
        "upper": POP.upper,
        "strata_column": POP.stratum_label,
        "cluster_column": POP.cluster_label,
    }
    config = ptext.config_dict(entry, _plan().settings, ["median"])
    path = tmp_path / "publication.yaml"
    path.write_text(config_yaml(config, POP), encoding="utf-8")
    assert "not read from a file" in path.read_text(encoding="utf-8")
    assert load_config(path).population == entry


def test_heat_map_colours_are_the_capped_relative_errors() -> None:
    fig, data = ptext.heatmap_figure(_plan())
    trace = fig.data[0]
    z = np.asarray(trace.z, dtype=float)
    t = _plan().table
    assert z.shape == (t["cell"].nunique(), 2)
    assert list(trace.x) == ["median", "quantile 0.9"]
    rel = data.set_index(["cell", "statistic"])["relative_error"]
    for i, cell in enumerate(trace.y):
        for j, stat in enumerate(trace.x):
            value = float(rel[(cell, stat)])
            expected = min(value, 1.0) if math.isfinite(value) else 1.0
            assert z[i, j] == pytest.approx(expected, rel=1e-12)
            marked = str(trace.text[i][j]).startswith("✗")
            assert marked == (
                not bool(data.set_index(["cell", "statistic"]).loc[(cell, stat), "publishable"])
            )
    assert len(data) == len(t)


def test_composition_words_state_the_budget_shares_and_the_check() -> None:
    words = ptext.composition_words(_plan())
    assert _plan().budget.reason in words
    assert "median 50 %" in words and "quantile 0.9 50 %" in words
    assert "ε = 1 for the promised ε_target = 1" in words
    assert "not used" in words  # the fixed-size simple random sample is refused, with why


def test_shown_table_keeps_the_rows_and_names_the_designs() -> None:
    shown = ptext.shown_table(_plan())
    assert len(shown) == len(_plan().table)
    assert list(shown.columns[:2]) == [POP.stratum_label, "statistic"]
    np.testing.assert_allclose(shown["b₉₅"], _plan().table["error_95"], rtol=1e-12)


def test_an_optimised_split_is_said_with_its_shares() -> None:
    plan = plan_table(
        POP,
        ["strata"],
        ["median", "mean"],
        1.0,
        designs=["poisson"],
        rates=[0.3, 0.6],
        reps=5,
        split="optimal",
    )
    words = ptext.composition_words(plan)
    assert "optimised to minimise the largest relative 95 % error" in words
    for stat, share in zip(plan.statistics, plan.shares, strict=True):
        assert f"{stat} {fmt(share, 'share')}" in words
    assert sum(plan.shares) == pytest.approx(1.0, rel=1e-12)


def test_heat_map_cells_read_in_the_order_of_their_numbers():
    from core.publication.table import reading_order

    names = ["20-49", "250-499", "5-9", "1-4", "10-19", "100-249", "North / 10-19", "North / 5-9"]
    assert sorted(names, key=reading_order) == [
        "1-4",
        "5-9",
        "10-19",
        "20-49",
        "100-249",
        "250-499",
        "North / 5-9",
        "North / 10-19",
    ]


def _numbered_strata_plan():
    """12 strata labelled "1" … "12" (as an uploaded file's codes are), two statistics."""
    from core.population import Population

    rng = np.random.default_rng(7)
    strata = np.array([str(1 + i % 12) for i in range(1200)], dtype=object)
    values = np.round(rng.gamma(30.0, 3.0, size=1200))
    order = np.argsort(values, kind="stable")
    pop = Population(
        name="numbered strata",
        values=values[order],
        lower=0.0,
        upper=250.0,
        strata=strata[order],
        stratum_label="stratid",
    )
    return plan_table(pop, ["strata"], ["median", "mean"], 1.0, designs=["poisson"], reps=5)


def test_table_and_csv_rows_sort_cells_as_numbers_not_as_text() -> None:
    """Issue 35 §4: the survey's strata came as 1, 10, 11, …, 19, 2, 20, …"""
    plan = _numbered_strata_plan()
    assert list(dict.fromkeys(plan.table["stratid"]))[:3] == ["1", "2", "3"]  # core sorts
    shown = ptext.shown_table(plan)
    assert list(shown["stratid"]) == [s for s in range(1, 13) for _ in range(2)]
    assert list(shown["statistic"][:4]) == ["median", "mean", "median", "mean"]
    assert shown["stratid"].dtype.kind == "i"  # sorting by the header is numeric too
    csv = plan.table  # what the CSV download, the batch and the script write
    assert list(csv["stratid"]) == [str(s) for s in range(1, 13) for _ in range(2)]
    same = plan.table.set_index(["stratid", "statistic"]).loc[
        list(zip(csv["stratid"], csv["statistic"], strict=True)), "error_95"
    ]
    np.testing.assert_array_equal(csv["error_95"], same)  # rows moved whole
    fig, _ = ptext.heatmap_figure(plan)
    assert list(fig.data[0].y) == [str(s) for s in range(1, 13)]
    assert ptext.number_or_text("North") == "North" and ptext.number_or_text("2.5") == 2.5


def test_heat_map_colour_scale_is_centred_on_the_threshold_and_spans_the_data() -> None:
    """Issue 35 §4: every cell between 2 and 10 % on a 0–100 % scale looked alike and the
    publishable share was nowhere on the colour bar."""
    plan = _numbered_strata_plan()
    fig, data = ptext.heatmap_figure(plan)
    trace = fig.data[0]
    share = float(plan.settings["publish_share"])
    rel = data["relative_error"].to_numpy(dtype=float)
    z = np.asarray(trace.z, dtype=float)
    assert trace.zmin == pytest.approx(min(float(z.min()), share), rel=1e-12)
    assert trace.zmax == pytest.approx(max(float(z.max()), share), rel=1e-12)
    assert trace.zmax - trace.zmin < 0.5 * max(1.0, 2 * share)  # not the whole 0-100 %
    assert np.nanmin(rel) > 0
    # The two sides meet at the threshold: blues up to it, oranges beyond it.
    at = (share - trace.zmin) / (trace.zmax - trace.zmin)
    stops = [(float(p), c) for p, c in trace.colorscale]
    below = [c for p, c in stops if p < at or (p == at and c in ptext.PUBLISHABLE_COLOURS)]
    assert set(below) <= set(ptext.PUBLISHABLE_COLOURS)
    if 0 < at < 1:
        assert (at, ptext.PUBLISHABLE_COLOURS[1]) in stops
        assert (at, ptext.UNPUBLISHABLE_COLOURS[0]) in stops
    # The threshold is named on the colour bar.
    ticks = dict(zip(trace.colorbar.tickvals, trace.colorbar.ticktext, strict=True))
    assert ticks[share] == f"{fmt(share, 'share')} limit"
    # Both sides present when cells lie on both sides of the threshold.
    low, high = ptext.colour_span(np.array([0.02, 0.3]), 0.1)
    scale = ptext.threshold_colour_scale(low, high, 0.1)
    assert (low, high) == (0.02, 0.3)
    assert scale == [
        [0.0, ptext.PUBLISHABLE_COLOURS[0]],
        [pytest.approx(0.08 / 0.28), ptext.PUBLISHABLE_COLOURS[1]],
        [pytest.approx(0.08 / 0.28), ptext.UNPUBLISHABLE_COLOURS[0]],
        [1.0, ptext.UNPUBLISHABLE_COLOURS[1]],
    ]
    # Every cell below it: the scale ends at the threshold, all blue.
    low, high = ptext.colour_span(np.array([0.02, 0.09]), 0.1)
    assert (low, high) == (0.02, 0.1)
    assert ptext.threshold_colour_scale(low, high, 0.1)[-1][1] == ptext.PUBLISHABLE_COLOURS[1]


def test_live_rows_show_each_planned_row_as_the_finished_table_does() -> None:
    """The rows handed over while the table plans (``on_row``) are drawn under the bar
    with their cells' labels and the finished table's columns and values."""
    import streamlit as st

    from core.publication import cells_of
    from core.publication.table import TABLE_COLUMNS
    from ui.planner.publication import LiveTable

    names, labels, _ = cells_of(POP, ["strata"])
    live = LiveTable(st.empty(), "k", names, labels)
    live.report(None)
    columns = [c for c in TABLE_COLUMNS if c in _plan().table.columns]
    rows = _plan().table[columns].to_dict("records")
    for i, row in enumerate(rows):
        live.report((i, len(rows)))
        live.row(row)
    assert live.count == 2 * len(rows) + 1  # one drawing per report and per row
    partial = live.partial()
    shown = ptext.shown_table(_plan())
    assert list(partial.columns) == list(shown.columns)
    assert [str(v) for v in partial[POP.stratum_label]] == [
        str(v) for v in shown[POP.stratum_label]
    ]
    np.testing.assert_allclose(partial["b₉₅"], shown["b₉₅"], rtol=1e-12)
    assert list(partial["design"]) == list(shown["design"])


def test_table_plan_hands_each_row_to_the_page(monkeypatch) -> None:
    """The cached plan forwards ``_on_row`` to ``plan_table(on_row=)`` (rows stream)."""
    from ui.planner import publication as pub

    seen: list[dict] = []

    def fake_plan_table(*args, on_row=None, **kwargs):
        on_row({"cell": 0})
        return "plan"

    monkeypatch.setattr(pub, "plan_table", fake_plan_table)
    got = pub.table_plan(
        "on-row-test",
        POP,
        groups=("strata",),
        statistics=("median",),
        eps_target=1.0,
        delta_target=1e-6,
        relation="replacement",
        labels_fixed=False,
        designs=("poisson",),
        rates=None,
        reps=3,
        seed=12345,
        publish_share=0.1,
        _on_row=seen.append,
    )
    assert got == "plan"
    assert seen == [{"cell": 0}]
