"""Bad input through the UI gets Salesforce's behaviour, in real Chromium: a required field left empty, a value
outside a restricted picklist (an option added to the page's select, as an agent could), a duplicate API name and
an invalid formula each show the error next to the field (``aria-invalid`` and the message as the field's
accessible description) and in the page's region "Review the errors on this page.", keep what was typed, and write
nothing: read back over the REST API (simple-salesforce) and the Metadata API (readMetadata), no record, no
component, no partial field."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from pytest_cua.orgs.localorg.metadata import MetadataStore
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.server import OrgServer
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui import page_catalog
from tests.localorg_ui.lightning import choose, form, picklist, posted_value
from tests.localorg_ui.test_ui_object_manager import read
from .lightning import classic

ERRORS = "Review the errors on this page."
OM = "/lightning/setup/ObjectManager"


@pytest.fixture(scope="module", autouse=True)
def ids(ui_server: OrgServer) -> dict[str, str]:
    """The catalogue's records (MyBike__c with Brand__c, the permission set Case_Helpers, ...), made once."""
    return page_catalog.prepare(ui_server)


def label(org: Org, sobject: str, field: str) -> str:
    """A field's label as forms show it (the schema's label)."""
    f = org.schema.get(sobject).field(field)  # type: ignore[union-attr]
    assert f is not None
    return f.label


def count(sf: Any, soql: str) -> int:
    return int(sf.query(soql)["totalSize"])


def shows_error(page: Any, label: str, message: str, summary: str | None = None) -> None:
    """The field labelled ``label`` is marked invalid with ``message`` as its description, and the page's error
    region says ``summary`` (default: the same message)."""
    modal = page.locator("[aria-modal=true]")  # a record form is a dialog over an inert page
    field = (form(page) if modal.count() else page).get_by_label(label, exact=True)
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(field).to_have_accessible_description(re.compile(re.escape(message)))
    expect(page.get_by_role("region", name=ERRORS)).to_contain_text(summary or message)


def tamper_select(page: Any, label: str, value: str) -> None:
    """Add an option ``value`` to the (setup form's) select labelled ``label`` and choose it (what the page never
    offers)."""
    page.get_by_label(label, exact=True).evaluate(
        "(s, v) => { const o = document.createElement('option'); o.value = v; o.textContent = v; s.append(o);"
        " s.value = v; }", value)


def tamper(page: Any, name: str, value: str) -> None:
    """Post ``value`` for the picklist field ``name`` (what its combobox never offers): set its hidden input."""
    page.locator(f'input[type=hidden][name="{name}"]').evaluate("(i, v) => { i.value = v; }", value)


# --- required fields ---------------------------------------------------------------------------------------

def test_record_form_with_an_empty_required_field(page: Any, base: str, sf: Any, org: Org) -> None:
    before = count(sf, "SELECT Id FROM Account")
    page.goto(f"{base}/lightning/o/Account/new")
    form(page).get_by_label("Phone", exact=True).fill("(555) 010-4477")
    choose(page, "Industry", "Banking")
    page.get_by_role("button", name="Save", exact=True).first.click()
    name = label(org, "Account", "Name")
    shows_error(page, name, "Complete this field.", f"These required fields must be completed: {name}")
    expect(form(page).get_by_label("Phone", exact=True)).to_have_value("(555) 010-4477")
    expect(picklist(page, "Industry")).to_have_text("Banking")  # the choice is kept
    assert count(sf, "SELECT Id FROM Account") == before
    assert count(sf, "SELECT Id FROM Account WHERE Phone = '(555) 010-4477'") == 0


def test_new_custom_object_with_an_empty_required_field(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}{OM}/new"))
    page.get_by_label("Label", exact=True).fill("Harbor")
    page.get_by_label("Description", exact=True).fill("Where the boats are")
    page.get_by_role("button", name="Save", exact=True).first.click()
    shows_error(page, "Plural Label", "Complete this field.")
    expect(page.get_by_label("Label", exact=True)).to_have_value("Harbor")
    expect(page.get_by_label("Description", exact=True)).to_have_value("Where the boats are")
    assert read(sf, "CustomObject", "Harbor__c") is None
    assert "Harbor__c" not in {o["name"] for o in sf.describe()["sobjects"]}


def test_new_custom_field_with_an_empty_required_field(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}{OM}/MyBike__c/FieldsAndRelationships/new"))
    page.get_by_label("Text", exact=True).check()
    page.get_by_role("button", name="Next", exact=True).first.click()
    page.get_by_label("Field Label").fill("")
    page.get_by_label("Description", exact=True).fill("Frame size in cm")
    page.get_by_label("Length", exact=True).fill("12")
    page.get_by_role("button", name="Next", exact=True).first.click()
    shows_error(page, "Field Label", "Complete this field.")
    expect(page.get_by_label("Description", exact=True)).to_have_value("Frame size in cm")
    expect(page.get_by_label("Length", exact=True)).to_have_value("12")
    fields = {f["name"] for f in sf.restful("sobjects/MyBike__c/describe")["fields"]}
    assert fields >= {"Brand__c"} and not [f for f in fields if f not in ("Brand__c",) and f.endswith("__c")]


# --- restricted picklists ----------------------------------------------------------------------------------

def test_record_form_with_a_value_outside_the_picklist(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/o/Account/new")
    form(page).get_by_label(label(org, "Account", "Name"), exact=True).fill("Orbital Bikes")
    tamper(page, "Industry", "Spaceflight")
    page.get_by_role("button", name="Save", exact=True).first.click()
    # the combobox shows the server's message under it and keeps the posted value
    message = "Industry: bad value for restricted picklist field: Spaceflight"
    expect(picklist(page, "Industry")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_text(message, exact=True).first).to_be_visible()
    expect(page.get_by_role("region", name=ERRORS)).to_contain_text(message)
    expect(form(page).get_by_label(label(org, "Account", "Name"), exact=True)).to_have_value("Orbital Bikes")
    expect(picklist(page, "Industry")).to_have_text("Spaceflight")
    assert posted_value(page, "Industry") == "Spaceflight"
    assert count(sf, "SELECT Id FROM Account WHERE Name = 'Orbital Bikes'") == 0


def test_setup_form_with_a_value_outside_the_picklist(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}{OM}/new"))
    page.get_by_label("Label", exact=True).fill("Dock")
    page.get_by_label("Plural Label", exact=True).fill("Docks")
    tamper_select(page, "Deployment Status", "Abandoned")
    page.get_by_role("button", name="Save", exact=True).first.click()
    shows_error(page, "Deployment Status", "Deployment Status: bad value for restricted picklist field: Abandoned")
    expect(page.get_by_label("Deployment Status", exact=True)).to_have_value("Abandoned")
    expect(page.get_by_label("Label", exact=True)).to_have_value("Dock")
    expect(page.get_by_label("Plural Label", exact=True)).to_have_value("Docks")
    assert read(sf, "CustomObject", "Dock__c") is None


def test_field_wizard_with_a_data_type_it_does_not_offer(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}{OM}/MyBike__c/FieldsAndRelationships/new"))
    page.get_by_label("Text", exact=True).evaluate("r => { r.value = 'Hologram'; r.checked = true; }")
    page.get_by_role("button", name="Next", exact=True).first.click()
    expect(page.get_by_role("region", name=ERRORS)).to_contain_text("Choose a data type.")
    expect(page.locator("#wizard-step")).to_contain_text("Choose the field type")
    assert read(sf, "CustomField", "MyBike__c.Hologram__c") is None


# --- duplicate API names -----------------------------------------------------------------------------------

def test_duplicate_custom_object_name(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}{OM}/new"))
    page.get_by_label("Label", exact=True).fill("MyBike")
    page.get_by_label("Plural Label", exact=True).fill("More Bikes")
    page.get_by_role("button", name="Save", exact=True).first.click()
    shows_error(page, "Object Name", "The Object Name MyBike already exists")
    expect(page.get_by_label("Plural Label", exact=True)).to_have_value("More Bikes")
    expect(page.get_by_label("Object Name", exact=True)).to_have_value("MyBike")
    existing = read(sf, "CustomObject", "MyBike__c")
    assert existing is not None and existing.findtext("pluralLabel") == "MyBikes"


def test_duplicate_custom_field_name(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}{OM}/MyBike__c/FieldsAndRelationships/new"))
    page.get_by_label("Text", exact=True).check()
    page.get_by_role("button", name="Next", exact=True).first.click()
    page.get_by_label("Field Label").fill("Brand")
    page.get_by_label("Help Text", exact=True).fill("Maker of the frame")
    page.get_by_role("button", name="Next", exact=True).first.click()
    shows_error(page, "Field Name", "A field with the name Brand already exists on MyBike")
    expect(page.get_by_label("Field Label")).to_have_value("Brand")
    expect(page.get_by_label("Help Text", exact=True)).to_have_value("Maker of the frame")
    field = read(sf, "CustomField", "MyBike__c.Brand__c")
    assert field is not None and field.findtext("inlineHelpText") is None


def test_duplicate_global_value_set_name(page: Any, base: str, sf: Any, org: Org) -> None:
    MetadataStore(org).write("GlobalValueSet", "Regions", X.element("GlobalValueSet", [
        X.leaf("masterLabel", "Regions"), X.leaf("sorted", False),
        X.element("customValue", [X.leaf("fullName", "North"), X.leaf("default", False), X.leaf("label", "North")])]))
    page.goto(classic(f"{base}/lightning/setup/Picklists/new"))
    page.get_by_label("Label", exact=True).fill("Regions")
    page.get_by_label("Values", exact=True).fill("East\nWest")
    page.get_by_role("button", name="Save", exact=True).first.click()
    shows_error(page, "API Name", "A global value set named Regions already exists.")
    expect(page.get_by_label("Values", exact=True)).to_have_value("East\nWest")
    kept = read(sf, "GlobalValueSet", "Regions")
    assert kept is not None and [v.findtext("fullName") for v in kept.iter("customValue")] == ["North"]


def test_duplicate_list_view_name(page: Any, base: str, sf: Any, org: Org, ids: dict[str, str]) -> None:
    before = count(sf, "SELECT Id FROM ListView")
    page.goto(f"{base}/lightning/o/Account/listview/new")
    page.get_by_label("List Name").fill("Second copy")
    page.get_by_label("List API Name").fill(ids["view"])
    page.get_by_label("Filter 1 Field").select_option(label="Industry")
    page.get_by_label("Filter 1 Value").fill("Banking")
    page.get_by_role("button", name="Save", exact=True).first.click()
    shows_error(page, "List API Name", f"A list view with the API name {ids['view']} already exists.")
    expect(page.get_by_label("List Name")).to_have_value("Second copy")
    expect(page.get_by_label("Filter 1 Value")).to_have_value("Banking")
    assert count(sf, "SELECT Id FROM ListView") == before
    assert count(sf, "SELECT Id FROM ListView WHERE Name = 'Second copy'") == 0


def test_duplicate_app_developer_name(page: Any, base: str, sf: Any, org: Org) -> None:
    MetadataStore(org).write("CustomApplication", "Field_Ops", X.element("CustomApplication", [
        X.leaf("label", "Field Ops"), X.leaf("navType", "Standard"), X.leaf("uiType", "Lightning")]))
    page.goto(f"{base}/lightning/setup/NavigationMenus/new")
    page.get_by_label("App Name").fill("Field Ops")
    page.get_by_label("Description", exact=True).fill("Second try")
    page.get_by_role("button", name="Next", exact=True).first.click()
    shows_error(page, "Developer Name", "An app with the developer name Field_Ops already exists.")
    expect(page.get_by_label("App Name")).to_have_value("Field Ops")
    expect(page.get_by_label("Description", exact=True)).to_have_value("Second try")
    app = read(sf, "CustomApplication", "Field_Ops")
    assert app is not None and app.findtext("description") is None


def test_duplicate_permission_set_name(page: Any, base: str, sf: Any, org: Org) -> None:
    before = count(sf, "SELECT Id FROM PermissionSet")
    page.goto(classic(f"{base}/lightning/setup/PermSets/new"))
    page.get_by_label("Label", exact=True).fill("Case Helpers Two")
    page.get_by_label("API Name", exact=True).fill("Case_Helpers")
    page.get_by_label("Description", exact=True).fill("A second set")
    page.get_by_role("button", name="Save", exact=True).first.click()
    shows_error(page, "API Name", "The API name Case_Helpers is already in use.")
    expect(page.get_by_label("Label", exact=True)).to_have_value("Case Helpers Two")
    expect(page.get_by_label("Description", exact=True)).to_have_value("A second set")
    assert count(sf, "SELECT Id FROM PermissionSet") == before
    assert count(sf, "SELECT Id FROM PermissionSet WHERE Label = 'Case Helpers Two'") == 0


# --- invalid formulas --------------------------------------------------------------------------------------

def formula_wizard(page: Any, base: str) -> Any:
    page.goto(classic(f"{base}{OM}/MyBike__c/FieldsAndRelationships/new"))
    page.get_by_label("Formula", exact=True).check()
    page.get_by_role("button", name="Next", exact=True).first.click()
    page.get_by_label("Field Label").fill("Wheel Count")
    page.get_by_label("Number", exact=True).check()
    page.get_by_role("button", name="Next", exact=True).first.click()
    return page.get_by_label("Formula", exact=True)


@pytest.mark.parametrize("formula, message", [("LEN(Brand__c", "Error: Syntax error. Missing ')'."),
                                              ("Gears__c * 2", "Error: Field Gears__c does not exist.")])
def test_formula_field_with_an_invalid_formula(formula: str, message: str, page: Any, base: str, sf: Any,
                                              org: Org) -> None:
    box = formula_wizard(page, base)
    box.fill(formula)
    page.get_by_role("button", name="Next", exact=True).first.click()
    shows_error(page, "Formula", message)
    expect(box).to_have_value(formula)
    expect(page.locator("#wizard-step")).to_contain_text("Enter formula")
    assert read(sf, "CustomField", "MyBike__c.Wheel_Count__c") is None
    assert "Wheel_Count__c" not in {f["name"] for f in sf.restful("sobjects/MyBike__c/describe")["fields"]}


@pytest.mark.parametrize("formula, message", [("AND(ISBLANK(Phone), Rating = 'Hot'", "Error: Syntax error. Missing ')'."),
                                              ("Revenue__c < 0", "Error: Field Revenue__c does not exist.")])
def test_validation_rule_with_an_invalid_formula(formula: str, message: str, page: Any, base: str, sf: Any,
                                                org: Org) -> None:
    page.goto(classic(f"{base}{OM}/Account/ValidationRules/new"))
    page.get_by_label("Rule Name", exact=True).fill("Needs_Phone")
    page.get_by_label("Error Condition Formula", exact=True).fill(formula)
    page.get_by_label("Error Message", exact=True).fill("Add a phone.")
    page.get_by_role("button", name="Save", exact=True).first.click()
    shows_error(page, "Error Condition Formula", message)
    expect(page.get_by_label("Error Condition Formula", exact=True)).to_have_value(formula)
    expect(page.get_by_label("Rule Name", exact=True)).to_have_value("Needs_Phone")
    expect(page.get_by_label("Error Message", exact=True)).to_have_value("Add a phone.")
    assert read(sf, "ValidationRule", "Account.Needs_Phone") is None
