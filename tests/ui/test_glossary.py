"""The one glossary: clean data, and shown in an expander under every page of the router."""

from __future__ import annotations

import pytest

from tests.pages.harness import ROOT, open_page
from ui.glossary import GLOSSARY, GLOSSARY_LABEL, glossary_markdown
from ui.router import PAGES

EXISTING = [spec.script for spec in PAGES if (ROOT / spec.script).exists()]

#: Symbols the pages use and the issue asks the glossary to explain.
REQUIRED = {
    "N",
    "n",
    "rate = n/N",
    "p",
    "ε_target",
    "ε_sample",
    "δ_target",
    "δ_sample",
    "ρ",
    "M",
    "k",
    "ℓ",
    "H",
    "N_i",
    "n_i",
    "N_c",
    "Ŝ / n̂",
    "S",
    "β",
    "R = U − L",
    "L, U",
    "r",
    "q",
    "π",
    "T",
    "MSE",
}


def test_every_entry_has_symbol_name_and_meaning():
    for term in GLOSSARY:
        assert term.symbol.strip() and term.name.strip(), term
        assert len(term.meaning.split()) >= 5, f"{term.symbol}: meaning too short"
        assert term.meaning.rstrip().endswith("."), f"{term.symbol}: meaning is not a sentence"


def test_no_duplicate_symbols_or_names():
    symbols = [t.symbol for t in GLOSSARY]
    names = [t.name for t in GLOSSARY]
    assert len(set(symbols)) == len(symbols), sorted(s for s in symbols if symbols.count(s) > 1)
    assert len(set(names)) == len(names), sorted(s for s in names if names.count(s) > 1)


def test_required_symbols_are_present():
    assert REQUIRED <= {t.symbol for t in GLOSSARY}


def test_vocabulary_rules():
    by_symbol = {t.symbol: t for t in GLOSSARY}
    # The cluster size has its own symbol, never n; n is the sample size.
    assert "cluster" in by_symbol["M"].name
    assert "sample" in by_symbol["n"].name
    # No bare ε′ anywhere in the glossary.
    assert "ε′" not in glossary_markdown()


def test_markdown_has_one_line_per_term():
    lines = glossary_markdown().splitlines()
    assert len(lines) == len(GLOSSARY)
    assert all(line.startswith("- **") for line in lines)


@pytest.mark.parametrize("page", EXISTING, ids=[p.split("/")[-1] for p in EXISTING])
def test_glossary_expander_on_every_page(page):
    at = open_page(page)
    labels = [e.label for e in at.expander]
    assert labels.count(GLOSSARY_LABEL) == 1, labels
    text = " ".join(m.value for m in at.markdown)
    assert "ε_sample" in text and "cluster size" in text
