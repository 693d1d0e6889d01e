"""AppTest for the Release planner's promise stated as ρ-zCDP: the control changes the plan to
core's plan for that ρ, the conversion is named wherever the promise is shown, the link
reproduces the state, and a bad ρ in a link is explained."""

from __future__ import annotations

import io
import json
import zipfile
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from core import planner
from core.accounting import zcdp
from core.mechanisms import MECHANISMS
from core.populations import make_builtin
from core.publication import plan_table
from core.publication.config import build_population, load_config
from tests.pages.harness import (
    Downloads,
    app_test,
    open_page,
    open_snippets,
    printed_numbers,
    snippet,
)
from ui.page_defaults import delta_target_default
from ui.planner import compare_text, text
from ui.planner import figures as figs

PAGE = "app_pages/planner.py"
PAGE_URL = "http://localhost:8501/planner"
LOGNORMAL = make_builtin("lognormal", seed=0)
ZCDP = {"plan_promise": text.PROMISE_LABELS["zcdp"], "plan_rho": "0.5", "plan_reps": "50"}


def _ranked(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("1. **"))


def _core(**promise: float) -> planner.PlanResult:
    return planner.plan(
        LOGNORMAL,
        statistic="median",
        delta_target=delta_target_default(LOGNORMAL.size),
        designs=("census", "srs", "poisson"),
        reps=50,
        seed=0,
        **promise,
    )


def _listed(result: planner.PlanResult) -> str:
    ranked = figs.ranked_table(result)
    flags = compare_text.usable_rows(
        ranked, result.population_value, LOGNORMAL.lower, LOGNORMAL.upper, 0.5
    )
    return compare_text.ranked_list(ranked, None, flags)


def test_the_promise_control_changes_the_plan_to_cores_zcdp_plan():
    at = open_page(PAGE, {"plan_reps": "50"})
    pure = _ranked(at)
    at.radio(key="plan_promise").set_value(text.PROMISE_LABELS["zcdp"]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="plan_rho").value == pytest.approx(0.5)
    stated = _ranked(at)
    assert stated != pure
    result = _core(rho_target=0.5)
    assert stated == _listed(result)
    assert result.eps_target == pytest.approx(zcdp.eps_target_for_rho(0.5))
    # The (ε, δ) median is not planned, and the page says why in words.
    assert MECHANISMS["smooth_laplace"].label not in stated
    words = " ".join(m.value for m in at.markdown)
    assert "is not planned" in words and "implies no ρ-zCDP bound" in words
    # The conversion is named with its formula under the control and in the designs' list.
    caption = " ".join(c.value for c in at.caption)
    assert "ρ = 0.5-zCDP" in caption and "Steinke 2024" in caption and "tanh" in caption
    assert "**Promise.** ρ = 0.5-zCDP" in words
    # Moving ρ moves the plan.
    at.number_input(key="plan_rho").set_value(0.05).run()
    assert _ranked(at) == _listed(_core(rho_target=0.05))


def test_the_link_reproduces_a_zcdp_plan():
    at = app_test(PAGE)
    at.context = {"url": PAGE_URL}
    at.query_params.update(ZCDP)
    at.run()
    open_snippets(at)  # the link is sent once its expander is open
    assert not at.exception
    (link,) = [c.value for c in at.code if c.value.startswith(PAGE_URL)]
    query = parse_qs(urlsplit(link).query, keep_blank_values=True)
    assert query["plan_promise"] == [text.PROMISE_LABELS["zcdp"]]
    assert float(query["plan_rho"][0]) == pytest.approx(0.5)
    opened = open_page(PAGE, query)
    assert opened.session_state["plan_rho"] == pytest.approx(0.5)
    assert _ranked(opened) == _ranked(at)


def test_the_snippet_notebook_and_report_state_the_zcdp_promise(monkeypatch):
    files = Downloads(monkeypatch)
    at = open_page(PAGE, ZCDP)
    code = snippet(at, "planner.plan")
    assert "rho_target=0.5" in code and "eps_target" not in code
    result = _core(rho_target=0.5)
    printed = printed_numbers(code)
    assert printed["best error_95"] == pytest.approx(float(result.best["error_95"]), rel=1e-9)
    notebook = json.loads(files.data(at, "Download notebook (.ipynb)"))
    cells = "".join("".join(c["source"]) for c in notebook["cells"])
    assert "rho_target=0.5" in cells and "ρ = 0.5-zCDP" in cells and "tanh" in cells
    report = files.data(at, "Download method report (HTML)").decode("utf-8")
    assert "Promise (ρ-zCDP, stated)" in report and "Steinke 2024" in report


@pytest.mark.parametrize(
    ("linked", "why"),
    [("-1", "is not > 0"), ("0", "is not > 0"), ("abc", "is not a number"), ("1e9", "outside")],
)
def test_a_bad_rho_in_a_link_is_explained(linked, why):
    at = open_page(PAGE, {**ZCDP, "plan_rho": linked}, snippets=False)
    warnings = " ".join(w.value for w in at.warning)
    assert "The link's ρ was not used" in warnings and why in warnings
    # The page opens without code blocks (its Python snippet, its link): each is sent once
    # its expander is opened, so the browser need not load the code highlighter.
    assert not at.code, [c.value[:60] for c in at.code]
    assert _ranked(at) == _listed(_core(rho_target=0.5))


def test_the_accuracy_first_search_under_zcdp_gives_rho():
    at = open_page(PAGE, {**ZCDP, "plan_view": text.TABS[1]})
    answer = " ".join(m.value for m in [*at.success, *at.warning, *at.info])
    assert "As ρ-zCDP that is **ρ =" in answer


def test_the_publication_config_round_trips_a_zcdp_promise(tmp_path, monkeypatch):
    """The publication tab under ρ-zCDP: its batch config states ``rho_target`` (not a
    converted ε), loads, and gives the page's table; the zip's files state the promise."""
    files = Downloads(monkeypatch)
    query = {
        "population": "Establishments",
        "plan_view": text.PUBLICATION_TAB,
        "plan_designs": "Poisson sample",
        "plan_reps": "50",
        "plan_pub_stats": "median",
        **{k: v for k, v in ZCDP.items() if k != "plan_reps"},
    }
    at = open_page(PAGE, query)
    yaml_text = next(c.value for c in at.get("code") if "python -m batch" in c.value)
    assert "rho_target: 0.5" in yaml_text and "eps_target" not in yaml_text
    path = tmp_path / "publication.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    config = load_config(path)
    assert config.rho_target == 0.5
    batch = plan_table(build_population(config), **config.plan_kwargs()).table
    page = next(d.value for d in at.dataframe if "b₉₅ / value" in d.value.columns)
    np.testing.assert_allclose(page["b₉₅"], batch["error_95"], rtol=1e-9)
    assert not any(MECHANISMS[m].uses_delta for m in batch["mechanism"] if m)
    package = zipfile.ZipFile(io.BytesIO(files.data(at, "Everything (zip)")))
    readme = package.read("README.md").decode("utf-8")
    assert "ρ = 0.5-zCDP" in readme and "Steinke 2024" in readme
    assert json.loads(package.read("registry.json"))["rho"] == 0.5


def test_a_choice_of_delta_mechanisms_only_falls_back_to_the_pure_defaults():
    at = open_page(PAGE, {**ZCDP, "plan_mechs": text.MECHANISM_SHORT["smooth_laplace"]})
    infos = " ".join(i.value for i in at.info)
    assert "imply no ρ-zCDP bound" in infos
    assert _ranked(at) == _listed(_core(rho_target=0.5))
