"""A design as the release planner uses it: at every rate, with its samplers and accounting.

:class:`core.designs.Design` states one design's theorem at fixed parameters.  A
:class:`PlannerDesign` is the whole design across rates, and owns everything the planner
asks of a design:

* **points** -- which rates it can realise on a population (``n = round(r N)`` for a
  fixed-size sample, ``ℓ = round(r k)`` clusters) and what a mask needs at each;
* **accounting** -- ``eps_sample`` from ``eps_target`` and back, for a mechanism under a
  neighbouring relation, with the bound used named in words;
* **samplers** -- random keys shared by every rate of a chunk of repetitions (common random
  numbers) and the sample masks they give (O(N) per repetition, for small populations and
  for mechanisms that need the whole sample), and, where the design can, a window source
  that reveals only the sample's order statistics near a rank (:mod:`core.windowed`), at a
  cost that does not grow with N;
* **the mean in closed form** -- the design variance of the linear estimator the mean
  mechanisms release (:mod:`core.designs.mean_error`, :attr:`has_mean_moments`), so the
  mean needs no Monte Carlo.

The planner (:mod:`core.planner`) is a loop over designs × mechanisms × rates that calls
these methods and never branches on a design's name.  Adding a design is one module with a
subclass, one line in :mod:`core.designs.registry` and one test module (CONTRIBUTING.md,
"Add a design").

Invariants every subclass keeps
-------------------------------
* :meth:`PlannerDesign.eps_sample` and :meth:`PlannerDesign.eps_target` are inverse (to
  1e-9 relative) for every relation and mechanism the design accepts.
* :meth:`PlannerDesign.mask` rows have the design's exact law, and every rate of a chunk
  uses the same keys.
* A window source, when offered, reveals order statistics with exactly the law of the mask's
  sample.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ..accounting.change_one import effective_change_factor

if TYPE_CHECKING:
    from ..designs.frame import Frame
    from ..linear.moments import LinearMoments
    from ..linear.sums import GroupSums
    from ..mechanisms import Mechanism
    from ..mechanisms.base import BudgetFactors

#: A source of sample windows (:class:`core.windowed.SampleWindows` or a design's own).
WindowSource = Any

__all__ = ["RELATIONS", "Accounting", "PlannerDesign", "Point", "WindowDraw", "factor_pair"]

#: Neighbouring relations a promise can be made for: change one person's record, or add
#: or remove one person.
RELATIONS = ("replacement", "deletion")


@dataclass(frozen=True)
class Point:
    """One rate of one design: what its samplers need and what its theorem takes.

    Attributes
    ----------
    rate : float
        The realised sampling rate (``n / N`` for SRS, ``ℓ / k`` for clusters).
    size : float
        What a mask compares keys with: ``n`` (SRS), the rate (Poisson, stratified), ``ℓ``
        (clusters).
    n : float
        Expected sample size.
    clusters_sampled : float
        ``ℓ`` for cluster designs, NaN otherwise.
    theorem : dict
        Keyword arguments of the design's theorem at this point.
    """

    rate: float
    size: float
    n: float
    clusters_sampled: float = math.nan
    theorem: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Accounting:
    """The budget a mechanism may spend on a design's sample, and the bound that allows it.

    Attributes
    ----------
    eps_sample : float
        The largest ``eps_sample`` that keeps ``eps_target``.
    bound : str
        The bound used, in plain words with its source.
    """

    eps_sample: float
    bound: str


@dataclass(frozen=True)
class WindowDraw:
    """Samples drawn lazily: their sizes now, their order statistics on demand.

    Attributes
    ----------
    sizes : ndarray of int, shape (reps,)
        Sample size of each repetition (0 for an empty sample, possible when the size is
        random).
    source : callable or None
        ``source(rng, rows)`` returns a :class:`core.windowed.WindowSource` over the
        repetitions ``rows`` (indices into ``sizes``, each a non-empty sample); None means
        the samples are uniform subsets of their sizes (:class:`core.windowed.SampleWindows`).
    """

    sizes: NDArray[np.int64]
    source: Callable[[np.random.Generator, NDArray[np.int64]], WindowSource] | None = None


def _factor(factors: BudgetFactors | None, relation: str) -> float:
    """The mechanism's budget for ``relation`` per unit of ``eps_sample`` (1 when unnamed).

    ``α`` for added or removed records; ``min(γ, 2α)`` for a changed one
    (:func:`core.accounting.change_one.effective_change_factor`).  ``factors`` are the
    mechanism's at the level it releases (:meth:`core.mechanisms.Mechanism.budget_factors`).
    """
    if factors is None:
        return 1.0
    alpha, gamma = factors.add_remove, factors.change
    if relation == "deletion":
        if alpha is None:
            raise ValueError(f"{factors.name!r} states no guarantee for added or removed records")
        return float(alpha)
    return effective_change_factor(alpha, gamma)


def factor_pair(factors: BudgetFactors | None, shared: bool = False) -> tuple[float | None, float]:
    """``(α, min(γ, 2α))``: the mechanism's budgets for an added or removed record and for
    a changed one, per unit of ``eps_sample`` (``α = None`` without an add/remove
    guarantee; 1 and 1 when no mechanism is named).  ``shared`` (other releases share the
    sample, :meth:`PlannerDesign.accounting`): the change budget is read as ``2α``, so that
    a bound of both budgets depends on ``α`` alone and the releases' shares add."""
    if factors is None:
        return 1.0, 1.0
    alpha = factors.add_remove
    if alpha is None:
        return None, _factor(factors, "replacement")
    return float(alpha), 2.0 * float(alpha) if shared else _factor(factors, "replacement")


class PlannerDesign(ABC):
    """A sampling design across rates (module docstring).

    Attributes
    ----------
    name : str
        Identifier used in plan tables and URLs.
    label, short_label : str
        Plain-words name, long (tables) and short (chart legends).
    description : str
        A paragraph for reports: what is drawn and which theorem carries the promise.
    theorem : str
        The amplification theorem with its source.
    proven_for : str
        ``"replacement"``, ``"deletion"``, ``"any"`` (no sampling) or ``"none"``.
    fixed_size : bool
        The sample size is fixed by the design, so a mechanism proven for a changed record
        in a sample of fixed size fits it.  Random-size designs need mechanisms proven for
        added or removed records.
    reference : bool
        The design is the census every other design is compared with.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    short_label: ClassVar[str] = ""
    theorem: ClassVar[str] = ""
    #: One plain-words paragraph: what is drawn and which theorem carries the promise.
    description: ClassVar[str] = ""
    proven_for: ClassVar[str] = "deletion"
    fixed_size: ClassVar[bool] = False
    reference: ClassVar[bool] = False
    #: Bytes of working memory per record and repetition when drawing masks (keys, mask,
    #: the samples cut out and the mechanism's batch).
    mask_bytes: ClassVar[int] = 40
    #: :mod:`core.designs.mean_error` gives the design's exact mean and variance of the
    #: linear mean estimator (the design's name is one of its ``DESIGNS``).
    has_mean_moments: ClassVar[bool] = False
    #: Whether :meth:`linear_moments` gives the design variance of a total in closed form.
    has_linear_moments: ClassVar[bool] = False
    #: The sampling scheme of :mod:`core.accounting.gaussian_profile` whose exact privacy
    #: profile the design has (``"srs"``), or None (:mod:`core.planner.profiles`).
    exact_profile: ClassVar[str | None] = None

    # -- availability -------------------------------------------------------------------

    def unavailable_for_relation(self, relation: str) -> str:
        """Why no promise under ``relation`` can rest on the design (empty when one can)."""
        if self.proven_for == "replacement" and relation == "deletion":
            return (
                "Its theorem covers changing one record in a sample of fixed size, not adding "
                "or removing one; Poisson sampling is the design proven for that."
            )
        return ""

    def unavailable(self, frame: Frame, relation: str) -> str:
        """Why the planner cannot compare the design on ``frame`` (empty when it can)."""
        return self.unavailable_for_relation(relation)

    def caveat(self, relation: str) -> str:
        """A note on how the design is accounted under ``relation`` (empty when none)."""
        if self.proven_for == "deletion" and relation == "replacement":
            return (
                "Its theorem is proven for adding or removing a record; a changed record is a "
                "removal and an addition, so it keeps 2 × its ε for one (group privacy) and "
                "may spend the ε_sample of ε_target / 2."
            )
        return ""

    # -- points ---------------------------------------------------------------------------

    def points(self, frame: Frame, rates: Sequence[float]) -> list[Point]:
        """The distinct feasible points of ``rates``, ascending; rate 1 is left out."""
        seen: dict[float, Point] = {}
        for r in rates:
            p = self.point(frame, float(r))
            if p is not None and p.rate < 1.0 and p.rate not in seen:
                seen[p.rate] = p
        return sorted(seen.values(), key=lambda p: p.rate)

    def point(self, frame: Frame, rate: float) -> Point | None:
        """The point realising ``rate`` on ``frame`` (None when the design cannot)."""
        return Point(rate, rate, rate * frame.N, theorem={"rate": rate})

    def theorem_keywords(self, frame: Frame, rate: float) -> dict[str, Any]:
        """The keyword arguments of :meth:`theorem_point` for ``rate`` on ``frame``."""
        return {"rate": float(rate)}

    def theorem_point(self, keywords: dict[str, Any]) -> Point:
        """The point the theorem's keyword arguments describe (``rate=`` by default)."""
        if set(keywords) != {"rate"}:
            raise ValueError(f"the {self.name!r} design needs rate= (and nothing else)")
        r = float(keywords["rate"])
        if not (math.isfinite(r) and 0.0 < r <= 1.0):
            raise ValueError(f"rate must be a number in (0, 1]; got {keywords['rate']!r}")
        return Point(r, r, math.nan, theorem={"rate": r})

    # -- accounting -----------------------------------------------------------------------

    @abstractmethod
    def amplified(self, eps_sample: float, point: Point) -> float:
        """The theorem's ``eps_target`` for the relation it is proven for."""

    @abstractmethod
    def deamplified(self, eps_target: float, point: Point) -> float:
        """The inverse of :meth:`amplified`."""

    def fits(self, mechanism: type[Mechanism], relation: str) -> bool:
        """Whether ``mechanism``'s guarantee is what the design's theorem needs.

        A fixed-size design needs the guarantee for ``relation`` itself; a random-size design
        needs it for added or removed records (its theorems are proven for those).
        """
        if self.proven_for == "none":
            return False
        need = relation if self.fixed_size else "deletion"
        return need in mechanism.relations

    def accounting(
        self,
        eps_target: float,
        relation: str,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> Accounting:
        """``eps_sample`` for ``eps_target`` under ``relation``, with the bound named.

        A design proven for the relation asked (or needing none) uses its theorem at the
        mechanism's budget for that relation (``ε_ar = α ε_sample`` for added or removed
        records, ``ε_sub = min(γ, 2α) ε_sample`` for a changed one; α = γ = 1 when no
        mechanism is named).  A design proven for added or removed records, asked for a
        changed record, uses :meth:`change_accounting`.  ``factors`` are the mechanism's
        budgets at the level it releases (:meth:`core.mechanisms.Mechanism.budget_factors`:
        α = max(q, 1 − q) for the exponential quantile, so 1/2 for the median).

        ``shared``: the release spends a share of ``eps_sample`` and the other shares go to
        other releases from the same sample, which compose there (their ``ε_ar`` add, and
        their ``ε_sub``).  Every bound here is a function of one of the two budgets, so the
        shares of different mechanisms add up to what the bound allows; a bound of both
        at once must make them add too (:meth:`change_accounting`).
        """
        factor = _factor(factors, relation)
        if self.proven_for == "any":
            return Accounting(eps_target / factor, self.theorem)
        if self.proven_for == relation:
            return Accounting(self.deamplified(eps_target, point) / factor, self.theorem)
        if self.proven_for == "deletion" and relation == "replacement":
            return self.change_accounting(eps_target, factors, point, shared=shared)
        raise ValueError(f"the {self.label.lower()} has no theorem for relation={relation!r}")

    def change_accounting(
        self,
        eps_target: float,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> Accounting:
        """A changed record under a theorem for added or removed ones: group privacy.

        A change is a removal followed by an addition (of a record that may belong to
        another stratum or cluster, which moves the design's sizes), so a design that keeps
        ``ε`` for each keeps ``2ε`` for a change: the mechanism may spend the add/remove
        budget of ``eps_target / 2``.  Designs with a tighter proven bound override this
        (``shared`` as in :meth:`accounting`; group privacy reads ``ε_ar`` alone).
        """
        return Accounting(
            self.deamplified(eps_target / 2.0, point) / _factor(factors, "deletion"),
            f"group privacy: a change is a removal and an addition, so twice the bound of "
            f"{self.theorem}",
        )

    def change_eps_target(
        self,
        eps_sample: float,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> float:
        """The inverse of :meth:`change_accounting`: twice the theorem's bound."""
        return 2.0 * self.amplified(eps_sample * _factor(factors, "deletion"), point)

    def eps_target_of(
        self,
        eps_sample: float,
        relation: str,
        factors: BudgetFactors | None,
        point: Point,
        *,
        shared: bool = False,
    ) -> float:
        """The inverse of :meth:`accounting`: ``eps_target`` when ``eps_sample`` is spent."""
        factor = _factor(factors, relation)
        if self.proven_for == "any":
            return eps_sample * factor
        if self.proven_for == relation:
            return self.amplified(eps_sample * factor, point)
        if self.proven_for == "deletion" and relation == "replacement":
            return self.change_eps_target(eps_sample, factors, point, shared=shared)
        raise ValueError(f"the {self.label.lower()} has no theorem for relation={relation!r}")

    def delta_sample(self, delta_target: float, point: Point) -> float:
        """δ the mechanism may spend on the sample for ``delta_target``."""
        return delta_target

    # -- samplers -------------------------------------------------------------------------

    @abstractmethod
    def draw_keys(self, frame: Frame, rows: int, rng: np.random.Generator) -> Any:
        """Random keys of ``rows`` repetitions, common to every rate."""

    @abstractmethod
    def mask(self, frame: Frame, keys: Any, point: Point) -> NDArray[np.bool_]:
        """Boolean masks over the sorted population, one row per repetition of ``keys``."""

    def window_draw(
        self, frame: Frame, point: Point, reps: int, rng: np.random.Generator
    ) -> WindowDraw | None:
        """``reps`` samples whose order statistics near a rank can be revealed, or None.

        None when the design has no window source (the planner then draws masks).
        """
        return None

    def window_cost(self, frame: Frame, point: Point) -> float:
        """Relative cost of one windowed sample (the planner's cost model; masks cost N)."""
        return math.inf

    def mean_moments(self, frame: Frame, point: Point) -> tuple[float, float, float]:
        """Bias, variance and expected sample size of the linear mean at ``point``.

        The estimator is ``c + Σ_S (x − c) / (r N)`` (the sample mean when the size is fixed);
        by default :func:`core.designs.mean_error.sampling_moments` for the design's name.
        Only called when :attr:`has_mean_moments` is true.
        """
        from ..designs import mean_error

        pop = frame.prepared("mean_population", _mean_population)
        m = mean_error.sampling_moments(pop, self.name, [point.rate])
        return float(m.bias[0]), float(m.variance[0]), float(m.expected_size[0])

    def linear_moments(self, frame: Frame, sums: GroupSums, point: Point) -> LinearMoments:
        """The design-unbiased estimator of a total ``Σ y`` at ``point``: its design variance,
        weight and expected sample size (:mod:`core.linear.moments`), for the ``V``
        variables of ``sums``.  Only called when :attr:`has_linear_moments` is true."""
        raise ValueError(f"{self.label} has no closed form for counts and totals")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _mean_population(frame: Frame) -> Any:
    from ..designs import mean_error

    return mean_error.prepare_mean_population(
        frame.values, frame.lower, frame.upper, frame.strata_codes, frame.cluster_codes
    )
