"""Admin persona: a chart for a list view (SCUBA's ``create_chart_for_list_view``).

Ground truth: ``object_name``, ``chart_name``, ``list_name``, ``chart_type`` (``hbar``, ``vbar``, ``pie``),
``aggregate_type`` (``Count``, ``Sum``, ``Avg``, ...), ``aggregate_field`` and ``grouping_field``
(``Opportunity.Amount``, ``Opportunity.AccountId``). SCUBA reads the first ListViewChart labelled
``chart_name`` and compares its fields exactly (type 0.2, aggregation type 0.2, grouping field 0.1,
aggregate field 0.1; existence 0.2), and asks ``ListViewChartInstance`` whether a chart of that label is
offered on the first list view named ``list_name`` for the object (0.2), as this template does.

A ListViewChartInstance is Salesforce's view of the charts of an object as offered on one of its list
views: every chart of the object, on each of its list views (the org keeps those records; a restore of the
chart's scope takes them back too).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Click, Done, Fill, SelectOption

from . import shared as s
from .shared import ScubaTemplate, checked_rows
from .common import soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task

# milestone -> (ListViewChart field, ground-truth key) of the checks on the chart found
_CHECKS = {"chart type": ("ChartType", "chart_type"), "aggregation type": ("AggregateType", "aggregate_type"),
           "grouping field": ("GroupingField", "grouping_field"),
           "aggregate field": ("AggregateField", "aggregate_field")}


class CreateChartForListView(ScubaTemplate):
    """A list view chart of the object with its type, aggregation and grouping, offered on the list view."""

    name = "create_chart_for_list_view"
    ground_truth_keys = ("aggregate_field", "aggregate_type", "chart_name", "chart_type", "grouping_field",
                         "list_name", "object_name")
    objects = ("ListViewChart", "ListViewChartInstance")
    milestones = {"chart exists": 0.2, "chart on the list view": 0.2, "chart type": 0.2, "aggregation type": 0.2,
                  "grouping field": 0.1, "aggregate field": 0.1}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        label, obj, list_name = (str(truth.get(k, "")) for k in ("chart_name", "object_name", "list_name"))
        charts = checked_rows(sf, "SELECT Id, SobjectType, AggregateType, AggregateField, GroupingField, ChartType "
                                  f"FROM ListViewChart WHERE MasterLabel = {soql_str(label)} ORDER BY CreatedDate, Id")
        chart = charts[0] if charts else None
        with milestone("chart exists"):
            assert chart is not None, f"no list view chart labelled {label!r}"
        with milestone("chart on the list view"):
            views = checked_rows(sf, f"SELECT Id FROM ListView WHERE Name = {soql_str(list_name)} "
                                     "ORDER BY CreatedDate, Id")
            assert views, f"no list view named {list_name!r}"
            offered = [r.get("Label") for r in checked_rows(
                sf, f"SELECT Label FROM ListViewChartInstance WHERE ListViewContextId = {soql_str(views[0]['Id'])} "
                    f"AND SourceEntity = {soql_str(obj)}")]
            assert label in offered, f"the charts of {obj!r} offered on {list_name!r} are {offered}, not {label!r}"
        for name, (fld, key) in _CHECKS.items():
            with milestone(name):
                assert chart is not None, f"no list view chart labelled {label!r}"
                assert chart.get(fld) == truth.get(key), f"{fld} is {chart.get(fld)!r}, expected {truth.get(key)!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        truth = task.ground_truth
        label = str(truth["chart_name"])
        developer = re.sub(r"[^A-Za-z0-9]+", "_", label).strip("_")
        env.org.ListViewChart.create({  # type: ignore[attr-defined]
            "MasterLabel": label, "DeveloperName": developer, "SobjectType": truth["object_name"],
            "ChartType": truth["chart_type"], "AggregateType": truth["aggregate_type"],
            "AggregateField": truth["aggregate_field"], "GroupingField": truth["grouping_field"]})



    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """The object's list in the list view > Charts > Settings (the gear, menu "Chart Settings") > New Chart: name, chart type, aggregate type and field,
        grouping field, Save."""
        truth = task.ground_truth
        obj = str(truth["object_name"])
        view = checked_rows(env.org, "SELECT DeveloperName FROM ListView WHERE Name = "  # type: ignore[attr-defined]
                                     f"{soql_str(str(truth['list_name']))} ORDER BY CreatedDate, Id")
        path = f"/lightning/o/{obj}/list" + (f"?view={view[0]['DeveloperName']}" if view else "")
        return [s.goto(env, path), s.click_button("Charts"), s.click_button("Settings"),
                Click('role=menuitem[name="New Chart"]'),
                Fill("label=Chart Name", str(truth["chart_name"])),
                SelectOption("label=Chart Type", str(truth["chart_type"])),
                SelectOption("label=Aggregate Type", str(truth["aggregate_type"])),
                SelectOption("label=Aggregate Field", str(truth["aggregate_field"]).split(".", 1)[-1]),
                SelectOption("label=Grouping Field", str(truth["grouping_field"]).split(".", 1)[-1]),
                s.click_button("Save"), Done()]


TEMPLATES = [CreateChartForListView()]
