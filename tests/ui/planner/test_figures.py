"""ui.planner.figures: the chart's data are the planner's table rows (one line per design by
default, a colour per design and a dash per mechanism, bands clipped to a floor chosen from
the errors that matter); the ranked table is core's best rows; the composition chart draws
the curve it is given."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from core import planner, resolution
from core.mechanisms import MECHANISMS
from core.populations import make_builtin
from tests.pages.harness import array
from ui.format import fmt
from ui.planner import figures as figs

POP = make_builtin("lognormal", seed=1, size=3001)


def planner_mechanism_label(name: str) -> str:
    return str(MECHANISMS[name].label)


EST = make_builtin("establishments", seed=0, size=20_000)
STEP = resolution.resolution(EST.values)


@pytest.fixture(scope="module")
def result() -> planner.PlanResult:
    return planner.plan(POP, eps_target=0.3, designs=("census", "srs", "poisson"), reps=50)


def _lines(fig) -> list:
    return [t for t in fig.data if t.mode == "lines+markers"]


def _bands(fig) -> list:
    return [t for t in fig.data if t.fill == "toself"]


@pytest.mark.parametrize("objective", ["error_95", "rmse"])
def test_every_mechanism_draws_the_plan_table_rows(objective):
    res = planner.plan(POP, eps_target=0.3, designs=("census", "srs"), reps=50, objective=objective)
    fig, data = figs.objective_figure(res, lines=figs.ALL_LINES)
    value, se, _ = figs.objective_column(objective)
    drawn = sum(len(t.x) for t in _lines(fig))
    assert drawn == int((res.table["design"] != "census").sum())
    assert len(data) == drawn + 1  # and the census reference row
    for trace in _lines(fig):
        names = [
            figs.series_name(d, m)
            for d, m in zip(res.table["design"], res.table["mechanism_label"], strict=True)
        ]
        rows = res.table[np.array(names) == trace.name].sort_values("rate")
        np.testing.assert_array_equal(array(trace.x), rows["rate"].to_numpy())
        floor = 10 ** fig.layout.yaxis.range[0]
        np.testing.assert_array_equal(array(trace.y), np.maximum(rows[value].to_numpy(), floor))
        band = next(b for b in _bands(fig) if b.legendgroup == trace.name)
        upper = array(band.y)[: len(rows)]
        # The 95 % bound's band is core's Monte Carlo interval; the RMSE's is ±2 s.e.
        top = rows["error_95_high"] if objective == "error_95" else rows[value] + 2 * rows[se]
        np.testing.assert_allclose(upper, np.maximum(top, floor))
    best = next(t for t in fig.data if t.name == "best plan")
    assert (best.x[0], best.y[0]) == (res.recommended["rate"], res.recommended[value])
    assert fig.layout.shapes[0].y0 == res.census[value]
    assert fig.layout.xaxis.type == "log"


@pytest.fixture(scope="module")
def establishments() -> planner.PlanResult:
    """The establishment register (whole employees, median 3, heavy ties) at ε_target = 1:
    the census is exact to the data's resolution, far below the sampled designs' errors."""
    return planner.plan(EST, eps_target=1.0, reps=50)


def test_default_chart_draws_one_line_per_design_with_its_best_mechanism(establishments):
    fig, data = figs.objective_figure(establishments, resolution=STEP)
    lines = _lines(fig)
    sampled = [d for d in establishments.best_by_design["design"] if d != "census"]
    assert len(lines) == len(set(sampled)) == 5
    best = establishments.best_by_design.drop_duplicates("design").set_index("design")
    for trace in lines:
        design = next(
            d for d in set(sampled) if trace.name.startswith(figs.LEGEND_DESIGNS[d] + ",")
        )
        assert trace.name == figs.series_name(design, best.loc[design, "mechanism_label"])
        assert trace.line.color == figs.design_colour(design)
        assert trace.line.dash == figs.mechanism_dash(best.loc[design, "mechanism"])
    assert len({t.line.color for t in lines}) == len(lines)  # a colour per design
    assert set(data["design"]) == {*sampled, "census"}


def test_every_mechanism_keeps_colour_per_design_and_dash_per_mechanism(establishments):
    fig, _ = figs.objective_figure(establishments, lines=figs.ALL_LINES, resolution=STEP)
    lines = _lines(fig)
    pairs = establishments.table[establishments.table["design"] != "census"]
    assert len(lines) == len(pairs.drop_duplicates(["design", "mechanism"]))
    colour_of, dash_of = {}, {}
    for trace in lines:
        design, mechanism = trace.name.rsplit(", ", 1)[0], trace.name.rsplit(", ", 1)[1]
        colour_of.setdefault(design, set()).add(trace.line.color)
        dash_of.setdefault(mechanism, set()).add(trace.line.dash)
    assert all(len(c) == 1 for c in colour_of.values())
    assert len({next(iter(c)) for c in colour_of.values()}) == len(colour_of)
    assert all(len(d) == 1 for d in dash_of.values())
    assert len({next(iter(d)) for d in dash_of.values()}) == len(dash_of)
    assert "dot" not in {t.line.dash for t in lines}  # dotted: the census reference only


def test_one_mechanism_across_designs(establishments):
    fig, data = figs.objective_figure(establishments, lines="exponential", resolution=STEP)
    assert {t.name.rsplit(", ", 1)[1] for t in _lines(fig)} == {"exponential mechanism"}
    assert set(data["mechanism"]) == {"exponential"}  # the census reference too
    census = establishments.table.query("design == 'census' and mechanism == 'exponential'")
    assert fig.layout.shapes[0].y0 == float(census["error_95"].iloc[0])


def test_bands_clip_to_the_floor_and_the_range_follows_the_errors_that_matter(establishments):
    for lines in (figs.BEST_LINES, figs.ALL_LINES):
        fig, data = figs.objective_figure(establishments, lines=lines, resolution=STEP)
        low, high = (10**e for e in fig.layout.yaxis.range)
        errors = data["error_95"].to_numpy(dtype=float)
        matter = errors[errors > resolution.exact_threshold(STEP)]
        assert errors.min() < 1e-20  # the census: exact, far below the resolution
        assert low == pytest.approx(matter.min() / figs.FLOOR_MARGIN)
        assert low > resolution.exact_threshold(STEP) / figs.FLOOR_MARGIN
        assert high <= max(matter.max() * 4, low * 10 ** (figs.MIN_DECADES + 0.01)) * 2
        assert all(low <= v <= high for v in matter)
        assert len(_bands(fig)) == len(_lines(fig))
        for trace in fig.data:
            assert array(trace.y).min() >= low * (1 - 1e-12), trace.name
        assert all(s.y0 >= low * (1 - 1e-12) for s in fig.layout.shapes)
        for band in _bands(fig):
            assert band.hoverinfo == "skip" and band.showlegend is False
    note = figs.exact_note(establishments, resolution=STEP)
    assert note is not None and "exact to the data's resolution" in note


def _band_pieces(band) -> list[tuple[np.ndarray, np.ndarray]]:
    """The closed pieces of a band trace, split at its gaps (None)."""
    pieces, xs, ys = [], [], []
    for x, y in zip([*band.x, None], [*band.y, None], strict=True):
        if x is None:
            if xs:
                pieces.append((np.array(xs, dtype=float), np.array(ys, dtype=float)))
            xs, ys = [], []
        else:
            xs.append(x)
            ys.append(y)
    return pieces


def test_band_follows_its_line_in_rate_order_clipped_at_the_floor_and_split_at_gaps(result):
    """Issue 35 §4: the Poisson-cluster band of the survey ran to the bottom of the axis
    across rates. Rows out of rate order, a rate with no estimate and an interval reaching
    0: each band is its line's Monte Carlo interval (core's ``error_95_low`` to
    ``error_95_high``) in rate order, at or above the axis floor, in one closed piece per
    run of rates with an estimate."""
    table = result.table.sample(frac=1.0, random_state=3).reset_index(drop=True)
    srs = table.index[(table["design"] == "srs") & (table["mechanism"] == "exponential")]
    by_rate = table.loc[srs].sort_values("rate").index
    gap, wide = by_rate[3], by_rate[6]
    ends = ["error_95_low", "error_95_high"]
    table.loc[gap, ["error_95", "error_95_se", *ends]] = np.nan
    table.loc[wide, "error_95_low"] = 0.0  # an interval that reaches 0
    fig, _ = figs.objective_figure(dataclasses.replace(result, table=table), lines=figs.ALL_LINES)
    floor = 10 ** fig.layout.yaxis.range[0]
    for line in _lines(fig):
        band = next(b for b in _bands(fig) if b.legendgroup == line.name)
        rows = table[
            [
                figs.series_name(d, m) == line.name
                for d, m in zip(table["design"], table["mechanism_label"], strict=True)
            ]
        ].sort_values("rate")
        known = rows[np.isfinite(rows["error_95"])]
        pieces = _band_pieces(band)
        assert len(pieces) == (2 if (rows.index == gap).any() else 1), line.name
        drawn_x = np.concatenate([x[: len(x) // 2] for x, _ in pieces])
        np.testing.assert_array_equal(drawn_x, known["rate"].to_numpy())  # the line's rates
        for x, y in pieces:
            half = len(x) // 2
            assert np.all(np.diff(x[:half]) > 0), line.name  # rate order within a piece
            np.testing.assert_array_equal(x[half:], x[:half][::-1])
            assert y.min() >= floor, line.name
            mine = known.set_index("rate").loc[x[:half]]
            np.testing.assert_allclose(y[:half], np.maximum(mine["error_95_high"], floor))
            np.testing.assert_allclose(y[half:][::-1], np.maximum(mine["error_95_low"], floor))
            # The interval holds its line (exact rows: a band of no width).
            assert (mine["error_95_low"] <= mine["error_95"]).all()
            assert (mine["error_95"] <= mine["error_95_high"]).all()
        if (rows.index == wide).any():
            at = float(table.loc[wide, "rate"])
            x, y = next(p for p in pieces if at in p[0])
            assert y[len(x) - 1 - list(x[: len(x) // 2]).index(at)] == floor


def test_census_label_sits_away_from_the_star_and_hover_tells_the_true_error(establishments):
    fig, _ = figs.objective_figure(establishments, resolution=STEP)
    # The star marks the recommended plan: the census (a sample ahead of it by less than
    # its Monte Carlo error is not recommended), at rate 1, the right end.
    assert establishments.recommended["design"] == "census"
    census = fig.layout.shapes[0]
    assert census.label.text == "census (exact)" and census.label.textposition == "start"
    star = next(t for t in fig.data if t.name == "best plan")
    assert fmt(float(establishments.recommended["error_95"]), "error") in star.text[0]
    assert "exact to the data's resolution" in star.text[0]
    assert fig.layout.xaxis.title.standoff > 0


def test_accounting_column_reaches_the_hover_and_the_ranked_table(result):
    def words(rows: pd.DataFrame) -> list[str]:
        return [f"bound of {d}" for d in rows["design"]]

    table = result.table.assign(accounting=words(result.table))
    best = result.best_by_design.assign(accounting=words(result.best_by_design))
    with_words = dataclasses.replace(result, table=table, best_by_design=best)
    fig, data = figs.objective_figure(with_words)
    line = next(t for t in _lines(fig) if t.name.startswith("SRS"))
    assert all("accounting: bound of srs" in t for t in line.text)
    assert "accounting" in data.columns and "accounting" in figs.full_table(with_words)
    ranked = figs.ranked_table(with_words)
    assert list(ranked["accounting"]) == words(best)
    # core states every row's bound; a table without the column still draws.
    assert "accounting" in figs.ranked_table(result).columns
    bare = dataclasses.replace(
        result,
        table=result.table.drop(columns="accounting"),
        best_by_design=result.best_by_design.drop(columns="accounting"),
    )
    assert "accounting" not in figs.ranked_table(bare).columns


def test_target_line_is_drawn(result):
    fig, _ = figs.objective_figure(result, target=1.25)
    assert [s.y0 for s in fig.layout.shapes][-1] == 1.25


def _label_side(shape) -> str:
    return "below" if shape.label.yanchor == "top" else "above"


@pytest.mark.parametrize("factor", [0.98, 1.0, 1.02])
def test_your_bound_and_census_labels_never_sit_on_the_other_line(result, factor):
    """Issue 35 §4: accuracy first drew "your bound" on the census line (the search stops
    where the best bound meets the target, often next to the census). The upper line's
    label is above it, the lower line's below it, both at the end away from the star."""
    census = float(result.census["error_95"])
    target = census * factor
    fig, _ = figs.objective_figure(result, target=target)
    census_line, target_line = fig.layout.shapes
    assert census_line.y0 == census and target_line.y0 == target
    assert target_line.label.text == "your bound"
    assert census_line.label.textposition == target_line.label.textposition
    star = float(result.best["rate"])
    away = "start" if star > float(np.sqrt(result.table["rate"].min())) else "end"
    assert target_line.label.textposition == away
    if target < census:
        assert (_label_side(target_line), _label_side(census_line)) == ("below", "above")
    else:
        assert (_label_side(target_line), _label_side(census_line)) == ("above", "below")


def test_ranked_table_is_cores_best_rows(result):
    ranked = figs.ranked_table(result)
    best = result.best_by_design
    assert list(ranked["design"]) == [figs.SHORT_DESIGNS[d] for d in best["design"]]
    assert all(
        m in label for m, label in zip(ranked["mechanism"], best["mechanism_label"], strict=True)
    )
    np.testing.assert_array_equal(ranked["best rate"], best["rate"])
    np.testing.assert_array_equal(ranked["95 % bound"], best["error_95"])
    np.testing.assert_array_equal(ranked["RMSE"], best["rmse"])
    np.testing.assert_array_equal(ranked["gain vs census"], best["gain"])
    mse = best["sampling_part"] + best["noise_part"]
    np.testing.assert_allclose(ranked["sampling part"], best["sampling_part"] / mse)
    np.testing.assert_allclose(ranked["sampling part"] + ranked["noise part"], 1.0)


def test_composition_figure_draws_its_curve():
    curve = pd.DataFrame(
        {
            "eps_target": [0.1, 1.0, 10.0],
            "eps_target_correct": [0.1, 1.0, 10.0],
            "eps_target_naive": [0.1, 0.8, 5.0],
        }
    )
    fig, data = figs.composition_figure(curve, eps_target=1.0)
    pd.testing.assert_frame_equal(data, curve)
    np.testing.assert_array_equal(array(fig.data[1].y), [0.1, 0.8, 5.0])
    assert fig.layout.shapes[0].x0 == 1.0


def test_short_names():
    assert figs.short_mechanism("median, exponential mechanism") == "exponential mechanism"
    assert figs.short_mechanism("odd label") == "odd label"
    assert figs.series_name("srs", "mean, Laplace noise") == "SRS, Laplace noise"  # unknown
    laplace = planner_mechanism_label("laplace")
    assert figs.series_name("stratified_proportional", laplace) == "Stratified, Laplace (R/n)"
    every = (*planner.QUANTILE_MECHANISMS, *planner.NO_UPPER_MECHANISMS, *planner.MEAN_MECHANISMS)
    for name in every:
        legend = figs.series_name("stratified_proportional", planner_mechanism_label(name))
        assert len(legend) <= 40 and legend.count(", ") == 1, legend  # fits a phone's width
    assert figs.short_design("unknown") == "unknown"


def test_the_csvs_recommended_row_is_the_recommended_plan_with_its_usable_flag():
    """Issue 35: the page's too-noisy flag is in the CSV, on the plan the page recommends."""
    pop = make_builtin("lognormal", seed=0, size=2000)
    noisy = planner.plan(pop, eps_target=0.001, designs=("census", "srs"), reps=30)
    table = figs.full_table(noisy, usable_share=0.5, lower=pop.lower, upper=pop.upper)
    row = table[table["recommended"]]
    assert len(row) == 1
    chosen = noisy.recommended
    assert row["design"].iloc[0] == chosen["design"]
    assert row["mechanism"].iloc[0] == chosen["mechanism"]
    assert not row["usable"].iloc[0]  # too noisy to use, as the page says


def test_hover_names_the_exact_profile_where_it_gains():
    # δ_target / rate = 0.67 at rate 0.015: the Gaussian mean's δ_sample is capped at 0.5
    # and its exact privacy profile allows a larger ε_sample; the hover says so, with the
    # generic theorem's ε_sample beside it.  At rate 0.2 the two agree: no such words.
    res = planner.plan(
        POP,
        statistic="mean",
        eps_target=1.0,
        delta_target=0.01,
        designs=("census", "srs"),
        rates=(0.015, 0.2),
        mechanisms=("gaussian",),
        reps=20,
        refine=False,
    )
    fig, _ = figs.objective_figure(res, lines=figs.ALL_LINES)
    line = next(t for t in _lines(fig) if t.name.startswith("SRS"))
    low, high = sorted(zip(array(line.x), line.text, strict=True))
    row = res.table[(res.table["design"] == "srs")].sort_values("rate").iloc[0]
    assert "(exact privacy loss distribution) instead of" in low[1]
    assert "(generic theorem)" in low[1]
    assert f"ε_sample {fmt(row['eps_sample'], 'guarantee')}" in low[1]
    assert "instead of" not in high[1]


def test_records_of_are_pandas_records(result):
    """The chart's hover texts read rows built from whole columns: the same dictionaries as
    pandas' records (Python scalars, NaN where a value is missing)."""
    for table in (result.table, figs.full_table(result), result.table.iloc[:0]):
        mine, theirs = figs.records_of(table), table.to_dict("records")
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs, strict=True):
            assert a.keys() == b.keys()
            for key in a:
                assert type(a[key]) is type(b[key]) or (a[key] != a[key] and b[key] != b[key])
                assert a[key] == b[key] or (a[key] != a[key] and b[key] != b[key])
