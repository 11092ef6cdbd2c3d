"""Lookup fields of the New and Edit dialogs are Lightning's type-ahead lookups (``one/lookup``), in real
Chromium: typing searches the records the field may point at (names starting with the text first, the object's
icon and a detail line, then "New Account"), choosing one shows it as a pill and the form posts its id, the pill's
"Clear Selection" goes back to the search; an edited record's value is a pill; the browser environment waits for a
search's results before it observes; the search endpoint answers JSON."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.orgs.localorg.store import Org

from .lightning import form, status

pytestmark = pytest.mark.browser




def _new(page: Any, base: str, sobject: str) -> Any:
    page.goto(f"{base}/lightning/o/{sobject}/new")
    page.wait_for_selector("html[data-one-ready]")
    return form(page)


def test_typing_searches_and_choosing_posts_the_record(page: Any, base: str, sf: Any, org: Org) -> None:
    sf.Account.create({"Name": "Lookup Harbor", "BillingCity": "Gdansk"})
    target = sf.Account.create({"Name": "Lookup Hill", "BillingCity": "Oslo"})["id"]
    sf.Account.create({"Name": "Old Lookup Hill"})
    dialog = _new(page, base, "Contact")
    dialog.get_by_label("Last Name").fill("Picked")
    box = dialog.get_by_role("combobox", name="Account Name")
    expect(box).to_have_attribute("placeholder", "Search Accounts...")
    box.fill("lookup h")
    options = dialog.get_by_role("listbox").get_by_role("option")
    expect(options).to_have_count(4)  # the records, then Lightning's "New Account"
    # names that start with the text first (by name), then those that hold it; each with its detail line
    expect(options.nth(0)).to_have_accessible_name("Lookup Harbor Account • Gdansk")
    expect(options.nth(1)).to_have_accessible_name("Lookup Hill Account • Oslo")
    expect(options.nth(2)).to_have_accessible_name("Old Lookup Hill Account")
    expect(options.nth(3)).to_have_accessible_name("New Account")
    expect(box).to_have_attribute("aria-expanded", "true")
    box.press("ArrowDown")
    box.press("ArrowDown")
    expect(box).to_have_attribute("aria-activedescendant", options.nth(1).get_attribute("id") or "")
    box.press("Enter")  # chooses the active option, does not submit
    expect(dialog.get_by_role("button", name="Account Name Lookup Hill")).to_be_visible()
    assert page.locator('input[type=hidden][name="AccountId"]').input_value() == target
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(status(page)).to_contain_text('Contact "Picked" was created.')
    rec = sf.query("SELECT AccountId FROM Contact WHERE LastName = 'Picked'")["records"][0]
    assert rec["AccountId"] == target


def test_an_edited_records_value_is_a_pill_that_can_be_removed(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Pill Holder"})["id"]
    other = sf.Account.create({"Name": "Pill Taker"})["id"]
    con = sf.Contact.create({"LastName": "Pilled", "AccountId": acc})["id"]
    page.goto(f"{base}/lightning/r/Contact/{con}/edit")
    page.wait_for_selector("html[data-one-ready]")
    dialog = form(page)
    pill = dialog.get_by_role("button", name="Account Name Pill Holder")
    expect(pill).to_be_visible()
    field = dialog.locator("one-lookup").filter(has_text="Account Name")  # each pill has its Clear Selection
    field.get_by_role("button", name="Clear Selection").click()
    box = dialog.get_by_role("combobox", name="Account Name")
    expect(box).to_be_focused()
    box.fill("pill t")
    dialog.get_by_role("option", name="Pill Taker Account").click()
    chosen = dialog.get_by_role("button", name="Account Name Pill Taker")
    expect(chosen).to_be_focused()
    chosen.press("Backspace")  # as lightning-pill: Backspace or Delete removes the chosen record
    expect(box).to_be_focused()
    expect(box).to_have_value("")
    box.fill("pill t")
    dialog.get_by_role("option", name="Pill Taker Account").click()
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(status(page)).to_contain_text("was saved")
    assert sf.Contact.get(con)["AccountId"] == other


def test_a_name_no_record_has_is_the_fields_error(page: Any, base: str, sf: Any, org: Org) -> None:
    dialog = _new(page, base, "Contact")
    dialog.get_by_label("Last Name").fill("Nowhere")
    box = dialog.get_by_role("combobox", name="Account Name")
    box.fill("No Such Company Zz")
    expect(dialog.get_by_text('No results for "No Such Company Zz"')).to_be_visible()
    dialog.get_by_role("button", name="Save", exact=True).click()
    dialog = form(page)
    box = dialog.get_by_role("combobox", name="Account Name")
    expect(box).to_have_value("No Such Company Zz")  # kept as typed
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(dialog.get_by_text('No matches found for "No Such Company Zz".', exact=True)).to_be_visible()
    expect(box).to_have_accessible_description('No matches found for "No Such Company Zz".')


def test_the_environment_waits_for_a_search_before_it_observes(env: BrowserEnvironment, base: str, sf: Any,
                                                               org: Org) -> None:
    from pytest_cua import actions as A
    from pytest_cua.agents.locators import resolve_locator

    sf.Account.create({"Name": "Observed Later"})
    env.page.goto(f"{base}/lightning/o/Contact/new")
    env.page.wait_for_selector("html[data-one-ready]")
    obs = env.observe(frozenset({"axtree"}))
    box = resolve_locator('role=combobox[name="Account Name"]', obs.elements)
    result = env.act(A.Fill(box, "observed l"))
    assert result.ok, result.error
    obs = env.observe(frozenset({"axtree"}))  # taken at once: the results are there already
    assert resolve_locator('role=option[name*="Observed Later"]', obs.elements)


def test_the_search_answers_json(page: Any, base: str, sf: Any, org: Org) -> None:
    sf.Account.create({"Name": "Json Lookup"})
    page.goto(f"{base}/lightning/o/Contact/new")
    answer = page.request.get(f"{base}/lightning/lookup/Contact/AccountId?q=json%20look")
    assert answer.ok
    (hit,) = answer.json()["results"]
    assert hit["name"] == "Json Lookup" and hit["objectLabel"] == "Account" and hit["iconName"] == "standard:account"
    owners = page.request.get(f"{base}/lightning/lookup/Case/OwnerId?q=a").json()["results"]
    assert owners and {o["objectLabel"] for o in owners} <= {"User", "Queue"}  # never a role group
    missing = page.request.get(f"{base}/lightning/lookup/Contact/LastName?q=x")
    assert missing.status == 404 and "no lookup field Contact.LastName" in missing.json()["error"]
