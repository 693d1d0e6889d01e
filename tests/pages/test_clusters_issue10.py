"""Issue 10 on the Cluster sampling page: computed fraction wording, the cluster/stratum note,
vocabulary (M for cluster size, ε_sample / ε_target by name), the ε_target → ε_sample
direction, vacuous bounds in words, and snippets that rebuild the active population."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from core import clusters as cl
from core.populations import BUILTIN_POPULATIONS
from tests.pages.harness import ROOT, charts, open_page
from ui.clusters import text

PAGE = "app_pages/clusters.py"
POPULATION_TAB = "This population's clusters"


def _metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


def _all_text(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [w.value for w in at.warning] + [i.value for i in at.info]
    return "\n".join(parts)


# --- item 3: "the same fraction" is computed ---------------------------------------------


def test_fraction_sentence_says_same_only_when_it_is():
    assert "the same fraction" in text.fraction_sentence(1000, 100, 100, 10)
    two = text.fraction_sentence(1000, 100, 2, 1)  # the user's NHANES-style file: 2 "clusters"
    assert "the same fraction" not in two
    assert "ℓ = 1 of 2" in two and "0.5" in two and "0.1" in two


def test_population_tab_shows_the_cluster_stratum_note_and_computed_wording():
    at = open_page(PAGE, {"cl_view": POPULATION_TAB, "population": "Establishments"})
    assert not at.exception
    assert any("occur in more than one stratum" in w.value for w in at.warning)
    # 100 of 1,000 clusters drawn above, 10 of 100 regions here: genuinely the same fraction
    assert "the same fraction ℓ/k = 0.1 as above" in _all_text(at)
    at.number_input(key="cl_l").set_value(3).run()  # 3/1000 of 100 regions → 1 region, 0.01
    body = _all_text(at)
    assert "the same fraction" not in body
    assert "ℓ = 1 of 100" in body


# --- item 7: vocabulary ------------------------------------------------------------------


@pytest.mark.parametrize(
    "tab",
    [
        "ε_target vs cluster size",
        "ε_target vs fraction drawn",
        POPULATION_TAB,
        "Two-stage",
        "PPS & systematic",
        "Hypothesis-testing view",
    ],
)
def test_no_bare_eps_prime_and_cluster_size_is_M(tab):
    at = open_page(PAGE, {"cl_view": tab, "population": "Establishments"})
    body = _all_text(at) + "\n".join(m.label for m in at.metric)
    body += "\n".join(
        str(c["layout"]) + str([t.get("name") for t in c["data"]]) for c in charts(at)
    )
    body += "\n".join(x.value for x in at.get("latex"))
    assert "ε′" not in body and "varepsilon'" not in body
    assert "cluster size n " not in body
    assert "M a cluster's size" in "\n".join(c.value for c in at.caption).replace("**", "")


def test_legend_and_explanation_say_poisson_sampling():
    at = open_page(PAGE)
    names = {t.get("name") for c in charts(at) for t in c["data"]}
    assert "Poisson sampling, same fraction (eq. 3)" in names
    assert "simple random sampling, same fraction (eq. 3)" not in names


# --- item 7: ε_target in → ε_sample out ----------------------------------------------------


def test_target_direction_inverts_theorem_5_2():
    at = open_page(
        PAGE,
        {"cl_dir": text.FROM_TARGET, "cl_eps_target": "0.2", "cl_size": "5", "cl_spread": "2"},
    )
    assert not at.exception and not at.error
    shown = float(_metric(at, "ε_sample allowed, guaranteed (Thm 5.2)").value)
    safe, unsafe = cl.eps_sample_bounds_for_target(0.2, 1000, 100, 5, 2, 10)
    assert shown == pytest.approx(safe, rel=1e-3)
    assert float(_metric(at, "ε_sample above which Thm 5.1 breaks it").value) == pytest.approx(
        unsafe, rel=1e-3
    )
    _, upper = cl.cluster_eps_bounds(safe, 1000, 100, 5, 2, 10)
    assert upper == pytest.approx(0.2, rel=1e-9)
    # switching the direction back brings the ε_sample metrics back
    at.radio(key="cl_dir").set_value(text.FROM_SAMPLE).run()
    assert any(m.label == "ε_target upper bound (Thm 5.2)" for m in at.metric)


def test_a_bound_that_does_not_amplify_is_said_in_words():
    at = open_page(PAGE, {"cl_size": "1000"})
    metric = _metric(at, "ε_target upper bound (Thm 5.2)")
    assert metric.value == "no amplification"
    assert text.NO_AMPLIFICATION in metric.proto.help


# --- item 6: the snippet rebuilds the active population ----------------------------------


def _printed(code: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    found = re.findall(r"^(\w[\w ]*?) = ([-+0-9.e]+)$", out.stdout, flags=re.M)
    return {name: float(value) for name, value in found}


@pytest.mark.parametrize("key", list(BUILTIN_POPULATIONS))
def test_snippet_rebuilds_each_builtin_and_prints_the_page_numbers(key):
    at = open_page(PAGE, {"cl_size": "7", "cl_spread": "2", "cl_eps": "0.3"})
    at.selectbox(key="population").set_value(key).run()
    code = at.get("code")[0].proto.code_text
    assert f"make_builtin({key!r}, seed=" in code
    printed = _printed(code)
    upper = _metric(at, "ε_target upper bound (Thm 5.2)")
    assert printed["upper"] == pytest.approx(float(upper.value), rel=1e-3)


def test_snippet_in_the_target_direction_prints_the_allowed_eps_sample():
    at = open_page(PAGE, {"cl_dir": text.FROM_TARGET, "cl_eps_target": "0.05"})
    printed = _printed(at.get("code")[0].proto.code_text)
    shown = float(_metric(at, "ε_sample allowed, guaranteed (Thm 5.2)").value)
    assert printed["eps_sample allowed"] == pytest.approx(shown, rel=1e-3)
