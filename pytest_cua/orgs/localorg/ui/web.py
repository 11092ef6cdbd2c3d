"""Rendering and request plumbing shared by the UI routes: the Jinja2 environment, the per-session CSRF
token, one-shot flash messages, redirects and the navigation model (global nav, app launcher)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path
from typing import Any, Callable, Mapping
from urllib.parse import quote, unquote, urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import RequestContext
from pytest_cua.orgs.localorg.auth import SESSION_COOKIE
from pytest_cua.orgs.localorg.schema import ObjectSchema
from pytest_cua.orgs.localorg.store import Org

TEMPLATES = Path(__file__).parent / "templates"
FLASH_COOKIE = "ui_flash"
CSRF_FIELD = "_csrf"

# The objects of the global navigation, in the order the contract lists them.
NAV_OBJECTS = ("Account", "Contact", "Lead", "Opportunity", "Case", "Campaign", "Product2", "Pricebook2", "Quote",
               "Contract", "Order", "Incident", "ChangeRequest", "Knowledge__kav", "Entitlement")
_CSRF_KEY = secrets.token_bytes(32)  # per process: sessions live in the process too

env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]),
                  trim_blocks=True, lstrip_blocks=True)


def plural(obj: ObjectSchema) -> str:
    """The plural label of an object as Salesforce shows it (the schema's ``labelPlural``)."""
    return obj.label_plural


def csrf_token(ctx: RequestContext) -> str:
    """The CSRF token of the request's session: an HMAC of the session id (never the id itself)."""
    sid = ctx.request.cookies.get(SESSION_COOKIE, "")
    return hmac.new(_CSRF_KEY, sid.encode("utf-8"), hashlib.sha256).hexdigest()[:40]


def csrf_ok(ctx: RequestContext) -> bool:
    """True when the posted form carries the session's CSRF token."""
    given = ctx.request.form.get(CSRF_FIELD, "")
    return bool(given) and hmac.compare_digest(given, csrf_token(ctx))


def nav_items(org: Org) -> list[dict[str, str]]:
    """The global navigation: one entry per main object present in the schema."""
    out = []
    for name in NAV_OBJECTS:
        obj = org.schema.get(name)
        if obj is not None:
            out.append({"name": obj.name, "label": plural(obj), "url": f"/lightning/o/{obj.name}/list"})
    # the Reports and Dashboards tabs are their builders' homes, not record lists
    for name, label in (("Report", "Reports"), ("Dashboard", "Dashboards")):
        if name in org.schema:
            out.append({"name": name, "label": label, "url": f"/lightning/o/{name}/home"})
    return out


def launcher_items(org: Org) -> list[dict[str, str]]:
    """The app launcher's items: the main objects first, then every other object with a name field."""
    main = nav_items(org)
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
    flash = unquote(ctx.request.cookies.get(FLASH_COOKIE, "")) or None
    values.setdefault("title", "pytest-cua org")
    page = env.get_template(template).render(
        nav=nav_items(ctx.org), launcher=launcher_items(ctx.org), user=current_user(ctx), csrf=csrf_token(ctx),
        csrf_field=CSRF_FIELD, flash=flash, path=ctx.request.path, **values)
    response = Response(page, status=status, content_type="text/html; charset=utf-8")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Frame-Options"] = "DENY"
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


def page_binder(page: str) -> Callable[[Callable[..., Response]], Callable[..., Response]]:
    """For routes shared by several setup pages (queues and public groups, permission sets and groups): wrap a
    handler ``fn(ctx, page, **kw)`` into a route handler ``(ctx, **kw)`` for ``page``."""
    def bind(fn: Callable[..., Response]) -> Callable[..., Response]:
        def handler(ctx: RequestContext, **kw: Any) -> Response:
            return fn(ctx, page, **kw)
        handler.__doc__ = fn.__doc__
        return handler
    return bind
