"""The SCUBA templates on the org's runtime schema and metadata (custom objects, lookup and formula fields,
field-level security, apps, tabs, Dynamic Forms, approval and entitlement processes), against a real
embedded org over HTTPS and its Metadata API.

For each: the seed scores 0, the oracle's end state scores 1 (and rolls back without residue: the ``env``
fixture proves it), and a partial end state (the oracle solving a slightly different ground truth) scores
what SCUBA's weights give it. The milestones recorded are ``weights(truth)``, in order, summing to 1.
"""

from __future__ import annotations

from typing import Any, Mapping

import pytest

from pytest_cua.envs.salesforce import SalesforceEnvironment
from suites.scuba.templates import metadata_io as md
from suites.scuba.templates.admin_objects import formula_type

from .org_harness import TEMPLATES, evaluate_truth, task_of


def _solve(env: SalesforceEnvironment, template: str, truth: Mapping[str, Any]) -> None:
    TEMPLATES[template].solve(task_of(template, truth), env)


CASES: dict[str, tuple[dict[str, Any], dict[str, Any], float]] = {
    # template: (ground truth, the ground truth the partial end state solves, its score under the first)
    "create_custom_object_with_lookup": (
        {"object_name": "Favorite", "related_object": "Contact", "comma_separated_profile_list": "Admin, SolutionManager"},
        {"object_name": "Favorite", "related_object": "Contact", "comma_separated_profile_list": "Admin"}, 0.6),
    "add_formula_field_with_visibility": (
        {"field_name": "RevenueInK__c", "object_name": "Account", "formula": 'TEXT(AnnualRevenue /1000)&"K"',
         "comma_separated_profiles": "Admin, Custom%3A Sales Profile, MarketingProfile"},
        {"field_name": "RevenueInK__c", "object_name": "Account", "formula": 'TEXT(AnnualRevenue)&"K"',
         "comma_separated_profiles": "Admin, Custom%3A Sales Profile, MarketingProfile"}, 0.7),
    "create_dynamic_forms": (
        {"object_name": "Lead", "field_name": "Record.NumberOfEmployees", "field_2": "{!Record.NumberOfEmployees}",
         "operator": "GT", "value": "5000"},
        {"object_name": "Lead", "field_name": "Record.NumberOfEmployees", "field_2": "{!Record.NumberOfEmployees}",
         "operator": "LT", "value": "5000"}, 0.8),
    "create_approval_process_jump_start": (
        {"object_name": "Account", "approval_process_name": "Approve Low Earning Account",
         "entry_criteria_formula": [["Account.BillingCountry", "notEqual", "United States"],
                                    ["Account.AnnualRevenue", "lessThan", "100000"]]},
        {"object_name": "Account", "approval_process_name": "Approve Low Earning Account",
         "entry_criteria_formula": [["Account.BillingCountry", "notEqual", "United States"],
                                    ["Account.AnnualRevenue", "lessThan", "5"]]}, 0.9),
    "create_entitlement_process": (
        {"process_name": "case email", "record_type": "Case", "milestone_time_trigger": 1,
         "milestones": [{"milestoneName": "Escalate case", "criteria": [["Contact.Email", "contains", "salesforce"]]},
                        {"milestoneName": "first response to priority customers"}]},
        {"process_name": "case email", "record_type": "Case", "milestone_time_trigger": 1,
         "milestones": [{"milestoneName": "Escalate case", "criteria": [["Contact.Email", "contains", "example"]]}]},
        # the process (0.4), 'Escalate case' present and its trigger (2 x 0.3 x 0.3); the other milestone missing
        0.4 + 0.18),
    "create_app": (
        {"app_name": "Energy Consultations", "comma_separated_objects_list": "Task, Contact",
         "comma_separated_user_profiles": "Admin, Custom%3A Sales Profile"},
        {"app_name": "Energy Consultations", "comma_separated_objects_list": "Task",
         "comma_separated_user_profiles": "Admin, Custom%3A Sales Profile"}, 0.85),
    "create_custom_tab": (
        {"object_name": "MyAnimal", "tab_style": "Custom3: Sun", "profile_name": "Admin", "app_name": "standard__Sales"},
        {"object_name": "MyAnimal", "tab_style": "Custom13: Box", "profile_name": "Admin",
         "app_name": "standard__Service"}, 0.5),
}


@pytest.mark.parametrize("template", sorted(CASES))
def test_seed_scores_zero_and_oracle_one(env: SalesforceEnvironment, template: str) -> None:
    truth = CASES[template][0]
    assert evaluate_truth(env, template, truth).score == 0
    _solve(env, template, truth)
    card = evaluate_truth(env, template, truth)
    assert card.score == 1, card.table()


@pytest.mark.parametrize("template", sorted(CASES))
def test_partial_end_state(env: SalesforceEnvironment, template: str) -> None:
    truth, partial, expected = CASES[template]
    _solve(env, template, partial)
    assert evaluate_truth(env, template, truth).score == pytest.approx(expected)


def test_custom_object_with_tab(env: SalesforceEnvironment) -> None:
    truth = {"custom_obj_name": "WildBird"}
    assert evaluate_truth(env, "custom_obj_with_tab", truth).score == 0
    sf = env.org
    md.deploy(sf, {"objects/WildBird__c.object": md.component(
        "CustomObject", md.element("nameField", label="Name", type="Text"), label="WildBird",
        pluralLabel="WildBirds", deploymentStatus="Deployed", sharingModel="ReadWrite")}, {"CustomObject": ["WildBird__c"]})
    assert sf.query("SELECT Id FROM WildBird__c")["totalSize"] == 0  # a real sObject at once
    assert evaluate_truth(env, "custom_obj_with_tab", truth).score == 0.5  # no tab yet
    _solve(env, "custom_obj_with_tab", {"custom_obj_name": "StormTracker"})
    assert evaluate_truth(env, "custom_obj_with_tab", {"custom_obj_name": "StormTracker"}).score == 1


def test_lookup_field_is_real_and_readers_are_exact(env: SalesforceEnvironment) -> None:
    truth = CASES["create_custom_object_with_lookup"][0]
    _solve(env, "create_custom_object_with_lookup", truth)
    sf = env.org
    contact = sf.Contact.create({"LastName": "Lookup Target"})["id"]
    sf.Favorite__c.create({"Name": "f1", "Contact__c": contact})
    assert sf.query("SELECT Contact__r.LastName FROM Favorite__c")["records"][0]["Contact__r"]["LastName"] == \
        "Lookup Target"
    # one more profile able to read the field: the visibility milestone fails (exactly the listed ones)
    path, text = md.profile_file("Standard", md.element("fieldPermissions", editable=False,
                                                        field="Favorite__c.Contact__c", readable=True))
    md.deploy(sf, {path: text}, {"Profile": ["Standard"]})
    assert evaluate_truth(env, "create_custom_object_with_lookup", truth).score == pytest.approx(0.6)


def test_formula_field_types() -> None:
    assert formula_type("CloseDate - TODAY()") == "Number"
    assert formula_type("BillingCountry = Owner.Country") == "Checkbox"
    assert formula_type("Account.AnnualRevenue > 1000000") == "Checkbox"
    assert formula_type('TEXT(AnnualRevenue /1000)&"K"') == "Text"
    assert formula_type('IF(ISPICKVAL(Status, "Open"), TODAY() - DATEVALUE(CreatedDate), NULL)') == "Number"


def test_standard_apps_are_listed(env: SalesforceEnvironment) -> None:
    apps = md.retrieve(env.org, {"CustomApplication": ["*"]})["applications"]
    assert {"standard__Sales", "standard__Service", "standard__Marketing", "standard__Platform",
            "standard__Approvals"} <= set(apps)
    assert "standard-Opportunity" in [t.text for t in md.items(apps["standard__Sales"], "tabs")]


def test_entitlement_weights_follow_scuba() -> None:
    weights = TEMPLATES["create_entitlement_process"].weights(CASES["create_entitlement_process"][0])  # type: ignore[attr-defined]
    assert weights["milestone 'Escalate case' criteria"] == pytest.approx(0.4 * 0.3)
    assert weights["milestone 'first response to priority customers'"] == pytest.approx(0.5 * 0.3)
    jump = TEMPLATES["create_approval_process_jump_start"].weights(CASES["create_approval_process_jump_start"][0])  # type: ignore[attr-defined]
    assert list(jump.values()) == pytest.approx([0.2, 0.2, 0.1, 0.1, 0.2, 0.1, 0.1])


ACTIONS = {"approval_process_name": "Contact.required_contact_action", "final_approval_action_name": "Add to Description",
           "final_rejection_action_name": "Empty Description", "approval_status_field": "Description",
           "approved_value": 'Description + "This is a valid contact"', "rejected_value": '"Rejected Contact"'}


def _prerequisite_process(sf: Any, obj: str, label: str) -> None:
    """What SCUBA's metadata prerequisites deploy before the task: a bare approval process."""
    md.deploy(sf, {f"approvalProcesses/{obj}.{label}.approvalProcess": md.component(
        "ApprovalProcess", md.element("allowedSubmitters", type="owner"), active=False, allowRecall=False,
        finalApprovalRecordLock=True, finalRejectionRecordLock=False, label=label, recordEditability="AdminOnly",
        showApprovalHistory=True)}, {"ApprovalProcess": [f"{obj}.{label}"]})


def test_approval_actions_seed_oracle_partial(env: SalesforceEnvironment) -> None:
    tpl = "configure_approval_process_actions"
    assert evaluate_truth(env, tpl, ACTIONS).score == 0  # no process at all: every milestone fails, nothing crashes
    with pytest.raises(md.MetadataCallError, match="prerequisite"):
        _solve(env, tpl, ACTIONS)
    _prerequisite_process(env.org, "Contact", "required_contact_action")
    assert evaluate_truth(env, tpl, ACTIONS).score == 0
    _solve(env, tpl, {**ACTIONS, "rejected_value": '"Rejected"', "approval_status_field": "Title"})
    # both actions are single field updates (0.2), on the wrong field (0), the approval value right (0.2)
    assert evaluate_truth(env, tpl, ACTIONS).score == pytest.approx(0.4)
    _solve(env, tpl, ACTIONS)
    card = evaluate_truth(env, tpl, ACTIONS)
    assert card.score == 1, card.table()
