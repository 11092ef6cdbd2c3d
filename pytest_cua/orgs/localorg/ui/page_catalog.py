"""The catalogue of the UI's pages: the records some pages need (``prepare``) and every page by a short name
(``pages``). Used by ``scripts/ui_screenshots.py`` (a screenshot of each) and by the UI tests (accessibility of
each page)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_cua.orgs.localorg import analytics
from pytest_cua.orgs.localorg.metadata import MetadataStore
from pytest_cua.orgs.localorg.metadata import xmltree as X

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.server import OrgServer

SETUP = "/lightning/setup"
OBJECT_MANAGER = f"{SETUP}/ObjectManager"


def prepare(server: "OrgServer") -> dict[str, str]:
    """The records the pages need (a custom object with a field, a permission set, a group with a muting
    permission set, an account, an open lead, a summary report with a chart and a dashboard of it); returns ids
    by name."""
    org = server.org
    store = MetadataStore(org)
    store.write("CustomObject", "MyBike__c", X.element("CustomObject", [
        X.leaf("label", "MyBike"), X.leaf("pluralLabel", "MyBikes"),
        X.element("nameField", [X.leaf("label", "MyBike Name"), X.leaf("type", "Text")]),
        X.leaf("deploymentStatus", "Deployed"), X.leaf("sharingModel", "ReadWrite"),
        X.element("fields", [X.leaf("fullName", "Brand__c"), X.leaf("label", "Brand"), X.leaf("type", "Text"),
                             X.leaf("length", 80)])]))
    ids = {"permset": org.create("PermissionSet", {"Label": "Case Helpers", "Name": "Case_Helpers"}),
           "group": org.create("PermissionSetGroup", {"MasterLabel": "Field Team", "DeveloperName": "Field_Team"})}
    store.write("MutingPermissionSet", "Field_Team_Muted", X.element("MutingPermissionSet",
                                                                      [X.leaf("label", "Field Team Muted")]))
    views = [v for v in org.records("ListView") if v.get("SobjectType") == "Account"]
    ids["view"] = str(views[0]["DeveloperName"]) if views else ""
    ids["profile"] = str(org.find("Profile", Name="Standard User")[0]["Id"])
    ids["account"] = org.create("Account", {"Name": "Catalogue Cycles", "Industry": "Retail"})
    ids["lead"] = org.create("Lead", {"LastName": "Catalogue", "FirstName": "Cara", "Company": "Catalogue Cycles Ltd",
                                      "Status": "Open - Not Contacted"})
    ids["report"] = analytics.create_report(org, {
        "name": "Pipeline by Stage", "reportFormat": "SUMMARY", "reportType": {"type": "Opportunity"},
        "detailColumns": ["OPPORTUNITY_NAME", "ACCOUNT_NAME", "AMOUNT", "CLOSE_DATE"],
        "groupingsDown": [{"name": "STAGE_NAME"}], "aggregates": ["s!AMOUNT", "RowCount"],
        "chart": {"chartType": "Horizontal Bar", "title": "Amount by Stage", "summaries": ["s!AMOUNT"]}})
    ids["dashboard"] = analytics.create_dashboard(org, {"name": "Pipeline", "components": [
        {"type": "Report", "reportId": ids["report"], "header": header, "properties": {"visualizationType": kind}}
        for header, kind in (("Pipeline by stage", "Column"), ("Deals", "Metric"), ("Stages", "Donut"))]})
    return ids


def pages(ids: dict[str, str]) -> list[tuple[str, str]]:
    """Every setup, report, list-view and record page as (name, path), in the screenshot order."""
    setup = SETUP
    om = OBJECT_MANAGER
    out = [("setup-home", f"{setup}/SetupOneHome/home"), ("object-manager", f"{om}/home"),
           ("new-custom-object", f"{om}/new"), ("object-details", f"{om}/MyBike__c/Details/view"),
           ("object-edit", f"{om}/MyBike__c/edit"), ("fields", f"{om}/MyBike__c/FieldsAndRelationships/view"),
           ("field", f"{om}/MyBike__c/FieldsAndRelationships/Brand__c/view"),
           ("field-edit", f"{om}/MyBike__c/FieldsAndRelationships/Brand__c/edit"),
           ("new-field-wizard", f"{om}/MyBike__c/FieldsAndRelationships/new"),
           ("lightning-record-pages", f"{om}/Account/LightningPages/view"),
           ("lightning-app-builder", f"{om}/Account/LightningPages/new"),
           ("picklist-field", f"{om}/Case/FieldsAndRelationships/Priority/view"),
           ("picklist-values-new", f"{om}/Case/FieldsAndRelationships/Priority/values/new"),
           ("picklist-reorder", f"{om}/Case/FieldsAndRelationships/Priority/values/reorder"),
           ("picklist-value-edit", f"{om}/Case/FieldsAndRelationships/Priority/values/0/edit"),
           ("picklist-value-sets", f"{setup}/Picklists/home"), ("global-value-set-new", f"{setup}/Picklists/new"),
           ("tabs", f"{setup}/CustomTabs/home"), ("tab-wizard", f"{setup}/CustomTabs/new?object=MyBike__c"),
           ("password-policies", f"{setup}/SecurityPolicies/home"),
           ("permset-object-settings", f"{setup}/PermSets/{ids['permset']}/objects"),
           ("permset-object-edit", f"{setup}/PermSets/{ids['permset']}/objects/Case/edit"),
           ("group-object-settings", f"{setup}/PermSetGroups/{ids['group']}/objects"),
           ("profiles", f"{setup}/EnhancedProfiles/home"),
           ("profile-object-edit", f"{setup}/EnhancedProfiles/{ids['profile']}/objects/Opportunity/edit"),
           ("group-muting", f"{setup}/MutingPermSets/Field_Team_Muted/view"),
           ("muting-object-edit", f"{setup}/MutingPermSets/Field_Team_Muted/objects/Account/edit"),
           ("sales-processes", f"{setup}/OpportunityProcess/home"), ("sales-process-new", f"{setup}/OpportunityProcess/new"),
           ("matching-rules", f"{setup}/MatchingRules/home"), ("matching-rule-new", f"{setup}/MatchingRules/new"),
           ("app-manager", f"{setup}/NavigationMenus/home"), ("new-lightning-app", f"{setup}/NavigationMenus/new"),
           ("case-assignment-rules", f"{setup}/CaseRules/home"), ("case-assignment-rule-new", f"{setup}/CaseRules/new"),
           ("entitlement-processes", f"{setup}/EntitlementProcess/home"),
           ("entitlement-process-new", f"{setup}/EntitlementProcess/new"),
           ("territory-settings", f"{setup}/Territory2Settings/home"), ("territory-models", f"{setup}/Territory2Models/home"),
           ("approval-processes", f"{setup}/ApprovalProcesses/home?object=Opportunity"),
           ("approval-jump-start", f"{setup}/ApprovalProcesses/jumpstart?object=Opportunity"),
           ("reports", "/lightning/o/Report/home"), ("report-type", "/lightning/o/Report/new"),
           ("report-builder", "/lightning/o/Report/builder?type=Opportunity"),
           ("dashboards", "/lightning/o/Dashboard/home"), ("dashboard-new", "/lightning/o/Dashboard/new"),
           ("dashboard-builder", "/lightning/o/Dashboard/builder?name=Pipeline"),
           ("list-view-new", "/lightning/o/Account/listview/new"), ("list-view-charts", "/lightning/o/Account/listview/charts"),
           ("list-view-chart-new", "/lightning/o/Account/listview/charts/new")]
    if ids.get("view"):
        out.append(("list-view-fields", f"/lightning/o/Account/listview/{ids['view']}/fields"))
    if ids.get("account"):
        out += [("record-list", "/lightning/o/Account/list"),
                ("record-page", f"/lightning/r/Account/{ids['account']}/view"),
                ("record-new", "/lightning/o/Account/new"),
                ("record-edit", f"/lightning/r/Account/{ids['account']}/edit")]
    if ids.get("lead"):
        out.append(("lead-convert", f"/lightning/r/Lead/{ids['lead']}/convert"))
    if ids.get("report"):
        out.append(("report-run", f"/lightning/o/Report/{ids['report']}/view"))
    if ids.get("dashboard"):
        out.append(("dashboard", f"/lightning/o/Dashboard/{ids['dashboard']}/view"))
    return out
