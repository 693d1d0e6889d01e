"""The About and references page: opens through the router and cites every source properly."""

from __future__ import annotations

from tests.pages.harness import open_page
from ui.glossary import GLOSSARY_LABEL
from ui.router import PAGES

PAGE = "app_pages/about.py"


def _text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_about_page_is_the_last_page_of_the_router():
    assert PAGES[-1][0] == PAGE


def test_about_page_opens_without_error():
    at = open_page(PAGE)
    assert not at.exception and not at.error
    assert at.title[0].value == "About and references"
    assert [h.value for h in at.header] == [
        "References",
        "Threat model, in plain words",
        "Glossary",
    ]


def test_every_reference_is_cited_with_authors_title_and_identifier():
    text = _text(open_page(PAGE))
    for needle in (
        "Hu, J., Drechsler, J. and Kim, H. J. (2021)",
        "Accuracy gains from privacy amplification through sampling for differential privacy",
        "https://arxiv.org/abs/2103.09705",
        "Bun, M., Drechsler, J., Gaboardi, M., McMillan, A. and Sarathy, J.",
        "an analysis of stratified and cluster sampling",
        "https://arxiv.org/abs/2007.12674",
        "Steinke, T. (2025)",
        "Limits of privacy amplification by subsampling",
        "https://differentialprivacy.org/subsampling-limits/",
        "Breutigam, D. and Reischuk, R. (2025)",
        "https://arxiv.org/abs/2501.12893",
    ):
        assert needle in text, needle
    # The product cites its sources, not a folder of the development workspace.
    assert "shared/papers" not in text


def test_about_page_shows_the_glossary_open():
    at = open_page(PAGE)
    glossary = [e for e in at.expander if e.label == GLOSSARY_LABEL]
    assert len(glossary) == 1
    assert glossary[0].proto.expanded
    assert "ε_target" in _text(at) and "cluster size" in _text(at)
