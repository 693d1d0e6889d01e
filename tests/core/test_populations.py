"""Tests for core.populations, the re-export module of the population modules.

The code lives in core.population, core.builtins, core.r_replay and core.csv_io (each with
its own test file); here: every name of ``core.populations.__all__`` is importable and is
the very object its home module defines, and the docstrings of all five modules cite the
papers by author, year and section.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import core.builtins
import core.csv_io
import core.file_io
import core.population
import core.populations as populations
import core.r_replay

HOMES = (core.population, core.builtins, core.r_replay, core.csv_io, core.file_io)


def test_all_names_are_reexported_from_their_home_module():
    assert len(populations.__all__) == len(set(populations.__all__)) == 25
    for name in populations.__all__:
        homes = [m for m in HOMES if name in getattr(m, "__all__", ())]
        assert len(homes) == 1, (name, homes)
        assert getattr(populations, name) is getattr(homes[0], name)


def test_the_classic_import_line_works():
    from core.populations import Population, load_population_csv, make_builtin

    pop = make_builtin("beta", size=5)
    assert isinstance(pop, Population)
    assert callable(load_population_csv)


def test_reexport_module_holds_no_code():
    tree = ast.parse(Path(populations.__file__).read_text(encoding="utf-8"))
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    assert defined == []


# --------------------------------------------------------------------------------------------
# Docstrings cite papers by author, year and section (issue 10, item 9)
# --------------------------------------------------------------------------------------------


def _docstrings_and_comments(module: object) -> str:
    """Docstrings and comments of a module, or of every module of a package."""
    path = Path(module.__file__)
    files = sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]
    docs: list[str] = []
    comments: list[str] = []
    for file in files:
        source = file.read_text(encoding="utf-8")
        tree = ast.parse(source)
        docs.append(ast.get_docstring(tree) or "")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                docs.append(ast.get_docstring(node) or "")
        comments += [
            line.split("#", 1)[1] for line in source.splitlines() if line.lstrip().startswith("#")
        ]
    return " ".join(" ".join(d.split()) for d in docs + comments)


@pytest.mark.parametrize("module", HOMES, ids=lambda m: m.__name__)
def test_docstrings_cite_author_year_section_not_a_folder(module):
    text = _docstrings_and_comments(module)
    assert "shared/papers" not in text and "papers/" not in text
    mentions = re.findall(r"(?:Hu et al\.|Bun et al\.|Hu, Drechsler & Kim)(.{0,8})", text)
    assert mentions
    without_year = [m for m in mentions if not re.match(r" \(20\d\d\)", m)]
    assert not without_year, without_year
