"""The SOAP partner API (``POST /services/Soap/u/NN.N``): the calls REST lacks.

- ``login`` (username and password, the password followed by the security token when one is set; no session
  header): a ``loginResponse`` with ``sessionId``, ``serverUrl`` and ``userId``, or the fault
  ``INVALID_LOGIN``. simple-salesforce's ``SalesforceLogin`` speaks it unchanged.
- ``convertLead``: lead conversion (one ``leadConverts`` element per lead, one ``result`` per lead).
- ``undelete`` and ``emptyRecycleBin``: the recycle bin (one ``ids`` element per record, one ``result`` each
  with ``id``, ``success`` and ``errors``).

Every call but ``login`` takes its session id from ``SessionHeader``; every other operation is a SOAP fault,
as an unknown operation is in Salesforce. ``convert_lead_request`` and ``ids_request`` build request bodies for
a client, ``parse_convert_response`` reads the results.
"""

from __future__ import annotations

from typing import Any, Callable
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.errors import OrgError

SOAPENV = "http://schemas.xmlsoap.org/soap/envelope/"
PARTNER = "urn:partner.soap.sforce.com"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
FAULT = "urn:fault.partner.soap.sforce.com"
_CONVERT_FIELDS = ("accountId", "contactId", "convertedStatus", "doNotCreateOpportunity", "leadId",
                   "opportunityName", "overwriteLeadSource", "ownerId", "sendNotificationEmail")


def _xml(status: int, body: str, *, namespace: str = PARTNER, fault_namespace: str = FAULT) -> Response:
    # a fault has no default namespace: faultcode and faultstring are unqualified (clients look them up so)
    default = "" if body.startswith("<soapenv:Fault>") else f'xmlns="{namespace}" '
    envelope = (f'<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="{SOAPENV}" '
                f'{default}xmlns:sf="{fault_namespace}" xmlns:xsi="{XSI}">'
                f"<soapenv:Body>{body}</soapenv:Body></soapenv:Envelope>")
    return Response(envelope, status=status, content_type="text/xml; charset=utf-8")


def fault(code: str, message: str, *, client: bool = False, namespace: str = PARTNER,
          fault_namespace: str = FAULT) -> Response:
    """A SOAP fault (HTTP 500) the way the partner API (or, with the metadata namespaces, the Metadata API)
    sends one: ``sf:<code>`` with an ``UnexpectedErrorFault`` detail, or ``soapenv:Client`` for a request that
    is not a valid call."""
    faultcode = "soapenv:Client" if client else f"sf:{code}"
    detail = "" if client else (f'<detail><sf:UnexpectedErrorFault xsi:type="sf:UnexpectedErrorFault">'
                                f"<sf:exceptionCode>{escape(code)}</sf:exceptionCode><sf:exceptionMessage>"
                                f"{escape(message)}</sf:exceptionMessage></sf:UnexpectedErrorFault></detail>")
    return _xml(500, f"<soapenv:Fault><faultcode>{faultcode}</faultcode><faultstring>{escape(code)}: {escape(message)}"
                     f"</faultstring>{detail}</soapenv:Fault>", namespace=namespace, fault_namespace=fault_namespace)


class SoapFault(Exception):
    """A request that ends in a SOAP fault (``code``, ``message``; ``client`` for ``soapenv:Client``)."""

    def __init__(self, code: str, message: str, *, client: bool = False) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.client = code, message, client


def parse_envelope(raw: bytes) -> ET.Element:
    """A SOAP request body, parsed. Raises ``SoapFault`` INVALID_XML (client) for a body that is not
    well-formed or declares a DOCTYPE or ENTITY (no entity expansion, no external references)."""
    if b"<!DOCTYPE" in raw.upper() or b"<!ENTITY" in raw.upper():
        raise SoapFault("INVALID_XML", "document type declarations are not accepted", client=True)
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
        raise SoapFault("INVALID_XML", f"the request is not well-formed XML: {exc}", client=True) from None
    if _local(root.tag) != "Envelope" or not root.tag.startswith("{" + SOAPENV + "}"):
        raise SoapFault("INVALID_XML", "the request is not a SOAP 1.1 envelope", client=True)
    return root


def session_user(ctx: RequestContext, root: ET.Element) -> str:
    """The user of the envelope's ``SessionHeader``; ``SoapFault`` INVALID_SESSION_ID when missing or unknown."""
    header = _child(root, "Header")
    session_id = _child(_child(header, "SessionHeader"), "sessionId")
    user_id = ctx.app.tokens.check((session_id.text or "").strip() if session_id is not None else None, "token")
    if user_id is None:
        raise SoapFault("INVALID_SESSION_ID", "Invalid Session ID found in SessionHeader: Illegal Session")
    return user_id


def read_envelope(ctx: RequestContext) -> tuple[ET.Element, str]:
    """The parsed envelope of a SOAP request and the user of its ``SessionHeader`` (``SoapFault`` otherwise:
    see ``parse_envelope`` and ``session_user``)."""
    root = parse_envelope(ctx.request.get_data(cache=True))
    return root, session_user(ctx, root)


def body_operation(root: ET.Element) -> ET.Element | None:
    """The first element of the envelope's Body (the call), or None."""
    body = _child(root, "Body")
    return body[0] if body is not None and len(body) else None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child(parent: ET.Element | None, name: str) -> ET.Element | None:
    if parent is None:
        return None
    for el in parent:
        if _local(el.tag) == name:
            return el
    return None


def _bool(text: str | None) -> bool:
    return (text or "").strip().lower() in ("true", "1")


def endpoint(ctx: RequestContext, version: str) -> Response:
    raw = ctx.request.get_data(cache=True)
    try:
        root = parse_envelope(raw)
        operation = body_operation(root)
        name = _local(operation.tag) if operation is not None else "(none)"
        if name == "login" and operation is not None:
            return _login(ctx, operation, version)
        user_id = session_user(ctx, root)
    except SoapFault as exc:
        return fault(exc.code, exc.message, client=exc.client)
    ctx.user_id = user_id
    handler = _CALLS.get(name)
    if handler is None or operation is None:
        return fault("INVALID_OPERATION", f"No operation available for request {{{PARTNER}}}{name}", client=True)
    return handler(ctx, operation)


def _convert_lead(ctx: RequestContext, operation: ET.Element) -> Response:
    results = []
    for item in operation:
        if _local(item.tag) != "leadConverts":
            continue
        values = {_local(el.tag): (el.text or "").strip() for el in item}
        results.append(_convert_one(ctx, values))
    return _xml(200, "<convertLeadResponse>" + "".join(results) + "</convertLeadResponse>")


def _login(ctx: RequestContext, operation: ET.Element, version: str) -> Response:
    from pytest_cua.orgs.localorg.auth import same_secret

    username = (_text(_child(operation, "username")) or "").strip()
    password = _text(_child(operation, "password")) or ""
    creds = ctx.app.credentials
    users = ctx.org.find("User", Username=creds.username) if username.lower() == creds.username.lower() else []
    if not users or not same_secret(password, creds.password):
        return fault("INVALID_LOGIN", "INVALID_LOGIN: Invalid username, password, security token; or user locked "
                                      "out.")
    user_id = users[0]["Id"]
    token = ctx.app.tokens.issue_token(user_id)
    instance = ctx.app.instance_url or ctx.request.host_url.rstrip("/")
    org_id = ctx.org.org_id
    return _xml(200, f"<loginResponse><result><metadataServerUrl>{instance}/services/Soap/m/{version}/{org_id[:15]}"
                     f"</metadataServerUrl><passwordExpired>false</passwordExpired><sandbox>false</sandbox>"
                     f"<serverUrl>{instance}/services/Soap/u/{version}/{org_id[:15]}</serverUrl>"
                     f"<sessionId>{escape(token)}</sessionId><userId>{user_id}</userId><userInfo>"
                     f"<organizationId>{org_id}</organizationId><userName>{escape(creds.username)}</userName>"
                     f"</userInfo></result></loginResponse>")


def _ids_call(response: str, method: str) -> Callable[[RequestContext, ET.Element], Response]:
    def call(ctx: RequestContext, operation: ET.Element) -> Response:
        results = []
        for item in operation:
            if _local(item.tag) != "ids":
                continue
            rid = (item.text or "").strip()
            try:
                done = getattr(ctx.org, method)(rid)
            except OrgError as err:
                results.append(f"<result><errors><message>{escape(err.message)}</message><statusCode>"
                               f"{escape(err.code)}</statusCode></errors><id>{escape(rid)}</id>"
                               f"<success>false</success></result>")
                continue
            results.append(f"<result><id>{done}</id><success>true</success></result>")
        return _xml(200, f"<{response}>" + "".join(results) + f"</{response}>")
    return call


_CALLS: dict[str, Callable[[RequestContext, ET.Element], Response]] = {
    "convertLead": _convert_lead,
    "undelete": _ids_call("undeleteResponse", "undelete"),
    "emptyRecycleBin": _ids_call("emptyRecycleBinResponse", "purge"),
}


def _text(el: ET.Element | None) -> str | None:
    return el.text if el is not None else None


def _convert_one(ctx: RequestContext, v: dict[str, str]) -> str:
    lead_id = v.get("leadId") or ""
    try:
        with ctx.org.transaction():
            kwargs: dict[str, Any] = {"account_id": v.get("accountId") or None,
                                      "contact_id": v.get("contactId") or None,
                                      "create_opportunity": not _bool(v.get("doNotCreateOpportunity")),
                                      "opportunity_name": v.get("opportunityName") or None,
                                      "owner_id": v.get("ownerId") or None, "user_id": ctx.user_id}
            if v.get("convertedStatus"):
                kwargs["converted_status"] = v["convertedStatus"]
            done = ctx.org.convert_lead(lead_id, **kwargs)
    except OrgError as err:
        fields = "".join(f"<fields>{escape(f)}</fields>" for f in err.fields)
        return (f"<result><accountId xsi:nil=\"true\"/><contactId xsi:nil=\"true\"/><errors>{fields}<message>"
                f"{escape(err.message)}</message><statusCode>{escape(err.code)}</statusCode></errors>"
                f"<leadId>{escape(lead_id)}</leadId><opportunityId xsi:nil=\"true\"/><success>false</success>"
                f"</result>")
    opp = f"<opportunityId>{done.opportunity_id}</opportunityId>" if done.opportunity_id else \
        '<opportunityId xsi:nil="true"/>'
    return (f"<result><accountId>{done.account_id}</accountId><contactId>{done.contact_id}</contactId>"
            f"<leadId>{done.lead_id}</leadId>{opp}<success>true</success></result>")


def convert_lead_request(session_id: str, converts: list[dict[str, Any]]) -> str:
    """The SOAP envelope of a ``convertLead`` call: ``converts`` holds LeadConvert fields (leadId, accountId,
    opportunityName, doNotCreateOpportunity, convertedStatus, ...)."""
    items = []
    for c in converts:
        unknown = sorted(set(c) - set(_CONVERT_FIELDS))
        if unknown:
            raise ValueError(f"convertLead: unknown LeadConvert field(s) {unknown}; known: {list(_CONVERT_FIELDS)}")
        parts = [f"<urn:{k}>{escape(str(c[k]).lower() if isinstance(c[k], bool) else str(c[k]))}</urn:{k}>"
                 for k in _CONVERT_FIELDS if c.get(k) is not None]
        items.append("<urn:leadConverts>" + "".join(parts) + "</urn:leadConverts>")
    return (f'<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="{SOAPENV}" '
            f'xmlns:urn="{PARTNER}"><soapenv:Header><urn:SessionHeader><urn:sessionId>{escape(session_id)}'
            f"</urn:sessionId></urn:SessionHeader></soapenv:Header><soapenv:Body><urn:convertLead>"
            + "".join(items) + "</urn:convertLead></soapenv:Body></soapenv:Envelope>")


def ids_request(session_id: str, call: str, record_ids: list[str]) -> str:
    """The SOAP envelope of an ``undelete`` or ``emptyRecycleBin`` call for ``record_ids``."""
    if call not in ("undelete", "emptyRecycleBin"):
        raise ValueError(f"ids_request: {call!r} is not undelete or emptyRecycleBin")
    items = "".join(f"<urn:ids>{escape(rid)}</urn:ids>" for rid in record_ids)
    return (f'<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="{SOAPENV}" '
            f'xmlns:urn="{PARTNER}"><soapenv:Header><urn:SessionHeader><urn:sessionId>{escape(session_id)}'
            f"</urn:sessionId></urn:SessionHeader></soapenv:Header><soapenv:Body><urn:{call}>{items}</urn:{call}>"
            "</soapenv:Body></soapenv:Envelope>")


def parse_convert_response(text: str) -> list[dict[str, Any]]:
    """The ``result`` elements of a ``convertLead`` response (or raise ``OrgError`` for a SOAP fault)."""
    root = ET.fromstring(text)
    body = _child(root, "Body")
    first = body[0] if body is not None and len(body) else None
    if first is None:
        raise OrgError("INVALID_XML", "a SOAP response without a body")
    if _local(first.tag) == "Fault":
        code = _child(first, "faultcode")
        message = _child(first, "faultstring")
        raise OrgError((code.text or "").split(":")[-1] if code is not None else "FAULT",
                       message.text or "" if message is not None else "", status=500)
    out = []
    for result in first:
        rec: dict[str, Any] = {}
        for el in result:
            name = _local(el.tag)
            if name == "errors":
                rec.setdefault("errors", []).append({_local(e.tag): e.text for e in el})
            elif name == "success":
                rec[name] = _bool(el.text)
            else:
                rec[name] = el.text or None
        out.append(rec)
    return out


def register(app: OrgApp) -> None:
    """Add ``POST /services/Soap/u/NN.N`` (the session id is in the SOAP header, not in Authorization); the app's
    own errors there (the daily limit) are SOAP faults."""
    app.add_route("/services/Soap/u/<version:version>", endpoint, ["POST"], auth="none", endpoint="soap.partner")
    app.add_error_renderer("/services/Soap/", lambda error: fault(error.code, error.message))
