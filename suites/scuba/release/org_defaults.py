"""What a new Salesforce Developer Edition org has and SCUBA's tasks take for granted, installed into the
embedded org when it lacks it: the standard sample roles and system users (``install_org_defaults``, with
``--scuba-root``, before the org's snapshot) and the object settings SCUBA's admin questions read
(``install_object_settings``, arranged by those tasks only).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .seed import SeedReport

if TYPE_CHECKING:
    from pytest_cua.orgs.localorg.store import Org


# What a new Salesforce Developer Edition org has before any data is loaded and SCUBA's tasks take for granted
# (they name the role "CEO", the role "Customer Support, North America", the user "Security User"): the standard
# sample role hierarchy and the two system users. Installed with --scuba-root only, when missing.
ORG_DEFAULT_ROLES: tuple[tuple[str, str | None], ...] = (
    ("CEO", None),
    ("CFO", "CEO"),
    ("COO", "CEO"),
    ("SVP, Customer Service & Support", "CEO"),
    ("SVP, Human Resources", "CEO"),
    ("SVP, Sales & Marketing", "CEO"),
    ("Customer Support, International", "SVP, Customer Service & Support"),
    ("Customer Support, North America", "SVP, Customer Service & Support"),
    ("Installation & Repair Services", "SVP, Customer Service & Support"),
    ("VP, International Sales", "SVP, Sales & Marketing"),
    ("VP, Marketing", "SVP, Sales & Marketing"),
    ("VP, North American Sales", "SVP, Sales & Marketing"),
    ("Marketing Team", "VP, Marketing"),
    ("Director, Channel Sales", "VP, North American Sales"),
    ("Director, Direct Sales", "VP, North American Sales"),
    ("Channel Sales Team", "Director, Channel Sales"),
    ("Eastern Sales Team", "Director, Direct Sales"),
    ("Western Sales Team", "Director, Direct Sales"),
)
ORG_DEFAULT_USERS: tuple[tuple[str, str], ...] = (("Integration", "intgr"), ("Security", "secur"))


#: The object settings SCUBA's admin questions (qa_admin_039) read in its org, set so that each question's ground
#: truth holds: holder kind, API name, label, component permission sets (a group), {object: permissions}. R, C,
#: E, D: Read, Create, Edit, Delete. Holders the org lacks are made; an object a holder already has settings for
#: is left as it is. They are arranged for those tasks only (``ObjectSettingsQuestion.arrange``), never in the
#: org's snapshot: other tasks of the release create "Account Access" (admin_019) and "Product Admin" (admin_020).
ORG_DEFAULT_ACCESS: tuple[tuple[str, str, str, tuple[str, ...], dict[str, str]], ...] = (
    ("PermissionSet", "Account_Access", "Account Access", (), {"Account": "RCE"}),
    ("PermissionSet", "Agentforce_Service_Agent_Secure_Base", "Agentforce Service Agent Secure Base", (),
     {"Case": "R"}),
    ("PermissionSet", "C360_High_Scale_Flow_Integration_User", "C360 High Scale Flow Integration User", (),
     {"Case": "RCE"}),
    ("PermissionSet", "Cases_Admin", "Cases Admin", (), {"Case": "RCED"}),
    ("PermissionSet", "ConnectivityServiceCASCPermSet", "ConnectivityServiceCASCPermSet", (), {"Case": "RE"}),
    ("PermissionSet", "Buyer", "Buyer", (), {"Account": "R", "Order": "RCED"}),
    ("PermissionSet", "Product_Admin_Access", "Product Admin Access", (), {"Account": "RCED", "Product2": "RCED"}),
    ("PermissionSet", "Trainee_Account_Read", "Trainee Account Read", (), {"Account": "R"}),
    ("PermissionSetGroup", "Product_Admin", "Product Admin", ("Product_Admin_Access",), {}),
    ("PermissionSetGroup", "Commerce_Shopper", "Commerce Shopper", ("Buyer",), {}),
    ("PermissionSetGroup", "Trainee_Analyst", "Trainee Analyst", ("Trainee_Account_Read",), {}),
    ("Profile", "Custom: Sales Profile", "Custom: Sales Profile", (), {"Opportunity": "RCED"}),
    ("Profile", "Gold Partner User", "Gold Partner User", (), {"Opportunity": "RCE"}),
    ("Profile", "Analytics Cloud Integration User", "Analytics Cloud Integration User", (), {"Opportunity": "R"}),
)
KIND_WORDS = {"PermissionSet": "permission set", "PermissionSetGroup": "permission set group", "Profile": "profile"}
_ACCESS_LETTERS = {"R": "allowRead", "C": "allowCreate", "E": "allowEdit", "D": "allowDelete"}


def install_object_settings(org: "Org") -> list[str]:
    """The holders and object settings of ``ORG_DEFAULT_ACCESS`` that ``org`` lacks, written through its Metadata
    store; returns what was installed (``permission set Account Access``, ``Opportunity of Gold Partner User``)."""
    from pytest_cua.orgs.localorg.metadata import MetadataStore
    from pytest_cua.orgs.localorg.metadata import xmltree as X
    from pytest_cua.orgs.localorg.metadata.components import profile_full_name

    store = MetadataStore(org)
    added: list[str] = []
    for kind, name, label, sets, access in ORG_DEFAULT_ACCESS:
        full = profile_full_name(name) if kind == "Profile" else name
        body = store.read(kind, full)
        if body is None and kind == "Profile":
            raise ValueError(f"ORG_DEFAULT_ACCESS names the profile {name!r}, which the org lacks")
        new = body is None
        if body is None:
            body = X.element(kind, [X.leaf("label", label), *(X.leaf("permissionSets", p) for p in sets)])
            added.append(f"{KIND_WORDS[kind]} {label}")
        have = {X.text_of(e, "object") for e in X.children(body, "objectPermissions")}
        wanted = {obj: perms for obj, perms in access.items() if obj not in have}
        if not wanted and not new:
            continue
        entries = [X.element("objectPermissions", [
            *(X.leaf(flag, letter in perms) for letter, flag in sorted(_ACCESS_LETTERS.items(), key=lambda i: i[1])),
            X.leaf("modifyAllRecords", False), X.leaf("object", obj), X.leaf("viewAllFields", False),
            X.leaf("viewAllRecords", False)]) for obj, perms in sorted(wanted.items())]
        out = X.element(kind, [*(c for c in body if kind != "Profile" or c.tag == "objectPermissions"), *entries])
        store.write(kind, full, X.sorted_children(out))
        added += [f"{obj} of {label}" for obj in sorted(wanted)]
    return added


def role_developer_name(name: str) -> str:
    """The DeveloperName Salesforce gives a sample role: its letters and digits run together
    (``Customer Support, North America`` -> ``CustomerSupportNorthAmerica``, ``SVP, Customer Service & Support``
    -> ``SVPCustomerServiceSupport``), as SCUBA's tasks name them (admin_009_001 and admin_009_002)."""
    return re.sub(r"[^A-Za-z0-9]+", "", name)


def install_org_defaults(org: "Org", report: SeedReport | None = None) -> list[str]:
    """The standard roles and system users of a new Developer Edition org that ``org`` lacks (see
    ``ORG_DEFAULT_ROLES``); returns the names installed. Roles the seed loaded without a DeveloperName get the
    one Salesforce derives from the label (``Project Lead`` -> ``Project_Lead``, as admin_009_002 names it)."""
    from pytest_cua.orgs.localorg.seed import load_records

    added: list[str] = []
    for r in org.records("UserRole"):  # a role loaded without a developer name gets the one Salesforce gives it
        if not r.get("DeveloperName") and r.get("Name"):
            org.update_trusted("UserRole", r["Id"], {"DeveloperName": re.sub(r"[^A-Za-z0-9]+", "_",
                                                                            str(r["Name"])).strip("_")})
    roles = {str(r.get("Name", "")).lower(): r["Id"] for r in org.records("UserRole")}
    for name, parent in ORG_DEFAULT_ROLES:
        if name.lower() in roles:
            continue
        row: dict[str, Any] = {"Name": name, "DeveloperName": role_developer_name(name)}
        if parent is not None and parent.lower() in roles:
            row["ParentRoleId"] = roles[parent.lower()]
        roles[name.lower()] = load_records(org, "UserRole", [row], source="Developer Edition org defaults")[0]
        added.append(f"role {name}")
    names = {str(r.get("Name") or f"{r.get('FirstName') or ''} {r.get('LastName') or ''}").strip().lower()
             for r in org.records("User")}
    for first_name, alias in ORG_DEFAULT_USERS:
        full = f"{first_name} User"
        if full.lower() in names:
            continue
        # "security_user@...": service_002_004 assigns to the user whose username starts with security_user
        username = f"{first_name.lower()}_user@org-defaults.pytest-cua.test"
        load_records(org, "User", [{"FirstName": first_name, "LastName": "User", "Alias": alias, "Email": username,
                                    "Username": username, "ProfileId": "Standard User", "IsActive": True}],
                     source="Developer Edition org defaults")
        added.append(f"user {full}")
    if report is not None and added:
        report.installed["UserRole"] = report.installed.get("UserRole", 0) + sum(a.startswith("role ") for a in added)
        report.installed["User"] = report.installed.get("User", 0) + sum(a.startswith("user ") for a in added)
        report.notes.append(f"Developer Edition org defaults: {len(added)} records ({', '.join(added[:3])}, ...)")
    return added
