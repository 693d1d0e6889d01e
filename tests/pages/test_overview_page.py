"""AppTest of the Population page (app_pages/overview.py) and the notices every page shows."""

from __future__ import annotations

import io
import re
import subprocess
import sys

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from core.populations import load_population_csv
from tests.core.test_populations import nhanes_style_csv
from tests.pages.harness import ROOT, TIMEOUT, array, charts, open_page

PAGE = "app_pages/overview.py"


def _main_warnings(at) -> list[str]:
    return [w.value for w in at.main.warning]


def _summary(at) -> dict[str, str]:
    """The summary table as {quantity: value}."""
    frame = at.table[0].value
    return dict(zip(frame.index.tolist(), frame["value"].tolist(), strict=True))


def _open_uploaded(pop):
    """The Population page with ``pop`` as this session's uploaded, active population."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from ui.router import run_app\n"
        f"run_app(default_page={PAGE!r})\n"
    )
    at = AppTest.from_string(script, default_timeout=TIMEOUT)
    at.session_state["uploaded_population"] = pop
    at.session_state["population"] = "uploaded"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


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


def test_upload_size_limit_is_visible_without_hovering():
    at = open_page(PAGE)
    captions = " ".join(c.value for c in at.main.caption)
    assert "50 MB" in captions and "5,000,000 rows" in captions


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
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return dict(re.findall(r"^(\w+) = (.+)$", done.stdout, flags=re.MULTILINE))


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
