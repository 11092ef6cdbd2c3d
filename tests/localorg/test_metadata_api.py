"""The Metadata API of the embedded org over HTTPS: simple-salesforce's metadata client (zeep over the
WSDL for describe/list/read/CRUD, its own envelopes for deploy and retrieve) and hand-built envelopes shaped
like jsforce's (what the sf CLI sends)."""

from __future__ import annotations

import base64
import json
import io
import zipfile
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from pytest_cua.orgs.localorg.metadata.packages import build_zip
from pytest_cua.orgs.localorg.server import OrgCredentials, OrgServer

V = "59.0"
MD = "http://soap.sforce.com/2006/04/metadata"
NS = {"s": "http://schemas.xmlsoap.org/soap/envelope/", "m": MD}


def _doc(root: str, inner: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?><{root} xmlns="{MD}">{inner}</{root}>'


def _package(types: dict[str, list[str]]) -> str:
    parts = "".join("<types>" + "".join(f"<members>{m}</members>" for m in members) + f"<name>{name}</name></types>"
                    for name, members in types.items())
    return _doc("Package", parts + f"<version>{V}</version>")


REGIONS = _doc("GlobalValueSet", "<customValue><fullName>North</fullName><default>false</default><label>North</label>"
                                 "</customValue><customValue><fullName>South</fullName><default>true</default>"
                                 "<label>South</label></customValue><masterLabel>Regions</masterLabel>"
                                 "<sorted>false</sorted>")
GADGET = _doc("CustomObject", "<label>Gadget</label><pluralLabel>Gadgets</pluralLabel><nameField><label>Gadget Name"
                              "</label><type>Text</type></nameField><deploymentStatus>Deployed</deploymentStatus>"
                              "<sharingModel>ReadWrite</sharingModel><description>Things we sell</description>"
                              "<fields><fullName>Region__c</fullName><label>Region</label><type>Picklist</type>"
                              "<valueSet><valueSetName>Regions</valueSetName></valueSet></fields>"
                              "<fields><fullName>Account__c</fullName><label>Account</label><type>Lookup</type>"
                              "<referenceTo>Account</referenceTo><relationshipName>Gadgets</relationshipName></fields>"
                              "<fields><fullName>Weight__c</fullName><label>Weight</label><type>Number</type>"
                              "<precision>10</precision><scale>2</scale></fields>"
                              "<listViews><fullName>All</fullName><filterScope>Everything</filterScope>"
                              "<label>All</label><columns>NAME</columns></listViews>")


class Soap:
    """A Metadata API client made of hand-built envelopes (the shapes jsforce sends)."""

    def __init__(self, creds: OrgCredentials, token: str) -> None:
        self.session = creds.requests_session()
        self.url = f"{creds.instance_url}/services/Soap/m/{V}"
        self.token = token

    def post(self, operation: str, inner: str, *, token: str | None = None, raw: str | None = None) -> Any:
        sid = self.token if token is None else token
        body = raw if raw is not None else (
            f'<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="{NS["s"]}" '
            f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Header><SessionHeader xmlns="{MD}">'
            f"<sessionId>{sid}</sessionId></SessionHeader></soapenv:Header><soapenv:Body xmlns=\"{MD}\">"
            f"<{operation}>{inner}</{operation}></soapenv:Body></soapenv:Envelope>")
        return self.session.post(self.url, data=body.encode("utf-8"),
                                 headers={"Content-Type": "text/xml; charset=utf-8", "SOAPAction": '""'}, timeout=30)

    def result(self, operation: str, inner: str) -> ET.Element:
        r = self.post(operation, inner)
        assert r.status_code == 200, r.text
        found = ET.fromstring(r.content).find(f"s:Body/m:{operation}Response/m:result", NS)
        assert found is not None, r.text
        return found

    def deploy(self, files: dict[str, str], **options: bool) -> ET.Element:
        zipped = base64.b64encode(build_zip(files)).decode()
        opts = "".join(f"<{k}>{str(v).lower()}</{k}>" for k, v in {"rollbackOnError": True, "singlePackage": True,
                                                                      **options}.items())
        started = self.result("deploy", f"<ZipFile>{zipped}</ZipFile><DeployOptions>{opts}</DeployOptions>")
        job = started.findtext("m:id", namespaces=NS) or ""
        assert job.startswith("0Af") and started.findtext("m:done", namespaces=NS) == "false"
        return self.result("checkDeployStatus", f"<asyncProcessId>{job}</asyncProcessId><includeDetails>true"
                                                "</includeDetails>")


def fault_of(response: Any) -> tuple[str, str]:
    assert response.status_code == 500, response.text
    assert response.headers["Content-Type"].startswith("text/xml"), response.headers
    fault = ET.fromstring(response.content).find("s:Body/s:Fault", NS)
    assert fault is not None, response.text
    return fault.findtext("faultcode") or "", fault.findtext("faultstring") or ""


@pytest.fixture
def soap(creds: OrgCredentials) -> Soap:
    session = creds.requests_session()
    return Soap(creds, creds.login("client_credentials", session=session))


@pytest.fixture(scope="module")
def _mdapi(org_server: OrgServer) -> Any:
    """simple-salesforce's SfdcMetadataApi, made once (zeep reads the whole metadata WSDL); its zeep transport
    gets a session that trusts the org's CA."""
    from simple_salesforce import Salesforce

    creds = org_server.org_credentials
    assert creds is not None
    sf = Salesforce(instance_url=creds.instance_url, session_id=org_server.access_token(ttl=3600),
                    session=creds.requests_session(), version=V)
    md = sf.mdapi
    md._client.transport.session = creds.requests_session()
    return md


@pytest.fixture
def mdapi(_mdapi: Any, sf: Any, creds: OrgCredentials) -> Any:
    """The metadata client; ``sf.mdapi`` (used by ``sf.deploy``) is the same one. The org rolls back after."""
    sf._mdapi = _mdapi
    return _mdapi


def test_describe_list_read_and_crud_with_simple_salesforce(mdapi: Any) -> None:
    described = {o.xmlName: o for o in mdapi.describe_metadata().metadataObjects}
    assert described["CustomObject"].directoryName == "objects" and "CustomField" in \
        described["CustomObject"].childXmlNames
    assert described["Queue"].suffix == "queue" and described["Report"].inFolder is True
    queues = {p.fullName: p for p in mdapi.list_metadata([mdapi.ListMetadataQuery(type="Queue")])}
    assert {"Billing_Desk", "Tier2_Support", "Web_Leads"} <= set(queues)
    assert queues["Billing_Desk"].fileName == "queues/Billing_Desk.queue" and queues["Billing_Desk"].id.startswith("00G")
    queue = mdapi.Queue.read("Billing_Desk")
    assert queue.name == "Billing Desk" and [s.sobjectType for s in queue.queueSobject] == ["Case"]
    obj = mdapi.CustomObject.read("VoiceCallTranscript__c")
    assert obj.label == "Voice Call Transcript" and "Body__c" in [f.fullName for f in obj.fields]
    assert mdapi.SecuritySettings.read("Security").passwordPolicies.minimumPasswordLength == "8"

    colors = mdapi.GlobalValueSet(fullName="Colors", masterLabel="Colors", sorted=False,
                                  customValue=[mdapi.CustomValue(fullName="Red", default=True, label="Red")])
    mdapi.GlobalValueSet.create(colors)
    assert [v.fullName for v in mdapi.GlobalValueSet.read("Colors").customValue] == ["Red"]
    listed = [p.fullName for p in mdapi.list_metadata([mdapi.ListMetadataQuery(type="GlobalValueSet")])]
    assert listed == ["Colors"]
    with pytest.raises(Exception, match="DUPLICATE_DEVELOPER_NAME"):
        mdapi.GlobalValueSet.create(colors)  # simple-salesforce raises on a result with success false
    mdapi.GlobalValueSet.delete("Colors")
    assert mdapi.list_metadata([mdapi.ListMetadataQuery(type="GlobalValueSet")]) == []


def test_simple_salesforce_deploy_and_zeep_faults(sf: Any, mdapi: Any) -> None:
    from zeep.exceptions import Fault

    zipped = io.BytesIO(build_zip({"package.xml": _package({"GlobalValueSet": ["Regions"]}),
                                   "globalValueSets/Regions.globalValueSet": REGIONS}))
    started = sf.deploy(zipped, sandbox=False)
    assert started["asyncId"].startswith("0Af") and started["state"] == "Queued"
    status = sf.checkDeployStatus(started["asyncId"])
    assert status["state"] == "Succeeded" and status["deployment_detail"]["deployed_count"] == "1"
    assert [v.fullName for v in mdapi.GlobalValueSet.read("Regions").customValue] == ["North", "South"]
    with pytest.raises(Fault) as info:
        mdapi.list_metadata([mdapi.ListMetadataQuery(type="Nope")])
    assert info.value.code == "sf:INVALID_TYPE"


def _zip_files(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n).decode("utf-8") for n in zf.namelist()}


def test_retrieve_a_package_in_the_salesforce_layout(sf: Any, mdapi: Any, soap: Soap) -> None:
    job, state = mdapi.retrieve("ignored", unpackaged={"CustomObject": ["Account"], "ListView": ["Case.My_Open_Cases"],
                                                       "Queue": ["*"], "PermissionSet": ["Report_Builder"],
                                                       "Profile": ["Admin"], "NoSuchType": ["X"]})
    assert job and job.startswith("09S") and state == "Queued"
    status, error, _, zipped = mdapi.retrieve_zip(job)  # (its messages are looked for under details: not WSDL)
    assert status == "Succeeded" and error is None
    raw = soap.result("checkRetrieveStatus", f"<asyncProcessId>{job}</asyncProcessId><includeZip>false</includeZip>")
    assert [(m.findtext("m:fileName", namespaces=NS), m.findtext("m:problem", namespaces=NS))
            for m in raw.findall("m:messages", NS)] == [("package.xml", "Entity type: 'NoSuchType' is unknown")]
    assert raw.find("m:zipFile", NS) is None
    files = _zip_files(zipped)
    assert {"package.xml", "objects/Account.object", "objects/Case.object", "queues/Billing_Desk.queue", "queues/Web_Leads.queue",
            "permissionsets/Report_Builder.permissionset", "profiles/Admin.profile"} <= set(files)
    account = ET.fromstring(files["objects/Account.object"])
    views = [v.findtext("m:fullName", namespaces=NS) for v in account.findall("m:listViews", NS)]
    assert views == ["AllAccounts"]
    assert account.findtext("m:sharingModel", namespaces=NS) == "ReadWrite"
    assert ET.fromstring(files["queues/Billing_Desk.queue"]).findtext("m:name", namespaces=NS) == "Billing Desk"

    # jsforce / the sf CLI: <request> without singlePackage -> the files under unpackaged/
    started = soap.result("retrieve", f"<request><apiVersion>{V}</apiVersion><unpackaged><types><members>"
                                      "My_Open_Cases</members><name>ListView</name></types><types><members>Case"
                                      "</members><name>CustomObject</name></types><version>59.0</version></unpackaged>"
                                      "</request>")
    rid = started.findtext("m:id", namespaces=NS) or ""
    result = soap.result("checkRetrieveStatus", f"<asyncProcessId>{rid}</asyncProcessId><includeZip>true</includeZip>")
    assert result.findtext("m:status", namespaces=NS) == "Succeeded" and result.findtext("m:done", namespaces=NS) == "true"
    names = {p.findtext("m:fileName", namespaces=NS) for p in result.findall("m:fileProperties", NS)}
    assert {"unpackaged/objects/Case.object", "unpackaged/package.xml"} <= names
    files = _zip_files(base64.b64decode(result.findtext("m:zipFile", namespaces=NS) or ""))
    case = ET.fromstring(files["unpackaged/objects/Case.object"])
    views = {v.findtext("m:fullName", namespaces=NS): v for v in case.findall("m:listViews", NS)}
    view = views.get("My_Open_Cases")
    assert view is not None and view.findtext("m:filterScope", namespaces=NS) == "Mine", sorted(views)
    assert [(f.findtext("m:field", namespaces=NS), f.findtext("m:operation", namespaces=NS))
            for f in view.findall("m:filters", NS)] == [("CASES.CLOSED", "equals")]  # Salesforce's column names
    assert [c.text for c in view.findall("m:columns", NS)] == ["CASES.CASE_NUMBER", "CASES.SUBJECT", "CASES.STATUS",
                                                              "CASES.PRIORITY"]


def test_deploy_with_destructive_changes_then_restore(org_server: OrgServer, sf: Any, mdapi: Any, soap: Soap) -> None:
    org = org_server.org
    snap = org.snapshot()
    files = {"package.xml": _package({"GlobalValueSet": ["Regions"], "CustomObject": ["Gadget__c"]}),
             "globalValueSets/Regions.globalValueSet": REGIONS, "objects/Gadget__c.object": GADGET,
             "destructiveChangesPost.xml": _package({"Queue": ["Web_Leads"]})}
    result = soap.deploy(files)
    assert result.findtext("m:status", namespaces=NS) == "Succeeded", ET.tostring(result)
    assert result.findtext("m:success", namespaces=NS) == "true" and result.findtext("m:done", namespaces=NS) == "true"
    done = {(s.findtext("m:componentType", namespaces=NS), s.findtext("m:fullName", namespaces=NS)):
            s for s in result.findall("m:details/m:componentSuccesses", NS)}
    assert done[("GlobalValueSet", "Regions")].findtext("m:created", namespaces=NS) == "true"
    assert done[("CustomField", "Gadget__c.Region__c")].findtext("m:created", namespaces=NS) == "true"
    assert done[("Queue", "Web_Leads")].findtext("m:deleted", namespaces=NS) == "true"
    assert ("", "package.xml") in done and not result.findall("m:details/m:componentFailures", NS)
    assert result.findtext("m:numberComponentErrors", namespaces=NS) == "0"

    # the custom object is an sObject now: describe, create, SOQL with relationships
    describe = sf.Gadget__c.describe()
    assert {f["name"] for f in describe["fields"]} >= {"Id", "Name", "Region__c", "Account__c", "Weight__c"}
    assert [v["value"] for v in next(f for f in describe["fields"] if f["name"] == "Region__c")["picklistValues"]] \
        == ["North", "South"]
    account = sf.query("SELECT Id, Name FROM Account LIMIT 1")["records"][0]
    gid = sf.Gadget__c.create({"Name": "G-1", "Region__c": "North", "Account__c": account["Id"], "Weight__c": 2.5})["id"]
    rows = sf.query(f"SELECT Name, Region__c, Account__r.Name FROM Gadget__c WHERE Id = '{gid}'")["records"]
    assert rows[0]["Account__r"]["Name"] == account["Name"] and rows[0]["Region__c"] == "North"
    assert sf.query("SELECT Id FROM Group WHERE DeveloperName = 'Web_Leads'")["totalSize"] == 0
    assert mdapi.GlobalValueSet.read("Regions").masterLabel == "Regions"

    left = org.residue(snap)
    assert "Metadata GlobalValueSet 'Regions' created" in left
    assert "Metadata CustomObject 'Gadget__c' created" in left and "Schema object Gadget__c created" in left
    assert any(line.startswith("Group ") and "'Web Leads' deleted" in line for line in left)
    assert "Metadata Queue 'Web_Leads' deleted" in left and "Metadata ListView 'Gadget__c.All' created" in left
    assert any(line.startswith("Gadget__c ") and "'G-1' created" in line for line in left)

    org.restore(snap)
    assert org.residue(snap) == []
    assert "Gadget__c" not in org.schema
    assert sf.query("SELECT Id FROM Group WHERE DeveloperName = 'Web_Leads'")["totalSize"] == 1
    r = soap.post("listMetadata", "<queries><type>GlobalValueSet</type></queries>")
    assert r.status_code == 200 and b"Regions" not in r.content


def test_failed_component_rolls_back_unless_asked_not_to(org_server: OrgServer, soap: Soap) -> None:
    org = org_server.org
    bad_field = _doc("CustomObject", "<fields><fullName>Owner_Pet__c</fullName><label>Pet</label><type>Lookup</type>"
                                     "<referenceTo>NoSuchObject__c</referenceTo></fields>")
    files = {"package.xml": _package({"GlobalValueSet": ["Regions"], "CustomObject": ["Account"],
                                      "CustomTab": ["Missing__c"]}),
             "globalValueSets/Regions.globalValueSet": REGIONS, "objects/Account.object": bad_field}
    result = soap.deploy(files)
    assert result.findtext("m:status", namespaces=NS) == "Failed" and result.findtext("m:success", namespaces=NS) == "false"
    failures = {f.findtext("m:fullName", namespaces=NS): f.findtext("m:problem", namespaces=NS)
                for f in result.findall("m:details/m:componentFailures", NS)}
    assert "NoSuchObject__c" in (failures["Account"] or "")
    assert "was named in package.xml, but was not found in zipped directory" in (failures["Missing__c"] or "")
    assert ("GlobalValueSet", "Regions") not in org.metadata and org.schema["Account"].field("Owner_Pet__c") is None

    partial = soap.deploy(files, rollbackOnError=False)
    assert partial.findtext("m:status", namespaces=NS) == "SucceededPartial"
    assert ("GlobalValueSet", "Regions") in org.metadata

    check = soap.deploy({"package.xml": _package({"GlobalValueSet": ["Colors"]}),
                         "globalValueSets/Colors.globalValueSet": REGIONS}, checkOnly=True)
    assert check.findtext("m:status", namespaces=NS) == "Succeeded" and check.findtext("m:checkOnly", namespaces=NS) == "true"
    assert ("GlobalValueSet", "Colors") not in org.metadata


def test_malformed_requests_are_salesforce_faults(soap: Soap) -> None:
    code, text = fault_of(soap.post("listMetadata", "<queries><type>Queue</type></queries>", token="00Dbad!token"))
    assert code == "sf:INVALID_SESSION_ID" and "Invalid Session ID" in text
    code, text = fault_of(soap.post("", "", raw="<soapenv:Envelope><not closed"))
    assert code == "soapenv:Client" and "INVALID_XML" in text
    code, _ = fault_of(soap.post("", "", raw='<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>'))
    assert code == "soapenv:Client"
    code, text = fault_of(soap.post("dropEverything", ""))
    assert code == "soapenv:Client" and "No operation available for request" in text and "dropEverything" in text
    code, text = fault_of(soap.post("listMetadata", "<queries><type>NoSuchType</type></queries>"))
    assert code == "sf:INVALID_TYPE" and "NoSuchType" in text
    code, _ = fault_of(soap.post("readMetadata", "<type>Bogus</type><fullNames>x</fullNames>"))
    assert code == "sf:INVALID_TYPE"
    code, _ = fault_of(soap.post("checkDeployStatus", "<asyncProcessId>0AfLO0000000000AAA</asyncProcessId>"))
    assert code == "sf:INVALID_ID_FIELD"
    code, _ = fault_of(soap.post("deploy", "<ZipFile>%%% not base64 %%%</ZipFile>"))
    assert code == "soapenv:Client"

    def failures_of(zip_bytes: bytes) -> list[str]:
        started = soap.result("deploy", f"<ZipFile>{base64.b64encode(zip_bytes).decode()}</ZipFile>")
        job = started.findtext("m:id", namespaces=NS)
        result = soap.result("checkDeployStatus", f"<asyncProcessId>{job}</asyncProcessId><includeDetails>true"
                                                  "</includeDetails>")
        assert result.findtext("m:status", namespaces=NS) == "Failed"
        return [f.findtext("m:problem", namespaces=NS) or "" for f in result.findall("m:details/m:componentFailures", NS)]

    assert "not a valid zip archive" in failures_of(b"this is not a zip")[0]
    assert failures_of(build_zip({"objects/Account.object": GADGET})) == ["No package.xml found"]
    assert "not well-formed" in failures_of(build_zip({"package.xml": "<Package><types>"}))[0]
    problems = failures_of(build_zip({"package.xml": _package({"NoSuchType": ["X"]})}))
    assert problems == ["Unknown type name 'NoSuchType' specified in package.xml"]


def test_list_view_columns_are_salesforce_column_names(org_server: OrgServer, soap: Soap) -> None:
    """A list view deployed with column names (as SCUBA's ground truths name them) is kept with field API names
    (the UI and SOQL filter with them) and read back with the same column names; a private view is not a
    component (Salesforce retrieves the views others can see)."""
    org = org_server.org
    view = _doc("CustomObject", "<listViews><fullName>Open_Big</fullName><label>Open Big</label>"
                                "<filterScope>Everything</filterScope>"
                            "<columns>OPPORTUNITY.NAME</columns><columns>ACCOUNT.NAME</columns>"
                            "<columns>OPPORTUNITY.AMOUNT</columns><columns>CORE.USERS.ALIAS</columns>"
                            "<filters><field>OPPORTUNITY.STAGE_NAME</field><operation>equals</operation>"
                            "<value>Proposal/Price Quote</value></filters><filters><field>OPPORTUNITY.PROBABILITY"
                            "</field><operation>greaterOrEqual</operation><value>50.0</value></filters></listViews>")
    result = soap.deploy({"package.xml": _package({"ListView": ["Opportunity.Open_Big"]}),
                          "objects/Opportunity.object": view})
    assert result.findtext("m:status", namespaces=NS) == "Succeeded", ET.tostring(result)
    rec = next(r for r in org.records("ListView") if r["DeveloperName"] == "Open_Big")
    assert rec["Visibility"] == "Public"
    assert json.loads(rec["Columns"]) == ["Name", "AccountId", "Amount", "OwnerId"]
    assert [(f["field"], f["value"]) for f in json.loads(rec["Filters"])] == [("StageName", "Proposal/Price Quote"),
                                                                             ("Probability", "50.0")]
    read = soap.result("readMetadata", "<type>ListView</type><fullNames>Opportunity.Open_Big</fullNames>")
    record = read.find("m:records", NS)
    assert record is not None
    assert [c.text for c in record.findall("m:columns", NS)] == ["OPPORTUNITY.NAME", "ACCOUNT.NAME",
                                                                 "OPPORTUNITY.AMOUNT", "CORE.USERS.ALIAS"]
    assert [f.findtext("m:field", namespaces=NS) for f in record.findall("m:filters", NS)] == [
        "OPPORTUNITY.STAGE_NAME", "OPPORTUNITY.PROBABILITY"]

    org.update("ListView", rec["Id"], {"Visibility": "Private"})
    read = soap.result("readMetadata", "<type>ListView</type><fullNames>Opportunity.Open_Big</fullNames>")
    assert read.find("m:records/m:fullName", NS) is None, "a private list view is not a component"
    listed = ET.fromstring(soap.post("listMetadata", "<queries><type>ListView</type></queries>").content)
    views = {e.text for e in listed.iter(f"{{{MD}}}fullName")}
    assert "Opportunity.AllOpportunities" in views and "Opportunity.Open_Big" not in views


def test_every_column_name_reads_back_as_its_field() -> None:
    """column_name and field_name are inverse on every field of the objects list views are made for."""
    from pytest_cua.orgs.localorg.metadata.columns import column_name, field_name
    from pytest_cua.orgs.localorg.seed import seeded_org

    schema = seeded_org().schema
    for obj_name in ("Account", "Opportunity", "Case", "Lead", "Contact", "Task", "Campaign", "Order", "Product2"):
        obj = schema[obj_name]
        columns = {f: column_name(obj, f) for f in obj.fields}
        assert len(set(columns.values())) == len(columns), f"{obj_name}: two fields share a column name"
        for f, column in columns.items():
            assert field_name(obj, column) == f, (obj_name, f, column)
    assert column_name(schema["Account"], "BillingState") == "ACCOUNT.ADDRESS1_STATE_CODE"
    assert field_name(schema["Account"], "ACCOUNT.ADDRESS1_STATE") == "BillingState"
    assert column_name(schema["Contact"], "Title") == "TITLE" and column_name(schema["Lead"], "Rating") == "LEAD.RATING"


def test_profile_full_names_are_encoded_as_salesforce_encodes_them(soap: Soap) -> None:
    """``Custom: Sales Profile`` is ``Custom%3A Sales Profile`` in the Metadata API (and so in the CLI's file
    names), standard profiles keep their own names; a read by either name finds the profile."""
    from pytest_cua.orgs.localorg.metadata.components import profile_full_name

    assert profile_full_name("Custom: Sales Profile") == "Custom%3A Sales Profile"
    assert profile_full_name("Force.com - Free User") == "Force%2Ecom - Free User"
    assert profile_full_name("System Administrator") == "Admin"
    listed = ET.fromstring(soap.post("listMetadata", "<queries><type>Profile</type></queries>").content)
    names = {e.text for e in listed.iter(f"{{{MD}}}fullName")}
    assert {"Admin", "Custom%3A Sales Profile"} <= names and "Custom: Sales Profile" not in names
    for name in ("Custom%3A Sales Profile", "Custom: Sales Profile"):
        read = soap.result("readMetadata", f"<type>Profile</type><fullNames>{name}</fullNames>")
        assert read.findtext("m:records/m:fullName", namespaces=NS) == name


def test_names_are_found_in_any_letter_case_and_kept_as_stored(mdapi: Any, soap: Soap) -> None:
    """As in Salesforce: a component's name is unique ignoring letter case; readMetadata, update, delete,
    rename and retrieve find it by any case and answer with the name it is stored under."""
    perm = mdapi.PermissionSet(fullName="account_access", label="account access", description="typed in lower case")
    mdapi.PermissionSet.create(perm)
    read = soap.result("readMetadata", "<type>PermissionSet</type><fullNames>Account_Access</fullNames>")
    assert read.findtext("m:records/m:fullName", namespaces=NS) == "account_access"
    assert read.findtext("m:records/m:description", namespaces=NS) == "typed in lower case"
    with pytest.raises(Exception, match="DUPLICATE_DEVELOPER_NAME"):
        mdapi.PermissionSet.create(mdapi.PermissionSet(fullName="Account_Access", label="Account Access"))
    upserted = soap.result("upsertMetadata", '<metadata xsi:type="PermissionSet"><fullName>ACCOUNT_ACCESS</fullName>'
                                             "<label>account access</label><description>changed</description>"
                                             "</metadata>")
    assert upserted.findtext("m:created", namespaces=NS) == "false"  # the stored one, not a second one
    listed = [p.fullName for p in mdapi.list_metadata([mdapi.ListMetadataQuery(type="PermissionSet")])]
    assert "account_access" in listed and "ACCOUNT_ACCESS" not in listed and "Account_Access" not in listed
    assert mdapi.PermissionSet.read("Account_Access").description == "changed"
    retrieved = soap.result("retrieve", f"<retrieveRequest><apiVersion>{V}</apiVersion><singlePackage>true"
                                        "</singlePackage><unpackaged><types><members>Account_Access</members>"
                                        "<name>PermissionSet</name></types></unpackaged></retrieveRequest>")
    job = retrieved.findtext("m:id", namespaces=NS)
    status = soap.result("checkRetrieveStatus", f"<asyncProcessId>{job}</asyncProcessId><includeZip>true"
                                                "</includeZip>")
    with zipfile.ZipFile(io.BytesIO(base64.b64decode(status.findtext("m:zipFile", namespaces=NS) or ""))) as zf:
        assert "permissionsets/account_access.permissionset" in zf.namelist()  # the stored name's file
    renamed = soap.result("renameMetadata", "<type>PermissionSet</type><oldFullName>Account_Access</oldFullName>"
                                            "<newFullName>Account_Access</newFullName>")
    assert renamed.findtext("m:success", namespaces=NS) == "true"  # a new letter case of its own name
    listed = [p.fullName for p in mdapi.list_metadata([mdapi.ListMetadataQuery(type="PermissionSet")])]
    assert "Account_Access" in listed and "account_access" not in listed
    deleted = soap.result("deleteMetadata", "<type>PermissionSet</type><fullNames>account_ACCESS</fullNames>")
    assert deleted.findtext("m:success", namespaces=NS) == "true"
    gone = soap.result("readMetadata", "<type>PermissionSet</type><fullNames>Account_Access</fullNames>")
    assert gone.findtext("m:records/m:fullName", namespaces=NS) is None
