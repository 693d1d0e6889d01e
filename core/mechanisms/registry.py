"""The mechanisms by name, and the one-call public entry point.

:data:`MECHANISMS` maps each :attr:`~core.mechanisms.base.Mechanism.name` to its class;
:func:`mechanism_by_name` builds one with its constructor arguments checked, and
:func:`release` releases one private statistic per sorted sample.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._validation import (
    finite_scalar,
)
from ..mechanisms.base import FloatArray, Mechanism
from ..mechanisms.exponential import ExponentialQuantile
from ..mechanisms.means import GaussianMean, HorvitzThompsonMean, LaplaceMean
from ..mechanisms.piecewise_laplace import PiecewiseLaplaceQuantile
from ..mechanisms.polyplace import PolyPlaceQuantile
from ..mechanisms.quantiles import (
    GlobalLaplaceQuantile,
    SmoothLaplaceQuantile,
    SmoothPureQuantile,
    _Quantile,
)
from ..mechanisms.sum_count import SumCountMean
from ..mechanisms.unbounded import UnboundedQuantile

__all__ = [
    "MECHANISMS",
    "mechanism_by_name",
    "release",
]


#: The implemented mechanisms by :attr:`Mechanism.name`.
MECHANISMS: dict[str, type[Mechanism]] = {
    cls.name: cls
    for cls in (
        SmoothLaplaceQuantile,
        SmoothPureQuantile,
        ExponentialQuantile,
        GlobalLaplaceQuantile,
        PolyPlaceQuantile,
        PiecewiseLaplaceQuantile,
        UnboundedQuantile,
        LaplaceMean,
        GaussianMean,
        HorvitzThompsonMean,
        SumCountMean,
    )
}

#: Constructor arguments each mechanism requires (all others require none).
_PARAMETERS: dict[str, tuple[str, ...]] = {
    HorvitzThompsonMean.name: ("rate", "population_size", "lower", "upper"),
    SumCountMean.name: ("lower", "upper"),
}

#: Constructor arguments each mechanism accepts but does not require.
_OPTIONAL: dict[str, tuple[str, ...]] = {
    cls.name: ("quantile",) for cls in MECHANISMS.values() if issubclass(cls, _Quantile)
} | {
    UnboundedQuantile.name: ("quantile", "growth"),
    SumCountMean.name: ("sum_share", "size_hint", "offset_hint"),
}

#: The mechanisms that take a ``quantile``.
_QUANTILE_NAMES = sorted(n for n, opts in _OPTIONAL.items() if "quantile" in opts)

#: Placeholder ``delta_sample`` handed to pure mechanisms, which ignore it.
_UNUSED_DELTA = 0.5


def mechanism_by_name(name: str, **parameters: object) -> Mechanism:
    """A fresh mechanism from its :attr:`Mechanism.name` (e.g. ``"smooth_laplace"``).

    Parameters
    ----------
    name : str
        A key of :data:`MECHANISMS`.
    **parameters
        Constructor arguments: the quantile mechanisms (``"smooth_laplace"``,
        ``"smooth_pure"``, ``"exponential"``, ``"global_laplace"``, ``"smooth_polyplace"``,
        ``"piecewise_laplace"``, ``"unbounded"``) accept ``quantile`` (0.5 by default),
        ``"unbounded"`` also ``growth`` (``beta``, 1.001 by default); ``"ht_mean"`` needs
        ``rate``, ``population_size``, ``lower`` and ``upper``
        (``mechanism_by_name("ht_mean", rate=0.1, population_size=1000, lower=0,
        upper=10)``); ``"sum_count"`` needs ``lower`` and ``upper`` and accepts
        ``sum_share``, ``size_hint`` and ``offset_hint``; the others take none.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones), missing or unexpected
        parameters (the message names the ones the mechanism takes), or parameters its
        constructor refuses.
    """
    if not isinstance(name, str) or name not in MECHANISMS:
        raise ValueError(f"unknown mechanism {name!r}; choose one of {sorted(MECHANISMS)}")
    needed = _PARAMETERS.get(name, ())
    optional = _OPTIONAL.get(name, ())
    given = set(parameters)
    if not set(needed) <= given or not given <= set(needed) | set(optional):
        takes = [*needed, *(f"optionally {o}" for o in optional)]
        wanted = ", ".join(takes) if takes else "no parameters"
        got = ", ".join(sorted(parameters)) if parameters else "none"
        raise ValueError(f"mechanism {name!r} takes {wanted}; got {got}")
    return MECHANISMS[name](**parameters)


def release(
    samples: ArrayLike,
    *,
    mechanism: str | Mechanism,
    eps: float | ArrayLike,
    delta: float = 0.0,
    lower: float,
    upper: float,
    rng: np.random.Generator,
    quantile: float = 0.5,
) -> FloatArray:
    """Release one private statistic per sorted sample: the public API of the mechanisms.

    ``release(samples, mechanism="exponential", eps=1.0, lower=0, upper=10, rng=rng,
    quantile=0.9)`` is ``mechanism_by_name("exponential", quantile=0.9).release(samples,
    1.0, ., 0, 10, rng).released``.

    Parameters
    ----------
    samples : array_like, shape (reps, n)
        One sample per row, each sorted ascending, inside ``[lower, upper]`` (checked).
    mechanism : str or Mechanism
        A name of :data:`MECHANISMS` (``"smooth_laplace"``, ``"smooth_pure"``,
        ``"exponential"``, ``"global_laplace"``, ``"laplace"``, ``"gaussian"``,
        ``"sum_count"``, built for ``lower`` and ``upper``), or a mechanism object (e.g. a
        :class:`HorvitzThompsonMean`, which needs constructor arguments).
    eps : float or array_like, shape (reps,)
        The budget ``eps_sample`` spent on each sample, finite and > 0.
    delta : float, default 0
        ``delta_sample``: in (0, 1) for the mechanisms that spend it (``"smooth_laplace"``,
        ``"gaussian"``); must be 0 or in (0, 1) for the pure ones, which ignore it.
    lower, upper : float
        Public bounds, ``lower < upper``.
    rng : numpy.random.Generator
        Source of randomness.
    quantile : float, default 0.5
        For the quantile mechanisms, the level in (0, 1); a mean mechanism (or a
        mechanism object) accepts only the default.

    Returns
    -------
    ndarray, shape (reps,)
        The released values.

    Raises
    ------
    ValueError
        For an unknown mechanism, a ``delta`` the mechanism cannot use, a ``quantile``
        outside (0, 1) or given to a mechanism that has none, and everything
        :meth:`Mechanism.release` refuses.
    """
    if isinstance(mechanism, Mechanism):
        if quantile != 0.5:
            raise ValueError(
                "with a mechanism object, give the quantile to its constructor "
                f"(e.g. ExponentialQuantile(quantile=0.9)); got quantile={quantile!r}"
            )
        mech = mechanism
    elif isinstance(mechanism, str) and "quantile" in _OPTIONAL.get(mechanism, ()):
        mech = mechanism_by_name(mechanism, quantile=quantile)
    elif isinstance(mechanism, str) and set(_PARAMETERS.get(mechanism, ())) == {
        "lower",
        "upper",
    }:  # a mechanism built for the bounds alone (the size-free mean)
        mech = mechanism_by_name(mechanism, lower=lower, upper=upper)
        if quantile != 0.5:
            raise ValueError(
                f"quantile is only for the quantile mechanisms {_QUANTILE_NAMES}; "
                f"mechanism {mechanism!r} got quantile={quantile!r}"
            )
    else:
        mech = mechanism_by_name(mechanism)  # raises for an unknown name
        if quantile != 0.5:
            raise ValueError(
                f"quantile is only for the quantile mechanisms {_QUANTILE_NAMES}; "
                f"mechanism {mechanism!r} got quantile={quantile!r}"
            )
    d = finite_scalar("delta", delta)
    if mech.uses_delta:
        if not 0.0 < d < 1.0:
            raise ValueError(
                f"delta must be in the interval (0, 1) for mechanism {mech.name!r}, which "
                f"spends delta_sample; got {delta!r}"
            )
    elif not 0.0 <= d < 1.0:
        raise ValueError(f"delta must be in the interval [0, 1); got {delta!r}")
    used = d if mech.uses_delta else _UNUSED_DELTA
    return mech.release(samples, eps, used, lower, upper, rng).released
