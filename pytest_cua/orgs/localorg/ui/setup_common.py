"""Shared pieces of the setup screens: the setup navigation, rendering inside the setup layout, the request's
Metadata store, API-name derivation and the handlers setup forms share (``saved`` for a Metadata store write,
``save_record`` for a new / edit form's record, ``chosen_ids`` and ``save_links`` for a choice of items saved as
link records: assignments, group components)."""

from __future__ import annotations

import re
from typing import Any, Callable, Container, Iterable, Mapping

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.metadata import MetadataStore
from pytest_cua.orgs.localorg.metadata.components import ComponentError
from pytest_cua.orgs.localorg.ui import object_nav, setup_frame
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.web import redirect, render

SETUP_NAV = [("Users", "ManageUsers"), ("Profiles", "EnhancedProfiles"), ("Roles", "Roles"), ("Queues", "Queues"), ("Public Groups", "PublicGroups"),
             ("Permission Sets", "PermSets"), ("Permission Set Groups", "PermSetGroups"),
             ("Sharing Settings", "SecuritySharing"), ("Object Manager", "ObjectManager"), ("Tabs", "CustomTabs"),
             ("Picklist Value Sets", "Picklists"), ("Password Policies", "SecurityPolicies"),
             ("Sales Processes", "OpportunityProcess"), ("Matching Rules", "MatchingRules"),
             ("App Manager", "NavigationMenus"), ("Case Assignment Rules", "CaseRules"),
             ("Entitlement Processes", "EntitlementProcess"), ("Territory Settings", "Territory2Settings"),
             ("Territory Models", "Territory2Models"), ("Approval Processes", "ApprovalProcesses")]


# Salesforce's grouped Setup tree: the page's section ("Administration", "Platform Tools", "Settings"), then its
# collapsible groups, outermost first. A page missing here is listed under "Other".
SETUP_GROUPS: dict[str, tuple[str, ...]] = {
    **{page: ("Administration", "Users") for page in ("ManageUsers", "EnhancedProfiles", "Roles", "Queues",
                                                        "PublicGroups", "PermSets", "PermSetGroups")},
    "MatchingRules": ("Administration", "Data", "Duplicate Management"),
    "NavigationMenus": ("Platform Tools", "Apps"),
    "OpportunityProcess": ("Platform Tools", "Feature Settings", "Sales"),
    "Territory2Settings": ("Platform Tools", "Feature Settings", "Sales", "Sales Territories"),
    "Territory2Models": ("Platform Tools", "Feature Settings", "Sales", "Sales Territories"),
    "CaseRules": ("Platform Tools", "Feature Settings", "Service"),
    "EntitlementProcess": ("Platform Tools", "Feature Settings", "Service", "Entitlement Management"),
    "Milestones": ("Platform Tools", "Feature Settings", "Service", "Entitlement Management"),
    "ObjectManager": ("Platform Tools", "Objects and Fields"),
    "Picklists": ("Platform Tools", "Objects and Fields"),
    "ApprovalProcesses": ("Platform Tools", "Process Automation"),
    "CustomTabs": ("Platform Tools", "User Interface"),
    "SecuritySharing": ("Settings", "Security"),
    "SecurityPolicies": ("Settings", "Security"),
}
SECTIONS = ("Administration", "Platform Tools", "Settings")
# Setup items whose page is not a setup page: Milestones are the MilestoneType records (list and New).
SETUP_EXTRA = [("Milestones", "/lightning/o/MilestoneType/list", "Milestones")]


def setup_tree(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The setup items as Salesforce's Setup tree: sections holding nested groups (``{"label", "groups",
    "items"}``), groups and items in alphabetical order."""
    def node(label: str) -> dict[str, Any]:
        return {"label": label, "groups": {}, "items": []}

    roots: dict[str, dict[str, Any]] = {label: node(label) for label in SECTIONS}
    for item in items:
        path = SETUP_GROUPS.get(item["page"], ("Other",))
        here = roots.setdefault(path[0], node(path[0]))
        for label in path[1:]:
            here = here["groups"].setdefault(label, node(label))
        here["items"].append(item)

    def ordered(n: dict[str, Any]) -> dict[str, Any]:
        return {"label": n["label"], "items": sorted(n["items"], key=lambda i: i["label"]),
                "groups": [ordered(g) for _, g in sorted(n["groups"].items())]}

    return [ordered(r) for r in roots.values() if r["groups"] or r["items"]]


def setup_render(ctx: RequestContext, template: str, status: int = 200, **values: Any) -> Response:
    """Render a setup page (the Setup tree beside the content; on Object Manager's pages, its layout instead,
    ``object_nav``). A Classic page (``setup_frame``) opened in the browser is the Setup app with the page in its
    frame; asked for in the frame, it is the content alone."""
    tree: dict[str, Any] = {"om": object_nav.layout(ctx)}
    if not tree["om"]:  # Object Manager's pages have no Setup tree
        items = [{"label": label, "url": f"/lightning/setup/{page}/home", "page": page} for label, page in SETUP_NAV]
        items += [{"label": label, "url": url, "page": page} for label, url, page in SETUP_EXTRA]
        current = ctx.request.path.split("/")[3] if ctx.request.path.count("/") >= 3 else ""
        tree.update(setup_nav=items, setup_tree=setup_tree(items), setup_current=current)
    if setup_frame.wants_shell(ctx.request):
        title = str(values.get("title") or "Setup")
        return render(ctx, "setup/frame.html", status=status, title=title, **tree,
                      **setup_frame.shell_values(ctx.request, title))
    return render(ctx, template, status=status, **tree, **values)


def metadata_store(ctx: RequestContext) -> MetadataStore:
    """The org's Metadata store, writing as the request's user (every setup save goes through it, as a deploy)."""
    return MetadataStore(ctx.org, ctx.user_id)


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


def save_record(ctx: RequestContext, sobject: str, record: dict[str, Any] | None, data: dict[str, Any]) -> str:
    """Create a ``sobject`` record from ``data`` (``record`` None: a new form) or update ``record`` with it (an
    edit form); the record's id. The org's ``OrgError`` passes through for the form to show."""
    if record is None:
        return ctx.org.create(sobject, data, user_id=ctx.user_id)
    ctx.org.update(sobject, record["Id"], data, user_id=ctx.user_id)
    return str(record["Id"])


def chosen_ids(ctx: RequestContext, errors: FormErrors, name: str, allowed: Iterable[str], *, label: str,
               foreign: str, empty: str | None = None) -> set[str]:
    """The ids of the checkboxes (or dual listbox) ``name`` of a posted setup form. A problem goes to ``errors``
    (at ``name``, named ``label``): ``empty`` when none is chosen (if given), else ``foreign`` when one is not
    ``allowed``."""
    chosen = set(ctx.request.form.getlist(name))
    if empty is not None and not chosen:
        errors.add(empty, name, label)
    elif chosen - set(allowed):
        errors.add(foreign, name, label)
    return chosen


def save_links(ctx: RequestContext, sobject: str, link: Callable[[str], dict[str, Any]], chosen: Iterable[str],
               current: Mapping[str, str] | None = None, shown: Container[str] | None = None) -> None:
    """Save a choice of items as link records (assignments, group components) in one transaction: a ``sobject``
    record ``link(item)`` for each chosen item not linked yet (in id order), and the ``current`` links (item ->
    link record id) of the items not chosen deleted, of the ``shown`` items only when given (a link the page did
    not offer is kept). The org's ``OrgError`` passes through."""
    chosen = set(chosen)
    current = current or {}
    with ctx.org.transaction():
        for item in sorted(chosen - set(current)):
            ctx.org.create(sobject, link(item), user_id=ctx.user_id)
        for item, link_id in current.items():
            if item not in chosen and (shown is None or item in shown):
                ctx.org.delete(sobject, link_id)


def record_form(ctx: RequestContext, errors: FormErrors, heading: str, base: str, rid: str | None, *,
                back: str | None = None, **values: Any) -> Response:
    """A setup new / edit form (``setup/form.html``) of a record whose pages are under ``base``: it posts to
    ``{base}/{rid}/edit`` (``{base}/new`` for a new record) and its Cancel goes to the record's page
    ``{base}/{rid}/view`` (for a new record to ``back``, by default ``{base}/home``); status 400 with ``errors``."""
    return setup_render(ctx, "setup/form.html", status=400 if errors else 200, title=heading, heading=heading,
                        errors=errors, action=f"{base}/{rid}/edit" if rid else f"{base}/new",
                        cancel=f"{base}/{rid}/view" if rid else back or f"{base}/home", **values)
