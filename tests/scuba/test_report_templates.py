"""The report and dashboard templates (SCUBA's create_report, create_report_with_cross_filter,
create_report_chain_filters, create_summary_report_with_chart, create_matrix_report, create_dashboard) against a
real embedded org over HTTPS: the oracle's end state scores 1, the seed what SCUBA's weights give it (0: no
report or dashboard of the name), a partial end state SCUBA's fraction; the milestones recorded are the
template's ``weights(truth)``, in order, summing to 1."""

from __future__ import annotations

import json
from typing import Any, Mapping

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.tasks.scoring import ScoreCard

from .org_harness import TEMPLATES, evaluate_truth, task_of

# ground truths of release tasks (data/test_zero_shot.json)
REPORT = {"object_name": "Accounts", "report_name": "ActiveAccountsRPT", "filter_type": "standard filter",
          "filters": [["INDUSTRY", "equals", "Technology"], ["SALES", "greaterThan", "\"1,000,000\""]],
          "field_name": "INDUSTRY, SALES"}  # admin_001_003
CROSS = {"object_name": "Leads", "report_name": "QualifiedLeadsRPT", "cross_object_name": "Activity",
         "filters": [["Status", "equals", "Completed"], ["Subject", "contains", "Demo"]]}  # admin_002_002
CHAIN = {"object_name": "Opportunities", "report_name": "ClosedOldBusinessOpportunitiesRPT",
         "field1": "STAGE_NAME", "operator1": "equals", "value1": "Closed Won", "field2": "STAGE_NAME",
         "operator2": "equals", "value2": "Closed Lost", "field3": "AMOUNT", "operator3": "greaterThan",
         "value3": "\"5,000\"", "field4": "TYPE", "operator4": "equals", "value4": "New Customer"}  # admin_003_002
SUMMARY = {"object_name": "Contacts & Accounts", "report_name": "ContactSourceRPT", "grouping_field": "CONTACT_SOURCE",
           "chart_type": "Scatter", "chart_title": "Contacts by Source"}  # admin_004_005
MATRIX = {"object_name": "Campaigns", "report_name": "CampaignMatrixStatusType", "field_name": "m!BUDGETED_COST",
          "operation": "Smallest", "row_group_field": "CAMPAIGN_STATUS", "column_group_field": "CAMPAIGN_TYPE"}
DASHBOARD = {"dashboard_name": "Big Deals", "object_name": "Opportunities", "report_name": "Required_Opportunities_Report",
             "group_field": "STAGE_NAME", "chart_type": "FlexTable", "chart_title": "Opportunities in Stages"}


def _score(env: SalesforceEnvironment, template: str, truth: Mapping[str, Any]) -> ScoreCard:
    card = evaluate_truth(env, template, truth)
    assert sum((TEMPLATES[template].milestones or {}).values()) == pytest.approx(1)
    return card


def _check(env: SalesforceEnvironment, template: str, truth: Mapping[str, Any]) -> None:
    """The seed scores 0; the oracle scores 1 and stays inside the template's rollback scope."""
    assert _score(env, template, truth).score == 0
    snap = env.snapshot()
    TEMPLATES[template].solve(task_of(template, truth), env)
    card = _score(env, template, truth)
    assert card.score == 1, card.table()
    env.restore(snap, scope=list(TEMPLATES[template].objects))
    assert env.residue(snap) == [], "the solver changed objects outside the template's rollback scope"


def _report(env: SalesforceEnvironment, **metadata: Any) -> str:
    saved = env.org.restful("analytics/reports", method="POST", data=json.dumps({"reportMetadata": metadata}))
    return str(saved["reportMetadata"]["id"])


@pytest.mark.parametrize("template, truth", [
    ("create_report", REPORT), ("create_report_with_cross_filter", CROSS), ("create_report_chain_filters", CHAIN),
    ("create_summary_report_with_chart", SUMMARY), ("create_matrix_report", MATRIX), ("create_dashboard", DASHBOARD)])
def test_oracle_scores_one_and_the_seed_zero(env: SalesforceEnvironment, template: str,
                                             truth: Mapping[str, Any]) -> None:
    _check(env, template, truth)


def test_create_report_weights_split_over_filters_and_fields() -> None:
    weights = TEMPLATES["create_report"].weights(REPORT)  # type: ignore[attr-defined]
    assert list(weights.values()) == pytest.approx([0.2, 0.2, 0.2, 0.2, 0.1, 0.1])


def test_create_report_partial(env: SalesforceEnvironment) -> None:
    # the right type, one of two filters, one of two fields (named in another case: still the column)
    _report(env, name="ActiveAccountsRPT", reportType={"type": "AccountList"}, detailColumns=["INDUSTRY"],
            reportFilters=[{"column": "INDUSTRY", "operator": "equals", "value": "Technology"},
                           {"column": "SALES", "operator": "greaterThan", "value": "1000000"}])  # value unquoted
    assert _score(env, "create_report", REPORT).score == pytest.approx(0.2 + 0.2 + 0.2 + 0.1)
    amount = {"object_name": "Opportunities", "report_name": "HighValueDealsRPT", "filter_type": "standard filter",
              "filters": [["AMOUNT", "greaterThan", "\"100,000\""]], "field_name": "Amount"}  # admin_001_002
    _report(env, name="HighValueDealsRPT", reportType={"type": "Opportunity"}, detailColumns=["AMOUNT"])
    assert _score(env, "create_report", amount).score == pytest.approx(0.6)


def test_the_first_report_of_the_name_is_judged(env: SalesforceEnvironment) -> None:
    _report(env, name="ActiveAccountsRPT", reportType={"type": "LeadList"})
    TEMPLATES["create_report"].solve(task_of("create_report", REPORT), env)
    assert _score(env, "create_report", REPORT).score == pytest.approx(0.2)  # SCUBA's records[0]


def test_cross_filter_partial(env: SalesforceEnvironment) -> None:
    _report(env, name="QualifiedLeadsRPT", reportType={"type": "LeadList"}, crossFilters=[
        {"relatedEntity": "Activity", "criteria": [{"column": "Status", "operator": "equals", "value": "Completed"}]}])
    assert _score(env, "create_report_with_cross_filter", CROSS).score == pytest.approx(0.2 + 0.2 + 0.3 + 0.15)


def test_two_cross_filters_on_the_object_fail_the_cross_filter_and_its_criteria(env: SalesforceEnvironment) -> None:
    criteria = [{"column": "Status", "operator": "equals", "value": "Completed"},
                {"column": "Subject", "operator": "contains", "value": "Demo"}]
    _report(env, name="QualifiedLeadsRPT", reportType={"type": "LeadList"}, crossFilters=[
        {"relatedEntity": "Activity", "criteria": criteria}, {"relatedEntity": "Activity", "criteria": criteria}])
    assert _score(env, "create_report_with_cross_filter", CROSS).score == pytest.approx(0.4)


def test_chain_filters_partial(env: SalesforceEnvironment) -> None:
    # filters 1 and 3 in place, 2 and 4 swapped; logic without the NOT
    filters = [("STAGE_NAME", "equals", "Closed Won"), ("TYPE", "equals", "New Customer"),
               ("AMOUNT", "greaterThan", "\"5,000\""), ("STAGE_NAME", "equals", "Closed Lost")]
    _report(env, name=CHAIN["report_name"], reportType={"type": "Opportunity"},
            reportFilters=[{"column": c, "operator": o, "value": v} for c, o, v in filters],
            reportBooleanFilter="(1 OR 2) AND 3 AND 4")
    assert _score(env, "create_report_chain_filters", CHAIN).score == pytest.approx(0.2 + 0.2 + 0.1 + 0.1)


def test_summary_partial(env: SalesforceEnvironment) -> None:
    _report(env, name="ContactSourceRPT", reportType={"type": "ContactList"}, reportFormat="SUMMARY",
            groupingsDown=[{"name": "CONTACT_SOURCE"}], chart={"chartType": "Donut", "title": "Contacts by Source"})
    assert _score(env, "create_summary_report_with_chart", SUMMARY).score == pytest.approx(0.8)
    # two groupings: not SCUBA's one grouping
    env.org.restful("analytics/reports/" + env.org.query("SELECT Id FROM Report WHERE Name = 'ContactSourceRPT'")
                    ["records"][0]["Id"], method="PATCH", data=json.dumps({"reportMetadata": {
                        "groupingsDown": [{"name": "CONTACT_SOURCE"}, {"name": "TITLE"}]}}))
    assert _score(env, "create_summary_report_with_chart", SUMMARY).score == pytest.approx(0.6)


def test_matrix_partial(env: SalesforceEnvironment) -> None:
    # groupings swapped, the budgeted cost summed instead of its minimum
    _report(env, name=MATRIX["report_name"], reportType={"type": "CampaignList"}, reportFormat="MATRIX",
            groupingsDown=[{"name": "CAMPAIGN_TYPE"}], groupingsAcross=[{"name": "CAMPAIGN_STATUS"}],
            aggregates=["s!BUDGETED_COST"])
    assert _score(env, "create_matrix_report", MATRIX).score == pytest.approx(0.4)
    summed = {**MATRIX, "field_name": "s!BUDGETED_COST"}
    assert _score(env, "create_matrix_report", summed).score == pytest.approx(0.4 + 0.1)


def test_dashboard_partial(env: SalesforceEnvironment) -> None:
    other = env.org.query("SELECT Id FROM Report WHERE Name = 'Required Products'")["records"][0]["Id"]
    env.org.restful("analytics/dashboards", method="POST", data=json.dumps({"dashboardMetadata": {
        "name": "Big Deals", "components": [{"reportId": other, "header": "Opportunities in Stages",
                                             "properties": {"visualizationType": "Table"}}]}}))
    assert _score(env, "create_dashboard", DASHBOARD).score == pytest.approx(0.2 + 0.3)


def test_dashboard_oracle_creates_a_missing_report(env: SalesforceEnvironment) -> None:
    truth = {**DASHBOARD, "report_name": "Deals by Stage", "dashboard_name": "Deal Board"}
    _check(env, "create_dashboard", truth)


def test_a_malformed_ground_truth_is_an_evaluator_error(env: SalesforceEnvironment) -> None:
    with pytest.raises(ValueError, match="'filters'"):
        TEMPLATES["create_report"].weights({**REPORT, "filters": "INDUSTRY equals Technology"})  # type: ignore[attr-defined]
