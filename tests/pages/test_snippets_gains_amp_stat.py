"""Item 6: every "Reproduce in Python" snippet of the Gains, Amplification and Statistical
privacy pages runs on its own (a subprocess in the repository root) and prints the numbers
the page shows: for built-in populations other than the default one too."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.pages.harness import array, charts, open_page, run_snippet, snippet, trace_names

GAINS = "app_pages/gains.py"
AMP = "app_pages/amplification.py"
STAT = "app_pages/statistical.py"


def _printed(out: str, name: str) -> dict[str, float]:
    """``{label: value}`` from lines like ``eps_target=0.1 V_N=0.123``."""
    found = {}
    for line in out.splitlines():
        match = re.search(rf"(\S+)\s.*{name}=([-+0-9.eE]+|inf|nan)", line)
        if match:
            found[match.group(1)] = float(match.group(2))
    return found


def _trace(at, name: str) -> dict:
    return next(t for c in charts(at) for t in c["data"] if t.get("name") == name)


POPULATIONS = ["Beta", "Bimodal (paper's draw)"]


@pytest.mark.parametrize("population", POPULATIONS)
def test_gains_experiment_snippet_prints_the_page_verdicts(population):
    at = open_page(
        GAINS,
        {
            "gain_view": "Median: sample or population?",
            "population": population,
            "seed": "3",
            "gain_exp_eps": "0.5, 3",
            "gain_exp_rates": "0.1, 0.5",
            "gain_reps": "50",
        },
    )
    code = snippet(at, "median_gain_experiment")
    assert "make_builtin(" in code and "seed=3" in code
    out = run_snippet(code)
    verdicts = [m.value[2:] for m in at.markdown if m.value.startswith("- At ε_target = ")]
    assert len(verdicts) == 2
    for verdict in verdicts:
        assert verdict in out  # same population, same numbers, same words


@pytest.mark.parametrize("population", POPULATIONS)
def test_gains_mean_population_snippet_prints_V_N(population):
    at = open_page(GAINS, {"gain_view": "Mean on this population", "population": population})
    out = _printed(run_snippet(snippet(at, "mean_gain_table")), "V_N")
    assert out
    for label, value in out.items():
        eps = float(label.split("=")[1])
        shown = float(array(_trace(at, f"V_N, ε_target = {eps:g}")["y"])[0])
        assert value == pytest.approx(shown, rel=1e-5)


@pytest.mark.parametrize("population", POPULATIONS)
def test_gains_sensitivity_snippet_prints_the_median_releases(population):
    at = open_page(
        GAINS,
        {
            "gain_view": "Median: smooth sensitivity",
            "population": population,
            "gain_ill_reps": "100",
        },
    )
    out = _printed(run_snippet(snippet(at, "privatized_medians")), "release")
    chart = next(
        c for c in charts(at) if "smooth sensitivity" in c["layout"]["title"]["text"].lower()
    )
    shown = {t["name"]: float(np.median(array(t["y"]))) for t in chart["data"]}
    assert len(out) == len(shown) == 3
    for label, value in out.items():
        assert value == pytest.approx(shown[f"ε_target = {float(label.split('=')[1]):g}"], rel=1e-5)


def test_gains_theory_snippet_prints_the_q_table():
    at = open_page(GAINS, {"gain_view": "Mean: noise ratio r and bound q", "gain_eps": "0.1, 3"})
    out = run_snippet(snippet(at, "rate_for_q"))
    table = next(t.value for t in at.table if "largest rate n/N (%)" in t.value.columns)
    printed = {float(a): float(b) for a, b in (line.split() for line in out.splitlines())}
    for eps, percent in zip(table["ε_target"], table["largest rate n/N (%)"], strict=True):
        assert 100 * printed[float(eps)] == pytest.approx(percent, rel=1e-9)


def test_amplification_snippets_print_what_the_tabs_show():
    at = open_page(AMP, {"amp_eps_targets": "0.2, 2", "amp_rate_min": "0.003"})
    out = _printed(run_snippet(snippet(at, "rate_min =")), "eps_sample")
    for label, value in out.items():
        shown = float(array(_trace(at, f"ε_target = {float(label.split('=')[1]):g}")["y"])[0])
        assert value == pytest.approx(shown, rel=1e-5)

    at = open_page(AMP, {"amp_view": "Reverse view and calculator", "population": "Establishments"})
    code = snippet(at, "N, n =")
    assert "N, n = 100000, 1000" in code
    out = _printed(run_snippet(code), "eps_sample")
    table = next(df.value for df in at.dataframe if "ε_sample" in df.value.columns)
    for eps, value in zip(table["ε_target"], table["ε_sample"], strict=True):
        assert out[f"eps_target={eps:g}"] == pytest.approx(value, rel=1e-5)

    at = open_page(AMP, {"amp_view": "Steinke: limits of amplification", "amp_st_c": "2, 5"})
    out = _printed(run_snippet(snippet(at, "steinke_ratio")), "floor")
    assert len(out) == 2
    for label, value in out.items():
        c = float(label.split("=")[1])
        name = next(n for n in trace_names(at) if n.startswith(f"floor log(1+{c:g})/"))
        assert name.endswith(f"= {value:.3f}")


def test_statistical_snippets_print_what_the_tabs_show():
    at = open_page(STAT, {"sp_n": "400", "sp_pi": "0.2", "sp_nu": "2"})
    out = run_snippet(snippet(at, "delta_directions"))
    printed = {k: float(v) for k, v in re.findall(r"^(.+?): delta=(\S+)$", out, re.M)}
    table = next(t.value for t in at.table if "δ = max" in t.value.columns).astype(float)
    assert set(printed) == set(table.index)
    for mechanism, value in zip(table.index, table["δ = max"], strict=True):
        assert printed[mechanism] == pytest.approx(value, rel=5e-3, abs=1e-15)  # 3 digits shown

    at = open_page(STAT, {"sp_view": "δ against π (Figures 1–4, 6)", "sp_nus": "1, 4"})
    out = _printed(run_snippet(snippet(at, "delta_pi_half")), "delta_pi_half")
    for label, value in out.items():
        nu = float(label.split("=")[1])
        y = array(_trace(at, f"ν = {nu:g}, statistical")["y"])
        assert value == pytest.approx(float(y[-1]), rel=1e-5)  # π = 1/2 ends the curve

    at = open_page(STAT, {"sp_view": "Equal utility (Figures 5, 7, 8)", "sp_pi": "0.3"})
    out = run_snippet(snippet(at, "equal_utility_noise_multiplier"))
    table = next(df.value for df in at.dataframe if "utility loss (MSE)" in df.value.columns)
    delta_column = next(c for c in table.columns if c.startswith("δ at ε"))
    shown = dict(zip(table["mechanism"], table[delta_column], strict=True))
    printed = {
        "subsampling": float(re.search(r"subsampling delta=(\S+)", out).group(1)),
        "Gaussian noise": float(re.search(r"Gaussian nu=\S+ delta=(\S+)", out).group(1)),
        "Laplace noise": float(re.search(r"Laplace nu=\S+ delta=(\S+)", out).group(1)),
    }
    for mechanism, value in printed.items():
        assert value == pytest.approx(shown[mechanism], rel=1e-5, abs=1e-15)
