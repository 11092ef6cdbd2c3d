"""The SCUBA templates added for the release's missing templates (account hierarchy, case context, milestones,
permission set groups, list view charts), against a real embedded org over HTTPS.

Each is scored with SCUBA's milestones and weights: a correct end state (the oracle's) scores 1, the seed
scores what SCUBA's weights give it, a partial end state the expected fraction; the milestones recorded are
the template's ``weights(truth)``, declared before any is recorded (``ScubaTemplate``), in order, and sum to 1.
"""

from __future__ import annotations

from typing import Any, Mapping

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from suites.scuba.templates.common import first, soql_str

from .org_harness import TEMPLATES, evaluate_truth, task_of


def _check(env: SalesforceEnvironment, template: str, truth: Mapping[str, Any], seed: float = 0.0) -> None:
    """The seed scores ``seed``, the oracle scores 1 and stays inside the template's rollback scope, and the
    demonstration ends with a terminal action."""
    assert evaluate_truth(env, template, truth).score == pytest.approx(seed)
    task = task_of(template, truth)
    snap = env.snapshot()
    TEMPLATES[template].solve(task, env)
    card = evaluate_truth(env, template, truth)
    assert card.score == 1, card.table()
    env.restore(snap, scope=list(TEMPLATES[template].objects))
    assert env.residue(snap) == [], "the solver changed objects outside the template's rollback scope"
    actions = TEMPLATES[template].demonstrate(task, env)
    assert actions and actions[-1].terminal


def _id(sf: Any, soql: str) -> str:
    rec = first(sf, soql)
    assert rec is not None, soql
    return str(rec["Id"])


# -- create_account_hierarchy ----------------------------------------------------------------------------

HIERARCHY = {"hierarchies": {"Nordwind Holding - HQ": ["Nordwind Oslo - Norway", "Nordwind Riga - Latvia"],
                             "Solvik Group - Global": []}}


def test_account_hierarchy_oracle_scores_one(env: SalesforceEnvironment) -> None:
    _check(env, "create_account_hierarchy", HIERARCHY)


def test_account_hierarchy_weights_are_scubas_equal_shares() -> None:
    weights = TEMPLATES["create_account_hierarchy"].weights(HIERARCHY)  # type: ignore[attr-defined]
    assert len(weights) == 2 + 2 * 2 and all(w == pytest.approx(1 / 6) for w in weights.values())


def test_account_hierarchy_partial(env: SalesforceEnvironment) -> None:
    sf = env.org
    hq = sf.Account.create({"Name": "Nordwind Holding \u2013 HQ"})["id"]  # an en dash counts as a hyphen
    sf.Account.create({"Name": "Nordwind Oslo - Norway", "ParentId": hq})
    sf.Account.create({"Name": "Nordwind Riga - Latvia"})  # not linked
    # parent, Oslo and its link, Riga without its link; Solvik missing: 4 of 6
    assert evaluate_truth(env, "create_account_hierarchy", HIERARCHY).score == pytest.approx(4 / 6)


def test_account_hierarchy_links_to_the_first_parent_of_the_name(env: SalesforceEnvironment) -> None:
    sf = env.org
    sf.Account.create({"Name": "Solvik Group - Global"})
    other = sf.Account.create({"Name": "Nordwind Holding - HQ"})["id"]
    sf.Account.create({"Name": "Nordwind Holding - HQ"})
    truth = {"hierarchies": {"Nordwind Holding - HQ": ["Nordwind Oslo - Norway"]}}
    sf.Account.create({"Name": "Nordwind Oslo - Norway", "ParentId": other})
    assert evaluate_truth(env, "create_account_hierarchy", truth).score == 1


def test_account_hierarchy_bad_ground_truth_is_an_error(env: SalesforceEnvironment) -> None:
    with pytest.raises(ValueError, match="'hierarchies'"):
        evaluate_truth(env, "create_account_hierarchy", {"hierarchies": {"A": "B"}})


# -- create_case_context_setup ---------------------------------------------------------------------------

CASE = {"contact_name": "Ines Carvalho", "case_status": "Escalated", "case_origin": "Phone", "priority": "High",
        "case_type": "Mechanical", "case_reasoning": "Equipment Design", "subject": "Pump housing cracked"}


def test_case_context_oracle_scores_one(env: SalesforceEnvironment) -> None:
    _check(env, "create_case_context_setup", CASE)


def test_case_context_partial(env: SalesforceEnvironment) -> None:
    sf = env.org
    sf.Case.create({"Subject": CASE["subject"], "Status": "Escalated", "Origin": "Phone", "Priority": "High",
                    "Type": "Electrical"})  # wrong type, no reason, no contact
    assert evaluate_truth(env, "create_case_context_setup", CASE).score == pytest.approx(0.55)


def test_case_context_case_is_found_by_subject_status_and_origin(env: SalesforceEnvironment) -> None:
    sf = env.org
    contact = _id(sf, f"SELECT Id FROM Contact WHERE Name = {soql_str(CASE['contact_name'])}")
    sf.Case.create({"Subject": CASE["subject"], "Status": "Escalated", "Origin": "Web", "Priority": "High",
                    "Type": "Mechanical", "Reason": "Equipment Design", "ContactId": contact})
    assert evaluate_truth(env, "create_case_context_setup", CASE).score == 0  # the origin differs: no case found


# -- create_milestone ------------------------------------------------------------------------------------

MILESTONES = {"milestone_count": 3, "milestone_name_type_list": [["triage", "none"], ["diagnosis", "recursChained"],
                                                                  ["fix", "recursIndependently"]]}


def test_milestone_oracle_scores_one(env: SalesforceEnvironment) -> None:
    _check(env, "create_milestone", MILESTONES)


def test_milestone_partial(env: SalesforceEnvironment) -> None:
    env.org.MilestoneType.create({"Name": "triage", "RecurrenceType": "none"})
    env.org.MilestoneType.create({"Name": "diagnosis", "RecurrenceType": "none"})  # wrong recurrence
    assert evaluate_truth(env, "create_milestone", MILESTONES).score == pytest.approx(1 / 3)


def test_milestone_scores_nothing_below_the_count(env: SalesforceEnvironment) -> None:
    truth = {"milestone_count": 4, "milestone_name_type_list": [["a", "none"], ["b", "none"], ["c", "none"],
                                                               ["triage", "none"]]}
    env.org.MilestoneType.create({"Name": "triage", "RecurrenceType": "none"})
    assert len(env.org.query("SELECT Id FROM MilestoneType")["records"]) == 3  # two in the seed
    card = evaluate_truth(env, "create_milestone", truth)
    assert card.score == 0 and "fewer than the 4" in card.results[-1].detail


def test_milestone_seed_scores_its_own_milestones(env: SalesforceEnvironment) -> None:
    truth = {"milestone_count": 2, "milestone_name_type_list": [["First Response", "none"], ["resolution", "none"]]}
    assert evaluate_truth(env, "create_milestone", truth).score == pytest.approx(0.5)  # names are compared exactly


def test_milestone_count_must_match_the_list(env: SalesforceEnvironment) -> None:
    with pytest.raises(ValueError, match="milestone_count"):
        evaluate_truth(env, "create_milestone", {"milestone_count": 2, "milestone_name_type_list": [["a", "none"]]})


# -- permission set groups --------------------------------------------------------------------------------

ACCESS = {"label_name": "Store Admin", "access_set_name": "Merchandiser"}
ASSIGN = {"group_name": "ServiceOps", "comma_separated_permissions_list": "CRM User, Service Cloud User",
          "username": "Mirela Vance"}


def _group(sf: Any, label: str, sets: list[str]) -> str:
    gid = str(sf.PermissionSetGroup.create({"MasterLabel": label, "DeveloperName": label.replace(" ", "_")})["id"])
    for s in sets:
        sf.PermissionSetGroupComponent.create(
            {"PermissionSetGroupId": gid, "PermissionSetId": _id(sf, f"SELECT Id FROM PermissionSet WHERE Label = "
                                                                     f"{soql_str(s)}")})
    return gid


def test_permset_group_access_set_oracle_scores_one(env: SalesforceEnvironment) -> None:
    _check(env, "create_permset_group_access_set", ACCESS)


def test_permset_group_access_set_partial(env: SalesforceEnvironment) -> None:
    _group(env.org, "store admin", ["Merchandiser", "Buyer"])  # found case-insensitively, one set too many
    assert evaluate_truth(env, "create_permset_group_access_set", ACCESS).score == pytest.approx(0.25)


def test_permset_group_assign_user_oracle_scores_one(env: SalesforceEnvironment) -> None:
    _check(env, "create_permset_group_assign_user", ASSIGN)


def test_permset_group_assign_user_partial(env: SalesforceEnvironment) -> None:
    sf = env.org
    gid = _group(sf, "ServiceOps", ["CRM User", "Service Cloud User"])
    for name in ("Mirela Vance", "Tobias Lindqvist"):
        first_name, last = name.split()
        user = _id(sf, f"SELECT Id FROM User WHERE FirstName = {soql_str(first_name)} AND LastName = {soql_str(last)}")
        sf.PermissionSetAssignment.create({"AssigneeId": user, "PermissionSetGroupId": gid})
    assert evaluate_truth(env, "create_permset_group_assign_user", ASSIGN).score == pytest.approx(0.7)  # two users


def test_permset_group_assign_user_wrong_sets(env: SalesforceEnvironment) -> None:
    sf = env.org
    gid = _group(sf, "ServiceOps", ["CRM User"])
    user = _id(sf, "SELECT Id FROM User WHERE FirstName = 'Mirela' AND LastName = 'Vance'")
    sf.PermissionSetAssignment.create({"AssigneeId": user, "PermissionSetGroupId": gid})
    assert evaluate_truth(env, "create_permset_group_assign_user", ASSIGN).score == pytest.approx(0.6)


def test_permset_group_user_without_first_name(env: SalesforceEnvironment) -> None:
    sf = env.org
    profile = _id(sf, "SELECT Id FROM Profile LIMIT 1")
    sf.User.create({"LastName": "Auditor", "Username": "auditor@new-templates.test", "Email": "a@new-templates.test",
                    "Alias": "audit", "ProfileId": profile})
    truth = {**ASSIGN, "username": "Auditor"}
    TEMPLATES["create_permset_group_assign_user"].solve(task_of("create_permset_group_assign_user", truth), env)
    assert evaluate_truth(env, "create_permset_group_assign_user", truth).score == 1


# -- create_chart_for_list_view ---------------------------------------------------------------------------

CHART = {"object_name": "Opportunity", "chart_name": "Pipeline by Account", "list_name": "All Opportunities",
         "aggregate_field": "Opportunity.Amount", "aggregate_type": "Sum", "grouping_field": "Opportunity.AccountId",
         "chart_type": "pie"}


def _chart(sf: Any, **fields: Any) -> None:
    sf.ListViewChart.create({"MasterLabel": CHART["chart_name"], "DeveloperName": "Pipeline_by_Account",
                             "SobjectType": "Opportunity", "ChartType": "pie", "AggregateType": "Sum",
                             "AggregateField": "Opportunity.Amount", "GroupingField": "Opportunity.AccountId",
                             **fields})


def test_chart_oracle_scores_one(env: SalesforceEnvironment) -> None:
    task = task_of("create_chart_for_list_view", CHART)
    assert evaluate_truth(env, "create_chart_for_list_view", CHART).score == 0
    TEMPLATES["create_chart_for_list_view"].solve(task, env)
    assert evaluate_truth(env, "create_chart_for_list_view", CHART).score == 1


def test_chart_partial(env: SalesforceEnvironment) -> None:
    _chart(env.org, ChartType="vbar", GroupingField="Opportunity.StageName")
    assert evaluate_truth(env, "create_chart_for_list_view", CHART).score == pytest.approx(0.7)


def test_chart_is_offered_only_on_list_views_of_its_object(env: SalesforceEnvironment) -> None:
    _chart(env.org, SobjectType="Account")
    card = evaluate_truth(env, "create_chart_for_list_view", CHART)
    assert card.score == pytest.approx(0.8)
    assert not next(r for r in card.results if r.name == "chart on the list view").passed
    card = evaluate_truth(env, "create_chart_for_list_view", {**CHART, "list_name": "All Accounts"})
    detail = next(r for r in card.results if r.name == "chart on the list view").detail
    assert "the charts of 'Opportunity' offered on 'All Accounts' are []" in detail, detail
