"""Write a screenshot of every setup, report and list-view page of the embedded org's UI, for a reader to look at.

    python3 scripts/ui_screenshots.py [OUT_DIR]      # default: reports/ui-screenshots

Starts the embedded org (its default data) on loopback, logs real Chromium in through frontdoor, makes the few
records some pages need (a custom object with a field, a permission set, a group with a muting permission set),
then opens each page and writes ``NN-name.png`` (full page). Prints one line per page and the folder.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from pytest_cua.localorg.metadata import MetadataStore
from pytest_cua.localorg.metadata import xmltree as X
from pytest_cua.localorg.server import OrgServer

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run", "--disable-sync"]


def prepare(server: OrgServer) -> dict[str, str]:
    """The records the pages need; returns ids by name."""
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
    return ids


def pages(ids: dict[str, str]) -> list[tuple[str, str]]:
    setup = "/lightning/setup"
    om = f"{setup}/ObjectManager"
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
           ("dashboards", "/lightning/o/Dashboard/home"), ("dashboard-builder", "/lightning/o/Dashboard/new"),
           ("list-view-new", "/lightning/o/Account/listview/new"), ("list-view-charts", "/lightning/o/Account/listview/charts"),
           ("list-view-chart-new", "/lightning/o/Account/listview/charts/new")]
    if ids.get("view"):
        out.append(("list-view-fields", f"/lightning/o/Account/listview/{ids['view']}/fields"))
    return out


def main(argv: list[str]) -> int:
    from playwright.sync_api import sync_playwright

    out = Path(argv[1] if len(argv) > 1 else "reports/ui-screenshots")
    out.mkdir(parents=True, exist_ok=True)
    server = OrgServer(Path(tempfile.mkdtemp(prefix="cua-ui-shots-")), host="127.0.0.1", port=0)
    server.start()
    try:
        ids = prepare(server)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            page = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 900}).new_page()
            page.goto(f"{server.url}/secur/frontdoor.jsp?sid={server.access_token()}&retURL=/lightning/page/home")
            failed = 0
            for n, (name, path) in enumerate(pages(ids), 1):
                response = page.goto(server.url + path)
                status = response.status if response is not None else 0
                target = out / f"{n:02d}-{name}.png"
                page.screenshot(path=str(target), full_page=True)
                failed += status >= 400
                print(f"{status} {path} -> {target}")
            browser.close()
    finally:
        server.stop()
    print(f"{n} pages written to {out}/ ({failed} answered an error status)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
