"""A record's home in the embedded org is Lightning's (``one-record-home``), driven in real Chromium and read back
over the API: the highlights panel (object label above the name, compact layout fields, Follow, "Show more
actions"), the path (step states, "Mark Stage as Complete", the closing dialog, a lead's "Converted" step, a
case's status), the Related tab's cards ("Contacts (6+)", six rows, the row menu) and the Details tab's sections
(compound addresses, "Account Owner", "Created By", inline-edit pencils, collapsing)."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org

from .lightning import choose, status


def _open(page: Any, base: str, sobject: str, rid: str) -> None:
    page.goto(f"{base}/lightning/r/{sobject}/{rid}/view")
    page.wait_for_selector("html[data-one-ready]")


def test_highlights_panel(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Highlight Works", "Type": "Prospect", "Phone": "555-0100",
                             "Industry": "Energy"})["id"]
    _open(page, base, "Account", acc)
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_have_accessible_name("Account Highlight Works")  # the object's label above the name
    fields = page.locator(".slds-page-header__detail-row li")
    expect(fields.locator(".slds-text-title")).to_have_text(
        ["Type", "Phone", "Website", "Account Owner", "Account Site", "Industry"])
    expect(fields.nth(0)).to_contain_text("Prospect")
    expect(fields.nth(3).get_by_role("link")).to_have_text(org.get("User", org.default_user_id)["Name"])
    follow = page.get_by_role("button", name="Follow")
    follow.click()
    expect(page.get_by_role("button", name=re.compile("Following|Unfollow"))).to_be_visible()
    page.get_by_role("button", name="Show more actions").click()
    expect(page.get_by_role("menuitem")).to_have_text(["Delete"])
    page.get_by_role("menuitem", name="Delete").click()
    page.get_by_role("button", name="Delete", exact=True).click()
    expect(page.get_by_text('Account "Highlight Works" was deleted.')).to_be_visible()
    assert sf.query(f"SELECT Id FROM Account WHERE Id = '{acc}'")["totalSize"] == 0


def test_path_marks_stages_complete_and_closes(page: Any, base: str, sf: Any, org: Org) -> None:
    opp = sf.Opportunity.create({"Name": "Path Close", "StageName": "Qualification", "CloseDate": "2026-12-31"})["id"]
    _open(page, base, "Opportunity", opp)
    expect(page.get_by_text("12/31/2026").first).to_be_visible()  # a date as Salesforce shows it (en-US)
    expect(page.get_by_text("2026-12-31")).to_have_count(0)
    path = page.get_by_role("listbox", name="Stage")
    options = path.get_by_role("option")
    expect(options.first).to_have_accessible_name("Stage Complete Prospecting")
    expect(options.nth(1)).to_have_accessible_name("Current Stage: Qualification")
    expect(options.last).to_have_accessible_name("Closed")  # Closed Won and Closed Lost are one step
    # the current step selected: the button completes it, the next stage becomes current
    page.get_by_role("button", name="Mark Stage as Complete").click()
    expect(status(page)).to_have_text("Stage changed successfully.")
    assert sf.Opportunity.get(opp)["StageName"] == "Needs Analysis"
    # the closing step: a dialog chooses the closed stage
    path.get_by_role("option", name="Closed").click()
    page.get_by_role("button", name="Select Closed Stage").click()
    dialog = page.get_by_role("dialog", name="Close This Opportunity")
    expect(dialog.get_by_role("button", name="Save")).to_be_disabled()
    choose(page, "Stage", "Closed Won")
    dialog.get_by_role("button", name="Save").click()
    expect(status(page)).to_have_text("Stage changed successfully.")
    got = sf.Opportunity.get(opp)
    assert (got["StageName"], got["IsWon"]) == ("Closed Won", True)
    expect(options.last).to_have_accessible_name("Current Stage: Closed Won")
    expect(page.get_by_role("button", name="Change Closed Stage")).to_be_visible()


def test_path_of_a_lead_and_a_case(page: Any, base: str, sf: Any, org: Org) -> None:
    lead = sf.Lead.create({"LastName": "Pathfinder", "Company": "Path Co", "Status": "Open - Not Contacted"})["id"]
    _open(page, base, "Lead", lead)
    path = page.get_by_role("listbox", name="Lead Status")
    expect(path.get_by_role("option").last).to_have_accessible_name("Converted")  # the converted statuses' step
    path.get_by_role("option", name="Working - Contacted").click()
    page.get_by_role("button", name="Mark as Current Status").click()
    expect(status(page)).to_have_text("Status changed successfully.")
    assert sf.Lead.get(lead)["Status"] == "Working - Contacted"
    path.get_by_role("option", name="Converted", exact=True).click()
    page.get_by_role("button", name="Select Converted Status").click()  # conversion is the only way there
    expect(page).to_have_url(re.compile(f"/lightning/r/Lead/{lead}/convert$"))
    case = sf.Case.create({"Subject": "Path case", "Status": "New"})["id"]
    _open(page, base, "Case", case)
    page.get_by_role("listbox", name="Status").get_by_role("option", name="Closed").click()
    page.get_by_role("button", name="Mark as Current Status").click()
    expect(status(page)).to_have_text("Status changed successfully.")
    assert sf.Case.get(case)["IsClosed"] is True


def test_path_post_is_checked(page: Any, base: str, sf: Any, org: Org) -> None:
    lead = sf.Lead.create({"LastName": "Sneaky", "Company": "Post Co"})["id"]
    _open(page, base, "Lead", lead)
    token = page.evaluate("() => document.querySelector('one-record-home').csrf")
    post = page.request.post
    # a converted status only by conversion; a value not in the picklist; no CSRF token; an object without a path
    answer = post(f"{base}/lightning/r/Lead/{lead}/path", form={"value": "Closed - Converted", "_csrf": token},
                  max_redirects=0)
    assert answer.status == 303 and answer.headers["location"].endswith(f"/lightning/r/Lead/{lead}/convert")
    answer = post(f"{base}/lightning/r/Lead/{lead}/path", form={"value": "Bogus", "_csrf": token}, max_redirects=0)
    assert answer.status == 303 and answer.headers["location"].endswith(f"/lightning/r/Lead/{lead}/view")
    assert post(f"{base}/lightning/r/Lead/{lead}/path", form={"value": "Working - Contacted"}).status == 403
    acc = sf.Account.create({"Name": "No Path"})["id"]
    assert post(f"{base}/lightning/r/Account/{acc}/path", form={"value": "x", "_csrf": token}).status == 404
    assert sf.Lead.get(lead)["Status"] == "Open - Not Contacted"


def test_related_cards_show_six_rows_and_count(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Seven Contacts"})["id"]
    for n in range(7):
        sf.Contact.create({"LastName": f"Card{n}", "AccountId": acc})
    _open(page, base, "Account", acc)
    card = page.get_by_role("region", name="Contacts", exact=True)
    expect(card.get_by_role("heading", level=2)).to_have_text("Contacts (6+)")
    expect(card.get_by_role("row")).to_have_count(7)  # header + six rows
    card.get_by_role("button", name=re.compile("Show actions")).first.click()
    page.get_by_role("menuitem", name="Edit").click()
    expect(page.get_by_role("heading", name=re.compile("^Edit Card"), level=1)).to_be_visible()
    _open(page, base, "Account", acc)
    page.get_by_role("region", name="Contacts", exact=True).get_by_role("link", name="Contacts (6+)").click()
    expect(page.get_by_role("row")).to_have_count(8)  # View All: header + seven


def test_details_sections(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Detail Works", "BillingStreet": "1 Market St", "BillingCity": "San Francisco",
                             "BillingState": "CA", "BillingPostalCode": "94105", "BillingCountry": "USA",
                             "Description": "Our best customer"})["id"]
    _open(page, base, "Account", acc)
    page.get_by_role("tab", name="Details").click()
    details = page.get_by_role("tabpanel", name="Details")
    expect(details.get_by_role("heading", level=3)).to_have_text(
        ["Account Information", "Address Information", "Description Information", "System Information"])
    address = details.get_by_role("listitem").filter(has_text="Billing Address")
    expect(address).to_contain_text("1 Market St\nSan Francisco, CA 94105\nUSA", use_inner_text=True)
    first = details.get_by_role("listitem").first
    expect(first).to_contain_text("Account Owner")
    created = details.get_by_role("listitem").filter(has_text="Created By")
    expect(created.get_by_role("link")).to_have_text(org.get("User", org.default_user_id)["Name"])
    expect(created.get_by_role("button")).to_have_count(0)  # system fields have no pencil
    # a section collapses and opens again
    toggle = details.get_by_role("button", name="Description Information")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(details.get_by_text("Our best customer")).to_have_count(0)
    toggle.click()
    expect(details.get_by_text("Our best customer")).to_be_visible()
    details.get_by_role("button", name="Edit Account Name").click()
    expect(page).to_have_url(re.compile(f"/lightning/r/Account/{acc}/edit$"))


def test_list_view_row_menu_opens_edit_and_delete(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Aaa Row Menu"})["id"]  # sorted first by name
    page.goto(f"{base}/lightning/o/Account/list")
    page.get_by_role("button", name=re.compile("Show actions")).first.click()
    page.get_by_role("menuitem", name="Edit").click()
    expect(page).to_have_url(re.compile(f"/lightning/r/Account/{acc}/edit$"))
    page.goto(f"{base}/lightning/o/Account/list")
    page.get_by_role("button", name=re.compile("Show actions")).first.click()
    page.get_by_role("menuitem", name="Delete").click()
    expect(page).to_have_url(re.compile(f"/lightning/r/Account/{acc}/delete$"))


def test_the_activity_tab_composes_and_lists_activities(page: Any, base: str, sf: Any, org: Org) -> None:
    """The Activity tab: New Task, Log a Call and New Event open the activity's form with the record filled in
    (Log a Call as a task of subtype Call); the timeline lists open tasks and events to come under "Upcoming &
    Overdue", logged calls and done tasks under "Past Activities", each a link to its record."""
    opp = sf.Opportunity.create({"Name": "Activity Deal", "StageName": "Prospecting", "CloseDate": "2026-12-31"})["id"]
    _open(page, base, "Opportunity", opp)
    page.get_by_role("tab", name="Activity").click()
    expect(page.get_by_role("region", name="Upcoming & Overdue")).to_contain_text(
        "No next steps. To get things moving, add a task or set up a meeting.")
    expect(page.get_by_role("region", name="Past Activities")).to_contain_text("No past activity.")
    sf.Task.create({"Subject": "Send the proposal", "WhatId": opp, "Status": "Not Started",
                    "ActivityDate": "2099-01-15"})
    sf.Task.create({"Subject": "Kick-off done", "WhatId": opp, "Status": "Completed", "ActivityDate": "2024-03-01"})
    _open(page, base, "Opportunity", opp)
    page.get_by_role("tab", name="Activity").click()
    upcoming = page.get_by_role("region", name="Upcoming & Overdue")
    expect(upcoming.get_by_role("link", name="Send the proposal")).to_be_visible()
    expect(upcoming).to_contain_text("1/15/2099")
    past = page.get_by_role("region", name="Past Activities")
    expect(past.get_by_role("link", name="Kick-off done")).to_be_visible()
    page.get_by_role("button", name="Log a Call").click()
    page.wait_for_url(re.compile(r"/lightning/o/Task/new\?"))
    dialog = page.get_by_role("dialog")
    dialog.get_by_role("textbox", name="Subject").fill("Called about the timeline")
    dialog.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_url(re.compile(rf"/lightning/r/(Opportunity/{opp}|Task/\w+)/view"))
    calls = sf.query("SELECT Subject, TaskSubtype, WhatId FROM Task WHERE Subject = 'Called about the timeline'")
    assert [(r["TaskSubtype"], r["WhatId"]) for r in calls["records"]] == [("Call", opp)]
    _open(page, base, "Opportunity", opp)
    page.get_by_role("tab", name="Activity").click()
    expect(page.get_by_role("region", name="Past Activities").get_by_role("link", name="Called about the timeline")
           ).to_be_visible()
    for label, sobject in (("New Task", "Task"), ("New Event", "Event")):
        _open(page, base, "Opportunity", opp)
        page.get_by_role("tab", name="Activity").click()
        page.get_by_role("button", name=label).click()
        page.wait_for_url(re.compile(rf"/lightning/o/{sobject}/new\?.*WhatId={opp}"))
