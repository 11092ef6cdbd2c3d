"""Lookups and related lists as Lightning Experience draws them (issue 43, item 4), in real Chromium:

- a lookup's list ends with "New <Object>" (lightning-base-combobox's inline option, utility:add), reached by the
  arrow keys or a click; it opens the New <Object> dialog over the form, whose record becomes the field's pill;
- a chosen record's pill is removed with "Clear Selection" (lightning-base-combobox's label);
- a related list's card shows "New" (its name stays the list's "New Contact");
- the owner of a New dialog starts with the current user as its pill.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org

from .lightning import form, status

pytestmark = pytest.mark.browser


def _new(page: Any, base: str, sobject: str) -> Any:
    page.goto(f"{base}/lightning/o/{sobject}/new")
    page.wait_for_selector("html[data-one-ready]")
    return form(page)


def test_the_lookup_list_ends_with_new_object_which_creates_the_record(page: Any, base: str, sf: Any,
                                                                       org: Org) -> None:
    sf.Account.create({"Name": "Brandnew Existing"})
    dialog = _new(page, base, "Contact")
    dialog.get_by_label("Last Name").fill("Nested")
    box = dialog.get_by_role("combobox", name="Account Name")
    box.fill("Brandnew")
    options = dialog.get_by_role("listbox").get_by_role("option")
    expect(options).to_have_count(2)
    expect(options.nth(0)).to_have_accessible_name("Brandnew Existing Account")
    new = options.nth(1)
    expect(new).to_have_accessible_name("New Account")  # after the records, as Lightning's list ends
    expect(new.locator("lightning-icon")).to_have_attribute("icon-name", "utility:add")
    box.press("ArrowDown")
    box.press("ArrowDown")  # the arrow keys reach it
    expect(box).to_have_attribute("aria-activedescendant", new.get_attribute("id") or "")
    new.click()
    nested = page.get_by_role("dialog", name="New Account")
    expect(nested).to_be_visible()
    name = nested.get_by_label("Account Name")
    expect(name).to_have_value("Brandnew")  # what was typed, as Lightning fills it
    expect(name).to_be_focused()
    name.fill("Brandnew Made")
    nested.get_by_role("button", name="Save", exact=True).click()
    expect(nested).to_have_count(0)
    made = sf.query("SELECT Id FROM Account WHERE Name = 'Brandnew Made'")["records"]
    assert len(made) == 1
    # the new record is the field's pill, and the Contact saves with it
    expect(dialog.get_by_role("button", name="Account Name Brandnew Made")).to_be_focused()
    assert page.locator('input[type=hidden][name="AccountId"]').input_value() == made[0]["Id"]
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(status(page)).to_contain_text('Contact "Nested" was created.')
    rec = sf.query("SELECT AccountId FROM Contact WHERE LastName = 'Nested'")["records"][0]
    assert rec["AccountId"] == made[0]["Id"]


def test_the_nested_new_dialog_shows_the_servers_errors_and_cancels(page: Any, base: str, sf: Any,
                                                                    org: Org) -> None:
    dialog = _new(page, base, "Opportunity")
    box = dialog.get_by_role("combobox", name="Account Name")
    box.fill("Nobody Such")
    dialog.get_by_role("option", name="New Account").click()
    nested = page.get_by_role("dialog", name="New Account")
    nested.get_by_label("Account Name").fill("")
    nested.get_by_role("button", name="Save", exact=True).click()
    expect(nested.get_by_role("alert")).to_contain_text("Account Name")  # the required field the server names
    nested.get_by_role("button", name="Cancel", exact=True).click()
    expect(nested).to_have_count(0)
    expect(box).to_be_focused()
    assert not sf.query("SELECT Id FROM Account WHERE Name = ''")["records"]


def test_user_lookups_offer_no_new(page: Any, base: str, sf: Any, org: Org) -> None:
    dialog = _new(page, base, "Account")
    owner = dialog.locator("one-lookup").filter(has_text="Account Owner")
    owner.get_by_role("button", name="Clear Selection").click()
    box = dialog.get_by_role("combobox", name="Account Owner")
    box.fill("a")
    expect(dialog.get_by_role("option").first).to_be_visible()
    expect(dialog.get_by_role("option", name="New User")).to_have_count(0)  # Lightning: users are made in Setup


def test_the_pill_is_cleared_with_clear_selection(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Cleared Holder"})["id"]
    con = sf.Contact.create({"LastName": "Cleared", "AccountId": acc})["id"]
    page.goto(f"{base}/lightning/r/Contact/{con}/edit")
    page.wait_for_selector("html[data-one-ready]")
    dialog = form(page)
    field = dialog.locator("one-lookup").filter(has_text="Account Name")
    clear = field.get_by_role("button", name="Clear Selection", exact=True)
    expect(clear).to_have_attribute("title", "Clear Selection")
    expect(field.get_by_role("button", name="Remove selected option")).to_have_count(0)
    clear.click()
    expect(dialog.get_by_role("combobox", name="Account Name")).to_be_focused()
    assert page.locator('input[type=hidden][name="AccountId"]').input_value() == ""


def test_a_related_list_card_shows_new(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Card Holder"})["id"]
    page.goto(f"{base}/lightning/r/Account/{acc}/view")
    page.wait_for_selector("html[data-one-ready]")
    card = page.get_by_role("region", name="Contacts")
    button = card.get_by_role("button", name="New Contact")  # its name: the demonstrations click it so
    expect(button).to_have_text("New")  # what the card shows, as Lightning's card
    button.click()
    dialog = page.get_by_role("dialog", name="New Contact")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("button", name="Account Name Card Holder")).to_be_visible()
    # a list Salesforce gives a button of its own keeps its label
    opp = sf.Opportunity.create({"Name": "Quoted", "StageName": "Prospecting", "CloseDate": "2030-01-01",
                                 "AccountId": acc})["id"]
    page.goto(f"{base}/lightning/r/Opportunity/{opp}/view")
    page.wait_for_selector("html[data-one-ready]")
    quotes = page.get_by_role("region", name="Quotes")
    if quotes.count():
        expect(quotes.get_by_role("button", name="New Quote")).to_have_text("New Quote")


def test_the_owner_of_a_new_dialog_is_the_current_user(page: Any, base: str, sf: Any, org: Org) -> None:
    dialog = _new(page, base, "Account")
    posted = page.locator('input[type=hidden][name="OwnerId"]').input_value()
    user = org.get("User", posted)
    assert user is not None, f"the owner field posts {posted!r}, not a user"
    pill = dialog.get_by_role("button", name=f"Account Owner {user['Name']}")
    expect(pill).to_be_visible()
    dialog.get_by_label("Account Name").fill("Owned By Me")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(status(page)).to_contain_text('Account "Owned By Me" was created.')
    rec = sf.query("SELECT OwnerId, CreatedById FROM Account WHERE Name = 'Owned By Me'")["records"][0]
    assert rec["OwnerId"] == posted == rec["CreatedById"]  # the session's user
