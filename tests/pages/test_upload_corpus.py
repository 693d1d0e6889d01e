"""Every corpus file through AppTest's upload path on the Population page (issue 7, issue 21).

The same judgement as the browser test (:func:`tests.uploads.problem`) for every case of the
CSV corpus and of the Parquet, Stata, SPSS and SAS corpus, each in a new session: upload,
press "Use this population" when the form offers it, and read the success message, the
summary table and the error boxes. Chromium's real widget takes one case of each class
(``tests/e2e/test_robustness.py``); the loaders' own results are checked in
``tests/core/csv_io/test_table.py`` and ``tests/core/test_file_io.py``.

Break it on purpose (``tests/break_checks.py``, ``upload-form-*``): make the form's value
column default to the last numeric column — the files still load, but with other numbers.
"""

from __future__ import annotations

import functools

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.harness import app_test, open_page
from tests.uploads import ACTIVE_MESSAGE, UploadCase, csv_cases, file_cases, problem
from ui.charts import OPENED_PREFIX

PAGE = "app_pages/overview.py"
USE = "Use this population"
CASES = {f"csv/{c.name}": c for c in csv_cases()} | {f"file/{c.name}": c for c in file_cases()}


@functools.cache
def _closed_expanders() -> tuple[str, ...]:
    """Keys of the page's expanders that :func:`open_page` opens after its first run."""
    at = open_page(PAGE, snippets=False)
    return tuple(
        box.key
        for box in at.get("expander")
        if box.key and box.key.startswith(OPENED_PREFIX) and not at.session_state[box.key]
    )


def _new_session() -> AppTest:
    """The page as :func:`open_page` leaves it, in one run: its expanders open from the start."""
    at = app_test(PAGE)
    for key in _closed_expanders():
        at.session_state[key] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _upload(case: UploadCase) -> tuple[AppTest, bool]:
    """A new session's Population page after uploading ``case``; whether it became active."""
    at = _new_session()
    at.file_uploader[0].set_value((case.filename, case.data, "application/octet-stream"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    buttons = [b for b in at.button if b.label == USE]
    if buttons:
        buttons[0].click()
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    message = ACTIVE_MESSAGE.format(filename=case.filename)
    return at, any(message in s.value for s in at.success)


def _summary(at: AppTest) -> dict[str, str]:
    frame = at.table[0].value
    return dict(zip(frame.index.tolist(), frame["value"].tolist(), strict=True))


def test_the_corpus_has_cases_of_both_outcomes() -> None:
    assert sum(c.loads for c in CASES.values()) >= 25
    assert sum(not c.loads for c in CASES.values()) >= 40


@pytest.mark.parametrize("key", sorted(CASES))
def test_corpus_file_through_the_upload_form(key: str) -> None:
    case = CASES[key]
    at, active = _upload(case)
    found = problem(
        case,
        active=active,
        summary=lambda: _summary(at),
        messages=lambda: [m.value for kind in ("error", "warning", "info") for m in at.get(kind)],
    )
    assert found is None, found
