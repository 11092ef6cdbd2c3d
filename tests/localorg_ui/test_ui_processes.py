"""Setup > Sales Processes (the stages chosen in a dual listbox) and Setup > Matching Rules in real Chromium,
read back over readMetadata."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from pytest_cua.orgs.localorg.store import Org
from tests.localorg_ui.test_ui_object_manager import read
from .lightning import classic, status


def test_sales_process_keeps_the_chosen_stages(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/OpportunityProcess/home"))
    page.get_by_role("button", name="New").click()
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("Sales Process Name")
    page.get_by_label("Sales Process Name").fill("B2C")
    page.get_by_role("button", name="Save", exact=True).first.click()
    for stage in ("Prospecting", "Qualification", "Value Proposition"):
        page.get_by_label("Selected Values").select_option(stage)
        page.get_by_role("button", name="Remove", exact=True).click()
    page.get_by_label("Available Values").select_option("Qualification")
    page.get_by_role("button", name="Add", exact=True).click()  # back again
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(status(page)).to_contain_text('Sales process "B2C" was saved.')
    body = read(sf, "BusinessProcess", "Opportunity.B2C")
    assert body is not None
    names = [v.findtext("fullName") for v in body.iter("values")]
    assert "Prospecting" not in names and "Value Proposition" not in names and "Qualification" in names
    assert "Proposal%2FPrice Quote" in names  # fullNames are encoded as Salesforce writes them


def test_matching_rule_with_one_criterion(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/MatchingRules/home"))
    page.get_by_role("button", name="New Rule").click()
    page.get_by_label("Object").select_option(label="Lead")
    page.get_by_role("button", name="Next").first.click()
    page.get_by_label("Rule Name").fill("Lead Phone Match")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("criterion")
    page.get_by_label("Field 1", exact=True).select_option(label="Phone")
    page.get_by_label("Matching Method 1").select_option(label="Fuzzy: Phone")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("row", name="Lead Phone Match Lead Inactive")).to_be_visible()
    rule = read(sf, "MatchingRule", "Lead.Lead_Phone_Match")
    assert rule is not None and rule.findtext("label") == "Lead Phone Match"
    assert [(i.findtext("blankValueBehavior"), i.findtext("matchingMethod"), i.findtext("fieldName"))
            for i in rule.iter("matchingRuleItems")] == [("NullNotAllowed", "Phone", "Phone")]


def test_new_lightning_app_with_items_and_profiles(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(f"{base}/lightning/setup/NavigationMenus/home")
    page.get_by_role("button", name="New Lightning App").click()
    page.get_by_role("button", name="Next").first.click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("App Name")
    page.get_by_label("App Name").fill("Energy Consultations")
    for _ in range(3):
        page.get_by_role("button", name="Next").first.click()
    page.get_by_label("Available Items").select_option(label="Tasks")
    page.get_by_role("button", name="Add", exact=True).click()
    page.get_by_label("Available Items").select_option(label="Contacts")
    page.get_by_role("button", name="Add", exact=True).click()
    page.get_by_role("button", name="Next").first.click()
    page.get_by_role("button", name="Back").click()  # the chosen items come back
    expect(page.get_by_label("Selected Items").locator("option")).to_have_text(["Tasks", "Contacts"])
    page.get_by_role("button", name="Next").first.click()
    page.get_by_label("Available Profiles").select_option(label="Solution Manager")
    page.get_by_role("button", name="Add", exact=True).click()
    assert read(sf, "CustomApplication", "Energy_Consultations") is None  # nothing before Save & Finish
    page.get_by_role("button", name="Save & Finish").click()
    expect(status(page)).to_contain_text('App "Energy Consultations" was saved.')
    app = read(sf, "CustomApplication", "Energy_Consultations")
    assert app is not None and [t.text for t in app.iter("tabs")] == ["standard-Task", "standard-Contact"]
    visible = [v.findtext("application") for v in (read(sf, "Profile", "SolutionManager") or app).iter(
        "applicationVisibilities") if v.findtext("visible") == "true"]
    assert "Energy_Consultations" in visible


def test_case_assignment_rule_entry(page: Any, base: str, sf: Any, org: Org) -> None:
    queue = org.create("Group", {"Name": "Billing Desk", "DeveloperName": "Billing_Desk", "Type": "Queue"})
    page.goto(classic(f"{base}/lightning/setup/CaseRules/home"))
    page.get_by_role("button", name="New").click()
    page.get_by_label("Rule Name").fill("Billing Cases")
    page.get_by_role("button", name="Save", exact=True).first.click()
    page.get_by_role("region", name="Rule Entries").get_by_role("button", name="New").click()
    page.get_by_label("Field 1", exact=True).select_option(label="Case: Description")
    page.get_by_label("Operator 1").select_option(label="contains")
    page.get_by_label("Value 1").fill("billing")
    page.get_by_label("Field 2", exact=True).select_option(label="Case: Case Number")
    page.get_by_label("Operator 2").select_option(label="starts with")
    page.get_by_label("Value 2").fill("5")
    page.get_by_label("Filter Logic").fill("1 OR 3")
    page.get_by_label("Assign To").select_option(label="Queue: Billing Desk")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("filter logic")
    expect(page.get_by_label("Value 2")).to_have_value("5")
    page.get_by_label("Filter Logic").fill("1 OR 2")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(status(page)).to_contain_text("The rule entry was saved.")
    rules = read(sf, "AssignmentRules", "Case")
    assert rules is not None
    [rule] = [r for r in rules.iter("assignmentRule") if r.findtext("fullName") == "Billing Cases"]
    entry = rule.find("ruleEntry")
    assert entry is not None and (entry.findtext("assignedTo"), entry.findtext("assignedToType"),
                                  entry.findtext("booleanFilter")) == ("Billing_Desk", "Queue", "1 OR 2")
    assert [(c.findtext("field"), c.findtext("operation"), c.findtext("value")) for c in entry.iter("criteriaItems")] \
        == [("Case.Description", "contains", "billing"), ("Case.CaseNumber", "startsWith", "5")]
    assert org.get("Group", queue) is not None


def test_entitlement_process_with_a_milestone(page: Any, base: str, sf: Any, org: Org) -> None:
    if "MilestoneType" in org.schema and not org.find("MilestoneType", Name="First Response"):
        org.create("MilestoneType", {"Name": "First Response"})
    page.goto(classic(f"{base}/lightning/setup/EntitlementProcess/home"))
    page.get_by_role("button", name="New Entitlement Process").click()
    page.get_by_role("button", name="Next").first.click()
    page.get_by_label("Entitlement Process Name").fill("Priority Customer Support")
    page.get_by_role("button", name="Save", exact=True).first.click()
    page.get_by_role("button", name="New Milestone").click()
    page.get_by_label("Milestone Name").select_option(label="First Response")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Review the errors on this page.")).to_contain_text("minutes")
    page.get_by_label("Time Trigger (Minutes)").fill("30")
    page.get_by_label("Criteria Field 1").select_option(label="Case: Priority")
    page.get_by_label("Criteria Value 1").fill("High")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Milestones")).to_contain_text("First Response")
    body = read(sf, "EntitlementProcess", "priority customer support")
    assert body is not None and body.findtext("SObjectType") == "Case"
    assert body.findtext("entryStartDateField") == "Case.CreatedDate"
    exit_item = body.find("exitCriteriaFilterItems")
    assert exit_item is not None and exit_item.findtext("field") == "Case.IsClosed"
    [milestone] = list(body.iter("milestones"))
    assert (milestone.findtext("milestoneName"), milestone.findtext("minutesToComplete")) == ("First Response", "30")
    item = milestone.find("milestoneCriteriaFilterItems")
    assert item is not None and (item.findtext("field"), item.findtext("value")) == ("Case.Priority", "High")


def test_territory_model_needs_territory_management_then_takes_a_rule(page: Any, base: str, sf: Any,
                                                                       org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/Territory2Models/home"))
    expect(page.get_by_role("note")).to_contain_text("not enabled")
    page.get_by_role("button", name="Territory Settings").click()
    page.get_by_role("button", name="Enable Territory Management").first.click()
    settings = read(sf, "Territory2Settings", "Territory2")
    assert settings is not None and settings.findtext("enableTerritoryManagement2") == "true"
    page.goto(classic(f"{base}/lightning/setup/Territory2Models/home"))
    page.get_by_role("button", name="New Territory Model").click()
    page.get_by_label("Label", exact=True).fill("by revenue")
    page.get_by_role("button", name="Save", exact=True).first.click()
    page.get_by_role("button", name="New Rule").click()
    page.get_by_label("Rule Name").fill("annual revenue")
    page.get_by_label("Set as Active").check()
    page.get_by_label("Field 1", exact=True).select_option(label="Account: Annual Revenue")
    page.get_by_label("Operator 1").select_option(label="greater than")
    page.get_by_label("Value 1").fill("10000")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Assignment Rules")).to_contain_text("Account.AnnualRevenue greater than")
    [rule] = sf.query("SELECT Id, IsActive FROM ObjectTerritory2AssignmentRule WHERE MasterLabel = 'annual revenue'")[
        "records"]
    assert rule["IsActive"] is True
    [item] = sf.query(f"SELECT Field, Operation, Value FROM ObjectTerritory2AssignmentRuleItem "
                      f"WHERE RuleId = '{rule['Id']}'")["records"]
    assert (item["Field"], item["Operation"], item["Value"]) == ("Account.AnnualRevenue", "greaterThan", "10000")


def test_approval_process_jump_start_and_final_actions(page: Any, base: str, sf: Any, org: Org) -> None:
    page.goto(classic(f"{base}/lightning/setup/ApprovalProcesses/home"))
    page.get_by_label("Manage Approval Processes For").select_option(label="Opportunity")
    page.get_by_role("button", name="Go").click()
    page.get_by_role("button", name="Create New Approval Process").click()
    page.get_by_role("menuitem", name="Use Jump Start Wizard").click()
    page.get_by_label("Process Name").fill("Approve Opportunity Amount")
    page.get_by_label("Field 1", exact=True).select_option(label="Opportunity: Amount")
    page.get_by_label("Operator 1").select_option(label="greater than")
    page.get_by_label("Value 1").fill("200")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name="Approve Opportunity Amount")).to_be_visible()
    page.get_by_role("button", name="Add New Final Approval Action").click()
    page.get_by_role("menuitem", name="Field Update").click()
    page.get_by_label("Name", exact=True).fill("mark won")
    page.get_by_label("Field to Update").select_option(label="Description")
    page.get_by_label("Use a formula to set the new value").check()
    page.get_by_label("Formula", exact=True).fill('Description + " approved"')
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("region", name="Final Approval Actions")).to_contain_text("mark_won")
    process = read(sf, "ApprovalProcess", "Opportunity.Approve_Opportunity_Amount")
    assert process is not None
    item = process.find("entryCriteria/criteriaItems")
    assert item is not None and (item.findtext("field"), item.findtext("operation"), item.findtext("value")) == \
        ("Opportunity.Amount", "greaterThan", "200")
    action = process.find("finalApprovalActions/action")
    assert action is not None and (action.findtext("name"), action.findtext("type")) == ("mark_won", "FieldUpdate")
    workflow = read(sf, "Workflow", "Opportunity")
    update = next(u for u in (workflow if workflow is not None else []).iter("fieldUpdates")
                  if u.findtext("fullName") == "mark_won")
    assert (update.findtext("field"), update.findtext("formula")) == ("Description", 'Description + " approved"')


def test_jump_start_names_a_lookup_criterion_without_its_id(page: Any, base: str, sf: Any, org: Org) -> None:
    """Case: Business Hours (the lookup BusinessHoursId) is written as ``Case.BusinessHours``, as Salesforce writes
    a standard lookup in criteria items; its value is the related record's name."""
    page.goto(classic(f"{base}/lightning/setup/ApprovalProcesses/jumpstart?object=Case"))
    page.get_by_label("Process Name").fill("Approve Working Case")
    page.get_by_label("Field 1", exact=True).select_option(label="Case: Business Hours")
    page.get_by_label("Operator 1").select_option(label="starts with")
    page.get_by_label("Value 1").fill("Default")
    page.get_by_role("button", name="Save", exact=True).first.click()
    expect(page.get_by_role("heading", name="Approve Working Case")).to_be_visible()
    process = read(sf, "ApprovalProcess", "Case.Approve_Working_Case")
    assert process is not None
    item = process.find("entryCriteria/criteriaItems")
    assert item is not None and (item.findtext("field"), item.findtext("operation"), item.findtext("value")) == \
        ("Case.BusinessHours", "startsWith", "Default")
    assert [r["Name"] for r in sf.query("SELECT Name FROM BusinessHours WHERE IsDefault = true")["records"]] == \
        ["Default"]
