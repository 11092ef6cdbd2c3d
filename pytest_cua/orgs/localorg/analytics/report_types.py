"""The report types the org knows (``REPORT_TYPES``: columns and their types per type), the report formats,
filter operators, aggregates, chart and visualization types the Analytics API accepts, and ``bad_request``
(BAD_REQUEST naming the property)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from pytest_cua.orgs.localorg.errors import OrgError

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

FILTER_OPERATORS = {"string": list(OPERATORS)[:10], "picklist": ["equals", "notEqual", "lessThan", "greaterThan",
                                                            "lessOrEqual", "greaterOrEqual", "contains",
                                                            "notContain", "startsWith"],
               "boolean": ["equals", "notEqual"]}


def bad_request(message: str, *fields: str) -> OrgError:
    return OrgError("BAD_REQUEST", message, list(fields))


def report_type(name_or_label: Any) -> ReportType | None:
    """The report type of an API name (``LeadList``) or label (``Leads``)."""
    if not isinstance(name_or_label, str):
        return None
    found = REPORT_TYPES.get(name_or_label)
    return found or next((t for t in REPORT_TYPES.values() if t.label == name_or_label), None)
