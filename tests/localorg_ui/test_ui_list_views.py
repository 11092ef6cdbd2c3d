"""List view sharing, Select Fields to Display and list view charts in real Chromium, read back over the
Metadata API (the list view's sharedTo and columns) and SOQL (ListViewChart and its instances)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.test_ui_object_manager import read

from .lightning import status


def test_list_view_shared_with_a_role_showing_two_fields(page: Any, base: str, sf: Any, org: Org) -> None:
    role = org.create("UserRole", {"Name": "Deal Desk", "DeveloperName": "Deal_Desk"})
    page.goto(f"{base}/lightning/o/Opportunity/list")
    page.get_by_role("button", name="List View Controls").click()
    page.get_by_role("menuitem", name="New", exact=True).click()
    page.get_by_label("List Name").fill("ByAmount")
    page.get_by_label("Share list view with groups of users").check()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Share With")
    expect(page.get_by_label("List Name")).to_have_value("ByAmount")
    page.get_by_label("Deal Desk").check()
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("button", name="List View Controls").click()
    page.get_by_role("menuitem", name="Select Fields to Display").click()
    page.get_by_label("Select All").check()
    page.get_by_label("Select All").uncheck()
    page.get_by_label("Account Name", exact=True).check()
    page.get_by_label("Amount", exact=True).check()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(status(page).first).to_contain_text("were saved")
    view = read(sf, "ListView", "Opportunity.ByAmount")
    assert view is not None
    assert [c.text for c in view.iter("columns")] == ["ACCOUNT.NAME", "OPPORTUNITY.AMOUNT"]
    shared = view.find("sharedTo")
    assert shared is not None and [r.text for r in shared.iter("role")] == ["Deal_Desk"]
    assert org.get("UserRole", role) is not None


def test_list_view_chart_offered_on_the_object_s_views(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/o/Account/list")
    page.get_by_role("button", name="Charts").click()
    page.get_by_role("button", name="Settings").click()
    page.get_by_role("menuitem", name="New Chart").click()
    page.get_by_label("Chart Name").fill("Revenue by industry")
    page.get_by_label("Aggregate Type").select_option(label="Sum")
    page.get_by_label("Aggregate Field").select_option(label="Industry")
    page.get_by_label("Grouping Field").select_option(label="Industry")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("number field")
    page.get_by_label("Aggregate Field").select_option(label="Annual Revenue")
    page.get_by_label("Chart Type").select_option(label="Donut Chart")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("row", name="Revenue by industry Donut Chart Sum of Annual Revenue Industry")).to_be_visible()
    [chart] = sf.query("SELECT ChartType, AggregateType, AggregateField, GroupingField FROM ListViewChart "
                       "WHERE MasterLabel = 'Revenue by industry'")["records"]
    assert (chart["ChartType"], chart["AggregateType"], chart["AggregateField"], chart["GroupingField"]) == \
        ("pie", "Sum", "Account.AnnualRevenue", "Account.Industry")
