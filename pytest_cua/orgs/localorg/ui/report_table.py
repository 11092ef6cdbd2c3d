"""A run report as Lightning's report run page lays it out (``report_view.html``): the totals above it ("Total
Records", "Total Amount"), its table and its chart.

- Tabular: a row per record under the detail columns' labels.
- Summary: the group columns first; each group's row ("Closed Won (2)") above its records, and its "Subtotal"
  row with the summaries under their columns; "Total (11)" at the bottom.
- Matrix: the row groups down, the column groups across, each cell a group's summaries; "Total" row and column.

The record's name cell links to the record, as in Salesforce. The chart is the first row grouping's summary (the
chart's, else the record count) per group.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.analytics.report_sources import SOURCES
from pytest_cua.orgs.localorg.store import Org


def _cells(rt: analytics.ReportType, columns: Sequence[str], row: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    objects = SOURCES[rt.type].objects  # the record a row is (an activity report's rows are tasks or events)
    linked = objects[0] if len(objects) == 1 else None
    for column, cell in zip(columns, row["dataCells"]):
        href = None
        if linked and column == analytics.name_column(rt) and isinstance(cell.get("value"), str):
            href = f"/lightning/r/{linked}/{cell['value']}/view"
        out.append({"text": cell["label"], "href": href, "numeric": rt.columns[column][1] in (
            "currency", "int", "double", "percent")})
    return out


#: a summary's short name where a column shows several ("Sum $1.00 Avg $0.50")
_SHORT = {"s": "Sum", "a": "Avg", "m": "Min", "mx": "Max", "x": "Max", "med": "Median", "u": "Unique"}


def _under_columns(md: Mapping[str, Any], aggregates: Sequence[Mapping[str, Any]],
                   columns: Sequence[str]) -> list[str]:
    """A group's summaries under the detail columns they summarize (blank elsewhere): the value alone when the
    column has one summary, each with its short name when it has several."""
    placed: list[list[tuple[str, str]]] = [[] for _ in columns]
    for key, value in zip(md["aggregates"], aggregates):
        prefix, _, column = key.partition("!")
        if column in columns:
            placed[columns.index(column)].append((_SHORT.get(prefix, prefix), str(value["label"])))
    return [" ".join(text if len(here) == 1 else f"{name} {text}" for name, text in here) for here in placed]


def _count(md: Mapping[str, Any], aggregates: Sequence[Mapping[str, Any]]) -> str:
    return next((a["label"] for k, a in zip(md["aggregates"], aggregates) if k == "RowCount"), "")


def table(org: Org, md: Mapping[str, Any], run: Mapping[str, Any]) -> dict[str, Any]:
    """The run page's view of ``run`` (``analytics.run_report`` of ``md``, with details)."""
    rt = analytics.REPORT_TYPES[md["reportType"]["type"]]
    columns = list(md.get("detailColumns") or [])
    facts = run["factMap"]
    total = facts["T!T"]["aggregates"]
    totals = [{"label": "Total Records" if key == "RowCount" else f"Total {rt.columns[key.partition('!')[2]][0]}"
               if key.startswith("s!") else analytics.aggregate_label(rt, key), "value": a["label"]}
              for key, a in zip(md["aggregates"], total)]
    view: dict[str, Any] = {"format": md["reportFormat"], "totals": totals, "allData": run["allData"]}
    if md["reportFormat"] == "MATRIX":
        view.update(_matrix(rt, md, run))
        return view
    groups = [rt.columns[g["name"]][0] for g in md["groupingsDown"]]
    view["header"] = [*groups, *(rt.columns[c][0] for c in columns)]
    view["numeric"] = [False] * len(groups) + [rt.columns[c][1] in ("currency", "int", "double", "percent")
                                               for c in columns]
    rows: list[dict[str, Any]] = []

    def walk(nodes: Sequence[Mapping[str, Any]], depth: int) -> None:
        for node in nodes:
            cell = facts[f"{node['key']}!T"]
            rows.append({"kind": "group", "depth": depth, "label": f"{node['label']} ({_count(md, cell['aggregates'])})",
                         "span": len(groups) - depth + len(columns)})
            if node["groupings"]:
                walk(node["groupings"], depth + 1)
            for row in cell.get("rows", []):
                rows.append({"kind": "detail", "cells": _cells(rt, columns, row)})
            rows.append({"kind": "subtotal", "depth": depth, "label": "Subtotal",
                         "cells": _under_columns(md, cell["aggregates"], columns)})

    if groups:
        walk(run["groupingsDown"]["groupings"], 0)
        rows.append({"kind": "total", "label": f"Total ({_count(md, total)})",
                     "cells": _under_columns(md, total, columns)})
    else:
        rows.extend({"kind": "detail", "cells": _cells(rt, columns, row)} for row in facts["T!T"].get("rows", []))
    view.update(rows=rows, groups=len(groups), chart=chart(rt, md, run))
    return view


def _matrix(rt: analytics.ReportType, md: Mapping[str, Any], run: Mapping[str, Any]) -> dict[str, Any]:
    """The first level of the row and the column groups (a second level is summed into it) and each cell's first
    summary."""
    facts = run["factMap"]
    down, across = run["groupingsDown"]["groupings"], run["groupingsAcross"]["groupings"]
    first = md["aggregates"][0] if md["aggregates"] else "RowCount"

    def value(key: str) -> str:
        return str(facts[key]["aggregates"][0]["label"]) if key in facts and facts[key]["aggregates"] else ""

    return {"corner": f"{rt.columns[md['groupingsDown'][0]['name']][0]} / "
                      f"{rt.columns[md['groupingsAcross'][0]['name']][0]}",
            "measure": analytics.aggregate_label(rt, first),
            "across": [a["label"] for a in across] + ["Total"],
            "matrix": [{"label": d["label"], "cells": [value(f"{d['key']}!{a['key']}") for a in across]
                        + [value(f"{d['key']}!T")]} for d in down]
            + [{"label": "Total", "cells": [value(f"T!{a['key']}") for a in across] + [value("T!T")]}],
            "chart": chart(rt, md, run)}


#: how a chart type is drawn (``_report_chart.html``): the report's chart types and a dashboard's Display As
_KINDS = {"Vertical Bar": "vertical", "Stacked Vertical Bar": "vertical", "Vertical Bar Grouped": "vertical",
          "Vertical Bar Stacked to 100%": "vertical", "Column": "vertical", "Line": "line", "Cumulative Line": "line",
          "Line Grouped": "line", "Donut": "donut", "Pie": "donut", "Funnel": "funnel", "Scatter": "scatter",
          "Metric": "metric", "Gauge": "metric", "FlexTable": "table", "Table": "table"}


def chart(rt: analytics.ReportType, md: Mapping[str, Any], run: Mapping[str, Any], chart_type: str | None = None,
          title: str | None = None) -> dict[str, Any] | None:
    """A chart of the run: the report's own (``md["chart"]``) or, for a dashboard component, ``chart_type`` (its
    Display As); the value of each first-level row group (the chart's summary, else the report's first), and the
    grand total (a metric or gauge shows it)."""
    spec = md.get("chart") or {}
    kind_name = chart_type or spec.get("chartType")
    if not kind_name:
        return None
    summary = (spec.get("summaries") or [None])[0] if not chart_type else None
    summary = str(summary if summary in md["aggregates"] else (md["aggregates"] or ["RowCount"])[0])
    index = md["aggregates"].index(summary) if summary in md["aggregates"] else None
    bars = []
    for node in run["groupingsDown"]["groupings"] if index is not None else []:
        aggregate = run["factMap"][f"{node['key']}!T"]["aggregates"][index]
        bars.append({"label": node["label"], "value": float(aggregate["value"] or 0), "text": aggregate["label"]})
    top = max((b["value"] for b in bars), default=0.0) or 1.0
    for b in bars:
        b["share"] = round(100 * b["value"] / top, 1)
    total = run["factMap"]["T!T"]["aggregates"][index]["label"] if index is not None else ""
    group = rt.columns[md["groupingsDown"][0]["name"]][0] if md["groupingsDown"] else ""
    return {"type": kind_name, "kind": _KINDS.get(kind_name, "horizontal"), "title": title or spec.get("title")
            or md.get("name"), "bars": bars, "total": total, "measure": analytics.aggregate_label(rt, summary),
            "group": group, "showValues": bool(spec.get("showChartValues")) if not chart_type else True}
