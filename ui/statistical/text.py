""" "Reproduce in Python" snippets of the Statistical privacy page, one per tab.

The page does not compute on the sidebar's population: its data are N records that each
have a property with probability π. Each snippet carries the page's current parameters and
prints numbers the tab shows. In the snippets, as on the page, N is the number of records
and n the number of records sampled (the paper calls them n and m).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

CURVE_TAB = "Privacy curve δ(ε)"
PI_TAB = "δ against π (Figures 1–4, 6)"
EU_TAB = "Equal utility (Figures 5, 7, 8)"
#: The expander holding the answer distributions the adversary compares (drawn when opened).
DISTRIBUTIONS_LABEL = "What the adversary compares: the answer's two distributions"
TABS = (CURVE_TAB, PI_TAB, EU_TAB)

#: Presets of the paper's figures; each opens the tab whose controls it sets (``sp_view``).
PRESETS: dict[str, dict[str, Any]] = {
    "Figs 1–2: Gaussian": {
        "sp_view": PI_TAB,
        "sp_noise": "gaussian",
        "sp_n": 1000,
        "sp_eps": 0.01,
        "sp_nus": "1, 3",
        "sp_ratio_pis": "0.5, 0.1, 0.01",
    },
    "Figs 3–4: Laplace": {
        "sp_view": PI_TAB,
        "sp_noise": "laplace",
        "sp_n": 1000,
        "sp_eps": 0.01,
        "sp_nus": "1, 3",
        "sp_ratio_pis": "0.5, 0.1, 0.01",
    },
    "Fig 6: N = 100": {
        "sp_view": PI_TAB,
        "sp_noise": "gaussian",
        "sp_n": 100,
        "sp_eps": 0.01,
        "sp_ratio_pis": "0.5, 0.1, 0.01",
    },
    "Figs 5, 8: utility": {
        "sp_view": EU_TAB,
        "sp_n": 1000,
        "sp_eps": 0.01,
        "sp_pi": 0.5,
        "sp_lambda": 0.1,
        "sp_eu_pis": "0.5, 0.1",
    },
    "Fig 7: conjecture": {
        "sp_view": EU_TAB,
        "sp_n": 1000,
        "sp_eps": 0.1,
        "sp_pi": 0.5,
    },
}


def _floats(values: Sequence[float]) -> str:
    return "[" + ", ".join(f"{float(v)!r}" for v in values) + "]"


def _header(size: int, pi: float, eps: float, lam: float) -> str:
    return f"""from core import statistical as sp

N, pi, eps = {int(size)}, {float(pi)!r}, {float(eps)!r}   # records, P(property), ε where δ is read
n = sp.sample_size(N, {float(lam)!r})   # records sampled (λ = n/N)
"""


def curve_snippet(*, size: int, pi: float, eps: float, nu: float, lam: float) -> str:
    """δ(ε) of each mechanism at the page's ε (Breutigam & Reischuk, Definition 5, eq. 4)."""
    return (
        _header(size, pi, eps, lam)
        + f"""nu = {float(nu)!r}                      # noise scale in units of the sensitivity 1/N

# δ = max of the two directions (eq. 4), computed from the definition
for name, key in [("no mechanism", "none"), ("subsampling", "subsampling"),
                  ("Gaussian noise", "gaussian"), ("Laplace noise", "laplace")]:
    plus, minus = sp.delta_directions(key, N, pi, eps, m=n, noise_multiplier=nu)
    print(f"{{name}}: delta={{max(float(plus), float(minus)):.6g}}")
print(f"worst case (DP), Gaussian: {{sp.delta_dp_gaussian(eps, nu):.6g}}")
"""
    )


def pi_snippet(*, size: int, eps: float, noise: str, nus: Sequence[float]) -> str:
    """δ at π = 1/2 and the worst-case δ for each ν (Figures 1–4 and 6)."""
    func = "delta_gaussian" if noise == "gaussian" else "delta_laplace"
    worst = "delta_dp_gaussian" if noise == "gaussian" else "delta_dp_laplace"
    return f"""from core import statistical as sp

N, eps = {int(size)}, {float(eps)!r}
for nu in {_floats(nus)}:
    # statistical δ at π = 1/2 against the worst case of differential privacy
    print(f"nu={{nu:g}} delta_pi_half={{sp.{func}(N, 0.5, eps, nu):.6g}} "
          f"delta_dp={{sp.{worst}(eps, nu):.6g}}")
"""


def equal_utility_snippet(*, size: int, pi: float, eps: float, lam: float) -> str:
    """Noise with the sample's utility loss and the three δ (§6, Lemmas 7–9)."""
    return (
        _header(size, pi, eps, lam)
        + """nu_g = sp.equal_utility_noise_multiplier(N, n, pi, "gaussian")
nu_l = sp.equal_utility_noise_multiplier(N, n, pi, "laplace")
print(f"utility loss={sp.utility_loss_subsampling(N, n, pi):.6g}")
print(f"subsampling delta={sp.delta_subsampling(N, n, pi, eps):.6g}")
print(f"Gaussian nu={nu_g:.6g} delta={sp.delta_gaussian(N, pi, eps, nu_g):.6g}")
print(f"Laplace nu={nu_l:.6g} delta={sp.delta_laplace(N, pi, eps, nu_l):.6g}")
"""
    )
