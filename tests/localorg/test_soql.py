"""The SOQL subset: a table of queries against the seeded org and the rows they must return."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.store import Org


def strip(value: Any) -> Any:
    """Records without ``attributes`` (child results keep totalSize/done/records)."""
    if isinstance(value, list):
        return [strip(v) for v in value]
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k != "attributes"}
    return value


ROWS = [
    ("SELECT Name FROM Account WHERE Name LIKE 'A%' ORDER BY Name",
     [{"Name": "Alderbrook Analytics"}, {"Name": "Amberfield Logistics"}]),
    ("select name from account where name like '%TELECOM%' order by name desc",
     [{"Name": "Kestrel Telecom Baltics"}, {"Name": "Kestrel Telecom"}]),
    ("SELECT Name, Owner.Name FROM Account WHERE Name = 'harrow & finch legal'",
     [{"Name": "Harrow & Finch Legal", "Owner": {"Name": "Jonah Okafor"}}]),
    ("SELECT LastName, Account.Owner.Email FROM Contact WHERE Account.Name = 'Brightwater Clinics' ORDER BY LastName",
     [{"LastName": "Carvalho", "Account": {"Owner": {"Email": "beatriz.salgado@harborlight.test"}}},
      {"LastName": "Moura", "Account": {"Owner": {"Email": "beatriz.salgado@harborlight.test"}}}]),
    ("SELECT Name, Parent.Name FROM Account WHERE Name LIKE 'Kestrel%' ORDER BY Name",
     [{"Name": "Kestrel Telecom", "Parent": None}, {"Name": "Kestrel Telecom Baltics", "Parent": {"Name": "Kestrel Telecom"}}]),
    ("SELECT UserOrGroup.Name FROM GroupMember WHERE Group.DeveloperName = 'Leadership_Circle' "
     "ORDER BY UserOrGroup.Name",
     [{"UserOrGroup": {"Name": "Field Engineers"}}, {"UserOrGroup": {"Name": "Hannes Kowal"}},
      {"UserOrGroup": {"Name": "Mirela Vance"}}]),
    ("SELECT Subject, Owner.Name FROM Case WHERE Owner.Name = 'Billing Desk'",
     [{"Subject": "Invoice shows wrong VAT rate", "Owner": {"Name": "Billing Desk"}}]),
    ("SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName) FROM Account "
     "WHERE Name IN ('Ironvale Manufacturing', 'Juniper Lane Retail', 'Amberfield Logistics') ORDER BY Name",
     [{"Name": "Amberfield Logistics", "Contacts": {"totalSize": 1, "done": True, "records": [{"LastName": "de Vries"}]}},
      {"Name": "Ironvale Manufacturing", "Contacts": {"totalSize": 2, "done": True,
                                                      "records": [{"LastName": "Lis"}, {"LastName": "Wrobel"}]}},
      {"Name": "Juniper Lane Retail", "Contacts": {"totalSize": 1, "done": True, "records": [{"LastName": "Lindgren"}]}}]),
    ("SELECT Name, (SELECT Id FROM Cases) FROM Account WHERE Name = 'Cobalt Ridge Mining'",
     [{"Name": "Cobalt Ridge Mining", "Cases": None}]),
    ("SELECT StageName, COUNT(Id), SUM(Amount) total FROM Opportunity GROUP BY StageName "
     "HAVING COUNT(Id) > 1",
     [{"StageName": "Closed Won", "expr0": 2, "total": 678000.0}]),
    ("SELECT MAX(Amount), MIN(Amount), COUNT_DISTINCT(OwnerId) owners FROM Opportunity WHERE IsClosed = false",
     [{"expr0": 760000.0, "expr1": 88000.0, "owners": 4}]),
    ("SELECT Priority, COUNT(Id) n FROM Case GROUP BY Priority ORDER BY COUNT(Id) DESC, Priority",
     [{"Priority": "High", "n": 3}, {"Priority": "Medium", "n": 3}, {"Priority": "Low", "n": 2}]),
    ("SELECT AVG(UnitPrice) FROM PricebookEntry WHERE Pricebook2.Name = 'Standard Price Book' AND Product2.Family = 'Services'",
     [{"expr0": 1750.0}]),
    ("SELECT Name FROM Opportunity WHERE CloseDate > 2027-01-31 AND (StageName = 'Prospecting' OR Amount < 100000) "
     "ORDER BY Name",
     [{"Name": "Cobalt Ridge Safety Sensors"}, {"Name": "Juniper Lane Loyalty App"}]),
    ("SELECT Name FROM Opportunity WHERE NOT (StageName LIKE 'Closed%') AND Amount >= 300000 ORDER BY Amount",
     [{"Name": "Fernhill Claims Automation"}, {"Name": "Amberfield Fleet Telemetry"}, {"Name": "Cobalt Ridge Safety Sensors"}]),
    ("SELECT Name FROM Lead WHERE Status NOT IN ('Open - Not Contacted', 'Working - Contacted')",
     [{"Name": "Kwame Asante"}]),
    ("SELECT LastName FROM Lead WHERE Rating = null AND Owner.Name != 'Web Leads' ORDER BY LastName",
     [{"LastName": "Asante"}, {"LastName": "Demir"}]),
    ("SELECT Name FROM Group WHERE Id IN (SELECT UserOrGroupId FROM GroupMember) ORDER BY Name",
     [{"Name": "Field Engineers"}]),
    ("SELECT Name FROM User WHERE Id NOT IN (SELECT AssigneeId FROM PermissionSetAssignment) AND IsActive = true "
     "AND Department = 'Sales' ORDER BY Name",
     [{"Name": "Beatriz Salgado"}, {"Name": "Jonah Okafor"}, {"Name": "Mirela Vance"}]),
    ("SELECT Name FROM UserRole ORDER BY ParentRole.Name NULLS FIRST, Name LIMIT 2",
     [{"Name": "Managing Director"}, {"Name": "Care Agent"}]),
    ("SELECT Name FROM UserRole ORDER BY ParentRoleId DESC NULLS LAST, Name DESC LIMIT 1 OFFSET 9",
     [{"Name": "Managing Director"}]),
    ("SELECT Id FROM User WHERE User.FirstName='Jonah' AND User.LastName='Okafor'", 1),
    ("SELECT Title FROM Knowledge__kav WHERE PublishStatus = 'Draft'", [{"Title": "Changing the VAT rate on invoices"}]),
    ("SELECT Subject FROM Task WHERE What.Name = 'Amberfield Fleet Telemetry'", [{"Subject": "Call about fleet size"}]),
    ("SELECT Who.Name FROM Task WHERE Who.Type = null AND WhoId != null ORDER BY Who.Name",
     None),  # Who.Type is not a field: INVALID_FIELD (checked below)
    ("SELECT COUNT() FROM Contact WHERE Account.Industry = 'Manufacturing'", 2),
    ("SELECT Name FROM Account WHERE CreatedDate = TODAY AND CreatedDate = LAST_N_DAYS:7 AND CreatedDate < TOMORROW "
     "AND CreatedDate > YESTERDAY AND CreatedDate = THIS_MONTH AND LastModifiedDate >= 2000-01-01T00:00:00Z "
     "AND Name = 'Elmstead Foods'", [{"Name": "Elmstead Foods"}]),
    ("SELECT Name FROM Account WHERE CreatedDate = LAST_MONTH OR CreatedDate = NEXT_N_DAYS:3", []),
    ("SELECT Name FROM Campaign WHERE StartDate = THIS_YEAR OR EndDate < 2026-07-01 ORDER BY Name",
     None),  # depends on today's date: only checked for no error
    ("SELECT Subject FROM Incident WHERE Subject = 'Customer portal login errors' AND Urgency='Medium' "
     "AND Impact='Medium' AND Priority='High'", [{"Subject": "Customer portal login errors"}]),
    ("SELECT RelatedEntityType FROM ChangeRequestRelatedIssue WHERE ChangeRequest.Subject = 'Scale EU ingestion cluster'",
     [{"RelatedEntityType": "Incident"}]),
    ("SELECT PermissionSetGroup.MasterLabel, PermissionSet.Label FROM PermissionSetGroupComponent "
     "WHERE PermissionSetGroup.MasterLabel='Sales Insights' ORDER BY PermissionSet.Label",
     [{"PermissionSetGroup": {"MasterLabel": "Sales Insights"}, "PermissionSet": {"Label": "Dashboard Editor"}},
      {"PermissionSetGroup": {"MasterLabel": "Sales Insights"}, "PermissionSet": {"Label": "Report Builder"}}]),
    ("SELECT IsFrozen FROM UserLogin WHERE User.Username = 'felix.brandt@harborlight.test'", [{"IsFrozen": False}]),
    ("SELECT Name, SobjectType FROM ListView WHERE SobjectType = 'Case' ORDER BY Name",
     [{"Name": "All Open Cases", "SobjectType": "Case"}, {"Name": "My Open Cases", "SobjectType": "Case"}]),
    ("SELECT Name FROM Account WHERE Name = 'O\\'Neil Partners'", []),
    ("SELECT CALENDAR_YEAR(CloseDate) y, COUNT(Id) FROM Opportunity GROUP BY CALENDAR_YEAR(CloseDate) ORDER BY CALENDAR_YEAR(CloseDate)",
     [{"y": 2026, "expr0": 4}, {"y": 2027, "expr0": 7}]),
    ("SELECT Name FROM Opportunity WHERE CALENDAR_MONTH(CloseDate) = 12", [{"Name": "Alderbrook Data Platform Renewal"}]),
    ("SELECT toLabel(StageName) FROM Opportunity WHERE Name = 'Kestrel 5G Core Analytics'", [{"StageName": "Closed Won"}]),
    ("SELECT Name FROM Account WHERE Name LIKE 'Juniper_Lane%'", [{"Name": "Juniper Lane Retail"}]),
]


@pytest.mark.parametrize(("soql", "expected"), [r for r in ROWS if r[1] is not None], ids=lambda v: str(v)[:60])
def test_query_rows(org: Org, soql: str, expected: Any) -> None:
    result = org.query(soql)
    assert result["done"] is True
    if isinstance(expected, int):
        assert result["totalSize"] == expected
        return
    assert strip(result["records"]) == expected
    assert result["totalSize"] == len(expected)


def test_result_shape_matches_salesforce(org: Org) -> None:
    result = org.query("SELECT Id, Name, Owner.Name, (SELECT Id FROM Contacts LIMIT 1) FROM Account "
                       "WHERE Name = 'Brightwater Clinics'", version="62.0")
    rec = result["records"][0]
    assert list(rec) == ["attributes", "Id", "Name", "Owner", "Contacts"]
    assert rec["attributes"] == {"type": "Account", "url": f"/services/data/v62.0/sobjects/Account/{rec['Id']}"}
    assert rec["Owner"]["attributes"]["type"] == "User"
    assert rec["Contacts"]["records"][0]["attributes"]["type"] == "Contact"
    assert rec["Contacts"]["totalSize"] == 1
    count = org.query("SELECT COUNT() FROM Account")
    assert count == {"totalSize": 13, "done": True, "records": []}
    agg = org.query("SELECT COUNT(Id) FROM Account")["records"][0]
    assert agg == {"attributes": {"type": "AggregateResult"}, "expr0": 13}


def test_fields_all_and_standard(org: Org) -> None:
    rec = org.query("SELECT FIELDS(ALL) FROM Case LIMIT 1")["records"][0]
    assert {"Id", "CaseNumber", "SLAViolation__c", "OwnerId", "CreatedDate"} <= set(rec)
    rec = org.query("SELECT FIELDS(STANDARD) FROM Case")["records"][0]
    assert "SLAViolation__c" not in rec and "Subject" in rec
    custom = org.query("SELECT FIELDS(CUSTOM) FROM Case LIMIT 200")["records"][0]
    assert set(custom) == {"attributes", "SLAViolation__c", "PotentialLiability__c"}


def test_tooling_objects(org: Org) -> None:
    org.create("ValidationRule", {"ValidationName": "Need_phone", "EntityDefinitionId": "Account",
                                  "ErrorConditionFormula": "ISBLANK(Phone)", "ErrorMessage": "Phone please",
                                  "Active": False})
    rows = org.query("Select ErrorMessage,Metadata,EntityDefinitionId,ValidationName From ValidationRule "
                     "WHERE EntityDefinitionId='Account'", api="tooling")["records"]
    assert rows[0]["ErrorMessage"] == "Phone please" and rows[0]["Metadata"]["errorConditionFormula"] == "ISBLANK(Phone)"
    owd = org.query("SELECT InternalSharingModel, ExternalSharingModel FROM EntityDefinition "
                    "WHERE QualifiedApiName = 'Lead'", api="tooling")["records"]
    assert owd and owd[0]["InternalSharingModel"] == "ReadWriteTransfer"
    with pytest.raises(OrgError) as info:
        org.query("SELECT Id FROM ValidationRule")
    assert info.value.code == "INVALID_TYPE"


ERRORS = [
    ("SELECT Id FROM Account WHERE", "MALFORMED_QUERY", "Row:1:Column:29"),
    ("SELECT Id, FROM Account", "MALFORMED_QUERY", "Row:1:Column:12"),
    ("SELECT Id FROM Account WHERE Name = 'a' AND Name = 'b' OR Name = 'c'", "MALFORMED_QUERY", "unexpected token: 'OR'"),
    ("SELECT Id FROM Account LIMIT -1", "MALFORMED_QUERY", "Column:30"),
    ("SELECT Id FROM Account WHERE Name = 'unterminated", "MALFORMED_QUERY", "Row:1:Column:37"),
    ("SELECT Id FROM Account UNION SELECT Id FROM Contact", "MALFORMED_QUERY", "Column:24"),
    ("SELECT Id FROM Account WHERE Name IN ()", "MALFORMED_QUERY", "Column:39"),
    ("SELECT Id\nFROM Account\nWHERE Name ==", "MALFORMED_QUERY", "Row:3:Column:13"),
    ("SELECT Id FROM Account USING SCOPE Mine", "MALFORMED_QUERY", ""),
    ("SELECT TYPEOF What WHEN Account THEN Name END FROM Task", "MALFORMED_QUERY", ""),
    ("SELECT Id FROM Acount", "INVALID_TYPE", "sObject type 'Acount' is not supported"),
    ("SELECT Nmae FROM Account", "INVALID_FIELD", "No such column 'Nmae' on entity 'Account'"),
    ("SELECT Owner.Nmae FROM Account", "INVALID_FIELD", "No such column 'Nmae'"),
    ("SELECT Ownr.Name FROM Account", "INVALID_FIELD", "Didn't understand relationship 'Ownr'"),
    ("SELECT Id FROM Account WHERE Nmae = 'x'", "INVALID_FIELD", "Row:1:Column:30"),
    ("SELECT Id, (SELECT Id FROM Contactz) FROM Account", "INVALID_TYPE", "Didn't understand relationship 'Contactz'"),
    ("SELECT Who.Name FROM Task WHERE Who.Type = null", "INVALID_FIELD", "No such column 'Type'"),
    ("SELECT Id FROM Account WHERE AnnualRevenue = '5'", "INVALID_QUERY_FILTER_OPERATOR", "must be of type double"),
    ("SELECT Id FROM Account WHERE Name = 5", "INVALID_QUERY_FILTER_OPERATOR", "must be of type string"),
    ("SELECT Id FROM Account WHERE Id = 'not-an-id'", "INVALID_QUERY_FILTER_OPERATOR", "invalid ID field"),
    ("SELECT Id FROM Account WHERE CreatedDate > 2025-01-01", "INVALID_QUERY_FILTER_OPERATOR", "dateTime"),
    ("SELECT Id FROM Account WHERE AnnualRevenue LIKE '5%'", "INVALID_QUERY_FILTER_OPERATOR", "LIKE"),
    ("SELECT Name, COUNT(Id) FROM Account", "MALFORMED_QUERY", "Field must be grouped or aggregated: Name"),
    ("SELECT Name n FROM Account", "MALFORMED_QUERY", "Only aggregate expressions use field aliasing"),
    ("SELECT Id, COUNT() FROM Account", "MALFORMED_QUERY", "COUNT()"),
    ("SELECT SUM(Name) FROM Account", "MALFORMED_QUERY", "does not support aggregate operator SUM"),
    ("SELECT FIELDS(ALL) FROM Account", "MALFORMED_QUERY", "LIMIT of at most 200"),
    ("SELECT Id FROM Account WHERE COUNT(Id) > 1", "MALFORMED_QUERY", "Aggregate functions"),
    ("SELECT Id, Id FROM Account", "MALFORMED_QUERY", "duplicate field selected"),
    ("SELECT Id FROM Group WHERE Id IN (SELECT Name FROM GroupMember)", "INVALID_FIELD", "No such column 'Name'"),
    ("SELECT Id FROM Group WHERE Id IN (SELECT Group.Name FROM GroupMember)", "MALFORMED_QUERY", "semi join"),
    ("SELECT Id FROM Account WHERE Name INCLUDES ('a')", "INVALID_QUERY_FILTER_OPERATOR", "multipicklist"),
    ("SELECT Id FROM Account OFFSET 5000", "NUMBER_OUTSIDE_VALID_RANGE", "offset"),
    ("SELECT Id FROM Account WHERE Name = 'x' LIMIT", "MALFORMED_QUERY", "<EOF>"),
    ("SELECT Name Desc FROM Account", "MALFORMED_QUERY", "unexpected token: 'Desc'"),
]


@pytest.mark.parametrize(("soql", "code", "text"), ERRORS, ids=lambda v: str(v)[:50])
def test_query_errors(org: Org, soql: str, code: str, text: str) -> None:
    with pytest.raises(OrgError) as info:
        org.query(soql)
    assert info.value.code == code, info.value.message
    assert text in info.value.message
    assert info.value.status == 400


def test_date_ranges() -> None:
    from datetime import date

    from pytest_cua.orgs.localorg.soql.engine import date_range

    today = date(2026, 11, 30)  # a Monday
    assert date_range("TODAY", None, today) == (today, date(2026, 12, 1))
    assert date_range("THIS_WEEK", None, today) == (date(2026, 11, 29), date(2026, 12, 6))
    assert date_range("LAST_MONTH", None, today) == (date(2026, 10, 1), date(2026, 11, 1))
    assert date_range("THIS_QUARTER", None, today) == (date(2026, 10, 1), date(2027, 1, 1))
    assert date_range("LAST_N_DAYS", 7, today) == (date(2026, 11, 23), date(2026, 12, 1))
    assert date_range("NEXT_N_DAYS", 2, today) == (date(2026, 12, 1), date(2026, 12, 3))
    assert date_range("N_DAYS_AGO", 1, today) == (date(2026, 11, 29), date(2026, 11, 30))
    assert date_range("NEXT_YEAR", None, today) == (date(2027, 1, 1), date(2028, 1, 1))
