"""The service and admin templates of the SCUBA suite against a real embedded org over HTTPS.

For every task: the untouched seed scores below 1 and the oracle solver scores exactly 1 (and its work stays
inside the template's rollback scope). For every template: partial work earns partial credit, and ground
truths naming records that do not exist fail milestones with reasons instead of crashing the evaluator.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from pytest_cua.tasks.task import Task
from pytest_cua.tasks.scoring import WeightError
from suites.scuba.templates import shared as helpers
from suites.scuba.templates.common import first, soql_str

from .org_harness import TEMPLATES, check_partial_credit, check_seed_then_oracle, evaluate, load_tasks, task_of

MODULES = ("service_", "admin_")
TASKS: list[Task] = load_tasks(MODULES)
OURS = sorted({t.template for t in TASKS if t.template})


def test_every_template_has_five_tasks_over_the_difficulties() -> None:
    assert len(OURS) >= 12
    for name in OURS:
        mine = [t for t in TASKS if t.template == name]
        assert len(mine) >= 5, name
        assert {t.difficulty for t in mine} == {"easy", "medium", "hard"}, name
        assert all(t.id == f"{name}_{i}" for i, t in enumerate(mine, 1)), name
        template = TEMPLATES[name]
        assert template.has("evaluate") and template.has("solve") and template.has("demonstrate")
        assert all(abs(sum(template.weights(t.ground_truth).values()) - 1) < 1e-9  # type: ignore[attr-defined]
                   for t in mine)


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_seed_falls_short_and_oracle_scores_one(env: SalesforceEnvironment, task: Task) -> None:
    check_seed_then_oracle(env, task)


# -- partial credit ---------------------------------------------------------------------------------------

def _one(task_id: str) -> Task:
    return next(t for t in TASKS if t.id == task_id)


def _id(sf: Any, soql: str) -> str:
    rec = first(sf, soql)
    assert rec is not None, soql
    return str(rec["Id"])


def _escalate(sf: Any, t: Task) -> None:
    sf.Case.update(_id(sf, f"SELECT Id FROM Case WHERE Subject = {soql_str(t.ground_truth['case_subject'])}"),
                   {"Status": t.ground_truth["new_status"]})


def _queue(sf: Any, t: Task) -> None:
    sf.Group.create({"Name": "Cold Chain Support", "DeveloperName": t.ground_truth["queue_name"], "Type": "Queue",
                     "Email": t.ground_truth["email_address"]})


def _incident(sf: Any, t: Task) -> None:
    g = t.ground_truth
    sf.Incident.create({"Subject": g["incident_subject"], "Urgency": g["urgency"], "Impact": g["impact"],
                        "Priority": g["priority"]})


def _change(sf: Any, t: Task) -> None:
    g = t.ground_truth
    sf.ChangeRequest.create({"Subject": g["change_request_subject"], "Priority": g["change_request_priority"],
                             "Impact": g["change_request_impact"], "RiskLevel": g["change_request_risk_level"]})


def _article(sf: Any, t: Task) -> None:
    g = t.ground_truth
    sf.Knowledge__kav.create({"Title": g["article_title"], "UrlName": "partial", "Question__c": g["question_desc"],
                              "Answer__c": "Something else."})


def _entitlement(sf: Any, t: Task) -> None:
    g = t.ground_truth
    acc = _id(sf, f"SELECT Id FROM Account WHERE Name = {soql_str(g['account_name'])}")
    sf.Entitlement.create({"Name": g["entitlement_name"], "AccountId": acc, "Type": g["support_type"]})


def _user(sf: Any, t: Task) -> None:
    g = t.ground_truth
    first_name, last_name = g["user_name"].split(" ", 1)
    profile = _id(sf, f"SELECT Id FROM Profile WHERE Name = {soql_str(g['profile'])}")
    sf.User.create({"FirstName": first_name, "LastName": last_name, "Email": g["email"], "Username": g["username"],
                    "ProfileId": profile})


def _deactivate_instead(sf: Any, t: Task) -> None:
    user = helpers.user_by_name(sf, t.ground_truth["username"])
    assert user is not None
    sf.User.update(user["Id"], {"IsActive": False})


def _roles_wrong_parent(sf: Any, t: Task) -> None:
    for e in t.ground_truth["hierarchy"]:
        if e["is_new"]:
            sf.UserRole.create({"Name": e["role_name"], "DeveloperName": helpers.norm(e["role_name"]).replace(" ", "_")})


def _group_users_only(sf: Any, t: Task) -> None:
    g = t.ground_truth
    gid = sf.Group.create({"Name": g["group_name"], "DeveloperName": "Partial_Group", "Type": "Regular"})["id"]
    for name in g["users"]:
        user = helpers.user_by_name(sf, name)
        assert user is not None
        sf.GroupMember.create({"GroupId": gid, "UserOrGroupId": user["Id"]})


def _one_of_two_sets(sf: Any, t: Task) -> None:
    user = helpers.user_by_name(sf, t.ground_truth["username"])
    ps = _id(sf, f"SELECT Id FROM PermissionSet WHERE Label = {soql_str(t.ground_truth['permission_set'][0])}")
    assert user is not None
    sf.PermissionSetAssignment.create({"AssigneeId": user["Id"], "PermissionSetId": ps})


def _internal_only(sf: Any, t: Task) -> None:
    rec = helpers.tooling_rows(sf, f"SELECT Id FROM EntityDefinition WHERE QualifiedApiName = "
                                   f"{soql_str(t.ground_truth['object_name'])}")[0]
    sf.EntityDefinition.update(rec["Id"], {
        "InternalSharingModel": helpers.sharing_model(t.ground_truth["internal_visibility"])})


def _rule_wrong_message(sf: Any, t: Task) -> None:
    g = t.ground_truth
    sf.toolingexecute("sobjects/ValidationRule", method="POST", data={
        "ValidationName": "Partial", "EntityDefinitionId": g["object_name"], "Active": True,
        "ErrorConditionFormula": g["error_condition_formula"].replace(" ", "  "), "ErrorMessage": "Nope."})


def _view_one_filter(sf: Any, t: Task) -> None:
    g = t.ground_truth
    sf.ListView.create({"Name": g["list_name"], "DeveloperName": "Partial_View", "SobjectType": g["object_name"],
                        "Filters": json.dumps([{"field": "Priority", "operator": "equals", "value": "High"}]),
                        "Visibility": "Private"})


PARTIAL: dict[str, tuple[str, Callable[[Any, Task], None], float]] = {  # SCUBA's weights
    "escalate_case_change_owner": ("escalate_case_change_owner_3", _escalate, 0.5),
    "create_queue_with_members": ("create_queue_with_members_1", _queue, 0.55),  # queue .3 + email .25
    "create_incident_record": ("create_incident_record_3", _incident, 0.5),
    "create_change_request_link_incident": ("create_change_request_link_incident_1", _change, 0.4),
    "create_knowledge_article": ("create_knowledge_article_4", _article, 0.6),  # exists .3 + Draft .3
    "create_entitlement_record": ("create_entitlement_record_1", _entitlement, 0.7),
    "create_user": ("create_user_1", _user, 0.75),
    "freeze_user": ("freeze_user_3", _deactivate_instead, 0.0),
    "define_role_hierarchy": ("define_role_hierarchy_4", _roles_wrong_parent, 2 / 3),  # 1/3 + 2 x 1/6
    "create_public_group": ("create_public_group_3", _group_users_only, 0.75),  # .25 + 2 of 3 x .25
    "assign_permission_set_to_user": ("assign_permission_set_to_user_5", _one_of_two_sets, 0.0),
    "create_owd_settings": ("create_owd_settings_4", _internal_only, 0.5),
    "create_validation_rule": ("create_validation_rule_4", _rule_wrong_message, 0.2),  # exact formula
    "create_list_view": ("create_list_view_1", _view_one_filter, 0.25),  # private: no filters read
}


@pytest.mark.parametrize("template", sorted(PARTIAL))
def test_partial_work_earns_partial_credit(env: SalesforceEnvironment, template: str) -> None:
    task_id, work, expected = PARTIAL[template]
    check_partial_credit(env, _one(task_id), work, expected)


def test_question_scored_on_the_answer(env: SalesforceEnvironment) -> None:
    task = _one("qa_service_knowledge_2")
    assert evaluate(env, task, answer=None).score == 0
    assert evaluate(env, task, answer="Exports stop after 60 seconds or 20,000 rows.").score == 1
    assert evaluate(env, task, answer="Exports stop after a minute.").score == 0


# -- missing records never crash ----------------------------------------------------------------------------

GHOSTS: dict[str, dict[str, Any]] = {
    "escalate_case_change_owner": {"case_subject": "No such case", "new_status": "Escalated",
                                   "other_updates": {"Priority": "High", "OwnerId": "Nobody Here"}},
    "create_queue_with_members": {"queue_name": "No_Queue", "group_type": "Gadget", "email_address": "x@y.test",
                                  "role_members": ["Ghost Role"]},
    "create_incident_record": {"incident_subject": "ghost", "urgency": "High", "impact": "High", "priority": "High",
                               "products": ["Ghost"], "product_impact_type": ["Affected"]},
    "create_change_request_link_incident": {"incident_subject": "ghost", "change_request_subject": "ghost",
                                            "change_request_priority": "High", "change_request_impact": "High",
                                            "change_request_risk_level": "High", "incident_new_status": "Closed"},
    "create_knowledge_article": {"article_title": "ghost", "article_published": "Online", "question_desc": "q",
                                 "answer_desc": "a"},
    "create_entitlement_record": {"account_name": "Ghost Ltd", "entitlement_name": "ghost", "support_type": "Web Support",
                                  "start_date_relative": "whenever", "end_date_relative": "someday"},
    "qa_service_knowledge": {"answer": "ghost"},
    "create_user": {"user_name": "Ghost Person", "email": "g@h.test", "username": "g@h.test", "profile": "Nope",
                    "role": "Nope"},
    "deactivate_user": {"username": "Ghost Person"},
    "freeze_user": {"username": "Ghost Person"},
    "define_role_hierarchy": {"hierarchy": [{"role_name": "Ghost", "parent_role_name": "Phantom", "is_new": False}]},
    "create_public_group": {"group_name": "Ghosts", "users": ["Ghost Person"], "roles": ["Ghost Role"]},
    "assign_permission_set_to_user": {"username": "Ghost Person", "permission_set": "Ghost Set"},
    "assign_permset_group_to_user": {"permission_set_group": "Ghost Group", "user_name": "Ghost Person"},
    "create_owd_settings": {"object_name": "Ghost__c", "internal_visibility": "Private", "external_visibility": "Private"},
    "create_validation_rule": {"object_name": "Ghost__c", "error_condition_formula": "TRUE", "error_message": "x"},
    "create_list_view": {"object_name": "Ghost__c", "list_name": "ghost", "key1": "A", "key2": "B", "operator1": "equals",
                         "operator2": "equals", "value1": "1", "value2": "2"},
}


TRUTH_WEIGHTED = {"escalate_case_change_owner", "define_role_hierarchy", "create_public_group"}


@pytest.mark.parametrize("template", OURS)
@pytest.mark.parametrize("kind", ["ghosts", "empty", "quotes"])
def test_missing_records_fail_milestones_without_crashing(env: SalesforceEnvironment, template: str, kind: str) -> None:
    truth: dict[str, Any] = dict(GHOSTS[template]) if kind != "empty" else {}
    if kind == "quotes":
        truth = {k: (f"O'Brien \\ {v}" if isinstance(v, str) else v) for k, v in truth.items()}
    if kind == "empty" and template in TRUTH_WEIGHTED:  # no entries: nothing to weigh, a named error
        with pytest.raises(WeightError, match=template):
            evaluate(env, task_of(template, truth))
        return
    card = evaluate(env, task_of(template, truth))
    assert card.score < 1
    assert all(r.detail for r in card.results if not r.passed)


def test_ghost_table_covers_every_template() -> None:
    assert set(GHOSTS) == set(OURS)
    assert set(PARTIAL) <= set(OURS)


# -- helpers ----------------------------------------------------------------------------------------------

def test_sharing_labels_round_trip() -> None:
    for label, model in helpers.SHARING_LABELS.items():
        assert helpers.sharing_model(label) == model
        assert helpers.sharing_model(model) == model
        assert helpers.sharing_label(model) == label
