"""Security posture (issue 7): XSRF and CORS defaults stay on, uploads are size-limited, and
no uploaded content is ever evaluated or unpickled by the app's own code."""

from __future__ import annotations

import re
import tomllib
import urllib.error
import urllib.request

from tests.e2e.conftest import ROOT, serve

CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())


def test_config_keeps_streamlit_protections_and_limits_uploads():
    server = CONFIG.get("server", {})
    assert server.get("enableXsrfProtection", True) is True
    assert server.get("enableCORS", True) is True
    assert 0 < server["maxUploadSize"] <= 1024  # at most 1 GB: what a server can read
    from core.populations import MAX_UPLOAD_BYTES

    assert MAX_UPLOAD_BYTES == server["maxUploadSize"] * 1024 * 1024


#: A well-formed one-file multipart upload, as the browser's file uploader sends it.
_BOUNDARY = "xsrf-probe"
_UPLOAD_BODY = (
    f"--{_BOUNDARY}\r\n"
    'Content-Disposition: form-data; name="file"; filename="probe.csv"\r\n'
    "Content-Type: text/csv\r\n\r\n"
    "value\n1\n2\n3\n\r\n"
    f"--{_BOUNDARY}--\r\n"
).encode()
XSRF_COOKIE = "_streamlit_xsrf"


def _put_upload(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """PUT a file to the upload endpoint for a session id that does not exist.

    Streamlit's upload handler checks the XSRF token first and the session id second, so
    without a token a protected server answers 403 "XSRF token missing or invalid", and a
    server without protection gets as far as the session check (400 "Invalid session_id").
    """
    request = urllib.request.Request(
        f"{url}/_stcore/upload_file/no-such-session/no-such-file",
        data=_UPLOAD_BODY,
        method="PUT",
        headers={"Content-Type": f"multipart/form-data; boundary={_BOUNDARY}", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode(errors="replace")


def upload_protection(url: str) -> tuple[str, str]:
    """``("protected", detail)`` if an upload without an XSRF token is refused for it.

    Anything else, e.g. the request getting past the token check to the session check, is
    ``("unprotected", detail)``: a cross-site page could then post files into a session.
    """
    status, body = _put_upload(url)
    detail = f"HTTP {status}: {body[:200]}"
    if status == 403 and "XSRF" in body:
        return "protected", detail
    return "unprotected", detail


def _xsrf_token(url: str) -> str:
    """The XSRF cookie a protected server hands out (on its health endpoint, as to browsers)."""
    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=10) as response:
        cookies = response.headers.get_all("Set-Cookie") or []
    for cookie in cookies:
        name, _, rest = cookie.partition("=")
        if name == XSRF_COOKIE:
            return rest.split(";", 1)[0]
    raise AssertionError(f"no {XSRF_COOKIE} cookie in {cookies}")


def test_upload_endpoint_refuses_a_request_without_xsrf_token(app_url):
    """Against the app's real config the upload is refused because the XSRF token is missing.

    Break it on purpose: set ``enableXsrfProtection = false`` in ``.streamlit/config.toml``;
    the request then gets 400 "Invalid session_id" and this test fails (the old test
    accepted any 400 or 403 and passed).
    """
    verdict, detail = upload_protection(app_url)
    assert verdict == "protected", detail
    status, body = _put_upload(app_url)
    assert status == 403 and "XSRF token missing or invalid" in body, detail
    assert "session_id" not in body
    # The refusal is about the token: with a valid token (cookie plus header, as the
    # browser sends them) the same request passes the XSRF check and reaches the session
    # check, which refuses the made-up session id.
    token = _xsrf_token(app_url)
    status, body = _put_upload(app_url, {"X-Xsrftoken": token, "Cookie": f"{XSRF_COOKIE}={token}"})
    assert status == 400 and "Invalid session_id" in body, (status, body[:200])


def test_the_xsrf_check_reports_the_hole_when_protection_is_off(tmp_path):
    """A server started with ``--server.enableXsrfProtection false``: the check says so."""
    with serve(tmp_path / "server.log", ["--server.enableXsrfProtection", "false"]) as server:
        verdict, detail = upload_protection(server.url)
    assert verdict == "unprotected", detail
    assert "Invalid session_id" in detail


def test_app_code_never_evaluates_or_unpickles_input():
    dangerous = re.compile(r"\b(eval|exec)\(|pickle\.loads?\(|yaml\.load\(|__import__\(")
    offenders = []
    for folder in ("core", "ui", "app_pages"):
        for path in (ROOT / folder).rglob("*.py"):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if dangerous.search(line) and not line.lstrip().startswith("#"):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
