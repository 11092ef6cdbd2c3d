"""The Reports tab and Lightning's report builder in real Chromium: a matrix report with a summary, filters with
their logic, a summary report with a chart and a cross filter, read back over the Analytics API's describe; a
refused filter logic and a missing name keep the report being built; the Reports and Dashboards homes."""

from __future__ import annotations

import json
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


def pick(page: Any, box: str, field: str) -> None:
    """Choose a field in one of the builder's field searches (Group Rows, Group Columns, Columns, Add filter):
    a few letters typed, then the field clicked in the list."""
    search = page.get_by_role("combobox", name=box, exact=True)
    search.click()
    search.fill(field[:3])
    page.get_by_role("option", name=field, exact=True).click()


def choose(scope: Any, label: str, option: str) -> None:
    """Choose an option of a lightning-combobox (Operator, Relative Date, Folder, ...)."""
    scope.get_by_role("combobox", name=label, exact=True).click()
    scope.get_by_role("option", name=option, exact=True).click()


def add_filter(page: Any, field: str, operator: str, value: str = "", relative: str | None = None) -> None:
    """A field filter: Add filter... chooses the field, its popover's Operator, Value or Relative Date, Apply."""
    pick(page, "Add filter", field)
    popover = page.get_by_role("dialog", name="Edit Filter")
    choose(popover, "Operator", operator)
    if value:
        popover.get_by_label("Value", exact=True).fill(value)
    if relative:
        choose(popover, "Relative Date", relative)
    popover.get_by_role("button", name="Apply").click()
    expect(popover).to_have_count(0)


def filters_menu(page: Any, item: str) -> None:
    """The Filters menu beside "Add filter...": Add Filter Logic, Add Cross Filter, ..."""
    page.get_by_role("button", name="Filters", exact=True).click()
    page.get_by_role("menuitem", name=item).click()


def save(page: Any, name: str, *, run: bool = False, folder: str = "Public Reports") -> None:
    """Save (or Save & Run): the Save Report dialog's name and folder, its Save."""
    page.get_by_role("button", name="Save & Run" if run else "Save", exact=True).click()
    dialog = page.get_by_role("dialog", name="Save Report")
    dialog.get_by_label("Report Name").fill(name)
    choose(dialog, "Folder", folder)
    dialog.get_by_role("button", name="Save", exact=True).click()


def test_matrix_report_with_filters_logic_and_summary(page: Any, base: str, sf: Any, org: Org) -> None:
    start(page, base, "Opportunities")
    pick(page, "Group Rows", "Stage")
    pick(page, "Group Columns", "Type")
    pick(page, "Add column", "Amount")
    page.get_by_role("button", name="Show actions for Amount").click()  # the preview column's menu: Summarize
    page.get_by_role("menuitemcheckbox", name="Max", exact=True).click()
    expect(page.get_by_role("columnheader", name=re.compile("^Amount"))).to_contain_text("Σ Max")
    expect(page.get_by_role("heading", name="Preview (Matrix)")).to_be_visible()
    page.get_by_role("tab", name="Filters").click()
    for field, op, value in (("Stage", "equals", "Closed Won"), ("Stage", "equals", "Closed Lost"),
                             ("Amount", "greater than", "5000")):
        add_filter(page, field, op, value)
    expect(page.get_by_role("tab", name="Filters (3)")).to_be_visible()
    filters_menu(page, "Add Filter Logic")
    expect(page.get_by_label("Filter Logic")).to_have_value("1 AND 2 AND 3")
    page.get_by_label("Filter Logic").fill("(1 OR 2) AND 4")
    save(page, "Won and lost")
    # refused: the builder again on its Filters tab, the message under the logic, nothing lost, nothing saved
    expect(page.get_by_role("alert")).to_contain_text("filter logic")
    expect(page.get_by_role("button", name="Remove filter 3: Amount")).to_be_visible()
    assert not org.find("Report", Name="Won and lost")
    page.get_by_label("Filter Logic").fill("(1 OR 2) AND 3")
    page.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name="Save Report")
    expect(dialog.get_by_label("Report Name")).to_have_value("Won and lost")  # as typed before
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("heading", name="Won and lost")).to_be_visible()

    [rec] = org.find("Report", Name="Won and lost")
    assert (rec["DeveloperName"], rec["FolderName"]) == ("Won_and_lost", "Public Reports")
    described = sf.restful(f"analytics/reports/{rec['Id']}/describe")
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
    expect(page.get_by_role("button", name="Add Chart")).to_be_disabled()  # a chart needs a row group
    pick(page, "Group Rows", "Account Rating")
    page.get_by_role("button", name="Add Chart").click()  # the chart and its Chart Properties
    page.get_by_role("button", name="Donut", exact=True).click()
    expect(page.get_by_role("button", name="Donut", exact=True)).to_have_attribute("aria-pressed", "true")
    page.get_by_label("Chart Title").fill("By rating")
    page.get_by_role("tab", name="Filters").click()
    filters_menu(page, "Add Cross Filter")
    popover = page.get_by_role("dialog", name="Cross Filter")
    popover.get_by_role("button", name="Apply").click()
    expect(popover.get_by_role("alert")).to_have_text("Choose the related object.")
    choose(popover, "Related Object", "Opportunities")
    popover.get_by_role("button", name="Apply").click()
    page.get_by_role("button", name="Add Opportunities Filter").click()
    popover = page.get_by_role("dialog", name="Edit Filter")
    popover.get_by_label("Field", exact=True).fill("StageName")
    popover.get_by_label("Value", exact=True).fill("Prospecting")
    popover.get_by_role("button", name="Apply").click()
    expect(page.get_by_role("button", name="Edit cross filter: Accounts with Opportunities")).to_be_visible()
    # the Save Report dialog asks for the name; the unique name follows it
    page.get_by_role("button", name="Save", exact=True).click()
    dialog = page.get_by_role("dialog", name="Save Report")
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(dialog.get_by_text("Complete this field.").first).to_be_visible()
    assert not org.find("Report", Name="Ratings")
    dialog.get_by_label("Report Name").fill("Ratings")
    expect(dialog.get_by_label("Report Unique Name")).to_have_value("Ratings")
    choose(dialog, "Folder", "Public Reports")
    dialog.get_by_role("button", name="Save", exact=True).click()
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
    pick(page, "Group Rows", "Priority")
    save(page, "Cases by priority")
    expect(page.get_by_role("heading", name="Cases by priority")).to_be_visible()
    page.get_by_role("navigation", name="Global").get_by_role("link", name="Dashboards").click()
    page.get_by_role("button", name="New Dashboard").click()  # the New Dashboard dialog: the name is required
    dialog = page.get_by_role("dialog", name="New Dashboard")
    dialog.get_by_role("button", name="Create").click()
    expect(page.get_by_role("dialog", name="New Dashboard")).to_contain_text("Complete this field.")
    page.get_by_role("dialog", name="New Dashboard").get_by_label("Name").fill("Support")
    page.get_by_role("dialog", name="New Dashboard").get_by_role("button", name="Create").click()
    expect(page.get_by_role("heading", name="Support", level=1)).to_be_visible()  # the builder
    expect(page.get_by_text("Add a component to your dashboard")).to_be_visible()
    page.get_by_role("button", name="Component", exact=True).click()  # + Component: Select Report first
    dialog = page.get_by_role("dialog", name="Select Report")
    dialog.get_by_role("button", name="Select").click()
    expect(dialog.get_by_role("alert")).to_have_text("Select a report.")
    dialog.get_by_label("Search Reports...").fill("cases by priority")
    expect(dialog.get_by_role("radio")).to_have_count(1)
    dialog.get_by_text("Cases by priority", exact=True).click()  # an SLDS radio: its label takes the click
    dialog.get_by_role("button", name="Select").click()
    dialog = page.get_by_role("dialog", name="Add Component")
    expect(dialog).to_contain_text("Report: Cases by priority")
    dialog.get_by_role("button", name="Donut Chart").click()
    expect(dialog.get_by_role("button", name="Donut Chart")).to_have_attribute("aria-pressed", "true")
    dialog.get_by_label("Title").fill("Open cases")
    dialog.get_by_role("button", name="Add", exact=True).click()
    expect(page.get_by_role("heading", name="Open cases")).to_be_visible()  # the component's card
    # the card draws the component's chart from its report's run, as Salesforce's builder does
    card = page.locator("article").filter(has=page.get_by_role("heading", name="Open cases"))
    donut = card.get_by_role("img", name="Donut chart: Record Count by Priority")
    expect(donut).to_be_visible()
    priorities = {c["Priority"] for c in org.records("Case")}
    expect(donut.locator("circle title")).to_have_count(len(priorities))
    expect(card).to_contain_text("Donut Chart · Report: Cases by priority")
    page.get_by_role("button", name="Properties").click()  # the dashboard's name and description
    dialog = page.get_by_role("dialog", name="Properties")
    dialog.get_by_label("Description").fill("Cases by their priority")
    dialog.get_by_role("button", name="Save", exact=True).click()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page).to_have_url(re.compile(r"/lightning/o/Dashboard/\w+/view$"))  # the saved dashboard's page
    expect(page.get_by_role("heading", name="Support")).to_be_visible()
    [rec] = org.find("Dashboard", Title="Support")
    did = rec["Id"]
    assert rec["Description"] == "Cases by their priority"
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


def test_a_report_the_builder_would_not_make_is_refused_whole(page: Any, base: str, org: Org) -> None:
    """A posted report that the builder's controls cannot make (a forged or stale page) is refused with the reason,
    the report as posted comes back (its name kept), and nothing is saved."""
    builder = f"{base}/lightning/o/Report/builder"
    shown = page.request.get(f"{builder}?type=Opportunity").text()
    token = re.search(r'"csrf": "([^"]+)"', shown)
    assert token, "the builder's props carry the CSRF token"
    reports = org.counts()["Report"]
    good = {"down": ["STAGE_NAME"], "across": [], "columns": ["AMOUNT"], "summaries": [], "filters": [],
            "cross": [], "down_dates": {}, "across_dates": {}, "scope": "organization",
            "dateFilter": {"column": "CLOSE_DATE", "durationValue": "CUSTOM"}, "logic": "", "chart": None,
            "name": "Forged Pipeline", "developerName": "", "description": "", "folder": "public"}
    cases = [
        ({"columns": ["NO_SUCH_COLUMN"]}, "NO_SUCH_COLUMN"),
        ({"filters": [["AMOUNT", "approximately", "5"]]}, "approximately"),
        ({"cross": [{"entity": "Invoice", "with": True, "criteria": []}]}, "no cross filter on"),
        ({"down": [], "chart": {"type": "Donut", "title": "x"}}, "A chart needs a row group"),
        ({"chart": {"type": "Pie3D", "title": "x"}}, "Choose a chart type from the list"),
        ({"dateFilter": {"column": "CLOSE_DATE", "durationValue": "SOMEDAY"}}, "Choose a date range from the list"),
        ({"filters": [["AMOUNT", "greaterThan", "5"]], "logic": "1 AND 7"}, "is not valid for 1 filters"),
        ({"name": "  "}, "Complete this field."),
    ]
    for change, reason in cases:
        answer = page.request.post(builder, form={"_csrf": token.group(1), "type": "Opportunity", "do": "save",
                                                  "report": json.dumps({**good, **change})})
        text = answer.text()
        assert answer.status == 400, (change, answer.status)
        assert reason in text, (change, reason)
        if "name" not in change:
            assert "Forged Pipeline" in text, "the report comes back as posted"
    assert org.counts()["Report"] == reports, "nothing was saved"
    saved = page.request.post(builder, form={"_csrf": token.group(1), "type": "Opportunity", "do": "save",
                                             "report": json.dumps(good)})
    assert saved.ok and "/view" in saved.url
    assert org.counts()["Report"] == reports + 1
