"""The report builder's and the list pages' Salesforce controls in real Chromium, read back over the API: "Show Me",
"Relative Date", "Add Filter Logic", "Group Date By", the chart properties "Show Values" and "Show Legend",
"Refresh", "Save & Run", a cross filter's "Add <Object> Filter"; a list's "List View Controls" menu (New,
Select Fields to Display), the New List View page's "Add Filter" and the list view charts' gear "Settings" (menu
"Chart Settings")."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.test_ui_reports import start


def test_report_builder_controls(page: Any, base: str, sf: Any, org: Org) -> None:
    start(page, base, "Opportunities")
    page.get_by_label("Add group").select_option(label="Close Date")
    page.get_by_role("button", name="Add Row Group").click()
    page.get_by_label("Group Date By").select_option(label="Calendar Month")
    page.get_by_label("Show Me").select_option(label="My Opportunities")
    page.get_by_label("Filter Field").select_option(label="Close Date")
    page.get_by_label("Operator", exact=True).select_option(label="greater than")
    page.get_by_label("Relative Date").select_option(label="Last Week")
    page.get_by_role("button", name="Add Filter", exact=True).click()
    # a relative date is for date fields only, and never together with a typed value
    page.get_by_label("Filter Field").select_option(label="Stage")
    page.get_by_label("Relative Date").select_option(label="Last Week")
    page.get_by_role("button", name="Add Filter", exact=True).click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("date field")
    page.get_by_label("Filter Field").select_option(label="Stage")
    page.get_by_label("Filter Value").fill("Closed Won")
    page.get_by_role("button", name="Add Filter", exact=True).click()
    # the filter logic box shows once asked for, and goes away with its logic
    expect(page.get_by_label("Filter Logic")).to_have_count(0)
    page.get_by_role("button", name="Add Filter Logic").click()
    page.get_by_label("Filter Logic").fill("1 OR 2")
    page.get_by_role("button", name="Remove Filter Logic").click()
    expect(page.get_by_label("Filter Logic")).to_have_count(0)
    page.get_by_role("button", name="Add Filter Logic").click()
    page.get_by_label("Filter Logic").fill("1 AND 2")
    page.get_by_label("Chart Type").select_option("Line")
    page.get_by_label("Chart Title").fill("Monthly")
    page.get_by_label("Show Values").check()
    page.get_by_label("Show Legend").uncheck()
    page.get_by_label("Report Name").fill("Monthly wins")
    # Refresh shows the builder again with everything kept
    page.get_by_role("button", name="Refresh").click()
    expect(page.get_by_label("Group Date By")).to_have_value("Month")
    expect(page.get_by_label("Show Me")).to_have_value("user")
    expect(page.get_by_label("Filter Logic")).to_have_value("1 AND 2")
    expect(page.get_by_label("Show Values")).to_be_checked()
    expect(page.get_by_label("Show Legend")).not_to_be_checked()
    expect(page.get_by_label("Report Name")).to_have_value("Monthly wins")
    assert not org.find("Report", Name="Monthly wins")
    page.get_by_role("button", name="Save & Run").click()
    expect(page.get_by_role("heading", name="Monthly wins")).to_be_visible()

    rid = org.find("Report", Name="Monthly wins")[0]["Id"]
    md = sf.restful(f"analytics/reports/{rid}/describe")["reportMetadata"]
    assert md["scope"] == "user"
    assert [(g["name"], g["dateGranularity"]) for g in md["groupingsDown"]] == [("CLOSE_DATE", "Month")]
    assert [(f["column"], f["operator"], f["value"]) for f in md["reportFilters"]] == [
        ("CLOSE_DATE", "greaterThan", "LAST WEEK"), ("STAGE_NAME", "equals", "Closed Won")]
    assert md["reportBooleanFilter"] == "1 AND 2"
    chart = md["chart"]
    assert (chart["chartType"], chart["title"], chart["showChartValues"], chart["hasLegend"]) == \
        ("Line", "Monthly", True, False)


def test_cross_filter_add_object_filter(page: Any, base: str, sf: Any, org: Org) -> None:
    start(page, base, "Leads")
    page.get_by_label("Related Object").select_option(label="Activities")
    page.get_by_role("button", name="Add Cross Filter").click()
    page.get_by_label("Criterion Field").fill("Status")
    page.get_by_label("Criterion Value").fill("Completed")
    page.get_by_role("button", name="Add Activities Filter").click()
    page.get_by_label("Report Name").fill("Leads with done activities")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Leads with done activities")).to_be_visible()
    rid = org.find("Report", Name="Leads with done activities")[0]["Id"]
    md = sf.restful(f"analytics/reports/{rid}/describe")["reportMetadata"]
    assert [(c["relatedEntity"], [(x["column"], x["operator"], x["value"]) for x in c["criteria"]])
            for c in md["crossFilters"]] == [("Activity", [("Status", "equals", "Completed")])]
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
    [chart] = sf.query("SELECT AggregateType, GroupingField FROM ListViewChart "
                       "WHERE MasterLabel = 'Tech ratings'")["records"]
    assert (chart["AggregateType"], chart["GroupingField"]) == ("Count", "Account.Rating")
