from __future__ import annotations

import json

import pytest

from pytest_cua.orgs.localorg import ids
from pytest_cua.orgs.localorg.schema import SchemaError, load_schema, parse_object

REQUIRED_OBJECTS = [
    "Account", "Contact", "Lead", "Opportunity", "OpportunityContactRole", "Case", "Task", "Event", "Campaign",
    "CampaignMember", "Product2", "Pricebook2", "PricebookEntry", "Quote", "QuoteLineItem", "Contract", "Order",
    "User", "UserRole", "Profile", "Group", "GroupMember", "QueueSobject", "PermissionSet",
    "PermissionSetAssignment", "PermissionSetGroup", "PermissionSetGroupComponent", "Incident", "ChangeRequest",
    "ChangeRequestRelatedIssue", "Entitlement", "Knowledge__kav", "UserLogin", "ListView", "ValidationRule",
    "EntityDefinition",
]
KEY_PREFIXES = {"Account": "001", "Contact": "003", "Lead": "00Q", "Opportunity": "006", "Case": "500", "Task": "00T",
                "Event": "00U", "Campaign": "701", "Product2": "01t", "Pricebook2": "01s", "PricebookEntry": "01u",
                "Quote": "0Q0", "Contract": "800", "Order": "801", "User": "005", "UserRole": "00E", "Profile": "00e",
                "Group": "00G"}


@pytest.mark.parametrize(("id15", "id18"), [("001D000000IRFma", "001D000000IRFmaIAH"),
                                             ("003000000000000", "003000000000000AAA")])
def test_checksum_matches_salesforce(id15: str, id18: str) -> None:
    assert ids.to18(id15) == id18
    assert ids.to18(id18) == id18
    assert ids.is_id(id15) and ids.is_id(id18)


@pytest.mark.parametrize("bad", ["", "xyz", "001D000000IRFmaXXX", "001D000000IRFm!", 42])
def test_malformed_ids_are_rejected(bad: object) -> None:
    assert not ids.is_id(bad)
    with pytest.raises(ids.MalformedId):
        ids.to18(bad)  # type: ignore[arg-type]


def test_new_ids_have_prefix_and_valid_checksum() -> None:
    factory = ids.IdFactory()
    made = {factory.new("001") for _ in range(100)}
    assert len(made) == 100
    assert all(i.startswith("001") and len(i) == 18 and ids.to18(i[:15]) == i for i in made)


def test_schema_has_the_required_objects_and_prefixes() -> None:
    schema = load_schema()
    for name in REQUIRED_OBJECTS:
        assert name in schema, name
    for name, prefix in KEY_PREFIXES.items():
        assert schema[name].key_prefix == prefix
    account = schema["account"]
    assert {"Id", "OwnerId", "CreatedDate", "CreatedById", "LastModifiedDate", "LastModifiedById", "SystemModstamp",
            "IsDeleted"} <= set(account.fields)
    assert "OwnerId" not in schema["Product2"].fields
    assert account.child_relationship("contacts").child_object == "Contact"
    assert schema["Lead"].fields["OwnerId"].reference_to == ["User", "Group"]


def test_describe_matches_schema() -> None:
    d = load_schema()["Contact"].describe("59.0")
    fields = {f["name"]: f for f in d["fields"]}
    assert d["keyPrefix"] == "003" and d["urls"]["describe"] == "/services/data/v59.0/sobjects/Contact/describe"
    assert fields["LastName"]["nillable"] is False and fields["LastName"]["createable"] is True
    assert fields["AccountId"]["referenceTo"] == ["Account"] and fields["AccountId"]["relationshipName"] == "Account"
    assert fields["Name"]["createable"] is False and fields["Name"]["nameField"] is True
    assert any(v["value"] == "Dr." for v in fields["Salutation"]["picklistValues"])
    assert any(r["relationshipName"] == "CampaignMembers" for r in d["childRelationships"])


def test_schema_errors_name_the_file_and_field(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SchemaError, match=r"x.json: fields\[0\].*unknown type 'money'"):
        parse_object({"name": "X", "keyPrefix": "a01", "fields": [{"name": "Amount", "type": "money"}]}, "x.json")
    (tmp_path / "Thing__c.json").write_text(json.dumps(
        {"name": "Thing__c", "keyPrefix": "a02", "fields": [{"name": "Other__c", "type": "reference",
                                                              "referenceTo": ["Nope"]}]}))
    (tmp_path / "User.json").write_text(json.dumps({"name": "User", "keyPrefix": "005", "fields": []}))
    with pytest.raises(SchemaError, match="unknown object 'Nope'"):
        load_schema(tmp_path)


def test_adding_an_object_is_adding_a_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "Gadget__c.json").write_text(json.dumps(
        {"name": "Gadget__c", "keyPrefix": "a03", "nameField": "Name", "owner": ["User"],
         "fields": [{"name": "Name", "type": "string", "required": True}]}))
    (tmp_path / "User.json").write_text(json.dumps({"name": "User", "keyPrefix": "005", "fields": []}))
    schema = load_schema(tmp_path)
    assert schema["gadget__c"].fields["OwnerId"].reference_to == ["User"]
