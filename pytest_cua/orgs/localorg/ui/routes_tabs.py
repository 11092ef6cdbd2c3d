"""Setup > Tabs: the custom object tabs and the New Custom Object Tab wizard (object and tab style, tab visibility
per profile, the apps that include the tab).

The wizard writes nothing before Save; Save writes the ``CustomTab``, every profile's ``tabVisibilities`` entry
for it and the tab into each chosen app (``CustomApplication`` ``tabs``) through the Metadata store, in one
transaction, so a Metadata API retrieve sees what was chosen.
"""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import MetadataStore
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError, profile_full_name
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import metadata_store, profiles, setup_render
from pytest_cua.orgs.localorg.ui.web import csrf_ok, forbidden, redirect

TABS = "/lightning/setup/CustomTabs"

#: Salesforce's tab styles for custom object tabs (the CustomTab ``motif`` values), in the picker's order
TAB_STYLES = [
    "Custom20: Airplane", "Custom25: Alarmclock", "Custom51: Apple", "Custom52: Balls", "Custom16: Bank",
    "Custom53: Bell", "Custom50: Bigtop", "Custom54: Boat", "Custom55: Books", "Custom56: Bottle", "Custom13: Box",
    "Custom37: Bridge", "Custom24: Building", "Custom57: BuildingBlock", "Custom58: Caduceus", "Custom38: Camera",
    "Custom59: Can", "Custom31: Car", "Custom60: Castle", "Custom49: CD/DVD", "Custom28: Cellphone",
    "Custom62: Chalkboard", "Custom47: Knight", "Custom63: Chip", "Custom12: Circle", "Custom64: Compass",
    "Custom21: Computer", "Custom40: Creditcard", "Custom65: Cup", "Custom33: Desk", "Custom34: Diamond",
    "Custom66: Dice", "Custom32: Factory", "Custom2: Fan", "Custom26: Flag", "Custom18: Form", "Custom67: Gears",
    "Custom68: Globe", "Custom69: Guitar", "Custom44: Hammer", "Custom14: Hands", "Custom70: Handsaw",
    "Custom71: Headset", "Custom1: Heart", "Custom72: Helicopter", "Custom4: Hexagon", "Custom73: HighwaySign",
    "Custom74: HotAirBalloon", "Custom75: IPPhone", "Custom43: Jewel", "Custom76: Keys", "Custom5: Leaf",
    "Custom9: Lightning", "Custom77: Padlock", "Custom23: Envelope", "Custom78: Map", "Custom79: MeasuringTape",
    "Custom35: Microphone", "Custom10: Moon", "Custom80: Motorcycle", "Custom81: MusicalNote", "Custom29: PDA",
    "Custom82: Pencil", "Custom22: Telephone", "Custom46: Stamp", "Custom84: Presenter", "Custom30: Radardish",
    "Custom85: RealEstateSign", "Custom86: RedCross", "Custom17: Sack", "Custom87: Safe", "Custom88: Sailboat",
    "Custom89: Saxophone", "Custom90: Scales", "Custom91: Shield", "Custom92: Ship", "Custom93: ShoppingCart",
    "Custom7: Square", "Custom42: Cash", "Custom11: Star", "Custom94: Stethoscope", "Custom95: Stopwatch",
    "Custom96: StreetSign", "Custom3: Sun", "Custom97: Telescope", "Custom98: Truck", "Custom45: Ticket",
    "Custom36: Train", "Custom6: Triangle", "Custom48: Trophy", "Custom100: TVWidescreen", "Custom60: Umbrella",
    "Custom19: Wrench"]
VISIBILITIES = [("DefaultOn", "Default On"), ("DefaultOff", "Default Off"), ("Hidden", "Tab Hidden")]


def style_name(motif: str) -> str:
    """What the picker shows for a motif: ``"Custom3: Sun"`` -> ``"Sun"``."""
    return motif.split(": ", 1)[-1]


def _object_label(ctx: RequestContext, api: str) -> str:
    obj = ctx.org.schema.get(api)
    return obj.label if obj is not None else api


def tabs_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/CustomTabs/home``: Custom Object Tabs (label, tab style) and New."""
    store = metadata_store(ctx)
    rows = []
    for name in store.names("CustomTab"):
        body = store.read("CustomTab", name)
        if body is not None and X.flag(body, "customObject"):
            rows.append({"url": None, "cells": [_object_label(ctx, name), style_name(X.text_of(body, "motif") or ""),
                                                X.text_of(body, "description") or ""]})
    return setup_render(ctx, "setup/table.html", title="Tabs", heading="Custom Tabs", caption="Custom Object Tabs",
                        actions=[{"label": "New", "url": f"{TABS}/new"}],
                        columns=["Label", "Tab Style", "Description"], rows=rows)


def _apps(store: MetadataStore) -> list[tuple[str, str]]:
    out = []
    for name in store.names("CustomApplication"):
        body = store.read("CustomApplication", name)
        out.append((name, (X.text_of(body, "label") if body is not None else None) or name))
    return sorted(out, key=lambda a: a[1].lower())


def tab_new(ctx: RequestContext) -> Response:
    """``/lightning/setup/CustomTabs/new``: the New Custom Object Tab wizard (``?object=X__c`` preselects)."""
    store = metadata_store(ctx)
    form = ctx.request.form if ctx.request.method == "POST" else ctx.request.args
    if ctx.request.method == "POST" and not csrf_ok(ctx):
        return forbidden(ctx)
    errors = FormErrors()
    have_tab = set(store.names("CustomTab"))
    choices = [(o.name, o.label) for o in sorted(ctx.org.schema.objects.values(), key=lambda o: o.label.lower())
               if o.custom and o.name not in have_tab]
    vals = {"object": (form.get("object") or "").strip(), "motif": (form.get("motif") or "").strip(),
            "description": (form.get("description") or "").strip()}
    all_profiles = profiles(ctx)
    visibility = {p["Id"]: form.get(f"vis_{p['Id']}") or "DefaultOn" for p in all_profiles}
    apps = _apps(store)
    chosen_apps = set(form.getlist("app")) if form.get("apps_posted") == "1" else {a for a, _ in apps}
    step = form.get("step") or "details" if ctx.request.method == "POST" else "details"
    go = form.get("go") or "next"
    show = step
    if ctx.request.method == "POST":
        if go == "previous":
            show = {"profiles": "details", "apps": "profiles"}.get(step, "details")
        else:
            if step in ("details", "apps"):
                if not vals["object"] or vals["object"] not in {c for c, _ in choices}:
                    errors.add("Choose a custom object that has no tab yet.", "object", "Object")
                if vals["motif"] not in TAB_STYLES:
                    errors.add("Choose a tab style.", "motif", "Tab Style")
            if step in ("profiles", "apps") and any(v not in dict(VISIBILITIES) for v in visibility.values()):
                errors.add("Choose a tab visibility for every profile.")
            if not errors:
                if step == "apps":
                    saved = _save(ctx, store, vals, all_profiles, visibility, chosen_apps & {a for a, _ in apps}, errors)
                    if saved is not None:
                        return saved
                else:
                    show = {"details": "profiles", "profiles": "apps"}[step]
    titles = {"details": "Enter the Details", "profiles": "Add to Profiles", "apps": "Add to Custom Apps"}
    number = {"details": 1, "profiles": 2, "apps": 3}[show]
    carried: list[tuple[str, str]] = [("step", show)]
    inputs: list[dict[str, Any]] = []
    matrix = None
    if show != "details":
        carried += [("object", vals["object"]), ("motif", vals["motif"]), ("description", vals["description"])]
    if show == "apps":
        carried += [(f"vis_{pid}", v) for pid, v in visibility.items()]
    if show == "details":
        inputs = [{"kind": "select", "name": "object", "label": "Object", "value": vals["object"], "required": True,
                   "options": [("", "--Select--"), *choices]},
                  {"kind": "tabstyle", "name": "motif", "label": "Tab Style", "value": vals["motif"],
                   "required": True, "styles": [(m, style_name(m)) for m in TAB_STYLES]},
                  {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]}]
    elif show == "profiles":
        matrix = {"caption": "Choose the tab visibility for each profile",
                  "columns": [{"label": "Profile", "name": "profile"},
                              {"label": "Tab Visibility for all profiles", "name": "vis", "set_all": VISIBILITIES}],
                  "rows": [{"label": p.get("Name"), "cells": [
                      {"kind": "select", "name": f"vis_{p['Id']}", "label": f"Tab Visibility for {p.get('Name')}",
                       "value": visibility[p["Id"]], "options": VISIBILITIES, "col": "vis"}]} for p in all_profiles]}
    else:
        carried.append(("apps_posted", "1"))
        matrix = {"caption": "Include this tab in these apps",
                  "columns": [{"label": "App", "name": "name"},
                              {"label": "Include Tab", "all_label": "Select/Deselect All", "name": "app", "all": True,
                               "all_checked": chosen_apps >= {a for a, _ in apps}}],
                  "rows": [{"label": label, "cells": [
                      {"name": "app", "value": name, "label": f"Include Tab in {label}", "checked": name in chosen_apps,
                       "col": "app"}]} for name, label in apps]}
    buttons = [{"label": "Save" if show == "apps" else "Next", "name": "go", "value": "next", "brand": True}]
    if show != "details":
        buttons.append({"label": "Previous", "name": "go", "value": "previous"})
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Custom Object Tab",
                        heading="New Custom Object Tab", kicker="Tabs", step=f"Step {number} of 3",
                        step_title=titles[show], errors=errors, action=f"{TABS}/new", cancel=f"{TABS}/home",
                        carried=carried, inputs=inputs, matrix=matrix, buttons=buttons)


def _save(ctx: RequestContext, store: MetadataStore, vals: dict[str, str], every: list[dict[str, Any]],
          visibility: dict[str, str], apps: set[str], errors: FormErrors) -> Response | None:
    tab = vals["object"]
    body = [X.leaf("customObject", True), X.leaf("motif", vals["motif"])]
    if vals["description"]:
        body.append(X.leaf("description", vals["description"]))
    try:
        with ctx.org.transaction():
            store.write("CustomTab", tab, X.element("CustomTab", body))
            for p in every:
                entry = X.element("tabVisibilities", [X.leaf("tab", tab), X.leaf("visibility", visibility[p["Id"]])])
                store.write("Profile", profile_full_name(str(p["Name"])), X.element("Profile", [entry]))
            for app in sorted(apps):
                current = store.read("CustomApplication", app)
                if current is None or tab in [t.text for t in X.children(current, "tabs")]:
                    continue
                current.append(X.leaf("tabs", tab))
                store.write("CustomApplication", app, X.sorted_children(current))
    except ComponentError as err:
        errors.add(err.problem)
        return None
    return redirect(f"{TABS}/home", f'Tab "{_object_label(ctx, tab)}" was created.')


def register(app: OrgApp) -> None:
    """Add the Tabs routes."""
    app.add_route(f"{TABS}/home", tabs_home, ["GET"], auth="ui", endpoint="ui.tabs")
    app.add_route(f"{TABS}/new", tab_new, ["GET", "POST"], auth="ui", endpoint="ui.tab_new")
