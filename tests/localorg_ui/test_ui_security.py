"""Setup > Password Policies in real Chromium: the choices land in the Security settings (readMetadata), and a
value the page does not offer is kept as it was."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.test_ui_object_manager import read
from .lightning import setup_frame


def policies(sf: Any) -> dict[str, str]:
    body = read(sf, "SecuritySettings", "Security")
    assert body is not None
    found = body.find("passwordPolicies")
    return {c.tag: c.text or "" for c in (found if found is not None else [])}


def test_password_policies_saved_through_the_settings(page: Any, base: str, sf: Any, org: Org) -> None:
    before = policies(sf)
    page.goto(f"{base}/lightning/setup/SetupOneHome/home")
    page.get_by_role("searchbox", name="Quick Find").fill("password")
    page.get_by_role("navigation", name="Setup").get_by_role("link", name="Password Policies").click()
    frame = setup_frame(page)
    frame.get_by_label("User passwords expire in").select_option(label="180 days")
    frame.get_by_label("Lockout effective period").select_option(label="Forever (must be reset by admin)")
    frame.get_by_label("Minimum password length").select_option(label="12 characters")
    frame.get_by_label("Obscure secret answer for password resets").check()
    frame.get_by_role("button", name="Save", exact=True).first.click()
    expect(frame.get_by_role("status")).to_contain_text("Password policies were saved.")
    after = policies(sf)
    assert (after["expiration"], after["lockoutInterval"], after["minimumPasswordLength"]) == \
        ("SixMonths", "Forever", "12")
    assert after["obscureSecretAnswer"] == "true"
    assert after["complexity"] == before["complexity"]  # untouched selects keep their values
    assert after["questionRestriction"] == before["questionRestriction"]
