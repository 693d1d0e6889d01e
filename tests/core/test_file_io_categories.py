"""The category column read from every file format: value labels as text, blanks, limits."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from core.categories import MAX_CATEGORIES
from core.populations import load_population_csv, load_population_file, population_to_csv_bytes
from tests.core import bad_file_corpus

SECTOR_LABELS = {1: "Retail", 2: "Industry", 3: "Services"}
#: turnover, and a coded sector: 9 has no value label, NaN is a blank cell.
TURNOVER = [5.0, 1.0, 3.0, 2.0, 4.0, 6.0, 7.0]
SECTOR = [1.0, 2.0, 3.0, 1.0, 2.0, 9.0, np.nan]


def _expected(labels: list[str]) -> list[str]:
    """The labels in the order of the values (stable), as the loaders must align them."""
    order = np.argsort(TURNOVER, kind="stable")
    return [labels[i] for i in order]


def _text_sector() -> list[str]:
    return [
        SECTOR_LABELS.get(int(s), str(int(s))) if np.isfinite(s) else "(missing)" for s in SECTOR
    ]


@pytest.mark.parametrize("fmt", ["stata", "spss"])
def test_value_labels_are_the_category_text(fmt):
    frame = pd.DataFrame({"turnover": TURNOVER, "sector": SECTOR})
    data = bad_file_corpus._write(fmt, frame, {"sector": SECTOR_LABELS})
    name = f"firms.{bad_file_corpus.EXTENSIONS[fmt]}"
    pop = load_population_file(
        data, filename=name, value_column="turnover", lower=0, upper=10, category_column="sector"
    )
    assert pop.categories.tolist() == _expected(_text_sector())
    assert pop.category_label == "sector"
    assert pop.file_settings.category_column == ("sector",)
    assert pop.recipe.endswith("category_column='sector')")
    assert any(
        "category '(missing)' to 1 row whose cell in 'sector' is blank" in n
        and "counted as the category '(missing)', not dropped" in n
        for n in pop.notes
    )
    # The same column as the value column gives its codes (and categories are optional).
    codes = load_population_file(data, filename=name, value_column="sector", lower=0, upper=10)
    assert codes.categories is None


def test_parquet_text_and_categorical_columns():
    sector = _text_sector()
    frame = pd.DataFrame(
        {
            "turnover": TURNOVER,
            "sector": [None if s == "(missing)" else s for s in sector],
            "kind": pd.Categorical(["a", "b", "a", "b", "a", "b", "a"]),
        }
    )
    out = io.BytesIO()
    frame.to_parquet(out, index=False)
    data = out.getvalue()
    pop = load_population_file(
        data, filename="f.parquet", value_column="turnover", lower=0, upper=10,
        category_column="sector",
    )  # fmt: skip
    assert pop.categories.tolist() == _expected(sector)
    kind = load_population_file(
        data, filename="f.parquet", value_column="turnover", lower=0, upper=10,
        category_column="kind",
    )  # fmt: skip
    assert kind.categories.tolist() == _expected(["a", "b", "a", "b", "a", "b", "a"])


def test_sas_transport_text_categories():
    import pyreadstat

    frame = pd.DataFrame({"income": [3.0, 1.0, 2.0, 5.0], "grp": ["a", "b", "a", "c"]})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.xpt"
        pyreadstat.write_xport(frame, str(path))
        pop = load_population_file(path, lower=0, upper=10, category_column="grp")
    assert pop.categories.tolist() == ["b", "a", "a", "c"]
    assert "category_column='grp'" in pop.recipe


def test_csv_categories_with_strata_and_several_columns():
    csv = b"v,region,size\n4,N,small\n1,S,large\n3,N,large\n2,S,small\n"
    pop = load_population_csv(
        csv, lower=0, upper=10, stratum_column="region", category_column=["region", "size"]
    )
    assert pop.strata.tolist() == ["S", "S", "N", "N"]
    assert pop.categories.tolist() == ["S / large", "S / small", "N / large", "N / small"]
    assert pop.category_label == "region × size"
    assert pop.file_settings.category_column == ("region", "size")
    assert "category_column=['region', 'size']" in pop.recipe


def test_rows_dropped_for_their_value_leave_their_category_out():
    csv = b"v,sector\n2,a\n,b\nx,b\n1,c\n3,a\n"
    pop = load_population_csv(csv, lower=0, upper=10, category_column="sector")
    assert pop.categories.tolist() == ["c", "a", "a"]


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


def test_the_value_column_cannot_be_the_category_column():
    csv = b"v,sector\n1,a\n2,b\n3,a\n"
    with pytest.raises(ValueError, match="'v' is the value column; it cannot also be the category"):
        load_population_csv(csv, value_column="v", category_column="v")


def test_too_many_categories():
    n = MAX_CATEGORIES + 1
    rows = "\n".join(f"{i},id{i}" for i in range(n))
    with pytest.raises(ValueError, match=r"'firm' has 1,001 distinct entries.*at most 1,000"):
        load_population_csv(f"v,firm\n{rows}\n".encode(), category_column="firm")
    # Exactly the limit is fine.
    rows = "\n".join(f"{i},id{i % MAX_CATEGORIES}" for i in range(n))
    pop = load_population_csv(f"v,firm\n{rows}\n".encode(), category_column="firm")
    assert len(pop.label_codes("categories")[1]) == MAX_CATEGORIES


def test_too_many_joined_categories():
    k = 40  # 40 × 40 = 1,600 joined categories from two columns of 40 each
    rows = "\n".join(f"{i},a{i % k},b{i // k}" for i in range(k * k))
    with pytest.raises(ValueError, match="'a × b' has 1,600 distinct entries"):
        load_population_csv(f"v,a,b\n{rows}\n".encode(), category_column=["a", "b"])


@pytest.mark.parametrize("fmt", ["csv", "stata"])
def test_a_category_column_blank_everywhere(fmt):
    if fmt == "csv":
        data, name = b"v,sector\n1,\n2, \n3,\n", "f.csv"
    else:
        frame = pd.DataFrame({"v": [1.0, 2.0, 3.0], "sector": [np.nan] * 3})
        data, name = bad_file_corpus._write("stata", frame, {"sector": SECTOR_LABELS}), "f.dta"
    with pytest.raises(ValueError, match="'sector' is blank in every row kept"):
        load_population_file(data, filename=name, value_column="v", category_column="sector")


def test_blank_only_where_the_value_is_missing_counts_as_blank_everywhere():
    csv = b"v,sector\n1,\n2,\n3,\n,a\n"
    with pytest.raises(ValueError, match="blank in every row kept"):
        load_population_csv(csv, category_column="sector")


def test_unknown_and_malformed_category_columns():
    csv = b"v,sector\n1,a\n2,b\n3,a\n"
    with pytest.raises(ValueError, match="no column named 'sectr'"):
        load_population_csv(csv, category_column="sectr")
    with pytest.raises(ValueError, match="category column must be a column name"):
        load_population_csv(csv, category_column=3)
    with pytest.raises(ValueError, match="name 'sector' more than once"):
        load_population_csv(csv, category_column=["sector", "sector"])


def test_the_download_writes_the_categories_and_reads_back_the_same():
    csv = b"v,region,sector\n4,N,a\n1,S,b\n3,N,\n2,S,a\n"
    pop = load_population_csv(
        csv, lower=0, upper=10, stratum_column="region", category_column="region"
    )
    written = population_to_csv_bytes(pop).decode()
    assert written.splitlines()[0] == "v,region,region (category)"
    back = load_population_csv(
        written.encode(),
        lower=0,
        upper=10,
        stratum_column="region",
        category_column="region (category)",
    )
    assert back.content_hash == pop.content_hash
    other = load_population_csv(csv, lower=0, upper=10, category_column="sector")
    again = load_population_csv(
        population_to_csv_bytes(other), lower=0, upper=10, category_column="sector"
    )
    assert again.content_hash == other.content_hash  # "(missing)" reads back as itself
