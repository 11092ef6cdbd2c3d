"""The routes of the Analytics REST API (``/services/data/vNN.N/analytics/...``) and ``register(app)``."""

from __future__ import annotations

import copy
from typing import Any, Callable, Mapping

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.analytics.dashboards import (
    create_dashboard,
    dashboard_record,
    dashboard_results,
    describe_dashboard,
    save_dashboard,
)
from pytest_cua.orgs.localorg.analytics.instances import ReportInstances
from pytest_cua.orgs.localorg.analytics.report_run import run_report
from pytest_cua.orgs.localorg.analytics.report_types import (
    DATA,
    REPORT_TYPES,
    bad_request,
)
from pytest_cua.orgs.localorg.analytics.reports import (
    create_report,
    definition,
    describe_report,
    extended_metadata,
    report_record,
    save_report,
    stored_definition,
    type_metadata,
)
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext, json_response
from pytest_cua.orgs.localorg.errors import not_found


def _body(ctx: RequestContext, key: str) -> Any:
    body = ctx.json_body()
    if not isinstance(body, Mapping) or key not in body:
        raise bad_request(f"The request body must be a JSON object with {key}", key)
    return body[key]


def report_types(ctx: RequestContext, version: str) -> Response:
    groups: dict[str, list[dict[str, Any]]] = {}
    for rt in REPORT_TYPES.values():
        groups.setdefault(rt.category, []).append({
            "describeUrl": f"/services/data/v{version}/analytics/reportTypes/{rt.type}", "isHidden": False,
            "label": rt.label, "supportsJoinedFormat": True, "type": rt.type})
    return json_response([{"label": label, "reportTypes": types} for label, types in sorted(groups.items())])


def report_type_describe(ctx: RequestContext, version: str, type_name: str) -> Response:
    rt = REPORT_TYPES.get(type_name)
    if rt is None:
        raise not_found("The requested resource does not exist")
    md = definition({"name": rt.label, "reportType": {"type": rt.type}})
    md["reportType"] = {"label": rt.label, "type": rt.type}
    return json_response({"reportExtendedMetadata": extended_metadata(rt, md), "reportMetadata": md,
                          "reportTypeMetadata": type_metadata(rt)})


def reports(ctx: RequestContext, version: str) -> Response:
    if ctx.request.method == "GET":
        recs = sorted(ctx.org.records("Report"), key=lambda r: (r.get("LastModifiedDate") or "", r["Id"]),
                      reverse=True)[:200]
        base = f"/services/data/v{version}/analytics/reports"
        return json_response([{"describeUrl": f"{base}/{r['Id']}/describe", "id": r["Id"],
                               "instancesUrl": f"{base}/{r['Id']}/instances", "name": r.get("Name"),
                               "url": f"{base}/{r['Id']}"} for r in recs])
    clone = ctx.request.args.get("cloneId")
    if clone:
        source = stored_definition(report_record(ctx.org, clone))
        body = ctx.json_body() if ctx.request.get_data(cache=True).strip() else {}
        given = body.get("reportMetadata") if isinstance(body, Mapping) else None
        source.pop("developerName", None)
        rid = create_report(ctx.org, {**source, **(given if isinstance(given, Mapping) else {})},
                            user_id=ctx.user_id)
    else:
        rid = create_report(ctx.org, _body(ctx, "reportMetadata"), user_id=ctx.user_id)
    return json_response(describe_report(ctx.org, rid))


def report_describe(ctx: RequestContext, version: str, report_id: str) -> Response:
    return json_response(describe_report(ctx.org, report_id))


def _details(ctx: RequestContext) -> bool:
    return ctx.request.args.get("includeDetails", "false").lower() == "true"


def _run(ctx: RequestContext, version: str, md: dict[str, Any], report_id: str | None) -> dict[str, Any]:
    """Execute Sync's answer: the run (``report_run``) with the definition it ran."""
    details = _details(ctx)
    result = run_report(ctx.org, md, user_id=ctx.user_id, include_details=details)
    rt = REPORT_TYPES[md["reportType"]["type"]]
    shown = {**md, "reportType": {"label": rt.label, "type": rt.type}, "id": report_id}
    base = f"/services/data/v{version}/analytics/reports/{report_id}"
    attributes = {"describeUrl": f"{base}/describe", "instancesUrl": f"{base}/instances", "reportId": report_id,
                  "reportName": md.get("name"), "type": "Report"} if report_id else {"type": "Report"}
    return {"attributes": attributes, **result, "reportExtendedMetadata": extended_metadata(rt, md),
            "reportMetadata": dict(sorted(shown.items()))}


def report_query(ctx: RequestContext, version: str) -> Response:
    """``POST analytics/reports/query``: run a report definition that is not saved."""
    return json_response(_run(ctx, version, definition(_body(ctx, "reportMetadata")), None))


def report(ctx: RequestContext, version: str, report_id: str) -> Response:
    if ctx.request.method in ("GET", "POST"):  # Execute Sync: the saved report, or its definition changed
        rec = report_record(ctx.org, report_id)
        saved = stored_definition(rec)
        md = definition(_body(ctx, "reportMetadata"), saved) if ctx.request.method == "POST" else saved
        return json_response(_run(ctx, version, md, rec["Id"]))
    if ctx.request.method == "DELETE":
        rec = report_record(ctx.org, report_id)
        used = [d.get("Title") for d in ctx.org.records("Dashboard") if isinstance(d.get("Metadata"), Mapping)
                and any(isinstance(c, Mapping) and c.get("reportId") == rec["Id"]
                        for c in d["Metadata"].get("components") or [])]
        if used:
            raise bad_request(f"The report is used by the dashboard components of {', '.join(map(repr, used))} and can't be "
                       "deleted", "reportId")
        ctx.org.delete("Report", rec["Id"])
        return Response(status=204)
    save_report(ctx.org, report_id, _body(ctx, "reportMetadata"), user_id=ctx.user_id)
    return json_response(describe_report(ctx.org, report_id))


def dashboards(ctx: RequestContext, version: str) -> Response:
    base = f"/services/data/v{version}/analytics/dashboards"
    if ctx.request.method == "GET":
        recs = sorted(ctx.org.records("Dashboard"), key=lambda r: (r.get("LastModifiedDate") or "", r["Id"]),
                      reverse=True)[:200]
        return json_response([{"id": r["Id"], "name": r.get("Title"), "statusUrl": f"{base}/{r['Id']}/status",
                               "url": f"{base}/{r['Id']}"} for r in recs])
    clone = ctx.request.args.get("cloneId")
    if clone:
        rec = dashboard_record(ctx.org, clone)
        saved: dict[str, Any] = dict(rec["Metadata"]) if isinstance(rec.get("Metadata"), Mapping) else {}
        source = {**copy.deepcopy(saved), "name": rec.get("Title"), "developerName": None,
                  "components": [{k: v for k, v in c.items() if k != "id"} for c in saved.get("components") or []
                                 if isinstance(c, Mapping)]}
        did = create_dashboard(ctx.org, source, user_id=ctx.user_id)
    else:
        did = create_dashboard(ctx.org, _body(ctx, "dashboardMetadata"), user_id=ctx.user_id)
    return json_response(describe_dashboard(ctx.org, did, version))


def dashboard_describe(ctx: RequestContext, version: str, dashboard_id: str) -> Response:
    return json_response(describe_dashboard(ctx.org, dashboard_id, version))


def dashboard(ctx: RequestContext, version: str, dashboard_id: str) -> Response:
    method = ctx.request.method
    if method == "DELETE":
        rec = dashboard_record(ctx.org, dashboard_id)
        ctx.org.delete("Dashboard", rec["Id"])
        return Response(status=204)
    if method == "PATCH":
        save_dashboard(ctx.org, dashboard_id, _body(ctx, "dashboardMetadata"), user_id=ctx.user_id)
    return json_response(dashboard_results(ctx.org, dashboard_id, version))


def _instances_routes(instances: ReportInstances) -> tuple[Callable[..., Response], Callable[..., Response]]:
    """Execute Async's two resources over ``instances`` (``analytics/instances.py``)."""

    def report_instances(ctx: RequestContext, version: str, report_id: str) -> Response:
        """``GET``: the report's instances; ``POST`` (an optional ``reportMetadata`` changing the run, as Execute
        Sync's POST): run it as a new instance."""
        rec = report_record(ctx.org, report_id)
        if ctx.request.method == "GET":
            return json_response(instances.listed(rec["Id"], version))
        saved = stored_definition(rec)
        md = definition(_body(ctx, "reportMetadata"), saved) if ctx.request.get_data() else saved
        return json_response(instances.run(rec["Id"], ctx.user_id, _details(ctx),
                                           lambda: _run(ctx, version, md, rec["Id"]), version))

    def report_instance(ctx: RequestContext, version: str, report_id: str, instance_id: str) -> Response:
        """``GET``: the instance's results; ``DELETE``: forget it."""
        rec = report_record(ctx.org, report_id)
        if ctx.request.method == "DELETE":
            instances.delete(rec["Id"], instance_id)
            return Response(status=204)
        return json_response(instances.results(rec["Id"], instance_id, version))

    return report_instances, report_instance


def register(app: OrgApp) -> None:
    """Add the Analytics REST API routes to ``app``."""
    if "Report" not in app.org.schema or "Dashboard" not in app.org.schema:
        return
    add = app.add_route
    report_instances, report_instance = _instances_routes(ReportInstances())
    add(f"{DATA}/analytics/reports/<report_id>/instances", report_instances, ["GET", "POST"])
    add(f"{DATA}/analytics/reports/<report_id>/instances/<instance_id>", report_instance, ["GET", "DELETE"])
    add(f"{DATA}/analytics/reportTypes", report_types, ["GET"])
    add(f"{DATA}/analytics/reportTypes/<type_name>", report_type_describe, ["GET"])
    add(f"{DATA}/analytics/reports", reports, ["GET", "POST"])
    add(f"{DATA}/analytics/reports/<report_id>/describe", report_describe, ["GET"])
    add(f"{DATA}/analytics/reports/query", report_query, ["POST"])
    add(f"{DATA}/analytics/reports/<report_id>", report, ["GET", "POST", "PATCH", "DELETE"])
    add(f"{DATA}/analytics/dashboards", dashboards, ["GET", "POST"])
    add(f"{DATA}/analytics/dashboards/<dashboard_id>/describe", dashboard_describe, ["GET"])
    add(f"{DATA}/analytics/dashboards/<dashboard_id>", dashboard, ["GET", "PATCH", "DELETE"])
