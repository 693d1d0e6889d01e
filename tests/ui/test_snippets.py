"""ui.snippets: the population snippet rebuilds the same population and prints its numbers.

Break caught (tests/break_checks.py ``overview-snippet-median-upper``): the printed median
is the upper middle value instead of the lower one.
"""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np

from core.populations import Population, make_builtin
from ui.snippets import population_overview_snippet, population_snippet


def _run(code: str) -> tuple[dict, str]:
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<snippet>", "exec"), namespace)
    return namespace, out.getvalue()


def test_population_snippet_rebuilds_an_identical_population():
    pop = make_builtin("establishments", seed=4, size=3000)
    namespace, _ = _run(population_snippet(pop))
    assert namespace["pop"].content_hash == pop.content_hash


def test_population_snippet_of_a_population_built_in_code_says_so():
    pop = Population(name="x", values=np.array([1.0, 2.0, 3.0]), lower=0.0, upper=4.0)
    assert population_snippet(pop).startswith("# This population was built in code")


def test_overview_snippet_prints_n_mean_lower_median_and_bounds():
    pop = make_builtin("beta", seed=5, size=1000)  # even N: the median is the lower middle value
    _, output = _run(population_overview_snippet(pop))
    printed = dict(re.findall(r"^(\w+) = (.+)$", output, flags=re.MULTILINE))
    v = np.sort(pop.values)
    assert printed["N"] == "1,000"
    assert float(printed["mean"]) == float(f"{v.mean():.6g}")
    assert printed["median"] == f"{v[499]:.6g}" != f"{v[500]:.6g}"
    assert printed["bounds"] == "[0, 1]"
    assert "strata" not in printed
    pop = make_builtin("establishments", seed=0, size=5000)
    _, output = _run(population_overview_snippet(pop))
    printed = dict(re.findall(r"^(\w+) = (.+)$", output, flags=re.MULTILINE))
    assert printed["strata"] == str(len(np.unique(pop.strata)))
    assert printed["clusters"] == str(len(np.unique(pop.clusters)))
