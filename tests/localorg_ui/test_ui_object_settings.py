"""Object Settings of permission sets and muting permission sets in real Chromium: what the pages save is what
readMetadata returns, with Salesforce's permission dependencies applied."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

from playwright.sync_api import expect

from pytest_cua.localorg.store import Org
from tests.localorg_ui.test_ui_object_manager import read


def flags(entry: ET.Element | None) -> set[str]:
    return {c.tag.split("}")[-1] for c in (entry if entry is not None else []) if c.text == "true"}


def object_entry(body: ET.Element | None, obj: str) -> ET.Element | None:
    return next((p for p in (body.iter("objectPermissions") if body is not None else [])
                 if p.findtext("object") == obj), None)


def field_entries(body: ET.Element | None) -> dict[str, tuple[str | None, str | None]]:
    return {str(p.findtext("field")): (p.findtext("readable"), p.findtext("editable"))
            for p in (body.iter("fieldPermissions") if body is not None else [])}


def test_permission_set_object_settings(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/setup/PermSets/new")
    page.get_by_label("Label", exact=True).fill("Case Helpers")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("button", name="Object Settings").click()
    page.get_by_role("link", name="Cases", exact=True).nth(1).click()
    expect(page.get_by_role("region", name="Details")).to_contain_text("Disabled")
    page.get_by_role("button", name="Edit").click()
    page.get_by_label("Delete", exact=True).check()  # needs Read and Edit: added on save
    page.get_by_label("Read Access", exact=True).check()
    page.get_by_label("Edit Access for Subject").check()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("were saved")
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
    page.get_by_role("link", name="Accounts", exact=True).nth(1).click()
    page.get_by_role("button", name="Edit").click()
    page.get_by_label("Edit", exact=True).check()  # muting Edit mutes Delete and Modify All Records too
    page.get_by_label("Edit Access for Annual Revenue").check()
    page.get_by_role("button", name="Save", exact=True).click()
    group = read(sf, "PermissionSetGroup", "Field_Team")
    assert group is not None and group.findtext("mutingPermissionSets") == "Field_Team_Muted"
    muting = read(sf, "MutingPermissionSet", "Field_Team_Muted")
    assert flags(object_entry(muting, "Account")) == {"allowEdit", "allowDelete", "modifyAllRecords"}
    assert field_entries(muting) == {"Account.AnnualRevenue": ("false", "true")}
    page.goto(f"{base}/lightning/setup/PermSetGroups/{gid}/view")
    page.get_by_role("button", name="Muting Permission Set in Group").click()  # now opens the one there is
    expect(page.get_by_role("heading", name="Field Team Muted")).to_be_visible()
