"""Browser test harness: a real ``streamlit run`` server and Debian's Chromium via Playwright.

No browser is ever downloaded: Playwright launches ``/usr/bin/chromium``. Outside CI the tests
skip when Chromium is missing; under CI (``CI`` set) they fail instead, so a broken set-up
cannot pass silently.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What the servers run, as ``make run`` does (``bench.bench_browser`` runs ``app.py`` in an
#: older tree without it).
SCRIPT = "serve.py"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"streamlit did not become healthy at {url} within {timeout} s")


@dataclasses.dataclass(frozen=True)
class Server:
    """A running ``streamlit run serve.py``: its URL and process id."""

    url: str
    pid: int

    def rss_mb(self) -> float:
        """Resident memory of the server process in MB (from /proc)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise RuntimeError("VmRSS not found")

    def cpu_seconds(self) -> float:
        """User plus system CPU time the server process has used so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks


@contextlib.contextmanager
def serve(log: Path, extra_args: Sequence[str] = ()) -> Iterator[Server]:
    """Run ``streamlit run serve.py`` (as ``make run`` does) on a free loopback port; yield the
    running server.

    ``extra_args`` are appended to the command line (e.g. a config option to switch off).
    """
    port = _free_port()
    # One BLAS thread per server, as `make run` does: sessions share the two cores already.
    # glibc hands freed blocks above 128 KiB back to the system at once, so the server's RSS
    # follows the memory it really holds (the memory test reads it).
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MALLOC_MMAP_THRESHOLD_": "131072",
        "MALLOC_TRIM_THRESHOLD_": "131072",
        "MALLOC_ARENA_MAX": "2",
    }
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                SCRIPT,
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--server.headless",
                "true",
                *extra_args,
            ],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, proc)
            yield Server(url=url, pid=proc.pid)
        finally:
            _stop(proc)


#: Servers asked to stop whose exit nobody has waited for yet (:func:`_stop`, :func:`_reap`).
_STOPPING: list[subprocess.Popen[bytes]] = []


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Ask a server to stop, without waiting for it to exit.

    Streamlit takes about two seconds to close its connections after SIGTERM, nearly all of
    it idle; the next test need not wait for that. It is reaped by :func:`_reap` when
    another server stops, and when the test process exits.
    """
    proc.terminate()
    _STOPPING.append(proc)
    _reap(grace=None)


def _reap(grace: float | None) -> None:
    """Reap the stopped servers that have exited.

    ``grace`` seconds: how long one that is still running may take before it is killed
    (``None``: leave it running for now).
    """
    for proc in list(_STOPPING):
        if proc.poll() is None and grace is not None:
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.poll() is not None:
            _STOPPING.remove(proc)


# A server still shutting down when the tests end is killed: a test server holds nothing that
# must be saved (numba writes its cache files under a temporary name, then renames them).
atexit.register(_reap, grace=0.0)


@pytest.fixture(scope="session")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server shared by the browser tests of this session."""
    with serve(tmp_path_factory.mktemp("streamlit") / "server.log") as server:
        yield server.url


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[Server]:
    """A server of its own that no session has visited yet (deep links, memory, load)."""
    with serve(tmp_path / "server.log") as server:
        yield server


@pytest.fixture
def fresh_app_url(fresh_server: Server) -> str:
    """URL of :func:`fresh_server`."""
    return fresh_server.url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Debian's Chromium driven by Playwright (headless)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing under CI: .ci/run must install Debian chromium")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh browser context and page per test (separate sessions, no shared state)."""
    context = browser.new_context(viewport={"width": 1440, "height": 1600})  # type: ignore[attr-defined]
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        yield page
    finally:
        context.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep each browser test module on one xdist worker.

    A module's tests share that worker's server and browser; different modules may run on
    different workers at once, each worker with a server and a browser of its own, so the
    browser tests (which mostly wait on a page) overlap instead of queueing behind each other.
    """
    for item in items:
        path = Path(str(item.fspath))
        if "tests/e2e/" in str(path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.xdist_group(f"browser-{path.stem}"))
