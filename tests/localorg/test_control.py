"""The served org's control resource (snapshot, restore within a scope, residue, baseline) and the SOAP
``convertLead``, over real HTTPS against the session's org server."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_cua.orgs.localorg.control import BASELINE, ControlClient, ControlError
from pytest_cua.orgs.localorg.server import OrgCredentials, OrgServer
from pytest_cua.orgs.localorg.soap import convert_lead_request, parse_convert_response

V = "59.0"


def _client(org_server: OrgServer, creds: OrgCredentials) -> ControlClient:
    session = creds.requests_session()
    return ControlClient(creds.instance_url, session, lambda: creds.login("client_credentials", session=session),
                         version=V, name="test-org")


def test_snapshot_restore_within_a_scope_and_residue(org_server: OrgServer, creds: OrgCredentials, sf: Any) -> None:
    control = _client(org_server, creds)
    sid = control.snapshot()
    assert sid in control.info()["snapshots"]
    lead = sf.Lead.create({"LastName": "Control Probe", "Company": "Probe Ltd"})["id"]
    account = sf.Account.create({"Name": "Control Probe Ltd"})["id"]
    control.restore(sid, ["Account"])  # only the accounts
    left = control.residue(sid)
    assert len(left) == 1 and left[0].startswith(f"Lead {lead}") and "created" in left[0]
    assert not any(account in line for line in left)
    control.restore(sid)  # the whole org
    assert control.residue(sid) == []
    control.drop(sid)
    with pytest.raises(ControlError) as info:
        control.residue(sid)
    assert info.value.status == 404 and info.value.code == "NOT_FOUND"


def test_baseline_is_the_org_at_serve_time(org_server: OrgServer, creds: OrgCredentials, sf: Any) -> None:
    control = _client(org_server, creds)
    sf.Contact.create({"LastName": "Left Behind"})
    assert any("Left Behind" in line for line in control.residue(BASELINE))
    control.reset()
    assert control.residue(BASELINE) == []
    assert sf.query("SELECT COUNT() FROM Contact WHERE LastName = 'Left Behind'")["totalSize"] == 0


def test_bad_scope_and_baseline_delete_are_salesforce_errors(org_server: OrgServer, creds: OrgCredentials) -> None:
    control = _client(org_server, creds)
    sid = control.snapshot()
    with pytest.raises(ControlError) as info:
        control.restore(sid, ["NoSuchThing__c"])
    assert info.value.status == 400 and info.value.code == "INVALID_TYPE"
    with pytest.raises(ControlError) as info:
        control._call("POST", f"/snapshots/{sid}/restore", {"scope": "Lead"})
    assert info.value.code == "JSON_PARSER_ERROR"
    with pytest.raises(ControlError) as info:
        control.drop(BASELINE)
    assert info.value.code == "INVALID_OPERATION"


def test_control_needs_an_admin_token(org_server: OrgServer, creds: OrgCredentials) -> None:
    session = creds.requests_session()
    url = f"{creds.instance_url}/services/data/v{V}/cua/snapshots"
    r = session.post(url, timeout=30)
    assert r.status_code == 401 and r.json()[0]["errorCode"] == "INVALID_SESSION_ID"
    r = session.post(url, headers={"Authorization": "Bearer 00Dnot!a-token"}, timeout=30)
    assert r.status_code == 401
    user = org_server.org.find("User", Username="mirela.vance@harborlight.test")[0]  # a Standard User
    token = org_server.access_token(user["Id"])
    r = session.post(url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert r.status_code == 403
    assert r.json() == [{"message": r.json()[0]["message"], "errorCode": "INSUFFICIENT_ACCESS", "fields": []}]
    assert "System Administrator" in r.json()[0]["message"]


def test_soap_convert_lead(org_server: OrgServer, creds: OrgCredentials, sf: Any) -> None:
    session = creds.requests_session()
    token = creds.login("client_credentials", session=session)
    lead = sf.Lead.create({"LastName": "Soap", "FirstName": "Sal", "Company": "Soap Works"})["id"]
    url = f"{creds.instance_url}/services/Soap/u/{V}"
    body = convert_lead_request(token, [{"leadId": lead, "opportunityName": "Soap Deal",
                                         "convertedStatus": "Closed - Converted"}])
    r = session.post(url, data=body, headers={"Content-Type": "text/xml", "SOAPAction": '""'}, timeout=30)
    assert r.status_code == 200, r.text
    [result] = parse_convert_response(r.text)
    assert result["success"] is True and result["leadId"] == lead
    rec = sf.Lead.get(lead)
    assert rec["IsConverted"] is True and rec["ConvertedAccountId"] == result["accountId"]
    assert sf.Opportunity.get(result["opportunityId"])["Name"] == "Soap Deal"
    # again: the lead is converted already (a result with success false, as Salesforce answers)
    r = session.post(url, data=body, headers={"Content-Type": "text/xml"}, timeout=30)
    [again] = parse_convert_response(r.text)
    assert again["success"] is False and again["errors"][0]["statusCode"] == "CANNOT_UPDATE_CONVERTED_LEAD"
    # a bad session is a SOAP fault (HTTP 500)
    r = session.post(url, data=convert_lead_request("nope", [{"leadId": lead}]), timeout=30)
    assert r.status_code == 500 and "INVALID_SESSION_ID" in r.text
    # no entity declarations
    r = session.post(url, data='<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x/>', timeout=30)
    assert r.status_code == 500 and "INVALID_XML" in r.text
