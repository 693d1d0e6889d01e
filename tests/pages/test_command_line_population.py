"""Issue 15 §3: a population file named on the server's command line, on every page.

``open_page(..., argv=[...])`` plays ``streamlit run app.py -- --population FILE ...``: the
router receives the arguments exactly as ``app.py`` hands it ``sys.argv[1:]``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.pages.harness import charts, open_page, run_snippet
from tests.pages.test_url_reproduction import shown_state
from ui.format import fmt
from ui.page_defaults import delta_target_default
from ui.router import PAGES

OVERVIEW = "app_pages/overview.py"
SIZE = 600


@pytest.fixture(scope="module")
def register(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small register: income, a region stratum and districts nested in the regions."""
    rng = np.random.default_rng(11)
    region = rng.integers(0, 4, SIZE)
    frame = pd.DataFrame(
        {
            "income": rng.lognormal(10.0, 1.0, SIZE).round(2),
            "region": region,
            "district": region * 10 + rng.integers(0, 5, SIZE),
        }
    )
    path = tmp_path_factory.mktemp("register") / "register.csv"
    frame.to_csv(path, index=False)
    return path


def argv_for(path: Path, *extra: str) -> list[str]:
    return [
        "--population",
        str(path),
        "--value",
        "income",
        "--lower",
        "0",
        "--upper",
        "1000000",
        "--stratum",
        "region",
        "--cluster",
        "district",
        *extra,
    ]


LABEL = f"register.csv (N = {SIZE:,})"


def _sidebar_text(at) -> str:
    parts = [c.value for c in at.sidebar.caption] + [e.value for e in at.sidebar.error]
    return "\n".join(parts)


def _main_warnings(at) -> list[str]:
    return [w.value for w in at.main.warning]


#: The planner page runs in the test of the plan computed ahead (below).
PLANNER = "app_pages/planner.py"


@pytest.mark.parametrize("page", [spec.script for spec in PAGES if spec.script != PLANNER])
def test_every_page_runs_on_the_command_line_population(register, page):
    check_runs_on_the_file(open_page(page, argv=argv_for(register)))


def check_runs_on_the_file(at) -> None:
    """The page ran on the command-line register, chosen by default, without an error."""
    assert not at.exception, [e.value for e in at.exception]
    selector = at.selectbox(key="population")
    assert selector.value == "command_line"  # the server's file is the default choice
    assert selector.options[0] == LABEL  # listed first, with its file name and N
    assert {"Lognormal", "Establishments"} <= set(selector.options)
    assert "income from register.csv, N = 600" in _sidebar_text(at)
    assert not at.error and not at.sidebar.error


def test_population_page_shows_the_file_and_its_labels(register):
    at = open_page(OVERVIEW, argv=argv_for(register))
    summary = at.table[0].value
    assert summary.loc["Population size", "value"] == f"{SIZE:,}"
    text = " ".join(m.value for m in at.markdown)
    assert "Strata (region): 4" in text
    assert "Clusters (district):" in text


def test_snippet_rebuilds_the_file_from_its_path_and_prints_the_pages_numbers(register):
    at = open_page(OVERVIEW, argv=argv_for(register))
    code = at.code[0].value
    assert f"load_population_file({str(register)!r}" in code
    assert "stratum_column='region'" in code and "cluster_column='district'" in code
    printed = dict(re.findall(r"^(\w+) = (.+)$", run_snippet(code), flags=re.MULTILINE))
    summary = at.table[0].value
    assert printed["N"] == summary.loc["Population size", "value"]
    # The snippet prints the mean to six digits; the page writes it as ui.format.fmt's "value".
    assert fmt(float(printed["mean"]), "value") == summary.loc["Mean", "value"]


def test_a_link_picks_a_builtin_or_the_servers_file_by_its_label(register):
    at = open_page(OVERVIEW, {"population": "Beta"}, argv=argv_for(register))
    assert at.selectbox(key="population").value == "beta"
    assert at.selectbox(key="population").options[0] == LABEL
    at = open_page(OVERVIEW, {"population": LABEL}, argv=argv_for(register))
    assert at.selectbox(key="population").value == "command_line"
    # Switching in the session works both ways.
    at.selectbox(key="population").set_value("establishments").run()
    assert at.table[0].value.loc["Population size", "value"] == "100,000"
    at.selectbox(key="population").set_value("command_line").run()
    assert at.table[0].value.loc["Population size", "value"] == f"{SIZE:,}"


def test_a_url_never_names_a_file(register):
    # Without command-line arguments, a link that names the file (or its label) gets the
    # built-in default: only the server's arguments can add a file.
    for value in (str(register), LABEL, "command_line"):
        at = open_page(OVERVIEW, {"population": value})
        assert at.selectbox(key="population").value == "lognormal"
        assert LABEL not in at.selectbox(key="population").options
        assert at.table[0].value.loc["Population size", "value"] == "10,001"


def test_uploaded_link_on_a_command_line_server_falls_back_to_the_servers_file(register):
    at = open_page(OVERVIEW, {"population": "Uploaded"}, argv=argv_for(register))
    assert at.selectbox(key="population").value == "command_line"
    notices = [w for w in _main_warnings(at) if "never carried in links" in w]
    assert len(notices) == 1, _main_warnings(at)
    assert "the population this server was started with" in notices[0]
    assert LABEL in notices[0] and "built-in" not in notices[0]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--population", "no/such/register.csv", "--value", "income"], "There is no file at"),
        (["--population", "{register}", "--value", "salary"], "salary"),
        (["--population", "{register}", "--lower", "9", "--upper", "1"], "smaller than"),
        (["--population", "{register}", "--upper", "lots"], "--upper must be a number"),
        (["--populaton", "{register}"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_give_a_message_and_the_builtins_keep_working(register, argv, message):
    argv = [arg.replace("{register}", str(register)) for arg in argv]
    at = open_page(OVERVIEW, argv=argv)
    errors = [e.value for e in at.sidebar.error]
    assert len(errors) == 1 and message in errors[0], errors
    assert "could not be used" in errors[0]
    assert any("could not be used" in w for w in _main_warnings(at))
    selector = at.selectbox(key="population")
    assert selector.value == "lognormal" and not any("N =" in o for o in selector.options)
    assert at.table[0].value.loc["Population size", "value"] == "10,001"
    at.selectbox(key="population").set_value("beta").run()
    assert not at.exception and at.selectbox(key="population").value == "beta"


def test_bad_file_on_another_page_runs(register):
    at = open_page("app_pages/clusters.py", argv=["--population", "no/such.csv"])
    assert at.sidebar.error and not at.exception


def test_defaults_fit_the_file_and_a_link_reproduces_the_page_on_the_same_server(register):
    page = "app_pages/amplification.py"
    at = open_page(page, argv=argv_for(register))
    assert at.number_input(key="amp_delta").value == pytest.approx(delta_target_default(SIZE))
    at.selectbox(key="population").set_value("beta").run()
    assert at.number_input(key="amp_delta").value == pytest.approx(delta_target_default(10_001))
    at.selectbox(key="population").set_value("command_line").run()
    assert at.number_input(key="amp_delta").value == pytest.approx(delta_target_default(SIZE))
    at.number_input(key="amp_rate_min").set_value(0.01).run()
    # The server's file is the default, so its link names no population; on the same server
    # it reproduces the page, δ_target = 1/(2N) of the file included.
    fresh = open_page(page, {"amp_rate_min": "0.01"}, argv=argv_for(register))
    assert fresh.selectbox(key="population").value == "command_line"
    assert shown_state(fresh) == shown_state(at)
    assert charts(fresh) == charts(at)


def test_the_plan_computed_ahead_is_the_one_the_planner_page_shows_first(register, monkeypatch):
    """Break caught (tests/break_checks.py ``first-plan-other-inputs``): the comparison a
    server computes ahead for a large register (``ui.planner.first_plan``) is no longer
    the page's first one, so its first visitor waits for a plan of their own. The page
    then runs on the register as every other page does."""
    import core.planner
    from ui import command_line
    from ui.planner import cache
    from ui.planner.first_plan import plan_page_defaults

    argv = argv_for(register)
    cache.plan.clear()
    plan_page_defaults(command_line.command_line_population(argv).population)
    calls = []
    monkeypatch.setattr(core.planner, "plan", lambda *a, **k: calls.append(k))
    at = open_page(PLANNER, argv=argv, check=False)
    assert calls == []
    check_runs_on_the_file(at)
