"""Defaults that fit the active population (δ_target = 1/(2N)), kept stable for shared links.

A URL-bound control leaves its value out of the URL while it equals the default, so the
default must depend only on what the URL holds: here the population, which is itself in the
URL. :func:`follow_population_default` also moves a control that the user never changed to
the new default when the population changes within a session.
"""

from __future__ import annotations

import math

import streamlit as st

from ui.widgets import set_controls


def delta_target_default(population_size: int) -> float:
    """The conventional δ_target = 1/(2N) for a population of ``population_size`` records.

    Hu, Drechsler & Kim (§4.3) use δ = 1/(2N): the failure probability stays well below the
    chance of picking any one record. The value is rounded to six significant digits so that
    it is exactly what the page's number box shows and what a link reproduces.

    Parameters
    ----------
    population_size : int
        N, the number of records in the active population (at least 1).

    Returns
    -------
    float
        ``1 / (2 N)`` rounded to six significant digits.

    Raises
    ------
    ValueError
        If ``population_size`` is not a positive integer.
    """
    if not (isinstance(population_size, int | float) and math.isfinite(population_size)):
        raise ValueError(f"population_size must be a finite number, got {population_size!r}")
    if population_size < 1 or int(population_size) != population_size:
        raise ValueError(f"population_size must be a positive integer, got {population_size!r}")
    return float(f"{1.0 / (2.0 * int(population_size)):.6g}")


def follow_population_default(key: str, default: float) -> None:
    """Move the control ``key`` to ``default`` if it still shows the previous automatic default.

    Call before the control is drawn. A value the user typed (or a link carried) is kept;
    only a value equal to the default this session last offered follows a new population.
    """
    auto_key = f"_{key}__auto_default"
    previous = st.session_state.get(auto_key)
    current = st.session_state.get(key)
    if previous is not None and current is not None and previous != default:
        if math.isclose(float(current), float(previous), rel_tol=1e-9, abs_tol=0.0):
            set_controls({key: default})
    st.session_state[auto_key] = default
