"""The control resource of a served org: snapshot, restore (within a scope) and residue over HTTPS.

A worker that runs tasks against an org served by another process (``pytest-cua org serve``) rolls it back
through these routes; it never touches the org's store. Every route needs the bearer token of a System
Administrator (401 INVALID_SESSION_ID without a live token, 403 INSUFFICIENT_ACCESS for another user), and
errors come in Salesforce's shape ``[{"message", "errorCode", "fields"}]``::

    GET    /services/data/vNN.N/cua                              {"baseline": "baseline", "snapshots": [...]}
    POST   /services/data/vNN.N/cua/snapshots                    201 {"id": "snap-1", "takenAt": ...}
    POST   /services/data/vNN.N/cua/snapshots/<id>/restore       {"scope": ["Lead", ...] | null} -> 200
    GET    /services/data/vNN.N/cua/snapshots/<id>/residue       {"residue": ["Lead 00Q... created", ...]}
    DELETE /services/data/vNN.N/cua/snapshots/<id>               204

The snapshot ``baseline`` is taken when the server is made (the seed): restoring it resets the org, which is
what the next lease of an org whose worker died does. ``ControlClient`` is the client side.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Sequence

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext, json_response
from pytest_cua.orgs.localorg.errors import OrgError, not_found
from pytest_cua.orgs.localorg.store import OrgSnapshot

BASELINE = "baseline"
MAX_SNAPSHOTS = 32  # the oldest (never the baseline) goes beyond this
PREFIX = "/services/data/v<version:version>/cua"
ADMIN_PROFILE = "System Administrator"


class ControlState:
    """The snapshots a served org keeps for its clients, by id; ``baseline`` is the state at serve time."""

    def __init__(self, baseline: OrgSnapshot) -> None:
        self.baseline = baseline
        self._snapshots: OrderedDict[str, OrgSnapshot] = OrderedDict()
        self._lock = threading.Lock()
        self._seq = 0

    def add(self, snapshot: OrgSnapshot) -> str:
        with self._lock:
            self._seq += 1
            sid = f"snap-{self._seq}"
            self._snapshots[sid] = snapshot
            while len(self._snapshots) > MAX_SNAPSHOTS:
                self._snapshots.popitem(last=False)
        return sid

    def get(self, sid: str) -> OrgSnapshot:
        if sid == BASELINE:
            return self.baseline
        with self._lock:
            found = self._snapshots.get(sid)
        if found is None:
            raise not_found(f"no snapshot {sid!r} (unknown, deleted, or evicted after {MAX_SNAPSHOTS} newer ones)")
        return found

    def drop(self, sid: str) -> None:
        if sid == BASELINE:
            raise OrgError("INVALID_OPERATION", "the baseline snapshot cannot be deleted")
        with self._lock:
            if self._snapshots.pop(sid, None) is None:
                raise not_found(f"no snapshot {sid!r}")

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._snapshots)


def _state(ctx: RequestContext) -> ControlState:
    state: ControlState | None = getattr(ctx.app, "control", None)
    if state is None:  # pragma: no cover - register() sets it
        raise not_found()
    return state


def _require_admin(ctx: RequestContext) -> None:
    """403 INSUFFICIENT_ACCESS unless the token's user is an active System Administrator."""
    user = ctx.org.get("User", ctx.user_id or "") or {}
    profile = ctx.org.get("Profile", user.get("ProfileId") or "") if user.get("ProfileId") else None
    if not user.get("IsActive") or not profile or profile.get("Name") != ADMIN_PROFILE:
        raise OrgError("INSUFFICIENT_ACCESS", "the org's control resource (snapshot, restore, residue) needs a "
                       f"session of an active {ADMIN_PROFILE}", status=403)


def _admin(handler: Callable[..., Response]) -> Callable[..., Response]:
    def checked(ctx: RequestContext, **kw: Any) -> Response:
        _require_admin(ctx)
        return handler(ctx, **kw)
    checked.__qualname__ = handler.__qualname__
    return checked


def info(ctx: RequestContext, version: str) -> Response:
    return json_response({"baseline": BASELINE, "snapshots": _state(ctx).ids()})


def create_snapshot(ctx: RequestContext, version: str) -> Response:
    snap = ctx.org.snapshot()
    sid = _state(ctx).add(snap)
    return json_response({"id": sid, "takenAt": snap.taken_at}, status=201,
                         headers={"Location": f"/services/data/v{version}/cua/snapshots/{sid}"})


def _scope(ctx: RequestContext) -> list[str] | None:
    if not ctx.request.get_data(cache=True).strip():
        return None
    body = ctx.json_body()
    scope = body.get("scope") if isinstance(body, dict) else body
    if scope is None:
        return None
    if not isinstance(scope, list) or not scope or not all(isinstance(n, str) and n.strip() for n in scope):
        raise OrgError("JSON_PARSER_ERROR", 'expected {"scope": ["Object", ...]} (a non-empty list of object names) '
                       'or {"scope": null} for the whole org', ["scope"])
    return [str(n) for n in scope]


def restore(ctx: RequestContext, version: str, sid: str) -> Response:
    snap = _state(ctx).get(sid)
    scope = _scope(ctx)
    ctx.org.restore(snap, scope=scope)
    return json_response({"id": sid, "scope": scope})


def residue(ctx: RequestContext, version: str, sid: str) -> Response:
    return json_response({"id": sid, "residue": ctx.org.residue(_state(ctx).get(sid))})


def delete(ctx: RequestContext, version: str, sid: str) -> Response:
    _state(ctx).drop(sid)
    return Response(status=204)


def register(app: OrgApp) -> None:
    """Add the control routes to ``app`` and take its baseline snapshot (call once the org is seeded)."""
    app.control = ControlState(app.org.snapshot())  # type: ignore[attr-defined]
    add = app.add_route
    add(PREFIX, _admin(info), ["GET"], endpoint="cua.info")
    add(f"{PREFIX}/snapshots", _admin(create_snapshot), ["POST"], endpoint="cua.snapshot")
    add(f"{PREFIX}/snapshots/<sid>/restore", _admin(restore), ["POST"], endpoint="cua.restore")
    add(f"{PREFIX}/snapshots/<sid>/residue", _admin(residue), ["GET"], endpoint="cua.residue")
    add(f"{PREFIX}/snapshots/<sid>", _admin(delete), ["DELETE"], endpoint="cua.delete")


# ---------------------------------------------------------------------------------------------- client

class ControlError(Exception):
    """The control resource answered with an error (its Salesforce error code and message), or is missing."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class ControlClient:
    """The client of a served org's control resource. ``token`` returns a live admin access token (it is asked
    again once when the org answers 401: the token expired or the org was restarted)."""

    def __init__(self, instance_url: str, session: Any, token: Callable[[], str], *, version: str = "59.0",
                 name: str = "") -> None:
        self.base = f"{instance_url.rstrip('/')}/services/data/v{version}/cua"
        self.session = session
        self._token_fn = token
        self._token: str | None = None
        self.name = name or instance_url

    def _call(self, method: str, path: str, json_body: Any = None, timeout: float = 60) -> Any:
        import requests

        for attempt in (1, 2):
            if self._token is None:
                self._token = self._token_fn()
            try:
                r = self.session.request(method, self.base + path, json=json_body, timeout=timeout,
                                         headers={"Authorization": f"Bearer {self._token}"})
            except requests.RequestException as exc:
                raise ControlError(f"org {self.name}: {method} {path or '/'} of the control resource failed: "
                                   f"{type(exc).__name__}: {exc}") from None
            if r.status_code == 401 and attempt == 1:
                self._token = None
                continue
            break
        if r.status_code >= 400:
            code, message = None, r.text[:300]
            try:
                err = r.json()[0]
                code, message = err.get("errorCode"), err.get("message")
            except (ValueError, LookupError, TypeError, AttributeError):
                pass
            hint = " (is it an embedded org served by `pytest-cua org serve`?)" if r.status_code == 404 and \
                not path else ""
            raise ControlError(f"org {self.name}: {method} control{path}: HTTP {r.status_code} {code}: "
                               f"{message}{hint}", r.status_code, code)
        return r.json() if r.content else None

    def info(self) -> dict[str, Any]:
        return dict(self._call("GET", ""))

    def snapshot(self) -> str:
        return str(self._call("POST", "/snapshots")["id"])

    def restore(self, sid: str, scope: Sequence[str] | None = None) -> None:
        self._call("POST", f"/snapshots/{sid}/restore", {"scope": list(scope) if scope else None})

    def residue(self, sid: str) -> list[str]:
        return [str(line) for line in self._call("GET", f"/snapshots/{sid}/residue")["residue"]]

    def drop(self, sid: str) -> None:
        self._call("DELETE", f"/snapshots/{sid}")

    def reset(self) -> None:
        """Put the org back to its baseline (the seed at serve time) and prove it; ``ControlError`` otherwise."""
        self.restore(BASELINE)
        left = self.residue(BASELINE)
        if left:
            raise ControlError(f"org {self.name}: a reset to the baseline left {len(left)} difference(s): "
                               + "; ".join(left[:5]))
