from __future__ import annotations

import json
import time

import pytest

from pytest_cua.orgs.localorg import ids
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.seed import SeedError, load_dir, load_records, seeded_org
from pytest_cua.orgs.localorg.store import Org


def _one(org: Org, sobject: str, **equals: object) -> dict:
    found = org.find(sobject, **equals)
    assert len(found) == 1, (sobject, equals, found)
    return found[0]


def test_seed_is_loaded_with_lookups_by_name(org: Org) -> None:
    admin = org.get("User", org.default_user_id)
    assert admin["Username"] == "admin@harborlight.test"
    assert org.get("Profile", admin["ProfileId"])["Name"] == "System Administrator"
    counts = org.counts()
    assert counts["User"] >= 11 and counts["Account"] >= 10 and counts["UserLogin"] == counts["User"]
    queue = _one(org, "Group", DeveloperName="Billing_Desk")
    assert queue["Type"] == "Queue"
    case = _one(org, "Case", Subject="Invoice shows wrong VAT rate")
    assert case["OwnerId"] == queue["Id"] and case["CaseNumber"].isdigit()
    contact = _one(org, "Contact", LastName="Reid")
    assert contact["Name"] == "Callum Reid" and contact["OwnerId"].startswith("005")
    # a role hierarchy and a Role group per role
    role = _one(org, "UserRole", DeveloperName="Care_Agent")
    assert org.get("UserRole", role["ParentRoleId"])["Name"] == "Care Team Lead"
    assert org.find("Group", Type="Role", RelatedId=role["Id"])


def test_create_update_delete_and_system_fields(org: Org) -> None:
    rid = org.create("account", {"name": "Quokka Labs", "industry": "Technology"})
    rec = org.get("Account", rid)
    assert rec["Name"] == "Quokka Labs" and rec["OwnerId"] == org.default_user_id
    assert rec["CreatedById"] == org.default_user_id and rec["IsDeleted"] is False
    assert rec["CreatedDate"].endswith("+0000")
    org.update("Account", rid[:15], {"Phone": "+1 555 0100"})
    assert org.get("Account", rid)["Phone"] == "+1 555 0100"
    org.delete("Account", rid)
    assert org.get("Account", rid) is None


@pytest.mark.parametrize(("sobject", "fields", "code", "field"), [
    ("Account", {"Nope__c": 1}, "INVALID_FIELD", "Nope__c"),
    ("Account", {"Industry": "Tech"}, "REQUIRED_FIELD_MISSING", "Name"),
    ("Contact", {"LastName": "X", "AccountId": ids.to18("001LO0000000999")}, "INVALID_CROSS_REFERENCE_KEY", "AccountId"),
    ("Contact", {"LastName": "X", "AccountId": "nope"}, "MALFORMED_ID", "AccountId"),
    ("Contact", {"LastName": "X", "Email": "not-an-email"}, "INVALID_EMAIL_ADDRESS", "Email"),
    ("Account", {"Name": "X", "NumberOfEmployees": "many"}, "INVALID_TYPE_ON_FIELD_IN_RECORD", "NumberOfEmployees"),
    ("Account", {"Name": "X" * 300}, "STRING_TOO_LONG", "Name"),
    ("Group", {"Name": "G", "Type": "Circle"}, "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", "Type"),
    ("Lead", {"LastName": "X", "Company": "Y", "IsConverted": True}, "INVALID_FIELD_FOR_INSERT_UPDATE", "IsConverted"),
    ("PermissionSetAssignment", {"AssigneeId": None}, "REQUIRED_FIELD_MISSING", "AssigneeId"),
])
def test_invalid_records_are_rejected_without_writing(org: Org, sobject: str, fields: dict, code: str,
                                                      field: str) -> None:
    snap = org.snapshot()
    with pytest.raises(OrgError) as info:
        org.create(sobject, fields)
    assert info.value.code == code and field in info.value.fields
    assert org.residue(snap) == []


def test_unique_username_gives_duplicate_value(org: Org) -> None:
    with pytest.raises(OrgError) as info:
        org.create("User", {"Username": "ADMIN@harborlight.test", "LastName": "Twin", "Email": "t@example.com",
                            "ProfileId": _one(org, "Profile", Name="Standard User")["Id"]})
    assert info.value.code == "DUPLICATE_VALUE" and info.value.fields == ["Username"]


def test_schema_validation_rule(org: Org) -> None:
    user = _one(org, "User", Username="felix.brandt@harborlight.test")
    with pytest.raises(OrgError) as info:
        org.create("PermissionSetAssignment", {"AssigneeId": user["Id"]})
    assert info.value.code == "FIELD_CUSTOM_VALIDATION_EXCEPTION"
    assert "permission set" in info.value.message


def test_runtime_validation_rule_records_are_enforced(org: Org) -> None:
    org.create("ValidationRule", {"ValidationName": "Big_deals_need_next_step", "EntityDefinitionId": "Opportunity",
                                  "ErrorConditionFormula": "AND(Amount > 500000, ISBLANK(NextStep))",
                                  "ErrorMessage": "Large deals need a next step", "ErrorDisplayField": "NextStep"})
    account = _one(org, "Account", Name="Fernhill Insurance")["Id"]
    base = {"Name": "Huge", "AccountId": account, "StageName": "Prospecting", "CloseDate": "2027-06-01"}
    with pytest.raises(OrgError) as info:
        org.create("Opportunity", {**base, "Amount": 900000})
    assert info.value.code == "FIELD_CUSTOM_VALIDATION_EXCEPTION" and info.value.fields == ["NextStep"]
    org.create("Opportunity", {**base, "Amount": 900000, "NextStep": "Call the CFO"})
    rule = _one(org, "ValidationRule", ValidationName="Big_deals_need_next_step")
    assert rule["Metadata"]["errorMessage"] == "Large deals need a next step"
    org.update("ValidationRule", rule["Id"], {"Active": False})
    org.create("Opportunity", {**base, "Amount": 900000})


def test_unsupported_formula_is_not_enforced_and_reported(org: Org) -> None:
    org.create("ValidationRule", {"ValidationName": "Regex_rule", "EntityDefinitionId": "Account",
                                  "ErrorConditionFormula": "REGEX(Name, '[0-9]+')", "ErrorMessage": "no digits"})
    org.create("Account", {"Name": "123"})
    assert "Account.Regex_rule" in org.unenforced_rules


def test_transaction_is_all_or_nothing(org: Org) -> None:
    snap = org.snapshot()
    with pytest.raises(OrgError):
        org.create_many("Account", [{"Name": "One"}, {"Name": "Two"}, {"Industry": "no name"}])
    assert org.residue(snap) == []


def test_delete_cascades_master_detail_and_clears_lookups(org: Org) -> None:
    opp = _one(org, "Opportunity", Name="Alderbrook Data Platform Renewal")
    roles = org.find("OpportunityContactRole", OpportunityId=opp["Id"])
    tasks = org.find("Task", WhatId=opp["Id"])
    assert roles and tasks
    snap = org.snapshot()
    org.delete("Opportunity", opp["Id"])
    assert org.find("OpportunityContactRole", OpportunityId=opp["Id"]) == []
    assert org.get("Task", tasks[0]["Id"])["WhatId"] is None
    lines = org.residue(snap)
    assert any(line.startswith("Opportunity ") and line.endswith("deleted") for line in lines)
    assert any(line.startswith("Task ") and "WhatId" in line for line in lines)


def test_snapshot_restore_residue(org: Org) -> None:
    snap = org.snapshot()
    new = org.create("Account", {"Name": "Residue Test Co"})
    contact = _one(org, "Contact", LastName="Huber")
    org.update("Contact", contact["Id"], {"Title": "Head of Partnerships"})
    lead = _one(org, "Lead", LastName="Aalto")
    org.delete("Lead", lead["Id"])
    lines = org.residue(snap)
    assert f"Account {new} 'Residue Test Co' created" in lines
    assert f"Lead {lead['Id']} 'Henrik Aalto' deleted" in lines
    assert any(line.startswith(f"Contact {contact['Id']} 'Stefan Huber' changed Title: 'Partner Manager' -> "
                               "'Head of Partnerships'") for line in lines)
    org.restore(snap, scope=["Account"])
    left = org.residue(snap)
    assert not any(line.startswith("Account ") for line in left) and len(left) == 2
    org.restore(snap)
    assert org.residue(snap) == []


def test_snapshot_and_restore_are_fast(org: Org) -> None:
    times = []
    for _ in range(50):
        t0 = time.perf_counter()
        snap = org.snapshot()
        org.restore(snap)
        times.append(time.perf_counter() - t0)
    assert sorted(times)[len(times) // 2] < 0.05


def test_convert_lead_creates_account_contact_opportunity(org: Org) -> None:
    lead = _one(org, "Lead", LastName="Feldman")
    result = org.convert_lead(lead["Id"], opportunity_name="Orchard Street Pilot")
    converted = org.get("Lead", lead["Id"])
    assert converted["IsConverted"] is True and converted["Status"] == "Closed - Converted"
    assert converted["ConvertedAccountId"] == result.account_id
    assert org.get("Account", result.account_id)["Name"] == "Orchard Street Bank"
    contact = org.get("Contact", result.contact_id)
    assert contact["Name"] == "Maya Feldman" and contact["AccountId"] == result.account_id
    assert org.get("Opportunity", result.opportunity_id)["Name"] == "Orchard Street Pilot"
    with pytest.raises(OrgError) as info:
        org.convert_lead(lead["Id"])
    assert info.value.code == "CANNOT_UPDATE_CONVERTED_LEAD"


def test_convert_lead_into_existing_account_without_opportunity(org: Org) -> None:
    lead = _one(org, "Lead", LastName="Mackie")
    account = _one(org, "Account", Name="Granite Peak Engineering")
    result = org.convert_lead(lead["Id"], account_id=account["Id"], create_opportunity=False)
    assert result.account_id == account["Id"] and result.opportunity_id is None
    assert org.get("Lead", lead["Id"])["ConvertedOpportunityId"] is None


def test_derived_fields(org: Org) -> None:
    opp = _one(org, "Opportunity", Name="Fernhill Claims Automation")
    org.update("Opportunity", opp["Id"], {"StageName": "Closed Won"})
    won = org.get("Opportunity", opp["Id"])
    assert won["IsWon"] and won["IsClosed"] and won["Probability"] == 100.0
    case = _one(org, "Case", Subject="Gateway firmware upgrade failed")
    org.update("Case", case["Id"], {"Status": "Closed"})
    assert org.get("Case", case["Id"])["IsClosed"] and org.get("Case", case["Id"])["ClosedDate"]
    user = org.create("User", {"Username": "new.person@harborlight.test", "LastName": "Person",
                               "Email": "new.person@harborlight.test", "ProfileId": _one(org, "Profile", Name="Standard User")["Id"]})
    assert org.find("UserLogin", UserId=user)[0]["IsFrozen"] is False


def test_load_records_names_object_index_and_field(org: Org) -> None:
    with pytest.raises(SeedError) as info:
        load_records(org, "User", [
            {"LastName": "Ok", "Username": "ok.user@harborlight.test", "Email": "ok@example.com",
             "ProfileId": "Standard User"},
            {"LastName": "Bad", "Username": "bad.user@harborlight.test", "Email": "bad@example.com",
             "ProfileId": "Profile That Does Not Exist"},
        ], source="User.json")
    err = info.value
    assert (err.sobject, err.index, err.field) == ("User", 1, "ProfileId")
    assert "User.json: User record #1, field ProfileId" in str(err)
    assert org.find("User", Username="ok.user@harborlight.test") == []  # atomic
    with pytest.raises(SeedError, match="record #0, field Colour"):
        load_records(org, "Account", [{"Name": "A", "Colour": "red"}])


def test_load_dir_in_dependency_order(org: Org, tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "Contact.json").write_text(json.dumps([{"LastName": "Ngata", "AccountId": "Tui Breweries"}]))
    (tmp_path / "Account.json").write_text(json.dumps([{"Name": "Tui Breweries", "Industry": "Food & Beverage"}]))
    out = load_dir(org, tmp_path)
    contact = org.get("Contact", out["Contact"][0])
    assert org.get("Account", contact["AccountId"])["Name"] == "Tui Breweries"


def test_seeded_org_is_reproducible() -> None:
    a, b = seeded_org(), seeded_org()
    assert a.counts() == b.counts()
    assert sorted(a.table("Account")) == sorted(b.table("Account"))


def test_load_records_with_foreign_ids_and_unknown_fields(org: Org) -> None:
    foreign_pricebook = "01sXX0000001234AAA"
    standard = _one(org, "Pricebook2", Name="Standard Price Book")["Id"]
    id_map = {foreign_pricebook: standard}
    load_records(org, "Product2", [{"Id": "01tXX0000000001AAA", "Name": "Imported Widget", "CurrencyIsoCode": "USD"}],
                 id_map=id_map, ignore_unknown=True)
    assert "01tXX0000000001AAA" in id_map
    skipped: set[str] = set()
    load_records(org, "PricebookEntry", [{"Pricebook2Id": foreign_pricebook, "Product2Id": "01tXX0000000001AAA",
                                          "UnitPrice": 12, "IsActive": True, "Bogus": 1}],
                 id_map=id_map, ignore_unknown=True, skipped=skipped)
    entry = _one(org, "PricebookEntry", Name="Imported Widget")
    assert entry["Pricebook2Id"] == standard and skipped == {"Bogus"}


def test_datetime_accepts_a_date_alone(org: Org) -> None:
    rid = org.create("Event", {"Subject": "All day", "StartDateTime": "2027-01-05", "EndDateTime": "2027-01-05T10:00:00+02:00"})
    rec = org.get("Event", rid)
    assert rec["StartDateTime"] == "2027-01-05T00:00:00.000+0000"
    assert rec["EndDateTime"] == "2027-01-05T08:00:00.000+0000"
