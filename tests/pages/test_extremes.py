"""Every control of every page and tab pushed to its extremes: a result or a chosen message.

The controls are discovered, not listed, so a page, tab or control added later is covered
automatically. For each tab of each page (tabs found the way
``tests/pages/test_url_reproduction.py`` finds them, on the page's first run in the test) and
for two populations — the built-in lognormal one (no strata, no clusters) and a small
establishments register uploaded into the session (12 strata, 100 clusters, so strata- and
cluster-only code runs) — one session changes one control at a time, the others at their
defaults:

- number inputs and sliders to their smallest and largest allowed value (a number input
  without a bound to ±1e12),
- toggles and checkboxes flipped,
- select boxes and radios to every other option,
- list inputs (text boxes of numbers) to edge lists: a tiny and a huge number, a duplicate,
  an empty box and text that is not a number;

then every number and slider at its smallest value at once, and at its largest (the corners
where the formulas meet their limits together). A page that never asks for the active
population (``ui.state.active_population``: Statistical privacy, the game, the lessons,
About) computes the same on both, so its controls are pushed on the built-in one only.

After each rerun the page must show no exception, and every ``st.error`` and ``st.warning``
on it must match :data:`EXPECTED_MESSAGES`, the messages the pages raise on purpose (each
regex names where it comes from). Any other message — such as a ``ValueError`` from a
numpy broadcasting or unpacking bug turned into an error box by a broad ``except`` — fails.

Break it on purpose (``tests/break_checks.py``, breaks named ``extremes-*``):

- ``extremes-statistical-broadcast``: a numpy broadcasting bug in
  ``ui.statistical.cache.privacy_curves`` (``np.maximum(plus, minus[:-1])``). Before this
  rework the Statistical page caught every ``ValueError`` and showed "These settings cannot be
  computed: operands could not be broadcast…", and the old test, which looked only for
  exceptions, passed. The page no longer catches broadly, and the message would not be in
  the expected list anyway: caught.
- ``extremes-strata-toggle``: a shape bug in ``ui.strata.figures.allocation_figure`` that
  fires only when the "Show sampling rates" toggle is on — a toggle that only a population
  with strata shows. The old test (lognormal population, toggles never flipped) could not
  reach it: caught on the strata+clusters population only.
- ``extremes-strata-neighbour-message``: a broadcasting bug in ``ui.strata.cache.neighbour``;
  the Stratified page's ``except ValueError`` turns it into "This neighbour cannot be built:
  operands could not be broadcast…", a warning box without a traceback. It matches no
  expected message: caught.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import pytest
from streamlit.testing.v1 import AppTest

from core.populations import Population, make_builtin
from tests.pages.harness import ROOT, open_page, tab_queries
from ui import state as ui_state
from ui.router import PAGES

#: Every registered page (the router raises if one of them has no file).
EXISTING = [spec.script for spec in PAGES]

#: Global sidebar controls, varied elsewhere (the seed by the browser tests, the population here
#: through :data:`POPULATIONS`).
SKIP_KEYS = {"seed", "population"}
#: The upload form (its own tests), the lessons' per-step predictions (session-only, their
#: own tests in test_lessons_page.py) and the log sliders that mirror their exact-value boxes.
SKIP_PREFIXES = ("up_", "lesson_pred_")
SKIP_SUFFIXES = ("__slider",)

#: URL values pinned per page, and so not varied: the Release planner runs at T = 50
#: Monte Carlo repetitions (its smallest option). T only multiplies the cost of every rerun
#: of the planner (its other options run in test_planner_page.py and bench_planner.py), and
#: at the default T = 200 the planner's extremes took two minutes of the suite.
PINNED: dict[str, dict[str, str]] = {
    # The publication table plans its cells again on every change (about 1.5 s on the
    # strata population, 18 s over its extremes): its planning stays off here, and its
    # own tests (test_planner_publication.py) plan it.
    "app_pages/planner.py": {"plan_reps": "50", "plan_pub_run": "false"}
}

#: Edge lists typed into every text box of numbers (``ui.widgets.float_list_input``).
LIST_EDGES = ("1e-9", "1000", "0.5, 0.5", "", "abc")
#: Controls with a smallest and a largest value.
NUMERIC_KINDS = ("number_input", "slider", "select_slider")
#: Stand-in bounds of a number input declared without one.
UNBOUNDED = 1e12

#: A small register with strata and clusters, uploaded into the session.
STRATA_POP_SIZE = 3000

#: Every error and warning a page shows on purpose, with where it comes from. A message not
#: matched here is a bug (or a new message that must be added here deliberately).
EXPECTED_MESSAGES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.S)
    for p in (
        # ui/widgets.py float_list_input: a token that is not a number, out of range, too many
        r"^.+: (“[^”]*” is not a number|\S+ is outside \S+…\S+|only the first \d+ values are "
        r"used)(; (“[^”]*” is not a number|\S+ is outside \S+…\S+|only the first \d+ values "
        r"are used))*\.$",
        # app_pages/statistical.py: λ·N below one half
        r"^λ·N = \S+ rounds to an empty sample; using the smallest possible sample, n = 1",
        # app_pages/clusters.py: more clusters drawn than exist
        r"^ℓ = [\d,]+ clusters cannot be drawn from k = [\d,]+; showing ℓ = k",
        # app_pages/clusters.py: systematic sampling interval larger than N
        r"^The interval exceeds the population size N = [\d,]+; using k = N\.$",
        # app_pages/game.py: ℓ ≥ k clusters drawn
        r"^Drawing ℓ = [\d,]+ of k = [\d,]+ clusters keeps no cluster out of the sample; "
        r"playing with ℓ = k − 1 = [\d,]+\.$",
        # app_pages/strata.py and app_pages/game.py: sample size above N
        r"^The sample size n = [\d,]+ exceeds the population size N = [\d,]+; using n = N",
        # app_pages/strata.py neighbour_comparison: core.strata.top_code_neighbour refuses to
        # empty a stratum (only this reason; a bug's ValueError caught there must not pass)
        r"^This neighbour cannot be built: the change would leave a stratum empty; choose "
        r"another record\.$",
        # app_pages/strata.py: the changed record's value outside the declared bounds
        r"^\S+ lies outside the declared bounds \[\S+, \S+\]; using the upper bound instead\.$",
        # app_pages/strata.py: Neyman's allocation moves between P and P′ (the paper's point)
        r"^\*\*Privacy degradation\.\*\* Neyman's stratum sample sizes change by",
        # app_pages/strata.py: Theorem 7.2's condition r·N_i ≥ 1 fails in some stratum
        r"^Theorem 7\.2 needs r·N_i ≥ 1 in every stratum; at r = \S+(?: %)? it fails for",
        # app_pages/amplification.py calculator: n above N
        r"^The sample size n = [\d,]+ exceeds the population size N = [\d,]+\. Choose n ≤ N\.$",
        # ui/gains_text.py: δ_sample = δ_target/rate ≥ 1 at some rates of the experiment
        r"^δ_sample = δ_target/rate is at least 1 at rate .+: that δ bound is vacuous",
        # core/populations.py cluster_strata_note (shown by app_pages/clusters.py): one cluster
        # label in several strata
        r"^[\d,]+ of the [\d,]+ cluster labels? in .+ occurs? in more than one stratum of ",
        # app_pages/amplification.py calculator: δ_sample = δ_target·N/n ≥ 1
        r"^δ_sample = δ_target·N/n = \S+ is at least 1: the δ bound is vacuous",
        # ui/planner/inputs.py population_problem: fewer records than the planner needs
        r"^.+ has only N = [\d,]+ records; the planner needs at least \d+ ",
        # ui/planner/inputs.py chosen_designs: no design chosen, or none available here
        r"^(No design is chosen|None of the chosen designs is available for this population);"
        r" comparing every design (this population|it) supports\.$",
        # ui/planner/several.py several_view: a composition rate leaving fewer than two records
        r"^A rate of \S+ leaves fewer than two records of N = [\d,]+; using rate = \S+ "
        r"instead\.$",
        # ui/planner/text.py too_noisy_reason: even the best plan's 95 % bound is above the
        # share of the value the user accepts as usable (a tiny ε_target, a small share)
        r"^Too noisy to use: even the best plan releases a .+ that says little about the "
        r"population, as ",
    )
)


def unexpected_messages(at: AppTest) -> list[str]:
    """Exceptions, and errors or warnings matching none of :data:`EXPECTED_MESSAGES`."""
    found = [f"exception: {e.value}" for e in at.exception]
    for kind in ("error", "warning"):
        for element in at.get(kind):
            text = str(element.value)
            if not any(p.search(text) for p in EXPECTED_MESSAGES):
                found.append(f"{kind}: {text}")
    return found


def _strata_population() -> Population:
    return make_builtin("establishments", seed=0, size=STRATA_POP_SIZE)


#: Population id → population to upload into the session (None: the default built-in).
POPULATIONS: dict[str, Population | None] = {
    "lognormal": None,
    "strata+clusters": _strata_population(),
}


def open_with(page: str, query: dict[str, str], pop: Population | None) -> AppTest:
    """Open ``page`` through the router with URL ``query``, ``pop`` uploaded if given.

    Like :func:`tests.pages.harness.open_page`, but the uploaded population must be in the
    session before the first run (the URL cannot carry it).
    """
    at = open_page(page, {**query, **PINNED.get(page, {})}, uploaded=pop, check=False)
    if pop is not None:
        captions = [str(c.value) for c in at.sidebar.caption]
        assert any(pop.name in c for c in captions), f"upload not active: {captions}"
    return at


def _parse(option: str) -> object:
    for cast in (int, float):
        try:
            return cast(option)
        except ValueError:
            pass
    return option


def _varied(key: str | None) -> bool:
    if not key or key in SKIP_KEYS:
        return False
    return not key.startswith(SKIP_PREFIXES) and not key.endswith(SKIP_SUFFIXES)


def extreme_settings(
    at: AppTest, pinned: Iterable[str] = ()
) -> Iterator[tuple[str, str, object, object]]:
    """(kind, key, extreme value, default value) for every keyed control on the page.

    Controls whose key is in ``pinned`` keep their value.
    """
    pinned = set(pinned)
    for setting in _extreme_settings(at):
        if setting[1] not in pinned:
            yield setting


def _extreme_settings(at: AppTest) -> Iterator[tuple[str, str, object, object]]:
    for w in at.number_input:
        if _varied(w.key):
            lo = w.min if w.min is not None else -UNBOUNDED
            hi = w.max if w.max is not None else UNBOUNDED
            yield from (("number_input", w.key, v, w.value) for v in (lo, hi))
    for w in at.slider:
        if _varied(w.key):
            yield from (("slider", w.key, v, w.value) for v in (w.min, w.max))
    for w in at.select_slider:
        if _varied(w.key) and w.options:
            ends = (_parse(w.options[0]), _parse(w.options[-1]))
            yield from (("select_slider", w.key, v, w.value) for v in ends)
    for kind in ("toggle", "checkbox"):
        for w in at.get(kind):
            if _varied(w.key):
                yield kind, w.key, not w.value, w.value
    for kind in ("selectbox", "radio"):
        for w in at.get(kind):
            if _varied(w.key):
                others = [o for o in w.options if o != w.value]
                yield from ((kind, w.key, o, w.value) for o in others)
    for kind in ("text_input", "text_area"):
        for w in at.get(kind):
            if _varied(w.key):
                yield from ((kind, w.key, v, w.value) for v in LIST_EDGES)


def _shown(at: AppTest, kind: str, key: str) -> bool:
    """Whether the page's last run shows the control ``key``."""
    try:
        getattr(at, kind)(key=key)
    except KeyError:
        return False
    return True


def _set(at: AppTest, kind: str, key: str, value: object) -> None:
    getattr(at, kind)(key=key).set_value(value)


#: (page, population id): each test runs every tab of its page on that population. The tabs
#: are found on the page's first run inside the test, so collecting the suite runs no page.
CASES = [(page, pop_id) for page in EXISTING for pop_id in POPULATIONS]


@pytest.mark.parametrize(
    ("page", "pop_id"), CASES, ids=[f"{p.split('/')[-1]}:{pid}" for p, pid in CASES]
)
def test_every_control_at_its_extremes_gives_a_result_or_a_chosen_message(
    page, pop_id, monkeypatch
):
    pop = POPULATIONS[pop_id]
    reads = _count_population_reads(monkeypatch)
    first = open_with(page, {}, pop)
    if pop is not None and reads.count == 0:
        # The page never asked for the active population: it computes the same with any,
        # so the built-in population's case already pushed each of its controls. Its script
        # must not name it either (else the count above is broken, not the page free).
        assert "active_population" not in (ROOT / page).read_text(encoding="utf-8"), page
        assert not unexpected_messages(first), unexpected_messages(first)
        return
    failures: list[str] = []
    for query in tab_queries(first):
        tab = next(iter(query.values()), "page")
        at = open_with(page, query, pop) if query else first
        failures.extend(f"{tab}: {m}" for m in _tab_at_its_extremes(page, query, pop, at))
    assert not failures, "\n".join(failures)


class _Reads:
    """How many times pages asked :func:`ui.state.active_population` for the population."""

    count = 0


def _count_population_reads(monkeypatch: pytest.MonkeyPatch) -> _Reads:
    """Count the calls of :func:`ui.state.active_population` from now on.

    A page script imports it anew on every run (``from ui.state import active_population``),
    so the counting stand-in is what each run calls.
    """
    reads = _Reads()
    original = ui_state.active_population

    def counted() -> Population:
        reads.count += 1
        return original()

    monkeypatch.setattr(ui_state, "active_population", counted)
    return reads


def _tab_at_its_extremes(
    page: str, query: dict[str, str], pop: Population | None, at: AppTest
) -> list[str]:
    """Every control of the tab ``query`` shows (``at``: the tab opened) at its extremes,
    one at a time, then every number and slider at its smallest and at its largest value
    at once; what :func:`unexpected_messages` finds after each rerun."""
    opened = unexpected_messages(at)
    if opened:
        return [f"on opening: {m}" for m in opened]
    settings = list(extreme_settings(at, PINNED.get(page, {})))
    if not settings and not page.endswith("about.py"):
        return [f"{page}: no controls found"]
    failures: list[str] = []
    previous: tuple[str, str, object] | None = None
    for kind, key, value, default in settings:
        if previous is not None and previous[1] != key:
            _set(at, previous[0], previous[1], previous[2])  # back to its default
            if not _shown(at, kind, key):  # the previous control had hidden it (a view switch)
                at.run()
        _set(at, kind, key, value)
        at.run()
        failures.extend(f"{key}={value!r}: {m}" for m in unexpected_messages(at))
        previous = (kind, key, default)
    # Then every number and slider at its smallest value at once, and at its largest.
    ranges: dict[tuple[str, str], list[object]] = {}
    for kind, key, value, _default in settings:
        if kind in NUMERIC_KINDS:
            ranges.setdefault((kind, key), []).append(value)
    for end in (0, -1):
        at = open_with(page, query, pop)
        for (kind, key), ends in ranges.items():
            _set(at, kind, key, ends[end])
        at.run()
        label = "all smallest" if end == 0 else "all largest"
        failures.extend(f"{label}: {m}" for m in unexpected_messages(at))
    return failures
