"""Object Settings of permission sets and muting permission sets in real Chromium: what the pages save is what
readMetadata returns, with Salesforce's permission dependencies applied."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.test_ui_object_manager import read
from .lightning import classic, setup_frame, shown, status


def flags(entry: ET.Element | None) -> set[str]:
    return {c.tag.split("}")[-1] for c in (entry if entry is not None else []) if c.text == "true"}


def object_entry(body: ET.Element | None, obj: str) -> ET.Element | None:
    return next((p for p in (body.iter("objectPermissions") if body is not None else [])
                 if p.findtext("object") == obj), None)


def field_entries(body: ET.Element | None) -> dict[str, tuple[str | None, str | None]]:
    return {str(p.findtext("field")): (p.findtext("readable"), p.findtext("editable"))
            for p in (body.iter("fieldPermissions") if body is not None else [])}


def test_permission_set_object_settings(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/PermSets/new"))
    page.get_by_label("Label", exact=True).fill("Case Helpers")
    page.get_by_role("button", name="Save", exact=True).first.click()
    page.get_by_role("button", name="Object Settings").first.click()
    page.get_by_role("main").get_by_role("link", name="Cases", exact=True).click()
    expect(page.get_by_role("region", name="Details")).to_contain_text("Disabled")
    page.get_by_role("button", name="Edit").first.click()
    page.get_by_label("Delete", exact=True).check()  # needs Read and Edit: added on save
    page.get_by_label("Read Access", exact=True).check()
    page.get_by_label("Edit Access for Subject").check()
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(status(page)).to_contain_text("were saved")
    body = read(sf, "PermissionSet", "Case_Helpers")
    assert flags(object_entry(body, "Case")) == {"allowRead", "allowEdit", "allowDelete"}
    fields = field_entries(body)
    assert fields["Case.Subject"] == ("true", "true") and fields["Case.Priority"] == ("true", "false")
    assert all(f.startswith("Case.") for f in fields)
    assert object_entry(body, "Account") is None  # other objects untouched


def test_muting_permission_set_in_a_group(page: Any, base: str, sf: Any, org: Org) -> None:
    gid = org.create("PermissionSetGroup", {"MasterLabel": "Field Team", "DeveloperName": "Field_Team"})
    page.goto(f"{base}/lightning/setup/PermSetGroups/{gid}/view")
    page.get_by_role("button", name="Muting Permission Set in Group").click()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Label")
    page.get_by_label("Label", exact=True).fill("Field Team Muted")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Field Team Muted")).to_be_visible()
    page.get_by_role("button", name="Object Settings").click()
    page.get_by_role("main").get_by_role("link", name="Accounts", exact=True).click()
    page.get_by_role("button", name="Edit").click()
    page.get_by_label("Edit", exact=True).check()  # muting Edit mutes Delete and Modify All Records too
    page.get_by_label("Edit Access for Annual Revenue").check()
    page.get_by_role("button", name="Save", exact=True).click()
    shown(page)  # the Lightning page posts through the router: the org is read once the next page is shown
    group = read(sf, "PermissionSetGroup", "Field_Team")
    assert group is not None and group.findtext("mutingPermissionSets") == "Field_Team_Muted"
    muting = read(sf, "MutingPermissionSet", "Field_Team_Muted")
    assert flags(object_entry(muting, "Account")) == {"allowEdit", "allowDelete", "modifyAllRecords"}
    assert field_entries(muting) == {"Account.AnnualRevenue": ("false", "true")}
    page.goto(f"{base}/lightning/setup/PermSetGroups/{gid}/view")
    page.get_by_role("button", name="Muting Permission Set in Group").click()  # now opens the one there is
    expect(page.get_by_role("heading", name="Field Team Muted")).to_be_visible()


def test_profile_object_settings_edit_and_take_away(page: Any, base: str, sf: Any, org: Org) -> None:
    """Setup > Profiles > a profile > Object Settings > an object: Edit saves the profile's objectPermissions, and
    an access taken away is saved as taken away (a profile deploy keeps what it does not name)."""
    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    page.get_by_role("searchbox", name="Quick Find").first.fill("Profiles")
    page.get_by_role("navigation", name="Setup").get_by_role("link", name="Profiles", exact=True).click()
    frame = setup_frame(page)
    frame.get_by_role("link", name="Gold Partner User", exact=True).click()
    frame.get_by_role("button", name="Object Settings").first.click()
    frame.get_by_role("link", name="Opportunities", exact=True).last.click()
    frame.get_by_role("button", name="Edit").first.click()
    frame.get_by_label("Edit", exact=True).check()  # needs Read: added on save
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("region", name="Details")).to_contain_text("Enabled")
    assert flags(object_entry(read(sf, "Profile", "Gold Partner User"), "Opportunity")) == {"allowRead", "allowEdit"}
    frame.get_by_role("button", name="Edit").first.click()
    frame.get_by_label("Edit", exact=True).uncheck()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("button", name="Save", exact=True).first).to_have_count(0)  # the saved settings' page
    assert flags(object_entry(read(sf, "Profile", "Gold Partner User"), "Opportunity")) == {"allowRead"}


def test_permission_set_group_object_settings_combine_its_sets_less_the_muted(page: Any, base: str, sf: Any,
                                                                              org: Org) -> None:
    """A group's Object Settings are read-only: its permission sets' permissions combined, less what its muting
    permission set mutes."""
    from pytest_cua.orgs.localorg.metadata import MetadataStore
    from pytest_cua.orgs.localorg.metadata import xmltree as X

    def perms(obj: str, **on: bool) -> ET.Element:
        return X.element("objectPermissions", [*(X.leaf(k, on.get(k, False)) for k in (
            "allowCreate", "allowDelete", "allowEdit", "allowRead", "modifyAllRecords")), X.leaf("object", obj),
            X.leaf("viewAllFields", False), X.leaf("viewAllRecords", False)])
    store = MetadataStore(org)
    store.write("PermissionSet", "Reader", X.element("PermissionSet", [X.leaf("label", "Reader"),
                                                                        perms("Account", allowRead=True)]))
    store.write("PermissionSet", "Remover", X.element("PermissionSet", [
        X.leaf("label", "Remover"), perms("Account", allowRead=True, allowEdit=True, allowDelete=True)]))
    store.write("MutingPermissionSet", "No_Delete", X.element("MutingPermissionSet", [
        X.leaf("label", "No Delete"), perms("Account", allowDelete=True)]))
    store.write("PermissionSetGroup", "Account_Team", X.element("PermissionSetGroup", [
        X.leaf("label", "Account Team"), X.leaf("mutingPermissionSets", "No_Delete"),
        X.leaf("permissionSets", "Reader"), X.leaf("permissionSets", "Remover")]))
    gid = org.find("PermissionSetGroup", DeveloperName="Account_Team")[0]["Id"]
    page.goto(f"{base}/lightning/setup/PermSetGroups/{gid}/view")
    page.get_by_role("button", name="Object Settings").first.click()
    expect(page.get_by_role("row", name="Accounts")).to_contain_text("Read, Edit")
    expect(page.get_by_role("row", name="Accounts")).not_to_contain_text("Delete")
    page.get_by_role("link", name="Accounts", exact=True).last.click()
    details = page.get_by_role("region", name="Details")
    expect(details).to_contain_text("Enabled")
    assert page.get_by_role("button", name="Edit").first.count() == 0  # read-only, as in Salesforce
    assert page.request.get(f"{base}/lightning/setup/PermSetGroups/{gid}/objects/Account/edit").status == 404
