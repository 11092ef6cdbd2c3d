"""Setup's Classic pages in Lightning Setup's frame, as Salesforce serves them (pytest_cua/orgs/localorg/ui/
setup_frame.py): the Setup app around an iframe that holds the Classic page (``isdtp=p1``); links and forms in the
frame keep it, Lightning pages open in the top document, and the top document's address follows the frame. An
agent acts on the frame's elements through the product's browser environment, and each step's observation shows
the page the frame went to."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from pytest_cua import actions as A
from pytest_cua.envs.browser import BrowserEnvironment
from pytest_cua.observations import Observation
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui.setup_frame import CLASSIC_PAGES

from .lightning import classic, setup_frame, status

pytestmark = pytest.mark.browser


def one(obs: Observation, role: str, name: str, *, framed: bool) -> str:
    found = [e.id for e in obs.elements.values() if e.role == role and e.name == name and bool(e.frame) is framed]
    assert len(found) == 1, f"{role} {name!r} ({'in' if framed else 'outside'} the frame): {found}\n{obs.axtree}"
    return found[0]


def test_an_agent_works_a_classic_page_in_the_frame(env: BrowserEnvironment, base: str, org: Org) -> None:
    parent = org.records("UserRole")[0]
    assert env.act(A.GoTo(f"{base}/lightning/setup/Roles/home")).ok
    obs = env.observe(frozenset({"axtree"}))
    # the Setup app is the top document (its tree, Home and Object Manager); the Roles page is in the frame
    one(obs, "link", "Setup Home", framed=False)
    assert 'iframe "Roles ~ Salesforce"' in (obs.axtree or "")
    src = env.page.locator("iframe#setup-frame").get_attribute("src") or ""
    assert src.startswith("/lightning/setup/Roles/home") and src.endswith("isdtp=p1")
    # a click on the frame's New Role: the next observation is the new role's form, and the address follows
    assert env.act(A.Click(one(obs, "button", "New Role", framed=True))).ok
    obs = env.observe(frozenset({"axtree"}))
    assert env.page.url == f"{base}/lightning/setup/Roles/new"
    assert env.act(A.Fill(one(obs, "textbox", "Label", framed=True), "Night Shift Lead")).ok
    assert env.act(A.Fill(one(obs, "textbox", "This role reports to", framed=True), parent["Name"])).ok
    assert env.act(A.Click(one(obs, "button", "Save", framed=True))).ok
    role = org.find("UserRole", Name="Night Shift Lead")[0]
    obs = env.observe(frozenset({"axtree"}))
    assert 'heading "Night Shift Lead"' in (obs.axtree or "")
    assert env.page.url == f"{base}/lightning/setup/Roles/{role['Id']}/view"  # the frame's page, without isdtp
    assert env.page.title() == "Role Night Shift Lead | Salesforce"  # the frame's title
    frame_url = env.page.frame(name="setup-frame").url  # type: ignore[union-attr]
    assert frame_url.endswith(f"/lightning/setup/Roles/{role['Id']}/view?isdtp=p1")
    # the address the top document shows opens the same page again (a reload, a bookmark)
    assert env.act(A.GoTo(env.page.url)).ok
    obs = env.observe(frozenset({"axtree"}))
    assert 'heading "Night Shift Lead"' in (obs.axtree or "") and 'iframe "' in (obs.axtree or "")


def test_enter_in_a_framed_form_waits_for_the_frame(env: BrowserEnvironment, base: str, org: Org) -> None:
    assert env.act(A.GoTo(f"{base}/lightning/setup/Roles/new")).ok
    obs = env.observe(frozenset({"axtree"}))
    assert env.act(A.Fill(one(obs, "textbox", "Label", framed=True), "Harbor Desk")).ok
    assert env.act(A.Press("Enter")).ok
    obs = env.observe(frozenset({"axtree"}))
    assert 'heading "Harbor Desk"' in (obs.axtree or ""), obs.axtree
    assert env.page.url.endswith(f"/lightning/setup/Roles/{org.find('UserRole', Name='Harbor Desk')[0]['Id']}/view")


def test_a_link_to_a_lightning_page_opens_in_the_top_document(page: Any, base: str) -> None:
    page.goto(f"{base}/lightning/setup/ManageUsers/home")
    setup_frame(page).get_by_role("button", name="New User").click()
    page.wait_for_url(re.compile(r"/lightning/o/User/new\?retURL="))
    expect(page.locator("iframe#setup-frame")).to_have_count(0)
    expect(page.get_by_role("heading", name="New User")).to_be_visible()


def test_a_post_in_the_frame_answered_with_a_lightning_page_opens_it_on_top(page: Any, base: str, org: Org) -> None:
    """Freezing a user from anywhere but the user's Setup page answers with the user's Lightning record page: from
    the frame, that page opens in the top document with the message, not inside the frame."""
    user = next(u for u in org.find("User", IsActive=True) if u["Id"] != org.default_user_id)
    page.goto(f"{base}/lightning/setup/ManageUsers/{user['Id']}/view")
    expect(setup_frame(page).get_by_role("button", name="Freeze")).to_be_visible()
    frame = page.frame(name="setup-frame")
    frame.evaluate("""(uid) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/lightning/setup/ManageUsers/' + uid + '/freeze?isdtp=p1';
        form.appendChild(document.querySelector('input[name=_csrf]').cloneNode());
        document.body.appendChild(form);
        form.submit();
    }""", user["Id"])
    page.wait_for_url(f"**/lightning/r/User/{user['Id']}/view")
    expect(status(page)).to_contain_text("was frozen")
    expect(page.locator("iframe#setup-frame")).to_have_count(0)
    assert org.find("UserLogin", UserId=user["Id"])[0]["IsFrozen"] is True


def test_a_classic_page_on_its_own_with_isdtp(page: Any, base: str) -> None:
    """``isdtp=p1`` opens the Classic page without Lightning around it; its links to Classic pages keep it."""
    page.goto(classic(f"{base}/lightning/setup/Roles/home"))
    expect(page.get_by_role("heading", name="Roles", level=1)).to_be_visible()
    expect(page.get_by_role("button", name="App Launcher")).to_have_count(0)
    expect(page.locator("iframe")).to_have_count(0)
    page.get_by_role("button", name="New Role").click()
    page.wait_for_url(re.compile(r"/lightning/setup/Roles/new\?isdtp=p1$"))


def test_lightning_setup_pages_are_not_framed(page: Any, base: str) -> None:
    assert "ObjectManager" not in CLASSIC_PAGES and "SetupOneHome" not in CLASSIC_PAGES
    for path in ("/lightning/setup/SetupOneHome/home", "/lightning/setup/ObjectManager/home"):
        page.goto(f"{base}{path}")
        expect(page.get_by_role("navigation", name="Setup")).to_be_visible()
        expect(page.locator("iframe#setup-frame")).to_have_count(0)


def test_a_link_to_another_classic_page_stays_in_the_frame(page: Any, base: str, org: Org) -> None:
    """From a user's Setup page to one of the user's permission sets: the frame goes there, the top document's
    address follows, and the Setup tree selects Permission Sets."""
    sets = {p["Id"]: p for p in org.records("PermissionSet") if not p.get("IsOwnedByProfile")}
    assignment = next(a for a in org.records("PermissionSetAssignment") if a["PermissionSetId"] in sets)
    pset = sets[assignment["PermissionSetId"]]
    page.goto(f"{base}/lightning/setup/ManageUsers/{assignment['AssigneeId']}/view")
    current = page.get_by_role("navigation", name="Setup").get_by_role("treeitem", selected=True)
    expect(current).to_have_accessible_name("Users")
    setup_frame(page).get_by_role("link", name=pset["Label"], exact=True).click()
    page.wait_for_url(f"**/lightning/setup/PermSets/{pset['Id']}/view")
    expect(setup_frame(page).get_by_role("heading", name=pset["Label"], level=1)).to_be_visible()
    expect(current).to_have_accessible_name("Permission Sets")
    assert page.frame(name="setup-frame").url.endswith("isdtp=p1")  # type: ignore[union-attr]
