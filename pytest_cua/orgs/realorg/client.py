"""The API client of an org reached over its standard APIs only: simple-salesforce over a session that logs in
again when the org ends the session, and backs off when the org's API limit is reached.

``OrgSession`` is a ``requests.Session``: a call answered 401 (INVALID_SESSION_ID, or a SOAP fault of that code)
is sent once more with a fresh token from ``OrgLogin.login`` (the old token replaced in the Authorization header
and in SOAP bodies), so an expired session is never a task error. A call answered REQUEST_LIMIT_EXCEEDED waits
and tries again (``LIMIT_WAITS``); when the limit persists it raises ``OrgLimitExceeded``, an environment error.
Tokens are registered as secrets as they are issued.

``OrgClient`` bundles the calls the rollback makes: queries (all rows, or with the recycle bin), composite
batches of 25 queries, sObject collections of 200 records (update, delete), the SOAP calls undelete and
emptyRecycleBin, and the limits resource.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence
from urllib.parse import quote

import requests

from pytest_cua.envs.base import EnvironmentError_
from pytest_cua.redaction import register_secrets

if TYPE_CHECKING:
    from pytest_cua.orgs.auth import OrgLogin

API_VERSION = "59.0"
LIMIT_WAITS = (1.0, 2.0, 4.0)  # seconds between tries while the org answers REQUEST_LIMIT_EXCEEDED
BATCH = 25  # subrequests per composite batch
COLLECTION = 200  # records per sObject collection call
log = logging.getLogger("pytest_cua.orgs.realorg")


class OrgLimitExceeded(EnvironmentError_):
    """The org's daily API requests are used up (REQUEST_LIMIT_EXCEEDED after waiting): never an agent failure."""

    error_kind = "environment"


class OrgApiError(EnvironmentError_):
    """A call the rollback needs was refused; the message names the call and the org's error."""

    error_kind = "rollback"


def _limit_exceeded(response: requests.Response) -> bool:
    return response.status_code in (403, 500) and b"REQUEST_LIMIT_EXCEEDED" in response.content[:2000]


def _session_ended(response: requests.Response) -> bool:
    return response.status_code in (401, 500) and b"INVALID_SESSION_ID" in response.content[:2000]


class OrgSession(requests.Session):
    """A session that renews its token on INVALID_SESSION_ID and waits out REQUEST_LIMIT_EXCEEDED."""

    def __init__(self, login: "OrgLogin", *, waits: Sequence[float] = LIMIT_WAITS,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__()
        if login.ca_path:
            self.verify = login.ca_path
            self.trust_env = False
        self.login_settings = login
        self.token = ""
        self.refreshes = 0
        self.limit_waits = 0
        self._waits = tuple(waits)
        self._sleep = sleep
        self._listeners: list[Callable[[str], None]] = []

    def on_token(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(token)`` whenever a new token is issued (the simple-salesforce client keeps one)."""
        self._listeners.append(listener)

    def renew(self) -> str:
        plain = requests.Session()
        if self.login_settings.ca_path:
            plain.verify = self.login_settings.ca_path
            plain.trust_env = False
        try:
            token = self.login_settings.login(plain, API_VERSION)
        finally:
            plain.close()
        register_secrets([token])
        self.token = token
        for listener in self._listeners:
            listener(token)
        return token

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        response = super().request(method, url, *args, **kwargs)
        if _session_ended(response) and self.token:
            old = self.token
            new = self.renew()
            self.refreshes += 1
            log.info("%s: session ended; logged in again", self.login_settings.where)
            headers = dict(kwargs.get("headers") or {})
            if str(headers.get("Authorization", "")).endswith(old):
                headers["Authorization"] = f"Bearer {new}"
            kwargs["headers"] = headers
            data = kwargs.get("data")
            if isinstance(data, bytes) and old.encode() in data:
                kwargs["data"] = data.replace(old.encode(), new.encode())
            elif isinstance(data, str) and old in data:
                kwargs["data"] = data.replace(old, new)
            response = super().request(method, url, *args, **kwargs)
        for wait in self._waits:
            if not _limit_exceeded(response):
                break
            self.limit_waits += 1
            log.warning("%s: REQUEST_LIMIT_EXCEEDED; trying again in %.0f s", self.login_settings.where, wait)
            self._sleep(wait)
            response = super().request(method, url, *args, **kwargs)
        if _limit_exceeded(response):
            raise OrgLimitExceeded(f"{self.login_settings.where}: the org's API request limit is used up "
                                   f"(REQUEST_LIMIT_EXCEEDED after {len(self._waits)} waits); an environment error, "
                                   f"not the agent's")
        return response


class OrgClient:
    """simple-salesforce over an ``OrgSession``, with the bulk calls the rollback makes."""

    def __init__(self, login: "OrgLogin", *, waits: Sequence[float] = LIMIT_WAITS,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        from simple_salesforce import Salesforce

        self.login = login
        self.session = OrgSession(login, waits=waits, sleep=sleep)
        token = self.session.renew()
        self.sf = Salesforce(instance_url=login.instance_url, session_id=token, session=self.session,
                             version=API_VERSION)
        self.session.on_token(self._adopt)
        self.base = f"{login.instance_url}/services/data/v{API_VERSION}"

    def _adopt(self, token: str) -> None:
        self.sf.session_id = token
        self.sf.headers["Authorization"] = f"Bearer {token}"

    @property
    def token(self) -> str:
        return self.session.token

    # -- REST ---------------------------------------------------------------------------------------------
    def _json(self, method: str, path: str, what: str, **kwargs: Any) -> Any:
        response = self.session.request(method, f"{self.base}{path}", timeout=120,
                                        headers={"Authorization": f"Bearer {self.token}",
                                                 "Content-Type": "application/json"}, **kwargs)
        if response.status_code >= 400:
            raise OrgApiError(f"{self.login.where}: {what}: HTTP {response.status_code} {response.text[:400]}")
        return response.json() if response.content else None

    def query(self, soql: str, *, deleted: bool = False) -> list[dict[str, Any]]:
        """Every row of ``soql`` (following ``nextRecordsUrl``); ``deleted``: queryAll, the recycle bin too."""
        body = self._json("GET", f"/{'queryAll' if deleted else 'query'}?q={quote(soql)}", f"query {soql[:120]}")
        rows = list(body.get("records") or [])
        while not body.get("done", True) and body.get("nextRecordsUrl"):
            nxt = str(body["nextRecordsUrl"]).split(f"/v{API_VERSION}", 1)[-1]
            body = self._json("GET", nxt, f"query {soql[:120]} (more)")
            rows += list(body.get("records") or [])
        return [{k: v for k, v in r.items() if k != "attributes"} for r in rows]

    def batch_queries(self, soqls: Sequence[str]) -> list[list[dict[str, Any]] | str]:
        """Run ``soqls`` in composite batches of 25; per query its rows, or the error text."""
        out: list[list[dict[str, Any]] | str] = []
        for i in range(0, len(soqls), BATCH):
            part = soqls[i:i + BATCH]
            body = self._json("POST", "/composite/batch", f"composite batch of {len(part)} queries",
                              json={"batchRequests": [{"method": "GET", "url": f"v{API_VERSION}/query?q={quote(q)}"}
                                                      for q in part]})
            for q, result in zip(part, body.get("results") or []):
                if int(result.get("statusCode", 500)) >= 400:
                    out.append(f"{q[:120]}: {result.get('result')}")
                else:
                    res = result.get("result") or {}
                    if res.get("done") is False:  # more rows than one answer holds: the query on its own, paged
                        out.append(self.query(q))
                        continue
                    out.append([{k: v for k, v in r.items() if k != "attributes"} for r in res.get("records") or []])
        return out

    def describe(self, sobject: str) -> dict[str, Any]:
        return dict(self._json("GET", f"/sobjects/{sobject}/describe", f"describe {sobject}"))

    def describe_global(self) -> list[dict[str, Any]]:
        return list(self._json("GET", "/sobjects", "describe global").get("sobjects") or [])

    def limits(self) -> dict[str, Any]:
        return dict(self._json("GET", "/limits", "limits"))

    def update(self, sobject: str, rows: Sequence[dict[str, Any]]) -> list[str]:
        """Update ``rows`` (each with Id) in collections of 200; the errors, one line each."""
        errors: list[str] = []
        for i in range(0, len(rows), COLLECTION):
            part = [{"attributes": {"type": sobject}, **r} for r in rows[i:i + COLLECTION]]
            results = self._json("PATCH", "/composite/sobjects", f"update {len(part)} {sobject}",
                                 json={"allOrNone": False, "records": part})
            errors += _failures(results, [r["Id"] for r in part], f"update {sobject}")
        return errors

    def delete(self, record_ids: Sequence[str], *, ignore: Iterable[str] = ("ENTITY_IS_DELETED",)) -> list[str]:
        """Delete records in collections of 200; the errors (but ``ignore``'s codes), one line each."""
        errors: list[str] = []
        for i in range(0, len(record_ids), COLLECTION):
            part = list(record_ids[i:i + COLLECTION])
            results = self._json("DELETE", f"/composite/sobjects?allOrNone=false&ids={','.join(part)}",
                                 f"delete {len(part)} records")
            errors += _failures(results, part, "delete", ignore=ignore)
        return errors

    # -- SOAP ---------------------------------------------------------------------------------------------
    def soap_ids(self, call: str, record_ids: Sequence[str], *, ignore: Iterable[str] = ()) -> list[str]:
        """``undelete`` or ``emptyRecycleBin`` of ``record_ids`` (200 per call); the errors, one line each."""
        from pytest_cua.orgs.localorg.soap import ids_request, parse_convert_response

        errors: list[str] = []
        for i in range(0, len(record_ids), COLLECTION):
            part = list(record_ids[i:i + COLLECTION])
            response = self.session.post(f"{self.login.instance_url}/services/Soap/u/{API_VERSION}",
                                         data=ids_request(self.token, call, part).encode(), timeout=120,
                                         headers={"Content-Type": "text/xml; charset=utf-8", "SOAPAction": call})
            try:
                results = parse_convert_response(response.text)
            except Exception as exc:  # noqa: BLE001 - a fault or a non-XML answer
                raise OrgApiError(f"{self.login.where}: {call} of {len(part)} records: {exc}") from None
            for rid, res in zip(part, results):
                if not res.get("success"):
                    codes = [str(e.get("statusCode")) for e in res.get("errors") or []]
                    if not set(codes) & set(ignore):
                        errors.append(f"{call} {rid}: " + "; ".join(f"{e.get('statusCode')}: {e.get('message')}"
                                                                  for e in res.get("errors") or []))
        return errors

    def close(self) -> None:
        self.session.close()


def _failures(results: Any, ids: Sequence[str], what: str, ignore: Iterable[str] = ()) -> list[str]:
    out = []
    for rid, res in zip(ids, results or []):
        if res.get("success"):
            continue
        errs = res.get("errors") or []
        if {str(e.get("statusCode")) for e in errs} & set(ignore):
            continue
        out.append(f"{what} {rid}: " + "; ".join(f"{e.get('statusCode')}: {e.get('message')}" for e in errs))
    return out
