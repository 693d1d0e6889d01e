"""AppTest of the Population page (app_pages/overview.py) and the notices every page shows."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from core.populations import load_population_csv
from tests.core.csv_io.test_loading import nhanes_style_csv
from tests.pages.harness import array, charts, open_page, run_snippet

PAGE = "app_pages/overview.py"


def _main_warnings(at) -> list[str]:
    return [w.value for w in at.main.warning]


def _summary(at) -> dict[str, str]:
    """The summary table as {quantity: value}."""
    frame = at.table[0].value
    return dict(zip(frame.index.tolist(), frame["value"].tolist(), strict=True))


def _open_uploaded(pop):
    """The Population page with ``pop`` as this session's uploaded, active population."""
    return open_page(PAGE, uploaded=pop)


# --------------------------------------------------------------------------------------------
# Moved from test_pages_apptest.py (the summary is now a static table)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("population", ["lognormal", "beta", "bimodal", "establishments"])
def test_population_page_for_each_builtin(population):
    at = open_page(PAGE, {"population": population.capitalize()})
    assert at.selectbox(key="population").value == population
    assert not at.error


def test_population_page_bins_change_histogram():
    at = open_page(PAGE)
    before = charts(at)[0]
    at.slider(key="pop_bins").set_value(120).run()
    after = charts(at)[0]
    assert array(after["data"][0]["x"]).size == 120 != array(before["data"][0]["x"]).size


def test_seed_changes_population():
    at = open_page(PAGE)
    summary_before = at.table[0].value.copy()
    at.number_input(key="seed").set_value(7).run()
    assert not at.exception
    assert not at.table[0].value.equals(summary_before)


# --------------------------------------------------------------------------------------------
# Issue 10, item 5: a link with population=Uploaded, the visible size limit
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", [PAGE, "app_pages/amplification.py"])
def test_uploaded_in_a_link_without_an_upload_is_explained_on_the_page(page):
    at = open_page(page, {"population": "Uploaded"})
    assert at.selectbox(key="population").value == "lognormal"
    notices = [w for w in _main_warnings(at) if "never carried in links" in w]
    assert len(notices) == 1, _main_warnings(at)
    assert "Lognormal" in notices[0] and "built-in" in notices[0]
    # It stays while the user looks around, and goes once they pick a population.
    at.run()
    assert any("never carried in links" in w for w in _main_warnings(at))
    at.selectbox(key="population").set_value("beta").run()
    assert not any("never carried in links" in w for w in _main_warnings(at))


def test_plain_link_has_no_upload_notice():
    at = open_page(PAGE, {"population": "Beta"})
    assert not any("never carried in links" in w for w in _main_warnings(at))


def test_upload_size_limit_is_stated_once_by_the_uploader():
    import streamlit as st

    from core.populations import MAX_UPLOAD_BYTES

    at = open_page(PAGE)
    captions = " ".join(c.value for c in at.main.caption)
    assert "100,000,000 rows" in captions
    assert "Parquet" in captions and "SPSS .sav" in captions
    # The size is stated by the uploader alone, from the server's own setting.
    uploader = at.get("file_uploader")[0].proto
    assert uploader.max_upload_size_mb == st.get_option("server.maxUploadSize")
    assert uploader.max_upload_size_mb * 2**20 == MAX_UPLOAD_BYTES
    assert not re.search(r"\d\s*(MB|MiB|GB)", captions + uploader.help)


# --------------------------------------------------------------------------------------------
# Issue 10, item 3 and 8: survey ids, the note, Strata, numeric order of labels
# --------------------------------------------------------------------------------------------


def _nhanes(cluster_column):
    source = io.BytesIO(nhanes_style_csv())
    source.name = "nhanes.csv"
    return load_population_csv(
        source,
        value_column="bmi",
        lower=10,
        upper=80,
        stratum_column="stratid",
        cluster_column=cluster_column,
        name="nhanes.csv",
    )


def test_psu_alone_shows_the_cluster_strata_note_as_a_warning():
    at = _open_uploaded(_nhanes("psuid"))
    shared = [w for w in _main_warnings(at) if "more than one stratum" in w]
    assert len(shared) == 1 and "'stratid' and 'psuid' together" in shared[0]


def test_combined_cluster_id_has_no_note_and_labels_sort_numerically():
    at = _open_uploaded(_nhanes(["stratid", "psuid"]))
    assert not any("more than one stratum" in w for w in _main_warnings(at))
    text = " ".join(m.value for m in at.markdown)
    assert "Strata (stratid): 15" in text and "Clusters (stratid × psuid): 30" in text
    assert "Stratums" not in text
    strata, clusters = (d.value for d in at.dataframe[:2])
    assert strata["stratum"].tolist() == list(range(1, 16))
    assert clusters["cluster"].tolist()[:4] == ["1 / 1", "1 / 2", "2 / 1", "2 / 2"]
    assert clusters["cluster"].tolist()[-1] == "15 / 2"


# --------------------------------------------------------------------------------------------
# Issue 10, item 6: the Reproduce-in-Python snippet rebuilds the page's population
# --------------------------------------------------------------------------------------------


def _run_snippet(code: str) -> dict[str, str]:
    """Run ``code`` and read its ``name = text`` lines as ``{name: text}``."""
    return dict(re.findall(r"^(\w+) = (.+)$", run_snippet(code), flags=re.MULTILINE))


@pytest.mark.parametrize(
    "population", ["Lognormal", "Beta", "Bimodal", "Bimodal (paper's draw)", "Establishments"]
)
def test_snippet_prints_what_the_page_shows(population):
    at = open_page(PAGE, {"population": population, "seed": "3"})
    code = at.code[0].value
    printed = _run_snippet(code)
    summary = _summary(at)
    assert printed["N"] == summary["Population size"]
    assert printed["mean"] == summary["Mean"]
    assert printed["median"] == summary["Median (lower middle value)"]
    if population == "Establishments":
        text = " ".join(m.value for m in at.markdown)
        assert f"Strata (size_class): {printed['strata']}" in text
        assert f"Clusters (region): {printed['clusters']}" in text
        assert "stratum_column" not in code  # a built-in carries its labels itself


def test_snippet_of_an_upload_names_the_file_and_its_columns():
    at = _open_uploaded(_nhanes(["stratid", "psuid"]))
    code = at.code[0].value
    assert "load_population_csv('nhanes.csv'" in code
    assert "stratum_column='stratid'" in code
    assert "cluster_column=['stratid', 'psuid']" in code
    assert "lower=10.0" in code and "upper=80.0" in code
    values = at.table[0].value
    assert values.loc["Population size", "value"] == f"{_nhanes('psuid').size:,}"
    assert np.isfinite(float(values.loc["Mean", "value"]))


# --------------------------------------------------------------------------------------------
# Issue 11: the summary table's numbers and the log-scale histogram, checked against numpy
# --------------------------------------------------------------------------------------------


def _shown(at) -> dict[str, float]:
    """The summary table's numbers (thousands separators removed) by quantity."""
    return {
        k: float(v.replace(",", "")) for k, v in _summary(at).items() if v.replace(",", "") != "—"
    }


def _check_summary_against_numpy(at, pop) -> None:
    v = np.sort(np.asarray(pop.values, dtype=float))
    n = v.size
    k = -(-n // 2) - 1  # 0-based index of the ⌈N/2⌉-th order statistic (the lower middle one)
    table = _summary(at)
    shown = _shown(at)
    assert table["Population size"] == f"{n:,}"
    assert shown["Mean"] == pytest.approx(np.mean(v), rel=1e-5)
    assert shown["Standard deviation"] == pytest.approx(np.std(v, ddof=1), rel=1e-5)
    assert table["Median (lower middle value)"] == f"{v[k]:.6g}"
    # A median one rank off would show a different number: the neighbours differ at 6 digits.
    assert f"{v[k - 1]:.6g}" != table["Median (lower middle value)"] != f"{v[k + 1]:.6g}"
    if n % 2:
        assert table["Median (lower middle value)"] == f"{np.median(v):.6g}"
    else:
        assert shown["Median (lower middle value)"] < np.median(v)
    assert shown["Smallest value"] == pytest.approx(v[0], rel=1e-5)
    assert shown["Largest value"] == pytest.approx(v[-1], rel=1e-5)
    assert shown["Declared lower bound"] == pytest.approx(pop.lower, rel=1e-6, abs=1e-12)
    assert shown["Declared upper bound"] == pytest.approx(pop.upper, rel=1e-6)
    assert shown["Declared range"] == pytest.approx(pop.upper - pop.lower, rel=1e-6)


def test_summary_numbers_of_a_builtin_with_odd_size_equal_numpys():
    """N = 10,001 (odd): the median shown is np.median, the ⌈N/2⌉-th order statistic.

    Caught break (tests/break_checks.py ``population-median-off-by-one``): the summary reads
    ``v[mid + 1]`` instead of ``v[mid]``.
    """
    from core.populations import make_builtin

    at = open_page(PAGE, {"population": "Lognormal", "seed": "0"})
    pop = make_builtin("lognormal", seed=0)
    assert pop.size % 2 == 1
    _check_summary_against_numpy(at, pop)


def test_summary_numbers_of_an_upload_with_even_size_equal_numpys():
    """N = 2,000 (even): the median shown is the lower of the two middle values, rank N/2.

    Caught break (``population-median-off-by-one``): a median one rank too high shows the
    upper middle value. ``population-mean-wrong`` (mean over all but the last record) is
    caught too.
    """
    from core.populations import make_builtin

    pop = make_builtin("beta", seed=1, size=2000)
    at = _open_uploaded(pop)
    _check_summary_against_numpy(at, pop)


def _histogram(at) -> dict:
    return next(c for c in charts(at) if c["layout"]["title"]["text"].startswith("Distribution"))


@pytest.mark.parametrize("population", ["Lognormal", "Beta"])
def test_log_x_toggle_draws_log_spaced_bins_with_numpys_counts(population):
    """The ``pop_log_x`` toggle: a log x axis, bins of equal width in log y, counts that
    equal np.histogram of log(y) over [log max(L, min positive y), log U].

    Caught breaks: ``population-log-histogram-crash`` (the log branch raises) and
    ``population-log-histogram-linear-bins`` (the log branch uses linear edges).
    """
    from core.populations import make_builtin

    key = population.lower()
    bins = 40
    at = open_page(PAGE, {"population": population, "pop_bins": str(bins)})
    assert _histogram(at)["layout"]["xaxis"]["type"] == "linear"
    at.toggle(key="pop_to_bounds").set_value(True).run()
    at.toggle(key="pop_log_x").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.main.warning or all("log axis" not in w.value for w in at.main.warning)
    fig = _histogram(at)
    assert fig["layout"]["xaxis"]["type"] == "log"
    bars = next(t for t in fig["data"] if t["type"] == "bar")
    centres, counts, widths = array(bars["x"]), array(bars["y"]), array(bars["width"])

    pop = make_builtin(key, seed=0)
    v, upper = pop.values, pop.upper
    lo = max(pop.lower, float(v[v > 0].min()))
    log_edges = np.linspace(np.log(lo), np.log(upper), bins + 1)
    expected, _ = np.histogram(np.log(v[v > 0]), bins=log_edges)
    assert counts.size == bins
    np.testing.assert_array_equal(counts, expected)
    assert counts.sum() == np.count_nonzero(v >= lo)
    left, right = np.exp(log_edges[:-1]), np.exp(log_edges[1:])
    np.testing.assert_allclose(centres, np.sqrt(left * right), rtol=1e-9)
    np.testing.assert_allclose(widths, right - left, rtol=1e-9)
    # The median marker is drawn at the population's median on the log axis too.
    median = next(t for t in fig["data"] if (t.get("name") or "").startswith("median"))
    assert array(median["x"])[0] == v[(v.size - 1) // 2]


def test_log_x_toggle_on_a_population_without_positive_values_warns_not_crashes():
    """All values ≤ 0: the page says a log axis needs positive values and keeps it linear."""
    from core.populations import Population

    values = np.linspace(-50.0, -1.0, 101)
    pop = Population(name="negative", values=values, lower=-60.0, upper=-0.5)
    at = _open_uploaded(pop)
    at.toggle(key="pop_log_x").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("needs positive values" in w.value for w in at.main.warning)
    fig = _histogram(at)
    assert fig["layout"]["xaxis"]["type"] == "linear"
    bars = next(t for t in fig["data"] if t["type"] == "bar")
    # By default the bins span the data (-50 to -1), not the declared bounds (-60 to -0.5).
    expected, _ = np.histogram(values, bins=np.linspace(-50.0, -1.0, 61))
    np.testing.assert_array_equal(array(bars["y"]), expected)


def test_histogram_spans_the_data_by_default_and_the_bounds_on_request():
    """Issue 27: the lognormal ends far below U; the axis keeps to the data unless asked."""
    from core.populations import make_builtin

    pop = make_builtin("lognormal", seed=0)
    at = open_page(PAGE, {"population": "Lognormal"})
    bars = next(t for t in _histogram(at)["data"] if t["type"] == "bar")
    right = array(bars["x"])[-1] + array(bars["width"])[-1] / 2
    assert right == pytest.approx(pop.values[-1])
    assert _histogram(at)["layout"]["xaxis"]["range"][1] < pop.upper
    names = [t["name"] for t in _histogram(at)["data"] if t.get("showlegend")]
    assert any(n.startswith("U = ") and "off the axis" in n for n in names)
    assert any("The data run from" in c.value for c in at.caption)
    at = open_page(PAGE, {"population": "Lognormal", "pop_to_bounds": "true"})
    assert at.toggle(key="pop_to_bounds").value is True
    bars = next(t for t in _histogram(at)["data"] if t["type"] == "bar")
    right = array(bars["x"])[-1] + array(bars["width"])[-1] / 2
    assert right == pytest.approx(pop.upper)
    assert "range" not in _histogram(at)["layout"]["xaxis"]


# --- moved from test_pages_apptest.py -----------------------------------------------------


def test_page_runs_without_exception():
    at = open_page(PAGE)
    assert charts(at), f"{PAGE} drew no chart"
    assert not at.error, [e.value for e in at.error]
