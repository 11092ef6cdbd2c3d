"""The Salesforce CLI (npm ``@salesforce/cli``, unchanged) against the embedded org over real HTTPS.

The commands SCUBA's evaluation and resetter run (``scuba/helpers/salesforce_commands.py``): ``sf org login
access-token --instance-url URL --no-prompt`` with ``SF_ACCESS_TOKEN``, ``sf org display --json``, ``sf data
query --json`` and ``--result-format csv --output-file``, ``sf data update record``, ``sf project retrieve start
--manifest`` and ``sf project deploy start --post-destructive-changes``. The last two need the Metadata API
(SOAP); they are skipped, with the reason, while the org answers ``/services/Soap/m/`` with 404.

The CLI is installed by ``scripts/ensure_sf.sh`` (``scripts/install.sh`` runs it). Each module's CLI has a
private state folder under the test's temporary directory. Also here: the column metadata of
``query?columns=true``, which ``sf data query`` names its CSV columns after, checked over plain HTTPS.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from pytest_cua.orgs.localorg.server import OrgCredentials, OrgServer
from pytest_cua.testing.sfcli import INSTALL_HINT, SfCli, find_sf

SOAP_VERSION = "62.0"


@pytest.fixture(scope="module")
def cli_org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OrgServer]:
    """An org of this module (the CLI's state is tied to its instance URL)."""
    server = OrgServer(tmp_path_factory.mktemp("sf-org"), extensions=[])
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def cli(cli_org: OrgServer, tmp_path_factory: pytest.TempPathFactory) -> SfCli:
    if find_sf() is None:
        pytest.fail(f"the Salesforce CLI is missing: {INSTALL_HINT}")
    creds = cli_org.org_credentials
    assert creds is not None
    return SfCli(tmp_path_factory.mktemp("sf-home"), creds.ca_path)


@pytest.fixture(scope="module")
def username(cli: SfCli, cli_org: OrgServer) -> str:
    """Logged in once per module, as SCUBA does: a client-credentials token handed to the CLI."""
    creds = cli_org.org_credentials
    assert creds is not None
    return cli.login_access_token(creds.instance_url, creds.login("client_credentials"), alias="embedded")


@pytest.fixture
def org(cli_org: OrgServer) -> Iterator[Any]:
    """The module's org store, rolled back after the test (and proven clean)."""
    snap = cli_org.org.snapshot()
    yield cli_org.org
    cli_org.org.restore(snap)
    assert cli_org.org.residue(snap) == []


# ------------------------------------------------------------------------------------------------ login, display

def test_login_stores_the_org_in_the_private_state_folder(cli: SfCli, cli_org: OrgServer, username: str) -> None:
    creds = cli_org.org_credentials
    assert creds is not None and username == creds.username
    auth_file = cli.home / ".sfdx" / f"{username}.json"
    auth = json.loads(auth_file.read_text(encoding="utf-8"))
    assert auth["orgId"] == cli_org.org.org_id and auth["instanceUrl"].rstrip("/") == creds.instance_url
    # the CLI's Organization query answered: edition and flags were stored (determineOrg)
    assert auth["orgEdition"] == "Developer Edition" and auth["isSandbox"] is False and auth["isScratch"] is False
    assert auth["isDevHub"] is False  # SELECT Id FROM ScratchOrgInfo: INVALID_TYPE here, as in a non-Dev-Hub org
    assert json.loads((cli.home / ".sfdx" / "alias.json").read_text())["orgs"]["embedded"] == username


def test_org_display_json(cli: SfCli, cli_org: OrgServer, username: str) -> None:
    result = cli.json("org", "display", "-o", username)["result"]
    creds = cli_org.org_credentials
    assert creds is not None
    assert result["id"] == cli_org.org.org_id and result["username"] == username
    assert result["connectedStatus"] == "Connected" and result["alias"] == "embedded"
    assert result["instanceUrl"].rstrip("/") == creds.instance_url
    assert float(result["apiVersion"]) >= 59


def test_a_bad_token_is_refused(cli_org: OrgServer, tmp_path: Path) -> None:
    creds = cli_org.org_credentials
    assert creds is not None
    fresh = SfCli(tmp_path / "home", creds.ca_path)
    forged = f"{cli_org.org.org_id[:15]}!AQ4AQForgedTokenOfTheRightShape"  # passes the CLI's format check
    done = fresh.run("org", "login", "access-token", "--instance-url", creds.instance_url, "--no-prompt", "--json",
                     env={"SF_ACCESS_TOKEN": forged}, check=False)
    assert done.returncode != 0
    assert "Session expired or invalid" in done.stdout + done.stderr
    assert not (tmp_path / "home" / ".sfdx").exists() or not list((tmp_path / "home" / ".sfdx").glob("*@*.json"))


# ------------------------------------------------------------------------------------------------ data

def test_data_query_json_matches_the_store(cli: SfCli, username: str, org: Any) -> None:
    soql = "SELECT Id, Name, Profile.Name, UserRole.Name FROM User WHERE IsActive = true ORDER BY Username"
    result = cli.json("data", "query", "--query", soql, "-o", username)["result"]
    expected = org.query(soql)["records"]
    assert result["totalSize"] == len(expected) > 1 and result["done"] is True
    assert [r["Id"] for r in result["records"]] == [r["Id"] for r in expected]
    assert result["records"][0]["Profile"]["Name"] == expected[0]["Profile"]["Name"]
    bad = cli.json("data", "query", "--query", "SELECT Nope FROM Account", "-o", username, check=False)
    assert bad["status"] == 1 and bad["name"] == "INVALID_FIELD" and "No such column 'Nope'" in bad["message"]


def test_data_query_csv_output_file_as_scuba_runs_it(cli: SfCli, username: str, org: Any, tmp_path: Path) -> None:
    soql = "SELECT Id, FirstName, LastName, IsActive, Profile.Name, UserRole.Name FROM User ORDER BY Username"
    # SCUBA's run_query: sf data query --query "..." --output-file NICK.csv --result-format csv -o USERNAME
    cli.run("data", "query", "--query", soql, "--output-file", "nick.csv", "--result-format", "csv", "-o", username,
            cwd=tmp_path)
    with open(tmp_path / "nick.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["Id", "FirstName", "LastName", "IsActive", "Profile.Name", "UserRole.Name"]
    expected = org.query(soql)["records"]
    assert [r["Id"] for r in rows] == [r["Id"] for r in expected]
    assert rows[0]["Profile.Name"] == expected[0]["Profile"]["Name"] and rows[0]["IsActive"] in ("true", "false")
    # no rows: the CLI writes an empty header line (pandas reads it as EmptyDataError, which SCUBA handles)
    cli.run("data", "query", "--query", "SELECT Id FROM Account WHERE Name = 'No Such Account'", "--output-file",
            "empty.csv", "--result-format", "csv", "-o", username, cwd=tmp_path)
    assert (tmp_path / "empty.csv").read_text(encoding="utf-8").strip() == ""


def test_data_update_record(cli: SfCli, username: str, org: Any) -> None:
    account = org.query("SELECT Id FROM Account ORDER BY Name LIMIT 1")["records"][0]["Id"]
    cli.run("data", "update", "record", "--sobject", "Account", "--record-id", account,
            "--values", "Name='Updated By The CLI' Phone=555-0199", "-o", username)
    rec = org.get("Account", account)
    assert rec["Name"] == "Updated By The CLI" and rec["Phone"] == "555-0199"
    bad = cli.json("data", "update", "record", "--sobject", "Account", "--record-id", account, "--values",
                   "NoSuchField__c=1", "-o", username, check=False)
    assert bad["status"] == 1 and "NoSuchField__c" in bad["message"]


# ------------------------------------------------------------------------------------------------ columns=true

def _columns(creds: OrgCredentials, token: str, soql: str) -> Any:
    r = creds.requests_session().get(f"{creds.instance_url}/services/data/v62.0/query",
                                     params={"q": soql, "columns": "true"},
                                     headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return r.status_code, r.json()


def test_query_columns_metadata(cli_org: OrgServer) -> None:
    creds = cli_org.org_credentials
    assert creds is not None
    token = cli_org.access_token()
    status, body = _columns(creds, token, "SELECT Id, name, Owner.Name, Account.Owner.Email FROM Contact")
    assert status == 200
    assert {k: body[k] for k in ("entityName", "groupBy", "idSelected", "keyPrefix")} == {
        "entityName": "Contact", "groupBy": False, "idSelected": True, "keyPrefix": "003"}
    cols = body["columnMetadata"]
    assert [c["columnName"] for c in cols] == ["Id", "Name", "Owner", "Account"]
    assert cols[0]["apexType"] == "Id" and cols[1]["apexType"] == "String" and cols[1]["textType"] is True
    assert cols[2]["foreignKeyName"] == "OwnerId" and [j["columnName"] for j in cols[2]["joinColumns"]] == ["Name"]
    owner = cols[3]["joinColumns"][0]
    assert owner["columnName"] == "Owner" and owner["joinColumns"][0]["columnName"] == "Email"
    assert set(cols[0]) == {"aggregate", "apexType", "booleanType", "columnName", "custom", "displayName",
                            "foreignKeyName", "insertable", "joinColumns", "numberType", "textType", "updatable"}
    status, body = _columns(creds, token, "SELECT Name, (SELECT LastName FROM Contacts) FROM Account")
    sub = body["columnMetadata"][1]
    assert sub["aggregate"] is True and sub["columnName"] == "Contacts" and sub["joinColumns"][0]["columnName"] == "LastName"
    status, body = _columns(creds, token, "SELECT StageName, count(Id), SUM(Amount) total FROM Opportunity GROUP BY StageName")
    assert body["groupBy"] is True
    assert [(c["columnName"], c["displayName"], c["aggregate"]) for c in body["columnMetadata"]] == [
        ("StageName", "StageName", False), ("expr0", "count(Id)", True), ("total", "SUM(Amount)", True)]
    status, body = _columns(creds, token, "SELECT Nope FROM Account")
    assert status == 400 and body[0]["errorCode"] == "INVALID_FIELD"


# ------------------------------------------------------------------------------------------------ Metadata API

def _metadata_api_missing(cli_org: OrgServer) -> bool:
    """True while the org answers the Metadata API's endpoint with 404 (not built yet)."""
    creds = cli_org.org_credentials
    assert creds is not None
    token = cli_org.access_token()
    envelope = ('<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/'
                'soap/envelope/" xmlns="http://soap.sforce.com/2006/04/metadata"><soapenv:Header><SessionHeader>'
                f'<sessionId>{token}</sessionId></SessionHeader></soapenv:Header><soapenv:Body><describeMetadata>'
                f'<asOfVersion>{SOAP_VERSION}</asOfVersion></describeMetadata></soapenv:Body></soapenv:Envelope>')
    r = creds.requests_session().post(f"{creds.instance_url}/services/Soap/m/{SOAP_VERSION}", data=envelope,
                                      headers={"Content-Type": "text/xml; charset=utf-8", "SOAPAction": '""',
                                               "Authorization": f"Bearer {token}"}, timeout=30)
    return r.status_code == 404


@pytest.fixture
def metadata_api(cli_org: OrgServer) -> None:
    if _metadata_api_missing(cli_org):
        pytest.skip("the org answers /services/Soap/m/ with 404: the Metadata API (SOAP) is not built yet")


PACKAGE = """<?xml version="1.0" encoding="UTF-8"?>
<Package xmlns="http://soap.sforce.com/2006/04/metadata">
{types}    <version>63.0</version>
</Package>
"""


def _package(types: dict[str, list[str]]) -> str:
    body = "".join(f"    <types>\n{''.join(f'        <members>{m}</members>{chr(10)}' for m in members)}"
                   f"        <name>{name}</name>\n    </types>\n" for name, members in types.items())
    return PACKAGE.format(types=body)


def _project(cli: SfCli, where: Path) -> Path:
    """A project as SCUBA's create_project_if_not_exists makes one (``sf project generate``) plus manifest/."""
    cli.run("project", "generate", "--name", "proj", "--output-dir", str(where))
    (where / "proj" / "manifest").mkdir()
    return where / "proj"


def test_project_retrieve_start_with_a_manifest(metadata_api: None, cli: SfCli, username: str, org: Any,
                                                tmp_path: Path) -> None:
    project = _project(cli, tmp_path)
    (project / "manifest" / "package.xml").write_text(_package({"PermissionSet": ["*"]}), encoding="utf-8")
    result = cli.json("project", "retrieve", "start", "--manifest", "manifest/package.xml", "-o", username,
                      cwd=project)["result"]
    assert result["status"] == "Succeeded", result
    folder = project / "force-app" / "main" / "default" / "permissionsets"
    files = sorted(folder.glob("*.permissionset-meta.xml"))
    labels = {r["Label"] for r in org.query("SELECT Label FROM PermissionSet WHERE IsOwnedByProfile = false")["records"]}
    assert files, f"nothing retrieved into {folder}"
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert "<PermissionSet " in text and any(f"<label>{label}</label>" in text for label in labels), path.name


def test_project_deploy_start_with_post_destructive_changes(metadata_api: None, cli: SfCli, username: str, org: Any,
                                                            tmp_path: Path) -> None:
    project = _project(cli, tmp_path)
    folder = project / "force-app" / "main" / "default" / "permissionsets"
    folder.mkdir(parents=True, exist_ok=True)  # sf project generate may make it
    (folder / "Cli_Parity_Set.permissionset-meta.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<PermissionSet xmlns="http://soap.sforce.com/2006/04/metadata">\n'
        "    <hasActivationRequired>false</hasActivationRequired>\n    <label>Cli Parity Set</label>\n"
        "</PermissionSet>\n", encoding="utf-8")
    manifest = project / "manifest"
    (manifest / "package.xml").write_text(_package({"PermissionSet": ["Cli_Parity_Set"]}), encoding="utf-8")
    result = cli.json("project", "deploy", "start", "--manifest", "manifest/package.xml", "-o", username,
                      cwd=project)["result"]
    assert result["status"] == "Succeeded", result
    assert org.query("SELECT Id FROM PermissionSet WHERE Name = 'Cli_Parity_Set'")["totalSize"] == 1
    # SCUBA's deploy(): an empty package plus destructive changes applied after it, errors ignored
    (manifest / "package.xml").write_text(_package({}), encoding="utf-8")
    (manifest / "destructiveChanges.xml").write_text(_package({"PermissionSet": ["Cli_Parity_Set"]}), encoding="utf-8")
    (folder / "Cli_Parity_Set.permissionset-meta.xml").unlink()
    result = cli.json("project", "deploy", "start", "--manifest", "manifest/package.xml", "--post-destructive-changes",
                      "manifest/destructiveChanges.xml", "--ignore-errors", "-o", username, cwd=project)["result"]
    assert result["status"] == "Succeeded", result
    assert org.query("SELECT Id FROM PermissionSet WHERE Name = 'Cli_Parity_Set'")["totalSize"] == 0
