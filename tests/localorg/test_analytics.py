"""The Analytics REST API of the embedded org (reports and dashboards), over HTTPS with simple-salesforce."""

from __future__ import annotations

import json
from typing import Any

import pytest
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import SalesforceError

from pytest_cua.orgs.localorg.server import OrgServer

MATRIX = {"name": "Pipeline Matrix", "reportFormat": "MATRIX", "reportType": {"type": "Opportunity"},
          "groupingsDown": [{"name": "CLOSE_MONTH"}], "groupingsAcross": [{"name": "TYPE"}],
          "aggregates": ["s!AMOUNT", "RowCount"], "detailColumns": ["OPPORTUNITY_NAME", "AMOUNT"],
          "reportFilters": [{"column": "AMOUNT", "operator": "greaterThan", "value": "\"5,000\""},
                            {"column": "STAGE_NAME", "operator": "equals", "value": "Closed Won"}],
          "reportBooleanFilter": "1 AND NOT 2"}


def _post(sf: Salesforce, path: str, body: Any) -> Any:
    return sf.restful(path, method="POST", data=json.dumps(body))


def _error(exc: pytest.ExceptionInfo[SalesforceError]) -> dict[str, Any]:
    content = exc.value.content
    assert isinstance(content, list) and len(content) == 1, content
    return dict(content[0])


def test_a_report_saved_from_report_metadata_is_a_record_and_describes_as_saved(sf: Salesforce) -> None:
    saved = _post(sf, "analytics/reports", {"reportMetadata": MATRIX})
    md, ext = saved["reportMetadata"], saved["reportExtendedMetadata"]
    rid = md["id"]
    assert rid.startswith("00O") and md["reportFormat"] == "MATRIX"
    assert md["reportType"] == {"label": "Opportunities", "type": "Opportunity"}
    record = sf.query(f"SELECT Name, DeveloperName, Format, FolderName, ReportTypeApiName FROM Report "
                      f"WHERE Id = '{rid}'")["records"][0]
    assert (record["Name"], record["DeveloperName"], record["Format"], record["FolderName"],
            record["ReportTypeApiName"]) == ("Pipeline Matrix", "Pipeline_Matrix", "Matrix", "Public Reports",
                                             "Opportunity")
    described = sf.restful(f"analytics/reports/{rid}/describe")
    assert described["reportMetadata"] == md
    assert list(ext["groupingColumnInfo"]) == ["CLOSE_MONTH", "TYPE"]
    assert ext["groupingColumnInfo"]["TYPE"] == {"dataType": "picklist", "groupingLevel": 0, "label": "Type"}
    assert ext["aggregateColumnInfo"]["s!AMOUNT"]["label"] == "Sum of Amount"
    assert ext["aggregateColumnInfo"]["RowCount"]["label"] == "Record Count"
    assert list(ext["detailColumnInfo"]) == ["OPPORTUNITY_NAME", "AMOUNT"]
    assert [(f["column"], f["operator"], f["value"]) for f in md["reportFilters"]] == \
        [("AMOUNT", "greaterThan", "\"5,000\""), ("STAGE_NAME", "equals", "Closed Won")]
    assert md["reportBooleanFilter"] == "1 AND NOT 2" and md["chart"] is None and md["crossFilters"] == []
    columns = described["reportTypeMetadata"]["categories"][0]["columns"]
    assert columns["STAGE_NAME"]["label"] == "Stage"


def test_save_changes_clone_and_delete_a_report(sf: Salesforce) -> None:
    rid = _post(sf, "analytics/reports", {"reportMetadata": MATRIX})["reportMetadata"]["id"]
    changed = sf.restful(f"analytics/reports/{rid}", method="PATCH", data=json.dumps({"reportMetadata": {
        "name": "Pipeline by Stage", "reportFormat": "SUMMARY", "groupingsAcross": [],
        "groupingsDown": [{"name": "STAGE_NAME"}],
        "chart": {"chartType": "Donut", "title": "Deals by stage"}}}))
    md = changed["reportMetadata"]
    assert (md["name"], md["reportFormat"], md["chart"]["chartType"], md["chart"]["title"]) == \
        ("Pipeline by Stage", "SUMMARY", "Donut", "Deals by stage")
    assert md["aggregates"] == ["s!AMOUNT", "RowCount"] and md["developerName"] == "Pipeline_Matrix"  # kept
    assert sf.query(f"SELECT Format FROM Report WHERE Id = '{rid}'")["records"][0]["Format"] == "Summary"
    copy = _post(sf, f"analytics/reports?cloneId={rid}", {"reportMetadata": {"name": "Copy"}})["reportMetadata"]
    assert copy["id"] != rid and copy["name"] == "Copy" and copy["groupingsDown"] == md["groupingsDown"]
    assert copy["developerName"] == "Copy"
    listed = {r["id"] for r in sf.restful("analytics/reports")}
    assert {rid, copy["id"]} <= listed
    sf.restful(f"analytics/reports/{copy['id']}", method="DELETE")
    with pytest.raises(SalesforceError) as exc:
        sf.restful(f"analytics/reports/{copy['id']}/describe")
    assert exc.value.status == 404 and _error(exc)["errorCode"] == "NOT_FOUND"


@pytest.mark.parametrize("change, field", [
    ({"reportType": {"type": "Nope"}}, "reportType.type"),
    ({"detailColumns": ["AMOUNT", "NOT_A_COLUMN"]}, "detailColumns[1]"),
    ({"reportFilters": [{"column": "AMOUNT", "operator": "bigger", "value": "1"}]}, "reportFilters[0].operator"),
    ({"reportBooleanFilter": "1 AND 7"}, "reportBooleanFilter"),
    ({"aggregates": ["q!AMOUNT"]}, "aggregates[0]"),
    ({"reportFormat": "TABULAR"}, "reportFormat"),
    ({"chart": {"chartType": "Sunburst"}}, "chart.chartType"),
    ({"name": ""}, "name"),
    ({"folderId": "00l000000000001AAA"}, "folderId"),
])
def test_a_report_the_org_cannot_take_is_bad_request_naming_the_property(sf: Salesforce, change: dict[str, Any],
                                                                         field: str) -> None:
    with pytest.raises(SalesforceError) as exc:
        _post(sf, "analytics/reports", {"reportMetadata": {**MATRIX, **change}})
    error = _error(exc)
    assert exc.value.status == 400 and error["errorCode"] == "BAD_REQUEST" and error["fields"] == [field], error
    assert sf.query("SELECT COUNT() FROM Report WHERE Name = 'Pipeline Matrix'")["totalSize"] == 0


def test_malformed_requests_and_unknown_ids(sf: Salesforce, org_server: OrgServer) -> None:
    with pytest.raises(SalesforceError) as exc:
        _post(sf, "analytics/reports", {"metadata": {}})
    assert _error(exc)["errorCode"] == "BAD_REQUEST" and _error(exc)["fields"] == ["reportMetadata"]
    with pytest.raises(SalesforceError) as exc:
        sf.restful("analytics/reports", method="POST", data="{not json")
    assert _error(exc)["errorCode"] == "JSON_PARSER_ERROR"
    for path in ("analytics/reports/00O000000000000AAA/describe", "analytics/reports/garbage/describe",
                 "analytics/dashboards/01Z000000000000AAA/describe", "analytics/reportTypes/Nope"):
        with pytest.raises(SalesforceError) as exc:
            sf.restful(path)
        assert exc.value.status == 404 and _error(exc)["errorCode"] == "NOT_FOUND", path
    rid = sf.query("SELECT Id FROM Report LIMIT 1")["records"][0]["Id"]
    for path in (f"analytics/reports/{rid}/instances/0LG000000000000AAA",  # Execute Async: no such instance
                 "analytics/reports/00O000000000000AAA/instances"):  # nor report
        with pytest.raises(SalesforceError) as exc:
            sf.restful(path)
        assert exc.value.status == 404 and _error(exc)["errorCode"] == "NOT_FOUND", path
    with pytest.raises(SalesforceError) as exc:  # a body must hold reportMetadata, as Execute Sync's
        sf.restful(f"analytics/reports/{rid}/instances", method="POST", data=json.dumps({"filters": []}))
    assert exc.value.status == 400 and "reportMetadata" in _error(exc)["message"]


def test_report_types_list_and_describe(sf: Salesforce) -> None:
    groups = sf.restful("analytics/reportTypes")
    labels = {t["label"]: t["type"] for g in groups for t in g["reportTypes"]}
    assert labels["Leads"] == "LeadList" and labels["Tasks and Events"] == "Activity"
    described = sf.restful("analytics/reportTypes/CaseList")
    assert "ESCALATION_STATE" in described["reportTypeMetadata"]["categories"][0]["columns"]
    assert described["reportMetadata"]["reportType"] == {"label": "Cases", "type": "CaseList"}


def test_the_seed_holds_scubas_prerequisite_reports(sf: Salesforce) -> None:
    rec = sf.query("SELECT Id, DeveloperName FROM Report WHERE Name = 'Required_Cases_by_Priority'")["records"][0]
    assert rec["DeveloperName"] == "Required_Cases_by_Priority_7OT"
    described = sf.restful(f"analytics/reports/{rec['Id']}/describe")
    assert list(described["reportExtendedMetadata"]["groupingColumnInfo"]) == ["PRIORITY"]
    assert described["reportMetadata"]["reportFormat"] == "SUMMARY"


def test_dashboards_with_components(sf: Salesforce) -> None:
    report = sf.query("SELECT Id FROM Report WHERE Name = 'Required_Leads_by_Source'")["records"][0]["Id"]
    made = _post(sf, "analytics/dashboards", {"dashboardMetadata": {"name": "Sales Performance", "components": [
        {"type": "Report", "reportId": report, "header": "Leads by Source",
         "properties": {"visualizationType": "Donut"}}]}})
    did = made["id"]
    assert did.startswith("01Z") and made["name"] == "Sales Performance"
    assert sf.query(f"SELECT Title, DeveloperName FROM Dashboard WHERE Id = '{did}'")["records"][0] == \
        {"attributes": {"type": "Dashboard", "url": f"/services/data/v{sf.sf_version}/sobjects/Dashboard/{did}"},
         "Title": "Sales Performance", "DeveloperName": "Sales_Performance"}
    widget = sf.restful(f"analytics/dashboards/{did}/describe")["components"][0]
    assert widget["id"].startswith("01a") and widget["reportId"] == report and widget["header"] == "Leads by Source"
    assert widget["properties"]["visualizationType"] == "Donut"
    assert widget["properties"]["groupings"] == [{"name": "LEAD_SOURCE"}]
    saved = sf.restful(f"analytics/dashboards/{did}", method="PATCH", data=json.dumps({"dashboardMetadata": {
        "components": [{**widget, "header": "By source", "properties": {"visualizationType": "Bar"}}]}}))
    again = saved["dashboardMetadata"]["components"][0]
    assert (again["id"], again["header"], again["properties"]["visualizationType"]) == (widget["id"], "By source", "Bar")
    assert [c["componentId"] for c in saved["componentData"]] == [widget["id"]]
    with pytest.raises(SalesforceError) as exc:  # a report on a dashboard cannot go
        sf.restful(f"analytics/reports/{report}", method="DELETE")
    assert _error(exc)["errorCode"] == "BAD_REQUEST"
    copy = _post(sf, f"analytics/dashboards?cloneId={did}", {})
    assert copy["id"] != did and copy["developerName"] == "Sales_Performance_1"
    assert copy["components"][0]["reportId"] == report and copy["components"][0]["id"] != widget["id"]
    assert {did, copy["id"]} <= {d["id"] for d in sf.restful("analytics/dashboards")}
    sf.restful(f"analytics/dashboards/{copy['id']}", method="DELETE")
    assert sf.query(f"SELECT COUNT() FROM Dashboard WHERE Id = '{copy['id']}'")["totalSize"] == 0


@pytest.mark.parametrize("component, field", [
    ({"reportId": "00O000000000000AAA", "properties": {"visualizationType": "Bar"}}, "components[0].reportId"),
    ({"properties": {"visualizationType": "Hologram"}}, "components[0].properties.visualizationType"),
])
def test_a_dashboard_component_the_org_cannot_take_is_bad_request(sf: Salesforce, component: dict[str, Any],
                                                                  field: str) -> None:
    report = sf.query("SELECT Id FROM Report LIMIT 1")["records"][0]["Id"]
    with pytest.raises(SalesforceError) as exc:
        _post(sf, "analytics/dashboards", {"dashboardMetadata": {"name": "D", "components": [
            {"reportId": report, **component}]}})
    assert _error(exc)["errorCode"] == "BAD_REQUEST" and _error(exc)["fields"] == [field]


def test_restore_rolls_reports_and_dashboards_back(sf: Salesforce, org_server: OrgServer) -> None:
    org = org_server.org
    snap = org.snapshot()
    seeded = sf.query("SELECT Id FROM Report WHERE Name = 'Required Products'")["records"][0]["Id"]
    before = sf.restful(f"analytics/reports/{seeded}/describe")
    sf.restful(f"analytics/reports/{seeded}", method="PATCH",
               data=json.dumps({"reportMetadata": {"detailColumns": ["NAME"]}}))
    rid = _post(sf, "analytics/reports", {"reportMetadata": MATRIX})["reportMetadata"]["id"]
    _post(sf, "analytics/dashboards", {"dashboardMetadata": {"name": "D", "components": [
        {"reportId": rid, "properties": {"visualizationType": "Column"}}]}})
    residue = org.residue(snap)
    assert any("Report" in line for line in residue) and any("Dashboard" in line for line in residue), residue
    org.restore(snap)
    assert org.residue(snap) == []
    assert sf.restful(f"analytics/reports/{seeded}/describe") == before
    assert sf.query("SELECT COUNT() FROM Dashboard")["totalSize"] == 0


def test_analytics_routes_need_a_token(org_server: OrgServer) -> None:
    import requests

    creds = org_server.org_credentials
    assert creds is not None
    session = creds.requests_session()
    response = session.get(f"{creds.instance_url}/services/data/v62.0/analytics/reports", timeout=10)
    assert response.status_code == 401 and response.json()[0]["errorCode"] == "INVALID_SESSION_ID"
    assert isinstance(session, requests.Session)
