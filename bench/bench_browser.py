"""What a user waits for in the browser: every page opened, every ε_target changed, in Chromium.

Starts ``streamlit run serve.py`` (as ``tests.e2e.conftest.serve`` does: loopback, one BLAS
thread), drives Debian's Chromium (``/usr/bin/chromium``, never a downloaded browser) through
Playwright at 1280 × 900, and prints the median of ``--repeats`` (3) for each row. "Settled":
the app's run has ended and stayed idle (``tests.e2e.helpers.settle``, and the server's own
record of its script runs), content is drawn, and the page has not changed for 0.3 s.

Rows (``--rows NAME ...``; the default is ``open eps plan``, ``--rows all`` runs every row)
-------------------------------------------------------------------------------------------
``open``
    First the first page of a fresh server (its first visit, while the server still imports
    the pages' modules in the background); then, once the server's process is idle, each
    page of ``ui.router.PAGES`` opened in a new tab (a new browser context, so a new
    Streamlit session, an empty HTTP cache): from navigation to settled. Later repeats find
    the server's caches filled; the first (``1st visit``) does not.
``eps``
    A new ε_target typed into the page's box (fill, then Enter) until settled, on every page
    with an ε control (:data:`EPS_CASES`: the planner on the default population and on the
    Establishments, Amplification's list of ε_target, the Gains comparison tab, Clusters and
    Strata given ε_target, Statistical privacy's ε, the game's ε_target). Each repeat types
    another value (no cached result). The line also gives the script time of the same
    change under AppTest (``AppTest script``, a fresh process per page; no browser, no
    transfer).
``plan``
    The planner's full plan at the page's defaults under AppTest: the first run of a fresh
    process (``cold``: imports and plan), then the script time with every cache cleared, and
    the time until the first rows (census and simple random sample) are drawn, if the page
    draws rows while it plans (else "not shown progressively").
``register``
    The planner on a 5-million-record register named on the server's command line
    (``streamlit run serve.py -- --population FILE --value income ...``; the file is written
    once into a temporary folder): the first page of a new server, then the planner's first
    plan in a new tab (at once, or after ``--register-pause`` seconds on the first page, as a
    visitor who reads it), then ε_target changes.
``classroom``
    12 concurrent sessions (``--sessions``), browsers on the same machine, each over every
    page, on a fresh server (``tests.e2e.classroom.run_classroom``, run in a child process):
    median and worst time to the first drawn chart.

Columns of a browser measurement
--------------------------------
The main figure is the time to settled, on the page's clock (``performance.now()``, from the
navigation or the key press to the page's last change before it settled: settled means
``tests.e2e.helpers.settle`` has returned, the server has no script run in progress, and the
page has not changed for 0.3 s). The detail lines split it:

``1st send``
    until the page first sends on the websocket (a new tab: loading and starting the
    frontend; a change: the key press reaching the socket);
``last msg``
    until the last websocket message from the server arrived (as the page's main thread
    saw it: a busy main thread delays it);
``draw``
    from that message to settled;
``long``
    total and count of the browser's long tasks (``PerformanceObserver('longtask')``: main-
    thread tasks over 50 ms) in the interval, in seconds;
``plotly JS``
    seconds the JavaScript sampling profiler (CDP ``Profiler``, 1 ms) found in plotly.js (the
    frontend's ``PlotlyChart`` file), and the number of charts on the page;
``MB``
    megabytes received over the websocket, in how many messages;
``style``, ``layout``
    seconds the page's main thread spent recalculating styles and laying out, with how many
    of each (Chromium's ``Performance.getMetrics``: ``RecalcStyleDuration``,
    ``LayoutDuration``); a costly CSS selector shows in the first;
``title``, ``1st chart``
    (new tabs) when the page's title (its first heading), and its first plotly chart, were
    drawn;
``rows``
    (planner only) when the rows known so far were first drawn;
``1st visit``
    (new tabs) the first repeat: this server's first visit of the page (caches empty);
``server script``
    wall and CPU seconds of the server's script runs started by the interaction, logged by a
    ``sitecustomize`` hook on the server's ``PYTHONPATH`` (:data:`SCRIPT_HOOK`; the CPU time
    is the script thread's, unaffected by other load), and the time from their end to
    settled (``after it``: transfer and the browser's work);
``AppTest script``
    (ε changes) the same change's script time under AppTest, in a fresh process;
``JS``
    the five script files (or V8's ``(program)``, ``(garbage collector)``, ``(native)``) the
    sampling profiler found most often, in seconds (``--no-js-profile`` turns it off).

``--against REV`` also measures the revision REV of this repository, checked out into a
temporary ``git worktree`` (removed afterwards) and served by its own server with the same
Python: every row prints "before" (REV) and "after" (this working tree) side by side, from one
run on one machine; their repeats alternate. Every server and browser it starts is stopped at
the end, also on Ctrl-C or an error.

Run: ``.venv/bin/python -m bench.bench_browser [--rows open eps] [--repeats 3] [--against REV]``

Wall times on a shared machine are noisy: read the load average printed first.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import urlencode

from bench._timing import load_line

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT = {"width": 1280, "height": 900}
DEFAULT_ROWS = ("open", "eps", "plan")
#: The ε_target values a change types, as factors of the box's default (one per repeat).
FACTORS = (2.0, 0.7, 3.0, 0.3, 1.5, 5.0, 0.5, 0.2)

#: Installed into every document before the app's own scripts: records the websocket's
#: messages (time, bytes) and sends, the long tasks, the time of the page's last change,
#: Streamlit's busy markers, and when the title, the first chart and the planner's live rows
#: first appear.
INSTRUMENT = r"""
(() => {
  if (window.__bench) { return; }
  const B = {recv: [], sent: [], long: [], busy: [], lastMut: 0, live: null, content: null,
             chart: null};
  window.__bench = B;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) { B.long.push([e.startTime, e.duration]); }
    }).observe({type: 'longtask', buffered: true});
  } catch (e) { B.noLongTasks = String(e); }
  const Native = window.WebSocket;
  class Watched extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        const d = ev.data;
        let size = 0;
        if (d && d.byteLength !== undefined) { size = d.byteLength; }
        else if (d && d.size !== undefined) { size = d.size; }
        else if (d && d.length !== undefined) { size = d.length; }
        B.recv.push([performance.now(), size]);
      });
    }
    send(data) { B.sent.push(performance.now()); return super.send(data); }
  }
  window.WebSocket = Watched;
  const busySelector = '[data-testid="stStatusWidgetRunningIcon"], '
      + '[data-testid="stSkeleton"], [data-stale="true"]';
  const liveSelector = '[class*="st-key-plan_live_"] [data-testid="stMarkdown"]';
  const contentSelector = '[data-testid="stMainBlockContainer"] [data-testid="stHeading"]';
  const chartSelector = '[data-testid="stPlotlyChart"] .main-svg';
  let busy = false;
  const observe = (records) => {
    const now = performance.now();
    B.lastMut = now;
    const b = document.querySelector(busySelector) !== null;
    if (b !== busy) { busy = b; B.busy.push([now, b]); }
    if (B.live === null && document.querySelector(liveSelector)) { B.live = now; }
    if (B.content === null && document.querySelector(contentSelector)) { B.content = now; }
    if (B.chart === null && document.querySelector(chartSelector)) { B.chart = now; }
  };
  const start = () => new MutationObserver(observe).observe(document.documentElement, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ['data-stale', 'data-testid', 'class'],
  });
  if (document.documentElement) { start(); }
  else { document.addEventListener('DOMContentLoaded', start); }
})();
"""

#: The page's main-thread metrics each measurement reads from Chromium
#: (``Performance.getMetrics``), by the name the detail line gives them.
RENDER_METRICS = {
    "style": "RecalcStyleDuration",
    "style_n": "RecalcStyleCount",
    "layout": "LayoutDuration",
    "layout_n": "LayoutCount",
}

#: How long the page must stay unchanged, after the server's run ended, to count as settled.
QUIET_MS = 300
#: Whether the page has not changed for the given milliseconds.
QUIET = "(ms) => performance.now() - window.__bench.lastMut >= ms"

#: Reads what :data:`INSTRUMENT` recorded since ``t0`` (ms on the page's clock).
READ = r"""
(t0) => {
  const B = window.__bench;
  const recv = B.recv.filter((r) => r[0] >= t0);
  const longs = B.long.filter((l) => l[0] + l[1] >= t0);
  const sent = B.sent.filter((t) => t >= t0);
  return {
    now: performance.now(),
    settled: B.lastMut,
    recv_n: recv.length,
    recv_bytes: recv.reduce((s, r) => s + r[1], 0),
    last_recv: recv.length ? recv[recv.length - 1][0] : null,
    long_ms: longs.reduce((s, l) => s + l[1] - Math.max(0, t0 - l[0]), 0),
    long_n: longs.length,
    first_sent: sent.length ? sent[0] : null,
    charts: document.querySelectorAll('[data-testid="stPlotlyChart"]').length,
    live: B.live !== null && B.live >= t0 ? B.live : null,
    origin: performance.timeOrigin,
    content: B.content !== null && B.content >= t0 ? B.content : null,
    chart: B.chart !== null && B.chart >= t0 ? B.chart : null,
    no_long_tasks: B.noLongTasks || null,
  };
}
"""


@dataclasses.dataclass(frozen=True)
class EpsCase:
    """A page's ε control: where it is and which values a change types.

    ``key`` is the widget's key (its element carries the class ``st-key-KEY``); ``query``
    opens the page where the box is shown (its tab, its direction): a value ``@module:NAME``
    is the label the measured tree's ``module`` holds under ``NAME`` (read in that tree, so a
    reworded tab still opens on an older revision); ``default`` is the box's default; with
    ``listed`` the box holds a list of ε_target and a change replaces the last.
    """

    name: str
    page: str
    key: str
    default: float
    query: tuple[tuple[str, str], ...] = ()
    listed: str = ""

    def values(self, repeats: int) -> list[str]:
        """One typed value per repeat, all different (no cached result)."""
        factors = [FACTORS[i % len(FACTORS)] * (1 + i // len(FACTORS)) for i in range(repeats)]
        numbers = [f"{self.default * f:g}" for f in factors]
        return [f"{self.listed}, {n}" if self.listed else n for n in numbers]


def _eps_cases() -> tuple[EpsCase, ...]:
    est = ("population", "Establishments")
    return (
        EpsCase("planner", "planner", "plan_eps", 1.0),
        EpsCase("planner, Establishments", "planner", "plan_eps", 1.0, (est,)),
        EpsCase("amplification", "amplification", "amp_eps_targets", 1.0, listed="0.1, 0.5"),
        EpsCase(
            "gains, comparison tab",
            "gains",
            "gain_cmp_eps",
            0.5,
            (("gain_view", "@ui.gains.text:CMP_TAB"),),
        ),
        EpsCase(
            "clusters",
            "clusters",
            "cl_eps_target",
            0.1,
            (("cl_dir", "@ui.clusters.text:FROM_TARGET"), ("cl_exact", "true")),
        ),
        EpsCase(
            "strata, Establishments",
            "strata",
            "strat_eps_target",
            0.1,
            (est, ("strat_dir", "@ui.strata.text:FROM_TARGET")),
        ),
        EpsCase("statistical", "statistical", "sp_eps", 0.01),
        EpsCase("game", "game", "game_eps", 1.0),
    )


#: Every page's ε control measured by the ``eps`` row.
EPS_CASES: tuple[EpsCase, ...] = _eps_cases()


@dataclasses.dataclass(frozen=True)
class Target:
    """A source tree to measure: its label in the columns and its root."""

    label: str
    root: Path


@dataclasses.dataclass(frozen=True)
class Row:
    """A row of the bench: what it measures and the function that runs it."""

    description: str
    run: Callable[[Bench], None]


# --------------------------------------------------------------------------- measuring


def _median(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None


def _metrics(
    read: dict[str, Any],
    t0: float,
    wall: float,
    runs: Sequence[tuple[float, float, float]] = (),
    js: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Seconds of one interaction from the page's record (see :data:`READ`), the server's
    script runs that started after it (:data:`SCRIPT_HOOK`) and the JavaScript profile."""
    ms = 1000.0
    last = read["last_recv"]
    settled = max(read["settled"], last or 0.0, t0)
    origin = read["origin"]  # the page's clock: ms since this epoch time (ms)
    script = cpu = script_end = None
    if runs:
        script = sum(end - start for start, end, _ in runs)
        cpu = sum(c for _, _, c in runs)
        script_end = (max(end for _, end, _ in runs) * ms - origin - t0) / ms
    return {
        "settled": (settled - t0) / ms,
        "wall": wall,
        "last_msg": None if last is None else (last - t0) / ms,
        "draw": None if last is None else (settled - last) / ms,
        "long": read["long_ms"] / ms,
        "long_n": float(read["long_n"]),
        "sent": None if read["first_sent"] is None else (read["first_sent"] - t0) / ms,
        "charts": float(read["charts"]),
        "mb": read["recv_bytes"] / 1e6,
        "msgs": float(read["recv_n"]),
        "rows": None if read["live"] is None else (read["live"] - t0) / ms,
        "content": None if read.get("content") is None else (read["content"] - t0) / ms,
        "chart": None if read.get("chart") is None else (read["chart"] - t0) / ms,
        "server": script,
        "server_cpu": cpu,
        "after_script": None if script_end is None else (settled - t0) / ms - script_end,
        **{f"js:{k}": v for k, v in (js or {}).items()},
    }


def js_categories(profile: dict[str, Any]) -> dict[str, float]:
    """Seconds of a CDP CPU profile per script file (its name before the first dot, e.g.
    ``PlotlyChart`` for plotly.js, ``index`` for Streamlit and React) or V8 category
    (``(garbage collector)``, ``(program)``); idle time left out."""
    frames = {}
    for node in profile["nodes"]:
        frame = node["callFrame"]
        url = frame.get("url") or ""
        if url:
            name = url.rsplit("/", 1)[-1].split(".", 1)[0] or url
        elif frame.get("functionName", "").startswith("("):
            name = frame["functionName"]
        else:
            name = "(native)"
        frames[node["id"]] = name
    samples, deltas = profile.get("samples", []), profile.get("timeDeltas", [])
    totals: dict[str, float] = {}
    for i, node in enumerate(samples):
        step = deltas[i + 1] if i + 1 < len(deltas) else 0
        name = frames.get(node, "(native)")
        totals[name] = totals.get(name, 0.0) + step / 1e6
    totals.pop("(idle)", None)
    totals.pop("(root)", None)
    return totals


def summarise(samples: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Median of every metric over the repeats (a JavaScript file missing from a repeat's
    profile counts as 0 s there)."""
    keys = list(dict.fromkeys(k for sample in samples for k in sample))
    return {
        k: _median([s.get(k, 0.0 if k.startswith("js:") else None) for s in samples]) for k in keys
    }


def _s(value: float | None, unit: str = " s") -> str:
    return "–" if value is None else f"{value:.2f}{unit}"


def detail(m: dict[str, float | None]) -> str:
    """The detail line of one browser measurement (see the module docstring)."""
    parts = [
        f"1st send {_s(m['sent'])}",
        f"last msg {_s(m['last_msg'])}",
        f"draw {_s(m['draw'])}",
        f"long {_s(m['long'])} ({m['long_n']:.0f})",
        f"plotly JS {_s(m.get('js:PlotlyChart'))} ({m['charts']:.0f} charts)",
        f"{m['mb']:.2f} MB ({m['msgs']:.0f} msgs)",
        f"style {_s(m.get('style'))} ({m.get('style_n') or 0:.0f})",
        f"layout {_s(m.get('layout'))} ({m.get('layout_n') or 0:.0f})",
        f"wall {_s(m['wall'])}",
    ]
    for key, words in (("content", "title"), ("chart", "1st chart"), ("rows", "rows")):
        if m.get(key) is not None:
            parts.append(f"{words} {_s(m[key])}")
    if m.get("first") is not None:
        parts.append(f"1st visit {_s(m['first'])}")
    if m.get("idle_wait") is not None:
        parts.append(f"server idle {_s(m['idle_wait'])} later")
    line = ", ".join(parts)
    server = [f"server script {_s(m.get('server'))} (CPU {_s(m.get('server_cpu'))})"]
    server.append(f"after it {_s(m.get('after_script'))}")
    if m.get("script") is not None:
        server.append(f"AppTest script {_s(m['script'])}")
    js = sorted(((v, k[3:]) for k, v in m.items() if k.startswith("js:") and v), reverse=True)
    if js:
        server.append("JS " + ", ".join(f"{name} {v:.2f}" for v, name in js[:5]))
    return line + "\n" + " " * 12 + ", ".join(server)


def reveal(page: Any, key: str) -> Any:
    """The input of the widget ``key``, visible: a box inside a closed expander (the game's
    settings) is shown by opening the expander (in the browser only, no rerun)."""
    box = page.locator(f".st-key-{key} input").first
    box.wait_for(state="attached", timeout=30_000)
    if not box.is_visible():
        holder = page.locator('[data-testid="stExpander"]').filter(
            has=page.locator(f".st-key-{key}")
        )
        holder.locator("summary").first.click()
    box.wait_for(state="visible", timeout=30_000)
    return box


def wait_idle(pid: int, *, window: float = 1.0, busy: float = 0.05, limit: float = 90.0) -> float:
    """Wait until process ``pid`` has used under ``busy`` CPU seconds in ``window`` seconds
    (user and system time of all its threads, from ``/proc``); at most ``limit`` seconds.
    Returns the seconds waited (Linux; elsewhere it returns at once)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime (fields 14, 15)

    start = time.perf_counter()
    before = cpu()
    while time.perf_counter() - start < limit:
        time.sleep(window)
        now = cpu()
        if now - before < busy:
            break
        before = now
    return time.perf_counter() - start


def first_page() -> str:
    """Script stem of the page shown at the root URL (the first of ``ui.router.PAGES``)."""
    from ui.router import PAGES

    return Path(PAGES[0].script).stem


def page_url(base: str, page: str, query: Sequence[tuple[str, str]] = ()) -> str:
    """URL of ``page`` (a page's script stem; the first page of the menu is the root)."""
    path = "/" if page == first_page() else f"/{page}"
    return base + path + (f"?{urlencode(list(query))}" if query else "")


#: Loaded by the measured server (a ``sitecustomize`` on its ``PYTHONPATH``): appends one
#: JSON line to the file ``BENCH_SCRIPT_LOG`` names as each script run starts (its start) and
#: one as it ends (start, end, and the CPU seconds of the script thread); times in seconds
#: since the epoch, the clock of the browser's ``performance.timeOrigin``. The app's code is
#: not touched.
SCRIPT_HOOK = """
import json, os, threading, time
_LOG = os.environ.get("BENCH_SCRIPT_LOG")
if _LOG:
    from streamlit.runtime.scriptrunner import script_runner as _runner

    _original = _runner.ScriptRunner._run_script
    _lock = threading.Lock()

    def _write(row):
        with _lock, open(_LOG, "a") as out:
            out.write(json.dumps(row) + "\\n")

    def _run_script(self, rerun_data):
        start, cpu = time.time(), time.thread_time()
        _write([start])
        try:
            return _original(self, rerun_data)
        finally:
            _write([start, time.time(), time.thread_time() - cpu])

    _runner.ScriptRunner._run_script = _run_script
"""


@dataclasses.dataclass(frozen=True)
class Served:
    """A measured server: its URL and the file its script runs are logged to."""

    url: str
    runs: Path
    pid: int

    def _rows(self, since: float) -> list[list[float]]:
        if not self.runs.exists():
            return []
        rows = [json.loads(line) for line in self.runs.read_text().splitlines() if line]
        return [row for row in rows if row[0] >= since - 0.05]

    def script_runs(self, since: float) -> list[tuple[float, float, float]]:
        """(start, end, CPU seconds) of the finished script runs that started after ``since``
        (seconds since the epoch)."""
        return [(row[0], row[1], row[2]) for row in self._rows(since) if len(row) == 3]

    def running(self, since: float) -> tuple[int, int]:
        """Script runs started after ``since``, and how many of them have not ended."""
        rows = self._rows(since)
        started = sum(1 for row in rows if len(row) == 1)
        ended = {row[0] for row in rows if len(row) == 3}
        return started, sum(1 for row in rows if len(row) == 1 and row[0] not in ended)


@contextlib.contextmanager
def serve_tree(root: Path, log: Path, extra_args: Sequence[str] = ()) -> Iterator[Served]:
    """``tests.e2e.conftest.serve`` run in the source tree ``root`` (same Python, same env),
    with :data:`SCRIPT_HOOK` logging its script runs next to ``log``."""
    from tests.e2e import conftest

    hook = log.parent / f"{log.stem}-hook"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(SCRIPT_HOOK)
    runs = log.parent / f"{log.stem}-runs.jsonl"
    path = os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p)
    env = {"PYTHONPATH": path, "BENCH_SCRIPT_LOG": str(runs)}
    with contextlib.ExitStack() as stack:
        # Only the server's process gets the hook: the environment is restored once it runs.
        # A tree from before serve.py was served as ``streamlit run app.py``.
        script = conftest.SCRIPT if (root / conftest.SCRIPT).is_file() else "app.py"
        with (
            mock.patch.object(conftest, "ROOT", root),
            mock.patch.object(conftest, "SCRIPT", script),
            mock.patch.dict(os.environ, env),
        ):
            server = stack.enter_context(conftest.serve(log, extra_args))
        yield Served(server.url, runs, server.pid)


@contextlib.contextmanager
def git_worktree(rev: str) -> Iterator[Path]:
    """A temporary detached ``git worktree`` of this repository at ``rev``; removed after."""
    folder = Path(tempfile.mkdtemp(prefix="bench-before-"))
    tree = folder / "tree"
    subprocess.run(
        ["git", "worktree", "add", "--detach", "--quiet", str(tree), rev],
        cwd=ROOT,
        check=True,
    )
    try:
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False)
        subprocess.run(["rm", "-rf", str(folder)], check=False)


class Bench:
    """The running bench: options, the targets, the browser and one server per target."""

    def __init__(self, args: argparse.Namespace, targets: list[Target], stack: Any) -> None:
        self.args = args
        self.targets = targets
        self.stack = stack
        self.tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-")))
        self._servers: dict[str, Any] = {}
        self._fresh: dict[str, dict[str, Any] | None] = {}
        self._browser: Any = None
        self._labels: dict[tuple[str, str], str] = {}

    @property
    def browser(self) -> Any:
        """Debian's Chromium (started on first use)."""
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

            pw = self.stack.enter_context(sync_playwright())
            self._browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
            )
            self.stack.callback(self._browser.close)
        return self._browser

    def query(self, target: Target, case: EpsCase) -> list[tuple[str, str]]:
        """``case.query`` with every ``@module:NAME`` read in ``target``'s tree."""
        refs = [v for _, v in case.query if v.startswith("@")]
        missing = [r for r in refs if (target.label, r) not in self._labels]
        if missing:
            from bench.bench_page_profile import run_worker

            found = run_worker(target.root, "--worker", "labels", "--values", *missing)
            self._labels.update({(target.label, r): str(v) for r, v in found.items()})
        return [
            (k, self._labels[(target.label, v)] if v.startswith("@") else v) for k, v in case.query
        ]

    def server(self, target: Target) -> Any:
        """The shared server of ``target`` (started on first use)."""
        if target.label not in self._servers:
            log = self.tmp / f"server-{target.label}.log"
            served = self.stack.enter_context(serve_tree(target.root, log))
            self._servers[target.label] = served
            self._fresh[target.label] = self._first_visit(served)
        return self._servers[target.label]

    def _first_visit(self, server: Served) -> dict[str, Any] | None:
        """The server's first page, timed; then wait until the server is idle.

        A new server imports every page's modules and loads the planner's compiled kernels
        in the background (:mod:`ui.server`); a page opened meanwhile shares the two cores
        with that work. The shared server's rows measure a server that has been up for a
        while (started before the class), so they begin once its process has stopped using
        the CPU; this first visit is printed on its own (``fresh server``).
        """
        try:
            with self.tab() as page:
                got = self.open(page, server, page_url(server.url, first_page()))
        except Exception as exc:  # a failed measurement is reported, not fatal
            print(f"    first visit failed: {exc}"[:300])
            got = None
        waited = wait_idle(server.pid)
        if got is not None:
            got["idle_wait"] = waited
        return got

    def fresh(self, target: Target) -> dict[str, Any] | None:
        """The first visit of ``target``'s shared server (:meth:`_first_visit`)."""
        self.server(target)
        return self._fresh[target.label]

    @contextlib.contextmanager
    def tab(self) -> Iterator[Any]:
        """A new tab in a new browser context (a new Streamlit session), instrumented."""
        context = self.browser.new_context(viewport=VIEWPORT)
        try:
            context.add_init_script(INSTRUMENT)
            page = context.new_page()
            page.set_default_timeout(self.args.timeout * 1000)
            yield page
        finally:
            context.close()

    def _profiler(self, page: Any) -> Any:
        """A CDP session sampling the page's JavaScript (``None`` with ``--no-js-profile``)."""
        if not self.args.js_profile:
            return None
        cdp = page.context.new_cdp_session(page)
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 1000})
        return cdp

    def settle(self, page: Any, server: Served, since: float) -> None:
        """Wait until settled: ``tests.e2e.helpers.settle``, then until the server has no
        script run in progress that started after ``since`` (at least one must have
        started), then until the page has not changed for :data:`QUIET_MS` (a chart is
        drawn after its message arrives).

        The browser's busy markers alone can miss a long run: the page shows no running
        marker while a plan draws its live rows, so the server's record decides.
        """
        from tests.e2e.helpers import settle

        deadline = time.monotonic() + self.args.timeout
        start_deadline = time.monotonic() + 5.0
        while not server.running(since)[0] and time.monotonic() < start_deadline:
            time.sleep(0.02)  # the server has seen the action once a run starts
        settle(page, timeout=self.args.timeout, start_timeout=0.5)
        while True:
            started, running = server.running(since)
            if started and not running:
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"the server kept running for {self.args.timeout} s")
            time.sleep(0.05)
        settle(page, timeout=self.args.timeout, start_timeout=0.2)
        while page.evaluate(QUIET, QUIET_MS) is False:
            if time.monotonic() > deadline:
                raise AssertionError(f"the page kept changing for {self.args.timeout} s")
            time.sleep(0.05)

    @staticmethod
    def _renderer(page: Any) -> Any:
        """A CDP session reading the page's main-thread metrics (:data:`RENDER_METRICS`)."""
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        return cdp

    @staticmethod
    def _render_metrics(cdp: Any) -> dict[str, float]:
        """The page's :data:`RENDER_METRICS` so far (seconds and counts, cumulative)."""
        values = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        return {name: float(values.get(metric, 0.0)) for name, metric in RENDER_METRICS.items()}

    @staticmethod
    def _stop(cdp: Any) -> dict[str, float] | None:
        return None if cdp is None else js_categories(cdp.send("Profiler.stop")["profile"])

    def open(self, page: Any, server: Served, url: str) -> dict[str, Any]:
        """Navigate ``page`` to ``url`` and time it until settled."""
        renderer = self._renderer(page)
        cdp = self._profiler(page)
        if cdp is not None:
            cdp.send("Profiler.start")
        since = time.time()
        t = time.perf_counter()
        page.goto(url)
        self.settle(page, server, since)
        wall = time.perf_counter() - t
        js = self._stop(cdp)
        read = page.evaluate(READ, 0)
        metrics = _metrics(read, 0.0, wall, server.script_runs(since), js)
        return {**metrics, **self._render_metrics(renderer)}

    def change(self, page: Any, server: Served, key: str, value: str) -> dict[str, Any]:
        """Type ``value`` into the box of ``key`` (fill, Enter); time it until settled."""
        box = reveal(page, key)
        renderer = self._renderer(page)
        before = self._render_metrics(renderer)
        cdp = self._profiler(page)
        if cdp is not None:
            cdp.send("Profiler.start")
        t0 = float(page.evaluate("() => performance.now()"))
        since = time.time()
        t = time.perf_counter()
        box.fill(value)
        box.press("Enter")
        self.settle(page, server, since)
        wall = time.perf_counter() - t
        js = self._stop(cdp)
        read = page.evaluate(READ, t0)
        metrics = _metrics(read, t0, wall, server.script_runs(since), js)
        after = self._render_metrics(renderer)
        return {**metrics, **{k: after[k] - before[k] for k in after}}

    def columns(self, name: str, figures: dict[str, dict[str, float | None] | None]) -> None:
        """Print one row: its main figure per target side by side, then the detail lines."""
        cells = []
        for target in self.targets:
            m = figures.get(target.label)
            cells.append(f"{_s(m['settled'] if m else None):>10s}")
        ratio = ""
        if len(self.targets) == 2:
            a, b = (figures.get(t.label) for t in self.targets)
            if a and b and a["settled"] and b["settled"] is not None:
                ratio = f"   ×{b['settled'] / a['settled']:.2f}"
        print(f"{name:44s}" + "".join(cells) + ratio)
        for target in self.targets:
            m = figures.get(target.label)
            if m is not None:
                print(f"    {target.label + ':':8s}{detail(m)}")
        sys.stdout.flush()

    def header(self, title: str) -> None:
        """Print a row group's title and the targets' column names."""
        print(f"\n== {title}")
        print(f"{'':44s}" + "".join(f"{t.label:>10s}" for t in self.targets))


# --------------------------------------------------------------------------- rows


def run_open(bench: Bench) -> None:
    """Row ``open``: every page in a new tab, repeats alternating between the targets."""
    from tests.e2e.classroom import page_paths

    bench.header(f"a page opened in a new tab, until settled (median of {bench.args.repeats})")
    bench.columns(
        f"open {first_page()}, a fresh server's first page",
        {target.label: bench.fresh(target) for target in bench.targets},
    )
    for path in page_paths():
        stem = path.strip("/") or first_page()
        if bench.args.pages and stem not in bench.args.pages:
            continue
        samples: dict[str, list[dict[str, float | None]]] = {t.label: [] for t in bench.targets}
        for _ in range(bench.args.repeats):
            for target in bench.targets:
                with bench.tab() as page:
                    try:
                        server = bench.server(target)
                        samples[target.label].append(bench.open(page, server, server.url + path))
                    except Exception as exc:  # a failed measurement is reported, not fatal
                        print(f"    {target.label}: {stem} failed: {exc}"[:300])
        figures = {}
        for label, sample in samples.items():
            figures[label] = summarise(sample) if sample else None
            if sample:
                figures[label]["first"] = sample[0]["settled"]  # type: ignore[index]
        bench.columns(f"open {stem}", figures)


def _script_times(
    target: Target, case: EpsCase, query: list[tuple[str, str]], values: list[str]
) -> float | None:
    """Median AppTest script time of the changes of ``case`` on ``target``'s tree."""
    from bench.bench_page_profile import run_worker

    try:
        result = run_worker(
            target.root,
            "--worker",
            "eps",
            "--page",
            case.page,
            "--query",
            json.dumps(dict(query)),
            "--key",
            case.key,
            "--values",
            *values,
        )
    except Exception as exc:  # reported, the browser figures still count
        print(f"    {target.label}: script time of {case.name} failed: {exc}"[:400])
        return None
    return _median([r["wall"] for r in result["runs"]])


def run_eps(bench: Bench) -> None:
    """Row ``eps``: a change of every page's ε control, in the browser and under AppTest."""
    bench.header(
        f"a change of ε_target typed into the box, until settled (median of {bench.args.repeats})"
    )
    for case in EPS_CASES:
        if bench.args.pages and case.page not in bench.args.pages:
            continue
        values = case.values(bench.args.repeats)
        figures: dict[str, dict[str, float | None] | None] = {}
        for target in bench.targets:
            samples = []
            try:
                query = bench.query(target, case)
            except Exception as exc:
                print(f"    {target.label}: {case.name}: its labels could not be read: {exc}"[:400])
                figures[target.label] = None
                continue
            with bench.tab() as page:
                try:
                    server = bench.server(target)
                    bench.open(page, server, page_url(server.url, case.page, query))
                    for value in values:
                        samples.append(bench.change(page, server, case.key, value))
                except Exception as exc:
                    print(f"    {target.label}: {case.name} failed: {exc}"[:300])
            figures[target.label] = summarise(samples) if samples else None
            script = _script_times(target, case, query, values)
            if figures[target.label] is not None:
                figures[target.label]["script"] = script  # type: ignore[index]
        bench.columns(f"ε change: {case.name}", figures)


def run_plan(bench: Bench) -> None:
    """Row ``plan``: the planner's default plan under AppTest, with its first rows."""
    from bench.bench_page_profile import run_worker

    bench.header(
        f"planner's full plan at page defaults, AppTest script time (median of "
        f"{bench.args.repeats}, caches cleared; cold = first run of a fresh process)"
    )
    for query, name in (({}, "default population"), ({"population": "Establishments"}, "Est.")):
        plans: dict[str, float | None] = {}
        cells = []
        for target in bench.targets:
            try:
                result = run_worker(
                    target.root,
                    "--worker",
                    "plan",
                    "--repeats",
                    str(bench.args.repeats),
                    "--query",
                    json.dumps(query),
                )
            except Exception as exc:
                cells.append(f"{target.label + ':':8s}failed: {exc}"[:300])
                continue
            runs = result["runs"]
            plans[target.label] = _median([r["wall"] for r in runs])
            cpu = _median([r["cpu"] for r in runs])
            if all("progressive" not in r for r in runs):
                rows = "first rows not measured (no ui.planner.cache.plan)"
            elif all(not r.get("progressive") for r in runs):
                rows = "not shown progressively"
            else:
                rows = f"first rows {_s(_median([r.get('first_rows') for r in runs]))}"
            cells.append(
                f"{target.label + ':':8s}plan {_s(plans[target.label])} (CPU {_s(cpu)}), {rows},"
                f" cold {_s(result['cold']['wall'])} (CPU {_s(result['cold']['cpu'])})"
            )
        line = f"{'plan, ' + name:44s}"
        line += "".join(f"{_s(plans.get(t.label)):>10s}" for t in bench.targets)
        if len(bench.targets) == 2:
            before, after = (plans.get(t.label) for t in bench.targets)
            if before and after is not None:
                line += f"   ×{after / before:.2f}"
        print(line)
        for cell in cells:
            print(f"    {cell}")
        sys.stdout.flush()


def _register_file(bench: Bench) -> tuple[Path, list[str]]:
    """The register (written once) and the server arguments that name it."""
    path = bench.tmp / "register.parquet"
    if not path.exists():
        from tests.populations import write_register

        t = time.perf_counter()
        write_register(path, bench.args.register_size, 15, regions=6, districts=40)
        print(f"    (wrote {bench.args.register_size:,} rows in {time.perf_counter() - t:.0f} s)")
    argv = ["--population", str(path), "--value", "income", "--lower", "0", "--upper", "1e7"]
    return path, [*argv, "--stratum", "region", "--cluster", "district"]


def run_register(bench: Bench) -> None:
    """Row ``register``: a server started with a large register on its command line."""
    size = bench.args.register_size
    pause = bench.args.register_pause
    after = f", the planner opened {pause:g} s after the first page" if pause else ""
    bench.header(f"planner on a {size:,}-record register named on the command line{after}")
    _, argv = _register_file(bench)
    first: dict[str, dict[str, float | None] | None] = {}
    plan: dict[str, dict[str, float | None] | None] = {}
    change: dict[str, dict[str, float | None] | None] = {}
    for target in bench.targets:
        log = bench.tmp / f"register-{target.label}.log"
        try:
            with serve_tree(target.root, log, ["--", *argv]) as server:
                with bench.tab() as page:
                    first[target.label] = bench.open(
                        page, server, page_url(server.url, first_page())
                    )
                    time.sleep(bench.args.register_pause)
                with bench.tab() as page:
                    plan[target.label] = bench.open(page, server, page_url(server.url, "planner"))
                    values = EPS_CASES[0].values(bench.args.repeats)
                    change[target.label] = summarise(
                        [bench.change(page, server, "plan_eps", v) for v in values]
                    )
        except Exception as exc:
            print(f"    {target.label}: failed: {exc}"[:300])
    bench.columns("first page of the server", first)
    bench.columns("planner's first plan (new tab)", plan)
    bench.columns(f"ε change (median of {bench.args.repeats})", change)


def run_classroom_row(bench: Bench) -> None:
    """Row ``classroom``: concurrent sessions over every page, on a fresh server each."""
    sessions = bench.args.sessions
    bench.header(f"{sessions} concurrent sessions over every page (time to first chart)")
    for target in bench.targets:
        log = bench.tmp / f"classroom-{target.label}.log"
        try:
            with serve_tree(target.root, log) as server:
                command = [sys.executable, "-m", "tests.e2e.classroom", server.url]
                command += ["--sessions", str(sessions), "--timeout", "300"]
                done = subprocess.run(
                    command, cwd=ROOT, capture_output=True, text=True, check=True, timeout=1800
                )
        except Exception as exc:
            print(f"    {target.label}: failed: {exc}"[:300])
            continue
        result = json.loads(done.stdout)
        summary = result["summary"]
        print(
            f"    {target.label + ':':8s}page median {_s(summary['median_chart_seconds'])},"
            f" worst {_s(summary['worst_chart_seconds'])},"
            f" {summary['visits_with_errors']} of {summary['visits']} visits with an error,"
            f" wall {summary['wall_seconds']:.0f} s"
        )
        sys.stdout.flush()


#: Every row, by the name ``--rows`` takes, in the order they run.
ROWS: dict[str, Row] = {
    "open": Row("a page opened in a new tab, every page", run_open),
    "eps": Row("a change of ε_target settled, every page with an ε control", run_eps),
    "plan": Row("planner's full plan at page defaults (AppTest) and its first rows", run_plan),
    "register": Row("planner on a 5-million-record register from the command line", run_register),
    "classroom": Row("12 concurrent sessions over every page", run_classroom_row),
}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The bench's options (see the module docstring)."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="rows: " + "; ".join(f"{k}: {r.description}" for k, r in ROWS.items()),
    )
    parser.add_argument(
        "--rows",
        nargs="+",
        choices=[*ROWS, "all"],
        default=list(DEFAULT_ROWS),
        metavar="NAME",
        help=f"rows to run: {', '.join(ROWS)} or all (default: {' '.join(DEFAULT_ROWS)})",
    )
    parser.add_argument(
        "--pages",
        nargs="+",
        default=None,
        metavar="STEM",
        help="only these pages in the open and eps rows (script stems: planner gains ...)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="repeats per figure (median)")
    parser.add_argument(
        "--against",
        metavar="REV",
        default=None,
        help="also measure git revision REV (a temporary worktree) and print before/after",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per settle")
    parser.add_argument(
        "--no-js-profile",
        dest="js_profile",
        action="store_false",
        help="do not sample the browser's JavaScript (CDP profiler) during each measurement",
    )
    parser.add_argument("--sessions", type=int, default=12, help="sessions of the classroom")
    parser.add_argument(
        "--register-size", type=int, default=5_000_000, help="records of the register row"
    )
    parser.add_argument(
        "--register-pause",
        type=float,
        default=0.0,
        help="seconds the register row waits on the first page before it opens the planner "
        "(a visitor reading the first page; default 0: at once)",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if "all" in args.rows:
        args.rows = list(ROWS)
    else:
        args.rows = [name for name in ROWS if name in args.rows]
    return args


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the chosen rows against this tree (and ``--against`` REV)."""
    from tests.e2e.conftest import CHROMIUM

    args = parse_args(argv)
    if not Path(CHROMIUM).exists():
        sys.exit(
            f"bench_browser: {CHROMIUM} is missing; install Debian's Chromium "
            "(make chromium, or apt-get install -y chromium). No browser is downloaded."
        )
    # A termination request unwinds like Ctrl-C, so every server, browser and worktree this
    # run started is stopped and removed on the way out.
    signal.signal(signal.SIGTERM, _interrupt)
    print(load_line() + "; wall times on a shared machine are noisy")
    print(f"Chromium {VIEWPORT['width']}×{VIEWPORT['height']}, rows {' '.join(args.rows)}")
    with contextlib.ExitStack() as stack:
        targets = [Target("now" if args.against is None else "after", ROOT)]
        if args.against is not None:
            before = stack.enter_context(git_worktree(args.against))
            sha = subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                cwd=before,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            print(f"before: {args.against} ({sha}), after: this working tree")
            targets.insert(0, Target("before", before))
        bench = Bench(args, targets, stack)
        for name in args.rows:
            ROWS[name].run(bench)
        print(f"\n{load_line()}")


if __name__ == "__main__":
    main()
