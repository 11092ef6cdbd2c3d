"""The WSGI application of the org: routing, authentication per route, body limits and Salesforce-shaped errors.

The app knows no protocol: each protocol module plugs itself in with a ``register(app)`` function that adds
its routes through ``OrgApp.route`` / ``OrgApp.add_route`` (``api.register(app)``, ``soap.register(app)``,
``metadata.register(app)``, ``pages.register(app)``; a UI package adds its own the same way) and, when its
errors are not the REST body, an error renderer for its path prefix (``OrgApp.add_error_renderer``: the SOAP APIs
send the daily limit's REQUEST_LIMIT_EXCEEDED as a SOAP fault). Each route declares how it is authenticated:

- ``auth="api"``: ``Authorization: Bearer <access token>``; otherwise 401 INVALID_SESSION_ID.
- ``auth="ui"``: the browser session cookie ``sid``; otherwise a redirect to ``/login?startURL=...``.
- ``auth="none"``: public (only the OAuth token endpoint, the login page and frontdoor).

A route also declares whether a call counts against the daily API requests (``counted``; the OAuth token
endpoint and the limits resource do not). A handler is ``handler(ctx: RequestContext, **url_values) -> werkzeug
Response`` and may raise ``OrgError``.

Imports: werkzeug and the org's lower modules (``auth``, ``errors``, ``store``); never a protocol module.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Iterable
from urllib.parse import quote

from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound, RequestEntityTooLarge
from werkzeug.routing import BaseConverter, Map, Rule
from werkzeug.wrappers import Request, Response

from pytest_cua.orgs.localorg.auth import SESSION_COOKIE, Credentials, TokenStore
from pytest_cua.orgs.localorg.errors import OrgError
from pytest_cua.orgs.localorg.store import Org

log = logging.getLogger("pytest_cua.orgs.localorg")

API_VERSION = "59.0"
MAX_BODY = 10 * 1024 * 1024
Handler = Callable[..., Response]
ErrorRenderer = Callable[[OrgError], Response]


class VersionConverter(BaseConverter):
    """``59.0`` in ``/services/data/v59.0/...``."""

    regex = r"\d{1,3}\.\d"


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response (UTF-8, compact)."""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return Response(body, status=status, headers=headers, content_type="application/json;charset=UTF-8")


def error_response(error: OrgError) -> Response:
    """Salesforce's error body ``[{"message", "errorCode", "fields"}]`` with the error's status."""
    return json_response(error.body(), status=error.status)


INVALID_SESSION = OrgError("INVALID_SESSION_ID", "Session expired or invalid", status=401)


class OrgRequest(Request):
    """A request with the body limit of the org (413 beyond it)."""

    max_content_length = MAX_BODY
    max_form_memory_size = MAX_BODY


@dataclass
class RequestContext:
    """What a handler gets: the request, the app (org, tokens, credentials) and the authenticated user id."""

    request: OrgRequest
    app: "OrgApp"
    user_id: str | None

    @property
    def org(self) -> Org:
        return self.app.org

    def json_body(self) -> Any:
        """The request body parsed as JSON; JSON_PARSER_ERROR (400) when it is not valid JSON."""
        data = self.request.get_data(cache=True)
        if not data.strip():
            raise OrgError("JSON_PARSER_ERROR", "The request body is empty; expected a JSON document")
        try:
            return json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            pos = f" at [line:{exc.lineno}, column:{exc.colno}]" if isinstance(exc, json.JSONDecodeError) else ""
            raise OrgError("JSON_PARSER_ERROR", f"Unexpected character in JSON: {getattr(exc, 'msg', exc)}{pos}") \
                from None


@dataclass(frozen=True)
class Route:
    """A registered route: its handler, how it is authenticated and whether a call counts against the daily API
    requests."""

    handler: Handler
    auth: str
    counted: bool = True


DEFAULT_DAILY_API_REQUESTS = 1_000_000


class ApiUsage:
    """The org's daily API requests (``DailyApiRequests`` of the limits resource): every call to
    ``/services/...`` or ``/id/...`` counts, except the token endpoint and the limits resource itself; once
    ``max`` are used, calls fail with REQUEST_LIMIT_EXCEEDED until the day (UTC) turns or ``max`` is raised."""

    def __init__(self, max_requests: int = DEFAULT_DAILY_API_REQUESTS) -> None:
        self.max = max_requests
        self.used = 0
        self._day = time.gmtime().tm_yday
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            day = time.gmtime().tm_yday
            if day != self._day:
                self._day, self.used = day, 0
            if self.used >= self.max:
                return False
            self.used += 1
            return True

    def remaining(self) -> int:
        with self._lock:
            return max(0, self.max - self.used)


def limit_exceeded(most: int) -> OrgError:
    """REQUEST_LIMIT_EXCEEDED as Salesforce sends it (403 on REST; a protocol with its own error format renders
    it its way: ``OrgApp.add_error_renderer``)."""
    message = f"TotalRequests Limit exceeded. (the org's daily limit is {most} API requests)"
    return OrgError("REQUEST_LIMIT_EXCEEDED", message, status=403)


class OrgApp:
    """Routing and the request pipeline around an ``Org``."""

    def __init__(self, org: Org, credentials: Credentials, tokens: TokenStore, *, instance_url: str = "") -> None:
        self.org = org
        self.credentials = credentials
        self.tokens = tokens
        self.instance_url = instance_url
        self.url_map = Map(converters={"version": VersionConverter}, strict_slashes=False, merge_slashes=False)
        self._routes: dict[str, Route] = {}
        self._error_renderers: dict[str, ErrorRenderer] = {}
        self._response_filters: list[Callable[[Request, Response], Response]] = []
        self._cursors: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._cursor_lock = threading.Lock()
        self._cursor_seq = 0
        self.api_usage = ApiUsage()
        self.jwt_public_key: Any = None  # the connected app's certificate key for the JWT bearer flow, if any

    # -------------------------------------------------------------- routes

    def add_route(self, rule: str, handler: Handler, methods: list[str], *, auth: str = "api",
                  endpoint: str | None = None, counted: bool = True) -> None:
        """Register ``handler`` for ``rule`` (werkzeug syntax) and ``methods`` with an ``auth`` mode;
        ``counted``: a call on an API path counts against the daily API requests."""
        if auth not in ("api", "ui", "none"):
            raise ValueError(f"auth must be api, ui or none, got {auth!r}")
        name = endpoint or f"{handler.__module__}.{handler.__qualname__}:{rule}"
        if name in self._routes:
            raise ValueError(f"endpoint {name!r} registered twice")
        self._routes[name] = Route(handler, auth, counted)
        self.url_map.add(Rule(rule, endpoint=name, methods=methods))

    def route(self, rule: str, methods: list[str], *, auth: str = "api") -> Callable[[Handler], Handler]:
        """Decorator form of ``add_route``."""
        def decorate(handler: Handler) -> Handler:
            self.add_route(rule, handler, methods, auth=auth)
            return handler
        return decorate

    def add_error_renderer(self, prefix: str, renderer: ErrorRenderer) -> None:
        """Render the errors the app itself answers with (the daily limit) as ``renderer`` does for paths under
        ``prefix`` (the longest registered prefix wins; the REST error body elsewhere)."""
        self._error_renderers[prefix] = renderer

    def render_error(self, path: str, error: OrgError) -> Response:
        """``error`` in the format of the protocol that serves ``path``."""
        prefixes = [p for p in self._error_renderers if path.startswith(p)]
        if not prefixes:
            return error_response(error)
        return self._error_renderers[max(prefixes, key=len)](error)

    def add_response_filter(self, fn: Callable[[Request, Response], Response]) -> None:
        """Pass every response of a route through ``fn(request, response)`` (in the order added): the UI keeps
        Setup's frame across redirects this way."""
        self._response_filters.append(fn)

    # -------------------------------------------------------------- query cursors

    def store_cursor(self, records: list[dict[str, Any]], total: int, path: str) -> str:
        """Keep the remaining rows of a query for ``nextRecordsUrl``; returns the cursor id."""
        with self._cursor_lock:
            self._cursor_seq += 1
            cid = f"01gLO{self._cursor_seq:010d}"
            self._cursors[cid] = {"records": records, "total": total, "path": path}
            while len(self._cursors) > 64:
                self._cursors.popitem(last=False)
        return cid

    def cursor(self, cid: str) -> dict[str, Any] | None:
        """A stored cursor, or None when unknown or evicted."""
        with self._cursor_lock:
            return self._cursors.get(cid)

    # -------------------------------------------------------------- authentication

    def bearer_user(self, request: Request) -> str | None:
        """The user of the request's bearer token (``Authorization: Bearer ...`` or ``OAuth ...``)."""
        header = request.headers.get("Authorization", "")
        m = re.match(r"^(?:Bearer|OAuth)\s+(\S+)$", header.strip(), re.IGNORECASE)
        return self.tokens.check(m.group(1), "token") if m else None

    def session_user(self, request: Request) -> str | None:
        """The user of the request's browser session cookie."""
        return self.tokens.check(request.cookies.get(SESSION_COOKIE), "session")

    # -------------------------------------------------------------- pipeline

    def __call__(self, environ: dict, start_response: Callable) -> Any:
        request = OrgRequest(environ)
        try:
            response = self.dispatch(request)
        except Exception:  # never let a request take the server down
            log.exception("unhandled error in %s %s", request.method, request.path)
            response = error_response(OrgError("UNKNOWN_EXCEPTION", "An unexpected error occurred.", status=500))
        return response(environ, start_response)

    def _is_api_path(self, path: str) -> bool:
        return path.startswith("/services/") or path.startswith("/id/")

    def dispatch(self, request: OrgRequest, *, counted: bool = True) -> Response:
        """Match, authenticate, enforce the body limit and call the handler (``counted``: the call counts
        against the daily API requests; a composite batch's subrequests do not)."""
        length = request.content_length
        if length is not None and length > MAX_BODY:
            return self._too_large(request)
        adapter = self.url_map.bind_to_environ(request.environ)
        try:
            endpoint, values = adapter.match()
        except MethodNotAllowed as exc:
            if self._is_api_path(request.path) and not self._is_public(adapter, exc.valid_methods or []) \
                    and self.bearer_user(request) is None:
                return error_response(INVALID_SESSION)
            allowed = ",".join(sorted(m for m in (exc.valid_methods or []) if m not in ("HEAD", "OPTIONS")))
            return error_response(OrgError("METHOD_NOT_ALLOWED", f"HTTP Method '{request.method}' not allowed. "
                                           f"Allowed are {allowed}", status=405))
        except NotFound:
            if self._is_api_path(request.path):
                if self.bearer_user(request) is None:
                    return error_response(INVALID_SESSION)
                return error_response(OrgError("NOT_FOUND", "The requested resource does not exist", status=404))
            return Response("Not Found", status=404, content_type="text/plain; charset=utf-8")
        except HTTPException as exc:  # redirects for slashes and the like
            return exc.get_response(request.environ)  # type: ignore[return-value]
        route = self._routes[endpoint]
        handler, auth = route.handler, route.auth
        user_id: str | None = None
        if auth == "api":
            user_id = self.bearer_user(request)
            if user_id is None:
                return error_response(INVALID_SESSION)
        if counted and self._is_api_path(request.path) and route.counted:  # refused logins do not count
            if not self.api_usage.take():
                return self.render_error(request.path, limit_exceeded(self.api_usage.max))
        elif auth == "ui":
            user_id = self.session_user(request)
            if user_id is None:
                target = request.full_path.rstrip("?")
                return Response(status=302, headers={"Location": "/login?startURL=" + quote(target, safe="")})
        ctx = RequestContext(request, self, user_id)
        try:
            response = handler(ctx, **values)
            for fn in self._response_filters:
                response = fn(request, response)
            return response
        except RequestEntityTooLarge:
            return self._too_large(request)
        except OrgError as err:
            return error_response(err)

    def _is_public(self, adapter: Any, methods: Iterable[str]) -> bool:
        """Whether the path (matched under another method) is a route that takes no session and is no API call
        (the OAuth token endpoint): a wrong method there is answered without asking for a session."""
        for method in methods:
            try:
                endpoint, _ = adapter.match(method=method)
            except HTTPException:
                continue
            route = self._routes.get(endpoint)
            return route is not None and route.auth == "none" and not route.counted
        return False

    def _too_large(self, request: OrgRequest) -> Response:
        response = error_response(OrgError("REQUEST_ENTITY_TOO_LARGE",
                                           f"The request body exceeds the limit of {MAX_BODY} bytes", status=413))
        response.headers["Connection"] = "close"
        return response
