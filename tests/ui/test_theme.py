"""ui.theme: one palette and dash per series, wrapped titles, log axes, reference lines.

Break caught (tests/break_checks.py ``theme-log-x-ignored``): ``chart_layout`` draws the x
axis linear when a log axis is asked for.
"""

from __future__ import annotations

import pytest

from ui import theme


def test_series_style_cycles_palette_and_dashes():
    first, seventh = theme.series_style(0), theme.series_style(len(theme.PALETTE))
    assert first["color"] == theme.PALETTE[0] == seventh["color"]
    assert theme.series_style(1)["dash"] == theme.DASHES[1]
    assert theme.series_style(len(theme.DASHES))["dash"] == theme.DASHES[0]
    styles = {(s["color"], s["dash"]) for s in map(theme.series_style, range(6))}
    assert len(styles) == 6


def test_wrap_title_keeps_lines_short_and_words_whole():
    title = "Privacy curve: the smallest δ for each ε (ε = 1, n = 100)"
    wrapped = theme.wrap_title(title, width=52)
    lines = wrapped.split("<br>")
    assert len(lines) == 2 and all(len(line) <= 52 for line in lines)
    long = "word " * 25
    assert all(len(line) <= 52 for line in theme.wrap_title(long).split("<br>"))
    assert lines[-1] == "(ε = 1, n = 100)"
    assert " ".join(lines) == title
    assert theme.wrap_title("short") == "short"
    with pytest.raises(ValueError, match="at least 10"):
        theme.wrap_title(title, width=5)


def test_chart_layout_carries_titles_axis_types_and_grows_with_the_title():
    layout = theme.chart_layout(
        title="t", x_title="sampling rate n/N", y_title="ε_sample", log_x=True
    )
    assert layout["xaxis"]["title"]["text"] == "sampling rate n/N"
    assert layout["yaxis"]["title"]["text"] == "ε_sample"
    assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "linear"
    long = theme.chart_layout(title="word " * 30, x_title="x", y_title="y")
    assert long["height"] > layout["height"] and long["margin"]["t"] > layout["margin"]["t"]


def test_make_figure_line_trace_and_reference_line():
    trace = theme.line_trace([1, 2], [3, 4], "ε = 1", 2, "%{y}")
    layout = theme.chart_layout(title="t", x_title="x", y_title="y")
    layout["shapes"] = [theme.reference_line(0.5, text="r = 1")]
    fig = theme.make_figure([trace], layout)
    assert list(fig.data[0].x) == [1, 2] and list(fig.data[0].y) == [3, 4]
    assert fig.data[0].line.color == theme.PALETTE[2] and fig.data[0].name == "ε = 1"
    shape = fig.layout.shapes[0]
    assert shape.y0 == shape.y1 == 0.5 and shape.line.dash == "dot"
    assert shape.label.text == "r = 1"
    assert "label" not in theme.reference_line(0.5)


def test_chart_config_names_the_png_after_the_chart():
    config = theme.chart_config("histogram")
    assert config["toImageButtonOptions"]["filename"] == "histogram"
    assert config["displaylogo"] is False


def test_reference_line_label_below_the_line_for_a_line_at_the_top():
    above = theme.reference_line(1.0, text="r = 1")
    below = theme.reference_line(1.0, text="r = 1", below=True)
    assert "yanchor" not in above["label"]
    assert below["label"]["yanchor"] == "top" and below["label"]["text"] == "r = 1"
    assert above["label"]["textposition"] == "end"
    assert theme.reference_line(1.0, text="r", at_start=True)["label"]["textposition"] == "start"


def _pieces(trace: dict) -> list[tuple[list[float], list[float]]]:
    """The closed pieces of a band trace: (x, y) runs between its gaps (None)."""
    pieces, xs, ys = [], [], []
    for x, y in zip([*trace["x"], None], [*trace["y"], None], strict=True):
        if x is None:
            if xs:
                pieces.append((xs, ys))
            xs, ys = [], []
        else:
            xs.append(x)
            ys.append(y)
    return pieces


def test_band_follows_its_line_in_x_order_split_at_gaps_and_raised_to_the_floor():
    # Unordered points, a gap (no estimate at x = 4) and a lower edge below 0.
    x = [5.0, 1.0, 3.0, 2.0, 4.0, 6.0]
    line = [5.0, 1.0, 3.0, 2.0, float("nan"), 6.0]
    spread = [1.0, 0.5, 4.0, 0.5, 1.0, 1.0]
    lower = [v - s for v, s in zip(line, spread, strict=True)]
    upper = [v + s for v, s in zip(line, spread, strict=True)]
    trace = theme.band_trace(x, lower, upper, colour="#0072B2", name="band", floor=0.25)
    assert trace["fill"] == "toself" and trace["showlegend"] is False
    assert trace["hoverinfo"] == "skip"
    pieces = _pieces(trace)
    assert len(pieces) == 2  # split at x = 4: no fill across the rate with no estimate
    expect = {1.0: (0.5, 1.5), 2.0: (1.5, 2.5), 3.0: (0.25, 7.0), 5.0: (4.0, 6.0), 6.0: (5.0, 7.0)}
    for (xs, ys), rates in zip(pieces, ([1.0, 2.0, 3.0], [5.0, 6.0]), strict=True):
        n = len(rates)
        assert xs[:n] == rates and xs[n:] == rates[::-1]  # upper edge out, lower edge back
        assert ys[:n] == [expect[r][1] for r in rates]
        assert ys[n:] == [expect[r][0] for r in rates[::-1]]  # the lower edge, at the floor
        assert min(ys) >= 0.25
    segments = theme.band_segments(x, lower, upper, floor=0.25)
    assert [list(s[0]) for s in segments] == [[1.0, 2.0, 3.0], [5.0, 6.0]]
    # Without a floor (a linear axis) the edges are the line ± its spread as given.
    (xs, lo, hi), _ = theme.band_segments(x, lower, upper)
    assert list(lo) == [0.5, 1.5, -1.0] and list(hi) == [1.5, 2.5, 7.0]
    with pytest.raises(ValueError, match="floor"):
        theme.band_segments(x, lower, upper, floor=0.0)
    with pytest.raises(ValueError, match="one value per point"):
        theme.band_segments(x[:2], lower, upper)
