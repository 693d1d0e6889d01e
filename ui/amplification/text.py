"""Tabs, presets and "Reproduce in Python" snippets of the Amplification page.

The page computes nothing on the population's values, so its snippets carry only the
page's current parameters; each prints numbers the page shows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

FORWARD_TAB = "ε_sample against the rate"
REVERSE_TAB = "Reverse view and calculator"
STEINKE_TAB = "Steinke: limits of amplification"
TABS = (FORWARD_TAB, REVERSE_TAB, STEINKE_TAB)

#: Presets; each opens the tab whose controls it sets (``amp_view``).
PRESETS: dict[str, dict[str, Any]] = {
    "Hu et al. Figure 3": {
        "amp_view": FORWARD_TAB,
        "amp_eps_targets": "0.1, 0.5, 1",
        "amp_rate_min": 0.001,
        "amp_log_x": False,
        "amp_log_y": False,
    },
    "Paper example: 101 of 10,001": {
        "amp_view": REVERSE_TAB,
        "amp_eps_targets": "0.1, 1",
        "amp_N": 10001,
        "amp_n": 101,
    },
    "Steinke's figures": {
        "amp_view": STEINKE_TAB,
        "amp_st_eps": "0.01, 0.1, 1, 2",
        "amp_st_p": "0.001, 0.01, 0.1, 0.5",
        "amp_st_c": "0.2, 0.5, 2, 5",
    },
}


def default_sample_size(population_size: int) -> int:
    """Default n of the calculator: a 1 % sample, rounded up (101 of N = 10,001)."""
    if population_size < 1:
        raise ValueError(f"population_size must be at least 1, got {population_size}")
    return max(1, math.ceil(population_size / 100))


def delta_help(population_size: int, default: float) -> str:
    """Help text of δ_target: its default is 1/(2N) of the active population."""
    return (
        f"Defaults to 1/(2N) of the active population: N = {population_size:,} gives "
        f"{default:.4e} (Hu et al. use 1/(2N)). A value you type is kept and stored in the link."
    )


def delta_sample_status(delta_sample: float) -> str:
    """Plain words for a δ_sample: at 1 or above the δ constraint on the sample is vacuous."""
    if not (delta_sample < 1.0):
        return "vacuous: δ_sample ≥ 1 puts no constraint on the sample mechanism"
    return "constrains the sample mechanism"


def _floats(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{float(v)!r}" for v in values) + "]"


def forward_snippet(eps_targets: Sequence[float], rate_min: float, delta_target: float) -> str:
    """Python for the forward view: ε_sample and δ_sample at the smallest rate shown."""
    return f"""from core import amplification as amp

rate_min = {float(rate_min)!r}          # smallest sampling rate n/N shown
for eps_target in {_floats(eps_targets)}:
    # ε_sample = log(1 + (e^ε_target − 1)/rate)  (Hu et al. Theorem 1)
    print(f"eps_target={{eps_target:g}} eps_sample={{amp.eps_sample(eps_target, rate_min):.6g}}")
print(f"delta_sample={{amp.delta_sample({float(delta_target)!r}, rate_min):.6g}}")
"""


def reverse_snippet(
    eps_targets: Sequence[float], delta_target: float, population_size: int, sample_size: int
) -> str:
    """Python for the calculator: what n of N may spend for each ε_target."""
    return f"""from core import amplification as amp

N, n = {int(population_size)}, {int(sample_size)}
rate = n / N
for eps_target in {_floats(eps_targets)}:
    print(f"eps_target={{eps_target:g}} eps_sample={{amp.eps_sample(eps_target, rate):.6g}}")
delta_sample = amp.delta_sample({float(delta_target)!r}, rate)
print(f"delta_sample={{delta_sample:.6g}}", "(vacuous)" if delta_sample >= 1 else "")
"""


def steinke_snippet(
    eps_values: Sequence[float], rates: Sequence[float], constants: Sequence[float]
) -> str:
    """Python for Steinke's ratio p·ε_p/ε at the page's ε and p, and the floors log(1+c)/c."""
    return f"""from core import amplification as amp

for eps in {_floats(eps_values)}:
    for p in {_floats(rates)}:
        print(f"eps={{eps:g}} p={{p:g}} ratio={{amp.steinke_ratio(eps, p):.6g}}")
for c in {_floats(constants)}:
    # with ε = c·p the ratio never falls below log(1 + c)/c (Steinke, eq. 6)
    print(f"c={{c:g}} floor={{amp.steinke_floor(c):.6g}}")
"""
