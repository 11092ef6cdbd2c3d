"""The report builder's and the list pages' Salesforce controls in real Chromium, read back over the API: "Show Me"
and the date range, "Relative Date", "Add Filter Logic" and "Remove Filter Logic", "Group Date By", a filter edited
again, the chart properties "Show Values" and "Legend Position", "Refresh", "Save & Run", a cross filter "without" its
object and its "Add <Object> Filter"; a list's "List View Controls" menu (New,
Select Fields to Display), the New List View page's "Add Filter" and the list view charts' gear "Settings" (menu
"Chart Settings")."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.lightning import shown
from tests.localorg_ui.test_ui_reports import add_filter, choose, filters_menu, pick, save, start


def test_report_builder_controls(page: Any, base: str, sf: Any, org: Org) -> None:
    start(page, base, "Opportunities")
    pick(page, "Group Rows", "Close Date")
    page.get_by_role("button", name="Group options for Close Date").click()  # Group Date By
    page.get_by_role("menuitemcheckbox", name="Calendar Month", exact=True).click()
    expect(page.get_by_text("(Calendar Month)")).to_be_visible()
    page.get_by_role("tab", name="Filters").click()
    page.get_by_role("button", name=re.compile("Show Me")).click()  # the standard filters open in a popover
    popover = page.get_by_role("dialog", name="Show Me")
    choose(popover, "Show Me", "My Opportunities")
    popover.get_by_role("button", name="Apply").click()
    expect(page.get_by_role("button", name=re.compile("Show Me"))).to_contain_text("My Opportunities")
    page.get_by_role("button", name=re.compile("^Edit filter: Close Date")).click()
    popover = page.get_by_role("dialog", name="Edit Date Filter")
    choose(popover, "Range", "Previous FQ")
    popover.get_by_role("button", name="Apply").click()
    add_filter(page, "Close Date", "greater than", relative="Last Week")
    # a relative date is never taken together with a typed value: the popover says so, nothing is added
    pick(page, "Add filter", "Close Date")
    popover = page.get_by_role("dialog", name="Edit Filter")
    popover.get_by_label("Value", exact=True).fill("1/1/2026")
    choose(popover, "Relative Date", "Last Week")
    popover.get_by_role("button", name="Apply").click()
    expect(popover.get_by_role("alert")).to_have_text("Enter a value or choose a relative date, not both.")
    popover.get_by_role("button", name="Cancel").click()
    expect(page.get_by_role("tab", name="Filters (1)")).to_be_visible()
    add_filter(page, "Stage", "equals", "Closed Won")
    page.get_by_role("button", name=re.compile("^Edit filter 2: Stage")).click()  # a filter opens again to change
    popover = page.get_by_role("dialog", name="Edit Filter")
    expect(popover.get_by_label("Value", exact=True)).to_have_value("Closed Won")
    popover.get_by_label("Value", exact=True).fill("Closed Lost")
    popover.get_by_role("button", name="Apply").click()
    # the filter logic box shows once asked for, and goes away with its logic
    expect(page.get_by_label("Filter Logic")).to_have_count(0)
    filters_menu(page, "Add Filter Logic")
    page.get_by_label("Filter Logic").fill("1 OR 2")
    filters_menu(page, "Remove Filter Logic")
    expect(page.get_by_label("Filter Logic")).to_have_count(0)
    filters_menu(page, "Add Filter Logic")
    page.get_by_label("Filter Logic").fill("1 AND 2")
    page.get_by_role("button", name="Add Chart").click()
    page.get_by_role("button", name="Line", exact=True).click()
    page.get_by_label("Chart Title").fill("Monthly")
    page.get_by_text("Show Values", exact=True).click()  # an SLDS checkbox: its label takes the click
    expect(page.get_by_label("Show Values")).to_be_checked()
    choose(page, "Legend Position", "Bottom")
    page.get_by_role("button", name="Refresh").click()  # the preview again, everything kept
    expect(page.get_by_label("Filter Logic")).to_have_value("1 AND 2")
    expect(page.get_by_role("heading", name="Monthly")).to_be_visible()
    assert not org.find("Report", Name="Monthly wins")
    save(page, "Monthly wins", run=True, folder="Private Reports")
    expect(page.get_by_role("heading", name="Monthly wins")).to_be_visible()

    [rec] = org.find("Report", Name="Monthly wins")
    assert rec["FolderName"] == "Private Reports"
    md = sf.restful(f"analytics/reports/{rec['Id']}/describe")["reportMetadata"]
    assert md["scope"] == "user"
    assert md["standardDateFilter"]["column"] == "CLOSE_DATE"
    assert md["standardDateFilter"]["durationValue"] == "LAST_FISCAL_QUARTER"
    assert [(g["name"], g["dateGranularity"]) for g in md["groupingsDown"]] == [("CLOSE_DATE", "Month")]
    assert [(f["column"], f["operator"], f["value"]) for f in md["reportFilters"]] == [
        ("CLOSE_DATE", "greaterThan", "LAST WEEK"), ("STAGE_NAME", "equals", "Closed Lost")]
    assert md["reportBooleanFilter"] == "1 AND 2"
    chart = md["chart"]
    assert (chart["chartType"], chart["title"], chart["showChartValues"], chart["legendPosition"]) == \
        ("Line", "Monthly", True, "Bottom")


def test_cross_filter_without_an_object_and_its_filters(page: Any, base: str, sf: Any, org: Org) -> None:
    start(page, base, "Leads")
    page.get_by_role("tab", name="Filters").click()
    filters_menu(page, "Add Cross Filter")
    popover = page.get_by_role("dialog", name="Cross Filter")
    choose(popover, "Related Object", "Activities")
    popover.get_by_role("button", name="Apply").click()
    for field, value in (("Status", "Completed"), ("Subject", "Demo")):
        page.get_by_role("button", name="Add Activities Filter").click()
        popover = page.get_by_role("dialog", name="Edit Filter")
        popover.get_by_label("Field", exact=True).fill(field)
        popover.get_by_label("Value", exact=True).fill(value)
        popover.get_by_role("button", name="Apply").click()
    page.get_by_role("button", name="Remove Activities filter 2: Subject").click()
    page.get_by_role("button", name="Edit cross filter: Leads with Activities").click()  # with becomes without
    popover = page.get_by_role("dialog", name="Cross Filter")
    choose(popover, "Cross Filter", "without")
    popover.get_by_role("button", name="Apply").click()
    expect(page.get_by_role("button", name="Edit cross filter: Leads without Activities")).to_be_visible()
    save(page, "Leads without done activities")
    expect(page.get_by_role("heading", name="Leads without done activities")).to_be_visible()
    rid = org.find("Report", Name="Leads without done activities")[0]["Id"]
    md = sf.restful(f"analytics/reports/{rid}/describe")["reportMetadata"]
    assert [(c["relatedEntity"], c["includesObject"], [(x["column"], x["operator"], x["value"])
                                                      for x in c["criteria"]]) for c in md["crossFilters"]] == [
        ("Activity", False, [("Status", "equals", "Completed")])]
    assert md["scope"] == "organization" and md["chart"] is None


def test_list_view_controls_add_filter_and_chart_settings(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/o/Account/list")
    page.get_by_role("button", name="List View Controls").click()
    page.get_by_role("menuitem", name="New").click()
    page.get_by_label("List Name").fill("Hot tech")
    expect(page.get_by_label("Filter 2 Field")).to_be_hidden()
    page.get_by_label("Filter 1 Field").select_option(value="Industry")
    page.get_by_label("Filter 1 Value").fill("Technology")
    page.get_by_role("button", name="Add Filter").click()
    page.get_by_label("Filter 2 Field").select_option(value="Rating")
    page.get_by_label("Filter 2 Operator").select_option(label="not equal to")
    page.get_by_label("Filter 2 Value").fill("Cold")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Hot tech", level=1)).to_be_visible()
    page.get_by_role("button", name="List View Controls").click()
    page.get_by_role("menuitem", name="Select Fields to Display").click()
    page.get_by_label("Select All").check()
    page.get_by_label("Select All").uncheck()
    page.get_by_label("Account Name", exact=True).check()
    page.get_by_role("button", name="Save", exact=True).click()
    shown(page)  # the posted form is saved before the list it leads to is shown
    [view] = sf.query("SELECT Filters, Columns FROM ListView WHERE DeveloperName = 'Hot_tech'")["records"]
    assert '"Rating"' in view["Filters"] and '"notEqual"' in view["Filters"] and '"Technology"' in view["Filters"]
    assert view["Columns"] == '["Name"]'

    page.get_by_role("button", name="Charts").click()
    page.get_by_role("button", name="Settings").click()
    expect(page.get_by_role("menu", name="Chart Settings")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("menu", name="Chart Settings")).to_be_hidden()
    page.get_by_role("button", name="Settings").click()
    page.get_by_role("menuitem", name="New Chart").click()
    page.get_by_label("Chart Name").fill("Tech ratings")
    page.get_by_label("Grouping Field").select_option(value="Rating")
    page.get_by_label("Aggregate Field").select_option(value="Name")
    page.get_by_role("button", name="Save", exact=True).click()
    shown(page)
    [chart] = sf.query("SELECT AggregateType, GroupingField FROM ListViewChart "
                       "WHERE MasterLabel = 'Tech ratings'")["records"]
    assert (chart["AggregateType"], chart["GroupingField"]) == ("Count", "Account.Rating")
