"""The upload corpora as cases, and what a page must show for each, in one place.

The CSV corpus (``tests/core/bad_csv_corpus.py``) and the file-format corpus
(``tests/core/bad_file_corpus.py``) are uploaded through AppTest's upload path (every case,
``tests/pages/test_upload_corpus.py``) and through Chromium's real widget (a sample,
``tests/e2e/test_robustness.py``). Both judge a case with :func:`problem`: a file meant to
load must become the active population and the Population page's summary table must show its
stored N, mean (sum/N) and lower median; a file meant to fail must never become active, and
a message on the page must name the reason stored for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from tests.core import bad_csv_corpus as csv_corpus
from tests.core import bad_file_corpus as file_corpus
from ui.format import fmt

#: The Population page's summary rows a loaded file is checked by.
SUMMARY_ROWS = ("Population size", "Mean", "Median (lower middle value)")
#: The message the upload form shows once a file is the active population.
ACTIVE_MESSAGE = "Every page now computes on {filename}"
#: (N, sum, lower median) where the form's default value column differs from the loader's
#: (the form passes over an identifier, ``core.value_column``; the loader takes the first
#: numeric column).
FORM_SUMMARIES: dict[str, tuple[int, float, float]] = {
    "quoted_field_mess": (3, 60.0, 20.0),  # 'value' 10, 20, 30 rather than 'id' 1, 2, 3
}


@dataclasses.dataclass(frozen=True)
class UploadCase:
    """One corpus file and what uploading it must lead to."""

    name: str
    filename: str
    data: bytes
    loads: bool
    #: (N, sum, lower median) of a file meant to load.
    summary: tuple[int, float, float] | None = None
    #: A fragment of the message naming the reason of a file meant to fail.
    reason: str | None = None

    def shown_summary(self) -> dict[str, str]:
        """The summary table rows the Population page must show for this file."""
        assert self.summary is not None, self.name
        n, total, median = self.summary
        shown = (f"{n:,}", fmt(total / n, "value"), fmt(median, "value"))  # as the page writes them
        return dict(zip(SUMMARY_ROWS, shown, strict=True))


def csv_cases(names: Iterable[str] | None = None) -> list[UploadCase]:
    """Cases of the CSV corpus (all but the two large ones, or ``names``)."""
    corpus = csv_corpus.build_corpus(include_large=False)
    chosen = list(corpus) if names is None else list(names)
    return [
        UploadCase(
            name=name,
            filename=f"{name}.csv",
            data=corpus[name],
            loads=csv_corpus.EXPECTED_OUTCOMES[name] == csv_corpus.POPULATION,
            summary=FORM_SUMMARIES.get(name, csv_corpus.EXPECTED_SUMMARIES.get(name)),
            reason=csv_corpus.EXPECTED_ERRORS.get(name),
        )
        for name in chosen
    ]


def file_cases(names: Iterable[str] | None = None) -> list[UploadCase]:
    """Cases of the Parquet, Stata, SPSS and SAS corpus (all, or ``names``)."""
    corpus = file_corpus.build_file_corpus()
    chosen = list(corpus) if names is None else list(names)
    return [
        UploadCase(
            name=name,
            filename=corpus[name][0],
            data=corpus[name][1],
            loads=file_corpus.EXPECTED_OUTCOMES[name] == file_corpus.POPULATION,
            summary=file_corpus.EXPECTED_SUMMARIES.get(name),
            reason=file_corpus.EXPECTED_ERRORS.get(name),
        )
        for name in chosen
    ]


def problem(
    case: UploadCase,
    *,
    active: bool,
    summary: Callable[[], dict[str, str]],
    messages: Callable[[], list[str]],
) -> str | None:
    """What is wrong with the page after ``case`` was uploaded (``None``: nothing).

    ``active``: the success message names the file; ``summary``: the summary table as
    {row: shown value}; ``messages``: the texts of the page's error, warning and info boxes,
    which must tell the user why a file failed (not the file's own name: ``unbalanced_quote``
    has "quot" in its name, and the page says "irregular quoting" in an info box).
    """
    if case.loads:
        if not active:
            return f"{case.name}: did not load ({messages()})"
        shown = summary()
        got = {row: shown.get(row) for row in SUMMARY_ROWS}
        if got != case.shown_summary():
            return f"{case.name}: shows {got}, expected {case.shown_summary()}"
        return None
    if active:
        return f"{case.name}: became the active population"
    told = messages()
    assert case.reason is not None, case.name
    if not any(case.reason.lower() in t.lower() for t in told):
        return f"{case.name}: no message names {case.reason!r}: {told}"
    return None
