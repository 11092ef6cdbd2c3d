"""Admin persona: reports (SCUBA's ``create_report``, ``create_report_with_cross_filter``,
``create_report_chain_filters``, ``create_summary_report_with_chart`` and ``create_matrix_report``).

SCUBA finds the report as the first ``Report`` named ``report_name`` (``SELECT Id FROM Report WHERE Name=...``)
and reads its Analytics API describe (``analytics/reports/<id>/describe``); every milestone is a check on that
describe, with SCUBA's weights:

- all five: the report exists (0.2); its report type's label (``reportMetadata.reportType.label``) is
  ``object_name`` (0.2);
- ``create_report``: each expected filter ``(column, operator, value)`` is one of ``reportFilters`` (0.4 split
  equally), each field of ``field_name`` (comma separated) is a key of ``detailColumnInfo`` (0.2 split equally);
- ``create_report_with_cross_filter``: exactly one cross filter on ``cross_object_name`` (0.3); each expected
  filter is one of its criteria (0.3 split equally);
- ``create_report_chain_filters``: the i-th report filter is ``(field<i>, operator<i>, value<i>)`` for i = 1..4
  (0.1 each); the filter logic is ``(1 OR 2) AND 3 AND NOT 4`` (0.2, SCUBA's literal);
- ``create_summary_report_with_chart``: the one grouping (``groupingColumnInfo``) is ``grouping_field``, the
  chart's ``chartType`` is ``chart_type`` and its ``title`` is ``chart_title`` (0.2 each);
- ``create_matrix_report``: two groupings, the row grouping ``row_group_field`` and the column grouping
  ``column_group_field`` (0.2 each); ``field_name`` (``s!AMOUNT``) is a summary (``aggregateColumnInfo``, 0.1)
  whose label starts with ``operation`` (``Sum of Amount``, 0.1).

Filters and values compare exactly, as SCUBA compares them. One deliberate difference (DEVIATIONS.md): the
fields of ``create_report`` are compared with the column names case-insensitively (admin_001_002 names the
column ``AMOUNT`` as ``Amount``, which no report's describe can hold).

The oracle saves the report through the Analytics REST API (``POST analytics/reports`` with ``reportMetadata``),
finding the report type by its label in ``analytics/reportTypes``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Click, Done, Fill, SelectOption

from . import shared as s
from .common import first, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

CHAIN_LOGIC = "(1 OR 2) AND 3 AND NOT 4"


# ---------------------------------------------------------------------------------------------- shared helpers

def truth_text(truth: Mapping[str, Any], key: str) -> str:
    """A ground-truth string (a missing or non-string value is an evaluator error naming the key)."""
    value = truth.get(key)
    if not isinstance(value, str):
        raise ValueError(f"ground truth {key!r} must be a string, got {value!r}")
    return value


def truth_filters(truth: Mapping[str, Any], key: str = "filters") -> list[tuple[Any, Any, Any]]:
    """The ground truth's ``[[column, operator, value], ...]`` as tuples (compared as given, as SCUBA does)."""
    return s.triples(truth.get(key), f"ground truth {key!r}", "column, operator, value")


def find_report(sf: Any, name: str) -> dict[str, Any] | None:
    """The first report named ``name`` (SCUBA's ``records[0]``), or None."""
    return first(sf, f"SELECT Id FROM Report WHERE Name = {soql_str(name)} ORDER BY CreatedDate, Id")


def describe_report(sf: Any, name: str) -> dict[str, Any] | None:
    """The Analytics API describe of the first report named ``name``, or None when there is none."""
    found = find_report(sf, name)
    if found is None:
        return None
    return sf.restful(f"analytics/reports/{found['Id']}/describe")  # type: ignore[no-any-return]


def report_type_of(sf: Any, label: str) -> str:
    """The API name of the report type labelled (or named) ``label``."""
    for group in sf.restful("analytics/reportTypes"):
        for rt in group.get("reportTypes", []):
            if label in (rt.get("label"), rt.get("type")):
                return str(rt["type"])
    raise ValueError(f"the org has no report type labelled {label!r}")


def column_of(sf: Any, type_name: str, field_name: str) -> str:
    """The report type's column named ``field_name`` (case-insensitively, as the report builder finds it)."""
    described = sf.restful(f"analytics/reportTypes/{type_name}")
    for category in described["reportTypeMetadata"]["categories"]:
        for column in category["columns"]:
            if column.lower() == field_name.lower():
                return str(column)
    raise ValueError(f"the report type {type_name!r} has no column {field_name!r}")


def save_report(sf: Any, metadata: Mapping[str, Any]) -> str:
    """``POST analytics/reports``: a new report; returns its id."""
    saved = sf.restful("analytics/reports", method="POST", data=json.dumps({"reportMetadata": metadata}))
    return str(saved["reportMetadata"]["id"])


def _filter_json(f: Sequence[str]) -> dict[str, str]:
    return {"column": f[0], "operator": f[1], "value": f[2]}


# ---------------------------------------------------------------------------------------------- UI steps

def _builder_steps(env: Any, truth: Mapping[str, Any]) -> list[Action]:
    """Reports tab > New Report > the report type > Start Report."""
    label = truth_text(truth, "object_name")
    return [s.goto(env, "/lightning/page/home"), s.click_link("Reports"), s.click_button("New Report"),
            Fill("label=Search Report Types...", label), Check(f'role=radio[name="{label}"]'),
            s.click_button("Start Report")]


def _column(env: Any, truth: Mapping[str, Any], name: str) -> str:
    """The report type's column for a ground-truth field (compared case-insensitively: ``Amount`` is AMOUNT)."""
    return column_of(env.org, report_type_of(env.org, truth_text(truth, "object_name")), name)


def _report_type(truth: Mapping[str, Any]) -> Any:
    from pytest_cua.orgs.localorg import analytics

    return analytics.report_type(truth_text(truth, "object_name"))


def field_label(truth: Mapping[str, Any], column: str) -> str:
    """How the builder names a report type's column (``STAGE_NAME`` is "Stage")."""
    rt = _report_type(truth)
    found = rt.column(column) if rt else None
    return found[0] if found else column


def _filters_tab() -> Action:
    return s.click_tab("Filters")


def _filter_steps(truth: Mapping[str, Any], f: Sequence[Any]) -> list[Action]:
    """A field filter: "Add filter..." chooses the field, the popover's Operator and Value (or, for a date field
    and a relative date literal, Relative Date), Apply."""
    relative = _relative_date(truth, f)
    value = [Fill("label=Value", str(f[2]))] if relative is None else [SelectOption("label=Relative Date", relative)]
    return [SelectOption('role=combobox[name="Add filter"]', field_label(truth, str(f[0]))),
            SelectOption("label=Operator", str(f[1])), *value, s.click_button("Apply")]


def _filters_menu(item: str) -> list[Action]:
    """The Filters menu beside "Add filter...": Add Filter Logic, Add Cross Filter, Remove All Filters."""
    return [s.click_button("Filters"), Click(f'role=menuitem[name="{item}"]')]


def _save_steps(truth: Mapping[str, Any], button: str = "Save") -> list[Action]:
    """"Save" or "Save & Run" opens the Save Report dialog: the report's name (the unique name follows it), the
    dialog's Save (the report's page opens)."""
    return [s.click_button(button), Fill("label=Report Name", truth_text(truth, "report_name")),
            s.click_button("Save"), Done()]


def _relative_date(truth: Mapping[str, Any], f: Sequence[Any]) -> str | None:
    """The builder's "Relative Date" option of a filter on a date field whose value is a relative date literal
    (``LAST WEEK`` -> "Last Week"), else None."""
    from pytest_cua.orgs.localorg.ui.report_builder import RELATIVE_DATES

    rt = _report_type(truth)
    column = rt.column(str(f[0])) if rt else None
    if column and column[1] in ("date", "datetime") and str(f[2]).upper() in RELATIVE_DATES:
        return str(f[2]).title()
    return None


def _cross_label(truth: Mapping[str, Any]) -> str:
    """How the builder names the cross filter's related object ("Activities" of Activity, ...)."""
    from pytest_cua.orgs.localorg.ui.report_builder import CROSS_OBJECTS

    rt = _report_type(truth)
    entity = truth_text(truth, "cross_object_name")
    return dict(CROSS_OBJECTS.get(rt.type if rt else "", [])).get(entity, entity)


def _chart_label(chart_type: str) -> str:
    """The builder's Display As button of an Analytics API chart type ("Horizontal Bar" is "Bar")."""
    from pytest_cua.orgs.localorg.ui.report_builder import CHARTS

    return dict(CHARTS).get(chart_type, chart_type)


def _add_column(truth: Mapping[str, Any], column: str) -> list[Action]:
    """"Add column..." in the Outline (nothing when the new report shows the column already)."""
    rt = _report_type(truth)
    if rt is not None and column in list(rt.columns)[:4]:
        return []
    return [SelectOption('role=combobox[name="Add column"]', field_label(truth, column))]


class _ReportTemplate(s.ScubaTemplate):
    """What the five report templates share: SCUBA's look-up and the first two milestones."""

    objects: tuple[str, ...] = ("Report",)
    milestones: Mapping[str, float] = {}

    def _start(self, ctx: EvalContext) -> tuple[dict[str, Any], dict[str, Any]]:
        """(reportMetadata, reportExtendedMetadata) after the two common milestones ({} when missing)."""
        truth = ctx.truth
        name, label = truth_text(truth, "report_name"), truth_text(truth, "object_name")
        described = describe_report(ctx.env.org, name)
        md = described.get("reportMetadata", {}) if isinstance(described, dict) else {}
        ext = described.get("reportExtendedMetadata", {}) if isinstance(described, dict) else {}
        with milestone("report exists"):
            assert described, f"no report named {name!r}"
        with milestone("report type"):
            assert described, f"no report named {name!r}"
            observed = (md.get("reportType") or {}).get("label")
            assert observed == label, f"the report's type is {observed!r}, not {label!r}"
        return md, ext

    def _base(self, sf: Any, truth: Mapping[str, Any], fmt: str) -> dict[str, Any]:
        return {"name": truth_text(truth, "report_name"), "reportFormat": fmt,
                "reportType": {"type": report_type_of(sf, truth_text(truth, "object_name"))}}


# ---------------------------------------------------------------------------------------------- templates

class CreateReport(_ReportTemplate):
    """A tabular report of a type with standard filters and fields."""

    name = "create_report"
    ground_truth_keys = ("field_name", "filter_type", "filters", "object_name", "report_name")
    milestones = {"report exists": 0.2, "report type": 0.2, "filters": 0.4, "fields": 0.2}

    @staticmethod
    def fields(truth: Mapping[str, Any]) -> list[str]:
        return truth_text(truth, "field_name").split(", ")

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        filters, fields = truth_filters(truth), self.fields(truth)
        out = {k: self.milestones[k] for k in ("report exists", "report type")}
        out.update({f"filter {i}: {f[0]} {f[1]} {f[2]!r}": self.milestones["filters"] / len(filters)
                    for i, f in enumerate(filters, 1)})
        out.update({f"field {i}: {f}": self.milestones["fields"] / len(fields) for i, f in enumerate(fields, 1)})
        return out

    def check(self, ctx: EvalContext) -> None:
        md, ext = self._start(ctx)
        observed = [(f.get("column"), f.get("operator"), f.get("value")) for f in md.get("reportFilters") or []]
        for i, f in enumerate(truth_filters(ctx.truth), 1):
            with milestone(f"filter {i}: {f[0]} {f[1]} {f[2]!r}"):
                assert f in observed, f"no filter {f}; the report's filters are {observed}"
        columns = list((ext.get("detailColumnInfo") or {}).keys())
        for i, field in enumerate(self.fields(ctx.truth), 1):
            with milestone(f"field {i}: {field}"):
                # SCUBA: `field in columns` as written (DEVIATIONS.md: ours ignores the case)
                assert field in columns if s.exact() else field.lower() in (c.lower() for c in columns), \
                    f"no column {field!r}; the report's columns are {columns}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        md = self._base(sf, truth, "TABULAR")
        filters = truth_filters(truth)
        wanted = [column_of(sf, md["reportType"]["type"], f) for f in self.fields(truth)]
        md["detailColumns"] = list(dict.fromkeys(wanted + [f[0] for f in filters]))
        md["reportFilters"] = [_filter_json(f) for f in filters]
        save_report(sf, md)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The builder: each field as a column ("Add column..."), each filter in the Filters tab ("Add filter...",
        the popover's Operator and Value, Apply), Refresh, the name, Save."""
        truth = task.ground_truth
        steps = _builder_steps(env, truth)
        for field in self.fields(truth):
            steps += _add_column(truth, _column(env, truth, field))
        steps.append(_filters_tab())
        for f in truth_filters(truth):
            steps += _filter_steps(truth, f)
        return [*steps, s.click_button("Refresh"), *_save_steps(truth)]


class CreateReportWithCrossFilter(_ReportTemplate):
    """A report with a cross filter on a related object and its criteria."""

    name = "create_report_with_cross_filter"
    ground_truth_keys = ("cross_object_name", "filters", "object_name", "report_name")
    milestones = {"report exists": 0.2, "report type": 0.2, "cross filter": 0.3, "cross filter criteria": 0.3}

    def weights(self, truth: Mapping[str, Any]) -> dict[str, float]:
        filters = truth_filters(truth)
        out = {k: self.milestones[k] for k in ("report exists", "report type", "cross filter")}
        out.update({f"criterion {i}: {f[0]} {f[1]} {f[2]!r}": self.milestones["cross filter criteria"] / len(filters)
                    for i, f in enumerate(filters, 1)})
        return out

    def check(self, ctx: EvalContext) -> None:
        md, _ = self._start(ctx)
        entity = truth_text(ctx.truth, "cross_object_name")
        cross = [c for c in md.get("crossFilters") or [] if c.get("relatedEntity") == entity]
        with milestone("cross filter"):
            assert len(cross) == 1, f"{len(cross)} cross filters on {entity!r}, expected one; the report's cross " \
                f"filters are on {[c.get('relatedEntity') for c in md.get('crossFilters') or []]}"
        criteria = [(c.get("column"), c.get("operator"), c.get("value")) for c in cross[0].get("criteria") or []] \
            if len(cross) == 1 else []
        for i, f in enumerate(truth_filters(ctx.truth), 1):
            with milestone(f"criterion {i}: {f[0]} {f[1]} {f[2]!r}"):
                assert len(cross) == 1, f"no single cross filter on {entity!r}"
                assert f in criteria, f"no criterion {f}; the cross filter's criteria are {criteria}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        md = self._base(sf, truth, "TABULAR")
        md["crossFilters"] = [{"relatedEntity": truth_text(truth, "cross_object_name"), "includesObject": True,
                               "criteria": [_filter_json(f) for f in truth_filters(truth)]}]
        save_report(sf, md)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The builder's Filters tab: Filters > Add Cross Filter, "with" the related object, Apply; each of its
        filters ("Add Activities Filter": Field, Operator, Value, Apply), the name, Save & Run."""
        truth = task.ground_truth
        add = f"Add {_cross_label(truth)} Filter"
        steps = [*_builder_steps(env, truth), _filters_tab(), *_filters_menu("Add Cross Filter"),
                 SelectOption("label=Cross Filter", "with"), SelectOption("label=Related Object", _cross_label(truth)),
                 s.click_button("Apply")]
        for f in truth_filters(truth):
            steps += [s.click_button(add), Fill("label=Field", str(f[0])), SelectOption("label=Operator", str(f[1])),
                      Fill("label=Value", str(f[2])), s.click_button("Apply")]
        return [*steps, *_save_steps(truth, "Save & Run")]


class CreateReportChainFilters(_ReportTemplate):
    """Four report filters in order, combined by the logic ``(1 OR 2) AND 3 AND NOT 4``."""

    name = "create_report_chain_filters"
    ground_truth_keys = ("field1", "field2", "field3", "field4", "object_name", "operator1", "operator2", "operator3",
                         "operator4", "report_name", "value1", "value2", "value3", "value4")
    milestones = {"report exists": 0.2, "report type": 0.2, "filter 1": 0.1, "filter 2": 0.1, "filter 3": 0.1,
                  "filter 4": 0.1, "filter logic": 0.2}

    @staticmethod
    def filters(truth: Mapping[str, Any]) -> list[tuple[str, str, str]]:
        return [(truth_text(truth, f"field{i}"), truth_text(truth, f"operator{i}"), truth_text(truth, f"value{i}"))
                for i in range(1, 5)]

    def check(self, ctx: EvalContext) -> None:
        md, _ = self._start(ctx)
        observed = [(f.get("column"), f.get("operator"), f.get("value")) for f in md.get("reportFilters") or []]
        for i, f in enumerate(self.filters(ctx.truth), 1):
            with milestone(f"filter {i}"):
                at = observed[i - 1] if len(observed) >= i else None
                assert at == f, f"filter {i} is {at}, expected {f}"
        with milestone("filter logic"):
            logic = md.get("reportBooleanFilter")
            assert logic == CHAIN_LOGIC, f"the filter logic is {logic!r}, expected {CHAIN_LOGIC!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        md = self._base(sf, truth, "TABULAR")
        filters = self.filters(truth)
        md["reportFilters"] = [_filter_json(f) for f in filters]
        md["detailColumns"] = list(dict.fromkeys(f[0] for f in filters))
        md["reportBooleanFilter"] = CHAIN_LOGIC
        save_report(sf, md)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The builder: the four filters in order (a relative date value as "Relative Date"), "Add Filter Logic"
        and the logic, the name, Save & Run."""
        truth = task.ground_truth
        steps = [*_builder_steps(env, truth), _filters_tab()]
        for f in self.filters(truth):
            steps += _filter_steps(truth, f)
        return [*steps, *_filters_menu("Add Filter Logic"), Fill("label=Filter Logic", CHAIN_LOGIC),
                *_save_steps(truth, "Save & Run")]


class CreateSummaryReportWithChart(_ReportTemplate):
    """A summary report grouped by one field, with a chart of a type and title."""

    name = "create_summary_report_with_chart"
    ground_truth_keys = ("chart_title", "chart_type", "grouping_field", "object_name", "report_name")
    milestones = {"report exists": 0.2, "report type": 0.2, "grouping": 0.2, "chart type": 0.2, "chart title": 0.2}

    def check(self, ctx: EvalContext) -> None:
        md, ext = self._start(ctx)
        truth = ctx.truth
        groups = list((ext.get("groupingColumnInfo") or {}).keys())
        chart = md.get("chart") or {}
        with milestone("grouping"):
            wanted = truth_text(truth, "grouping_field")
            assert groups == [wanted], f"the report's groupings are {groups}, expected [{wanted!r}]"
        with milestone("chart type"):
            wanted = truth_text(truth, "chart_type")
            assert chart.get("chartType") == wanted, f"the chart type is {chart.get('chartType')!r}, not {wanted!r}"
        with milestone("chart title"):
            wanted = truth_text(truth, "chart_title")
            assert chart.get("title") == wanted, f"the chart title is {chart.get('title')!r}, not {wanted!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        md = self._base(sf, truth, "SUMMARY")
        group = truth_text(truth, "grouping_field")
        md["groupingsDown"] = [{"name": group, "sortOrder": "Asc", "dateGranularity": "None"}]
        md["chart"] = {"chartType": truth_text(truth, "chart_type"), "title": truth_text(truth, "chart_title"),
                       "groupings": [group], "summaries": ["RowCount"], "hasLegend": True}
        save_report(sf, md)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The builder: Group Rows by the field, Show Me all records (Filters tab), Add Chart and its properties
        (Display As, Chart Title, Show Values), the name, Save & Run."""
        truth = task.ground_truth
        group = field_label(truth, truth_text(truth, "grouping_field"))
        return [*_builder_steps(env, truth), SelectOption('role=combobox[name="Group Rows"]', group),
                _filters_tab(), Click('role=button[name*="Show Me"]'),
                SelectOption("label=Show Me", f"All {truth_text(truth, 'object_name')}"), s.click_button("Apply"),
                s.click_button("Add Chart"), s.click_button(_chart_label(truth_text(truth, "chart_type"))),
                Fill("label=Chart Title", truth_text(truth, "chart_title")), Check("label=Show Values"),
                *_save_steps(truth, "Save & Run")]


class CreateMatrixReport(_ReportTemplate):
    """A matrix report with a row and a column grouping and a summary of a field."""

    name = "create_matrix_report"
    ground_truth_keys = ("column_group_field", "field_name", "object_name", "operation", "report_name",
                         "row_group_field")
    milestones = {"report exists": 0.2, "report type": 0.2, "row grouping": 0.2, "column grouping": 0.2,
                  "aggregate field": 0.1, "aggregate operation": 0.1}

    def check(self, ctx: EvalContext) -> None:
        md, ext = self._start(ctx)
        truth = ctx.truth
        groups = list((ext.get("groupingColumnInfo") or {}).keys())
        aggregates = ext.get("aggregateColumnInfo") or {}
        key = truth_text(truth, "field_name")
        for name, index, wanted in (("row grouping", 0, truth_text(truth, "row_group_field")),
                                    ("column grouping", 1, truth_text(truth, "column_group_field"))):
            with milestone(name):
                assert len(groups) == 2, f"the report has {len(groups)} groupings {groups}, expected two"
                assert groups[index] == wanted, f"the {name} is {groups[index]!r}, not {wanted!r}"
        with milestone("aggregate field"):
            assert key in aggregates, f"no summary {key!r}; the report's summaries are {list(aggregates)}"
        with milestone("aggregate operation"):
            operation = truth_text(truth, "operation")
            label = (aggregates.get(key) or {}).get("label")
            assert isinstance(label, str) and label.startswith(operation), \
                f"the summary {key!r} is labelled {label!r}, which does not start with {operation!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        md = self._base(sf, truth, "MATRIX")
        md["groupingsDown"] = [{"name": truth_text(truth, "row_group_field")}]
        md["groupingsAcross"] = [{"name": truth_text(truth, "column_group_field")}]
        md["aggregates"] = [truth_text(truth, "field_name"), "RowCount"]
        save_report(sf, md)

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The builder: Group Rows and Group Columns (a month column grouped by Calendar Month, its group's "Group
        Date By"), the summarized column (added when not shown) and its menu's Summarize item (``s!AMOUNT``: Sum;
        Salesforce labels it "Sum of Amount"), the name, Save & Run."""
        from pytest_cua.orgs.localorg.ui.report_builder import SUMMARIES

        truth = task.ground_truth
        kind, _, field = truth_text(truth, "field_name").partition("!")
        row = truth_text(truth, "row_group_field")
        rt = _report_type(truth)
        column = rt.column(row) if rt else None
        row_label = field_label(truth, row)
        by_month = [s.click_button(f"Group options for {row_label}"),
                    Click('role=menuitemcheckbox[name="Calendar Month"]')] \
            if column and column[1] in ("date", "datetime") and column[0].endswith("Month") else []
        return [*_builder_steps(env, truth), SelectOption('role=combobox[name="Group Rows"]', row_label), *by_month,
                SelectOption('role=combobox[name="Group Columns"]',
                             field_label(truth, truth_text(truth, "column_group_field"))),
                *_add_column(truth, field), s.click_button(f"Show actions for {field_label(truth, field)}"),
                Click(f'role=menuitemcheckbox[name="{dict(SUMMARIES)[kind]}"]'), *_save_steps(truth, "Save & Run")]


TEMPLATES = [CreateReport(), CreateReportWithCrossFilter(), CreateReportChainFilters(), CreateSummaryReportWithChart(),
             CreateMatrixReport()]
