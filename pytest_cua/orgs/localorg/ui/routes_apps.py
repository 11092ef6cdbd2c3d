"""Opening an app from the App Launcher (``/lightning/app/<developer name>``), and Setup > App Manager: the org's apps and the New Lightning App wizard (App Details & Branding, App Options,
Utility Items, Navigation Items, User Profiles; "Save & Finish"). Nothing is written before the last step; then
the ``CustomApplication`` and the chosen profiles' ``applicationVisibilities`` go through the Metadata store in
one transaction."""

from __future__ import annotations

from typing import Any

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import profile_full_name
from pytest_cua.orgs.localorg.ui.forms import FormErrors
from pytest_cua.orgs.localorg.ui.setup_common import API_NAME_RULE, api_name, metadata_store, profiles, saved, \
    setup_render, valid_api_name
from pytest_cua.orgs.localorg.ui.web import APP_COOKIE, NAV_OBJECTS, app_list, csrf_ok, forbidden, not_found_page, \
    redirect

APPS = "/lightning/setup/NavigationMenus"
STEPS = ("details", "options", "utility", "items", "profiles")
TITLES = {"details": "App Details & Branding", "options": "App Options", "utility": "Utility Items (Desktop Only)",
          "items": "Navigation Items", "profiles": "User Profiles"}
#: navigation items that are not object tabs: value -> label
_PAGES = {"standard-home": "Home", "standard-report": "Reports", "standard-Dashboard": "Dashboards",
          "standard-WaveHomeLightning": "Analytics", "standard-Chatter": "Chatter", "standard-File": "Files"}
_MORE_OBJECTS = ("Task", "Event", "Customer", "Asset", "Shipment", "Individual", "Address")


def navigation_items(ctx: RequestContext) -> list[tuple[str, str]]:
    """What an app can show in its navigation bar: pages, the standard objects' tabs and the custom tabs."""
    store = metadata_store(ctx)
    out = list(_PAGES.items())
    for name in (*NAV_OBJECTS, *_MORE_OBJECTS):
        obj = ctx.org.schema.get(name)
        if obj is not None:
            out.append((f"standard-{obj.name}", obj.label_plural))
    for tab in store.names("CustomTab"):
        obj = ctx.org.schema.get(tab)
        out.append((tab, obj.label_plural if obj is not None else tab))
    return sorted(out, key=lambda i: i[1].lower())


def apps_home(ctx: RequestContext) -> Response:
    """``/lightning/setup/NavigationMenus/home``: the apps and "New Lightning App"."""
    store = metadata_store(ctx)
    rows = []
    for name in store.names("CustomApplication"):
        body = store.read("CustomApplication", name)
        rows.append({"url": None, "cells": [X.text_of(body, "label") if body is not None else name, name,
                                            (X.text_of(body, "description") or "") if body is not None else "",
                                            "Lightning" if body is not None and X.text_of(body, "uiType") ==
                                            "Lightning" else "Classic"]})
    return setup_render(ctx, "setup/table.html", title="App Manager", heading="Lightning Experience App Manager",
                        actions=[{"label": "New Lightning App", "url": f"{APPS}/new"}],
                        columns=["App Name", "Developer Name", "Description", "App Type"], rows=rows)


def app_new(ctx: RequestContext) -> Response:
    """The New Lightning App wizard."""
    form = ctx.request.form
    store = metadata_store(ctx)
    items = navigation_items(ctx)
    everyone = profiles(ctx)
    names = {p["Id"]: str(p.get("Name")) for p in everyone}
    vals = {k: (form.get(k) or "").strip() for k in ("name", "developer", "description")}
    vals["nav"] = form.get("nav") or "Standard"
    chosen_items = [v for v in form.getlist("items") if v in dict(items)]
    chosen_profiles = [v for v in form.getlist("profiles") if v in names]
    step = str(form.get("step")) if form.get("step") in STEPS else "details"
    errors = FormErrors()
    if ctx.request.method == "POST":
        if not csrf_ok(ctx):
            return forbidden(ctx)
        vals["developer"] = vals["developer"] or api_name(vals["name"])
        go = form.get("go") or "next"
        if go == "back":
            step = STEPS[max(0, STEPS.index(step) - 1)]
        else:
            if not vals["name"]:
                errors.add("Complete this field.", "name", "App Name")
            if vals["developer"] and not valid_api_name(vals["developer"]):
                errors.add(API_NAME_RULE, "developer", "Developer Name")
            elif vals["developer"] and store.read("CustomApplication", vals["developer"]) is not None:
                errors.add(f"An app with the developer name {vals['developer']} already exists.", "developer",
                           "Developer Name")
            if errors:
                step = "details"
            elif step != "profiles":
                step = STEPS[STEPS.index(step) + 1]
            else:
                app = X.element("CustomApplication", [
                    *([X.leaf("description", vals["description"])] if vals["description"] else []),
                    X.leaf("formFactors", "Large"), X.leaf("isNavAutoTempTabsDisabled", False),
                    X.leaf("isNavPersonalizationDisabled", False), X.leaf("label", vals["name"]),
                    X.leaf("navType", "Console" if vals["nav"] == "Console" else "Standard"),
                    *(X.leaf("tabs", v) for v in chosen_items), X.leaf("uiType", "Lightning")])

                def write() -> None:
                    with ctx.org.transaction():
                        store.write("CustomApplication", vals["developer"], app)
                        for pid in chosen_profiles:
                            entry = X.element("applicationVisibilities", [
                                X.leaf("application", vals["developer"]), X.leaf("default", False),
                                X.leaf("visible", True)])
                            store.write("Profile", profile_full_name(names[pid]), X.element("Profile", [entry]))
                done = saved(errors, write, f"{APPS}/home", f'App "{vals["name"]}" was saved.')
                if done is not None:
                    return done
    carried: list[tuple[str, str]] = [("step", step)]
    if step != "details":
        carried += [("name", vals["name"]), ("developer", vals["developer"]), ("description", vals["description"])]
    if step != "options":
        carried.append(("nav", vals["nav"]))
    if step != "items":
        carried += [("items", v) for v in chosen_items]
    if step != "profiles":
        carried += [("profiles", v) for v in chosen_profiles]
    inputs: list[dict[str, Any]] = []
    notes: list[str] = []
    if step == "details":
        inputs = [{"kind": "text", "name": "name", "label": "App Name", "value": vals["name"], "required": True},
                  {"kind": "text", "name": "developer", "label": "Developer Name", "value": vals["developer"],
                   "help": "Filled from the app name when left blank."},
                  {"kind": "textarea", "name": "description", "label": "Description", "value": vals["description"]}]
    elif step == "options":
        inputs = [{"kind": "select", "name": "nav", "label": "Navigation Style", "value": vals["nav"],
                   "options": [("Standard", "Standard navigation"), ("Console", "Console navigation")]}]
    elif step == "utility":
        notes = ["This org offers no utility items: go on to the navigation items."]
    elif step == "items":
        label = dict(items)
        inputs = [{"kind": "dual", "name": "items", "label": "Navigation Items", "available_label": "Available Items",
                   "selected_label": "Selected Items", "available": [i for i in items if i[0] not in chosen_items],
                   "selected": [(v, label[v]) for v in chosen_items]}]
    else:
        inputs = [{"kind": "dual", "name": "profiles", "label": "User Profiles",
                   "available_label": "Available Profiles", "selected_label": "Selected Profiles",
                   "available": [(p["Id"], names[p["Id"]]) for p in everyone if p["Id"] not in chosen_profiles],
                   "selected": [(pid, names[pid]) for pid in chosen_profiles]}]
    buttons = [{"label": "Save & Finish" if step == "profiles" else "Next", "name": "go", "value": "next",
                "brand": True}]
    if step != "details":
        buttons.append({"label": "Back", "name": "go", "value": "back"})
    return setup_render(ctx, "setup/wizard.html", status=400 if errors else 200, title="New Lightning App",
                        heading="New Lightning App", kicker="App Manager", errors=errors, notes=notes,
                        step=f"Step {STEPS.index(step) + 1} of {len(STEPS)}", step_title=TITLES[step],
                        action=f"{APPS}/new", cancel=f"{APPS}/home", carried=carried, inputs=inputs, buttons=buttons)


def open_app(ctx: RequestContext, name: str) -> Response:
    """``/lightning/app/<name>``: the app becomes the navigation bar's app (its name shown beside the waffle)
    and its home opens."""
    if name not in {n for n, _ in app_list(ctx.org)}:
        return not_found_page(ctx, f"There is no app named {name}.")
    response = redirect("/lightning/page/home")
    response.set_cookie(APP_COOKIE, name, httponly=True, secure=True, samesite="Lax", path="/")
    return response


def register(app: OrgApp) -> None:
    """Add the app route and the App Manager routes."""
    app.add_route("/lightning/app/<name>", open_app, ["GET"], auth="ui", endpoint="ui.open_app")
    app.add_route(f"{APPS}/home", apps_home, ["GET"], auth="ui", endpoint="ui.apps")
    app.add_route(f"{APPS}/new", app_new, ["GET", "POST"], auth="ui", endpoint="ui.app_new")
