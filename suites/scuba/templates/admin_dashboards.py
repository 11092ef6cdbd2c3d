"""Admin persona: a dashboard with a chart widget on a report (SCUBA's ``create_dashboard``).

Ground truth: ``dashboard_name``, ``report_name``, ``object_name`` and ``group_field`` (what the report is, should
it have to be created), ``chart_type`` (the widget's ``visualizationType``: ``FlexTable``, ``Donut``, ``Bar``,
``Column``, ``Line``) and ``chart_title``. SCUBA reads the first Dashboard titled ``dashboard_name``
(``analytics/dashboards/<id>/describe``) and checks its first component, with its weights: the dashboard exists
(0.2), the component's ``reportId`` is the first report named ``report_name`` (0.2), its
``properties.visualizationType`` is ``chart_type`` (0.3) and its ``header`` is ``chart_title`` (0.3).

The release's reports (``Required_Opportunities_Report``, ...) are SCUBA prerequisites, in the org's seed. The
oracle creates the report only when it is missing (a summary report grouped by ``group_field``), then the
dashboard through the Analytics REST API (``POST analytics/dashboards`` with ``dashboardMetadata``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from pytest_cua import EvalContext, milestone
from pytest_cua.actions import Action, Check, Done, Fill, SelectOption

from .admin_reports import field_label, find_report, report_type_of, save_report, truth_text
from . import shared as s
from .common import first, soql_str

if TYPE_CHECKING:
    from pytest_cua import Environment, Task


class CreateDashboard(s.ScubaTemplate):
    """A dashboard whose first widget charts the report with the chart type and title."""

    name = "create_dashboard"
    ground_truth_keys = ("chart_title", "chart_type", "dashboard_name", "group_field", "object_name", "report_name")
    objects = ("Dashboard", "Report")
    milestones = {"dashboard exists": 0.2, "widget report": 0.2, "chart type": 0.3, "chart title": 0.3}

    def check(self, ctx: EvalContext) -> None:
        sf, truth = ctx.env.org, ctx.truth
        title, report_name = truth_text(truth, "dashboard_name"), truth_text(truth, "report_name")
        found = first(sf, f"SELECT Id FROM Dashboard WHERE Title = {soql_str(title)} ORDER BY CreatedDate, Id")
        described = sf.restful(f"analytics/dashboards/{found['Id']}/describe") if found else None
        components = (described or {}).get("components") or []
        widget: dict[str, Any] = components[0] if components else {}
        report = find_report(sf, report_name)
        if s.exact():  # SCUBA compares with the report's records[0]: IndexError without the report
            s.crash_unless(report is not None, f"no report named {report_name!r} (SCUBA: IndexError)")
        with milestone("dashboard exists"):
            assert described, f"no dashboard titled {title!r}"
        with milestone("widget report"):
            assert widget, f"no dashboard titled {title!r}" if not described else "the dashboard has no widget"
            assert report is not None, f"no report named {report_name!r}"
            assert widget.get("reportId") == report["Id"], \
                f"the first widget shows the report {widget.get('reportId')!r}, not {report_name!r} ({report['Id']})"
        with milestone("chart type"):
            wanted = truth_text(truth, "chart_type")
            observed = (widget.get("properties") or {}).get("visualizationType")
            assert observed == wanted, f"the first widget's chart type is {observed!r}, not {wanted!r}"
        with milestone("chart title"):
            wanted = truth_text(truth, "chart_title")
            assert widget.get("header") == wanted, f"the first widget's title is {widget.get('header')!r}, not {wanted!r}"

    def solve(self, task: "Task", env: "Environment") -> None:
        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        report = find_report(sf, truth_text(truth, "report_name"))
        if report is not None:
            report_id = str(report["Id"])
        else:
            group = truth_text(truth, "group_field")
            report_id = save_report(sf, {
                "name": truth_text(truth, "report_name"), "reportFormat": "SUMMARY",
                "reportType": {"type": report_type_of(sf, truth_text(truth, "object_name"))},
                "groupingsDown": [{"name": group, "sortOrder": "Asc", "dateGranularity": "None"}]})
        sf.restful("analytics/dashboards", method="POST", data=json.dumps({"dashboardMetadata": {
            "name": truth_text(truth, "dashboard_name"),
            "components": [{"type": "Report", "reportId": report_id, "header": truth_text(truth, "chart_title"),
                            "properties": {"visualizationType": truth_text(truth, "chart_type")}}]}}))

    def demonstrate(self, task: "Task", env: "Environment") -> Sequence[Action]:
        """Dashboards tab > New Dashboard: the name, Create; in the builder "+ Component": the report in the Select
        Report dialog (Search Reports..., its radio, Select), then the Add Component dialog's Display As and Title,
        Add; Save. A report the org lacks is built first (New Report, Group Rows by the field, Save)."""
        from pytest_cua.orgs.localorg.ui.routes_dashboards import DISPLAY_AS

        sf, truth = env.org, task.ground_truth  # type: ignore[attr-defined]
        name = truth_text(truth, "report_name")
        steps: list[Action] = []
        if find_report(sf, name) is None:
            label = truth_text(truth, "object_name")
            group = field_label(truth, truth_text(truth, "group_field"))
            steps += [s.goto(env, "/lightning/o/Report/new"), Check(f'role=radio[name="{label}"]'),
                      s.click_button("Start Report"), SelectOption('role=combobox[name="Group Rows"]', group),
                      s.click_button("Save"), Fill("label=Report Name", name),
                      SelectOption("label=Folder", "Public Reports"), s.click_button("Save")]
        vis = truth_text(truth, "chart_type")
        return [*steps, s.goto(env, "/lightning/page/home"), s.click_link("Dashboards"),
                s.click_button("New Dashboard"), Fill("label=Name", truth_text(truth, "dashboard_name")),
                s.click_button("Create"), s.click_button("Component"), Fill("label=Search Reports...", name),
                Check(f'role=radio[name="{name}"]'), s.click_button("Select"),
                s.click_button(DISPLAY_AS.get(vis, vis)), Fill("label=Title", truth_text(truth, "chart_title")),
                s.click_button("Add"), s.click_button("Save"), Done()]


TEMPLATES = [CreateDashboard()]
