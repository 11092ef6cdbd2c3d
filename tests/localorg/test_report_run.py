"""Running reports: the rows, groups and summaries a report's definition gives on the seeded org, checked against
the records read directly; and the Analytics API's Execute Sync over HTTPS with simple-salesforce."""

from __future__ import annotations

import itertools
import json
from datetime import date
from typing import Any

import pytest
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import SalesforceError

from pytest_cua.orgs.localorg.analytics.report_run import logic_holds, matches, relative_range, run_report
from pytest_cua.orgs.localorg.analytics.report_sources import SOURCES
from pytest_cua.orgs.localorg.analytics.report_types import REPORT_TYPES
from pytest_cua.orgs.localorg.analytics.reports import definition
from pytest_cua.orgs.localorg.store import Org


def _run(org: Org, user_id: str | None = None, **md: Any) -> dict[str, Any]:
    return run_report(org, definition({"name": "R", **md}), user_id=user_id)


def _names(cell: dict[str, Any]) -> list[str]:
    return [row["dataCells"][0]["label"] for row in cell.get("rows", [])]


def test_every_column_of_every_report_type_reads_a_field_the_org_has(org: Org) -> None:
    for type_name, source in SOURCES.items():
        assert set(source.paths) == set(REPORT_TYPES[type_name].columns), type_name
        obj = org.object(source.objects[0])
        for column, path in source.paths.items():
            if path.startswith("@"):
                continue
            here = obj
            *hops, last = path.split(".")
            for hop in hops:
                ref = next((f for f in here.fields.values() if (f.relationship_name or "") == hop), None)
                assert ref is not None, f"{type_name}.{column}: {here.name} has no relationship {hop}"
                here = org.object(ref.reference_to[0])
            assert here.field(last) is not None, f"{type_name}.{column}: {here.name} has no field {last}"


def test_a_tabular_report_keeps_the_records_its_filter_names(org: Org) -> None:
    result = _run(org, reportType={"type": "AccountList"}, detailColumns=["ACCOUNT.NAME", "INDUSTRY", "SALES"],
                  reportFilters=[{"column": "INDUSTRY", "operator": "equals", "value": "Technology,healthcare"}])
    wanted = sorted(a["Name"] for a in org.records("Account") if a.get("Industry") in ("Technology", "Healthcare"))
    total = result["factMap"]["T!T"]
    assert wanted and _names(total) == sorted(wanted, key=str.lower)
    assert total["aggregates"] == [{"label": str(len(wanted)), "value": len(wanted)}]
    first = org.find("Account", Name=_names(total)[0])[0]
    name, industry, revenue = total["rows"][0]["dataCells"]
    assert name == {"label": first["Name"], "value": first["Id"]}  # the name cell's value is the record's id
    assert industry["label"] == first["Industry"]
    assert revenue["label"] == ("-" if first.get("AnnualRevenue") is None else f"${first['AnnualRevenue']:,.2f}")


def test_a_summary_report_groups_in_the_picklists_order_and_sums_each_group(org: Org) -> None:
    result = _run(org, reportType={"type": "Opportunity"}, reportFormat="SUMMARY", detailColumns=["OPPORTUNITY_NAME"],
                  groupingsDown=[{"name": "STAGE_NAME"}], aggregates=["s!AMOUNT", "RowCount"])
    stages = list(org.object("Opportunity").field("StageName").values)
    groups = result["groupingsDown"]["groupings"]
    opportunities = org.records("Opportunity")
    assert [g["value"] for g in groups] == [s for s in stages if any(o["StageName"] == s for o in opportunities)]
    for group in groups:
        members = [o for o in opportunities if o["StageName"] == group["value"]]
        cell = result["factMap"][f"{group['key']}!T"]
        assert sorted(_names(cell)) == sorted(o["Name"] for o in members)
        assert cell["aggregates"][0]["value"] == sum(o.get("Amount") or 0 for o in members)
        assert cell["aggregates"][1]["value"] == len(members)
    assert "rows" not in result["factMap"]["T!T"]  # the grand total of a summary holds its summaries only
    assert result["factMap"]["T!T"]["aggregates"][1]["value"] == len(opportunities)


def test_a_matrix_report_crosses_its_groups(org: Org) -> None:
    result = _run(org, reportType={"type": "Opportunity"}, reportFormat="MATRIX", detailColumns=["OPPORTUNITY_NAME"],
                  groupingsDown=[{"name": "CLOSE_DATE", "dateGranularity": "Year"}],
                  groupingsAcross=[{"name": "TYPE"}], aggregates=["RowCount"])
    down, across = result["groupingsDown"]["groupings"], result["groupingsAcross"]["groupings"]
    opportunities = org.records("Opportunity")
    for d, a in itertools.product(down, across):
        members = [o for o in opportunities if o["CloseDate"][:4] == d["value"]
                   and (o.get("Type") or None) == a["value"]]
        assert sorted(_names(result["factMap"][f"{d['key']}!{a['key']}"])) == sorted(o["Name"] for o in members)
    assert sum(result["factMap"][f"{d['key']}!T"]["aggregates"][0]["value"] for d in down) == len(opportunities)
    assert sum(result["factMap"][f"T!{a['key']}"]["aggregates"][0]["value"] for a in across) == len(opportunities)


def test_show_me_my_records_and_a_custom_date_range(org: Org) -> None:
    owner = org.records("Opportunity")[0]["OwnerId"]
    mine = _run(org, owner, reportType={"type": "Opportunity"}, scope="user", detailColumns=["OPPORTUNITY_NAME"])
    assert sorted(_names(mine["factMap"]["T!T"])) == sorted(
        o["Name"] for o in org.records("Opportunity") if o["OwnerId"] == owner)
    closing = sorted(o["CloseDate"] for o in org.records("Opportunity"))
    start, end = closing[2], closing[-3]
    ranged = _run(org, reportType={"type": "Opportunity"}, detailColumns=["OPPORTUNITY_NAME"],
                  standardDateFilter={"column": "CLOSE_DATE", "durationValue": "CUSTOM", "startDate": start,
                                      "endDate": end})
    assert sorted(_names(ranged["factMap"]["T!T"])) == sorted(
        o["Name"] for o in org.records("Opportunity") if start <= o["CloseDate"] <= end)


def test_filter_logic_and_cross_filters(org: Org) -> None:
    logic = _run(org, reportType={"type": "LeadList"}, detailColumns=["LAST_NAME"], reportBooleanFilter="1 OR 2",
                 reportFilters=[{"column": "RATING", "operator": "equals", "value": "Hot"},
                                {"column": "STATUS", "operator": "startsWith", "value": "open"}])
    assert sorted(_names(logic["factMap"]["T!T"])) == sorted(
        lead["LastName"] for lead in org.records("Lead")
        if lead.get("Rating") == "Hot" or str(lead.get("Status") or "").lower().startswith("open"))
    with_opps = {o["AccountId"] for o in org.records("Opportunity")}
    for includes in (True, False):
        result = _run(org, reportType={"type": "AccountList"}, detailColumns=["ACCOUNT.NAME"],
                      crossFilters=[{"relatedEntity": "Opportunity", "includesObject": includes, "criteria": []}])
        assert sorted(_names(result["factMap"]["T!T"])) == sorted(
            a["Name"] for a in org.records("Account") if (a["Id"] in with_opps) == includes)
    big = {o["AccountId"] for o in org.records("Opportunity") if (o.get("Amount") or 0) > 200000}
    assert big and big != with_opps  # the criterion compares amounts as numbers ("90000" > "200000" as text)
    result = _run(org, reportType={"type": "AccountList"}, detailColumns=["ACCOUNT.NAME"], crossFilters=[
        {"relatedEntity": "Opportunity", "criteria": [{"column": "Amount", "operator": "greaterThan",
                                                       "value": "200000"}]}])
    assert sorted(_names(result["factMap"]["T!T"])) == sorted(
        a["Name"] for a in org.records("Account") if a["Id"] in big)


@pytest.mark.parametrize("first, second, third", list(itertools.product([False, True], repeat=3)))
def test_filter_logic_reads_as_salesforce_does(first: bool, second: bool, third: bool) -> None:
    results = [first, second, third]
    assert logic_holds("(1 OR 2) AND NOT 3", results) == ((first or second) and not third)
    assert logic_holds("1 OR 2 AND 3", results) == (first or (second and third))  # AND binds tighter
    assert logic_holds("NOT (1 AND 2) OR 3", results) == ((not (first and second)) or third)


def test_filter_operators_on_each_kind() -> None:
    today = date(2026, 12, 5)
    assert matches("currency", "greaterThan", 5000.0, "4,999") and not matches("currency", "lessThan", None, "10")
    assert matches("currency", "greaterThan", 5001.0, '"5,000"') and not matches("currency", "greaterThan", 5000.0,
                                                                                 '"5,000"')
    assert matches("string", "equals", "Smith, Jones", '"Smith, Jones",Other')  # a quoted value holds its comma
    assert not matches("string", "equals", "Smith", '"Smith, Jones"')
    assert matches("date", "equals", "2026-12-01", "THIS MONTH", today)
    assert matches("date", "lessThan", "2026-11-30", "THIS MONTH", today)
    assert matches("date", "greaterOrEqual", "2026-12-05", "12/5/2026", today)
    assert matches("datetime", "equals", "2026-12-04T23:00:00.000+0000", "YESTERDAY", today)
    assert matches("picklist", "notEqual", "Cold", "Hot,Warm") and matches("picklist", "equals", None, "")
    assert matches("string", "contains", "Quillstone Publishing", "stone") and not matches(
        "string", "notContain", "Quillstone", "QUILL")
    assert matches("boolean", "equals", False, "false") and matches("boolean", "equals", None, "False")
    assert relative_range("LAST_N_DAYS:30", today) == (date(2026, 11, 5), date(2026, 12, 6))
    assert relative_range("THIS_FISCAL_QUARTER", today) == (date(2026, 10, 1), date(2027, 1, 1))
    assert relative_range("Tuesday", today) is None


# ---- the Analytics API's Execute Sync, over HTTPS ----

def _post(sf: Salesforce, path: str, body: Any) -> Any:
    return sf.restful(path, method="POST", data=json.dumps(body))


def test_execute_sync_runs_a_saved_report_and_a_changed_definition(sf: Salesforce) -> None:
    saved = _post(sf, "analytics/reports", {"reportMetadata": {
        "name": "Stages", "reportFormat": "SUMMARY", "reportType": {"type": "Opportunity"},
        "detailColumns": ["OPPORTUNITY_NAME", "AMOUNT"], "groupingsDown": [{"name": "STAGE_NAME"}],
        "aggregates": ["s!AMOUNT", "RowCount"]}})
    rid = saved["reportMetadata"]["id"]
    count = sf.query("SELECT COUNT() FROM Opportunity")["totalSize"]
    summary = sf.restful(f"analytics/reports/{rid}")
    assert summary["attributes"]["reportId"] == rid and summary["hasDetailRows"] is False
    assert summary["factMap"]["T!T"]["aggregates"][1]["value"] == count
    assert all("rows" not in cell for cell in summary["factMap"].values())
    detailed = sf.restful(f"analytics/reports/{rid}", params={"includeDetails": "true"})
    assert sum(len(cell.get("rows", [])) for cell in detailed["factMap"].values()) == count
    won = _post(sf, f"analytics/reports/{rid}?includeDetails=true", {"reportMetadata": {"reportFilters": [
        {"column": "STAGE_NAME", "operator": "equals", "value": "Closed Won"}]}})
    names = sorted(r["Name"] for r in sf.query("SELECT Name FROM Opportunity WHERE StageName = 'Closed Won'")["records"])
    assert [g["label"] for g in won["groupingsDown"]["groupings"]] == ["Closed Won"]
    assert sorted(row["dataCells"][0]["label"] for row in won["factMap"]["0!T"]["rows"]) == names
    assert sf.restful(f"analytics/reports/{rid}/describe")["reportMetadata"]["reportFilters"] == []  # not saved
    unsaved = _post(sf, "analytics/reports/query?includeDetails=true", {"reportMetadata": {
        "name": "Leads", "reportType": {"type": "LeadList"}, "detailColumns": ["LAST_NAME"]}})
    assert len(unsaved["factMap"]["T!T"]["rows"]) == sf.query("SELECT COUNT() FROM Lead")["totalSize"]
    with pytest.raises(SalesforceError) as exc:
        _post(sf, "analytics/reports/query", {"reportMetadata": {"name": "X", "reportType": {"type": "Nope"}}})
    assert exc.value.status == 400 and exc.value.content[0]["fields"] == ["reportType.type"]


def test_dashboard_results_carry_each_components_report_run(sf: Salesforce) -> None:
    report = _post(sf, "analytics/reports", {"reportMetadata": {
        "name": "Cases by priority", "reportFormat": "SUMMARY", "reportType": {"type": "CaseList"},
        "detailColumns": ["SUBJECT"], "groupingsDown": [{"name": "PRIORITY"}]}})["reportMetadata"]["id"]
    made = _post(sf, "analytics/dashboards", {"dashboardMetadata": {"name": "Support", "components": [
        {"type": "Report", "reportId": report, "header": "Open cases", "properties": {"visualizationType": "Donut"}}]}})
    [data] = sf.restful(f"analytics/dashboards/{made['id']}")["componentData"]
    assert data["status"]["dataStatus"] == "DATA" and data["reportResult"]["attributes"]["reportId"] == report
    result = data["reportResult"]
    cases = sf.query("SELECT Priority FROM Case")["records"]
    assert result["factMap"]["T!T"]["aggregates"][0]["value"] == len(cases)
    assert {g["label"]: result["factMap"][f"{g['key']}!T"]["aggregates"][0]["value"]
            for g in result["groupingsDown"]["groupings"]} == {
        p: sum(1 for c in cases if (c["Priority"] or "-") == p) for p in {c["Priority"] or "-" for c in cases}}
    assert result["hasDetailRows"] is False and "rows" not in result["factMap"]["T!T"]


def test_a_dashboard_runs_each_report_once_as_its_running_user(org: Org, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dashboard's API results and its page share one run per report (``component_runs``), made as the
    dashboard's running user whoever looks: a "My opportunities" report on it shows the running user's records."""
    from pytest_cua.orgs.localorg import analytics
    from pytest_cua.orgs.localorg.analytics import dashboards

    owners = sorted({o["OwnerId"] for o in org.records("Opportunity")})
    runner = owners[0]
    report = analytics.create_report(org, {"name": "My opportunities", "reportType": {"type": "Opportunity"},
                                           "scope": "user", "detailColumns": ["OPPORTUNITY_NAME"]})
    other = analytics.create_report(org, {"name": "All opportunities", "reportType": {"type": "Opportunity"},
                                          "detailColumns": ["OPPORTUNITY_NAME"]})
    board = analytics.create_dashboard(org, {"name": "Mine", "components": [
        {"type": "Report", "reportId": rid, "properties": {"visualizationType": vis}}
        for rid, vis in ((report, "Donut"), (report, "Bar"), (other, "Metric"))]}, user_id=runner)
    calls: list[str | None] = []
    real = dashboards.run_report

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs.get("user_id"))
        return real(*args, **kwargs)

    monkeypatch.setattr(dashboards, "run_report", counted)
    results = dashboards.dashboard_results(org, board, "62.0")
    assert calls == [runner, runner]  # two reports, three components
    mine, again, everything = (d["reportResult"]["factMap"]["T!T"]["aggregates"][0]["value"]
                               for d in results["componentData"])
    assert mine == again == sum(1 for o in org.records("Opportunity") if o["OwnerId"] == runner)
    assert everything == len(org.records("Opportunity")) > mine


def test_execute_async_runs_a_report_as_an_instance_and_answers_its_results(sf: Salesforce) -> None:
    """Execute Async: POST .../instances answers a new instance (status New), the list shows it finished
    (Success), its results are Execute Sync's with the instance's attributes; a changed definition applies to that
    instance only; DELETE forgets it, and an unknown instance is NOT_FOUND."""
    rid = _post(sf, "analytics/reports", {"reportMetadata": {
        "name": "Leads by status", "reportFormat": "SUMMARY", "reportType": {"type": "LeadList"},
        "detailColumns": ["LAST_NAME"], "groupingsDown": [{"name": "STATUS"}]}})["reportMetadata"]["id"]
    leads = sf.query("SELECT Status FROM Lead")["records"]
    asked = sf.restful(f"analytics/reports/{rid}/instances", method="POST", params={"includeDetails": "true"})
    assert asked["status"] == "New" and asked["completionDate"] is None and asked["hasDetailRows"] is True
    assert asked["id"].startswith("0LG") and len(asked["id"]) == 18
    assert asked["url"].endswith(f"/analytics/reports/{rid}/instances/{asked['id']}")
    status = leads[0]["Status"]
    narrowed = _post(sf, f"analytics/reports/{rid}/instances", {"reportMetadata": {"reportFilters": [
        {"column": "STATUS", "operator": "equals", "value": status}]}})
    listed = sf.restful(f"analytics/reports/{rid}/instances")
    assert [i["id"] for i in listed] == [narrowed["id"], asked["id"]]  # newest first
    assert {i["status"] for i in listed} == {"Success"}
    result = sf.restful(f"analytics/reports/{rid}/instances/{asked['id']}")
    attributes = result["attributes"]
    assert (attributes["type"], attributes["status"], attributes["id"], attributes["reportId"]) == (
        "ReportInstance", "Success", asked["id"], rid)
    assert attributes["reportName"] == "Leads by status" and attributes["completionDate"]
    assert result["factMap"]["T!T"]["aggregates"][0]["value"] == len(leads)
    assert sum(len(cell.get("rows", [])) for key, cell in result["factMap"].items() if key != "T!T") == len(leads)
    only = sf.restful(f"analytics/reports/{rid}/instances/{narrowed['id']}")
    assert only["factMap"]["T!T"]["aggregates"][0]["value"] == sum(1 for lead in leads if lead["Status"] == status)
    assert sf.restful(f"analytics/reports/{rid}/describe")["reportMetadata"]["reportFilters"] == []  # not saved
    sf.restful(f"analytics/reports/{rid}/instances/{narrowed['id']}", method="DELETE")
    assert [i["id"] for i in sf.restful(f"analytics/reports/{rid}/instances")] == [asked["id"]]
    with pytest.raises(SalesforceError) as exc:
        sf.restful(f"analytics/reports/{rid}/instances/{narrowed['id']}")
    assert exc.value.status == 404 and exc.value.content[0]["errorCode"] == "NOT_FOUND"
