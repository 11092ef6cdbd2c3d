"""Shared pieces of the setup screens: the setup navigation, rendering inside the setup layout, API-name
derivation and small form helpers."""

from __future__ import annotations

import re
from typing import Any, Callable

from werkzeug.wrappers import Response

from pytest_cua.localorg.app import RequestContext
from pytest_cua.localorg.metadata.components import ComponentError
from pytest_cua.localorg.ui.forms import FormErrors
from pytest_cua.localorg.ui.web import redirect, render

SETUP_NAV = [("Users", "ManageUsers"), ("Roles", "Roles"), ("Queues", "Queues"), ("Public Groups", "PublicGroups"),
             ("Permission Sets", "PermSets"), ("Permission Set Groups", "PermSetGroups"),
             ("Sharing Settings", "SecuritySharing"), ("Object Manager", "ObjectManager"), ("Tabs", "CustomTabs"),
             ("Picklist Value Sets", "Picklists"), ("Password Policies", "SecurityPolicies"),
             ("Sales Processes", "OpportunityProcess"), ("Matching Rules", "MatchingRules"),
             ("App Manager", "NavigationMenus"), ("Case Assignment Rules", "CaseRules"),
             ("Entitlement Processes", "EntitlementProcess"), ("Territory Settings", "Territory2Settings"),
             ("Territory Models", "Territory2Models"), ("Approval Processes", "ApprovalProcesses")]


def setup_render(ctx: RequestContext, template: str, status: int = 200, **values: Any) -> Response:
    """Render a setup page (the setup navigation beside the content)."""
    items = [{"label": label, "url": f"/lightning/setup/{page}/home", "page": page} for label, page in SETUP_NAV]
    current = ctx.request.path.split("/")[3] if ctx.request.path.count("/") >= 3 else ""
    return render(ctx, template, status=status, setup_nav=items, setup_current=current, **values)


def saved(errors: FormErrors, write: Callable[[], Any], location: str, message: str) -> Response | None:
    """Run ``write`` (a Metadata store write): the redirect to ``location`` with ``message`` when it worked, None
    with the store's problem added to ``errors`` when the store refused it (nothing is written then)."""
    try:
        write()
    except ComponentError as err:
        errors.add(err.problem)
        return None
    return redirect(location, message)


def profiles(ctx: RequestContext) -> list[dict[str, Any]]:
    """The org's profiles by name (the rows of field-level security and tab visibility steps)."""
    return sorted(ctx.org.records("Profile"), key=lambda p: str(p.get("Name") or "").lower())


def api_name(text: str, limit: int = 80) -> str:
    """A developer name from a label: ``"Tier 3 Support"`` -> ``"Tier_3_Support"``."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", text.strip()).strip("_")
    if name and not name[0].isalpha():
        name = "X" + name
    return name[:limit]


def valid_api_name(name: str) -> bool:
    """Salesforce's rule for API names: a letter first, then letters, digits and single underscores, no
    trailing underscore."""
    return bool(re.match(r"^[A-Za-z](?:[A-Za-z0-9]|_(?!_))*$", name)) and not name.endswith("_")


API_NAME_RULE = ("The API name can contain only underscores and alphanumeric characters. It must be unique, begin "
                 "with a letter, not include spaces, not end with an underscore, and not contain two consecutive "
                 "underscores.")


def formula_syntax_problem(text: str) -> str | None:
    """What is plainly wrong with a formula (unbalanced parentheses or quotes), else None.

    Formulas beyond the local evaluator's subset are saved (Salesforce accepts them) and listed as not enforced
    on the rule's page, so only mistakes every formula engine rejects block the save."""
    depth = 0
    quote: str | None = None
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return "Extra ')'."
    if quote:
        return f"Missing closing {quote}."
    if depth > 0:
        return "Missing ')'."
    return None
