"""Setup controls named as in Salesforce, in real Chromium, each read back over the API: the grouped Setup tree
and its Quick Find, Setup's Create menu, Check Syntax and the Functions list of formulas, Save & New of roles,
the entitlement process's Next, the approval actions' Add New menu, a permission set group's Add Permission Set
(alphabetical index, Add, Done), Setup's user page (User Detail, Permission Set Group Assignments > Edit
Assignments) and the dueling member lists of queues and public groups."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from .lightning import classic, setup_frame, shown, status


def test_setup_tree_groups_and_quick_find(page: Any, base: str) -> None:
    """Setup's tree (lightning-tree): sections of collapsed groups; a group's label expands and collapses it;
    Quick Find keeps the matching pages with their groups open."""
    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    nav = page.get_by_role("navigation", name="Setup")
    for section in ("Administration", "Platform Tools", "Settings"):
        expect(nav.get_by_role("tree", name=section)).to_be_visible()
    for group in ("Users", "Feature Settings", "Process Automation", "Objects and Fields"):
        expect(nav.get_by_role("treeitem", name=group, exact=True)).to_have_attribute("aria-expanded", "false")
    expect(nav.get_by_role("link", name="Approval Processes")).to_have_count(0)  # collapsed: not there
    automation = nav.get_by_role("treeitem", name="Process Automation", exact=True)
    automation.get_by_role("link", name="Process Automation").click()  # a group's label expands it ...
    expect(automation).to_have_attribute("aria-expanded", "true")
    expect(nav.get_by_role("link", name="Approval Processes")).to_be_visible()
    automation.get_by_role("link", name="Process Automation").click()  # ... and collapses it
    expect(nav.get_by_role("link", name="Approval Processes")).to_have_count(0)
    nav.get_by_role("searchbox", name="Quick Find").fill("Approval")  # Quick Find opens the groups it finds in
    expect(nav.get_by_role("link", name="Approval Processes")).to_be_visible()
    expect(nav.get_by_role("link", name="Roles")).to_have_count(0)
    expect(nav.get_by_role("tree", name="Administration")).to_have_count(0)  # a section with nothing found
    nav.get_by_role("searchbox", name="Quick Find").fill("Entitlement Management")  # a group's name: all its pages
    expect(nav.get_by_role("link", name="Entitlement Processes")).to_be_visible()
    expect(nav.get_by_role("link", name="Approval Processes")).to_have_count(0)
    nav.get_by_role("searchbox", name="Quick Find").fill("no such page")
    expect(nav).to_contain_text("No results. Didn't find what you're looking for? Try using Global Search.")
    nav.get_by_role("searchbox", name="Quick Find").fill("Milestones")
    nav.get_by_role("link", name="Milestones").click()
    expect(page).to_have_url(re.compile(r"/lightning/o/MilestoneType/list"))


def test_setup_tree_selects_the_current_page(page: Any, base: str) -> None:
    """On a Setup page the tree opens the page's groups and selects its item; the others stay collapsed."""
    page.goto(f"{base}/lightning/setup/EntitlementProcess/home")
    nav = page.get_by_role("navigation", name="Setup")
    selected = nav.get_by_role("treeitem", selected=True)
    expect(selected).to_have_count(1)
    expect(selected).to_have_accessible_name("Entitlement Processes")
    for group in ("Feature Settings", "Service", "Entitlement Management"):
        expect(nav.get_by_role("treeitem", name=group, exact=True)).to_have_attribute("aria-expanded", "true")
    expect(nav.get_by_role("treeitem", name="Users", exact=True)).to_have_attribute("aria-expanded", "false")
    expect(nav.get_by_role("treeitem", name="Sales", exact=True)).to_have_attribute("aria-expanded", "false")


def test_setup_create_menu_opens_the_custom_tab_wizard(page: Any, base: str) -> None:
    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    page.get_by_role("button", name="Create").click()
    expect(page.get_by_role("menuitem", name="Custom Object")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("menuitem", name="Custom Tab")).to_be_hidden()
    page.get_by_role("button", name="Create").click()
    page.get_by_role("menuitem", name="Custom Tab").click()
    frame = setup_frame(page)
    expect(page).to_have_url(re.compile(r"/lightning/setup/CustomTabs/new"))
    expect(frame.get_by_label("Object", exact=True)).to_be_visible()


def test_validation_rule_check_syntax_and_functions(page: Any, base: str, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/ObjectManager/Account/ValidationRules/new"))
    page.get_by_label("Rule Name").fill("Number_Length")
    formula = page.get_by_label("Error Condition Formula")
    formula.fill("LEN(NoSuchField) <> 8")
    page.get_by_role("button", name="Check Syntax").first.click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("NoSuchField")
    expect(page.get_by_label("Rule Name")).to_have_value("Number_Length")
    formula = page.get_by_label("Error Condition Formula")
    formula.fill("")
    page.get_by_label("Functions").select_option(label="LEN")
    expect(formula).to_have_value("LEN(text)")
    formula.fill("LEN(AccountNumber) <> 8")
    page.get_by_role("button", name="Check Syntax").first.click()
    expect(status(page)).to_contain_text("No syntax errors")
    expect(page.get_by_label("Error Condition Formula")).to_have_value("LEN(AccountNumber) <> 8")
    page.get_by_label("Error Message").fill("The account number has 8 characters.")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name=re.compile("Number_Length"))).to_be_visible()
    [rule] = org.find("ValidationRule", ValidationName="Number_Length")
    assert rule["ErrorConditionFormula"] == "LEN(AccountNumber) <> 8"


def test_validation_rule_check_syntax_writes_nothing(page: Any, base: str, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/ObjectManager/Account/ValidationRules/new"))
    page.get_by_label("Rule Name").fill("Checked_Only")
    page.get_by_label("Error Condition Formula").fill("ISBLANK(Phone)")
    page.get_by_role("button", name="Check Syntax").first.click()
    expect(status(page)).to_contain_text("No syntax errors")
    assert not org.find("ValidationRule", ValidationName="Checked_Only")


def test_role_save_and_new(page: Any, base: str, sf: Any) -> None:
    page.goto(classic(f"{base}/lightning/setup/Roles/new"))
    page.get_by_label("Label", exact=True).fill("Night Desk")
    page.get_by_role("button", name="Save & New").first.click()
    expect(page).to_have_url(re.compile(r"/lightning/setup/Roles/new\?isdtp=p1$"))  # on its own, it stays so
    expect(page.get_by_label("Label", exact=True)).to_have_value("")
    page.get_by_label("Label", exact=True).fill("Night Desk Agent")
    page.get_by_label("This role reports to").fill("Night Desk")
    page.get_by_role("button", name="Save", exact=True).first.click()
    rows = {r["Name"]: r for r in sf.query(
        "SELECT Id, Name, ParentRoleId FROM UserRole WHERE Name LIKE 'Night Desk%'")["records"]}
    assert rows["Night Desk Agent"]["ParentRoleId"] == rows["Night Desk"]["Id"]
    page.goto(classic(f"{base}/lightning/setup/Roles/{rows['Night Desk']['Id']}/edit"))
    expect(page.get_by_role("button", name="Save & New").first).to_have_count(0)  # new forms only


def test_entitlement_process_type_then_next(page: Any, base: str, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/EntitlementProcess/new"))
    expect(page.get_by_label("Entitlement Process Name")).to_have_count(0)
    page.get_by_label("Entitlement Process Type").select_option(label="Case")
    page.get_by_role("button", name="Next").first.click()
    page.get_by_label("Entitlement Process Name").fill("Gold Desk")
    page.get_by_role("button", name="Previous").first.click()  # back keeps what was typed
    page.get_by_role("button", name="Next").first.click()
    expect(page.get_by_label("Entitlement Process Name")).to_have_value("Gold Desk")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name="Gold Desk")).to_be_visible()


def test_permission_set_group_add_permission_set_index_add_done(page: Any, base: str, sf: Any, org: Org) -> None:
    pset = next(p for p in org.records("PermissionSet") if not p.get("IsOwnedByProfile") and p.get("Label"))
    letter = str(pset["Label"])[0].upper()
    page.goto(f"{base}/lightning/setup/PermSetGroups/home")
    page.get_by_role("button", name="New Permission Set Group").click()
    page.get_by_label("Label", exact=True).fill("Desk Bundle")
    page.get_by_role("button", name="Save", exact=True).first.click()
    shown(page)
    gid = sf.query("SELECT Id FROM PermissionSetGroup WHERE MasterLabel = 'Desk Bundle'")["records"][0]["Id"]
    page.get_by_role("region", name="Permission Sets in Group").get_by_role("button", name="Add Permission Set").click()
    index = page.get_by_role("navigation", name="Alphabetical index")
    index.get_by_role("link", name="Z", exact=True).click()
    index.get_by_role("link", name=letter, exact=True).click()
    expect(index.get_by_role("link", name=letter, exact=True)).to_have_attribute("aria-current", "page")
    page.get_by_role("checkbox", name=pset["Label"], exact=True).check()
    page.get_by_role("button", name="Add", exact=True).click()
    expect(page.get_by_role("note")).to_contain_text(str(pset["Label"]))
    rows = sf.query(f"SELECT PermissionSet.Label FROM PermissionSetGroupComponent "
                    f"WHERE PermissionSetGroupId = '{gid}'")["records"]
    assert [r["PermissionSet"]["Label"] for r in rows] == [pset["Label"]]
    page.get_by_role("button", name="Done").click()
    expect(page.get_by_role("region", name="Permission Sets in Group")).to_contain_text(str(pset["Label"]))
    page.get_by_role("button", name="Add Permission Set").first.click()  # a set in the group is not offered again
    expect(page.get_by_role("checkbox", name=pset["Label"], exact=True)).to_have_count(0)


def test_user_detail_and_permission_set_group_assignments(page: Any, base: str, sf: Any, org: Org) -> None:
    gid = org.create("PermissionSetGroup", {"MasterLabel": "Night Bundle", "DeveloperName": "Night_Bundle"})
    user = next(u for u in org.find("User", IsActive=True) if u["Id"] != org.default_user_id)
    page.goto(f"{base}/lightning/setup/PermSetGroups/{gid}/view")
    page.get_by_role("button", name="Manage Assignments").first.click()
    page.get_by_role("button", name="Add Assignment").click()
    page.get_by_role("link", name=user["Name"], exact=True).click()  # the user's name opens Setup's user page
    frame = setup_frame(page)
    expect(frame.get_by_role("region", name="User Detail")).to_contain_text(str(user["Username"]))
    frame.get_by_role("region", name="Permission Set Group Assignments").get_by_role(
        "button", name="Edit Assignments").click()
    frame.get_by_label("Available Permission Set Groups").select_option(label="Night Bundle")
    frame.get_by_role("button", name="Add", exact=True).click()
    expect(frame.get_by_label("Enabled Permission Set Groups")).to_contain_text("Night Bundle")
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("region", name="Permission Set Group Assignments")).to_contain_text("Night Bundle")
    rows = sf.query(f"SELECT Assignee.Name FROM PermissionSetAssignment WHERE PermissionSetGroupId = '{gid}'")
    assert [r["Assignee"]["Name"] for r in rows["records"]] == [user["Name"]]
    frame.get_by_role("region", name="Permission Set Group Assignments").get_by_role(
        "button", name="Edit Assignments").click()
    frame.get_by_label("Enabled Permission Set Groups").select_option(label="Night Bundle")
    frame.get_by_role("button", name="Remove", exact=True).click()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    # a click in the frame does not wait for the page it posts to: wait for the saved user's page
    assignments = frame.get_by_role("region", name="Permission Set Group Assignments")
    expect(assignments).to_be_visible()
    expect(assignments).not_to_contain_text("Night Bundle")
    assert sf.query(f"SELECT Id FROM PermissionSetAssignment WHERE PermissionSetGroupId = '{gid}'")["totalSize"] == 0
    frame.get_by_role("button", name="Freeze").first.click()  # Freeze from Setup's user page comes back to it
    expect(frame.get_by_role("region", name="User Detail")).to_contain_text("Frozen")
    expect(frame.get_by_role("button", name="Unfreeze").first).to_be_visible()
    assert org.find("UserLogin", UserId=user["Id"])[0]["IsFrozen"] is True


def test_queue_dueling_lists_search_add_remove(page: Any, base: str, sf: Any, org: Org) -> None:
    role = org.records("UserRole")[0]
    user = next(u for u in org.find("User", IsActive=True) if u["Id"] != org.default_user_id)
    page.goto(classic(f"{base}/lightning/setup/Queues/new"))
    page.get_by_label("Label", exact=True).fill("Dock Desk")
    page.get_by_label("Available Objects").select_option(label="Case")
    page.get_by_role("group", name="Supported Objects").get_by_role("button", name="Add").click()
    members = page.get_by_role("group", name="Queue Members")
    members.get_by_role("combobox", name="Search").select_option(label="Roles")
    expect(members.get_by_label("Available Members").locator("option:not([hidden])").first).to_have_text(
        re.compile(r"^Role: "))
    members.get_by_label("Available Members").select_option(label=f"Role: {role['Name']}")
    members.get_by_role("button", name="Add").click()
    members.get_by_role("combobox", name="Search").select_option(label="Users")
    members.get_by_label("Available Members").select_option(label=f"User: {user['Name']}")
    members.get_by_role("button", name="Add").click()
    members.get_by_label("Selected Members").select_option(label=f"User: {user['Name']}")
    members.get_by_role("button", name="Remove").click()
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name="Dock Desk", level=1)).to_be_visible()
    queue = sf.query("SELECT Id FROM Group WHERE Type = 'Queue' AND Name = 'Dock Desk'")["records"][0]["Id"]
    objects = [r["SobjectType"] for r in sf.query(
        f"SELECT SobjectType FROM QueueSobject WHERE QueueId = '{queue}'")["records"]]
    assert objects == ["Case"]
    role_group = org.find("Group", Type="Role", RelatedId=role["Id"])[0]["Id"]
    got = [r["UserOrGroupId"] for r in sf.query(
        f"SELECT UserOrGroupId FROM GroupMember WHERE GroupId = '{queue}'")["records"]]
    assert got == [role_group]
