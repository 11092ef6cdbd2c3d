"""The rollback of an org over its standard APIs alone (``pytest_cua.orgs.realorg``), against ``pytest-cua org serve``
in a separate process (an entry of kind ``salesforce``), reached over HTTPS and SOAP only:

- the first lease takes the baseline and keeps it (mode 0600); a later lease finds it and does not reset;
- records created (purged from the recycle bin too), changed and deleted, and metadata created, changed and
  deleted, are all put back, and the residue check says so;
- a change outside the task's scope is reported, naming the record and the scope;
- a holder killed mid-task, or one that gave the org back dirty, leaves an org the next lease resets.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from pytest_cua.orgs import mdapi
from pytest_cua.orgs.pool import OrgEntry, lease_one, load_orgs
from pytest_cua.orgs.realorg.handle import ApiOrg, baseline_path
from tests.localorg.served import served_orgs

REPO = Path(__file__).resolve().parents[2]
NS = mdapi.MD_NS


@pytest.fixture(scope="module")
def orgs_file(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with served_orgs(tmp_path_factory.mktemp("api"), ["org-r"], ui=False, kind="salesforce") as (path, _):
        yield path


@pytest.fixture
def leases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "leases"
    monkeypatch.setenv("PYTEST_CUA_ORG_LEASES", str(folder))
    return folder


def _entry(orgs_file: Path) -> OrgEntry:
    (entry,) = load_orgs(orgs_file)
    return entry


def _started(orgs_file: Path, worker: str = "gw0") -> ApiOrg:
    handle = ApiOrg(lease_one([_entry(orgs_file)], worker_id=worker, run_id="test", wait_s=5))
    handle.start()
    handle.snapshot()  # as the environment pool does after the suite's provisioning
    return handle


def test_first_lease_takes_the_baseline_a_later_one_finds_it(orgs_file: Path, leases: Path) -> None:
    first = _started(orgs_file)
    path = baseline_path(first.lease)
    assert first.provisioned == "taken" and first.reset_note is None
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    objects = first.baseline.records.objects if first.baseline else {}
    assert {"Account", "Lead", "Contact", "ListView", "User"} <= set(objects)
    first.close()
    again = _started(orgs_file)
    try:
        assert again.provisioned == "found" and again.reset_note is None
        assert again.describe()["org_baseline"] == "found"
    finally:
        again.close()


def test_records_and_metadata_are_put_back(orgs_file: Path, leases: Path) -> None:
    handle = _started(orgs_file)
    try:
        sf = handle.client.sf  # type: ignore[union-attr]
        snap = handle.snapshot()
        lead = sf.Lead.create({"LastName": "Rollback", "Company": "Residue Inc"})["id"]
        account = sf.query("SELECT Id, Name FROM Account ORDER BY Name LIMIT 1")["records"][0]
        sf.Account.update(account["Id"], {"Name": "Renamed by the task", "Description": "changed"})
        contact = sf.query("SELECT Id FROM Contact ORDER BY LastName LIMIT 1")["records"][0]["Id"]
        sf.Contact.delete(contact)
        gvs = (f'<?xml version="1.0" encoding="UTF-8"?><GlobalValueSet xmlns="{NS}"><masterLabel>Tiers</masterLabel>'
               f"<sorted>false</sorted><customValue><fullName>Gold</fullName><default>false</default><label>Gold"
               f"</label></customValue></GlobalValueSet>")
        field = (f'<?xml version="1.0" encoding="UTF-8"?><CustomObject xmlns="{NS}"><fields><fullName>Tier__c'
                 f"</fullName><label>Tier</label><type>Text</type><length>20</length></fields></CustomObject>")
        mdapi.deploy(sf, {"globalValueSets/Tiers.globalValueSet": gvs, "objects/Lead.object": field},
                     {"GlobalValueSet": ["Tiers"], "CustomField": ["Lead.Tier__c"]})
        handle.restore(snap, None)
        assert handle.residue(snap) == []
        assert sf.Account.get(account["Id"])["Name"] == account["Name"]
        assert sf.Contact.get(contact)["Id"][:15] == contact[:15]  # undeleted, same id
        assert sf.query_all(f"SELECT Id FROM Lead WHERE Id = '{lead}'", include_deleted=True)["totalSize"] == 0
        listed = mdapi.list_members(sf, ["GlobalValueSet", "CustomField"])
        assert "Tiers" not in listed["GlobalValueSet"] and "Lead.Tier__c" not in listed["CustomField"]
    finally:
        handle.close()


def test_a_change_outside_the_scope_is_reported(orgs_file: Path, leases: Path) -> None:
    handle = _started(orgs_file)
    try:
        sf = handle.client.sf  # type: ignore[union-attr]
        snap = handle.snapshot()
        sf.Lead.create({"LastName": "In scope", "Company": "Scope Ltd"})
        account = sf.query("SELECT Id, Name FROM Account ORDER BY Name LIMIT 1")["records"][0]
        sf.Account.update(account["Id"], {"Description": "touched outside the scope"})
        handle.restore(snap, ["Lead"])
        left = handle.residue(snap)
        assert left == [f"Account {account['Id']} {account['Name']!r} changed outside the task's scope (Lead): "
                        f"Description: None -> 'touched outside the scope'"]
        handle.close(clean=True)  # a residue keeps the lease dirty whatever the caller says
        again = _started(orgs_file)
        assert again.reset_note is not None and "gave it back after a failed rollback" in again.reset_note
        assert again.client.sf.Account.get(account["Id"])["Description"] is None  # type: ignore[union-attr]
        again.close()
    finally:
        handle.close()


KILLED = """
import os, sys
from pytest_cua.orgs.pool import lease_one, load_orgs
from pytest_cua.orgs.realorg.handle import ApiOrg
handle = ApiOrg(lease_one(load_orgs(sys.argv[1]), worker_id="gw7", run_id="killed", wait_s=5))
handle.start()
handle.snapshot()
handle.client.sf.Lead.create({"LastName": "Left by a killed worker", "Company": "Gone"})
print("changed", flush=True)
os.kill(os.getpid(), 9)
"""


def test_a_killed_holder_leaves_an_org_the_next_lease_resets(orgs_file: Path, leases: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLED, str(orgs_file)], capture_output=True, text=True, timeout=120,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.returncode == -9 and "changed" in proc.stdout, proc.stderr[-2000:]
    handle = _started(orgs_file)
    try:
        assert handle.reset_note is not None
        assert "worker gw7" in handle.reset_note and "is gone without giving it back" in handle.reset_note
        sf = handle.client.sf  # type: ignore[union-attr]
        assert sf.query("SELECT Id FROM Lead WHERE LastName = 'Left by a killed worker'")["totalSize"] == 0
        assert json.loads(handle.lease.path.read_text())["state"] == "held"
    finally:
        handle.close()


def test_batched_queries_follow_answers_longer_than_a_page(orgs_file: Path, leases: Path) -> None:
    """A composite batch answers a query with its first page (2,000 rows) only: the client then runs that
    query on its own and follows nextRecordsUrl, so the baseline holds every row."""
    from pytest_cua.orgs.realorg.client import OrgClient

    client = OrgClient(_entry(orgs_file).login)  # type: ignore[arg-type]
    made: list[str] = []
    try:
        for start in range(0, 2050, 200):
            rows = [{"attributes": {"type": "Lead"}, "LastName": f"Page {i}", "Company": "Paging"}
                    for i in range(start, min(start + 200, 2050))]
            made += [r["id"] for r in client._json("POST", "/composite/sobjects", "create leads",
                                                   json={"allOrNone": True, "records": rows})]
        (paged, short) = client.batch_queries(["SELECT Id FROM Lead WHERE Company = 'Paging'",
                                               "SELECT Id FROM Lead WHERE Company = 'Paging' LIMIT 3"])
        assert isinstance(paged, list) and len(paged) == 2050 and isinstance(short, list) and len(short) == 3
    finally:
        assert client.delete(made) == []
        client.soap_ids("emptyRecycleBin", made)
        client.close()
