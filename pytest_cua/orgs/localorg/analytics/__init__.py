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
- ``GET analytics/reports/<id>[?includeDetails=true]``: run the report (Execute Sync: ``factMap``,
  ``groupingsDown``, ``groupingsAcross``, the detail rows with includeDetails); ``POST`` with
  ``{"reportMetadata": {...}}``: run it with those properties over its definition, unsaved;
  ``POST analytics/reports/query``: run a definition that is not saved.
- ``POST analytics/reports/<id>/instances[?includeDetails=true]`` (optionally ``{"reportMetadata": {...}}``): run
  the report as an instance (Execute Async, ``analytics/instances.py``); ``GET`` lists its instances;
  ``GET analytics/reports/<id>/instances/<iid>``: the instance's results; ``DELETE``: forget it.
- ``GET  analytics/dashboards``: recent dashboards; ``POST analytics/dashboards?cloneId=<id>``: a copy.
  ``POST analytics/dashboards`` with ``{"dashboardMetadata": {...}}`` creates a new dashboard: the embedded org's
  own addition (Salesforce creates dashboards in the UI or through the Metadata API only).
- ``GET  analytics/dashboards/<id>/describe``: the dashboard's metadata (components with header, reportId and
  properties.visualizationType, layout, running user); ``GET analytics/dashboards/<id>``: results (component
  data without report results); ``PATCH`` with ``{"dashboardMetadata": {...}}``: save; ``DELETE``: delete.

Columns, filters, groupings and aggregates are checked against the report type's columns; a report type, column,
operator, chart type or visualization type the org does not know is BAD_REQUEST naming it.

Modules: ``report_types`` (the report types, formats, operators, chart and visualization types), ``reports``
(report definitions on Report records), ``report_sources`` (the records and fields a report type's columns
read), ``report_run`` (running a report), ``dashboards`` (dashboards on Dashboard records), ``routes`` (the REST
routes and ``register(app)``). The names other code uses are re-exported here.

May import: ``app`` (the routes only), ``store``, ``errors``, ``values``, ``soql`` (its date literals) and
werkzeug; within the package each module imports only those before it (report_types < reports < report_sources <
report_run < dashboards < routes).
"""

from __future__ import annotations

from pytest_cua.orgs.localorg.analytics.dashboards import (
    component_runs,
    create_dashboard,
    describe_dashboard,
    save_dashboard,
)
from pytest_cua.orgs.localorg.analytics.report_run import aggregate_label, name_column, run_report
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
    VISUALIZATIONS,
    ReportType,
    report_type,
)
from pytest_cua.orgs.localorg.analytics.reports import (
    create_report,
    definition,
    describe_report,
    filter_logic_numbers,
    save_report,
)
from pytest_cua.orgs.localorg.analytics.routes import register

__all__ = [
    "AGGREGATES", "aggregate_label", "name_column", "run_report", "CHART_TYPES", "DATE_GRANULARITIES", "FILTER_OPERATORS", "FORMATS", "OPERATORS", "PRIVATE_FOLDER", "PUBLIC_FOLDER",
    "REPORT_TYPES", "VISUALIZATIONS", "ReportType", "create_dashboard", "create_report", "definition",
    "component_runs", "describe_dashboard", "describe_report", "filter_logic_numbers", "register", "report_type", "save_dashboard",
    "save_report",
]
