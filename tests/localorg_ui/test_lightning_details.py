"""The smaller points of Lightning's look that an agent meets on every New / Edit dialog and in the App Launcher
(issue 43, item 7), in real Chromium: no stray empty pill above a dialog's first section (a hidden submit button
drawn by the page's own button rule), picklist comboboxes as wide as the text inputs beside them, the dialog's close
X a button (as lightning/modalBase and SLDS's modal draw it), each app with its own icon in the App Launcher (its
initials on its colour, SLDS's App Launcher tile) beside All Items, and the success toast with its icon."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from pytest_cua import actions as A
from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.lightning import form, picklist, shown, status

pytestmark = pytest.mark.browser


def test_no_empty_pill_above_the_first_section_and_enter_still_saves(page: Any, base: str, org: Org) -> None:
    page.goto(f"{base}/lightning/o/Account/new")
    dialog = form(page)
    expect(dialog.get_by_role("heading", name="Account Information")).to_be_visible()
    # the form's default button (Enter saves) is not drawn: nothing between "* = Required Information" and the
    # first section's title
    default = page.locator("#record-form > button[type=submit]")
    expect(default).to_have_count(1)
    assert default.evaluate("b => b.getClientRects().length") == 0
    drawn = page.evaluate("""() => [...document.querySelectorAll('#record-form button, #record-form .slds-button')]
        .filter(b => b.getClientRects().length > 0 && !b.textContent.trim() && !b.getAttribute('title'))
        .map(b => b.outerHTML)""")
    assert drawn == []
    # Enter in a field still saves through it, as on Salesforce
    dialog.get_by_role("textbox", name="Account Name").fill("Pill Free")
    dialog.get_by_role("textbox", name="Account Name").press("Enter")
    expect(status(page)).to_have_text('Account "Pill Free" was created.')
    assert org.find("Account", Name="Pill Free")


@pytest.mark.parametrize("width", [1280, 1440, 1920])
def test_picklists_are_as_wide_as_the_text_inputs_beside_them(page: Any, base: str, org: Org, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    try:
        page.goto(f"{base}/lightning/o/Opportunity/new")
        dialog = form(page)
        stage = picklist(dialog, "Stage").bounding_box()
        name = dialog.get_by_role("textbox", name="Opportunity Name").bounding_box()  # the column above Stage
        lead_source = picklist(dialog, "Lead Source").bounding_box()
        probability = dialog.get_by_role("textbox", name="Probability").bounding_box()  # the column of Lead Source
        assert stage and name and lead_source and probability
        assert abs(stage["width"] - name["width"]) < 1 and abs(stage["x"] - name["x"]) < 1, (stage, name)
        assert abs(lead_source["width"] - probability["width"]) < 1, (lead_source, probability)
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_the_dialogs_close_x_is_a_button_that_cancels(env: BrowserEnvironment, base: str, org: Org) -> None:
    back = "/lightning/o/Account/list?q=alder&page=1"
    assert env.act(A.GoTo(f"{base}/lightning/o/Account/new?retURL={quote(back)}")).ok
    obs = env.observe(frozenset({"axtree"}))
    closes = [e for e in obs.elements.values() if e.name == "Cancel and close"]
    assert [e.role for e in closes] == ["button"], obs.axtree
    page = env.page
    assert page.evaluate("document.querySelector('.slds-modal__close').tagName") == "BUTTON"
    assert env.act(A.Click(closes[0].id)).ok
    page.wait_for_url(f"**{back}")  # the page it was opened from, its query kept
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(page.get_by_role("searchbox", name="Search this list...")).to_have_value("alder")


def test_the_dialogs_close_x_without_a_query(page: Any, base: str, org: Org) -> None:
    page.goto(f"{base}/lightning/o/Contact/new")
    form(page).get_by_role("button", name="Cancel and close").click()
    page.wait_for_url("**/lightning/o/Contact/list")
    expect(page.get_by_role("heading", name="Contacts", level=1)).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)


def _app_tiles(scope: Any) -> list[dict[str, str]]:
    return scope.evaluate("""host => [...host.shadowRoot.querySelectorAll('a[href^="/lightning/app/"]')].map(a => {
        const tile = a.closest('li');
        const initials = tile.querySelector('.slds-avatar__initials');
        // the link's text without its icon (the avatar is hidden from assistive technology)
        const text = [...a.childNodes].filter(n => !(n.querySelector && n.querySelector('[aria-hidden=true]')))
            .map(n => n.textContent).join('').trim();
        return {label: text, initials: initials ? initials.textContent.trim() : '',
                colour: initials ? getComputedStyle(initials).backgroundColor : '',
                generic: tile.querySelectorAll('lightning-icon[icon-name="standard:apps"]').length};
    })""")


def test_the_app_launcher_shows_each_apps_own_icon_and_all_items(page: Any, base: str, org: Org) -> None:
    page.goto(f"{base}/lightning/page/home")
    page.get_by_role("button", name="App Launcher").click()
    panel = page.locator("one-app-launcher")
    expect(panel.get_by_role("link", name="Sales", exact=True)).to_be_visible()  # the link's name is the app's
    expect(panel.get_by_role("link", name="Service Console", exact=True)).to_be_visible()
    tiles = _app_tiles(panel.element_handle())
    assert [t["label"] for t in tiles][:3] == ["Sales", "Service", "Marketing"]
    by_label = {t["label"]: t for t in tiles}
    assert by_label["Sales"]["initials"] == "Sa" and by_label["Service Console"]["initials"] == "SC"
    assert all(t["initials"] and t["generic"] == 0 for t in tiles), tiles
    assert len({t["colour"] for t in tiles}) == len(tiles), tiles  # each app its own colour
    panel.get_by_role("button", name="View All").click()
    dialog = page.get_by_role("dialog", name="App Launcher")
    expect(dialog.get_by_role("button", name="All Apps")).to_be_visible()
    expect(dialog.get_by_role("button", name="All Items")).to_be_visible()
    expect(dialog.get_by_role("link", name="Accounts", exact=True)).to_be_visible()
    tiles = _app_tiles(panel.element_handle())
    assert all(t["initials"] and t["generic"] == 0 for t in tiles), tiles
    assert len({t["colour"] for t in tiles}) == len(tiles), tiles
    # its close X is drawn (a bare icon, dark on the dialog's white), and closes it
    close = dialog.get_by_role("button", name="Close")
    colour = close.evaluate("b => getComputedStyle(b).color")  # the icon is drawn in the button's colour
    assert colour != "rgb(255, 255, 255)", colour
    close.click()
    expect(page.get_by_role("dialog", name="App Launcher")).to_have_count(0)


def test_the_success_toast_carries_its_icon(page: Any, base: str, org: Org) -> None:
    page.goto(f"{base}/lightning/o/Account/new")
    dialog = form(page)
    dialog.get_by_role("textbox", name="Account Name").fill("Toasted")
    dialog.get_by_role("button", name="Save", exact=True).click()
    shown(page)
    toast = page.locator(".one-toast .slds-notify_toast")
    expect(toast.get_by_role("status")).to_have_text('Account "Toasted" was created.')
    icon = toast.locator(".slds-icon_container.slds-icon-utility-success")
    expect(icon).to_have_count(1)
    assert icon.locator("use").get_attribute("href").endswith("#success")
    assert icon.locator("svg").bounding_box()["width"] > 0  # drawn
    expect(icon.locator(".slds-assistive-text")).to_have_text("Success")
    expect(toast.get_by_role("button", name="Close")).to_be_visible()


def test_a_components_dialog_draws_its_close_x(page: Any, base: str, org: Org) -> None:
    # the builders' dialogs (one-modal: Select Report, Save Report, ...) draw their X dark on its white square, as
    # lightning/modalBase does (variant "bare"), not white on white
    page.goto(f"{base}/lightning/o/Dashboard/new")
    dialog = page.get_by_role("dialog", name="New Dashboard")
    dialog.get_by_label("Name").fill("Close X")
    dialog.get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name="Close X", level=1)).to_be_visible()
    page.get_by_role("button", name="Component", exact=True).click()
    dialog = page.get_by_role("dialog", name="Select Report")
    close = dialog.get_by_role("button", name="Cancel and close")
    expect(close).to_be_visible()
    assert close.evaluate("b => getComputedStyle(b).color") != "rgb(255, 255, 255)"
    close.click()
    expect(page.get_by_role("dialog", name="Select Report")).to_have_count(0)
