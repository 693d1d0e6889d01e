"""Several quantiles in one release (JointExp) against one release per quantile.

When a sample is to give ``m >= 2`` quantiles, the budget can be split over ``m`` separate
releases (:func:`core.planner.composition.several_statistics`), or spent whole on one
release of all of them by the joint exponential mechanism
(:class:`core.mechanisms.JointExpQuantiles`; Gillenwater, Joseph & Kulesza, ICML 2021,
Section 3).  :func:`joint_exp_errors` gives JointExp's per-quantile RMSE about the
population's quantiles on a design's samples, and :func:`joint_against_separate` compares
it with the separate releases by the largest and by the mean per-quantile RMSE.

Accounting.  JointExp's change budget is 1 and its add/remove budget ``1 - d``, with ``d``
the smallest gap ``q_j - q_{j-1}`` between its levels, 0 and 1 (proved in its class
docstring; :meth:`core.mechanisms.JointExpQuantiles.budget_factors`), and a design's
accounting reads them (:meth:`core.designs.protocol.PlannerDesign.accounting`).  The
separate release of level ``q_j`` spends its share of its own ``eps_sample``, with
add/remove budget ``max(q_j, 1 - q_j) <= 1 - d`` (``q_j`` and ``1 - q_j`` are both at least
``d``); JointExp spends the quantiles' shares ``w_1 + ... + w_m`` of its own once.  Where
only a changed record counts on a design of fixed size (the census and SRS under
``"replacement"``) both budgets are the same; where the add/remove budget counts JointExp's
``eps_sample`` can be the smaller.  Both promise the same ``eps_target``.

Cost.  JointExp's exact sampler builds its tables in ``O(m^2 n)`` per sample and then draws
in ``O(m n)`` each, so the Monte Carlo uses few samples and several draws per sample: at
most :data:`JOINT_WORK` units of ``m^2 n + DRAWS m n`` (about one second on one core: a
table at ``n = 10^5`` with the nine deciles takes about 0.15 s), at least two samples
where the design draws random samples, and at most ``reps`` (the census has one sample, the
population, and draws up to ``reps`` releases from it within the same budget).  With ``S``
samples and ``D`` draws each, ``MSE_j = mean over (s, d) of (o_{s,d,j} - theta_j)^2`` is
unbiased for the release's mean squared error about the population value ``theta_j``; its
standard error comes from the ``S`` per-sample means (the draws of one sample share its
sampling error), and the RMSE's by the delta method, ``se(MSE) / (2 RMSE)``.  A sample
whose one table would cost more than :data:`MAX_SAMPLE_WORK` units is refused with a
ValueError that says so.  Measured (``bench/bench_planner.py``): the nine deciles of a 10 %
simple random sample take about 1 s at ``N = 10^5`` (35 samples) and 6.6 s at
``N = 10^7`` (2 samples of a million records).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._validation import check_choice, check_seed, check_whole
from ..designs.frame import Frame
from ..designs.protocol import RELATIONS
from ..designs.registry import DESIGNS, design_named
from ..mechanisms import JointExpQuantiles
from ..planner import memory
from ..planner.budgets import positive
from ..planner.composition import at_rate

if TYPE_CHECKING:
    from ..planner.engine import PlanResult
    from ..populations import Population

__all__ = [
    "DRAWS",
    "JOINT_WORK",
    "MAX_SAMPLE_WORK",
    "JointErrors",
    "JointVerdict",
    "joint_against_separate",
    "joint_exp_errors",
    "separate_rmse",
]

#: Releases drawn from each sample's tables.
DRAWS = 10
#: Work budget of one JointExp Monte Carlo, in units of ``m^2 n + DRAWS m n``.
JOINT_WORK = 6e7
#: Largest ``m^2 n`` of one sample the planner builds tables for (a few seconds).
MAX_SAMPLE_WORK = 2e8


@dataclass(frozen=True)
class JointErrors:
    """JointExp's errors on one design at one rate (:func:`joint_exp_errors`).

    Attributes
    ----------
    design : str
        The design's name.
    rate : float
        The realised rate (1 for the census).
    n : float
        Expected sample size.
    quantiles : tuple of float
        The levels ``q_1 < ... < q_m``.
    population_values : tuple of float
        ``theta_j``: the population's order statistic of rank ``ceil(q_j N)``.
    eps_sample : float
        The budget JointExp spends on the sample (the design's ``eps_sample`` times the
        quantiles' combined share).
    accounting : str
        The bound that gives the design's ``eps_sample``, in words.
    rmse, rmse_se : tuple of float
        Per-quantile RMSE about ``theta_j`` and its Monte Carlo standard error.
    samples, draws : int
        Samples drawn from the design, and releases drawn from each.
    """

    design: str
    rate: float
    n: float
    quantiles: tuple[float, ...]
    population_values: tuple[float, ...]
    eps_sample: float
    accounting: str
    rmse: tuple[float, ...]
    rmse_se: tuple[float, ...]
    samples: int
    draws: int


def _samples(m: int, n: float, reps: int) -> int:
    """Samples in the Monte Carlo: the work budget over one sample's cost, within
    ``[2, reps]`` (module docstring)."""
    per_sample = m * m * max(n, 1.0) + DRAWS * m * max(n, 1.0)
    return int(min(reps, max(2, math.floor(JOINT_WORK / per_sample))))


def _census_draws(m: int, n: float, reps: int) -> int:
    """Releases of the one census sample: what the work budget leaves after its table,
    within ``[DRAWS, reps]``."""
    room = (JOINT_WORK - m * m * n) / (m * max(n, 1.0))
    return int(min(max(reps, DRAWS), max(DRAWS, math.floor(room))))


def joint_exp_errors(
    population: Population,
    quantiles: Sequence[float],
    *,
    design: str,
    rate: float,
    eps_target: float,
    share: float = 1.0,
    relation: str = "replacement",
    reps: int = 200,
    seed: int = 0,
    frame: Frame | None = None,
) -> JointErrors:
    """Per-quantile RMSE of JointExp releasing ``quantiles`` of ``design``'s samples at once.

    The design's samples at ``rate`` (the whole population for the census) are drawn as
    the planner draws whole samples (the design's keys and masks); JointExp spends
    ``share`` times the ``eps_sample`` the design's accounting allows it for
    ``eps_target`` (module docstring); the errors are measured about the population's
    quantiles, as every planner row is.

    Parameters
    ----------
    population : Population
        Sorted values with finite public bounds.
    quantiles : sequence of float
        At least two levels, strictly increasing inside (0, 1).
    design : str
        A design of :data:`core.designs.registry.DESIGNS` available on the population.
    rate : float
        Sampling rate in (0, 1] (ignored by the census).
    eps_target : float
        The promise for all the quantiles together, > 0.
    share : float
        The quantiles' combined share of the design's ``eps_sample``, in (0, 1].
    relation : str
        ``"replacement"`` or ``"deletion"``.
    reps : int
        Upper limit on the samples drawn, 2 to 100,000 (the work budget usually sets
        fewer; module docstring).
    seed : int
        Seed of the samples and the releases.
    frame : Frame, optional
        The population already prepared.

    Returns
    -------
    JointErrors

    Raises
    ------
    ValueError
        For fewer than two quantiles or levels that are not increasing in (0, 1), an
        unknown or unavailable design, a rate the design cannot realise, a bad budget or
        share, or a sample too large for the exact sampler (:data:`MAX_SAMPLE_WORK`).
    """
    mech = JointExpQuantiles(quantiles)
    q = tuple(float(x) for x in mech.quantiles)
    if len(q) < 2:
        raise ValueError(f"quantiles must list at least two levels; got {list(q)!r}")
    check_choice("relation", relation, RELATIONS)
    d = design_named(design)
    t = positive("eps_target", eps_target)
    w = positive("share", share)
    if w > 1:
        raise ValueError(f"share must be a number in (0, 1]; got {share!r}")
    T = check_whole("reps", reps, 2, 100_000)
    s = check_seed(seed)
    fr = Frame.of(population) if frame is None else frame
    reason = d.unavailable(fr, relation)
    if reason:
        raise ValueError(f"the design {design!r} is not available here: {reason}")
    r = 1.0 if d.reference else positive("rate", rate)
    point = d.point(fr, r)
    if point is None or not 0 < point.rate <= 1:
        raise ValueError(f"the {d.label.lower()} cannot realise rate = {rate!r} here")
    acc = d.accounting(t, relation, mech.budget_factors(), point, shared=w < 1.0)
    eps_sample = acc.eps_sample * w
    m = len(q)
    n = float(fr.N) if d.reference else float(point.n)
    if m * m * n > MAX_SAMPLE_WORK:
        raise ValueError(
            f"JointExp's exact sampler costs about m² n = {m * m * n:.3g} steps per sample "
            f"here (m = {m} quantiles, n = {n:,.0f}), more than the planner's limit of "
            f"{MAX_SAMPLE_WORK:.3g}; choose fewer quantiles or a lower rate"
        )
    theta = np.array([fr.value("quantile", x) for x in q])
    noise_rng = np.random.default_rng([s, 43, list(DESIGNS).index(d.name)])
    draws = DRAWS
    if d.reference:
        samples = [fr.values]
        draws = _census_draws(m, n, T)
    else:
        S = _samples(m, n, T)
        key_rng = np.random.default_rng([s, 41, list(DESIGNS).index(d.name)])
        rows = memory.chunk_rows(fr.N, d.mask_bytes, S)
        samples = []
        for size in memory.chunks(S, rows):
            mask = d.mask(fr, d.draw_keys(fr, size, key_rng), point)
            samples.extend(fr.values[mask[i]] for i in range(size))
            del mask
    out, _ = mech.release_draws(samples, eps_sample, 0.5, fr.lower, fr.upper, noise_rng, draws)
    per_sample = np.mean((out - theta[np.newaxis, np.newaxis, :]) ** 2, axis=1)  # (S, m)
    mse = per_sample.mean(axis=0)
    rmse = np.sqrt(mse)
    if len(samples) > 1:
        se_mse = per_sample.std(axis=0, ddof=1) / math.sqrt(len(samples))
    else:  # one fixed sample (the census): the draws are independent
        errors = (out[0] - theta[np.newaxis, :]) ** 2
        se_mse = errors.std(axis=0, ddof=1) / math.sqrt(errors.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        rmse_se = np.where(rmse > 0, se_mse / (2.0 * rmse), 0.0)
    return JointErrors(
        design=d.name,
        rate=float(point.rate),
        n=n,
        quantiles=q,
        population_values=tuple(map(float, theta)),
        eps_sample=float(eps_sample),
        accounting=acc.bound,
        rmse=tuple(map(float, rmse)),
        rmse_se=tuple(map(float, rmse_se)),
        samples=len(samples),
        draws=draws,
    )


def separate_rmse(results: Sequence[PlanResult], design: str, rate: float) -> pd.DataFrame:
    """The best separate release of each quantile plan on ``design`` at ``rate``.

    For each plan (one per quantile, from :func:`core.planner.several_statistics`), the row
    of ``design`` at the realised rate nearest ``rate`` (the census: its row) with the
    smallest RMSE over the mechanisms compared.  Columns ``quantile``, ``mechanism``,
    ``mechanism_label``, ``rate``, ``eps_sample``, ``rmse``, ``rmse_se``.

    Raises
    ------
    ValueError
        When a plan has no row of ``design``.
    """
    got = at_rate(results, design, rate, objective="rmse")
    return got[
        ["quantile", "mechanism", "mechanism_label", "rate", "eps_sample", "rmse", "rmse_se"]
    ]


@dataclass(frozen=True)
class JointVerdict:
    """Which of one JointExp release and separate releases is more accurate.

    Attributes
    ----------
    joint_max, separate_max : float
        The largest per-quantile RMSE of each.
    joint_mean, separate_mean : float
        The mean per-quantile RMSE of each.
    by_max, by_mean : str
        ``"joint"`` or ``"separate"``: the smaller one by that summary (``"tie"`` when
        equal).
    """

    joint_max: float
    separate_max: float
    joint_mean: float
    separate_mean: float
    by_max: str
    by_mean: str


def _smaller(joint: float, separate: float) -> str:
    if joint < separate:
        return "joint"
    if separate < joint:
        return "separate"
    return "tie"


def joint_against_separate(joint: Sequence[float], separate: Sequence[float]) -> JointVerdict:
    """Compare per-quantile RMSEs by their largest and by their mean value.

    Parameters
    ----------
    joint, separate : sequence of float
        One RMSE per quantile, in the same order (JointExp; the separate releases).

    Raises
    ------
    ValueError
        For lists of different or zero length, or values that are not finite and >= 0.
    """
    a = np.asarray(joint, dtype=np.float64)
    b = np.asarray(separate, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise ValueError(
            f"joint and separate must list one RMSE per quantile each; got {a.size} and {b.size}"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all() and (a >= 0).all() and (b >= 0).all()):
        raise ValueError("joint and separate RMSEs must be finite numbers >= 0")
    return JointVerdict(
        joint_max=float(a.max()),
        separate_max=float(b.max()),
        joint_mean=float(a.mean()),
        separate_mean=float(b.mean()),
        by_max=_smaller(float(a.max()), float(b.max())),
        by_mean=_smaller(float(a.mean()), float(b.mean())),
    )
