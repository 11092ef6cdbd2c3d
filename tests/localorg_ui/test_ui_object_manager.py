"""The Object Manager and Tabs pages in real Chromium: a custom object with its tab through the wizards, an object's
description and a field's help text, lookup and formula fields with field-level security; each read back over the
Metadata API (readMetadata, SOAP) and the REST describe. Bad input keeps what was typed and saves nothing."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from playwright.sync_api import expect

from pytest_cua.orgs import mdapi
from pytest_cua.orgs.localorg.store import Org
from .lightning import classic, setup_frame, shown, status


def read(sf: Any, type_name: str, full_name: str) -> ET.Element | None:
    """One component over readMetadata (None when the org has none)."""
    response = mdapi.call(sf, "readMetadata", f"<type>{escape(type_name)}</type>"
                                              f"<fullNames>{escape(full_name)}</fullNames>")
    for record in response.iter("records"):
        if record.findtext("fullName"):
            return record
    return None


def visibility(profile: ET.Element | None, tab: str) -> str | None:
    for v in (profile.iter("tabVisibilities") if profile is not None else []):
        if v.findtext("tab") == tab:
            return v.findtext("visibility")
    return None


def readable(profile: ET.Element | None, field: str) -> bool:
    return any(fp.findtext("field") == field and fp.findtext("readable") == "true"
               for fp in (profile.iter("fieldPermissions") if profile is not None else []))


def next_button(page: Any) -> Any:
    return page.get_by_role("button", name="Next", exact=True).first


def test_custom_object_then_its_tab_through_the_wizards(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    page.get_by_role("searchbox", name="Quick Find").fill("object")
    setup_nav = page.get_by_role("navigation", name="Setup")
    expect(setup_nav.get_by_role("link", name="Roles")).to_be_hidden()
    setup_nav.get_by_role("link", name="Object Manager").click()
    page.get_by_role("button", name="Create").click()
    page.keyboard.press("Escape")
    expect(page.get_by_role("menuitem", name="Custom Object")).to_be_hidden()
    page.get_by_role("button", name="Create").click()
    page.get_by_role("menuitem", name="Custom Object").click()
    frame = setup_frame(page)  # New Custom Object, then the Custom Tab wizard: Classic pages, in Setup's frame
    frame.get_by_label("Label", exact=True).fill("WildBird")
    frame.get_by_label("Plural Label").fill("WildBirds")
    frame.get_by_label("Launch New Custom Tab Wizard after saving this custom object").check()
    frame.get_by_role("button", name="Save", exact=True).first.click()

    expect(frame.get_by_role("heading", name="New Custom Object Tab")).to_be_visible()
    expect(frame.get_by_label("Object", exact=True)).to_have_value("WildBird__c")
    next_button(frame).click()  # no style chosen yet
    expect(frame.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Tab Style")
    frame.get_by_role("button", name="Tab Style").click()
    frame.get_by_role("dialog", name="Tab Style Selector").get_by_role("button", name="Bridge", exact=True).click()
    expect(frame.get_by_role("dialog", name="Tab Style Selector")).to_be_hidden()
    next_button(frame).click()
    frame.get_by_label("Tab Visibility for all profiles").select_option(label="Default Off")
    frame.get_by_label("Tab Visibility for System Administrator").select_option(label="Default On")
    next_button(frame).click()
    frame.get_by_label("Select/Deselect All").uncheck()
    frame.get_by_label("Include Tab in Sales", exact=True).check()
    assert read(sf, "CustomTab", "WildBird__c") is None  # nothing is written before Save
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("status")).to_contain_text('Tab "WildBird" was created.')

    assert sf.restful("sobjects/WildBird__c/describe")["labelPlural"] == "WildBirds"
    tab = read(sf, "CustomTab", "WildBird__c")
    assert tab is not None and tab.findtext("motif") == "Custom37: Bridge"
    assert visibility(read(sf, "Profile", "Admin"), "WildBird__c") == "DefaultOn"
    assert visibility(read(sf, "Profile", "Standard"), "WildBird__c") == "DefaultOff"
    apps = {name: [t.text for t in (read(sf, "CustomApplication", name) or ET.Element("x")).iter("tabs")]
            for name in ("standard__Sales", "standard__Service")}
    assert "WildBird__c" in apps["standard__Sales"] and "WildBird__c" not in apps["standard__Service"]


def test_new_custom_object_errors_keep_what_was_typed(page: Any, base: str, org: Org) -> None:
    before = set(org.schema.objects)
    page.goto(classic(f"{base}/lightning/setup/ObjectManager/new"))
    page.get_by_label("Label", exact=True).fill("Account")
    page.get_by_label("Object Name").fill("Bad__Name")
    page.get_by_label("Description").fill("kept")
    page.get_by_role("button", name="Save", exact=True).first.click()
    summary = page.get_by_role("region", name="Review the errors on this page.")
    expect(summary).to_contain_text("Plural Label")
    expect(summary).to_contain_text("API name")
    expect(page.get_by_label("Description")).to_have_value("kept")
    page.get_by_label("Plural Label").fill("Accounts")
    page.get_by_label("Object Name").fill("Spare_Part")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name="Account", exact=True)).to_be_visible()
    assert set(org.schema.objects) - before == {"Spare_Part__c"}
    page.goto(classic(f"{base}/lightning/setup/ObjectManager/new"))
    page.get_by_label("Label", exact=True).fill("Spare Part")
    page.get_by_label("Plural Label").fill("Spare Parts")
    page.get_by_role("button", name="Save", exact=True).first.click()  # Object Name derived: Spare_Part again
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("already exists")


def test_object_description_and_field_help_text(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/ObjectManager/new"))
    page.get_by_label("Label", exact=True).fill("MyBike")
    page.get_by_label("Plural Label").fill("MyBikes")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name="MyBike", exact=True)).to_be_visible()  # Object Manager's object page
    page.get_by_role("navigation", name="MyBike").get_by_role("link", name="Fields & Relationships").click()
    page.get_by_role("button", name="New", exact=True).click()
    frame = setup_frame(page)  # the New Custom Field wizard: a Classic page in the frame, the object's menu beside
    frame.get_by_label("Text", exact=True).check()
    next_button(frame).click()
    frame.get_by_label("Field Label").fill("Brand")
    next_button(frame).click()
    next_button(frame).click()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("heading", name="Brand")).to_be_visible()
    expect(page.get_by_role("link", name="Fields & Relationships")).to_have_attribute("aria-current", "page")

    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    page.get_by_role("searchbox", name="Quick Find").first.fill("Object Manager")
    page.get_by_role("navigation", name="Setup").get_by_role("link", name="Object Manager").click()
    shown(page)  # Object Manager's page, not Setup Home's Quick Find still in place
    page.get_by_role("searchbox", name="Quick Find").last.fill("mybike")
    expect(page.get_by_role("link", name="Account", exact=True)).to_be_hidden()
    expect(page.get_by_text("1 Item, Sorted by Label")).to_be_visible()  # the table's count follows
    page.get_by_role("link", name="MyBike", exact=True).click()
    page.get_by_role("button", name="Edit").first.click()
    frame.get_by_label("Description").fill("This is the name of the Bike")
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name="Details")).to_be_visible()  # the frame's save led to the top page
    page.get_by_role("link", name="Fields & Relationships").click()
    page.get_by_role("link", name="Brand", exact=True).click()
    frame.get_by_role("button", name="Edit").first.click()
    frame.get_by_label("Help Text").fill("This is the brand name of the Bike")
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("status")).to_contain_text('Field "Brand" was saved.')

    obj = read(sf, "CustomObject", "MyBike__c")
    field = read(sf, "CustomField", "MyBike__c.Brand__c")
    assert obj is not None and obj.findtext("description") == "This is the name of the Bike"
    assert field is not None and field.findtext("inlineHelpText") == "This is the brand name of the Bike"
    assert field.findtext("type") == "Text" and field.findtext("length") == "255"
    assert "Brand__c" in {f["name"] for f in sf.restful("sobjects/MyBike__c/describe")["fields"]}


def test_lookup_field_visible_to_two_profiles(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/ObjectManager/new"))
    page.get_by_label("Label", exact=True).fill("Favorite")
    page.get_by_label("Plural Label").fill("Favorites")
    page.get_by_role("button", name="Save", exact=True).first.click()
    page.goto(classic(f"{base}/lightning/setup/ObjectManager/Favorite__c/FieldsAndRelationships/new"))
    page.get_by_label("Lookup Relationship").check()
    next_button(page).click()
    page.get_by_label("Related To").select_option(label="Contact")
    next_button(page).click()
    expect(page.get_by_label("Field Label")).to_have_value("Contact")
    next_button(page).click()
    page.get_by_label("Visible", exact=True).uncheck()
    page.get_by_label("Visible for System Administrator").check()
    page.get_by_label("Visible for Solution Manager").check()
    next_button(page).click()
    page.get_by_role("button", name="Previous").first.click()  # the choices come back
    expect(page.get_by_label("Visible for Solution Manager")).to_be_checked()
    expect(page.get_by_label("Visible for Standard User")).not_to_be_checked()
    next_button(page).click()
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name="Contact", exact=True)).to_be_visible()

    field = read(sf, "CustomField", "Favorite__c.Contact__c")
    assert field is not None and (field.findtext("type"), field.findtext("referenceTo")) == ("Lookup", "Contact")
    seers = {p for p in ("Admin", "SolutionManager", "Standard", "MarketingProfile")
             if readable(read(sf, "Profile", p), "Favorite__c.Contact__c")}
    assert seers == {"Admin", "SolutionManager"}
    contact = next(iter(org.records("Contact")))
    sf.Favorite__c.create({"Name": "Top", "Contact__c": contact["Id"]})
    rows = sf.query("SELECT Name, Contact__r.LastName FROM Favorite__c")["records"]
    assert rows[0]["Contact__r"]["LastName"] == contact["LastName"]


def test_formula_field_with_a_bad_formula_then_a_good_one(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/setup/ObjectManager/Opportunity/FieldsAndRelationships/view")
    page.get_by_role("button", name="New", exact=True).click()
    frame = setup_frame(page)
    frame.get_by_label("Formula", exact=True).check()
    next_button(frame).click()
    frame.get_by_label("Field Label").fill("Days to close")
    frame.get_by_label("Number", exact=True).check()
    next_button(frame).click()
    formula = frame.get_by_label("Formula", exact=True)
    formula.fill("CloseDat - TODAY(")
    frame.get_by_role("button", name="Check Syntax").first.click()
    expect(frame.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Missing ')'")
    expect(formula).to_have_value("CloseDat - TODAY(")
    formula.fill("CloseDat - TODAY()")
    next_button(frame).click()
    expect(frame.get_by_role("region", name="Review the errors on this page.")).to_contain_text(
        "Field CloseDat does not exist")
    formula.fill("")
    frame.get_by_label("Insert Field").select_option(label="Close Date (CloseDate)")
    formula.press("End")
    formula.type(" - TODAY()")
    frame.get_by_role("button", name="Check Syntax").first.click()
    expect(frame.get_by_role("status")).to_contain_text("No syntax errors")
    next_button(frame).click()
    expect(frame.get_by_label("Read-Only for Marketing User")).to_be_disabled()
    frame.get_by_label("Visible", exact=True).uncheck()
    frame.get_by_label("Visible for Marketing User").check()
    next_button(frame).click()
    assert read(sf, "CustomField", "Opportunity.Days_to_close__c") is None
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("heading", name="Days to close")).to_be_visible()

    field = read(sf, "CustomField", "Opportunity.Days_to_close__c")
    assert field is not None and field.findtext("formula") == "CloseDate - TODAY()"
    assert field.findtext("type") == "Number"
    assert readable(read(sf, "Profile", "MarketingProfile"), "Opportunity.Days_to_close__c")
    assert not readable(read(sf, "Profile", "Admin"), "Opportunity.Days_to_close__c")
    described = {f["name"]: f for f in sf.restful("sobjects/Opportunity/describe")["fields"]}
    assert described["Days_to_close__c"]["updateable"] is False


def test_the_wizards_work_from_the_keyboard(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/ObjectManager/new"))
    page.get_by_label("Label", exact=True).fill("Keyed")
    page.keyboard.press("Tab")
    page.keyboard.type("Keyeds")
    page.keyboard.press("Enter")  # Enter submits
    expect(page.get_by_role("heading", name="Keyed", exact=True)).to_be_visible()
    page.goto(classic(f"{base}/lightning/setup/CustomTabs/new"))
    page.get_by_label("Object", exact=True).select_option(label="Keyed")
    page.get_by_role("button", name="Tab Style").focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Tab Style Selector")
    expect(dialog).to_be_visible()
    page.keyboard.press("Escape")  # Escape closes the picker
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Tab Style").click()
    dialog.get_by_role("button", name="Sun", exact=True).focus()
    page.keyboard.press("Enter")
    expect(status(page).or_(page.locator("output"))).to_have_text("Sun")
    next_button(page).focus()
    page.keyboard.press("Enter")
    next_button(page).click()
    page.get_by_role("button", name="Save", exact=True).first.click()
    tab = read(sf, "CustomTab", "Keyed__c")
    assert tab is not None and tab.findtext("motif") == "Custom3: Sun"
    assert visibility(read(sf, "Profile", "Standard"), "Keyed__c") == "DefaultOn"  # the defaults


def test_picklist_values_added_reordered_renamed_and_defaulted(page: Any, base: str, sf: Any, org: Org) -> None:
    lead = org.create("Lead", {"LastName": "Rename", "Company": "Rename Co", "Status": "Closed - Not Converted"})
    page.goto(f"{base}/lightning/setup/ObjectManager/Case/FieldsAndRelationships/view")
    page.get_by_role("link", name="Priority", exact=True).click()
    frame = setup_frame(page)  # a field's page is a Classic page in the frame
    values = frame.get_by_role("region", name="Values")
    expect(values.get_by_role("link", name="Edit Medium")).to_be_visible()
    values.get_by_role("button", name="New").click()
    # the textbox, not the label: until the new-values page loads, "Values" also names the field page's region
    frame.get_by_role("textbox", name="Values").fill("Urgent\nHigh")
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Duplicate value: High")
    expect(frame.get_by_role("textbox", name="Values")).to_have_value("Urgent\nHigh")
    frame.get_by_role("textbox", name="Values").fill("Urgent")
    frame.get_by_role("button", name="Save", exact=True).first.click()
    frame.get_by_role("button", name="Reorder").click()
    frame.get_by_label("Picklist Values").select_option("Low")
    frame.get_by_role("button", name="Move to Top").click()
    frame.get_by_label("Picklist Values").select_option("Urgent")
    frame.get_by_role("button", name="Up", exact=True).click()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    frame.get_by_role("link", name="Edit Low").click()
    frame.get_by_label("Default").check()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("status")).to_contain_text('Picklist value "Low" was saved.')

    body = read(sf, "StandardValueSet", "CasePriority")
    assert body is not None
    entries = [(v.findtext("fullName"), v.findtext("default")) for v in body.iter("standardValue")]
    assert entries == [("Low", "true"), ("High", "false"), ("Urgent", "false"), ("Medium", "false")]
    described = {f["name"]: f for f in sf.restful("sobjects/Case/describe")["fields"]}
    assert [v["value"] for v in described["Priority"]["picklistValues"]] == ["Low", "High", "Urgent", "Medium"]

    page.goto(classic(f"{base}/lightning/setup/ObjectManager/Lead/FieldsAndRelationships/Status/view"))
    page.get_by_role("link", name="Edit Closed - Not Converted").click()
    page.get_by_label("Label").fill("Closed - Incomplete")
    page.get_by_role("button", name="Save", exact=True).first.click()
    names = [v.findtext("fullName") for v in (read(sf, "StandardValueSet", "LeadStatus") or ET.Element("x"))
             .iter("standardValue")]
    assert names[-1] == "Closed - Incomplete" and "Closed - Not Converted" not in names
    assert org.get("Lead", lead)["Status"] == "Closed - Incomplete"  # records holding the old value follow


def test_global_value_set_sorted(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    page.get_by_role("searchbox", name="Quick Find").fill("picklist")
    page.get_by_role("link", name="Picklist Value Sets").first.click()
    frame = setup_frame(page)
    frame.get_by_role("button", name="New").click()
    frame.get_by_label("Label", exact=True).fill("Ingredients")
    frame.get_by_label("Values", exact=True).fill("sugar\nbutter\nSugar")
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Duplicate")
    expect(frame.get_by_label("Values", exact=True)).to_have_value("sugar\nbutter\nSugar")
    frame.get_by_label("Values", exact=True).fill("sugar\nbutter\nmilk")
    frame.get_by_label("Sort values alphabetically, not in the order entered").check()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("heading", name="Ingredients")).to_be_visible()
    body = read(sf, "GlobalValueSet", "Ingredients")
    assert body is not None and body.findtext("sorted") == "true"
    assert [v.findtext("fullName") for v in body.iter("customValue")] == ["butter", "milk", "sugar"]


def test_dynamic_forms_field_visibility_on_a_record_page(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/setup/ObjectManager/Account/Details/view")
    page.get_by_role("link", name="Lightning Record Pages").click()
    page.get_by_role("button", name="New").click()
    page.get_by_role("button", name="Save", exact=True).first.click()
    summary = page.get_by_role("region", name="Review the errors on this page.")
    expect(summary).to_contain_text("Label")
    expect(summary).to_contain_text("at least one field")
    page.get_by_label("Label", exact=True).fill("Account Record Page")
    page.get_by_label("Add Field").select_option(label="Annual Revenue")
    page.get_by_role("button", name="Add", exact=True).click()
    page.get_by_label("Filter Field 1").select_option(label="Rating")
    page.get_by_label("Filter Operator 1").select_option(label="Equal")
    page.get_by_label("Filter Value 1").fill("Hot")
    page.get_by_role("button", name="Add Filter to Annual Revenue").click()
    expect(page.get_by_role("group", name="Annual Revenue")).to_contain_text("{!Record.Rating} Equal Hot")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("article", name="Lightning Record Pages")).to_contain_text("Account_Record_Page")
    body = read(sf, "FlexiPage", "Account_Record_Page")
    assert body is not None and body.findtext("sobjectType") == "Account"
    instance = next(body.iter("fieldInstance"))
    criteria = instance.find("visibilityRule/criteria")
    assert instance.findtext("fieldItem") == "Record.AnnualRevenue" and criteria is not None
    assert (criteria.findtext("leftValue"), criteria.findtext("operator"), criteria.findtext("rightValue")) == \
        ("{!Record.Rating}", "EQUAL", "Hot")
