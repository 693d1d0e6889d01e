"""The upload form (ui.population.upload) driven through AppTest: several id columns,
applied settings."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.core import bad_file_corpus
from tests.core.bad_file_corpus import labelled_frame
from tests.core.csv_io.test_loading import nhanes_style_csv
from tests.pages.harness import ROOT, TIMEOUT

SCRIPT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import streamlit as st
from ui.state import active_population, active_choice
from ui.population.upload import upload_form
upload_form()
pop = active_population()
st.text(f"active: {{active_choice()}} {{pop.name}} {{pop.size}}")
"""


def _form_with_nhanes() -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=TIMEOUT)
    at.run()
    at.file_uploader[0].set_value(("nhanes.csv", nhanes_style_csv(), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    at.selectbox[0].set_value("bmi").run()  # the bound boxes belong to the value column
    at.number_input[0].set_value(10.0)
    at.number_input[1].set_value(80.0)
    return at.run()


def _multiselect(at: AppTest, label_start: str):
    return next(m for m in at.multiselect if m.label.startswith(label_start))


def _use(at: AppTest) -> AppTest:
    next(b for b in at.button if b.label == "Use this population").click()
    return at.run()


def _active(at: AppTest):
    return at.session_state["uploaded_population"]


def test_several_columns_make_one_cluster_id():
    at = _form_with_nhanes()
    _multiselect(at, "Stratum").set_value(["stratid"])
    _multiselect(at, "Cluster").set_value(["stratid", "psuid"])
    _use(at.run())
    pop = _active(at)
    assert len(np.unique(pop.clusters)) == 30 and len(np.unique(pop.strata)) == 15
    assert pop.cluster_label == "stratid × psuid" and (pop.lower, pop.upper) == (10.0, 80.0)
    assert "cluster_column=['stratid', 'psuid']" in pop.recipe
    assert pop.recipe.startswith("load_population_file('nhanes.csv'")
    assert [s.value for s in at.success] and not at.warning
    assert at.text[-1].value.startswith("active: uploaded nhanes.csv")


def test_psu_alone_warns_beside_the_form():
    at = _form_with_nhanes()
    _multiselect(at, "Stratum").set_value(["stratid"])
    _multiselect(at, "Cluster").set_value(["psuid"])
    _use(at.run())
    warnings = [w.value for w in at.warning]
    assert any("more than one stratum" in w and "'stratid' and 'psuid'" in w for w in warnings)


def test_changed_settings_are_marked_not_applied_until_used():
    at = _form_with_nhanes()
    _multiselect(at, "Cluster").set_value(["psuid"])
    _use(at.run())
    before = _active(at)
    assert not any("Not applied" in w.value for w in at.warning)
    # Change the cluster columns and the upper bound: the pages still use the old settings.
    _multiselect(at, "Cluster").set_value(["stratid", "psuid"])
    at.number_input[1].set_value(60.0).run()
    pending = [w.value for w in at.warning if "Not applied" in w.value]
    assert len(pending) == 1 and "clusters psuid" in pending[0]
    assert "bounds [10, 80]" in pending[0]
    assert not at.success
    assert _active(at) is before
    _use(at)
    after = _active(at)
    assert after.upper == 60.0 and after.cluster_label == "stratid × psuid"
    assert not any("Not applied" in w.value for w in at.warning) and at.success


def test_size_limit_is_written_out():
    at = AppTest.from_string(SCRIPT, default_timeout=TIMEOUT).run()
    assert any("100,000,000 rows" in c.value for c in at.caption)
    assert any(
        "Parquet, Stata .dta, SAS .sas7bdat and .xpt, SPSS .sav" in c.value for c in at.caption
    )


def test_a_changed_bound_alone_is_marked_not_applied():
    at = _use(_form_with_nhanes())
    assert at.success and _active(at).upper == 80.0
    at.number_input[1].set_value(70.0).run()
    assert any("Not applied" in w.value for w in at.warning)
    assert not at.success  # "Every page now computes on …" would claim the new bound
    assert _active(at).upper == 80.0


def test_limits_text_states_cores_limits():
    """The limits shown under the uploader are core's limits, in MB and rows."""
    from core.populations import MAX_COLUMNS, MAX_ROWS, MAX_UPLOAD_BYTES
    from ui.population.upload import limits_text

    words = limits_text()
    assert f"{MAX_UPLOAD_BYTES // 2**20:,}" not in words  # the uploader states the size
    assert f"{MAX_ROWS:,} rows" in words and f"{MAX_COLUMNS:,} columns" in words


def _shown_size(limit_bytes: int, base: int) -> tuple[float, int]:
    """The uploader's own wording of a size ("419MB"): Streamlit's frontend goes up a unit
    while the value exceeds half the base, then rounds to a whole number; (number, unit)."""
    value, unit = float(limit_bytes), 1
    while unit < base**3 and value > base / 2:
        value, unit = value / base, unit * base
    return float(round(value)), unit


@pytest.mark.parametrize("base", [1000, 1024])  # Linux and Mac, Windows
def test_the_uploader_states_the_real_limit(base):
    """The server's limit, as the uploader words it, is within rounding of the limit (512
    MiB was shown as "1GB" in decimal units)."""
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    limit = config["server"]["maxUploadSize"] * 2**20
    number, unit = _shown_size(limit, base)
    assert abs(number * unit - limit) <= 0.01 * limit, (number, unit)


# --------------------------------------------------------------------------------------------
# Issue 15: Parquet, Stata, SAS and SPSS files through the same form
# --------------------------------------------------------------------------------------------


def _upload_file(name: str, data: bytes) -> AppTest:
    at = AppTest.from_string(SCRIPT, default_timeout=TIMEOUT)
    at.run()
    at.file_uploader[0].set_value((name, data, "application/octet-stream")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_uploader_accepts_every_format():
    at = AppTest.from_string(SCRIPT, default_timeout=TIMEOUT).run()
    accepted = {t.lstrip(".") for t in at.file_uploader[0].proto.type}
    assert {"csv", "parquet", "dta", "sav", "sas7bdat", "xpt"} <= accepted


@pytest.mark.parametrize(
    ("fmt", "name"), [("parquet", "survey.parquet"), ("spss", "survey.sav"), ("stata", "s.dta")]
)
def test_a_binary_file_becomes_the_active_population_with_its_labels(fmt, name):
    """Upload, pick the value and stratum columns, press the button: the labels are shown.

    Break it on purpose: read uploads with ``read_csv_table`` again (the old form): the
    Parquet and SPSS files are refused as binary files and no population becomes active.
    """
    frame, labels = labelled_frame(fmt)
    at = _upload_file(name, bad_file_corpus._write(fmt, frame, labels))
    assert any("Read 5 rows and 2 columns" in c.value for c in at.caption)
    at.selectbox[0].set_value("income").run()
    at.number_input[0].set_value(0.0)
    at.number_input[1].set_value(10.0)
    _multiselect(at.run(), "Stratum").set_value(["region"])
    _use(at.run())
    assert not at.exception, [e.value for e in at.exception]
    pop = _active(at)
    np.testing.assert_array_equal(pop.values, [1.5, 2.5, 3.5, 9.0])
    assert pop.strata.tolist() == ["South", "South", "North", "North"]
    assert pop.recipe == (
        f"load_population_file({name!r}, value_column='income', lower=0.0, upper=10.0, "
        "stratum_column='region')"
    )
    assert at.text[-1].value.startswith(f"active: uploaded {name}")
    assert any("Dropped 1 row" in i.value for i in at.info) or any(
        "Dropped 1 row" in n for n in pop.notes
    )


def test_a_renamed_file_is_explained_not_read():
    frame, _ = labelled_frame("parquet")
    at = _upload_file("survey.csv", bad_file_corpus._write("parquet", frame))
    errors = [e.value for e in at.error]
    assert any("This file is a Parquet file, not CSV" in e for e in errors), errors
    assert not [b for b in at.button if b.label == "Use this population"]


def test_value_column_defaults_to_the_measurement_and_says_why():
    at = AppTest.from_string(SCRIPT, default_timeout=TIMEOUT)
    at.run()
    at.file_uploader[0].set_value(("nhanes.csv", nhanes_style_csv(), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.selectbox[0]
    assert box.value == "bmi" and box.options[:3] == ["seqn", "stratid", "psuid"]
    said = [c.value for c in at.caption if c.value.startswith("Picked by default")]
    assert len(said) == 1 and "'bmi'" in said[0] and "'stratid', a sampling-design" in said[0]
    box.set_value("psuid").run()  # another column can still be chosen, with a word on it
    assert at.selectbox[0].value == "psuid" and not at.exception
    said = " ".join(c.value for c in at.caption)
    assert "The default was 'bmi'. 'psuid' looks like a sampling-design column" in said
