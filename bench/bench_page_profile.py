"""Server-side profile of every page under Streamlit's AppTest: cold and warm.

For every page of :data:`ui.router.PAGES` (opened through the real router, as
``tests.pages.harness.open_page`` does), a fresh Python process runs the page twice:

* **cold**: the first run in that process: the app's modules are imported during the run
  (``streamlit`` itself is imported before, as a server has it at start) and every
  ``st.cache_data`` / ``st.cache_resource`` is empty;
* **warm**: a rerun of the same session with the same inputs (every cache filled).

Each page is measured twice, in two fresh processes: once without a profiler (the printed
wall and CPU times) and once under :mod:`cProfile`, enabled in the thread that runs the
script (AppTest runs it in a thread of its own). From the profile it prints the time spent
importing modules (the cumulative time of ``importlib``'s ``_find_and_load``: the app's own
modules and the libraries they pull in) and the eight functions of the repository's own code
(``app.py``, ``app_pages/``, ``ui/``, ``core/``; module bodies left out, their time is the
imports') with the largest cumulative time, with their call counts. Cumulative times nest:
a page's view function contains the figures it builds.

Run: ``.venv/bin/python -m bench.bench_page_profile [--pages planner gains ...] [--top 8]``

The same file is the worker that ``bench.bench_browser`` starts for its AppTest rows, in a
process whose working directory is the source tree to measure (possibly an older revision):
``python bench/bench_page_profile.py --worker KIND --root TREE ...`` prints one JSON object.
Only the standard library is imported at module level, so the worker imports ``streamlit``,
``core`` and ``ui`` from the tree given by ``--root``.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import json
import os
import pstats
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

#: The repository this file belongs to.
ROOT = Path(__file__).resolve().parents[1]

#: Functions of the repository's own code that a profile lists (paths relative to the tree).
OWN_CODE = ("app.py", "app_pages/", "ui/", "core/")

#: The worker's answer starts after this line (a page may print to stdout before it).
MARKER = "--- bench worker result ---"


# --------------------------------------------------------------------------- worker side


def _prepare(root: Path) -> None:
    """Import the tree at ``root`` (before any other copy) and start in it."""
    os.chdir(root)
    sys.path.insert(0, str(root))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    import streamlit  # noqa: F401  (a server has streamlit imported before any page)
    from streamlit.testing.v1 import AppTest  # noqa: F401


@contextlib.contextmanager
def _profiled_script_thread(profile: cProfile.Profile | None) -> Iterator[None]:
    """Enable ``profile`` in the thread in which AppTest runs the page script."""
    if profile is None:
        yield
        return
    from streamlit.testing.v1 import local_script_runner as lsr

    original = lsr.LocalScriptRunner._run_script_thread

    def run_profiled(self: Any) -> None:
        profile.enable()
        try:
            original(self)
        finally:
            profile.disable()

    lsr.LocalScriptRunner._run_script_thread = run_profiled  # type: ignore[method-assign]
    try:
        yield
    finally:
        lsr.LocalScriptRunner._run_script_thread = original  # type: ignore[method-assign]


def _timed_run(at: Any) -> dict[str, float]:
    """Run ``at`` once: wall and process CPU seconds; raise if the page raised."""
    t0, c0 = time.perf_counter(), time.process_time()
    at.run()
    out = {"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}
    if at.exception:
        raise RuntimeError(f"the page raised: {[e.value for e in at.exception][:2]}")
    return out


def _top_functions(profile: cProfile.Profile, root: Path, top: int) -> dict[str, Any]:
    """Import time and the ``top`` own functions by cumulative time of ``profile``."""
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    imports = 0.0
    own = []
    prefix = str(root) + os.sep
    for (filename, line, name), (_cc, calls, _tt, cum, _callers) in stats.items():
        if name == "_find_and_load" and "importlib" in filename:
            imports = max(imports, cum)
        if filename.startswith(prefix):
            relative = filename[len(prefix) :]
            if relative.startswith(OWN_CODE) and name != "<module>":
                own.append((cum, calls, f"{relative}:{line}({name})"))
    own.sort(reverse=True)
    return {
        "imports": imports,
        "top": [{"where": w, "cum": c, "calls": n} for c, n, w in own[:top]],
    }


def _page_script(page: str) -> str:
    return page if page.startswith("app_pages/") else f"app_pages/{page}.py"


def app_test(root: Path, page: str) -> Any:
    """An AppTest of the router landing on ``page``, as ``tests.pages.harness.app_test``
    builds it, but importing nothing of the app before its first run (so that a cold run
    counts the app's imports, as a server's first page does)."""
    from streamlit.testing.v1 import AppTest

    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(root)!r})\n"
        "from ui.router import run_app\n"
        f"run_app(default_page={_page_script(page)!r})\n"
    )
    return AppTest.from_string(script, default_timeout=600)


def worker_profile(root: Path, page: str, profiled: bool, top: int) -> dict[str, Any]:
    """Cold and warm run of ``page`` in this (fresh) process, optionally profiled."""
    out: dict[str, Any] = {}
    at = app_test(root, page)
    for phase in ("cold", "warm"):
        profile = cProfile.Profile() if profiled else None
        with _profiled_script_thread(profile):
            out[phase] = _timed_run(at)
        if profile is not None:
            out[phase].update(_top_functions(profile, root, top))
    return out


def _set_control(at: Any, key: str, value: str) -> None:
    """Give the widget ``key`` the typed ``value`` (a number box or a text box)."""
    for kind in ("number_input", "text_input"):
        found = [w for w in getattr(at, kind) if w.key == key]
        if found:
            widget = found[0]
            widget.set_value(float(value) if kind == "number_input" else value)
            return
    raise LookupError(f"no number or text box with key {key!r} on the page")


def worker_eps(
    root: Path, page: str, query: dict[str, str], key: str, values: Sequence[str]
) -> dict[str, Any]:
    """Script time of each change of ``key`` to ``values`` after the page's first run."""
    from tests.pages.harness import open_page

    t0 = time.perf_counter()
    at = open_page(_page_script(page), query)
    first = time.perf_counter() - t0
    runs = []
    for value in values:
        _set_control(at, key, value)
        runs.append(_timed_run(at))
    return {"first": first, "runs": runs}


def _first_rows_hook(record: dict[str, Any]) -> Callable[[], None]:
    """Time when the planner page has drawn the census and simple-random-sample rows.

    Wraps ``ui.planner.cache.plan``: the page passes it a ``_progress`` callback that draws
    the rows known so far. The first report whose rows hold both designs, once drawn, is
    the time the first rows are shown. ``record["progressive"]`` says whether the page
    passed a callback at all; it stays unset if the tree has no ``ui.planner.cache.plan``.
    Returns the function that undoes the wrap.
    """
    try:
        import ui.planner.cache as cache

        original = cache.plan
    except (ImportError, AttributeError):
        return lambda: None

    def plan(*args: Any, _progress: Any = None, **kwargs: Any) -> Any:
        if _progress is None:
            record.setdefault("progressive", False)
            return original(*args, **kwargs)
        record["progressive"] = True

        def report(progress: Any) -> None:
            _progress(progress)
            table = getattr(progress, "table", None)
            if table is None or "first_rows" in record or "design" not in table:
                return
            if {"census", "srs"} <= set(table["design"]):
                record["first_rows"] = time.perf_counter() - record["start"]

        return original(*args, _progress=report, **kwargs)

    cache.plan = plan  # type: ignore[assignment]

    def undo() -> None:
        cache.plan = original  # type: ignore[assignment]

    return undo


def worker_plan(root: Path, repeats: int, query: dict[str, str]) -> dict[str, Any]:
    """The planner page at its defaults: a cold first run, then ``repeats`` runs with every
    Streamlit cache cleared (imports done), each with the time its first rows were shown."""
    import streamlit as st

    page = "planner"
    at = app_test(root, page)
    at.query_params.update(query)
    cold = _timed_run(at)
    runs = []
    for _ in range(repeats):
        st.cache_data.clear()
        st.cache_resource.clear()
        record: dict[str, Any] = {}
        undo = _first_rows_hook(record)
        try:
            at = app_test(root, page)
            at.query_params.update(query)
            record["start"] = time.perf_counter()
            timing = _timed_run(at)
        finally:
            undo()
        runs.append({**timing, **{k: v for k, v in record.items() if k != "start"}})
    return {"cold": cold, "runs": runs}


def worker_labels(refs: Sequence[str]) -> dict[str, Any]:
    """The values of ``@module:NAME`` references in this tree (labels the bench puts into a
    URL, such as a tab's title)."""
    import importlib

    out = {}
    for ref in refs:
        module, _, name = ref.lstrip("@").partition(":")
        out[ref] = getattr(importlib.import_module(module), name)
    return out


def worker_main(argv: Sequence[str]) -> None:
    """Entry of the worker process (see the module docstring); prints one JSON object."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", choices=("profile", "eps", "plan", "labels"), required=True)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--page", default="planner")
    parser.add_argument("--profiled", action="store_true")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--query", default="{}", help="URL query as JSON")
    parser.add_argument("--key", default="")
    parser.add_argument("--values", nargs="*", default=[])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    root = args.root.resolve()
    _prepare(root)
    query = json.loads(args.query)
    if args.worker == "profile":
        result = worker_profile(root, args.page, args.profiled, args.top)
    elif args.worker == "labels":
        result = worker_labels(args.values)
    elif args.worker == "eps":
        result = worker_eps(root, args.page, query, args.key, args.values)
    else:
        result = worker_plan(root, args.repeats, query)
    print(MARKER)
    print(json.dumps(result))


# --------------------------------------------------------------------------- driver side


def run_worker(root: Path, *args: str, timeout: float = 600.0) -> dict[str, Any]:
    """Run this file as a worker on the tree ``root`` in a fresh process; its JSON answer.

    Raises
    ------
    RuntimeError
        If the worker fails (its last output lines are in the message).
    """
    command = [sys.executable, str(Path(__file__).resolve()), "--root", str(root), *args]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0 or MARKER not in done.stdout:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-12:])
        raise RuntimeError(f"worker {' '.join(args)} failed on {root}:\n{tail}")
    return dict(json.loads(done.stdout.split(MARKER, 1)[1]))


def page_names(root: Path = ROOT) -> list[str]:
    """Stems of the registered pages (``ui.router.PAGES``) of this tree, in menu order."""
    from ui.router import PAGES

    return [Path(spec.script).stem for spec in PAGES if (root / spec.script).exists()]


def profile_page(root: Path, page: str, top: int) -> dict[str, Any]:
    """Unprofiled times and profiled functions of ``page``, cold and warm (two processes)."""
    plain = run_worker(root, "--worker", "profile", "--page", page)
    profiled = run_worker(
        root, "--worker", "profile", "--page", page, "--profiled", "--top", str(top)
    )
    return {"plain": plain, "profiled": profiled}


def print_profile(page: str, result: dict[str, Any], label: str = "") -> None:
    """Print one page's cold and warm times and top functions."""
    tag = f" [{label}]" if label else ""
    plain, profiled = result["plain"], result["profiled"]
    print(f"== {page}{tag}")
    for phase in ("cold", "warm"):
        p, q = plain[phase], profiled[phase]
        print(
            f"  {phase}: {p['wall']:6.2f} s wall, {p['cpu']:6.2f} s CPU"
            f" (profiled {q['wall']:.2f} s, of which imports {q['imports']:.2f} s)"
        )
        for item in q["top"]:
            print(f"      {item['cum']:7.3f} s {item['calls']:7d}×  {item['where']}")


def main(argv: Sequence[str] | None = None) -> None:
    """Profile every page (or ``--pages``) of this tree."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--worker" in argv:
        worker_main(argv)
        return
    from bench._timing import load_line

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", default=None, help="page stems (all)")
    parser.add_argument("--top", type=int, default=8, help="functions listed per run")
    args = parser.parse_args(argv)
    print(load_line() + " (wall times are noisy on a shared machine; CPU times less so)")
    for page in args.pages or page_names():
        print_profile(page, profile_page(ROOT, page, args.top))


if __name__ == "__main__":
    main()
