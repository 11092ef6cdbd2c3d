"""The Reports tab and the report builder in real Chromium: a matrix report with a summary, filters with their
logic and a chart, read back over the Analytics API's describe; a bad filter logic keeps the builder's state."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org


def start(page: Any, base: str, label: str) -> None:
    page.goto(f"{base}/lightning/page/home")
    page.get_by_role("navigation", name="Global").get_by_role("link", name="Reports").click()
    page.get_by_role("button", name="New Report").click()
    page.get_by_label("Search Report Types...").fill(label.lower())
    choose_type(page, label)
    page.get_by_role("button", name="Start Report").click()


def choose_type(page: Any, label: str) -> None:
    """Click a report type's label: an SLDS radio is drawn by its label, over the input (as on Salesforce)."""
    page.locator("#rt-list label").filter(has_text=re.compile(rf"^\s*{re.escape(label)}\s*$")).click()
    expect(page.get_by_role("radio", name=label, exact=True)).to_be_checked()


def test_matrix_report_with_filters_logic_and_summary(page: Any, base: str, sf: Any, org: Org) -> None:
    start(page, base, "Opportunities")
    page.get_by_label("Add group").select_option(label="Stage")
    page.get_by_role("button", name="Add Row Group").click()
    page.get_by_label("Add column group").select_option(label="Type")
    page.get_by_role("button", name="Add Column Group").click()
    page.get_by_label("Summarize").select_option(label="Amount")
    page.get_by_label("Summary", exact=True).select_option(label="Max")
    page.get_by_role("button", name="Add Summary").click()
    for field, op, value in (("Stage", "equals", "Closed Won"), ("Stage", "equals", "Closed Lost"),
                             ("Amount", "greater than", "5000")):
        page.get_by_label("Filter Field").select_option(label=field)
        page.get_by_label("Operator", exact=True).select_option(label=op)
        page.get_by_label("Filter Value").fill(value)
        page.get_by_role("button", name="Add Filter", exact=True).click()
    page.get_by_role("button", name="Add Filter Logic").click()
    page.get_by_label("Filter Logic").fill("(1 OR 2) AND 4")
    page.get_by_label("Report Name").fill("Won and lost")
    page.get_by_role("button", name="Save", exact=True).click()
    summary = page.get_by_role("region", name="Review the errors on this page.")
    expect(summary).to_contain_text("filter logic")
    expect(page.get_by_role("button", name="Remove filter 3")).to_be_visible()  # nothing was lost
    assert not org.find("Report", Name="Won and lost")
    page.get_by_label("Filter Logic").fill("(1 OR 2) AND 3")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Won and lost")).to_be_visible()

    rid = org.find("Report", Name="Won and lost")[0]["Id"]
    described = sf.restful(f"analytics/reports/{rid}/describe")
    md, ext = described["reportMetadata"], described["reportExtendedMetadata"]
    assert md["reportFormat"] == "MATRIX" and md["reportType"]["label"] == "Opportunities"
    assert list(ext["groupingColumnInfo"]) == ["STAGE_NAME", "TYPE"]
    assert ext["aggregateColumnInfo"]["mx!AMOUNT"]["label"] == "Largest Amount"
    assert [(f["column"], f["operator"], f["value"]) for f in md["reportFilters"]] == [
        ("STAGE_NAME", "equals", "Closed Won"), ("STAGE_NAME", "equals", "Closed Lost"),
        ("AMOUNT", "greaterThan", "5000")]
    assert md["reportBooleanFilter"] == "(1 OR 2) AND 3"


def test_summary_report_with_chart_and_a_cross_filter(page: Any, base: str, sf: Any, org: Org) -> None:
    start(page, base, "Accounts")
    page.get_by_label("Chart Type").select_option("Donut")
    page.get_by_label("Report Name").fill("Ratings")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("row grouping")
    page.get_by_label("Add group").select_option(label="Account Rating")
    page.get_by_role("button", name="Add Row Group").click()
    page.get_by_label("Related Object").select_option(label="Opportunities")
    page.get_by_role("button", name="Add Cross Filter").click()
    page.get_by_label("Criterion Field").fill("StageName")
    page.get_by_label("Criterion Operator").select_option(label="equals")
    page.get_by_label("Criterion Value").fill("Prospecting")
    page.get_by_role("button", name="Add Opportunities Filter").click()
    page.get_by_label("Chart Title").fill("By rating")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Ratings")).to_be_visible()
    rid = org.find("Report", Name="Ratings")[0]["Id"]
    md = sf.restful(f"analytics/reports/{rid}/describe")["reportMetadata"]
    assert md["reportFormat"] == "SUMMARY"
    assert (md["chart"]["chartType"], md["chart"]["title"]) == ("Donut", "By rating")
    assert [(c["relatedEntity"], [(x["column"], x["operator"], x["value"]) for x in c["criteria"]])
            for c in md["crossFilters"]] == [("Opportunity", [("StageName", "equals", "Prospecting")])]
    page.goto(f"{base}/lightning/o/Report/home")  # Recent: the new report first, in its folder, by its creator
    expect(page.get_by_role("heading", name="Recent", level=1)).to_be_visible()
    first = page.get_by_role("row").nth(1)
    expect(first.get_by_role("link", name="Ratings")).to_be_visible()
    expect(first).to_contain_text("Public Reports")
    page.get_by_role("searchbox", name="Search recent reports...").fill("ratings")  # the list's search
    expect(page.get_by_role("row")).to_have_count(2)
    page.get_by_role("link", name="Private Reports").click()  # a list of the navigation: none is private
    expect(page.get_by_role("heading", name="Private Reports", level=1)).to_be_visible()
    expect(page.get_by_text("No items to display.")).to_be_visible()
    page.get_by_role("link", name="All Reports").click()
    expect(page.get_by_role("link", name="All Reports")).to_have_attribute("aria-current", "page")
    page.get_by_role("link", name="Ratings", exact=True).click()  # a report's name opens it
    expect(page.get_by_role("heading", name="Ratings")).to_be_visible()
    assert f"/lightning/o/Report/{rid}/view" in page.url


def test_dashboard_with_a_report_component(page: Any, base: str, sf: Any, org: Org) -> None:
    start(page, base, "Cases")
    page.get_by_label("Add group").select_option(label="Priority")
    page.get_by_role("button", name="Add Row Group").click()
    page.get_by_label("Report Name").fill("Cases by priority")
    page.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("navigation", name="Global").get_by_role("link", name="Dashboards").click()
    page.get_by_role("button", name="New Dashboard").click()
    page.get_by_role("button", name="Add Component").click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Choose a report")
    page.get_by_label("Report", exact=True).select_option(label="Cases by priority")
    page.get_by_label("Display As").select_option(label="Donut Chart")
    page.get_by_label("Title").fill("Open cases")
    page.get_by_role("button", name="Add Component").click()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Name")
    expect(page.get_by_role("button", name="Remove component 1")).to_be_visible()  # the component is kept
    page.get_by_label("Name", exact=True).fill("Support")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Support")).to_be_visible()
    did = org.find("Dashboard", Title="Support")[0]["Id"]
    [component] = sf.restful(f"analytics/dashboards/{did}/describe")["components"]
    assert component["header"] == "Open cases" and component["properties"]["visualizationType"] == "Donut"
    assert component["reportId"] == org.find("Report", Name="Cases by priority")[0]["Id"]
    # the Dashboards home: its lists, the new dashboard among All Dashboards, its name opens it
    page.get_by_role("navigation", name="Global").get_by_role("link", name="Dashboards").click()
    expect(page.get_by_role("heading", name="Recent", level=1)).to_be_visible()
    expect(page.get_by_role("navigation", name="Dashboards").get_by_role("link")).to_have_text(
        ["Recent", "Created by Me", "Private Dashboards", "All Dashboards"])
    page.get_by_role("link", name="All Dashboards").click()
    expect(page.get_by_role("columnheader", name="Dashboard Name")).to_be_visible()
    page.get_by_role("link", name="Support", exact=True).click()
    expect(page.get_by_role("heading", name="Support")).to_be_visible()
    assert f"/lightning/o/Dashboard/{did}/view" in page.url


def test_create_report_dialog_categories_and_no_type_chosen(page: Any, base: str) -> None:
    """New Report is the Create Report dialog over the Reports home: a category narrows the report types, Start
    Report without a type says so and keeps the dialog, Cancel goes back to the Reports home."""
    page.goto(f"{base}/lightning/o/Report/home")
    page.get_by_role("button", name="New Report").click()
    dialog = page.get_by_role("dialog", name="Create Report")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("radio")).to_have_count(8)
    dialog.get_by_role("link", name="Opportunities", exact=True).click()  # the category
    expect(dialog.get_by_role("link", name="Opportunities", exact=True)).to_have_attribute("aria-current", "page")
    expect(dialog.get_by_role("radio")).to_have_count(1)
    dialog.get_by_role("button", name="Start Report").click()
    expect(dialog.get_by_role("alert")).to_contain_text("Choose a report type.")
    choose_type(page, "Opportunities")
    dialog.get_by_role("button", name="Start Report").click()
    expect(page).to_have_url(re.compile(r"/lightning/o/Report/builder\?type="))
    page.goto(f"{base}/lightning/o/Report/new")
    page.get_by_role("dialog", name="Create Report").get_by_role("button", name="Cancel", exact=True).click()
    expect(page.get_by_role("heading", name="Recent", level=1)).to_be_visible()
