"""Logging in to an org over its standard APIs, against ``pytest-cua org serve`` in a separate process reached
over HTTPS and SOAP only: the client credentials flow, the JWT bearer flow (a certificate the org trusts),
username and password through simple-salesforce's SOAP login; SCUBA's orgs_info.json read as it is; the
``PYTEST_CUA_ORG_*`` variables; a session the org ended renewed on the next call; REQUEST_LIMIT_EXCEEDED waited
out, then an environment error; the secrets in no message."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

from pytest_cua.orgs.auth import OrgLogin, OrgLoginError
from pytest_cua.orgs.pool import OrgsFileError, load_orgs
from pytest_cua.orgs.realorg.client import OrgClient, OrgLimitExceeded
from tests.localorg.served import served_orgs

REPO = Path(__file__).resolve().parents[2]


def _key_and_cert(folder: Path) -> tuple[Path, Path]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pytest-cua connected app")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2)).sign(key, hashes.SHA256()))
    key_path, cert_path = folder / "jwt.key", folder / "jwt.crt"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict, Path, Path]]:
    folder = tmp_path_factory.mktemp("login")
    key, cert = _key_and_cert(folder)
    with served_orgs(folder, ["org-l"], ui=False, kind="salesforce",
                     extra=["--jwt-cert", str(cert), "--token-ttl", "3", "--daily-api-requests", "60"]) as (f, infos):
        yield infos["org-l"], f, key


def _login(info: dict, **fields: str) -> OrgLogin:
    base = {"instance_url": info["instance_url"], "ca_path": info["ca_path"]}
    return OrgLogin.from_fields("org-l", {**base, **fields}, "test")


def test_three_flows_give_working_tokens(org: tuple[dict, Path, Path]) -> None:
    info, _, key = org
    flows = {
        "client_credentials": _login(info, client_key=info["client_id"], client_secret=info["client_secret"]),
        "jwt": _login(info, client_key=info["client_id"], username=info["username"], private_key_path=str(key),
                      audience="https://test.salesforce.com"),
        "password": _login(info, username=info["username"], password=info["password"]),
    }
    for auth, login in flows.items():
        assert login.auth == auth
        session = login.requests_session()
        token = login.login(session)
        me = session.get(f"{info['instance_url']}/services/data/v59.0/limits",
                         headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert me.status_code == 200, (auth, me.text)


def test_refused_logins_name_the_org_never_the_secret(org: tuple[dict, Path, Path], tmp_path: Path) -> None:
    info, _, _ = org
    wrong = _login(info, client_key=info["client_id"], client_secret="not-" + info["client_secret"])
    with pytest.raises(OrgLoginError) as got:
        wrong.login()
    assert "org 'org-l' (test): the client_credentials flow was refused: invalid_client" in str(got.value)
    assert info["client_secret"] not in str(got.value)
    with pytest.raises(OrgLoginError, match="SOAP login of .* refused: INVALID_LOGIN"):
        _login(info, username=info["username"], password="wrong").login()
    other_key, _ = _key_and_cert(tmp_path)  # a key whose certificate the org does not have
    with pytest.raises(OrgLoginError, match="the jwt flow was refused: invalid_grant"):
        _login(info, client_key=info["client_id"], username=info["username"], private_key_path=str(other_key)).login()


def test_scuba_orgs_info_is_read_as_it_is(org: tuple[dict, Path, Path], tmp_path: Path) -> None:
    info, _, _ = org
    path = tmp_path / "orgs_info.json"
    path.write_text(json.dumps({"my_org": {"client_key": info["client_id"], "client_secret": info["client_secret"],
                                           "username": info["username"], "instance": info["instance_url"]}}))
    (entry,) = load_orgs(path)
    assert entry.name == "my_org" and entry.kind == "salesforce" and entry.login is not None
    assert entry.login.auth == "client_credentials" and entry.instance_url == info["instance_url"]
    assert info["client_secret"] not in repr(entry) and info["client_secret"] in entry.secrets()
    path.write_text(json.dumps({"my_org": {"client_key": "k", "instance": "https://x.my.salesforce.com"}}))
    with pytest.raises(OrgsFileError, match=f"orgs file {path}, entry 'my_org': cannot tell how to log in"):
        load_orgs(path)


def test_environment_variables(org: tuple[dict, Path, Path]) -> None:
    info, _, _ = org
    env = {"PYTEST_CUA_ORG_INSTANCE_URL": info["instance_url"], "PYTEST_CUA_ORG_USERNAME": info["username"],
           "PYTEST_CUA_ORG_PASSWORD": info["password"], "PYTEST_CUA_ORG_CA_PATH": info["ca_path"]}
    login = OrgLogin.from_env(env)
    assert (login.name, login.auth) == ("env", "password") and login.login()
    with pytest.raises(OrgLoginError, match="--cua-org env: no PYTEST_CUA_ORG_\\* variable is set"):
        OrgLogin.from_env({})


def test_an_ended_session_is_renewed_and_the_limit_is_an_environment_error(org: tuple[dict, Path, Path]) -> None:
    info, _, _ = org
    login = _login(info, client_key=info["client_id"], client_secret=info["client_secret"])
    slept: list[float] = []
    client = OrgClient(login, waits=(0.01, 0.02), sleep=slept.append)
    try:
        first = client.token
        before = client.limits()["DailyApiRequests"]
        assert client.query("SELECT Id FROM Account LIMIT 1")
        time.sleep(3.5)  # the org's tokens live 3 s
        assert client.query("SELECT Id FROM Account LIMIT 1")  # answered 401 once, then sent again
        assert client.session.refreshes == 1 and client.token != first and client.sf.session_id == client.token
        after = client.limits()["DailyApiRequests"]
        assert before["Remaining"] - after["Remaining"] == 2  # the two queries: limits and refused calls do not count
        while client.limits()["DailyApiRequests"]["Remaining"] > 0:
            client.query("SELECT Id FROM Account LIMIT 1")
        with pytest.raises(OrgLimitExceeded, match="org 'org-l' .*REQUEST_LIMIT_EXCEEDED after 2 waits"):
            client.query("SELECT Id FROM Account LIMIT 1")
        assert slept == [0.01, 0.02]
    finally:
        client.close()


@pytest.mark.slow
def test_a_salesforce_cli_alias(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_cua.testing.sfcli import find_sf

    if find_sf() is None:
        pytest.skip("the Salesforce CLI is not installed (scripts/ensure_sf.sh)")
    with served_orgs(tmp_path / "served", ["org-sf"], ui=False, kind="salesforce") as (_, infos):
        _alias_round_trip(infos["org-sf"], tmp_path, monkeypatch)


def _alias_round_trip(info: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pytest_cua.testing.sfcli import SfCli

    cli = SfCli(tmp_path / "sf-home", ca_path=info["ca_path"])
    login = _login(info, client_key=info["client_id"], client_secret=info["client_secret"])
    cli.login_access_token(info["instance_url"], login.login(), alias="scuba-dev")
    for key, value in cli.environment().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PYTEST_CUA_SF", str(cli.sf))
    via_cli = OrgLogin.from_sf_alias("scuba-dev")
    assert (via_cli.name, via_cli.auth, via_cli.instance_url) == ("sf:scuba-dev", "sf", info["instance_url"])
    assert via_cli.username == info["username"] and via_cli.ca_path == info["ca_path"]
    client = OrgClient(via_cli)
    try:
        assert client.query("SELECT Id FROM Account LIMIT 1")
    finally:
        client.close()
    # the suite on that alias: --cua-org sf:scuba-dev, no orgs file
    reports = tmp_path / "reports"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--cua-reports", str(reports),
                           "suites/scuba/test_scuba.py::test_task[create_lead_1]", "--agent", "oracle",
                           "--cua-org", "sf:scuba-dev"], cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO), "PYTEST_CUA_ORG_LEASES": str(tmp_path / "l")})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    (task,) = json.loads((reports / "summary.json").read_text())["tasks"]
    assert task["environment"]["org"] == "sf-scuba-dev" and task["environment"]["org_auth"] == "sf"
    with pytest.raises(OrgLoginError, match="--cua-org sf:no-such-alias: sf org display gave no session .* No "
                                            "authorization information found for no-such-alias"):
        OrgLogin.from_sf_alias("no-such-alias")
