"""Security posture (issue 7): XSRF and CORS defaults stay on, uploads are size-limited, and
no uploaded content is ever evaluated or unpickled by the app's own code."""

from __future__ import annotations

import re
import tomllib
import urllib.error
import urllib.request

from tests.e2e.conftest import ROOT

CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())


def test_config_keeps_streamlit_protections_and_limits_uploads():
    server = CONFIG.get("server", {})
    assert server.get("enableXsrfProtection", True) is True
    assert server.get("enableCORS", True) is True
    assert 0 < server["maxUploadSize"] <= 200
    from core.populations import MAX_UPLOAD_BYTES

    assert MAX_UPLOAD_BYTES == server["maxUploadSize"] * 1024 * 1024


def test_upload_endpoint_rejects_a_request_without_xsrf_token(app_url):
    request = urllib.request.Request(
        f"{app_url}/_stcore/upload_file/some-session/some-file",
        data=b"value\n1\n2\n3\n",
        method="PUT",
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as err:
        assert err.code in (400, 403), err.code
    else:
        raise AssertionError("an upload without an XSRF token was accepted")


def test_app_code_never_evaluates_or_unpickles_input():
    dangerous = re.compile(r"\b(eval|exec)\(|pickle\.loads?\(|yaml\.load\(|__import__\(")
    offenders = []
    for folder in ("core", "ui", "app_pages"):
        for path in (ROOT / folder).rglob("*.py"):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                if dangerous.search(line) and not line.lstrip().startswith("#"):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
