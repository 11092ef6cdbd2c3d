"""Running a report as Salesforce runs it: the records of its report type (``report_sources``), kept by its Show
Me scope, its date range, its field filters under its filter logic and its cross filters; grouped down and
across (a date group by its Group Date By), summarized (Record Count, Sum, Average, Min, Max, Median, Unique);
the Analytics API's run result (``factMap`` keyed ``T!T``, ``0!T``, ``0_1!T``, ``0!1``, the ``groupingsDown`` and
``groupingsAcross`` trees, each cell ``{"label", "value"}``), which the report's page and the builder's preview
draw too."""

from __future__ import annotations

import csv
import re
import statistics
from datetime import date, timedelta
from typing import Any, Iterable, Mapping, Sequence

from pytest_cua.orgs.localorg.analytics.report_sources import (
    SOURCES,
    Row,
    cell_value,
    day_of,
    picklist_order,
    rows_of,
)
from pytest_cua.orgs.localorg.analytics.report_types import AGGREGATES, REPORT_TYPES, ReportType
from pytest_cua.orgs.localorg.soql.engine import date_range
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.values import shown_date, shown_datetime

#: the detail rows a run returns at most (Salesforce's limit for a run through the API and the run page)
ROW_LIMIT = 2000
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def label_of(kind: str, value: Any) -> str:
    """A value as a report shows it to an en-US user (``-`` for none)."""
    if value is None or value == "":
        return "-"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "currency" and isinstance(value, (int, float)):
        return f"${value:,.2f}"
    if kind == "percent" and isinstance(value, (int, float)):
        return f"{value:g}%"
    if kind in ("int", "double") and isinstance(value, (int, float)):
        return f"{value:,.2f}".rstrip("0").rstrip(".") if isinstance(value, float) else f"{value:,}"
    if kind == "date":
        return shown_date(str(value))
    if kind == "datetime":
        return shown_datetime(str(value))
    return str(value)


def relative_range(literal: str, today: date | None = None) -> tuple[date, date] | None:
    """The half-open range of a relative date (``THIS MONTH``, ``LAST_N_DAYS:30``, ``THIS_FISCAL_QUARTER``), or
    None when ``literal`` is not one."""
    name = re.sub(r"\s+", "_", literal.strip().upper()).replace("_FISCAL_", "_")
    n: int | None = None
    if ":" in name:
        name, _, count = name.partition(":")
        if not count.isdigit():
            return None
        n = int(count)
    try:
        return date_range(name, n, today)
    except (KeyError, TypeError):
        return None


def _text(value: Any) -> str:
    return str(value).lower() if value is not None else ""


def _number(value: Any) -> float | None:
    try:
        return float(str(value).strip().strip('"').replace(",", "").replace("$", "").rstrip("%"))
    except ValueError:
        return None


def values_of(value: str | None) -> list[str]:
    """A filter value's values: ``Hot,Warm`` is two, ``"5,000"`` (quoted, as Salesforce writes a value holding a
    comma) is one."""
    text = value or ""
    if '"' not in text:
        return text.split(",")
    return next(csv.reader([text], skipinitialspace=True), [""]) or [""]


def _compare(kind: str, have: Any, want: str, today: date | None) -> int | None:
    """-1, 0, 1 comparing ``have`` to ``want`` as the column's type compares them; None when they cannot be."""
    if kind in ("date", "datetime"):
        day, span = day_of(have), relative_range(want, today)
        if day is None:
            return None
        if span is not None:
            return -1 if day < span[0] else 1 if day >= span[1] else 0
        other = day_of(want)
        return None if other is None else (day > other) - (day < other)
    if kind in ("int", "double", "currency", "percent"):
        x, y = _number(have) if have is not None else None, _number(want)
        return None if x is None or y is None else (x > y) - (x < y)
    if kind == "boolean":
        return 0 if _text(have if have is not None else False) == want.strip().lower() else 1
    a, b = _text(have), want.strip().lower()
    return (a > b) - (a < b)


def matches(kind: str, operator: str, have: Any, value: str, today: date | None = None) -> bool:
    """Whether a cell passes a field filter (``equals`` with ``a,b`` is either; text without case)."""
    if kind == "boolean" and have is None:
        have = False  # an empty checkbox is unchecked
    wanted = values_of(value) if operator in (
        "equals", "notEqual", "contains", "notContain", "startsWith", "includes", "excludes") else [value or ""]
    if operator in ("equals", "notEqual"):
        empty = have is None or have == ""
        hit = any((empty if not w.strip() else (not empty and _compare(kind, have, w, today) == 0)) for w in wanted)
        return hit if operator == "equals" else not hit
    if operator in ("contains", "notContain", "startsWith"):
        text = _text(have)
        hit = any(w.strip() and (text.startswith(w.strip().lower()) if operator == "startsWith"
                                 else w.strip().lower() in text) for w in wanted)
        return hit if operator != "notContain" else not hit
    if operator in ("includes", "excludes"):
        chosen = {v.strip().lower() for v in _text(have).split(";") if v.strip()}
        hit = any(w.strip().lower() in chosen for w in wanted)
        return hit if operator == "includes" else not hit
    if operator == "between":
        low, _, high = value.partition(",")
        a, b = _compare(kind, have, low, today), _compare(kind, have, high, today)
        return a is not None and b is not None and a >= 0 and b <= 0
    order = _compare(kind, have, value, today)
    if order is None or have is None or have == "":
        return False
    return {"lessThan": order < 0, "greaterThan": order > 0, "lessOrEqual": order <= 0,
            "greaterOrEqual": order >= 0}.get(operator, False)


def logic_holds(logic: str, results: Sequence[bool]) -> bool:
    """A filter logic (``(1 OR 2) AND NOT 3``) over the filters' results, read by a small parser (AND binds
    tighter than OR, as in Salesforce)."""
    tokens = re.findall(r"\d+|\(|\)|AND|OR|NOT", logic.upper())
    pos = 0

    def take() -> str | None:
        nonlocal pos
        pos += 1
        return tokens[pos - 1] if pos <= len(tokens) else None

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def atom() -> bool:
        token = take()
        if token == "NOT":
            return not atom()
        if token == "(":
            value = either()
            take()
            return value
        return bool(token and token.isdigit() and 0 < int(token) <= len(results) and results[int(token) - 1])

    def both() -> bool:
        value = atom()
        while peek() == "AND":
            take()
            value = atom() and value
        return value

    def either() -> bool:
        value = both()
        while peek() == "OR":
            take()
            value = both() or value
        return value

    return either()


def _team(org: Org, user_id: str) -> set[str]:
    """The user and the users in the roles below the user's role."""
    users = {u["Id"]: u for u in org.records("User")}
    role = (users.get(user_id) or {}).get("UserRoleId")
    below, grew = {role} if role else set(), True
    while grew:
        more = {r["Id"] for r in org.records("UserRole") if r.get("ParentRoleId") in below} - below
        below, grew = below | more, bool(more)
    return {user_id} | {uid for uid, u in users.items() if u.get("UserRoleId") in below}


def _related_by_parent(org: Org, entity: str, parents: Sequence[str]) -> dict[str, list[tuple[str, Mapping[str, Any]]]]:
    """The records of a cross filter's related object, by the id of the record of ``parents`` (the report's
    objects) each points at: read once for a run."""
    names = ("Task", "Event") if entity == "Activity" else (entity,)
    out: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for sobject in names:
        if sobject not in org.schema:
            continue
        refs = [f.name for f in org.object(sobject).fields.values() if f.type == "reference"
                and any(p in f.reference_to for p in parents) and f.name not in ("CreatedById", "LastModifiedById")]
        for record in org.records(sobject):
            for parent in {record.get(name) for name in refs} - {None}:
                out.setdefault(str(parent), []).append((sobject, record))
    return out


def _cross_holds(org: Org, cross: Mapping[str, Any], related: Iterable[tuple[str, Mapping[str, Any]]],
                 today: date | None) -> bool:
    """Whether a record with the ``related`` records has (or, "without", has not) one that passes the cross
    filter's own filters, which name the related object's fields by their API names."""
    found = False
    for sobject, record in related:
        obj = org.object(sobject)
        fields = [(obj.field(str(c["column"])), c) for c in cross.get("criteria") or []]
        if all(f is not None and matches(_KINDS.get(f.type, "string"), c["operator"], record.get(f.name),
                                         c["value"], today) for f, c in fields):
            found = True
            break
    return found == bool(cross.get("includesObject", True))


#: a field's type -> how a filter compares its values
_KINDS = {"currency": "currency", "double": "double", "int": "int", "percent": "percent", "date": "date",
          "datetime": "datetime", "boolean": "boolean", "multipicklist": "multipicklist"}


def kept_rows(org: Org, md: Mapping[str, Any], user_id: str | None, today: date | None = None) -> list[Row]:
    """The rows a report keeps: Show Me, the date range, the field filters and logic, the cross filters."""
    rt = REPORT_TYPES[md["reportType"]["type"]]
    kind = {name: dtype for name, (_, dtype) in rt.columns.items()}
    scope = md.get("scope") or "organization"
    owners = {user_id} if scope == "user" and user_id else _team(org, user_id) if scope == "team" and user_id else None
    date_filter = md.get("standardDateFilter") or {}
    span = _date_span(date_filter, today)
    filters = md.get("reportFilters") or []
    logic = md.get("reportBooleanFilter")
    parents = SOURCES[rt.type].objects
    crosses = [(c, _related_by_parent(org, str(c.get("relatedEntity")), parents)) for c in md.get("crossFilters") or []]
    out = []
    for row in rows_of(org, rt.type):
        if owners is not None and row.record.get("OwnerId") not in owners:
            continue
        if span is not None:
            day = day_of(cell_value(org, rt.type, row, date_filter.get("column") or "CREATED_DATE"))
            if day is None or (span[0] and day < span[0]) or (span[1] and day >= span[1]):
                continue
        results = [matches(kind.get(f["column"], "string"), f["operator"],
                           cell_value(org, rt.type, row, f["column"]), f.get("value") or "", today) for f in filters]
        if not (logic_holds(logic, results) if logic else all(results)):
            continue
        if all(_cross_holds(org, c, by_parent.get(str(row.record.get("Id")), []), today)
               for c, by_parent in crosses):
            out.append(row)
    return out


def _date_span(date_filter: Mapping[str, Any], today: date | None) -> tuple[date | None, date | None] | None:
    duration = str(date_filter.get("durationValue") or "CUSTOM")
    if duration == "CUSTOM":
        start, end = day_of(date_filter.get("startDate")), day_of(date_filter.get("endDate"))
        if start is None and end is None:
            return None  # All Time
        return start, end + timedelta(days=1) if end else None
    return relative_range(duration, today) or None


def group_key(kind: str, granularity: str, value: Any) -> tuple[Any, str]:
    """(the group's value, its label) of a cell grouped by a column (a date by its Group Date By)."""
    if value is None or value == "":
        return None, "-"
    day = day_of(value) if kind in ("date", "datetime") else None
    if day is None:
        return value, label_of(kind, value)
    quarter = (day.month - 1) // 3 + 1
    if granularity in ("Month", "FiscalPeriod"):
        return day.isoformat()[:7], f"{_MONTHS[day.month - 1]} {day.year}"
    if granularity in ("Quarter", "FiscalQuarter"):
        return f"{day.year}-Q{quarter}", f"Q{quarter}-{day.year}"
    if granularity in ("Year", "FiscalYear"):
        return str(day.year), str(day.year)
    if granularity in ("Week", "FiscalWeek"):
        start = day - timedelta(days=(day.weekday() + 1) % 7)
        return start.isoformat(), f"{shown_date(start.isoformat())} - {shown_date((start + timedelta(6)).isoformat())}"
    if granularity == "MonthInYear":
        return f"{day.month:02d}", _MONTHS[day.month - 1]
    if granularity == "DayInMonth":
        return f"{day.day:02d}", str(day.day)
    return day.isoformat(), shown_date(day.isoformat())


def _aggregate(rt: ReportType, key: str, values: list[dict[str, Any]]) -> dict[str, Any]:
    if key == "RowCount":
        return {"label": f"{len(values):,}", "value": len(values)}
    prefix, _, column = key.partition("!")
    kind = rt.columns[column][1]
    cells = [v[column] for v in values if v[column] is not None and v[column] != ""]
    numbers = [float(c) for c in cells if isinstance(c, (int, float)) and not isinstance(c, bool)]
    result: Any
    if prefix == "u":
        result, kind = len({str(c).lower() for c in cells}), "int"
    elif prefix == "s":
        result = sum(numbers)
    elif not numbers:
        result = None
    elif prefix == "a":
        result = statistics.fmean(numbers)
    elif prefix == "m":
        result = min(numbers)
    elif prefix in ("mx", "x"):
        result = max(numbers)
    else:
        result = statistics.median(numbers)
    if kind == "int" and isinstance(result, float):
        if prefix in ("a", "med"):
            kind = "double"
        else:
            result = int(result)
    return {"label": label_of(kind, result), "value": result}


def run_report(org: Org, md: Mapping[str, Any], *, user_id: str | None = None, include_details: bool = True,
               today: date | None = None) -> dict[str, Any]:
    """Run the checked report definition ``md`` (``reports.definition``) for ``user_id``: ``factMap``,
    ``groupingsDown``, ``groupingsAcross``, ``allData``, ``hasDetailRows``."""
    rt = REPORT_TYPES[md["reportType"]["type"]]
    names = list(dict.fromkeys([*(md.get("detailColumns") or []), *(g["name"] for g in md["groupingsDown"]),
                                *(g["name"] for g in md["groupingsAcross"]),
                                *(a.partition("!")[2] for a in md["aggregates"] if "!" in a)]))
    values = []
    for row in kept_rows(org, md, user_id, today):
        cells = {name: cell_value(org, rt.type, row, name) for name in names}
        cells["@id"] = row.record.get("Id")
        values.append(cells)
    columns = md.get("detailColumns") or []
    if columns:
        first = rt.columns[columns[0]][1]
        values.sort(key=lambda v: (v[columns[0]] is None, _sortable(first, v[columns[0]])))
    down = _tree(org, rt, md["groupingsDown"], values)
    across = _tree(org, rt, md["groupingsAcross"], values)
    fact_map: dict[str, Any] = {}
    details = include_details and md.get("hasDetailRows", True)
    for down_key, down_rows in _leaves(down, values, with_total=True):
        for across_key, across_rows in _leaves(across, values, with_total=True):
            ids = {id(v) for v in across_rows}
            here = [v for v in down_rows if id(v) in ids]
            cell: dict[str, Any] = {"aggregates": [_aggregate(rt, a, here) for a in md["aggregates"]]}
            if details and _leaf(down_key, md["groupingsDown"]) and _leaf(across_key, md["groupingsAcross"]):
                cell["rows"] = [{"dataCells": [_cell(rt, c, v) for c in columns]} for v in here[:ROW_LIMIT]]
            fact_map[f"{down_key}!{across_key}"] = cell
    return {"allData": len(values) <= ROW_LIMIT, "factMap": fact_map, "hasDetailRows": bool(details),
            "groupingsDown": {"groupings": _public(down)}, "groupingsAcross": {"groupings": _public(across)}}


def _leaf(key: str, groupings: Sequence[Any]) -> bool:
    """Whether a fact map key part holds detail rows: the grand total with no groupings, else the deepest level."""
    return key == "T" if not groupings else key != "T" and key.count("_") + 1 == len(groupings)


def _sortable(kind: str, value: Any) -> Any:
    if isinstance(value, bool):
        return (0, int(value))
    if isinstance(value, (int, float)):
        return (0, value)
    return (1, str(value or "").lower())


def _cell(rt: ReportType, column: str, values: Mapping[str, Any]) -> dict[str, Any]:
    kind = rt.columns[column][1]
    value = values[column]
    if kind == "currency" and value is not None:
        return {"label": label_of(kind, value), "value": {"amount": value, "currency": None}}
    if column == name_column(rt) and value is not None:
        return {"label": label_of(kind, value), "value": values["@id"]}  # the record's name: its id, as Salesforce
    return {"label": label_of(kind, value), "value": value}


def name_column(rt: ReportType) -> str:
    """The column that names the row's record (it links to the record)."""
    return next(iter(rt.columns))


def _tree(org: Org, rt: ReportType, groupings: Sequence[Mapping[str, Any]], values: list[dict[str, Any]],
          prefix: str = "") -> list[dict[str, Any]]:
    """The groups of ``values`` by the first grouping, each with its own groups by the rest (a picklist's groups
    in the picklist's order, others by value; no value first)."""
    if not groupings:
        return []
    g, rest = groupings[0], groupings[1:]
    kind = rt.columns[g["name"]][1]
    order = {v.lower(): i for i, v in enumerate(picklist_order(org, rt.type, g["name"]) or [])}
    buckets: dict[Any, tuple[str, list[dict[str, Any]]]] = {}
    for v in values:
        key, label = group_key(kind, g.get("dateGranularity") or "None", v[g["name"]])
        buckets.setdefault(str(key).lower() if isinstance(key, str) and kind not in ("date", "datetime") else key,
                           (label, []))[1].append(v)
    ordered = sorted(buckets.items(), key=lambda kv: (kv[0] is not None, order.get(str(kv[0]), len(order)),
                                                      _sortable(kind, kv[0])), reverse=g.get("sortOrder") == "Desc")
    out = []
    for i, (key, (label, members)) in enumerate(ordered):
        code = f"{prefix}{i}"
        value = members[0][g["name"]] if key is not None and kind not in ("date", "datetime") else key
        out.append({"key": code, "label": label, "value": value, "rows": members,
                    "groupings": _tree(org, rt, rest, members, code + "_")})
    return out


def _leaves(tree: list[dict[str, Any]], values: list[dict[str, Any]],
            with_total: bool) -> Iterable[tuple[str, list[dict[str, Any]]]]:
    """(fact map key part, rows) for every node of a grouping tree and the grand total ``T``."""
    def walk(nodes: list[dict[str, Any]]) -> Iterable[tuple[str, list[dict[str, Any]]]]:
        for node in nodes:
            yield node["key"], node["rows"]
            yield from walk(node["groupings"])
    yield from walk(tree)
    if with_total:
        yield "T", values


def _public(tree: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"key": n["key"], "label": n["label"], "value": n["value"], "groupings": _public(n["groupings"])}
            for n in tree]


def aggregate_label(rt: ReportType, key: str) -> str:
    """``Record Count``, ``Sum of Amount``: how a report labels a summary."""
    if key == "RowCount":
        return "Record Count"
    prefix, _, column = key.partition("!")
    return AGGREGATES[prefix].format(rt.columns[column][0])
