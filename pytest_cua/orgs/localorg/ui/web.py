"""Rendering and request plumbing shared by the UI routes: the Jinja2 environment, the per-session CSRF
token, one-shot flash messages, redirects and the navigation model (the global header, the app's navigation bar,
the App Launcher), which the page hands to our Lightning components (``one-global-header``, ``one-app-nav``) as
JSON props."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.auth import SESSION_COOKIE
from pytest_cua.orgs.localorg.metadata.standard_apps import STANDARD_APPS
from pytest_cua.orgs.localorg.schema import ObjectSchema
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.ui import assets, setup_frame

TEMPLATES = Path(__file__).parent / "templates"
FLASH_COOKIE = "ui_flash"
APP_COOKIE = "ui_app"
DEFAULT_APP = "standard__Sales"
CSRF_FIELD = "_csrf"
#: the navigation bar's tabs before "More", as Lightning shows the first ones that fit a 1280-pixel window
SHOWN_TABS = 9
#: the Global Actions menu of the header: (object, label, icon)
GLOBAL_ACTIONS = (("Event", "New Event", "utility:event"), ("Task", "New Task", "utility:task"),
                  ("Contact", "New Contact", "utility:contact"), ("Opportunity", "New Opportunity",
                                                                   "utility:opportunity"),
                  ("Case", "New Case", "utility:case"), ("Lead", "New Lead", "utility:lead"))

# The objects of the global navigation, in the order the contract lists them.
NAV_OBJECTS = ("Account", "Contact", "Lead", "Opportunity", "Case", "Campaign", "Product2", "Pricebook2", "Quote",
               "Contract", "Order", "Incident", "ChangeRequest", "Knowledge__kav", "Entitlement")
_CSRF_KEY = secrets.token_bytes(32)  # per process: sessions live in the process too

env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]),
                  trim_blocks=True, lstrip_blocks=True)


def plural(obj: ObjectSchema) -> str:
    """The plural label of an object as Salesforce shows it (the schema's ``labelPlural``)."""
    return obj.label_plural


#: the object icons Lightning shows (SLDS standard icons); other objects: "standard:custom" (a custom object's
#: tab style is "custom:customN" on Salesforce, chosen when its tab is made)
_OBJECT_ICONS = {"Account": "account", "Contact": "contact", "Lead": "lead", "Opportunity": "opportunity",
                 "Case": "case", "Campaign": "campaign", "Product2": "product", "Pricebook2": "pricebook",
                 "Quote": "quotes", "Contract": "contract", "Order": "orders", "Incident": "incident",
                 "ChangeRequest": "change_request", "Knowledge__kav": "knowledge", "Entitlement": "entitlement",
                 "User": "user", "Report": "report", "Dashboard": "dashboard", "Task": "task", "Event": "event"}


def object_icon(obj: ObjectSchema) -> str:
    """The object's icon name for lightning-icon (``standard:account``)."""
    return f"standard:{_OBJECT_ICONS.get(obj.name, 'custom' if obj.name.endswith('__c') else 'record')}"


def csrf_token(ctx: RequestContext) -> str:
    """The CSRF token of the request's session: an HMAC of the session id (never the id itself)."""
    sid = ctx.request.cookies.get(SESSION_COOKIE, "")
    return hmac.new(_CSRF_KEY, sid.encode("utf-8"), hashlib.sha256).hexdigest()[:40]


def csrf_ok(ctx: RequestContext) -> bool:
    """True when the posted form carries the session's CSRF token."""
    given = ctx.request.form.get(CSRF_FIELD, "")
    return bool(given) and hmac.compare_digest(given, csrf_token(ctx))


def nav_items(org: Org) -> list[dict[str, str]]:
    """The global navigation: one entry per main object present in the schema, the Reports and Dashboards tabs
    after the first six objects (where the Sales app has them, before the bar's "More")."""
    out = []
    for name in NAV_OBJECTS:
        obj = org.schema.get(name)
        if obj is not None:
            out.append({"name": obj.name, "label": plural(obj), "url": f"/lightning/o/{obj.name}/list"})
    # the Reports and Dashboards tabs are their builders' homes, not record lists
    pages = [{"name": name, "label": label, "url": f"/lightning/o/{name}/home"}
             for name, label in (("Report", "Reports"), ("Dashboard", "Dashboards")) if name in org.schema]
    return out[:6] + pages + out[6:]


def app_tabs(ctx: RequestContext, nav: list[dict[str, str]]) -> list[dict[str, Any]]:
    """The navigation bar's tabs (Home, then ``nav``, the ``nav_items``): the current one marked, object tabs
    with their "New <Object>" menu item."""
    path = ctx.request.path
    tabs: list[dict[str, Any]] = [{"label": "Home", "url": "/lightning/page/home",
                                   "current": path in ("/", "/lightning/page/home")}]
    for item in nav:
        name = item["name"]
        tab: dict[str, Any] = {"label": item["label"], "url": item["url"],
                               "current": path.startswith((f"/lightning/o/{name}/", f"/lightning/r/{name}/"))}
        obj = ctx.org.schema.get(name)
        if obj is not None and name not in ("Report", "Dashboard"):
            tab.update(newUrl=f"/lightning/o/{name}/new", newLabel=f"New {obj.label}")
        tabs.append(tab)
    return tabs


def current_app_label(ctx: RequestContext, apps: list[tuple[str, str]]) -> str:
    """The label of the app the user is in (chosen in the App Launcher; the Sales app by default), among
    ``apps`` (``app_list``)."""
    name = ctx.request.cookies.get(APP_COOKIE, DEFAULT_APP)
    return next((label for app_name, label in apps if app_name == name), STANDARD_APPS[DEFAULT_APP][0])


def app_list(org: Org) -> list[tuple[str, str]]:
    """The org's Lightning apps as the App Launcher lists them: (developer name, label), the standard apps in
    Salesforce's order, then the org's own apps by label."""
    from pytest_cua.orgs.localorg.metadata import MetadataStore
    from pytest_cua.orgs.localorg.metadata import xmltree as X

    store = MetadataStore(org)
    own = []
    for name in store.names("CustomApplication"):
        if name in STANDARD_APPS:
            continue
        body = store.read("CustomApplication", name)
        if body is not None and X.text_of(body, "uiType") != "Aloha":
            own.append((name, X.text_of(body, "label") or name))
    return [(n, v[0]) for n, v in STANDARD_APPS.items()] + sorted(own, key=lambda a: a[1].lower())


#: the colour of each standard app's tile in the App Launcher (SLDS's custom icon colours)
_APP_COLOURS = {"standard__Sales": "slds-icon-custom-62", "standard__Service": "slds-icon-custom-1",
                "standard__Marketing": "slds-icon-custom-11", "standard__Platform": "slds-icon-custom-27",
                "standard__Approvals": "slds-icon-custom-18", "standard__ServiceConsole": "slds-icon-custom-9",
                "standard__LightningSalesConsole": "slds-icon-custom-41"}


def app_icon(name: str, label: str) -> dict[str, str]:
    """An app's own icon in the App Launcher, as Lightning draws an app without an image (SLDS's App Launcher
    tile): its initials, the first letters of its first two words or a one-word name's first two ("SC", "Sa"),
    on its own colour (a standard app's in ``_APP_COLOURS``; another app's chosen by its developer name)."""
    words = [w for w in label.split() if w[:1].isalnum()] or [name]
    initials = (words[0][0] + words[1][0]).upper() if len(words) > 1 else words[0][:2].capitalize()
    colour = _APP_COLOURS.get(name) or \
        f"slds-icon-custom-{int(hashlib.sha256(name.encode()).hexdigest(), 16) % 100 + 1}"
    return {"initials": initials, "colour": colour}


def shell_props(ctx: RequestContext, nav: list[dict[str, str]], user: dict[str, Any],
                query: str = "") -> dict[str, dict[str, Any]]:
    """The props of the page's Lightning shell: ``header`` (one-global-header) and ``nav`` (one-app-nav), for
    the page's ``nav_items`` and logged-in ``user``."""
    org_name = str((ctx.org.records("Organization") or [{}])[0].get("Name") or "Salesforce")
    actions = [{"label": label, "url": f"/lightning/o/{name}/new", "icon": icon}
               for name, label, icon in GLOBAL_ACTIONS if name in ctx.org.schema]
    header = {"orgName": org_name, "userName": str(user.get("Name") or ""),
              "userLogin": str(user.get("Username") or ""), "query": query, "globalActions": actions}
    known = app_list(ctx.org)
    apps = [{"label": label, "url": f"/lightning/app/{name}",
             "description": STANDARD_APPS[name][1] if name in STANDARD_APPS else "", **app_icon(name, label)}
            for name, label in known]
    items = [{"label": i["label"], "url": i["url"]} for i in launcher_items(ctx.org, nav)]
    items.append({"label": "Setup", "url": "/lightning/setup/SetupOneHome/home"})
    bar = {"appName": current_app_label(ctx, known), "tabs": app_tabs(ctx, nav), "shown": SHOWN_TABS,
           "apps": apps, "items": items}
    if ctx.request.path.startswith(SETUP_PREFIX):
        bar.update(appName="Setup", tabs=setup_tabs(ctx.request.path), shown=len(SETUP_TABS))
    return {"header": header, "nav": bar}


SETUP_PREFIX = setup_frame.SETUP_PREFIX
#: the Setup app's navigation bar, as Lightning Experience shows it on every Setup page
SETUP_TABS = (("Home", "SetupOneHome"), ("Object Manager", "ObjectManager"))


def setup_tabs(path: str) -> list[dict[str, Any]]:
    """The Setup app's tabs (Home, Object Manager), the one whose pages ``path`` is on current."""
    return [{"label": label, "url": f"{SETUP_PREFIX}{page}/home", "current": path.startswith(f"{SETUP_PREFIX}{page}/")}
            for label, page in SETUP_TABS]


def launcher_items(org: Org, main: list[dict[str, str]]) -> list[dict[str, str]]:
    """The app launcher's items: the main objects first (``main``, the ``nav_items``), then every other object
    with a name field."""
    seen = {i["name"] for i in main}
    rest = sorted(({"name": o.name, "label": plural(o), "url": f"/lightning/o/{o.name}/list"}
                   for o in launcher_objects(org) if o.name not in seen), key=lambda i: i["label"].lower())
    return main + rest


def launcher_objects(org: Org) -> list[ObjectSchema]:
    """Objects a person opens by name (data API objects with a name field; not the org's own metadata)."""
    return [o for o in org.schema.objects.values()
            if o.api in ("data", "both") and o.name_field and o.name not in ("EntityDefinition", "Organization")]


def current_user(ctx: RequestContext) -> dict[str, Any]:
    """The logged-in user's record (empty dict if it vanished)."""
    return ctx.org.get("User", ctx.user_id or "") or {}


def render(ctx: RequestContext, template: str, status: int = 200, **values: Any) -> Response:
    """Render ``template`` inside the layout, with the navigation, user, CSRF token and pending flash message."""
    try:
        stamp = assets.build_stamp()
    except assets.AssetsMissing as exc:
        return assets.missing_page(exc)
    flash = unquote(ctx.request.cookies.get(FLASH_COOKIE, "")) or None
    values.setdefault("title", "Salesforce")
    framed = bool(setup_frame.classic_segment(ctx.request.path) and setup_frame.framed(ctx.request))
    if framed:  # the content alone: no Lightning header, so no shell props to build
        values.update(framed=True, classic_rule=setup_frame.classic_rule())
    nav, user = nav_items(ctx.org), current_user(ctx)  # once per page: the shell's props and the templates share them
    shell = {} if framed else shell_props(ctx, nav, user, str(values.get("global_q") or ""))
    page = env.get_template(template).render(
        nav=nav, shell=shell, user=user,
        csrf=csrf_token(ctx), csrf_field=CSRF_FIELD, flash=flash, path=ctx.request.path,
        lightning={"stylesheet": f"{assets.STYLESHEET}?v={stamp}"}, **values)
    page = assets.with_scripts(page)
    response = Response(page, status=status, content_type="text/html; charset=utf-8")
    response.headers["Cache-Control"] = "no-store"
    # Lightning frames the org's own pages (Setup's Classic pages), never another site's: same origin only
    response.headers["X-Frame-Options"] = "SAMEORIGIN"
    if flash:
        response.delete_cookie(FLASH_COOKIE, path="/")
    return response


def redirect(location: str, flash: str | None = None) -> Response:
    """A 303 redirect (after a form post), optionally carrying a one-shot message for the next page."""
    response = Response(status=303, headers={"Location": location})
    if flash:
        response.set_cookie(FLASH_COOKIE, quote(flash[:300]), httponly=True, secure=True, samesite="Lax", path="/")
    return response


def forbidden(ctx: RequestContext) -> Response:
    """The page for a post without a valid CSRF token."""
    return render(ctx, "message.html", status=403, title="Session check failed",
                  heading="Session check failed",
                  message="This form was not submitted from this session. Reload the page and try again.")


def not_found_page(ctx: RequestContext, message: str) -> Response:
    """A 404 page inside the layout."""
    return render(ctx, "message.html", status=404, title="Not found", heading="Page not found", message=message)


def url(path: str, params: Mapping[str, Any] | None = None) -> str:
    """``path`` with the non-empty ``params`` as a query string."""
    clean = {k: v for k, v in (params or {}).items() if v not in (None, "")}
    return path + ("?" + urlencode(clean) if clean else "")


env.globals["url"] = url


def get_form(address: str) -> tuple[str, list[tuple[str, str]]]:
    """A GET form that leads to ``address``: its action (the path) and its fields (the query's pairs; a GET form's
    fields replace the action's own query)."""
    parts = urlsplit(address)
    return parts.path, parse_qsl(parts.query, keep_blank_values=True)


env.globals["get_form"] = get_form


def page_binder(page: str) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """For routes shared by several setup pages (queues and public groups, permission sets and groups): wrap a
    handler ``fn(ctx, page, **kw)`` into a route handler ``(ctx, **kw)`` for ``page``."""
    def bind(fn: Callable[..., Response]) -> Callable[..., Response]:
        def handler(ctx: RequestContext, **kw: Any) -> Response:
            return fn(ctx, page, **kw)
        handler.__doc__ = fn.__doc__
        return handler
    return bind
