"""The embedded org's recycle bin, in the store and over the wire: a deleted record leaves ``query`` for
``queryAll`` (IsDeleted true), cannot be changed again (ENTITY_IS_DELETED), comes back with ``undelete`` together
with the children its delete took and the lookups it cleared, and goes for good with ``emptyRecycleBin``;
snapshots hold the recycle bin, and the residue check names what only the recycle bin holds."""

from __future__ import annotations

import pytest

from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.seed import seeded_org
from pytest_cua.orgs.localorg.soap import ids_request, parse_convert_response
from pytest_cua.orgs.localorg.store import Org


@pytest.fixture
def org() -> Org:
    return seeded_org(None)


def test_delete_undelete_and_purge_in_the_store(org: Org) -> None:
    snap = org.snapshot()
    account = org.create("Account", {"Name": "Bin Account"})
    child = org.create("Contact", {"LastName": "Looked Up", "AccountId": account})
    org.delete("Account", account)
    assert org.query("SELECT Id FROM Account WHERE Name = 'Bin Account'")["totalSize"] == 0
    deleted = org.query("SELECT Id, IsDeleted FROM Account WHERE Name = 'Bin Account'", deleted=True)["records"]
    assert [(r["Id"], r["IsDeleted"]) for r in deleted] == [(account, True)]
    assert org.get("Contact", child)["AccountId"] is None  # type: ignore[index]  # the lookup was cleared
    with pytest.raises(OrgError) as info:
        org.update("Account", account, {"Name": "again"})
    assert info.value.code == "ENTITY_IS_DELETED" and info.value.status == 404
    assert org.undelete(account) == account
    assert org.get("Account", account)["IsDeleted"] is False  # type: ignore[index]
    assert org.get("Contact", child)["AccountId"] == account  # type: ignore[index]  # and put back
    org.delete("Account", account)
    assert org.purge(account) == account
    assert org.query("SELECT Id FROM Account WHERE Name = 'Bin Account'", deleted=True)["totalSize"] == 0
    with pytest.raises(OrgError, match="UNDELETE_FAILED"):
        org.undelete(account)
    left = org.residue(snap)  # the purged account left nothing; its contact is still there
    assert not any("Bin Account" in line for line in left) and any("'Looked Up' created" in line for line in left)
    org.restore(snap)
    assert org.residue(snap) == []


def test_a_record_only_the_recycle_bin_holds_is_residue(org: Org) -> None:
    snap = org.snapshot()
    lead = org.create("Lead", {"LastName": "Binned", "Company": "Nowhere"})
    org.delete("Lead", lead)
    assert org.residue(snap) == [f"Lead {lead} 'Binned' created (in the recycle bin)"]
    org.restore(snap)
    assert org.residue(snap) == [] and org.query("SELECT Id FROM Lead WHERE Id = '" + lead + "'",
                                                 deleted=True)["totalSize"] == 0


def test_undelete_and_empty_recycle_bin_requests_are_soap_calls() -> None:
    body = ids_request("SESSION", "undelete", ["001A", "001B"])
    assert "<urn:undelete><urn:ids>001A</urn:ids><urn:ids>001B</urn:ids></urn:undelete>" in body
    assert "<urn:sessionId>SESSION</urn:sessionId>" in body
    with pytest.raises(ValueError, match="'merge' is not undelete or emptyRecycleBin"):
        ids_request("S", "merge", [])
    answer = ('<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
              'xmlns="urn:partner.soap.sforce.com"><soapenv:Body><undeleteResponse><result><id>001A</id><success>true'
              '</success></result><result><errors><message>gone</message><statusCode>UNDELETE_FAILED</statusCode>'
              '</errors><id>001B</id><success>false</success></result></undeleteResponse></soapenv:Body>'
              '</soapenv:Envelope>')
    assert parse_convert_response(answer) == [
        {"id": "001A", "success": True},
        {"errors": [{"message": "gone", "statusCode": "UNDELETE_FAILED"}], "id": "001B", "success": False}]
