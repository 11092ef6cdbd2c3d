"""Setup's Classic pages inside the Lightning Setup frame, as Salesforce serves them.

On Salesforce, Setup pages that were never rebuilt for Lightning (users, profiles, permission sets, public groups,
queues, roles, sharing settings, password policies, approval processes, ...) are Classic pages in an iframe of
Lightning Setup: the top document is the Setup app (global header, the Setup navigation bar, the Setup tree), and
the frame holds the Classic page, loaded with ``isdtp=p1`` ("in a Lightning frame"). Object Manager is Lightning,
but its object's Classic pages (New Custom Object, an object's Edit, the New Custom Field wizard, a field's page
and its edit and picklist values pages, a validation rule's page and its New / Edit) are framed the same way,
the object's own navigation beside the frame (``OBJECT_MANAGER_CLASSIC``). Links and forms inside the
frame keep it; a link to a Lightning page (a record, Object Manager) opens in the top document; the top
document's address follows the frame's page.

Here a Classic page's route renders its content as always (``setup_common.setup_render``); this module decides
what the response is:

- the page asked for in a frame (``isdtp`` in the query, or the browser's ``Sec-Fetch-Dest: iframe``): the
  content alone, Classic-styled, with the script that keeps its links and forms in the frame (``framed``);
- a GET of a Classic page's address otherwise (a person or agent opening it, a reload, a Setup tree link): the
  Setup app with the frame (``shell_values``), whose ``src`` is the same address with ``isdtp=p1``;
- anything else (a form post outside a frame): the content, as before.

A redirect answered inside the frame keeps ``isdtp`` (``keep_frame``, a response filter of the app), as
Salesforce's Classic pages do, so a page opened on its own with ``isdtp=p1`` stays on its own.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from werkzeug.wrappers import Request, Response

FRAME_PARAM = "isdtp"
FRAME_VALUE = "p1"
SETUP_PREFIX = "/lightning/setup/"

#: the Setup pages Salesforce serves as Classic pages in the frame, by their address segment
#: (``/lightning/setup/<segment>/...``); Setup Home, Object Manager, App Manager and Permission Set Groups (with their muting sets) are
#: Lightning-native there and here
CLASSIC_PAGES = frozenset({
    "ManageUsers", "EnhancedProfiles", "PermSets", "Roles", "Queues", "PublicGroups",
    "SecuritySharing", "SecurityPolicies", "ApprovalProcesses", "EntitlementProcess", "OpportunityProcess",
    "MatchingRules", "CaseRules", "CustomTabs", "Picklists", "Territory2Settings", "Territory2Models",
})


#: Object Manager's Classic pages, after ``/lightning/setup/ObjectManager/``: ``new``, ``<object>/edit``, and every
#: page under an object's Fields & Relationships and Validation Rules but their lists (``.../view``). Written so
#: that Python's ``re`` and JavaScript's ``RegExp`` read it alike (the framed page's script tests its links with it).
OBJECT_MANAGER_CLASSIC = r"^ObjectManager/(?:new|[^/]+/edit|[^/]+/(?:FieldsAndRelationships|ValidationRules)/(?!view$)[^/].*)$"
_OM_CLASSIC = re.compile(OBJECT_MANAGER_CLASSIC)


def classic_segment(path: str) -> str | None:
    """The segment of a Classic Setup page's address (``/lightning/setup/Roles/new`` -> ``Roles``,
    ``/lightning/setup/ObjectManager/Account/ValidationRules/new`` -> ``ObjectManager``), or None for any other
    address."""
    if not path.startswith(SETUP_PREFIX):
        return None
    rest = path[len(SETUP_PREFIX):]
    segment = rest.split("/", 1)[0]
    return segment if segment in CLASSIC_PAGES or _OM_CLASSIC.match(rest) else None


def classic_rule() -> dict[str, Any]:
    """What a framed page's script needs to tell a link to a Classic page (kept in the frame) from the others:
    the segments framed whole and the pattern of Object Manager's framed pages."""
    return {"segments": sorted(CLASSIC_PAGES), "objectManager": OBJECT_MANAGER_CLASSIC}


def in_frame(request: Request) -> bool:
    """Whether the browser loads the answer into a frame (``Sec-Fetch-Dest: iframe``)."""
    return request.headers.get("Sec-Fetch-Dest", "").lower() == "iframe"


def framed(request: Request) -> bool:
    """Whether the request asks for a Classic page's content alone: inside the Setup frame, or on its own with
    ``isdtp``."""
    return FRAME_PARAM in request.args or in_frame(request)


def wants_shell(request: Request) -> bool:
    """Whether the answer is the Setup app around the frame: a GET of a Classic page not asked for framed."""
    return request.method == "GET" and classic_segment(request.path) is not None and not framed(request)


def with_frame_param(location: str) -> str:
    """``location`` with ``isdtp=p1`` in its query (kept when already there)."""
    parts = urlsplit(location)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != FRAME_PARAM]
    query.append((FRAME_PARAM, FRAME_VALUE))
    return urlunsplit(parts._replace(query=urlencode(query)))


def shell_values(request: Request, title: str) -> dict[str, Any]:
    """What ``setup/frame.html`` needs: the frame's ``src`` (this address with ``isdtp=p1``) and its title."""
    return {"frame_src": with_frame_param(request.full_path.rstrip("?")), "frame_title": f"{title} ~ Salesforce"}


def keep_frame(request: Request, response: Response) -> Response:
    """The app's response filter for redirects answered to a framed request: to a Classic page, the redirect
    keeps ``isdtp``; to any other page (a user's record after its Setup page saved it) from inside the frame,
    the answer is a page that opens it in the top document, as Salesforce's frame does (its cookies kept: the
    next page's message), through the top document's client-side navigation when it has one."""
    location = response.headers.get("Location")
    if not (location and 300 <= response.status_code < 400 and framed(request)):
        return response
    if classic_segment(urlsplit(location).path) is not None:
        response.headers["Location"] = with_frame_param(location)
        return response
    if not in_frame(request) or urlsplit(location).netloc:
        return response
    target = json.dumps(location).replace("<", "\\u003c")
    page = (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Redirecting</title></head><body>"
            f"<script>try {{ window.top.oneNavigate({target}); }}"  # the Setup app's client-side navigation
            f" catch (e) {{ window.top.location.href = {target}; }}</script>"
            f"<a href=\"{html.escape(location)}\" target=\"_top\">Continue</a></body></html>")
    out = Response(page, status=200, content_type="text/html; charset=utf-8")
    out.headers["Cache-Control"] = "no-store"
    for cookie in response.headers.getlist("Set-Cookie"):
        out.headers.add("Set-Cookie", cookie)
    return out
