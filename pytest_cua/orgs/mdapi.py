"""The Metadata API over a simple-salesforce client's own session: the calls pytest-cua makes of any org that
serves ``/services/Soap/m/<version>`` (a real one or the embedded one).

- ``call``: one SOAP operation (``listMetadata``, ``readMetadata``, ``upsertMetadata``, ...), its
  ``<operation>Response`` element back (namespace-free), a ``MetadataCallError`` for a fault;
- ``list_members``: ``listMetadata`` of types, as type -> sorted full names;
- ``retrieve_zip``: retrieve a package (type -> members, ``*`` allowed) through simple-salesforce's
  ``sf.mdapi.retrieve`` / ``retrieve_zip``, the zip's bytes back;
- ``deploy``: deploy files with a package.xml, and optionally a destructiveChanges.xml, through ``sf.deploy`` /
  ``sf.checkDeployStatus``; raises unless the deploy succeeded.
"""

from __future__ import annotations

import io
import time
import zipfile
from typing import Any, Iterable, Mapping
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

MD_NS = "http://soap.sforce.com/2006/04/metadata"
SOAPENV_NS = "http://schemas.xmlsoap.org/soap/envelope/"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
API_VERSION = "59.0"  # package.xml's version
POLLS, POLL_SECONDS = 600, 0.1  # a retrieve or deploy may take a minute on a real org


class MetadataCallError(RuntimeError):
    """A Metadata API call the org did not complete: the SOAP fault, a save result with errors, or a retrieve
    or deploy that ended other than Succeeded (with the status and messages it gave)."""


def plain(el: ET.Element) -> ET.Element:
    """A namespace-free copy of ``el``: tags without ``{namespace}``, leaf text stripped (xmltodict's reading),
    no text on elements with children, no attributes."""
    out = ET.Element(el.tag.rsplit("}", 1)[-1] if isinstance(el.tag, str) else str(el.tag))
    out.text = (el.text or "").strip() if len(el) == 0 else None
    out.extend(plain(c) for c in el if isinstance(c.tag, str))
    return out


def url(sf: Any) -> str:
    found = getattr(sf, "metadata_url", None)
    if not found:
        found = f"https://{sf.sf_instance}/services/Soap/m/{sf.sf_version}/"
    return str(found)


def call(sf: Any, operation: str, inner: str) -> ET.Element:
    """POST one Metadata API operation; the ``<operation>Response`` element (namespace-free)."""
    envelope = (f'<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="{SOAPENV_NS}" '
                f'xmlns:xsi="{XSI_NS}"><soapenv:Header><SessionHeader xmlns="{MD_NS}"><sessionId>'
                f'{escape(sf.session_id)}</sessionId></SessionHeader></soapenv:Header><soapenv:Body>'
                f'<{operation} xmlns="{MD_NS}">{inner}</{operation}></soapenv:Body></soapenv:Envelope>')
    resp = sf.session.post(url(sf), data=envelope.encode("utf-8"), timeout=120,
                           headers={"Content-Type": "text/xml; charset=utf-8", "SOAPAction": '""'})
    try:
        root = plain(ET.fromstring(resp.content))
    except ET.ParseError as err:
        raise MetadataCallError(f"{operation}: HTTP {resp.status_code}, not XML: {resp.text[:300]!r}") from err
    body = root.find("Body")
    fault = body.find("Fault") if body is not None else None
    if fault is not None or resp.status_code != 200:
        code = fault.findtext("faultcode") if fault is not None else ""
        message = fault.findtext("faultstring") if fault is not None else resp.text[:300]
        raise MetadataCallError(f"{operation}: {code} {message}")
    found = body.find(f"{operation}Response") if body is not None else None
    if found is None:
        raise MetadataCallError(f"{operation}: no {operation}Response in {resp.text[:300]!r}")
    return found


def list_members(sf: Any, types: Iterable[str]) -> dict[str, list[str]]:
    """``listMetadata`` of ``types`` (three per call, the API's limit): type -> its members' full names."""
    wanted = sorted(set(types))
    out: dict[str, list[str]] = {t: [] for t in wanted}
    for i in range(0, len(wanted), 3):
        queries = "".join(f"<queries><type>{escape(t)}</type></queries>" for t in wanted[i:i + 3])
        response = call(sf, "listMetadata", queries + f"<asOfVersion>{API_VERSION}</asOfVersion>")
        for result in response.iter("result"):
            kind, name = result.findtext("type") or "", result.findtext("fullName") or ""
            if kind in out and name:
                out[kind].append(name)
    return {t: sorted(set(ms)) for t, ms in out.items()}


def retrieve_zip(sf: Any, types: Mapping[str, Iterable[str]]) -> bytes:
    """Retrieve ``types`` (type -> members, ``*`` allowed) as one unpackaged package; the zip's bytes."""
    job, _state = sf.mdapi.retrieve("pytest-cua", unpackaged={t: list(m) for t, m in types.items()})
    status, error, zipped = None, None, b""
    for _ in range(POLLS):
        status, error, _messages, zipped = sf.mdapi.retrieve_zip(job)
        if status in ("Succeeded", "Failed"):
            break
        time.sleep(POLL_SECONDS)
    if status != "Succeeded":
        raise MetadataCallError(f"retrieve of {dict(types)} ended {status!r}: {error!r}")
    return bytes(zipped)


def package_xml(types: Mapping[str, Iterable[str]]) -> str:
    parts = "".join(f"<types>{''.join(f'<members>{escape(m)}</members>' for m in sorted(ms))}"
                    f"<name>{escape(t)}</name></types>" for t, ms in sorted(types.items()) if ms)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Package xmlns="{MD_NS}">{parts}'
            f"<version>{API_VERSION}</version></Package>")


def deploy(sf: Any, files: Mapping[str, str | bytes], types: Mapping[str, Iterable[str]],
           destructive: Mapping[str, Iterable[str]] | None = None) -> None:
    """Deploy ``files`` (package path -> content) naming ``types`` in package.xml, and delete the components of
    ``destructive`` (destructiveChanges.xml); raise ``MetadataCallError`` unless it succeeded."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("package.xml", package_xml(types))
        if destructive:
            zf.writestr("destructiveChanges.xml", package_xml(destructive))
        for path, content in files.items():
            zf.writestr(path, content)
    buf.seek(0)
    job = sf.deploy(buf, sandbox=False, singlePackage=True, rollbackOnError=True).get("asyncId")
    status: Mapping[str, Any] = {}
    for _ in range(POLLS):
        status = sf.checkDeployStatus(job)
        if status.get("state") in ("Succeeded", "Failed", "SucceededPartial", "Canceled"):
            break
        time.sleep(POLL_SECONDS)
    if status.get("state") != "Succeeded":
        what = dict(types) if not destructive else {"deploy": dict(types), "delete": dict(destructive)}
        raise MetadataCallError(f"deploy of {what} ended {status.get('state')!r}: "
                                f"{status.get('state_detail')!r} {status.get('deployment_detail')!r}")
