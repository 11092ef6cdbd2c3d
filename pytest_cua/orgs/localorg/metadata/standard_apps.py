"""The standard Lightning apps every org has (``standard__Sales``, ``standard__Service``, ...), as
CustomApplication components: an admin adds a tab to one of them (Setup > App Manager > Edit > Navigation
Items), and a retrieve of ``CustomApplication: *`` lists them as Salesforce does.

Their navigation items are Salesforce's defaults for a Developer Edition org (``standard-<Object>`` tabs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from pytest_cua.orgs.localorg.metadata import xmltree as X

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.metadata.components import MetadataStore

#: fullName -> (label, description, navigation items)
STANDARD_APPS: dict[str, tuple[str, str, list[str]]] = {
    "standard__Sales": ("Sales", "Manage your sales process with accounts, leads, opportunities, and more",
                        ["standard-home", "standard-Opportunity", "standard-Lead", "standard-Task", "standard-File",
                         "standard-Account", "standard-Contact", "standard-Campaign", "standard-Dashboard",
                         "standard-report", "standard-Chatter", "standard-CollaborationGroup", "standard-Event",
                         "standard-Forecasting3"]),
    "standard__Service": ("Service", "Manage customer service with accounts, contacts, cases, and more",
                          ["standard-home", "standard-Chatter", "standard-Account", "standard-Contact",
                           "standard-Case", "standard-report", "standard-Dashboard"]),
    "standard__Marketing": ("Marketing", "Best-in-class on-demand marketing automation",
                            ["standard-home", "standard-Campaign", "standard-Lead", "standard-Contact",
                             "standard-Opportunity", "standard-report", "standard-Dashboard", "standard-Chatter"]),
    "standard__Platform": ("Platform", "The fundamental Lightning Platform",
                           ["standard-home", "standard-Chatter", "standard-UserProfile", "standard-OtherUserProfile",
                            "standard-CollaborationGroup", "standard-File"]),
    "standard__Approvals": ("Approvals", "Manage approval requests",
                            ["standard-home", "standard-ProcessInstanceWorkitem", "standard-report",
                             "standard-Dashboard"]),
    "standard__ServiceConsole": ("Service Console", "(Lightning Experience) Lets support agents work with "
                                 "multiple records across customer service channels on one screen",
                                 ["standard-Case", "standard-Contact", "standard-Account", "standard-report",
                                  "standard-Dashboard", "standard-home"]),
    "standard__LightningSalesConsole": ("Sales Console", "(Lightning Experience) Lets sales reps work with "
                                        "multiple records on one screen",
                                        ["standard-Lead", "standard-Contact", "standard-Account",
                                         "standard-Opportunity", "standard-report", "standard-Dashboard"]),
}


def app_body(full_name: str) -> ET.Element:
    """The CustomApplication element of a standard app."""
    label, description, tabs = STANDARD_APPS[full_name]
    console = "Console" in full_name
    parts = [X.leaf("description", description), X.leaf("formFactors", "Large"), X.leaf("isNavAutoTempTabsDisabled", False),
             X.leaf("isNavPersonalizationDisabled", False), X.leaf("label", label),
             X.leaf("navType", "Console" if console else "Standard"),
             *(X.leaf("tabs", t) for t in tabs), X.leaf("uiType", "Lightning")]
    return X.element("CustomApplication", parts)


def install(store: "MetadataStore") -> None:
    """Add the standard apps the org does not have yet."""
    for name in STANDARD_APPS:
        if store.read("CustomApplication", name) is None:
            store.write("CustomApplication", name, app_body(name))
