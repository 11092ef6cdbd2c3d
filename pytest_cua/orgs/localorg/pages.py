"""Browser session routes: ``/secur/frontdoor.jsp``, ``/login``, ``/secur/logout.jsp`` and a placeholder home
page ``/`` (the UI package replaces it by registering its own home route before ``register`` runs, or by
passing ``home=False``)."""

from __future__ import annotations

import html
from urllib.parse import urlsplit

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import INVALID_SESSION, OrgApp, RequestContext, error_response
from pytest_cua.orgs.localorg.auth import SESSION_COOKIE, same_secret


def safe_target(target: str | None, default: str = "/") -> str:
    """A same-site path to redirect to (no scheme, no host, no ``//``); ``default`` otherwise."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    return target


def start_session(ctx: RequestContext, user_id: str, target: str) -> Response:
    """Open a browser session for ``user_id`` and redirect to ``target`` with the session cookie set."""
    sid = ctx.app.tokens.open_session(user_id)
    response = Response(status=302, headers={"Location": target})
    response.set_cookie(SESSION_COOKIE, sid, httponly=True, secure=True, samesite="Lax", path="/")
    return response


def frontdoor(ctx: RequestContext) -> Response:
    """``/secur/frontdoor.jsp?sid=TOKEN[&retURL=/path]``: access token -> browser session."""
    token = ctx.request.args.get("sid")
    user_id = ctx.app.tokens.check(token, "token")
    if user_id is None:
        return error_response(INVALID_SESSION)
    return start_session(ctx, user_id, safe_target(ctx.request.args.get("retURL")))


_LOGIN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Login | pytest-cua org</title></head>
<body>
<main>
<h1>Log in to the pytest-cua org</h1>
{error}
<form method="post" action="/login">
<input type="hidden" name="startURL" value="{start}">
<p><label for="username">Username</label> <input id="username" name="username" type="text" autocomplete="username"></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password"
 autocomplete="current-password"></p>
<p><button id="Login" type="submit">Log In</button></p>
</form>
</main>
</body></html>
"""


def login(ctx: RequestContext) -> Response:
    """The login page (GET) and its form post (POST username/password -> session cookie)."""
    request = ctx.request
    start = safe_target(request.values.get("startURL"))
    error = ""
    if request.method == "POST":
        creds = ctx.app.credentials
        username = request.form.get("username", "")
        if username.lower() == creds.username.lower() and same_secret(request.form.get("password"), creds.password):
            users = ctx.org.find("User", Username=creds.username)
            if users:
                return start_session(ctx, users[0]["Id"], start)
        error = '<p role="alert" id="error">Please check your username and password.</p>'
    page = _LOGIN.format(error=error, start=html.escape(start, quote=True))
    return Response(page, status=200 if not error else 401, content_type="text/html; charset=utf-8")


def logout(ctx: RequestContext) -> Response:
    """End the browser session and go to the login page."""
    sid = ctx.request.cookies.get(SESSION_COOKIE)
    if sid:
        ctx.app.tokens.revoke(sid)
    response = Response(status=302, headers={"Location": "/login"})
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


def home(ctx: RequestContext) -> Response:
    """Placeholder home page (replaced by the UI package)."""
    user = ctx.org.get("User", ctx.user_id or "") or {}
    name = html.escape(str(user.get("Name") or ""))
    body = (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Home | pytest-cua org</title>"
            f"</head><body><h1>Home</h1><p id=\"user\">Logged in as {name}</p></body></html>")
    return Response(body, content_type="text/html; charset=utf-8")


def register(app: OrgApp, *, home_page: bool = True) -> None:
    """Add the session routes (and the placeholder home page unless ``home_page`` is False)."""
    app.add_route("/secur/frontdoor.jsp", frontdoor, ["GET"], auth="none")
    app.add_route("/login", login, ["GET", "POST"], auth="none")
    app.add_route("/secur/logout.jsp", logout, ["GET", "POST"], auth="ui")
    if home_page:
        app.add_route("/", home, ["GET"], auth="ui")
