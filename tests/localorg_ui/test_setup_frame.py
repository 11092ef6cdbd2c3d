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
from pytest_cua.orgs.localorg.ui.setup_frame import CLASSIC_PAGES, classic_rule, classic_segment

from .lightning import classic, setup_frame, status

pytestmark = pytest.mark.browser


def one(obs: Observation, role: str, name: str, *, framed: bool, twice: bool = False) -> str:
    """The id of the element of ``role`` and ``name`` in (or outside) the frame; ``twice``: a button of a Classic
    page block, drawn above and below it (as on Salesforce): there are two, and the first (the top row's) is
    returned."""
    found = [e.id for e in obs.elements.values() if e.role == role and e.name == name and bool(e.frame) is framed]
    assert len(found) == (2 if twice else 1), \
        f"{role} {name!r} ({'in' if framed else 'outside'} the frame): {found}\n{obs.axtree}"
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
    assert env.act(A.Click(one(obs, "button", "Save", framed=True, twice=True))).ok
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


def test_a_classic_blocks_buttons_are_above_and_below_it_and_either_submits(page: Any, base: str, org: Org) -> None:
    """Classic's page blocks (setup/_classic.html) draw their buttons in the block's header and again below its body,
    as Salesforce's edit and detail pages do: two "Save" buttons around the form's fields, and the bottom one saves
    as the top one does; the saved page's message is in the page (Classic's), not a toast over the top buttons."""
    page.goto(f"{base}/lightning/setup/Roles/new")
    frame = setup_frame(page)
    saves = frame.get_by_role("button", name="Save", exact=True)
    expect(saves).to_have_count(2)
    expect(frame.locator(".bPageBlock .pbHeader .pbButton").get_by_role("button", name="Save", exact=True)).to_be_visible()
    expect(frame.locator(".bPageBlock .pbBottomButtons .pbButtonb").get_by_role("button", name="Save", exact=True)) \
        .to_be_visible()
    expect(frame.get_by_role("button", name="Cancel", exact=True)).to_have_count(2)
    label = frame.get_by_role("textbox", name="Label", exact=True)
    top, field, bottom = (b.bounding_box() for b in (saves.first, label, saves.last))
    assert top is not None and field is not None and bottom is not None
    assert top["y"] < field["y"] < bottom["y"], (top, field, bottom)
    label.fill("Dock Supervisor")
    saves.last.click()
    expect(frame.get_by_role("heading", name="Dock Supervisor", exact=True)).to_be_visible()
    assert org.find("UserRole", Name="Dock Supervisor")
    # the role's page: its Details block has Edit above and below, and the message sits in the page
    expect(frame.locator(".bDetailBlock").get_by_role("button", name="Edit", exact=True)).to_have_count(2)
    message = frame.get_by_role("status")
    expect(message).to_have_class(re.compile(r"\bmessage\b"))
    edit = frame.get_by_role("button", name="Edit", exact=True).first
    m, e = message.bounding_box(), edit.bounding_box()
    assert m is not None and e is not None and m["y"] + m["height"] <= e["y"], (m, e)


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
    expect(setup_frame(page).get_by_role("button", name="Freeze").first).to_be_visible()
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
    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    expect(page.get_by_role("navigation", name="Setup")).to_be_visible()
    expect(page.locator("iframe#setup-frame")).to_have_count(0)
    # Object Manager's own pages are Lightning pages without the Setup tree, as on Salesforce
    for path in ("/lightning/setup/ObjectManager/home", "/lightning/setup/ObjectManager/Account/Details/view",
                 "/lightning/setup/ObjectManager/Account/FieldsAndRelationships/view",
                 "/lightning/setup/ObjectManager/Account/ValidationRules/view"):
        page.goto(f"{base}{path}")
        expect(page.get_by_role("heading", name=re.compile("^(Object Manager|Account)$"), level=1)).to_be_visible()
        expect(page.get_by_role("navigation", name="Setup")).to_have_count(0)
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


OM_PATHS = {  # Object Manager's addresses, and whether Salesforce serves each as a Classic page in the frame
    "ObjectManager/home": False, "ObjectManager/new": True, "ObjectManager/Account/Details/view": False,
    "ObjectManager/Account/edit": True, "ObjectManager/Account/FieldsAndRelationships/view": False,
    "ObjectManager/Account/FieldsAndRelationships/new": True,
    "ObjectManager/Account/FieldsAndRelationships/Name/view": True,
    "ObjectManager/Case/FieldsAndRelationships/Priority/values/new": True,
    "ObjectManager/Account/ValidationRules/view": False, "ObjectManager/Account/ValidationRules/03d000000000001/edit": True,
    "ObjectManager/Account/LightningPages/view": False, "ObjectManager/Account/LightningPages/new": False,
    "Roles/home": True, "SetupOneHome/home": False, "NavigationMenus/home": False,
}


def test_the_frame_rule_reads_alike_on_the_server_and_in_the_framed_page(page: Any, base: str) -> None:
    """The server frames a page by ``classic_segment``; a framed page's script keeps a link in the frame by the same
    rule, as JavaScript reads it (``classic_rule``)."""
    assert {p: classic_segment(f"/lightning/setup/{p}") is not None for p in OM_PATHS} == OM_PATHS
    page.goto(classic(f"{base}/lightning/setup/Roles/home"))
    rule = classic_rule()
    in_js = page.evaluate("""([rule, paths]) => Object.fromEntries(paths.map((p) => [p,
        rule.segments.includes(p.split('/')[0]) || new RegExp(rule.objectManager).test(p)]))""", [rule, list(OM_PATHS)])
    assert in_js == OM_PATHS


def test_an_agent_makes_a_field_in_object_managers_frame(env: BrowserEnvironment, base: str, org: Org) -> None:
    """Object Manager is Lightning (no Setup tree; the object's header and navigation); its New Custom Field wizard
    is a Classic page in the frame beside the object's navigation, as on Salesforce. An agent finds the object
    with Quick Find, opens Fields & Relationships, and works the wizard through the frame."""
    assert env.act(A.GoTo(f"{base}/lightning/setup/ObjectManager/home")).ok
    obs = env.observe(frozenset({"axtree"}))
    assert not [e for e in obs.elements.values() if e.role == "treeitem"]  # no Setup tree on Object Manager
    assert env.act(A.Fill(one(obs, "searchbox", "Quick Find", framed=False), "opportunity")).ok
    obs = env.observe(frozenset({"axtree"}))
    shown = sum("opportunity" in f"{o.label} {o.name}".lower() for o in org.schema.objects.values())
    assert f'text "{shown} Items, Sorted by Label"' in (obs.axtree or "") and 'link "Account"' not in (obs.axtree or "")
    assert env.act(A.Click(one(obs, "link", "Opportunity", framed=False))).ok
    obs = env.observe(frozenset({"axtree"}))
    assert env.page.url == f"{base}/lightning/setup/ObjectManager/Opportunity/Details/view"
    assert 'heading "Opportunity"' in (obs.axtree or "")
    # the Setup bar's tab and the breadcrumbs' link
    assert 'navigation "Breadcrumbs"' in (obs.axtree or "")
    assert len([e for e in obs.elements.values() if e.role == "link" and e.name == "Object Manager"]) == 2
    assert env.act(A.Click(one(obs, "link", "Fields & Relationships", framed=False))).ok
    obs = env.observe(frozenset({"axtree"}))
    fields = org.schema.get("Opportunity")
    assert fields is not None and f'text "{len(fields.fields)} Items, Sorted by Field Label"' in (obs.axtree or "")
    assert env.act(A.Fill(one(obs, "searchbox", "Quick Find", framed=False), "close date")).ok
    obs = env.observe(frozenset({"axtree"}))
    assert 'text "1 Item, Sorted by Field Label"' in (obs.axtree or "")
    assert env.act(A.Click(one(obs, "button", "New", framed=False))).ok
    obs = env.observe(frozenset({"axtree"}))
    assert env.page.url == f"{base}/lightning/setup/ObjectManager/Opportunity/FieldsAndRelationships/new"
    assert 'iframe "New Custom Field ~ Salesforce"' in (obs.axtree or "")
    one(obs, "link", "Fields & Relationships", framed=False)  # the object's navigation stays beside the frame
    assert env.act(A.Click(one(obs, "radio", "Checkbox", framed=True))).ok
    assert env.act(A.Click(one(obs, "button", "Next", framed=True, twice=True))).ok
    obs = env.observe(frozenset({"axtree"}))
    assert env.act(A.Fill(one(obs, "textbox", "Field Label", framed=True), "Strategic")).ok
    for _ in range(3):  # field-level security, then page layouts, then Save
        assert env.act(A.Click(one(obs, "button", "Next", framed=True, twice=True))).ok
        obs = env.observe(frozenset({"axtree"}))
        if any(e.role == "button" and e.name == "Save" and e.frame for e in obs.elements.values()):
            break
    assert env.act(A.Click(one(obs, "button", "Save", framed=True, twice=True))).ok
    obs = env.observe(frozenset({"axtree"}))
    assert 'heading "Strategic"' in (obs.axtree or "")  # the field's page, in the frame
    assert env.page.url == f"{base}/lightning/setup/ObjectManager/Opportunity/FieldsAndRelationships/Strategic__c/view"
    # the object's navigation goes back to its list of fields, the new field in it
    assert env.act(A.Click(one(obs, "link", "Fields & Relationships", framed=False))).ok
    obs = env.observe(frozenset({"axtree"}))
    assert 'iframe "' not in (obs.axtree or "") and 'link "Strategic"' in (obs.axtree or "")
