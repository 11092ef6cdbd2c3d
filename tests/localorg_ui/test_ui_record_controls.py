"""Record page controls with Salesforce's names, in real Chromium, read back over the API: View Account
Hierarchy, the opportunity path's Mark as Current Stage, the Related tab's cards and View All, Add Products (price book
and quote), Add Leads -> Next -> Submit, an incident's Add New Change Request, the convert page's Account
Search, and the field labels of Salesforce's standard fields."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org

from tests.localorg_ui.lightning import form, status


def _standard_book(sf: Any) -> str:
    rows = sf.query("SELECT Id FROM Pricebook2 WHERE Name = 'Standard Price Book'")["records"]
    return str(rows[0]["Id"])


def _product(sf: Any, name: str, price: float) -> str:
    pid = sf.Product2.create({"Name": name, "IsActive": True})["id"]
    sf.PricebookEntry.create({"Pricebook2Id": _standard_book(sf), "Product2Id": pid, "UnitPrice": price,
                              "IsActive": True})
    return str(pid)


def test_view_account_hierarchy(page: Any, base: str, sf: Any, org: Org) -> None:
    top = sf.Account.create({"Name": "Lyly Apple HQ"})["id"]
    asia = sf.Account.create({"Name": "Lyly Pear Asia", "ParentId": top})["id"]
    sf.Account.create({"Name": "Lyly Cherry Europe", "ParentId": top})
    page.goto(f"{base}/lightning/r/Account/{asia}/view")
    page.get_by_role("button", name="View Account Hierarchy").click()
    tree = page.get_by_role("region", name="Account Hierarchy")
    expect(tree.get_by_role("link")).to_have_text(["Lyly Apple HQ", "Lyly Cherry Europe", "Lyly Pear Asia"])
    expect(tree.get_by_role("link", name="Lyly Pear Asia")).to_have_attribute("aria-current", "page")
    tree.get_by_role("link", name="Lyly Apple HQ").click()
    expect(page.get_by_role("heading", name="Lyly Apple HQ", level=1)).to_be_visible()


def test_mark_as_current_stage(page: Any, base: str, sf: Any, org: Org) -> None:
    opp = sf.Opportunity.create({"Name": "Path Deal", "StageName": "Prospecting", "CloseDate": "2026-12-31"})["id"]
    page.goto(f"{base}/lightning/r/Opportunity/{opp}/view")
    path = page.get_by_role("listbox", name="Stage")
    expect(path.get_by_role("option", selected=True)).to_have_accessible_name("Current Stage: Prospecting")
    path.get_by_role("option", name="Value Proposition").click()
    page.get_by_role("button", name="Mark as Current Stage").click()
    expect(status(page)).to_have_text("Stage changed successfully.")
    expect(path.get_by_role("option", selected=True)).to_have_accessible_name("Current Stage: Value Proposition")
    assert sf.Opportunity.get(opp)["StageName"] == "Value Proposition"


def test_related_tab_and_view_all(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Viewall Works"})["id"]
    for n in range(3):
        sf.Contact.create({"LastName": f"Member{n}", "AccountId": acc})
    page.goto(f"{base}/lightning/r/Account/{acc}/view")
    page.get_by_role("tab", name="Details").click()
    page.get_by_role("tab", name="Related").click()
    card = page.get_by_role("article").filter(has=page.get_by_role("heading", name="Contacts (3)"))
    card.get_by_role("link", name="View All").click()
    expect(page).to_have_url(re.compile(re.escape(f"/lightning/r/Account/{acc}/related/Contacts/view") + "$"))
    expect(page.get_by_role("heading", name="Contacts", level=1)).to_be_visible()
    expect(page.get_by_role("row")).to_have_count(4)  # header + three contacts
    page.get_by_role("link", name="Member2").click()
    expect(page.get_by_role("heading", name="Member2", level=1)).to_be_visible()


def test_add_products_to_a_price_book(page: Any, base: str, sf: Any, org: Org) -> None:
    product = _product(sf, "ThermalMax Test", 199.0)
    book = sf.Pricebook2.create({"Name": "Holiday Test", "IsActive": True})["id"]
    page.goto(f"{base}/lightning/r/Pricebook2/{book}/view")
    page.get_by_role("button", name="Add Products").click()
    page.get_by_label("ThermalMax Test").check()
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_label("List Price")).to_have_value("199")  # the standard price to start with
    page.get_by_label("List Price").fill("150")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(status(page)).to_have_text("1 product added to Holiday Test.")
    entries = sf.query(f"SELECT UnitPrice, IsActive, Product2Id FROM PricebookEntry WHERE Pricebook2Id = '{book}'")
    assert [(e["UnitPrice"], e["IsActive"], e["Product2Id"]) for e in entries["records"]] == [(150.0, True, product)]


def test_add_products_to_a_quote(page: Any, base: str, sf: Any, org: Org) -> None:
    product = _product(sf, "QuoteMax Test", 200.0)
    opp = sf.Opportunity.create({"Name": "Quote Deal", "StageName": "Prospecting", "CloseDate": "2026-12-31"})["id"]
    quote = sf.Quote.create({"Name": "Holiday Quote", "OpportunityId": opp})["id"]
    page.goto(f"{base}/lightning/r/Quote/{quote}/view")
    page.get_by_role("button", name="Add Products").click()
    page.get_by_label("Price Book").select_option(label="Standard Price Book")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_label("QuoteMax Test").check()
    page.get_by_role("button", name="Next").click()
    page.get_by_label("Quantity").fill("10")
    page.get_by_label("Discount").fill("10")
    expect(page.get_by_label("Sales Price")).to_have_value("200")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(status(page)).to_have_text("1 product added to Holiday Quote.")
    lines = sf.query(f"SELECT Product2Id, Quantity, UnitPrice, Discount FROM QuoteLineItem WHERE QuoteId = '{quote}'")
    assert [(r["Product2Id"], r["Quantity"], r["UnitPrice"], r["Discount"]) for r in lines["records"]] == \
        [(product, 10.0, 200.0, 10.0)]
    assert sf.Quote.get(quote)["Pricebook2Id"] == _standard_book(sf)


def test_add_leads_to_a_campaign(page: Any, base: str, sf: Any, org: Org) -> None:
    camp = sf.Campaign.create({"Name": "Shoe Launch Test"})["id"]
    ali = sf.Lead.create({"FirstName": "Ali", "LastName": "Alabatest", "Company": "Runners"})["id"]
    leo = sf.Lead.create({"FirstName": "Leo", "LastName": "Messitest", "Company": "Runners"})["id"]
    page.goto(f"{base}/lightning/r/Campaign/{camp}/view")
    page.get_by_role("region", name="Campaign Members").get_by_role("button", name="Add Leads").click()
    page.get_by_role("searchbox", name="Search Leads").fill("test")
    page.get_by_role("button", name="Search", exact=True).click()
    page.get_by_label("Ali Alabatest").check()
    page.get_by_label("Leo Messitest").check()
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_label("Member Status")).to_have_value("Sent")
    page.get_by_role("button", name="Submit").click()
    expect(status(page)).to_have_text("2 members added to Shoe Launch Test.")
    members = sf.query(f"SELECT LeadId, Status FROM CampaignMember WHERE CampaignId = '{camp}'")["records"]
    assert sorted((m["LeadId"], m["Status"]) for m in members) == sorted([(ali, "Sent"), (leo, "Sent")])


def test_add_new_change_request_of_an_incident(page: Any, base: str, sf: Any, org: Org) -> None:
    incident = sf.Incident.create({"Subject": "Auth outage test"})["id"]
    page.goto(f"{base}/lightning/r/Incident/{incident}/view")
    page.get_by_role("tab", name="Related").click()
    page.get_by_role("region", name="Change Requests").get_by_role("button", name="Add New Change Request").click()
    page.get_by_label("Subject").fill("Upgrade auth servers")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Upgrade auth servers", level=1)).to_be_visible()
    links = sf.query("SELECT ChangeRequest.Subject FROM ChangeRequestRelatedIssue "
                     f"WHERE RelatedIssueId = '{incident}'")["records"]
    assert [r["ChangeRequest"]["Subject"] for r in links] == ["Upgrade auth servers"]
    page.goto(f"{base}/lightning/r/Incident/{incident}/view")
    expect(page.get_by_role("region", name="Change Requests").get_by_role("link", name="Upgrade auth servers")) \
        .to_be_visible()


def test_convert_with_account_search(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Knight Test LLC"})["id"]
    lead = sf.Lead.create({"FirstName": "Frank", "LastName": "Knighttest", "Company": "Knight Test LLC"})["id"]
    page.goto(f"{base}/lightning/r/Lead/{lead}/convert")
    expect(page.get_by_role("group", name="1 Account Match").get_by_role("radio", name="Knight Test LLC")) \
        .to_be_visible()
    page.get_by_role("radio", name="Choose Existing Account").check()
    page.get_by_label("Account Search").fill("Knight Test LLC")
    page.get_by_label("Opportunity Name").fill("Knight Test Opportunity")
    page.get_by_role("button", name="Convert").click()
    expect(page.get_by_role("heading", name="Your lead has been converted")).to_be_visible()
    assert sf.Lead.get(lead)["ConvertedAccountId"] == acc
    assert sf.query("SELECT COUNT() FROM Account WHERE Name = 'Knight Test LLC'")["totalSize"] == 1


def test_salesforce_field_labels_in_forms_and_record_pages(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/o/Account/new")
    for label in ("Account Name", "Parent Account", "Employees"):
        expect(form(page).get_by_label(label, exact=True)).to_be_visible()
    page.goto(f"{base}/lightning/o/Case/new")
    for label in ("Contact Name", "Account Name"):
        expect(form(page).get_by_label(label, exact=True)).to_be_visible()
    for label in ("Case Origin", "Case Reason"):  # picklists: Lightning comboboxes
        expect(page.get_by_role("combobox", name=label, exact=True)).to_be_visible()
    page.goto(f"{base}/lightning/o/Order/new")
    # a date: lightning-input type="date", its textbox named by the label (the label also holds the required "*")
    expect(form(page).get_by_role("textbox", name="Order Start Date", exact=True)).to_be_visible()
    entitlement = sf.Entitlement.create({"Name": "Label Check", "AccountId": sf.Account.create({"Name": "Lbl"})["id"]})
    page.goto(f"{base}/lightning/r/Entitlement/{entitlement['id']}/view")
    page.get_by_role("tab", name="Details").click()
    details = page.get_by_role("tabpanel", name="Details")
    expect(details.get_by_text(re.compile(r"^Entitlement Name$"))).to_be_visible()
    expect(details.get_by_role("link", name="Lbl")).to_be_visible()
