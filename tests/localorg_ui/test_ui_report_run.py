"""A saved report's run page in real Chromium: the rows, groups, subtotals, totals and chart of the run, checked
against the org's records; a filter keeps only its records; a row's name opens the record."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.test_ui_reports import add_filter, pick, save, start


def test_save_and_run_shows_the_runs_groups_subtotals_and_records(page: Any, base: str, org: Org) -> None:
    opportunities = org.records("Opportunity")
    start(page, base, "Opportunities")
    pick(page, "Group Rows", "Stage")
    save(page, "Pipeline by stage", run=True)
    expect(page.get_by_role("heading", name="Pipeline by stage", level=1)).to_be_visible()
    totals = page.get_by_role("group", name="Report totals")
    expect(totals).to_contain_text(re.compile(rf"Total Records\s+{len(opportunities)}\b"))
    table = page.get_by_role("table", name="Pipeline by stage")
    won = [o for o in opportunities if o["StageName"] == "Closed Won"]
    expect(table.get_by_role("rowheader", name=f"Closed Won ({len(won)})")).to_be_visible()
    expect(table.get_by_role("rowheader", name=f"Total ({len(opportunities)})")).to_be_visible()
    expect(table.get_by_role("rowheader", name="Subtotal")).to_have_count(
        len({o["StageName"] for o in opportunities}))
    links = table.get_by_role("link")
    expect(links).to_have_count(len(opportunities))  # a row per record, its name linking to it
    links.filter(has_text=won[0]["Name"]).click()
    expect(page.get_by_role("heading", name=won[0]["Name"])).to_be_visible()
    assert f"/lightning/r/Opportunity/{won[0]['Id']}/view" in page.url


def test_a_filtered_report_with_a_chart_shows_its_records_only(page: Any, base: str, sf: Any, org: Org) -> None:
    hot = sorted(lead["LastName"] for lead in org.records("Lead") if lead.get("Rating") == "Hot")
    assert hot, "the seed has hot leads"
    saved = sf.restful("analytics/reports", method="POST", data=json.dumps({"reportMetadata": {
        "name": "Hot leads", "reportFormat": "SUMMARY", "reportType": {"type": "LeadList"},
        "detailColumns": ["LAST_NAME", "COMPANY"], "groupingsDown": [{"name": "STATUS"}],
        "reportFilters": [{"column": "RATING", "operator": "equals", "value": "Hot"}],
        "chart": {"chartType": "Vertical Bar", "title": "Hot leads by status"}}}))
    page.goto(f"{base}/lightning/o/Report/{saved['reportMetadata']['id']}/view")
    table = page.get_by_role("table", name="Hot leads")
    rows = table.get_by_role("row").filter(has=page.get_by_role("cell"))
    details = rows.filter(has_not=page.get_by_role("rowheader"))
    expect(details).to_have_count(len(hot))
    assert sorted(details.evaluate_all("rows => rows.map(r => r.cells[1].innerText.trim())")) == hot
    expect(page.get_by_role("img", name="Vertical Bar chart: Record Count by Lead Status")).to_be_visible()
    filters = page.get_by_role("article", name="Filters")
    expect(filters).to_contain_text("Rating")
    expect(filters).to_contain_text("equals Hot")


def test_a_report_built_with_a_filter_runs_it(page: Any, base: str, org: Org) -> None:
    start(page, base, "Accounts")
    page.get_by_role("tab", name="Filters").click()
    add_filter(page, "Industry", "equals", "Technology")
    save(page, "Tech accounts", run=True)
    expect(page.get_by_role("heading", name="Tech accounts", level=1)).to_be_visible()
    tech = [a["Name"] for a in org.records("Account") if a.get("Industry") == "Technology"]
    table = page.get_by_role("table", name="Tech accounts")
    expect(table.get_by_role("link")).to_have_count(len(tech))
    for name in tech:
        expect(table.get_by_role("link", name=name, exact=True)).to_be_visible()


def test_a_dashboard_draws_each_components_chart_from_its_report(page: Any, base: str, sf: Any, org: Org) -> None:
    def post(path: str, body: Any) -> Any:
        return sf.restful(path, method="POST", data=json.dumps(body))

    report = post("analytics/reports", {"reportMetadata": {
        "name": "Cases by priority", "reportFormat": "SUMMARY", "reportType": {"type": "CaseList"},
        "detailColumns": ["SUBJECT"], "groupingsDown": [{"name": "PRIORITY"}]}})["reportMetadata"]["id"]
    board = post("analytics/dashboards", {"dashboardMetadata": {"name": "Support", "components": [
        {"type": "Report", "reportId": report, "header": "By priority", "properties": {"visualizationType": kind}}
        for kind in ("Donut", "Column", "Metric", "FlexTable")]}})
    page.goto(f"{base}/lightning/o/Dashboard/{board['id']}/view")
    cases = org.records("Case")
    priorities = [p for p in org.object("Case").field("Priority").values if any(c["Priority"] == p for c in cases)]
    expect(page.get_by_role("img", name="Donut chart: Record Count by Priority")).to_be_visible()
    expect(page.get_by_role("img", name="Column chart: Record Count by Priority")).to_be_visible()
    expect(page.get_by_role("img", name=f"Metric: Record Count {len(cases)}")).to_be_visible()
    table = page.get_by_role("table", name="By priority")
    expect(table.get_by_role("rowheader")).to_have_text([*priorities, "Total"])
    for p in priorities:
        count = sum(1 for c in cases if c["Priority"] == p)
        expect(table.get_by_role("row", name=p)).to_contain_text(str(count))
    page.get_by_role("link", name="Cases by priority").first.click()  # a component's report opens its run page
    expect(page.get_by_role("heading", name="Cases by priority", level=1)).to_be_visible()


def test_the_builders_preview_runs_the_report_as_it_is_built(page: Any, base: str, org: Org) -> None:
    accounts = org.records("Account")
    start(page, base, "Accounts")
    preview = page.get_by_role("table", name="Report preview")
    rows = preview.get_by_role("row").filter(has=page.get_by_role("cell")).filter(
        has_not=page.locator("td[colspan]"))
    expect(rows).to_have_count(min(len(accounts), 20))  # a limited number of records
    expect(preview).to_contain_text(sorted((a["Name"] for a in accounts), key=str.lower)[0])
    page.get_by_role("tab", name="Filters").click()
    add_filter(page, "Industry", "equals", "Technology")
    tech = sorted(a["Name"] for a in accounts if a.get("Industry") == "Technology")
    expect(rows).to_have_count(len(tech))
    assert sorted(rows.evaluate_all("rows => rows.map(r => r.cells[0].innerText.trim())")) == tech
    page.get_by_role("tab", name="Outline").click()
    pick(page, "Group Rows", "Account Owner")  # a row group: its values first
    expect(preview.get_by_role("columnheader").first).to_contain_text("Account Owner")
    owners = [org.get("User", a["OwnerId"])["Name"] for a in accounts  # type: ignore[index]
              if a.get("Industry") == "Technology"]
    # the rows come with the server's answer to the grouped report (the header changes at once): wait for them
    expect(rows.locator("td:first-child")).to_have_text(sorted(owners, key=str.lower))
    page.get_by_role("tab", name="Filters").click()
    add_filter(page, "Account Name", "equals", "No Such Account")
    expect(preview).to_contain_text("No records match the report's filters.")
    expect(rows).to_have_count(0)


def test_the_preview_needs_the_pages_token(page: Any, base: str) -> None:
    page.goto(f"{base}/lightning/o/Report/home")
    answer = page.request.post(f"{base}/lightning/o/Report/builder/preview",
                               form={"type": "AccountList", "report": "{}"})
    assert answer.status == 403


def test_edit_opens_the_saved_report_in_the_builder_and_saves_it_in_place(page: Any, base: str, sf: Any,
                                                                           org: Org) -> None:
    saved = sf.restful("analytics/reports", method="POST", data=json.dumps({"reportMetadata": {
        "name": "Deals", "reportFormat": "SUMMARY", "reportType": {"type": "Opportunity"},
        "detailColumns": ["OPPORTUNITY_NAME", "AMOUNT"], "groupingsDown": [{"name": "STAGE_NAME"}],
        "aggregates": ["s!AMOUNT", "RowCount"], "folderId": org.org_id,
        "reportFilters": [{"column": "AMOUNT", "operator": "greaterThan", "value": "100000"}]}}))
    rid = saved["reportMetadata"]["id"]
    reports = len(org.records("Report"))
    page.goto(f"{base}/lightning/o/Report/{rid}/view")
    page.get_by_role("button", name="Edit", exact=True).click()
    expect(page.get_by_role("heading", name="Deals", level=1)).to_be_visible()  # the builder, the report as saved
    expect(page.get_by_role("table", name="Report preview").get_by_role("columnheader").first).to_contain_text("Stage")
    page.get_by_role("tab", name="Filters").click()
    expect(page.get_by_role("button", name="Edit filter 1: Amount greater than 100000")).to_be_visible()
    page.get_by_role("tab", name="Outline").click()
    pick(page, "Add column", "Close Date")
    save(page, "Big deals", run=True)
    expect(page.get_by_role("heading", name="Big deals", level=1)).to_be_visible()  # the run page again
    assert f"/lightning/o/Report/{rid}/view" in page.url
    assert len(org.records("Report")) == reports and not org.find("Report", Name="Deals")  # saved in place
    md = sf.restful(f"analytics/reports/{rid}/describe")["reportMetadata"]
    assert md["name"] == "Big deals" and md["detailColumns"] == ["OPPORTUNITY_NAME", "AMOUNT", "CLOSE_DATE"]
    assert [g["name"] for g in md["groupingsDown"]] == ["STAGE_NAME"] and md["aggregates"] == ["s!AMOUNT", "RowCount"]
    assert [(f["column"], f["operator"], f["value"]) for f in md["reportFilters"]] == [
        ("AMOUNT", "greaterThan", "100000")]
    assert md["folderId"] == org.org_id  # the folder is kept
    big = [o for o in org.records("Opportunity") if (o.get("Amount") or 0) > 100000]
    table = page.get_by_role("table", name="Big deals")
    expect(table.get_by_role("link")).to_have_count(len(big))


def test_the_builders_chart_is_drawn_from_the_preview_run(page: Any, base: str, org: Org) -> None:
    accounts = org.records("Account")
    ratings = [r for r in org.object("Account").field("Rating").values if any(a.get("Rating") == r for a in accounts)]
    start(page, base, "Accounts")
    pick(page, "Group Rows", "Account Rating")
    page.get_by_role("button", name="Add Chart").click()
    page.get_by_role("button", name="Donut", exact=True).click()
    donut = page.get_by_role("img", name="Donut chart: Record Count by Account Rating")
    expect(donut).to_be_visible()
    none = sum(1 for a in accounts if not a.get("Rating"))
    slices = [f"{r}: {sum(1 for a in accounts if a.get('Rating') == r)}" for r in ratings]
    expect(donut.locator("circle title")).to_have_text((["-: " + str(none)] if none else []) + slices)
    page.get_by_role("button", name="Column", exact=True).click()
    columns = page.get_by_role("img", name="Column chart: Record Count by Account Rating")
    expect(columns.locator("rect")).to_have_count(len(ratings) + (1 if none else 0))
    page.get_by_text("Show Values", exact=True).click()  # an SLDS checkbox: its label takes the click
    expect(columns.locator("text")).to_contain_text([slices[0].split(": ")[1]])
