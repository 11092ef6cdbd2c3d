"""Reports: a report definition (the Analytics API's ``reportMetadata``) checked against its report type and kept
on the ``Report`` record (``Report.Metadata``); create, save and describe a report."""

from __future__ import annotations

import copy
import re
from typing import Any, Mapping

from pytest_cua.orgs.localorg.analytics.report_types import (
    AGGREGATES,
    CHART_TYPES,
    DATE_GRANULARITIES,
    FILTER_OPERATORS,
    FORMATS,
    OPERATORS,
    PRIVATE_FOLDER,
    PUBLIC_FOLDER,
    REPORT_TYPES,
    ReportType,
    bad_request,
    report_type,
)
from pytest_cua.orgs.localorg.errors import OrgError, not_found
from pytest_cua.orgs.localorg.store import Org


def text_of(value: Any, where: str, *, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise bad_request(f"{where} is required", where)
        return None
    if not isinstance(value, str):
        raise bad_request(f"{where} must be a string, got {type(value).__name__}", where)
    return value


def list_of(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise bad_request(f"{where} must be a list", where)
    return value


def _column(rt: ReportType, name: Any, where: str) -> str:
    if not isinstance(name, str) or rt.column(name) is None:
        raise bad_request(f"The column {name!r} is not valid for the report type {rt.type} ({where})", where)
    return name


def _filters(rt: ReportType | None, raw: Any, where: str) -> list[dict[str, Any]]:
    out = []
    for i, f in enumerate(list_of(raw, where)):
        at = f"{where}[{i}]"
        if not isinstance(f, Mapping):
            raise bad_request(f"{at} must be an object with column, operator and value", at)
        column = f.get("column")
        if rt is not None:
            _column(rt, column, f"{at}.column")
        elif not isinstance(column, str) or not column:
            raise bad_request(f"{at}.column is required", f"{at}.column")
        op = f.get("operator")
        if op not in OPERATORS:
            raise bad_request(f"The operator {op!r} is not valid ({at}.operator); use one of {', '.join(OPERATORS)}",
                       f"{at}.operator")
        value = f.get("value", "")
        if value is None:
            value = ""
        if not isinstance(value, (str, int, float, bool)):
            raise bad_request(f"{at}.value must be a string", f"{at}.value")
        out.append({"column": column, "filterType": "fieldValue", "isRunPageEditable": True, "operator": op,
                    "value": value if isinstance(value, str) else str(value).lower() if isinstance(value, bool)
                    else str(value)})
    return out


def _groupings(rt: ReportType, raw: Any, where: str) -> list[dict[str, Any]]:
    out = []
    for i, g in enumerate(list_of(raw, where)):
        at = f"{where}[{i}]"
        if isinstance(g, str):
            g = {"name": g}
        if not isinstance(g, Mapping):
            raise bad_request(f"{at} must be an object with a name", at)
        name = _column(rt, g.get("name"), f"{at}.name")
        order = g.get("sortOrder") or "Asc"
        if order not in ("Asc", "Desc"):
            raise bad_request(f"{at}.sortOrder must be Asc or Desc, got {order!r}", f"{at}.sortOrder")
        gran = g.get("dateGranularity") or "None"
        if gran not in DATE_GRANULARITIES:
            raise bad_request(f"{at}.dateGranularity {gran!r} is not valid", f"{at}.dateGranularity")
        out.append({"dateGranularity": gran, "name": name, "sortAggregate": g.get("sortAggregate"),
                    "sortOrder": order})
    return out


def _aggregate(rt: ReportType, key: Any, where: str) -> str:
    if key == "RowCount":
        return key
    if isinstance(key, str) and "!" in key:
        prefix, _, column = key.partition("!")
        if prefix in AGGREGATES and rt.column(column) is not None:
            return key
    raise bad_request(f"The aggregate {key!r} is not valid for the report type {rt.type} ({where}); use RowCount or "
               f"<s|a|m|mx|u|med>!<column>", where)


#: where a chart's legend goes (the builder's Legend Position)
LEGEND_POSITIONS = ("Right", "Bottom", "Top")


def _chart(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise bad_request("chart must be an object", "chart")
    kind = raw.get("chartType")
    if kind not in CHART_TYPES:
        raise bad_request(f"The chart type {kind!r} is not valid (chart.chartType)", "chart.chartType")
    return {"chartType": kind, "groupings": list(raw.get("groupings") or []),
            "hasLegend": bool(raw.get("hasLegend", True)), "showChartValues": bool(raw.get("showChartValues", False)),
            "legendPosition": raw.get("legendPosition") if raw.get("legendPosition") in LEGEND_POSITIONS else "Right",
            "summaries": list(raw.get("summaries") or ["RowCount"]),
            "summaryAxisLocations": list(raw.get("summaryAxisLocations") or ["Y"]),
            "title": text_of(raw.get("title"), "chart.title")}


def _cross_filters(raw: Any) -> list[dict[str, Any]]:
    out = []
    for i, c in enumerate(list_of(raw, "crossFilters")):
        at = f"crossFilters[{i}]"
        if not isinstance(c, Mapping):
            raise bad_request(f"{at} must be an object", at)
        entity = text_of(c.get("relatedEntity"), f"{at}.relatedEntity", required=True)
        out.append({"criteria": _filters(None, c.get("criteria"), f"{at}.criteria"),
                    "includesObject": bool(c.get("includesObject", True)),
                    "primaryEntityField": c.get("primaryEntityField") or "Id",
                    "relatedEntity": entity, "relatedEntityJoinField": c.get("relatedEntityJoinField")})
    return out


def filter_logic_numbers(text: str) -> list[int] | None:
    """The filter numbers a filter logic (``(1 OR 2) AND NOT 3``) names, or None when it holds anything but
    numbers, AND, OR, NOT, parentheses and spaces."""
    if re.sub(r"\d+|\bAND\b|\bOR\b|\bNOT\b|[()\s]", "", text, flags=re.IGNORECASE):
        return None
    return [int(n) for n in re.findall(r"\d+", text)]


def _boolean_filter(value: Any, count: int) -> str | None:
    text = text_of(value, "reportBooleanFilter")
    if text is None:
        return None
    numbers = filter_logic_numbers(text)
    if not numbers or any(n < 1 or n > count for n in numbers):
        raise bad_request(f"The filter logic {text!r} is not valid for {count} filters (reportBooleanFilter)",
                   "reportBooleanFilter")
    return text


def definition(raw: Any, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A checked, complete report definition from a request's ``reportMetadata`` (its properties over ``base``,
    the saved definition, when saving changes)."""
    if not isinstance(raw, Mapping):
        raise bad_request("reportMetadata is required and must be an object", "reportMetadata")
    given = {**(base or {}), **raw}
    name = text_of(given.get("name"), "name", required=True)
    assert name is not None
    kind = given.get("reportType")
    type_name = kind.get("type") if isinstance(kind, Mapping) else kind
    rt = report_type(type_name)
    if rt is None:
        raise bad_request(f"The report type {type_name!r} is not valid (reportType.type)", "reportType.type")
    fmt = given.get("reportFormat") or "TABULAR"
    if fmt not in ("TABULAR", "SUMMARY", "MATRIX"):
        raise bad_request(f"The report format {fmt!r} is not valid (reportFormat); use TABULAR, SUMMARY or MATRIX",
                   "reportFormat")
    down = _groupings(rt, given.get("groupingsDown"), "groupingsDown")
    across = _groupings(rt, given.get("groupingsAcross"), "groupingsAcross")
    if fmt == "TABULAR" and (down or across):
        raise bad_request("A tabular report has no groupings (groupingsDown, groupingsAcross)", "reportFormat")
    if fmt == "SUMMARY" and across:
        raise bad_request("A summary report groups rows only (groupingsAcross)", "groupingsAcross")
    if len(down) > (3 if fmt == "SUMMARY" else 2) or len(across) > 2:
        raise bad_request("Too many groupings for the report format", "groupingsDown")
    columns = [_column(rt, c, f"detailColumns[{i}]") for i, c in enumerate(list_of(given.get("detailColumns"),
                                                                                 "detailColumns"))]
    aggregates = [_aggregate(rt, a, f"aggregates[{i}]") for i, a in
                  enumerate(list_of(given.get("aggregates", ["RowCount"]), "aggregates"))]
    filters = _filters(rt, given.get("reportFilters"), "reportFilters")
    scope = given.get("scope") or "organization"
    if scope not in ("organization", "user", "team"):
        raise bad_request(f"The scope {scope!r} is not valid (scope)", "scope")
    return {
        "aggregates": list(dict.fromkeys(aggregates)),
        "chart": _chart(given.get("chart")),
        "crossFilters": _cross_filters(given.get("crossFilters")),
        "currency": None,
        "description": text_of(given.get("description"), "description"),
        "detailColumns": list(dict.fromkeys(columns)),
        "developerName": text_of(given.get("developerName"), "developerName"),
        "folderId": text_of(given.get("folderId"), "folderId"),
        "groupingsAcross": across,
        "groupingsDown": down,
        "hasDetailRows": bool(given.get("hasDetailRows", True)),
        "hasRecordCount": bool(given.get("hasRecordCount", True)),
        "name": name,
        "reportBooleanFilter": _boolean_filter(given.get("reportBooleanFilter"), len(filters)),
        "reportFilters": filters,
        "reportFormat": fmt,
        "reportType": {"type": rt.type},
        "scope": scope,
        "showGrandTotal": bool(given.get("showGrandTotal", True)),
        "showSubtotals": bool(given.get("showSubtotals", True)),
        "sortBy": list(given.get("sortBy") or []),
        "standardDateFilter": given.get("standardDateFilter") if isinstance(given.get("standardDateFilter"), Mapping)
        else {"column": "CREATED_DATE", "durationValue": "CUSTOM", "endDate": None, "startDate": None},
    }


def stored_definition(rec: Mapping[str, Any]) -> dict[str, Any]:
    """The saved definition of a report record; a record without one (made through the sObject API) describes as
    its name, format and type with no columns."""
    saved = rec.get("Metadata")
    base: dict[str, Any] = copy.deepcopy(dict(saved)) if isinstance(saved, Mapping) else {}
    base.setdefault("name", rec.get("Name"))
    base.setdefault("reportType", {"type": rec.get("ReportTypeApiName") or "AccountList"})
    fmt = {v: k for k, v in FORMATS.items()}.get(rec.get("Format") or "Tabular", "TABULAR")
    base.setdefault("reportFormat", fmt)
    try:
        return definition(base)
    except OrgError:
        kind = base.get("reportType")
        name = kind.get("type") if isinstance(kind, Mapping) else kind
        return definition({"name": rec.get("Name") or "Report", "reportFormat": "TABULAR",
                           "reportType": {"type": name if report_type(name) else "AccountList"}})


def _folder(org: Org, folder_id: str | None, user_id: str | None) -> tuple[str, str]:
    """(folder id, FolderName): the org id is Public Reports, the user's id Private Reports."""
    if folder_id is None or folder_id in (org.org_id, org.org_id[:15]):
        return org.org_id, PUBLIC_FOLDER
    if user_id and folder_id in (user_id, user_id[:15]):
        return user_id, PRIVATE_FOLDER
    raise bad_request(f"The folder {folder_id!r} does not exist (folderId); the org has the folders Public Reports "
               f"({org.org_id}) and Private Reports (your user id)", "folderId")


def developer_name(org: Org, sobject: str, wanted: str | None, label: str, own_id: str | None = None) -> str:
    base = wanted or re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", label)).strip("_") or "Report"
    if not base[0].isalpha():
        base = "X" + base
    if wanted and not re.fullmatch(r"[A-Za-z](?:[A-Za-z0-9]|_(?!_))*(?<!_)", wanted):
        raise bad_request(f"The unique name {wanted!r} can contain only underscores and alphanumeric characters, must "
                   "begin with a letter, not end with an underscore and not contain two consecutive underscores "
                   "(developerName)", "developerName")
    taken = {r.get("DeveloperName", "").lower() for r in org.records(sobject) if r["Id"] != own_id}
    if wanted:
        if wanted.lower() in taken:
            raise OrgError("DUPLICATE_DEVELOPER_NAME", f"The unique name {wanted!r} is already in use",
                           ["developerName"])
        return wanted
    name, n = base[:80], 1
    while name.lower() in taken:
        suffix = f"_{n}"
        name, n = base[:80 - len(suffix)] + suffix, n + 1
    return name


def _report_fields(org: Org, md: dict[str, Any], user_id: str | None, own_id: str | None) -> dict[str, Any]:
    folder_id, folder_name = _folder(org, md.get("folderId"), user_id)
    md["folderId"] = folder_id
    md["developerName"] = developer_name(org, "Report", md.get("developerName"), md["name"], own_id)
    return {"Name": md["name"], "DeveloperName": md["developerName"], "Description": md.get("description"),
            "FolderName": folder_name, "Format": FORMATS[md["reportFormat"]],
            "ReportTypeApiName": md["reportType"]["type"]}


def create_report(org: Org, metadata: Any, *, user_id: str | None = None) -> str:
    """Save a new report from ``reportMetadata``; returns its id."""
    md = definition(metadata)
    with org.transaction():
        fields = _report_fields(org, md, user_id, None)
        return org.create("Report", {**fields, "Metadata": md}, user_id=user_id)


def save_report(org: Org, report_id: str, metadata: Any, *, user_id: str | None = None) -> None:
    """Save changes to a report: the properties of ``metadata`` over its saved definition."""
    rec = report_record(org, report_id)
    md = definition(metadata, stored_definition(rec))
    with org.transaction():
        fields = _report_fields(org, md, user_id, rec["Id"])
        org.update("Report", rec["Id"], fields, user_id=user_id)
        org.update_trusted("Report", rec["Id"], {"Metadata": md}, user_id=user_id)


def report_record(org: Org, report_id: str) -> dict[str, Any]:
    found = org.get("Report", report_id) if isinstance(report_id, str) else None
    if found is None:
        raise not_found("The requested resource does not exist")
    return found


def describe_report(org: Org, report_id: str) -> dict[str, Any]:
    """``GET analytics/reports/<id>/describe``."""
    rec = report_record(org, report_id)
    md = stored_definition(rec)
    rt = REPORT_TYPES[md["reportType"]["type"]]
    md["reportType"] = {"label": rt.label, "type": rt.type}
    md["id"] = rec["Id"]
    md["name"] = rec.get("Name")
    md["developerName"] = rec.get("DeveloperName")
    md["folderId"] = md.get("folderId") or org.org_id
    md.update({"division": None, "historicalSnapshotDates": [], "presentationOptions": {"hasStackedSummaries": True},
               "standardFilters": [], "supportsRoleHierarchy": False, "userOrHierarchyFilterId": None,
               "dashboardSetting": None, "topRows": None, "buckets": [], "customDetailFormula": {},
               "customSummaryFormula": {}})
    return {"reportMetadata": dict(sorted(md.items())), "reportExtendedMetadata": extended_metadata(rt, md),
            "reportTypeMetadata": type_metadata(rt)}


def _column_info(rt: ReportType, name: str) -> dict[str, Any]:
    label, dtype = rt.columns[name]
    return {"dataType": dtype, "entityColumnName": None, "filterable": True, "fullyQualifiedName": None,
            "inactiveMultiCurrencyFields": None, "isLookup": False, "label": label,
            "uniqueCountable": dtype not in ("textarea", "boolean")}


def extended_metadata(rt: ReportType, md: Mapping[str, Any]) -> dict[str, Any]:
    aggregates: dict[str, Any] = {}
    for key in md["aggregates"]:
        if key == "RowCount":
            aggregates[key] = {"acrossGroupingContext": None, "dataType": "int", "downGroupingContext": None,
                               "label": "Record Count"}
            continue
        prefix, _, column = key.partition("!")
        label, dtype = rt.columns[column]
        aggregates[key] = {"acrossGroupingContext": None, "dataType": "double" if prefix in ("a", "med") and
                           dtype == "int" else dtype, "downGroupingContext": None,
                           "label": AGGREGATES[prefix].format(label)}
    groupings: dict[str, Any] = {}
    for level, g in enumerate(md["groupingsDown"]):
        groupings[g["name"]] = {"dataType": rt.columns[g["name"]][1], "groupingLevel": level,
                                "label": rt.columns[g["name"]][0]}
    for level, g in enumerate(md["groupingsAcross"]):
        groupings[g["name"]] = {"dataType": rt.columns[g["name"]][1], "groupingLevel": level,
                                "label": rt.columns[g["name"]][0]}
    return {"aggregateColumnInfo": aggregates,
            "detailColumnInfo": {c: _column_info(rt, c) for c in md["detailColumns"]},
            "groupingColumnInfo": groupings}


def type_metadata(rt: ReportType) -> dict[str, Any]:
    dtypes = sorted({d for _, d in rt.columns.values()})
    return {
        "categories": [{"columns": {name: {**_column_info(rt, name), "filterValues": []} for name in rt.columns},
                        "label": f"{rt.label} Fields"}],
        "dataTypeFilterOperatorMap": {d: [{"label": OPERATORS[op], "name": op} for op in
                                          FILTER_OPERATORS.get(d, list(OPERATORS)[:6])] for d in dtypes},
        "divisionInfo": None,
        "scopeInfo": {"defaultValue": "organization", "values": [
            {"allowsDivision": False, "label": f"My {rt.label.lower()}", "value": "user"},
            {"allowsDivision": False, "label": f"All {rt.label.lower()}", "value": "organization"}]},
        "standardDateFilterDurationGroups": [],
        "standardFilterInfos": {},
    }
