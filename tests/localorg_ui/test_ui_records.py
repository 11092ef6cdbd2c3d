"""The record pages in real Chromium: what the UI writes, the API reads (and the other way round)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.lightning import choose, form, status


def _id_from(url: str) -> str:
    m = re.search(r"/lightning/r/\w+/([A-Za-z0-9]{18})/view", url)
    assert m, url
    return m.group(1)


def test_unauthenticated_request_goes_to_login(ui_browser: Any, base: str, ui_server: Any, org: Org) -> None:
    context = ui_browser.new_context(ignore_https_errors=True)
    try:
        page = context.new_page()
        page.goto(f"{base}/lightning/o/Account/list?q=alder")
        assert "/login?startURL=" in page.url
        response = page.request.post(f"{base}/lightning/o/Account/new", form={"Name": "Sneaky"}, max_redirects=0)
        assert response.status == 302 and response.headers["location"].startswith("/login")
        assert not org.find("Account", Name="Sneaky")
        page.get_by_label("Username").fill(ui_server.credentials.username)
        page.get_by_label("Password").fill(ui_server.credentials.password)
        page.get_by_role("button", name="Log In").click()
        expect(page.get_by_role("heading", name="Accounts", level=1)).to_be_visible()
        assert page.url.endswith("/lightning/o/Account/list?q=alder")
        expect(page.get_by_role("searchbox", name="Search this list...")).to_have_value("alder")
    finally:
        context.close()


def test_nav_launcher_and_no_secrets_in_pages(page: Any, base: str, ui_server: Any) -> None:
    page.goto(f"{base}/lightning/page/home")
    nav = page.get_by_role("navigation", name="Global")
    for label in ("Home", "Accounts", "Contacts", "Leads", "Opportunities", "Cases", "Campaigns", "Reports",
                  "Dashboards"):
        expect(nav.get_by_role("link", name=label, exact=True)).to_be_visible()
    # the tabs that do not fit the bar are under "More", as in Lightning
    expect(nav.get_by_role("link", name="Knowledge", exact=True)).to_have_count(0)
    nav.get_by_role("button", name="More Show more navigation items", exact=True).click()
    for label in ("Knowledge", "Change Requests", "Products", "Entitlements"):
        expect(nav.get_by_role("menuitem", name=label, exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    page.get_by_role("button", name="App Launcher").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("searchbox", name="Search apps and items...").fill("price")
    expect(dialog.get_by_role("link", name="Price Books")).to_be_visible()
    expect(dialog.get_by_role("link", name="Accounts")).to_be_hidden()
    dialog.get_by_role("link", name="Price Books").click()
    expect(page.get_by_role("heading", name="Price Books", level=1)).to_be_visible()
    sid = next(c["value"] for c in page.context.cookies() if c["name"] == "sid")
    assert sid not in page.content() and "sid=" not in page.url


def test_posts_without_the_csrf_token_are_refused(page: Any, base: str, org: Org) -> None:
    accounts = org.counts()["Account"]
    forged = page.request.post(f"{base}/lightning/o/Account/new", form={"Name": "Forged", "_csrf": "guess"})
    assert forged.status == 403
    user = next(u for u in org.find("User", IsActive=True) if u["Id"] != org.default_user_id)
    frozen = page.request.post(f"{base}/lightning/setup/ManageUsers/{user['Id']}/freeze", form={})
    assert frozen.status == 403
    assert org.counts()["Account"] == accounts and not org.find("UserLogin", UserId=user["Id"])[0]["IsFrozen"]


def test_create_account_and_contact(page: Any, base: str, sf: Any) -> None:
    page.goto(f"{base}/lightning/o/Account/list")
    page.get_by_role("button", name="New", exact=True).click()
    form(page).get_by_label("Account Name", exact=True).fill("Quillfeather Labs")
    choose(page, "Industry", "Biotechnology")
    form(page).get_by_label("Phone", exact=True).fill("555-0100")
    form(page).get_by_label("Annual Revenue").fill("$1,250,000")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Quillfeather Labs", level=1)).to_be_visible()
    account_id = _id_from(page.url)
    acc = sf.Account.get(account_id)
    assert (acc["Name"], acc["Industry"], acc["Phone"], acc["AnnualRevenue"]) == \
        ("Quillfeather Labs", "Biotechnology", "555-0100", 1250000.0)

    page.get_by_role("region", name="Contacts").get_by_role("button", name="New Contact").click()
    # the account the related list belongs to is chosen already: the lookup shows it as a pill
    expect(form(page).get_by_role("button", name="Account Name Quillfeather Labs")).to_be_visible()
    choose(page, "Salutation", "Dr.")
    form(page).get_by_label("First Name").fill("Ilse")
    form(page).get_by_label("Last Name").fill("Marrow")
    form(page).get_by_label("Email", exact=True).fill("ilse@quillfeather.test")
    form(page).get_by_label("Birthdate").fill("4/9/1988")
    form(page).get_by_text("Do Not Call", exact=True).click()  # an SLDS checkbox: its label takes the click
    expect(form(page).get_by_label("Do Not Call")).to_be_checked()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Ilse Marrow", level=1)).to_be_visible()
    rows = sf.query("SELECT Name, Account.Name, Birthdate, DoNotCall, Salutation FROM Contact "
                    "WHERE Email = 'ilse@quillfeather.test'")["records"]
    assert len(rows) == 1
    assert (rows[0]["Name"], rows[0]["Account"]["Name"], rows[0]["Birthdate"], rows[0]["DoNotCall"],
            rows[0]["Salutation"]) == ("Ilse Marrow", "Quillfeather Labs", "1988-04-09", True, "Dr.")
    page.goto(f"{base}/lightning/r/Account/{account_id}/view")
    expect(page.get_by_role("region", name="Contacts").get_by_role("link", name="Ilse Marrow")).to_be_visible()


def test_edit_record_and_api_changes_show_at_once(page: Any, base: str, sf: Any, org: Org) -> None:
    opp = org.records("Opportunity")[0]
    page.goto(f"{base}/lightning/r/Opportunity/{opp['Id']}/view")
    page.get_by_role("button", name="Edit", exact=True).click()
    choose(page, "Stage", "Closed Won")
    page.get_by_label("Amount").fill("4200")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(status(page)).to_contain_text("was saved")
    got = sf.Opportunity.get(opp["Id"])
    assert (got["StageName"], got["Amount"], got["IsWon"]) == ("Closed Won", 4200.0, True)
    sf.Opportunity.update(opp["Id"], {"NextStep": "Send the contract"})
    page.reload()
    page.get_by_role("tab", name="Details").click()
    expect(page.get_by_role("tabpanel", name="Details")).to_contain_text("Send the contract")
    page.get_by_role("button", name="Show more actions").click()
    page.get_by_role("menuitem", name="Delete").click()
    page.get_by_role("button", name="Delete", exact=True).click()
    expect(page.get_by_role("heading", name="Opportunities", level=1)).to_be_visible()
    assert sf.query(f"SELECT Id FROM Opportunity WHERE Id = '{opp['Id']}'")["totalSize"] == 0


def test_required_field_and_validation_errors_write_nothing(page: Any, base: str, org: Org) -> None:
    before = org.counts().get("Lead", 0)
    page.goto(f"{base}/lightning/o/Lead/new")
    form(page).get_by_label("First Name").fill("Nobody")
    form(page).get_by_label("Email", exact=True).fill("not-an-email")
    page.get_by_role("button", name="Save", exact=True).click()
    summary = page.get_by_role("region", name="Review the errors on this page.")
    expect(summary).to_contain_text("Last Name")
    expect(summary).to_contain_text("Company")
    expect(form(page).get_by_label("Last Name")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#err-LastName")).to_have_text("Complete this field.")
    expect(page.locator("#err-Email")).to_contain_text("invalid email")
    expect(form(page).get_by_label("First Name")).to_have_value("Nobody")
    assert org.counts().get("Lead", 0) == before

    org.create("ValidationRule", {"ValidationName": "Revenue_Positive", "EntityDefinitionId": "Account",
                                  "ErrorConditionFormula": "AnnualRevenue < 0", "ErrorDisplayField": "AnnualRevenue",
                                  "ErrorMessage": "Annual revenue cannot be negative."})
    accounts = org.counts()["Account"]
    page.goto(f"{base}/lightning/o/Account/new")
    form(page).get_by_label("Account Name", exact=True).fill("Minus Corp")
    form(page).get_by_label("Annual Revenue").fill("-5")
    form(page).get_by_label("Parent Account").fill("No Such Account Anywhere")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(form(page).locator("one-lookup").filter(has_text="Parent Account")).to_contain_text("No matches found")
    form(page).get_by_label("Parent Account").fill("")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator("#err-AnnualRevenue")).to_have_text("Annual revenue cannot be negative.")
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("cannot be negative")
    assert org.counts()["Account"] == accounts


def test_list_search_sort_and_pagination(page: Any, base: str, org: Org) -> None:
    for i in range(30):
        org.create("Account", {"Name": f"Pager {i:02d}", "Phone": f"555-{i:04d}"})
    page.goto(f"{base}/lightning/o/Account/list")
    expect(page.get_by_role("heading", name="Accounts", level=1)).to_be_visible()
    page.get_by_role("searchbox", name="Search this list...").fill("pager")
    page.keyboard.press("Enter")
    expect(status(page)).to_contain_text("30 items")
    table = page.get_by_role("grid")
    expect(table.get_by_role("row")).to_have_count(26)  # header + 25
    expect(table.get_by_role("rowheader").first).to_have_text("Pager 00")
    page.get_by_role("link", name="Next").click()
    expect(table.get_by_role("rowheader")).to_have_count(5)
    expect(table.get_by_role("rowheader").last).to_have_text("Pager 29")
    page.get_by_role("button", name="Sort by: Phone").click()
    expect(status(page)).to_contain_text("Sorted by Phone")
    page.get_by_role("button", name="Sort by: Phone").click()
    expect(page).to_have_url(re.compile(r"[?&]sort=Phone&dir=desc(&|$)"))
    expect(table.get_by_role("rowheader").first).to_have_text("Pager 29")
    page.get_by_role("link", name="Next").click()
    expect(table.get_by_role("rowheader").last).to_have_text("Pager 00")
    page.get_by_role("link", name="Previous").click()
    expect(page.get_by_text("Page 1 of 2", exact=True)).to_be_visible()


def test_convert_lead(page: Any, base: str, sf: Any, org: Org) -> None:
    lead_id = org.create("Lead", {"FirstName": "Tova", "LastName": "Reyes", "Company": "Reyes Robotics",
                                  "Email": "tova@reyes.test"})
    existing = org.create("Account", {"Name": "Harbor Robotics Holding"})
    page.goto(f"{base}/lightning/r/Lead/{lead_id}/view")
    page.get_by_role("button", name="Convert").click()
    page.get_by_label("Choose Existing Account").check()
    page.get_by_label("Account Name").fill("Nope Inc")
    page.get_by_role("button", name="Convert").click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("No matches")
    assert sf.Lead.get(lead_id)["IsConverted"] is False
    page.get_by_label("Account Name").fill("Harbor Robotics Holding")
    page.get_by_label("Opportunity Name").fill("Reyes - Arms")
    page.get_by_label("Converted Status").select_option(label="Closed - Converted")
    page.get_by_role("button", name="Convert").click()
    expect(page.get_by_role("heading", name="Your lead has been converted")).to_be_visible()
    lead = sf.query(f"SELECT IsConverted, Status, ConvertedAccountId, ConvertedContactId, ConvertedOpportunityId "
                    f"FROM Lead WHERE Id = '{lead_id}'")["records"][0]
    assert lead["IsConverted"] is True and lead["Status"] == "Closed - Converted"
    assert lead["ConvertedAccountId"] == existing
    contact = sf.Contact.get(lead["ConvertedContactId"])
    assert (contact["LastName"], contact["AccountId"]) == ("Reyes", existing)
    assert sf.Opportunity.get(lead["ConvertedOpportunityId"])["Name"] == "Reyes - Arms"
    page.goto(f"{base}/lightning/o/Lead/list?q=Reyes")
    expect(status(page)).to_contain_text("0 items")

    other = org.create("Lead", {"LastName": "Solo", "Company": "Solo Sails"})
    page.goto(f"{base}/lightning/r/Lead/{other}/convert")
    page.get_by_label("Don't create an opportunity upon conversion").check()
    page.get_by_role("button", name="Convert").click()
    expect(page.get_by_role("heading", name="Your lead has been converted")).to_be_visible()
    done = org.get("Lead", other)
    assert done["ConvertedOpportunityId"] is None
    assert org.get("Account", done["ConvertedAccountId"])["Name"] == "Solo Sails"


def test_create_list_view(page: Any, base: str, sf: Any, org: Org) -> None:
    org.create("Account", {"Name": "Filterable Farms", "Industry": "Agriculture", "BillingCity": "Fresno"})
    page.goto(f"{base}/lightning/o/Account/list")
    page.get_by_role("button", name="List View Controls").click()
    page.get_by_role("menuitem", name="New", exact=True).click()
    page.get_by_label("List Name").fill("Farm Accounts")
    page.get_by_label("List API Name").fill("Farm_Accounts")
    page.get_by_label("All users can see this list view").check()
    page.get_by_label("Filter 1 Field").select_option(label="Industry")
    page.get_by_label("Filter 1 Operator").select_option(label="equals")
    page.get_by_label("Filter 1 Value").fill("Agriculture")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Farm Accounts", level=1)).to_be_visible()
    assert "view=Farm_Accounts" in page.url
    rows = page.get_by_role("grid").get_by_role("rowheader")
    names = rows.all_inner_texts()
    assert "Filterable Farms" in names
    assert all(org.find("Account", Name=n)[0]["Industry"] == "Agriculture" for n in names)
    view = sf.query("SELECT Name, DeveloperName, SobjectType, Filters, Visibility FROM ListView "
                    "WHERE DeveloperName = 'Farm_Accounts'")["records"][0]
    assert (view["Name"], view["SobjectType"], view["Visibility"]) == ("Farm Accounts", "Account", "Public")
    assert '"Industry"' in view["Filters"] and '"Agriculture"' in view["Filters"]
    # the list view picker: the views as menu items, the current one checked
    page.get_by_role("button", name="Select a List View: Accounts").click()
    expect(page.get_by_role("menuitemcheckbox", name="Farm Accounts")).to_have_attribute("aria-checked", "true")
    page.get_by_role("menuitemcheckbox", name="All Accounts").click()
    expect(page.get_by_role("heading", name="All Accounts", level=1)).to_be_visible()
    assert "view=AllAccounts" in page.url
