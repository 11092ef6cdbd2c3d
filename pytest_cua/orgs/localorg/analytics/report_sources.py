"""Where a report type's columns come from: the objects whose records are its rows (``SOURCES``) and, for each
column, the field path on such a record (``Owner.Name`` through the relationship names of the org's schema) or a
value the org computes (an opportunity's Age, a case's Open, an activity's Company / Account); ``cell_value``
reads one column of one record."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any, Callable, Mapping

from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.values import parse_datetime, today

_COMMON = {"CREATED_DATE": "CreatedDate", "CREATED": "CreatedBy.Name", "LAST_UPDATE": "LastModifiedDate"}


@dataclass(frozen=True)
class Source:
    """The objects whose records a report type's rows are, and its columns' paths (``@name`` computed)."""

    objects: tuple[str, ...]
    paths: Mapping[str, str]


SOURCES: dict[str, Source] = {
    "AccountList": Source(("Account",), {
        "ACCOUNT.NAME": "Name", "USERS.NAME": "Owner.Name", "TYPE": "Type", "RATING": "Rating",
        "INDUSTRY": "Industry", "SALES": "AnnualRevenue", "SITE": "Site", "EMPLOYEES": "NumberOfEmployees",
        "PHONE1": "Phone", "ADDRESS1_STATE": "BillingState", "ADDRESS1_CITY": "BillingCity",
        "ADDRESS1_COUNTRY": "BillingCountry", "DUE_DATE": "@last_activity", "ACCOUNT_SOURCE": "AccountSource",
        **_COMMON}),
    "ContactList": Source(("Contact",), {
        "FIRST_NAME": "FirstName", "LAST_NAME": "LastName", "TITLE": "Title", "ACCOUNT.NAME": "Account.Name",
        "EMAIL": "Email", "PHONE1": "Phone", "CONTACT_SOURCE": "LeadSource", "DEPARTMENT": "Department",
        "USERS.NAME": "Owner.Name", **_COMMON}),
    "Opportunity": Source(("Opportunity",), {
        "OPPORTUNITY_NAME": "Name", "ACCOUNT_NAME": "Account.Name", "FULL_NAME": "Owner.Name",
        "ROLLUP_DESCRIPTION": "Owner.UserRole.Name", "STAGE_NAME": "StageName", "TYPE": "Type", "AMOUNT": "Amount",
        "EXP_AMOUNT": "ExpectedRevenue", "PROBABILITY": "Probability", "AGE": "@age", "CLOSE_DATE": "CloseDate",
        "CLOSE_MONTH": "CloseDate", "FISCAL_QUARTER": "@fiscal_period", "NEXT_STEP": "NextStep",
        "LEAD_SOURCE": "LeadSource", "FORECAST_CATEGORY": "ForecastCategoryName", "CLOSED": "IsClosed",
        "WON": "IsWon", **_COMMON}),
    "LeadList": Source(("Lead",), {
        "FIRST_NAME": "FirstName", "LAST_NAME": "LastName", "TITLE": "Title", "COMPANY": "Company", "EMAIL": "Email",
        "PHONE": "Phone", "STREET": "Street", "CITY": "City", "STATE": "State", "RATING": "Rating",
        "OWNER": "Owner.Name", "STATUS": "Status", "LEAD_SOURCE": "LeadSource", "INDUSTRY": "Industry",
        "CONVERTED": "IsConverted", **_COMMON}),
    "CaseList": Source(("Case",), {
        "CASE_NUMBER": "CaseNumber", "SUBJECT": "Subject", "STATUS": "Status", "PRIORITY": "Priority",
        "ORIGIN": "Origin", "TYPE": "Type", "REASON": "Reason", "OWNER": "Owner.Name", "ACCOUNT.NAME": "Account.Name",
        "NAME": "Contact.Name", "AGE": "@age", "OPEN": "@open", "CLOSED": "IsClosed", "ESCALATION_STATE": "IsEscalated",
        "CREATED_DATEONLY": "@created_day", "CLOSED_DATE": "ClosedDate", **_COMMON}),
    "Activity": Source(("Task", "Event"), {
        "SUBJECT": "Subject", "STATUS": "Status", "PRIORITY": "Priority", "DUE_DATE": "ActivityDate",
        "ASSIGNED": "Owner.Name", "TASK_TYPE": "Type", "COMPANY": "@company", "CONTACT": "Who.Name",
        "OPPORTUNITY": "@opportunity", "TASK": "@task", **_COMMON}),
    "ProductList": Source(("Product2",), {
        "NAME": "Name", "PRODUCT_CODE": "ProductCode", "DESCRIPTION": "Description", "FAMILY": "Family",
        "ACTIVE": "IsActive", **_COMMON}),
    "CampaignList": Source(("Campaign",), {
        "CAMPAIGN_NAME": "Name", "CAMPAIGN_STATUS": "Status", "CAMPAIGN_TYPE": "Type", "BUDGETED_COST": "BudgetedCost",
        "ACTUAL_COST": "ActualCost", "START_DATE": "StartDate", "END_DATE": "EndDate", "ACTIVE": "IsActive",
        "EXPECTED_REVENUE": "ExpectedRevenue", "OWNER_FULL_NAME": "Owner.Name", **_COMMON}),
}


@dataclass(frozen=True)
class Row:
    """One record a report reads: its object and a copy of its fields."""

    sobject: str
    record: Mapping[str, Any]


def follow(org: Org, row: Row, path: str) -> Any:
    """The value at ``path`` (``Owner.UserRole.Name``) from ``row``'s record, through the schema's relationship
    names; None where a field is empty or the schema has no such field."""
    sobject, record = row.sobject, row.record
    *hops, last = path.split(".")
    for hop in hops:
        ref = org.object(sobject).relationship(hop)
        target = record.get(ref.name) if ref is not None else None
        found = org.find_record(target) if isinstance(target, str) and target else None
        if found is None:
            return None
        sobject, record = found
    f = org.object(sobject).field(last)
    return record.get(f.name) if f is not None else None


def day_of(value: Any) -> date | None:
    """The day of a stored date or datetime, a ``date``, or a date typed as an en-US user does (``1/15/2024``);
    None for anything else."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    try:
        if re.fullmatch(r"\d{1,2}/\d{1,2}/\d{4}", text):
            month, day, year = (int(p) for p in text.split("/"))
            return date(year, month, day)
        return parse_datetime(text).date() if "T" in text else date.fromisoformat(text[:10])
    except ValueError:
        return None


def _age(org: Org, row: Row) -> Any:
    """Days from creation to closing (a closed record) or to today."""
    start = day_of(row.record.get("CreatedDate"))
    if start is None:
        return None
    closed = row.record.get("IsClosed")
    end = day_of(row.record.get("ClosedDate") or row.record.get("CloseDate")) if closed else None
    return max(((end or today()) - start).days, 0)


def _fiscal_period(org: Org, row: Row) -> Any:
    """``Q4-2026``: the fiscal quarter of the close date (the fiscal year of a new org is the calendar year)."""
    day = day_of(row.record.get("CloseDate"))
    return f"Q{(day.month - 1) // 3 + 1}-{day.year}" if day else None


def _company(org: Org, row: Row) -> Any:
    """An activity's account: its What when an account, else the What's or the Who's account."""
    what = row.record.get("WhatId")
    if isinstance(what, str) and what.startswith("001"):
        return follow(org, row, "What.Name")
    for path in ("What.AccountId", "Who.AccountId"):
        account = follow(org, row, path)
        if account:
            found = org.find_record(account)
            return found[1].get("Name") if found else None
    return None


def _opportunity(org: Org, row: Row) -> Any:
    what = row.record.get("WhatId")
    return follow(org, row, "What.Name") if isinstance(what, str) and what.startswith("006") else None


def _last_activity(org: Org, row: Row) -> Any:
    """An account's latest activity date among the tasks and events on it."""
    rid = row.record.get("Id")
    days = [str(r["ActivityDate"]) for sobject in ("Task", "Event") if sobject in org.schema
            for r in org.find(sobject, WhatId=rid) if r.get("ActivityDate")]
    return max(days) if days else None


COMPUTED: dict[str, Callable[[Org, Row], Any]] = {
    "age": _age, "fiscal_period": _fiscal_period, "company": _company, "opportunity": _opportunity,
    "last_activity": _last_activity,
    "open": lambda org, row: not row.record.get("IsClosed"),
    "task": lambda org, row: row.sobject == "Task",
    "created_day": lambda org, row: str(row.record.get("CreatedDate") or "")[:10] or None,
}


def cell_value(org: Org, report_type: str, row: Row, column: str) -> Any:
    """The stored value of ``column`` for ``row`` (a date as ``YYYY-MM-DD``, a datetime as stored)."""
    path = SOURCES[report_type].paths.get(column)
    if path is None:
        return None
    if path.startswith("@"):
        return COMPUTED[path[1:]](org, row)
    return follow(org, row, path)


def picklist_order(org: Org, report_type: str, column: str) -> list[str] | None:
    """The values of the picklist field a column reads, in the field's order (a report's groups of a picklist
    follow it), or None when the column is not a field of the source object."""
    source = SOURCES[report_type]
    path = source.paths.get(column) or "@"
    f = org.object(source.objects[0]).field(path) if "." not in path and not path.startswith("@") else None
    return list(f.values) if f is not None and f.values else None


def rows_of(org: Org, report_type: str) -> list[Row]:
    """Every record a report of the type reads (the source objects the org has)."""
    return [Row(sobject, record) for sobject in SOURCES[report_type].objects if sobject in org.schema
            for record in org.records(sobject)]
