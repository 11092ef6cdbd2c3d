"""``pytest-cua org serve`` as a real process: one JSON line, files with the right modes, a working login."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

from pytest_cua.orgs.localorg.server import OrgCredentials


def test_org_serve_prints_credentials_and_serves(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data_dir = tmp_path / "org"
    proc = subprocess.Popen([sys.executable, "-m", "pytest_cua.cli", "org", "serve", "--data-dir", str(data_dir),
                             "--port", "0", "--no-ui"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        info = json.loads(line)
        assert set(info) == {"instance_url", "client_id", "client_secret", "username", "password", "ca_path"}
        assert info["instance_url"].startswith("https://127.0.0.1:")
        assert stat.S_IMODE(os.stat(data_dir / "credentials.json").st_mode) == 0o600
        assert stat.S_IMODE(os.stat(data_dir / "server-key.pem").st_mode) == 0o600
        assert stat.S_IMODE(os.stat(data_dir / "ca-key.pem").st_mode) == 0o600
        creds = OrgCredentials(**info)
        token = creds.login("password")
        s = creds.requests_session()
        r = s.get(f"{creds.instance_url}/services/data/v59.0/query", params={"q": "SELECT COUNT() FROM User"},
                  headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert r.status_code == 200 and r.json()["totalSize"] >= 11
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    # the same data directory keeps its credentials and CA
    again = json.loads((data_dir / "credentials.json").read_text())
    assert again["password"] == info["password"] and again["client_secret"] == info["client_secret"]
    assert info["password"] not in (proc.stderr.read() if proc.stderr else "")  # type: ignore[union-attr]


def test_org_help_lists_serve() -> None:
    out = subprocess.run([sys.executable, "-m", "pytest_cua.cli", "org", "serve", "--help"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0 and "--data-dir" in out.stdout and "--host" in out.stdout
