"""The Analytics REST API of the org: reports and dashboards under ``/services/data/vNN.N/analytics/``.

A report is a ``Report`` record (Name, DeveloperName, FolderName, Format, ReportTypeApiName) whose definition,
the Analytics API's ``reportMetadata`` as saved, is kept on the record (``Report.Metadata``); a dashboard is a
``Dashboard`` record with its components and layout on ``Dashboard.Metadata``. Snapshot, restore and residue
cover both like any other record, and SOQL on Report and Dashboard sees what the API saved.

Resources (Salesforce's shapes; errors ``[{"errorCode", "message", "fields"}]``, NOT_FOUND 404, BAD_REQUEST 400
naming the property):

- ``GET  analytics/reportTypes`` and ``GET analytics/reportTypes/<type>``: the report types the org knows
  (``REPORT_TYPES``) and one type's columns.
- ``GET  analytics/reports``: recent reports; ``POST analytics/reports`` with ``{"reportMetadata": {...}}``:
  a new report (name, reportFormat, reportType, detailColumns, reportFilters, reportBooleanFilter, groupingsDown,
  groupingsAcross, aggregates, chart, crossFilters, ...); with ``?cloneId=<id>``: a copy of a report.
- ``GET  analytics/reports/<id>/describe``: reportMetadata, reportExtendedMetadata, reportTypeMetadata;
  ``PATCH analytics/reports/<id>`` with ``{"reportMetadata": {...}}``: save changes; ``DELETE``: delete.
  Running a report (``GET analytics/reports/<id>``, report instances) is not served: 405.
- ``GET  analytics/dashboards``: recent dashboards; ``POST analytics/dashboards?cloneId=<id>``: a copy.
  ``POST analytics/dashboards`` with ``{"dashboardMetadata": {...}}`` creates a new dashboard: the embedded org's
  own addition (Salesforce creates dashboards in the UI or through the Metadata API only).
- ``GET  analytics/dashboards/<id>/describe``: the dashboard's metadata (components with header, reportId and
  properties.visualizationType, layout, running user); ``GET analytics/dashboards/<id>``: results (component
  data without report results); ``PATCH`` with ``{"dashboardMetadata": {...}}``: save; ``DELETE``: delete.

Columns, filters, groupings and aggregates are checked against the report type's columns; a report type, column,
operator, chart type or visualization type the org does not know is BAD_REQUEST naming it.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext, json_response
from pytest_cua.orgs.localorg.errors import OrgError, not_found
from pytest_cua.orgs.localorg.store import Org

DATA = "/services/data/v<version:version>"
PUBLIC_FOLDER = "Public Reports"
PRIVATE_FOLDER = "Private Reports"

FORMATS = {"TABULAR": "Tabular", "SUMMARY": "Summary", "MATRIX": "Matrix", "MULTI_BLOCK": "MultiBlock"}
OPERATORS = {"equals": "equals", "notEqual": "not equal to", "lessThan": "less than", "greaterThan": "greater than",
             "lessOrEqual": "less or equal", "greaterOrEqual": "greater or equal", "contains": "contains",
             "notContain": "does not contain", "startsWith": "starts with", "includes": "includes",
             "excludes": "excludes", "within": "within", "between": "between"}
#: aggregate prefix -> how Salesforce labels the summary of a column ("Sum of Amount", "Largest Age")
AGGREGATES = {"s": "Sum of {}", "a": "Average {}", "m": "Smallest {}", "mx": "Largest {}", "x": "Largest {}",
              "u": "Unique {}", "med": "Median {}"}
CHART_TYPES = frozenset({"Horizontal Bar", "Vertical Bar", "Stacked Horizontal Bar", "Stacked Vertical Bar",
                         "Horizontal Bar Stacked to 100%", "Vertical Bar Stacked to 100%", "Line", "Cumulative Line",
                         "Pie", "Donut", "Funnel", "Scatter", "Vertical Bar Grouped", "Horizontal Bar Grouped",
                         "Line Grouped", "Cumulative Line Grouped", "Vertical Bar Line", "Heatmap", "Gauge",
                         "Metric"})
VISUALIZATIONS = frozenset({"Bar", "Column", "Line", "Donut", "Pie", "Funnel", "Scatter", "Gauge", "Metric",
                            "FlexTable", "Table", "Heatmap", "Waterfall", "VisualforcePage", "LightningComponent"})
DATE_GRANULARITIES = frozenset({"None", "Day", "Week", "Month", "Quarter", "Year", "FiscalQuarter", "FiscalYear",
                                "MonthInYear", "DayInMonth", "FiscalPeriod", "FiscalWeek"})


@dataclass(frozen=True)
class ReportType:
    """A report type: its API name, label, category and columns (name -> (label, data type))."""

    type: str
    label: str
    category: str
    columns: Mapping[str, tuple[str, str]]

    def column(self, name: str) -> tuple[str, str] | None:
        return self.columns.get(name)


def _cols(spec: str) -> dict[str, tuple[str, str]]:
    """``"NAME:Label:type; ..."`` -> {NAME: (Label, type)}."""
    out: dict[str, tuple[str, str]] = {}
    for part in spec.split(";"):
        name, label, dtype = (p.strip() for p in part.strip().split(":"))
        out[name] = (label, dtype)
    return out


_COMMON = "CREATED_DATE:Created Date:datetime; CREATED:Created By:string; LAST_UPDATE:Last Modified Date:datetime"

#: the standard report types of a new org that SCUBA's tasks use, with the columns they use and a few more
REPORT_TYPES: dict[str, ReportType] = {rt.type: rt for rt in (
    ReportType("AccountList", "Accounts", "Accounts & Contacts", _cols(
        "ACCOUNT.NAME:Account Name:string; USERS.NAME:Account Owner:string; TYPE:Type:picklist; "
        "RATING:Account Rating:picklist; INDUSTRY:Industry:picklist; SALES:Annual Revenue:currency; "
        "SITE:Account Site:string; EMPLOYEES:Employees:int; PHONE1:Phone:phone; ADDRESS1_STATE:Billing State/Province:string; "
        "ADDRESS1_CITY:Billing City:string; ADDRESS1_COUNTRY:Billing Country:string; DUE_DATE:Last Activity:date; "
        "ACCOUNT_SOURCE:Account Source:picklist; " + _COMMON)),
    ReportType("ContactList", "Contacts & Accounts", "Accounts & Contacts", _cols(
        "FIRST_NAME:First Name:string; LAST_NAME:Last Name:string; TITLE:Title:string; ACCOUNT.NAME:Account Name:string; "
        "EMAIL:Email:email; PHONE1:Phone:phone; CONTACT_SOURCE:Lead Source:picklist; DEPARTMENT:Department:string; "
        "USERS.NAME:Contact Owner:string; " + _COMMON)),
    ReportType("Opportunity", "Opportunities", "Opportunities", _cols(
        "OPPORTUNITY_NAME:Opportunity Name:string; ACCOUNT_NAME:Account Name:string; FULL_NAME:Opportunity Owner:string; "
        "ROLLUP_DESCRIPTION:Owner Role:string; STAGE_NAME:Stage:picklist; TYPE:Type:picklist; AMOUNT:Amount:currency; "
        "EXP_AMOUNT:Expected Revenue:currency; PROBABILITY:Probability (%):percent; AGE:Age:int; "
        "CLOSE_DATE:Close Date:date; CLOSE_MONTH:Close Month:date; FISCAL_QUARTER:Fiscal Period:string; "
        "NEXT_STEP:Next Step:string; LEAD_SOURCE:Lead Source:picklist; FORECAST_CATEGORY:Forecast Category:picklist; "
        "CLOSED:Closed:boolean; WON:Won:boolean; " + _COMMON)),
    ReportType("LeadList", "Leads", "Leads", _cols(
        "FIRST_NAME:First Name:string; LAST_NAME:Last Name:string; TITLE:Title:string; COMPANY:Company / Account:string; "
        "EMAIL:Email:email; PHONE:Phone:phone; STREET:Street:textarea; CITY:City:string; STATE:State/Province:string; "
        "RATING:Rating:picklist; OWNER:Lead Owner:string; STATUS:Lead Status:picklist; LEAD_SOURCE:Lead Source:picklist; "
        "INDUSTRY:Industry:picklist; CONVERTED:Converted:boolean; " + _COMMON)),
    ReportType("CaseList", "Cases", "Customer Support Reports", _cols(
        "CASE_NUMBER:Case Number:string; SUBJECT:Subject:string; STATUS:Status:picklist; PRIORITY:Priority:picklist; "
        "ORIGIN:Case Origin:picklist; TYPE:Type:picklist; REASON:Case Reason:picklist; OWNER:Case Owner:string; "
        "ACCOUNT.NAME:Account Name:string; NAME:Contact Name:string; AGE:Age:double; OPEN:Open:boolean; "
        "CLOSED:Closed:boolean; ESCALATION_STATE:Escalated:boolean; CREATED_DATEONLY:Date Opened:date; "
        "CLOSED_DATE:Closed Date:datetime; CREATED_DATE:Date/Time Opened:datetime; CREATED:Created By:string; "
        "LAST_UPDATE:Last Modified Date:datetime")),
    ReportType("Activity", "Tasks and Events", "Activities", _cols(
        "SUBJECT:Subject:string; STATUS:Status:picklist; PRIORITY:Priority:picklist; DUE_DATE:Date:date; "
        "ASSIGNED:Assigned:string; TASK_TYPE:Type:picklist; COMPANY:Company / Account:string; CONTACT:Contact:string; "
        "OPPORTUNITY:Opportunity:string; TASK:Task:boolean; " + _COMMON)),
    ReportType("ProductList", "Products", "Price Books, Products and Assets", _cols(
        "NAME:Product Name:string; PRODUCT_CODE:Product Code:string; DESCRIPTION:Product Description:textarea; "
        "FAMILY:Product Family:picklist; ACTIVE:Active:boolean; " + _COMMON)),
    ReportType("CampaignList", "Campaigns", "Campaigns", _cols(
        "CAMPAIGN_NAME:Campaign Name:string; CAMPAIGN_STATUS:Status:picklist; CAMPAIGN_TYPE:Type:picklist; "
        "BUDGETED_COST:Budgeted Cost:currency; ACTUAL_COST:Actual Cost:currency; START_DATE:Start Date:date; "
        "END_DATE:End Date:date; ACTIVE:Active:boolean; EXPECTED_REVENUE:Expected Revenue:currency; "
        "OWNER_FULL_NAME:Campaign Owner:string; " + _COMMON)),
)}

_FILTER_OPS = {"string": list(OPERATORS)[:10], "picklist": ["equals", "notEqual", "lessThan", "greaterThan",
                                                            "lessOrEqual", "greaterOrEqual", "contains",
                                                            "notContain", "startsWith"],
               "boolean": ["equals", "notEqual"]}


def _bad(message: str, *fields: str) -> OrgError:
    return OrgError("BAD_REQUEST", message, list(fields))


def report_type(name_or_label: Any) -> ReportType | None:
    """The report type of an API name (``LeadList``) or label (``Leads``)."""
    if not isinstance(name_or_label, str):
        return None
    found = REPORT_TYPES.get(name_or_label)
    return found or next((t for t in REPORT_TYPES.values() if t.label == name_or_label), None)


# ---------------------------------------------------------------------------------------------- report model

def _text(value: Any, where: str, *, required: bool = False) -> str | None:
    if value is None or value == "":
        if required:
            raise _bad(f"{where} is required", where)
        return None
    if not isinstance(value, str):
        raise _bad(f"{where} must be a string, got {type(value).__name__}", where)
    return value


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _bad(f"{where} must be a list", where)
    return value


def _column(rt: ReportType, name: Any, where: str) -> str:
    if not isinstance(name, str) or rt.column(name) is None:
        raise _bad(f"The column {name!r} is not valid for the report type {rt.type} ({where})", where)
    return name


def _filters(rt: ReportType | None, raw: Any, where: str) -> list[dict[str, Any]]:
    out = []
    for i, f in enumerate(_list(raw, where)):
        at = f"{where}[{i}]"
        if not isinstance(f, Mapping):
            raise _bad(f"{at} must be an object with column, operator and value", at)
        column = f.get("column")
        if rt is not None:
            _column(rt, column, f"{at}.column")
        elif not isinstance(column, str) or not column:
            raise _bad(f"{at}.column is required", f"{at}.column")
        op = f.get("operator")
        if op not in OPERATORS:
            raise _bad(f"The operator {op!r} is not valid ({at}.operator); use one of {', '.join(OPERATORS)}",
                       f"{at}.operator")
        value = f.get("value", "")
        if value is None:
            value = ""
        if not isinstance(value, (str, int, float, bool)):
            raise _bad(f"{at}.value must be a string", f"{at}.value")
        out.append({"column": column, "filterType": "fieldValue", "isRunPageEditable": True, "operator": op,
                    "value": value if isinstance(value, str) else str(value).lower() if isinstance(value, bool)
                    else str(value)})
    return out


def _groupings(rt: ReportType, raw: Any, where: str) -> list[dict[str, Any]]:
    out = []
    for i, g in enumerate(_list(raw, where)):
        at = f"{where}[{i}]"
        if isinstance(g, str):
            g = {"name": g}
        if not isinstance(g, Mapping):
            raise _bad(f"{at} must be an object with a name", at)
        name = _column(rt, g.get("name"), f"{at}.name")
        order = g.get("sortOrder") or "Asc"
        if order not in ("Asc", "Desc"):
            raise _bad(f"{at}.sortOrder must be Asc or Desc, got {order!r}", f"{at}.sortOrder")
        gran = g.get("dateGranularity") or "None"
        if gran not in DATE_GRANULARITIES:
            raise _bad(f"{at}.dateGranularity {gran!r} is not valid", f"{at}.dateGranularity")
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
    raise _bad(f"The aggregate {key!r} is not valid for the report type {rt.type} ({where}); use RowCount or "
               f"<s|a|m|mx|u|med>!<column>", where)


def _chart(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise _bad("chart must be an object", "chart")
    kind = raw.get("chartType")
    if kind not in CHART_TYPES:
        raise _bad(f"The chart type {kind!r} is not valid (chart.chartType)", "chart.chartType")
    return {"chartType": kind, "groupings": list(raw.get("groupings") or []),
            "hasLegend": bool(raw.get("hasLegend", True)), "showChartValues": bool(raw.get("showChartValues", False)),
            "summaries": list(raw.get("summaries") or ["RowCount"]),
            "summaryAxisLocations": list(raw.get("summaryAxisLocations") or ["Y"]),
            "title": _text(raw.get("title"), "chart.title")}


def _cross_filters(raw: Any) -> list[dict[str, Any]]:
    out = []
    for i, c in enumerate(_list(raw, "crossFilters")):
        at = f"crossFilters[{i}]"
        if not isinstance(c, Mapping):
            raise _bad(f"{at} must be an object", at)
        entity = _text(c.get("relatedEntity"), f"{at}.relatedEntity", required=True)
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
    text = _text(value, "reportBooleanFilter")
    if text is None:
        return None
    numbers = filter_logic_numbers(text)
    if not numbers or any(n < 1 or n > count for n in numbers):
        raise _bad(f"The filter logic {text!r} is not valid for {count} filters (reportBooleanFilter)",
                   "reportBooleanFilter")
    return text


def definition(raw: Any, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A checked, complete report definition from a request's ``reportMetadata`` (its properties over ``base``,
    the saved definition, when saving changes)."""
    if not isinstance(raw, Mapping):
        raise _bad("reportMetadata is required and must be an object", "reportMetadata")
    given = {**(base or {}), **raw}
    name = _text(given.get("name"), "name", required=True)
    assert name is not None
    kind = given.get("reportType")
    type_name = kind.get("type") if isinstance(kind, Mapping) else kind
    rt = report_type(type_name)
    if rt is None:
        raise _bad(f"The report type {type_name!r} is not valid (reportType.type)", "reportType.type")
    fmt = given.get("reportFormat") or "TABULAR"
    if fmt not in ("TABULAR", "SUMMARY", "MATRIX"):
        raise _bad(f"The report format {fmt!r} is not valid (reportFormat); use TABULAR, SUMMARY or MATRIX",
                   "reportFormat")
    down = _groupings(rt, given.get("groupingsDown"), "groupingsDown")
    across = _groupings(rt, given.get("groupingsAcross"), "groupingsAcross")
    if fmt == "TABULAR" and (down or across):
        raise _bad("A tabular report has no groupings (groupingsDown, groupingsAcross)", "reportFormat")
    if fmt == "SUMMARY" and across:
        raise _bad("A summary report groups rows only (groupingsAcross)", "groupingsAcross")
    if len(down) > (3 if fmt == "SUMMARY" else 2) or len(across) > 2:
        raise _bad("Too many groupings for the report format", "groupingsDown")
    columns = [_column(rt, c, f"detailColumns[{i}]") for i, c in enumerate(_list(given.get("detailColumns"),
                                                                                 "detailColumns"))]
    aggregates = [_aggregate(rt, a, f"aggregates[{i}]") for i, a in
                  enumerate(_list(given.get("aggregates", ["RowCount"]), "aggregates"))]
    filters = _filters(rt, given.get("reportFilters"), "reportFilters")
    scope = given.get("scope") or "organization"
    if scope not in ("organization", "user", "team"):
        raise _bad(f"The scope {scope!r} is not valid (scope)", "scope")
    return {
        "aggregates": list(dict.fromkeys(aggregates)),
        "chart": _chart(given.get("chart")),
        "crossFilters": _cross_filters(given.get("crossFilters")),
        "currency": None,
        "description": _text(given.get("description"), "description"),
        "detailColumns": list(dict.fromkeys(columns)),
        "developerName": _text(given.get("developerName"), "developerName"),
        "folderId": _text(given.get("folderId"), "folderId"),
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


def _stored_definition(rec: Mapping[str, Any]) -> dict[str, Any]:
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
    raise _bad(f"The folder {folder_id!r} does not exist (folderId); the org has the folders Public Reports "
               f"({org.org_id}) and Private Reports (your user id)", "folderId")


def _developer_name(org: Org, sobject: str, wanted: str | None, label: str, own_id: str | None = None) -> str:
    base = wanted or re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9]", "_", label)).strip("_") or "Report"
    if not base[0].isalpha():
        base = "X" + base
    if wanted and not re.fullmatch(r"[A-Za-z](?:[A-Za-z0-9]|_(?!_))*(?<!_)", wanted):
        raise _bad(f"The unique name {wanted!r} can contain only underscores and alphanumeric characters, must "
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
    md["developerName"] = _developer_name(org, "Report", md.get("developerName"), md["name"], own_id)
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
    rec = _report(org, report_id)
    md = definition(metadata, _stored_definition(rec))
    with org.transaction():
        fields = _report_fields(org, md, user_id, rec["Id"])
        org.update("Report", rec["Id"], fields, user_id=user_id)
        org.update_trusted("Report", rec["Id"], {"Metadata": md}, user_id=user_id)


def _report(org: Org, report_id: str) -> dict[str, Any]:
    found = org.get("Report", report_id) if isinstance(report_id, str) else None
    if found is None:
        raise not_found("The requested resource does not exist")
    return found


def describe_report(org: Org, report_id: str) -> dict[str, Any]:
    """``GET analytics/reports/<id>/describe``."""
    rec = _report(org, report_id)
    md = _stored_definition(rec)
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
    return {"reportMetadata": dict(sorted(md.items())), "reportExtendedMetadata": _extended(rt, md),
            "reportTypeMetadata": _type_metadata(rt)}


def _column_info(rt: ReportType, name: str) -> dict[str, Any]:
    label, dtype = rt.columns[name]
    return {"dataType": dtype, "entityColumnName": None, "filterable": True, "fullyQualifiedName": None,
            "inactiveMultiCurrencyFields": None, "isLookup": False, "label": label,
            "uniqueCountable": dtype not in ("textarea", "boolean")}


def _extended(rt: ReportType, md: Mapping[str, Any]) -> dict[str, Any]:
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


def _type_metadata(rt: ReportType) -> dict[str, Any]:
    dtypes = sorted({d for _, d in rt.columns.values()})
    return {
        "categories": [{"columns": {name: {**_column_info(rt, name), "filterValues": []} for name in rt.columns},
                        "label": f"{rt.label} Fields"}],
        "dataTypeFilterOperatorMap": {d: [{"label": OPERATORS[op], "name": op} for op in
                                          _FILTER_OPS.get(d, list(OPERATORS)[:6])] for d in dtypes},
        "divisionInfo": None,
        "scopeInfo": {"defaultValue": "organization", "values": [
            {"allowsDivision": False, "label": f"My {rt.label.lower()}", "value": "user"},
            {"allowsDivision": False, "label": f"All {rt.label.lower()}", "value": "organization"}]},
        "standardDateFilterDurationGroups": [],
        "standardFilterInfos": {},
    }


# ---------------------------------------------------------------------------------------------- dashboards

def _dashboard(org: Org, dashboard_id: str) -> dict[str, Any]:
    found = org.get("Dashboard", dashboard_id) if isinstance(dashboard_id, str) else None
    if found is None:
        raise not_found("The requested resource does not exist")
    return found


def _components(org: Org, raw: Any, old: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    known = {c.get("id") for c in old}
    out = []
    for i, c in enumerate(_list(raw, "components")):
        at = f"components[{i}]"
        if not isinstance(c, Mapping):
            raise _bad(f"{at} must be an object", at)
        kind = c.get("type") or "Report"
        if kind != "Report":
            raise _bad(f"{at}.type {kind!r} is not supported; use Report", f"{at}.type")
        rid = c.get("reportId")
        found = org.get("Report", rid) if isinstance(rid, str) else None
        if found is None:
            raise _bad(f"The report {rid!r} does not exist ({at}.reportId)", f"{at}.reportId")
        props = c.get("properties") or {}
        if not isinstance(props, Mapping):
            raise _bad(f"{at}.properties must be an object", f"{at}.properties")
        vis = props.get("visualizationType")
        if vis not in VISUALIZATIONS:
            raise _bad(f"The visualization type {vis!r} is not valid ({at}.properties.visualizationType); use one "
                       f"of {', '.join(sorted(VISUALIZATIONS))}", f"{at}.properties.visualizationType")
        report_md = _stored_definition(found)
        cid = c.get("id") if c.get("id") in known else org.ids.new("01a")
        out.append({
            "footer": _text(c.get("footer"), f"{at}.footer"), "header": _text(c.get("header"), f"{at}.header"),
            "id": cid, "reportId": found["Id"], "title": _text(c.get("title"), f"{at}.title"), "type": "Report",
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
            "DeveloperName": _developer_name(org, "Dashboard", md.get("developerName"), md["name"], own_id)}


def _dashboard_definition(org: Org, raw: Any, base: Mapping[str, Any] | None) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise _bad("dashboardMetadata is required and must be an object", "dashboardMetadata")
    old = dict(base or {})
    given = {**old, **raw}
    name = _text(given.get("name"), "name", required=True)
    components = _components(org, given.get("components"), list(old.get("components") or []))
    return {"chartTheme": given.get("chartTheme") or "light", "colorPalette": given.get("colorPalette") or "unity",
            "components": components, "description": _text(given.get("description"), "description"),
            "developerName": _text(given.get("developerName"), "developerName"),
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
    rec = _dashboard(org, dashboard_id)
    with org.transaction():
        md = _dashboard_definition(org, metadata, rec.get("Metadata") if isinstance(rec.get("Metadata"), Mapping)
                                   else {"name": rec.get("Title")})
        fields = _dashboard_fields(org, md, rec["Id"])
        md["developerName"] = fields["DeveloperName"]
        org.update("Dashboard", rec["Id"], fields, user_id=user_id)
        org.update_trusted("Dashboard", rec["Id"], {"Metadata": md}, user_id=user_id)


def describe_dashboard(org: Org, dashboard_id: str, version: str = "62.0") -> dict[str, Any]:
    """``GET analytics/dashboards/<id>/describe``."""
    rec = _dashboard(org, dashboard_id)
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


def _results(org: Org, dashboard_id: str, version: str) -> dict[str, Any]:
    md = describe_dashboard(org, dashboard_id, version)
    return {"componentData": [{"componentId": c["id"], "reportResult": None,
                               "status": {"dataStatus": "NODATA", "errorCode": None, "errorMessage": None,
                                          "errorSeverity": None, "refreshDate": None, "refreshStatus": "IDLE"}}
                              for c in md["components"]],
            "dashboardMetadata": md,
            "statusData": {"refreshDate": None, "refreshStatus": "IDLE"}}


# ---------------------------------------------------------------------------------------------- routes

def _body(ctx: RequestContext, key: str) -> Any:
    body = ctx.json_body()
    if not isinstance(body, Mapping) or key not in body:
        raise _bad(f"The request body must be a JSON object with {key}", key)
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
    return json_response({"reportExtendedMetadata": _extended(rt, md), "reportMetadata": md,
                          "reportTypeMetadata": _type_metadata(rt)})


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
        source = _stored_definition(_report(ctx.org, clone))
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


def report(ctx: RequestContext, version: str, report_id: str) -> Response:
    if ctx.request.method == "DELETE":
        rec = _report(ctx.org, report_id)
        used = [d.get("Title") for d in ctx.org.records("Dashboard") if isinstance(d.get("Metadata"), Mapping)
                and any(isinstance(c, Mapping) and c.get("reportId") == rec["Id"]
                        for c in d["Metadata"].get("components") or [])]
        if used:
            raise _bad(f"The report is used by the dashboard components of {', '.join(map(repr, used))} and can't be "
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
        rec = _dashboard(ctx.org, clone)
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
        rec = _dashboard(ctx.org, dashboard_id)
        ctx.org.delete("Dashboard", rec["Id"])
        return Response(status=204)
    if method == "PATCH":
        save_dashboard(ctx.org, dashboard_id, _body(ctx, "dashboardMetadata"), user_id=ctx.user_id)
    return json_response(_results(ctx.org, dashboard_id, version))


def register(app: OrgApp) -> None:
    """Add the Analytics REST API routes to ``app``."""
    if "Report" not in app.org.schema or "Dashboard" not in app.org.schema:
        return
    add = app.add_route
    add(f"{DATA}/analytics/reportTypes", report_types, ["GET"])
    add(f"{DATA}/analytics/reportTypes/<type_name>", report_type_describe, ["GET"])
    add(f"{DATA}/analytics/reports", reports, ["GET", "POST"])
    add(f"{DATA}/analytics/reports/<report_id>/describe", report_describe, ["GET"])
    add(f"{DATA}/analytics/reports/<report_id>", report, ["PATCH", "DELETE"])
    add(f"{DATA}/analytics/dashboards", dashboards, ["GET", "POST"])
    add(f"{DATA}/analytics/dashboards/<dashboard_id>/describe", dashboard_describe, ["GET"])
    add(f"{DATA}/analytics/dashboards/<dashboard_id>", dashboard, ["GET", "PATCH", "DELETE"])
