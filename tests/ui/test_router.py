"""The page registry of ui.router: one place, no silently vanished menu entries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import ui.router as router
from tests.pages.harness import ROOT, TIMEOUT
from ui.router import PAGES, PageSpec, check_pages, navigation_pages


def _run_router(default_page: str) -> AppTest:
    """The real router (as ``app.py`` runs it) landing on ``default_page``."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from ui.router import run_app\n"
        f"run_app(default_page={default_page!r})\n"
    )
    at = AppTest.from_string(script, default_timeout=TIMEOUT)
    at.run()
    return at


def test_every_registered_page_exists_and_every_page_script_is_registered():
    registered = [spec.script for spec in PAGES]
    on_disk = sorted(f"app_pages/{p.name}" for p in (ROOT / "app_pages").glob("*.py"))
    assert sorted(registered) == on_disk
    assert all((ROOT / script).is_file() for script in registered)
    check_pages()  # the real registry passes the router's own check


def test_registry_entries_are_unique_and_well_formed():
    assert len({spec.script for spec in PAGES}) == len(PAGES)
    assert len({spec.title for spec in PAGES}) == len(PAGES)
    assert all(spec.icon.startswith(":material/") for spec in PAGES)
    assert PAGES[0].script == router.DEFAULT_PAGE


def test_a_missing_page_file_raises_a_clear_error():
    pages = (*PAGES, PageSpec("app_pages/not_there.py", "Not there", ":material/help:"))
    with pytest.raises(FileNotFoundError, match=r"app_pages/not_there\.py"):
        check_pages(pages)
    with pytest.raises(FileNotFoundError, match="do not exist"):
        navigation_pages(router.DEFAULT_PAGE, pages)


def test_a_missing_page_file_stops_the_app_instead_of_vanishing_from_the_menu(monkeypatch):
    pages = (*PAGES, PageSpec("app_pages/not_there.py", "Not there", ":material/help:"))
    monkeypatch.setattr(router, "PAGES", pages)
    at = _run_router(router.DEFAULT_PAGE)
    # The app's config redacts error details; the message itself is checked above.
    assert at.exception, "a registered page without a file must not vanish silently"


def test_an_unregistered_default_page_is_an_error():
    with pytest.raises(ValueError, match="default_page must be one of the registered pages"):
        navigation_pages("app_pages/typo.py")
    assert _run_router("app_pages/typo.py").exception


@pytest.mark.parametrize("field", ["script", "title"])
def test_a_page_registered_twice_is_an_error(field: str):
    first = PAGES[0]
    twin = first._replace(**{"script" if field == "title" else "title": "other"})
    with pytest.raises(ValueError, match=f"page {field}s registered more than once"):
        check_pages((*PAGES, twin))


def test_an_empty_registry_is_an_error(tmp_path: Path):
    with pytest.raises(ValueError, match="empty"):
        check_pages((), tmp_path)


def test_page_modules_name_what_each_page_imports():
    modules = router.page_modules()
    for name in ("ui.gains.views", "ui.amplification.views", "ui.strata.views", "ui.state"):
        assert name in modules
    assert "core.games" in modules  # `from core import games` (a module of a package)
    assert all(name.split(".")[0] in ("core", "ui") for name in modules)
    assert len(set(modules)) == len(modules)


def test_page_modules_are_imported_in_the_background_once_per_process():
    """In a fresh interpreter: the first call imports every page's modules in a thread, a
    second call starts nothing."""
    code = (
        "import sys\n"
        "import ui.router as r\n"
        "assert 'ui.gains.views' not in sys.modules\n"
        "thread = r.warm_page_modules()\n"
        "thread.join(120)\n"
        "missing = [m for m in r.page_modules() if m not in sys.modules]\n"
        "assert not missing, missing\n"
        "assert r.warm_page_modules() is None\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_router_starts_the_warm_up_after_a_page():
    """Break caught (tests/break_checks.py ``router-no-module-warm-up``): the router no
    longer imports the other pages' modules after the first page, so the first visit of
    each page waits for its imports."""
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from streamlit.testing.v1 import AppTest\n"
        "import ui.router as r\n"
        "at = AppTest.from_string('from ui.router import run_app\\n"
        'run_app(default_page="app_pages/about.py")\\n\', default_timeout=120)\n'
        "at.run()\n"
        "assert not at.exception\n"
        "assert r._warm_thread is not None, 'no warm-up started'\n"
        "r._warm_thread.join(120)\n"
        "assert 'ui.gains.views' in sys.modules\n"
        # The planner's kernels are loaded too (core.planner.warm.warm_up ran).
        "assert 'core.planner.warm' in sys.modules, 'the planner was not warmed up'\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_the_first_run_imports_its_page_while_the_file_is_read(monkeypatch):
    """Break caught (tests/break_checks.py ``router-imports-after-the-read``): the server's
    first run waits for the command line's file and only then imports its page's modules,
    one after the other, instead of beside the read."""
    imported: list[tuple[str, ...]] = []
    monkeypatch.setattr(router, "import_page_modules", lambda names: imported.append(tuple(names)))
    overview = next(p for p in router.PAGES if p.script == router.DEFAULT_PAGE)
    planner = next(p for p in router.PAGES if p.script == "app_pages/planner.py")
    argv = ["--population", "register.parquet", "--value", "income"]
    monkeypatch.setattr(router, "reading", lambda a: list(a) == argv)
    names = router.import_while_reading(planner, argv)
    assert names == router.page_modules((planner,)) and imported == [names]
    assert "ui.planner.tabs" in names and "ui.gains.views" not in names
    assert router.import_while_reading(overview, argv) == router.page_modules((overview,))
    imported.clear()
    # No read under way (no file, or a later run), or no page: nothing is imported here.
    assert router.import_while_reading(planner, []) == ()
    assert router.import_while_reading(None, argv) == ()
    assert imported == []


def test_the_warm_up_runs_at_the_lowest_priority(monkeypatch):
    """Break caught (tests/break_checks.py ``warm-up-full-priority``): the warm-up thread
    competes with a fresh server's first visitor on equal terms."""
    import os
    import threading

    calls = []
    monkeypatch.setattr(router, "_lower_priority", lambda: calls.append("lowered"))
    monkeypatch.setattr(router, "import_page_modules", lambda names: calls.append("imports"))
    monkeypatch.setattr("core.planner.warm.warm_up", lambda: calls.append("kernels"))
    router._import_all(("ui.state",))
    assert calls == ["lowered", "imports", "kernels"]
    monkeypatch.undo()

    seen = []
    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def lowered() -> None:
        router._lower_priority()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=lowered)
    thread.start()
    thread.join(10)
    assert seen == [router.WARM_NICE]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main  # this thread only
