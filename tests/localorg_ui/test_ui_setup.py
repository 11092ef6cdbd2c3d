"""The setup screens in real Chromium: queues, users, permission sets, sharing settings, validation rules."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.lightning import choose, shown, status
from .lightning import classic, setup_frame


def test_setup_queue_with_members_objects_and_email(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    page.get_by_role("searchbox", name="Quick Find").first.fill("Queues")
    page.get_by_role("navigation", name="Setup").get_by_role("link", name="Queues").click()
    frame = setup_frame(page)
    frame.get_by_role("button", name="New", exact=True).click()
    frame.get_by_label("Label", exact=True).fill("Escalations Desk")
    frame.get_by_label("Queue Name").fill("Escalations_Desk")
    frame.get_by_label("Queue Email").fill("escalations@harborlight.test")
    frame.get_by_label("Send Email to Members").check()
    frame.get_by_label("Available Objects").select_option(label=["Case", "Lead"])
    frame.get_by_role("group", name="Supported Objects").get_by_role("button", name="Add").click()
    members = frame.get_by_role("group", name="Queue Members")
    user = org.find("User", IsActive=True)[1]
    role = org.records("UserRole")[0]
    group = org.find("Group", Type="Regular")[0]
    for kind, option in (("Users", f"User: {user['Name']}"), ("Roles", f"Role: {role['Name']}"),
                         ("Public Groups", f"Group: {group['Name']}")):
        members.get_by_role("combobox", name="Search").select_option(label=kind)
        members.get_by_label("Available Members").select_option(label=option)
        members.get_by_role("button", name="Add").click()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("heading", name="Escalations Desk", level=1)).to_be_visible()

    queue = sf.query("SELECT Id, Name, Email, DoesSendEmailToMembers FROM Group "
                     "WHERE Type = 'Queue' AND DeveloperName = 'Escalations_Desk'")["records"][0]
    assert (queue["Name"], queue["Email"], queue["DoesSendEmailToMembers"]) == \
        ("Escalations Desk", "escalations@harborlight.test", True)
    objects = {r["SobjectType"] for r in sf.query(
        f"SELECT SobjectType FROM QueueSobject WHERE QueueId = '{queue['Id']}'")["records"]}
    assert objects == {"Case", "Lead"}
    members = {r["UserOrGroupId"] for r in sf.query(
        f"SELECT UserOrGroupId FROM GroupMember WHERE GroupId = '{queue['Id']}'")["records"]}
    role_group = org.find("Group", Type="Role", RelatedId=role["Id"])[0]["Id"]
    assert members == {user["Id"], role_group, group["Id"]}

    frame.get_by_role("button", name="Edit", exact=True).first.click()
    frame.get_by_label("Selected Objects").select_option(label="Lead")
    frame.get_by_role("group", name="Supported Objects").get_by_role("button", name="Remove").click()
    members = frame.get_by_role("group", name="Queue Members")
    members.get_by_label("Selected Members").select_option(label=f"User: {user['Name']}")
    members.get_by_role("button", name="Remove").click()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("region", name="Supported Objects")).not_to_contain_text("Lead")
    assert {r["SobjectType"] for r in org.find("QueueSobject", QueueId=queue["Id"])} == {"Case"}
    assert user["Id"] not in {m["UserOrGroupId"] for m in org.find("GroupMember", GroupId=queue["Id"])}

    page.goto(classic(f"{base}/lightning/setup/Queues/new"))
    page.get_by_label("Label", exact=True).fill("Another")
    page.get_by_label("Queue Name").fill("Escalations_Desk")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("already in use")
    assert not org.find("Group", Name="Another")


def test_new_role_reports_to_a_role(page: Any, base: str, org: Org) -> None:
    parent = org.records("UserRole")[0]
    page.goto(classic(f"{base}/lightning/setup/Roles/home"))
    page.get_by_role("button", name="New Role").click()
    page.get_by_label("Label", exact=True).fill("Night Shift Lead")
    page.get_by_label("This role reports to").fill(parent["Name"])
    page.get_by_role("button", name="Save", exact=True).first.click()
    role = org.find("UserRole", Name="Night Shift Lead")[0]
    assert (role["DeveloperName"], role["ParentRoleId"]) == ("Night_Shift_Lead", parent["Id"])
    page.goto(f"{base}/lightning/setup/Roles/home")  # in Lightning Setup: the Roles page in its frame
    expect(setup_frame(page).get_by_role("link", name="Night Shift Lead", exact=True)).to_be_visible()


def test_user_freeze_and_deactivate(page: Any, base: str, sf: Any, org: Org) -> None:
    user = next(u for u in org.find("User", IsActive=True) if u["Id"] != org.default_user_id)
    page.goto(classic(f"{base}/lightning/setup/ManageUsers/home"))
    page.get_by_role("link", name=user["Name"], exact=True).click()
    page.get_by_role("button", name="Freeze").first.click()
    expect(page.get_by_role("button", name="Unfreeze").first).to_be_visible()
    login = sf.query(f"SELECT IsFrozen FROM UserLogin WHERE UserId = '{user['Id']}'")["records"][0]
    assert login["IsFrozen"] is True
    page.get_by_role("button", name="Edit", exact=True).first.click()
    page.get_by_label("Active", exact=True).uncheck()  # a user is edited on a Setup page, not in a dialog
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(status(page)).to_contain_text("was saved")
    assert sf.User.get(user["Id"])["IsActive"] is False
    # saved, the user's record page: Unfreeze is under its "Show more actions"
    page.get_by_role("button", name="Show more actions").click()
    page.get_by_role("menuitem", name="Unfreeze").click()
    expect(status(page)).to_contain_text("was unfrozen")
    assert org.find("UserLogin", UserId=user["Id"])[0]["IsFrozen"] is False


def test_permission_set_and_group_assignment(page: Any, base: str, sf: Any, org: Org) -> None:
    pset = next(p for p in org.records("PermissionSet") if not p.get("IsOwnedByProfile"))
    assigned = {a["AssigneeId"] for a in org.find("PermissionSetAssignment", PermissionSetId=pset["Id"])}
    user = next(u for u in org.find("User", IsActive=True) if u["Id"] not in assigned)
    page.goto(classic(f"{base}/lightning/setup/PermSets/home"))
    page.get_by_role("link", name=pset["Label"], exact=True).click()
    page.get_by_role("button", name="Manage Assignments").first.click()
    page.get_by_role("button", name="Add Assignment").click()
    page.get_by_role("checkbox", name=user["Name"], exact=True).check()
    page.get_by_role("button", name="Assign").first.click()
    expect(status(page)).to_contain_text("assigned")
    rows = sf.query(f"SELECT Assignee.Name FROM PermissionSetAssignment WHERE PermissionSetId = '{pset['Id']}' "
                    f"AND AssigneeId = '{user['Id']}'")["records"]
    assert [r["Assignee"]["Name"] for r in rows] == [user["Name"]]

    psg = org.records("PermissionSetGroup")[0]
    page.goto(f"{base}/lightning/setup/PermSetGroups/{psg['Id']}/view")
    page.get_by_role("button", name="Permission Sets in Group").click()
    box = page.get_by_role("checkbox", name=pset["Label"], exact=True)
    was = box.is_checked()
    box.set_checked(not was)
    page.get_by_role("button", name="Save", exact=True).first.click()
    shown(page)  # the saved group's page: the save has been answered
    comps = {c["PermissionSetId"] for c in org.find("PermissionSetGroupComponent", PermissionSetGroupId=psg["Id"])}
    assert (pset["Id"] in comps) is (not was)
    page.get_by_role("button", name="Manage Assignments").first.click()
    page.get_by_role("button", name="Add Assignment").click()
    page.get_by_role("checkbox", name=user["Name"], exact=True).check()
    page.get_by_role("button", name="Assign").first.click()
    expect(status(page)).to_contain_text("assigned")
    assert org.find("PermissionSetAssignment", PermissionSetGroupId=psg["Id"], AssigneeId=user["Id"])


def test_sharing_settings_change(page: Any, base: str, sf: Any) -> None:
    page.goto(classic(f"{base}/lightning/setup/SecuritySharing/home"))
    page.get_by_role("button", name="Edit", exact=True).first.click()
    page.get_by_label("Account Default Internal Access").select_option(label="Private")
    page.get_by_label("Account Default External Access").select_option(label="Private")
    page.get_by_label("Lead Default External Access").select_option(label="Public Read Only")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(status(page)).to_contain_text("saved")
    rows = {r["QualifiedApiName"]: r for r in sf.query(
        "SELECT QualifiedApiName, InternalSharingModel, ExternalSharingModel FROM EntityDefinition "
        "WHERE QualifiedApiName IN ('Account', 'Lead')")["records"]}
    assert rows["Account"]["InternalSharingModel"] == "Private"
    assert rows["Lead"]["ExternalSharingModel"] == "Read"
    page.get_by_role("button", name="Edit", exact=True).first.click()
    page.get_by_label("Account Default External Access").select_option(label="Public Read/Write")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("more restrictive")
    assert sf.query("SELECT ExternalSharingModel FROM EntityDefinition WHERE QualifiedApiName = 'Account'"
                    )["records"][0]["ExternalSharingModel"] == "Private"


def test_validation_rule_creation_is_enforced(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/setup/ObjectManager/home")
    page.get_by_role("link", name="Opportunity", exact=True).click()
    page.get_by_role("link", name="Validation Rules").click()
    page.get_by_role("button", name="New", exact=True).click()
    frame = setup_frame(page)  # a validation rule's New is a Classic page in the frame, as on Salesforce
    frame.get_by_label("Rule Name").fill("Amount_Required_When_Won")
    frame.get_by_label("Error Condition Formula").fill('AND(ISPICKVAL(StageName, "Closed Won"), ISBLANK(Amount))')
    frame.get_by_label("Error Message").fill("Enter an amount for a won opportunity.")
    frame.get_by_label("Error Location").select_option(label="Amount")
    expect(frame.get_by_label("Active", exact=True)).to_be_checked()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("heading", name="Amount_Required_When_Won")).to_be_visible()
    expect(page).to_have_url(re.compile(r"/ValidationRules/03d\w+/view$"))  # the address follows the frame's page
    rule = sf.toolingexecute("query/?q=SELECT+ValidationName,Active,ErrorMessage+FROM+ValidationRule+"
                             "WHERE+EntityDefinitionId='Opportunity'")["records"]
    assert any(r["ValidationName"] == "Amount_Required_When_Won" and r["Active"] for r in rule)

    opp = next(o for o in org.records("Opportunity") if not o.get("IsClosed"))
    org.update("Opportunity", opp["Id"], {"Amount": None})
    page.goto(f"{base}/lightning/r/Opportunity/{opp['Id']}/edit")
    choose(page, "Stage", "Closed Won")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.locator("#err-Amount")).to_have_text("Enter an amount for a won opportunity.")
    assert org.get("Opportunity", opp["Id"])["StageName"] == opp["StageName"]

    page.goto(classic(f"{base}/lightning/setup/ObjectManager/Opportunity/ValidationRules/new"))
    page.get_by_label("Rule Name").fill("Bad Name!")
    page.get_by_label("Error Condition Formula").fill("AND(")
    page.get_by_role("button", name="Save", exact=True).first.click()
    summary = page.get_by_role("region", name="Review the errors on this page.")
    expect(summary).to_contain_text("API name")
    expect(summary).to_contain_text("Syntax error")
    expect(summary).to_contain_text("Error Message")
