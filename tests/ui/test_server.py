"""ui.server and serve.py: what the server starts before any browser connects.

Each check runs in a fresh interpreter: the read and the imports are started once per
process, so a process that already started them (this one, after other tests) proves nothing.
The browser tests (``tests/e2e``) serve the app through ``serve.py``, as ``make run`` does.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.populations import write_register

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_server_start_begins_the_read_and_the_imports_once(tmp_path):
    """Break caught (tests/break_checks.py ``server-start-starts-nothing``): the server's
    start no longer begins the command line's read or the pages' imports, so the first
    visitor waits for both."""
    path = write_register(tmp_path / "register.csv", size=300)
    argv = ["--population", str(path), "--value", "income"]
    _run(
        "import sys\n"
        "import ui.command_line as cl, ui.router as r, ui.server as s\n"
        "assert 'ui.gains.views' not in sys.modules\n"
        f"argv = {argv!r}\n"
        "threads = s.start_server(argv)\n"
        "names = [t.name for t in threads]\n"
        "assert names == ['command-line-population', 'warm-page-modules'], names\n"
        "for t in threads: t.join(120)\n"
        "missing = [m for m in r.page_modules() if m not in sys.modules]\n"
        "assert not missing, missing\n"
        # The first visit takes the read the server started: no second read, no second start.
        "reads = []\n"
        "real = cl.read_command_line_population\n"
        "cl.read_command_line_population = lambda x: reads.append(x) or real(x)\n"
        "load = cl.command_line_population(argv)\n"
        "assert load is not None and load.population is not None, load\n"
        "assert load.population.values.size == 300 and reads == [], reads\n"
        "assert s.start_server(argv) == () and cl.start_preparation(argv) is None\n"
    )


def test_the_server_start_without_a_file_only_imports(tmp_path):
    _run(
        "import ui.server as s\n"
        "threads = s.start_server([])\n"
        "assert [t.name for t in threads] == ['warm-page-modules'], threads\n"
        "threads[0].join(120)\n"
    )


def test_the_lifespan_starts_the_server_with_the_processs_arguments(tmp_path):
    path = write_register(tmp_path / "register.csv", size=300)
    argv = ["serve.py", "--population", str(path), "--value", "income"]
    _run(
        "import asyncio, sys, threading\n"
        f"sys.argv = {argv!r}\n"
        "import ui.command_line as cl, ui.server as s\n"
        "async def main():\n"
        "    async with s.lifespan(None):\n"
        "        return {t.name for t in threading.enumerate()}\n"
        "names = asyncio.run(main())\n"
        "assert 'warm-page-modules' in names, names\n"
        "load = cl.command_line_population(sys.argv[1:])\n"
        "assert load is not None and load.population is not None\n"
        "assert load.population.values.size == 300\n"
        "assert cl.start_preparation(sys.argv[1:]) is None  # started by the lifespan\n"
    )


def test_streamlit_finds_the_app_of_serve_py_and_its_lifespan():
    """``streamlit run serve.py`` serves an ``st.App`` (found by Streamlit's own discovery)
    whose lifespan is :func:`ui.server.lifespan` and whose script is ``app.py``."""
    _run(
        "from pathlib import Path\n"
        "from streamlit.web.server.app_discovery import discover_asgi_app\n"
        "found = discover_asgi_app(Path('serve.py'))\n"
        "assert found.is_asgi_app and found.import_string == 'serve:app', found\n"
        "import serve, ui.server\n"
        "assert serve.app._user_lifespan is ui.server.lifespan\n"
        "assert Path(str(serve.app._script_path)).name == 'app.py', serve.app._script_path\n"
    )
