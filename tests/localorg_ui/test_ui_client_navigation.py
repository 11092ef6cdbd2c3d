"""Client-side navigation between Lightning URLs, as Lightning Experience moves between its pages: a link, a posted
form, Back and Forward show the next page in the same document (the header and the navigation bar stay, with the
new current tab), with an SLDS spinner over the busy page while it is fetched; the address, the title, the page's
components and focus follow. An agent's action ends, and the next observation is made, once the page is shown.
Pages that are not Lightning pages of the shell load the ordinary way."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect
from pytest_cua import actions as A
from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui import assets

from .lightning import form
from .lightning import shown as shown_page

pytestmark = pytest.mark.browser

#: marks the document (and its header element) so that a reload is seen: a new document has neither mark
MARK_JS = "() => { window.__sameDocument = 'yes'; document.querySelector('one-global-header').__kept = 'yes'; }"
MARKS_JS = "() => [window.__sameDocument || 'reloaded', (document.querySelector('one-global-header') || {}).__kept]"


#: the page's fetches are answered 300 ms late (as by a busy server)
SLOW_FETCH_JS = """() => {
  const fetch = window.fetch;
  window.fetch = (...args) => new Promise((resolve) => setTimeout(resolve, 300)).then(() => fetch(...args));
}"""
#: a module script added to the page starts to load only after 300 ms (as from a busy server)
SLOW_SCRIPTS_JS = """() => {
  const append = Node.prototype.appendChild;
  Node.prototype.appendChild = function (child) {
    if (child instanceof HTMLScriptElement && child.type === 'module') {
      setTimeout(() => append.call(this, child), 300);
      return child;
    }
    return append.call(this, child);
  };
}"""


def open_page(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("html[data-one-ready=true]")
    page.evaluate(MARK_JS)


def shown(page: Any) -> None:
    """Wait until the navigation under way has shown its page, its components mounted (``data-one-ready``)."""
    shown_page(page)
    page.wait_for_selector("html[data-one-ready=true]")


def test_a_link_shows_the_next_page_in_the_same_document(page: Any, base: str, org: Org) -> None:
    open_page(page, f"{base}/lightning/o/Account/list")
    nav = page.locator("one-app-nav")
    expect(nav.get_by_role("link", name="Accounts", exact=True)).to_have_attribute("aria-current", "page")
    nav.get_by_role("link", name="Contacts", exact=True).click()
    expect(page).to_have_url(re.compile(r"/lightning/o/Contact/list$"))
    shown(page)
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]  # no reload: the document and the header stayed
    expect(page).to_have_title(re.compile(r"Contacts \| Salesforce$"))
    # the navigation bar took the new page's props: Contacts is the current tab now
    expect(nav.get_by_role("link", name="Contacts", exact=True)).to_have_attribute("aria-current", "page")
    expect(nav.get_by_role("link", name="Accounts", exact=True)).not_to_have_attribute("aria-current", "page")
    # the new page's list view is mounted, nothing left unmounted, and focus is on the new page
    expect(page.locator("one-list-view")).to_have_count(1)
    assert page.evaluate("document.documentElement.dataset.oneError || ''") == ""
    assert page.evaluate("document.activeElement.id") == "main"


def test_the_page_is_busy_with_a_spinner_until_the_next_one_is_shown(page: Any, base: str, org: Org) -> None:
    open_page(page, f"{base}/lightning/o/Account/list")
    held: list[Any] = []
    page.route(re.compile(r".*/lightning/o/Contact/list$"), lambda route: held.append(route))
    try:
        page.locator("one-app-nav").get_by_role("link", name="Contacts", exact=True).click()
        main = page.locator("main#main")
        expect(main).to_have_attribute("aria-busy", "true")
        expect(main.locator(".one-navigating").get_by_role("status")).to_have_text("Loading")
        assert page.evaluate("document.documentElement.dataset.oneReady") is None
        expect(page).to_have_url(re.compile(r"/lightning/o/Account/list$"))  # the address changes with the page
        for _ in range(100):  # the request reaches the route a moment after the click
            if held:
                break
            page.wait_for_timeout(20)
        assert held, "the page was not fetched"
        held[0].continue_()
        shown(page)
    finally:
        page.unroute(re.compile(r".*/lightning/o/Contact/list$"))
    expect(page).to_have_url(re.compile(r"/lightning/o/Contact/list$"))
    expect(page.locator("main#main")).not_to_have_attribute("aria-busy", "true")
    expect(page.locator("main .one-navigating")).to_have_count(0)
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]


def test_an_app_launcher_item_is_shown_in_the_same_document_and_the_launcher_closes(page: Any, base: str,
                                                                                     org: Org) -> None:
    open_page(page, f"{base}/lightning/page/home")
    page.get_by_role("button", name="App Launcher").click()
    page.get_by_role("searchbox", name="Search apps and items...").fill("price")
    page.locator("one-app-launcher").get_by_role("link", name="Price Books").click()
    expect(page).to_have_url(re.compile(r"/lightning/o/Pricebook2/list$"))
    shown(page)
    expect(page.locator("one-app-launcher")).to_have_count(0)
    expect(page.get_by_role("button", name="App Launcher")).to_have_attribute("aria-expanded", "false")
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]


def test_back_and_forward_show_the_pages_again_in_the_same_document(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Backward Forward Ltd"})["id"]
    open_page(page, f"{base}/lightning/o/Account/list")
    page.locator(f'a[href$="/lightning/r/Account/{acc}/view"]').first.click()
    expect(page).to_have_url(re.compile(rf"/lightning/r/Account/{acc}/view$"))
    shown(page)
    expect(page).to_have_title(re.compile(r"^Backward Forward Ltd \| Salesforce$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/lightning/o/Account/list$"))
    shown(page)
    expect(page).to_have_title(re.compile(r"Accounts \| Salesforce$"))
    expect(page.locator("one-record-home")).to_have_count(0)
    page.go_forward()
    expect(page).to_have_url(re.compile(rf"/lightning/r/Account/{acc}/view$"))
    shown(page)
    expect(page.locator("one-record-home")).to_have_count(1)
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]


def test_a_posted_form_shows_the_servers_answer_in_place(page: Any, base: str, sf: Any, org: Org) -> None:
    acc = sf.Account.create({"Name": "Posted In Place"})["id"]
    open_page(page, f"{base}/lightning/r/Account/{acc}/view")
    page.get_by_role("button", name="Edit", exact=True).first.click()
    shown(page)
    dialog = form(page)
    # refused: Salesforce's words, the typed values kept, nothing written, still the same document
    dialog.get_by_role("textbox", name="Account Name").fill("")
    dialog.get_by_role("textbox", name="Phone").fill("555-0100")
    dialog.get_by_role("button", name="Save", exact=True).click()
    shown(page)
    expect(form(page).get_by_text("Complete this field.").first).to_be_visible()
    expect(form(page).get_by_role("textbox", name="Phone")).to_have_value("555-0100")
    assert sf.Account.get(acc)["Phone"] is None
    # saved: the record's page with the toast
    form(page).get_by_role("textbox", name="Account Name").fill("Posted In Place Again")
    form(page).get_by_role("button", name="Save", exact=True).click()
    expect(page).to_have_url(re.compile(rf"/lightning/r/Account/{acc}/view$"))
    shown(page)
    expect(page.locator(".one-toast").get_by_role("status")).to_contain_text('"Posted In Place Again" was saved')
    assert sf.Account.get(acc)["Phone"] == "555-0100"
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]


def test_a_page_with_a_component_new_to_the_document_loads_its_script(page: Any, base: str, org: Org) -> None:
    open_page(page, f"{base}/lightning/o/Account/list")
    assert page.locator("one-analytics-home").count() == 0
    page.locator("one-app-nav").get_by_role("link", name="Reports", exact=True).click()
    expect(page).to_have_url(re.compile(r"/lightning/o/Report/home"))
    shown(page)
    expect(page.locator("one-analytics-home")).to_have_count(1)
    expect(page.get_by_role("button", name="New Report")).to_be_visible()
    scripts = page.evaluate("[...document.querySelectorAll('script[type=module]')].map(s => s.getAttribute('src'))")
    assert any("one-analytics-home-" in s for s in scripts)
    assert page.evaluate("document.documentElement.dataset.oneError || ''") == ""
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]


def test_a_framed_classic_pages_link_to_a_lightning_page_keeps_the_document(page: Any, base: str, org: Org) -> None:
    open_page(page, f"{base}/lightning/setup/ManageUsers/home")
    frame = page.frame_locator("iframe#setup-frame")
    link = frame.locator('a[target=_top][href*="/lightning/"]').first
    href = link.get_attribute("href")
    assert href
    link.click()
    expect(page).to_have_url(re.compile(re.escape(href.split("?")[0]) + r"(\?.*)?$"))
    shown(page)
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]


def test_a_page_outside_the_lightning_shell_loads_the_ordinary_way(page: Any, base: str, org: Org) -> None:
    open_page(page, f"{base}/lightning/o/Account/list")
    with page.expect_navigation():
        page.evaluate("url => window.oneNavigate(url)", assets.STYLESHEET)
    assert page.evaluate("() => window.__sameDocument || 'reloaded'") == "reloaded"


def test_an_agents_click_ends_once_the_next_page_is_shown(env: BrowserEnvironment, base: str, org: Org) -> None:
    assert env.act(A.GoTo(f"{base}/lightning/o/Account/list")).ok
    obs = env.observe(frozenset({"axtree"}))
    contacts = next(e.id for e in obs.elements.values() if e.role == "link" and e.name == "Contacts")
    page = env.page
    page.evaluate(MARK_JS)
    # the page comes only after a while: the click's action still ends with the page shown
    page.evaluate(SLOW_FETCH_JS)
    assert env.act(A.Click(contacts)).ok
    assert re.search(r"/lightning/o/Contact/list$", page.url)
    assert page.evaluate("document.querySelector('main').getAttribute('aria-busy')") is None
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]
    obs = env.observe(frozenset({"axtree"}))
    assert obs.url.endswith("/lightning/o/Contact/list")
    assert 'heading "Contacts"' in (obs.axtree or "") or 'text "Contacts"' in (obs.axtree or "")
    # a page whose component is new to the document (its script loads after the page is put in place): the action
    # still ends with the component there
    reports = next(e.id for e in obs.elements.values() if e.role == "link" and e.name == "Reports")
    page.evaluate(SLOW_SCRIPTS_JS)  # the script comes after a while, as from a busy server
    assert env.act(A.Click(reports)).ok
    obs = env.observe(frozenset({"axtree"}))
    assert 'button "New Report"' in (obs.axtree or ""), obs.axtree
    assert page.evaluate(MARKS_JS) == ["yes", "yes"]
