"""Dashboards: a dashboard's components and layout checked and kept on the ``Dashboard`` record
(``Dashboard.Metadata``); create, save, describe and results of a dashboard."""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

from pytest_cua.orgs.localorg import values
from pytest_cua.orgs.localorg.analytics.report_run import run_report
from pytest_cua.orgs.localorg.analytics.report_types import (
    REPORT_TYPES,
    VISUALIZATIONS,
    bad_request,
)
from pytest_cua.orgs.localorg.analytics.reports import (
    developer_name,
    list_of,
    stored_definition,
    text_of,
)
from pytest_cua.orgs.localorg.errors import not_found
from pytest_cua.orgs.localorg.store import Org


def dashboard_record(org: Org, dashboard_id: str) -> dict[str, Any]:
    found = org.get("Dashboard", dashboard_id) if isinstance(dashboard_id, str) else None
    if found is None:
        raise not_found("The requested resource does not exist")
    return found


def _components(org: Org, raw: Any, old: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    known = {c.get("id") for c in old}
    out = []
    for i, c in enumerate(list_of(raw, "components")):
        at = f"components[{i}]"
        if not isinstance(c, Mapping):
            raise bad_request(f"{at} must be an object", at)
        kind = c.get("type") or "Report"
        if kind != "Report":
            raise bad_request(f"{at}.type {kind!r} is not supported; use Report", f"{at}.type")
        rid = c.get("reportId")
        found = org.get("Report", rid) if isinstance(rid, str) else None
        if found is None:
            raise bad_request(f"The report {rid!r} does not exist ({at}.reportId)", f"{at}.reportId")
        props = c.get("properties") or {}
        if not isinstance(props, Mapping):
            raise bad_request(f"{at}.properties must be an object", f"{at}.properties")
        vis = props.get("visualizationType")
        if vis not in VISUALIZATIONS:
            raise bad_request(f"The visualization type {vis!r} is not valid ({at}.properties.visualizationType); use one "
                       f"of {', '.join(sorted(VISUALIZATIONS))}", f"{at}.properties.visualizationType")
        report_md = stored_definition(found)
        cid = c.get("id") if c.get("id") in known else org.ids.new("01a")
        out.append({
            "footer": text_of(c.get("footer"), f"{at}.footer"), "header": text_of(c.get("header"), f"{at}.header"),
            "id": cid, "reportId": found["Id"], "title": text_of(c.get("title"), f"{at}.title"), "type": "Report",
            "properties": {
                "aggregates": list(props.get("aggregates") or [{"name": "RowCount"}]),
                "autoSelectColumns": bool(props.get("autoSelectColumns", True)),
                "filterColumns": list(props.get("filterColumns") or []),
                "groupings": list(props.get("groupings") or [{"name": g["name"]} for g in report_md["groupingsDown"]]),
                "maxValuesDisplayed": props.get("maxValuesDisplayed"),
                "reportFormat": report_md["reportFormat"],
                "sort": props.get("sort") or {"column": "RowCount", "sortOrder": "desc"},
                "useReportChart": bool(props.get("useReportChart", False)),
                "visualizationProperties": dict(props.get("visualizationProperties") or {}),
                "visualizationType": vis,
            }})
    return out


def _layout(components: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"components": [{"colspan": 4, "column": (i % 3) * 4, "row": (i // 3) * 8, "rowspan": 8}
                           for i in range(len(components))], "gridLayout": True, "numColumns": 12, "rowHeight": 36}


def _dashboard_fields(org: Org, md: Mapping[str, Any], own_id: str | None) -> dict[str, Any]:
    return {"Title": md["name"], "Description": md.get("description"),
            "DeveloperName": developer_name(org, "Dashboard", md.get("developerName"), md["name"], own_id)}


def _dashboard_definition(org: Org, raw: Any, base: Mapping[str, Any] | None) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise bad_request("dashboardMetadata is required and must be an object", "dashboardMetadata")
    old = dict(base or {})
    given = {**old, **raw}
    name = text_of(given.get("name"), "name", required=True)
    components = _components(org, given.get("components"), list(old.get("components") or []))
    return {"chartTheme": given.get("chartTheme") or "light", "colorPalette": given.get("colorPalette") or "unity",
            "components": components, "description": text_of(given.get("description"), "description"),
            "developerName": text_of(given.get("developerName"), "developerName"),
            "filters": list(given.get("filters") or []), "layout": _layout(components), "name": name}


def create_dashboard(org: Org, metadata: Any, *, user_id: str | None = None) -> str:
    """Save a new dashboard from ``dashboardMetadata``; returns its id."""
    with org.transaction():
        md = _dashboard_definition(org, metadata, None)
        fields = _dashboard_fields(org, md, None)
        md["developerName"] = fields["DeveloperName"]
        return org.create("Dashboard", {**fields, "FolderName": "Public Dashboards", "RunningUserId": user_id,
                                        "Metadata": md}, user_id=user_id)


def save_dashboard(org: Org, dashboard_id: str, metadata: Any, *, user_id: str | None = None) -> None:
    rec = dashboard_record(org, dashboard_id)
    with org.transaction():
        md = _dashboard_definition(org, metadata, rec.get("Metadata") if isinstance(rec.get("Metadata"), Mapping)
                                   else {"name": rec.get("Title")})
        fields = _dashboard_fields(org, md, rec["Id"])
        md["developerName"] = fields["DeveloperName"]
        org.update("Dashboard", rec["Id"], fields, user_id=user_id)
        org.update_trusted("Dashboard", rec["Id"], {"Metadata": md}, user_id=user_id)


def describe_dashboard(org: Org, dashboard_id: str, version: str = "62.0") -> dict[str, Any]:
    """``GET analytics/dashboards/<id>/describe``."""
    rec = dashboard_record(org, dashboard_id)
    saved = rec.get("Metadata")
    md: dict[str, Any] = copy.deepcopy(dict(saved)) if isinstance(saved, Mapping) else {}
    components = [c for c in md.get("components") or [] if isinstance(c, Mapping)]
    runner = org.get("User", rec["RunningUserId"]) if rec.get("RunningUserId") else None
    return {
        "attributes": {"dashboardId": rec["Id"], "dashboardName": rec.get("Title"),
                       "statusUrl": f"/services/data/v{version}/analytics/dashboards/{rec['Id']}/status",
                       "type": "Dashboard"},
        "canChangeRunningUser": True, "canEditDashboard": True, "canUseStickyFilter": True,
        "chartTheme": md.get("chartTheme") or "light", "colorPalette": md.get("colorPalette") or "unity",
        "components": components, "dashboardType": rec.get("Type") or "SpecifiedUser",
        "description": rec.get("Description"), "developerName": rec.get("DeveloperName"),
        "filters": list(md.get("filters") or []), "folderId": org.org_id, "folderName": rec.get("FolderName"),
        "id": rec["Id"], "layout": md.get("layout") or _layout(components), "maxFilterOptions": 50,
        "name": rec.get("Title"),
        "runningUser": {"displayName": runner.get("Name"), "id": runner["Id"]} if runner else None,
    }


def component_runs(org: Org, described: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The runs (without detail rows) of a described dashboard's (``describe_dashboard``) reports, by report id:
    each report once, however many components show it, and as the dashboard's running user, whoever looks at it
    (a "My ..." report shows the running user's records), as Salesforce runs a dashboard. A component whose report
    is gone has no run."""
    runner = (described.get("runningUser") or {}).get("id")
    runs: dict[str, dict[str, Any]] = {}
    for component in described.get("components") or []:
        rid = str(component.get("reportId") or "")
        rec = org.get("Report", rid) if rid else None
        if rec is not None and rec["Id"] not in runs:
            runs[rec["Id"]] = run_report(org, stored_definition(rec), user_id=runner, include_details=False)
    return runs


def _component_result(org: Org, component: Mapping[str, Any], version: str,
                      runs: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """A component's data: its report's run (``runs``: ``component_runs``) without detail rows
    (``reportResult``), or the error of a report that is gone."""
    rid = str(component.get("reportId") or "")
    rec = org.get("Report", rid) if rid else None
    now = values.now()
    if rec is None or rec["Id"] not in runs:
        return {"componentId": component.get("id"), "reportResult": None,
                "status": {"dataStatus": "ERROR", "errorCode": "NOT_FOUND", "refreshDate": now,
                           "errorMessage": "The component's report does not exist.", "errorSeverity": "Error",
                           "refreshStatus": "IDLE"}}
    md = stored_definition(rec)
    rt = REPORT_TYPES[md["reportType"]["type"]]
    run = runs[rec["Id"]]
    base = f"/services/data/v{version}/analytics/reports/{rec['Id']}"
    return {"componentId": component.get("id"),
            "reportResult": {"attributes": {"describeUrl": f"{base}/describe", "instancesUrl": f"{base}/instances",
                                            "reportId": rec["Id"], "reportName": rec.get("Name"), "type": "Report"},
                             **run, "reportMetadata": {**md, "id": rec["Id"],
                                                       "reportType": {"label": rt.label, "type": rt.type}}},
            "status": {"dataStatus": "DATA", "errorCode": None, "errorMessage": None, "errorSeverity": None,
                       "refreshDate": now, "refreshStatus": "IDLE"}}


def dashboard_results(org: Org, dashboard_id: str, version: str) -> dict[str, Any]:
    """``GET analytics/dashboards/<id>``: each component's data (its report run as the dashboard's running user:
    ``component_runs``) and the metadata."""
    md = describe_dashboard(org, dashboard_id, version)
    runs = component_runs(org, md)
    return {"componentData": [_component_result(org, c, version, runs) for c in md["components"]],
            "dashboardMetadata": md,
            "statusData": {"refreshDate": values.now(), "refreshStatus": "IDLE"}}
