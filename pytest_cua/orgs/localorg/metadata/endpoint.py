"""The Metadata API's SOAP endpoint: ``POST /services/Soap/m/NN.N`` (and any path below it, as clients such as
simple-salesforce post to ``.../deployRequest/<id>``).

The session id is in ``SessionHeader``; the envelope is read by ``localorg.soap.read_envelope`` (no DOCTYPE or
ENTITY, INVALID_SESSION_ID fault without a valid session). Calls: describeMetadata, listMetadata,
readMetadata, createMetadata, updateMetadata, upsertMetadata, deleteMetadata, renameMetadata, retrieve,
checkRetrieveStatus, deploy, checkDeployStatus, cancelDeploy, deployRecentValidation and checkStatus. A deploy
or retrieve runs when it is asked for; its status calls answer ``done`` at once. Faults are Salesforce's:
``soapenv:Client`` for a request that is not a valid call (malformed XML, unknown operation, bad base64),
``sf:INVALID_TYPE`` for an unknown metadata type, ``sf:INVALID_ID_FIELD`` for an unknown async id.
"""

from __future__ import annotations

import base64
import binascii
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree as ET
from xml.sax.saxutils import escape

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import soap, values
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext
from pytest_cua.orgs.localorg.metadata import packages
from pytest_cua.orgs.localorg.metadata import xmltree as X
from pytest_cua.orgs.localorg.metadata.components import ComponentError, FileProps, MetadataStore
from pytest_cua.orgs.localorg.metadata.types import FOLDER_TYPES, TYPES, root_tag, settings_member, type_info

log = logging.getLogger("pytest_cua.orgs.localorg.metadata")
MAX_JOBS = 64


def _fault(code: str, message: str, *, client: bool = False) -> Response:
    return soap.fault(code, message, client=client, namespace=X.MD, fault_namespace=X.MD)


def _ok(operation: str, results: list[str]) -> Response:
    return soap._xml(200, f"<{operation}Response>" + "".join(results) + f"</{operation}Response>",
                     namespace=X.MD, fault_namespace=X.MD)


def _date(stamp: str | None) -> str:
    """Stored datetimes (``...+0000``) in xsd:dateTime form (``...Z``)."""
    if not stamp:
        return "1970-01-01T00:00:00.000Z"
    return stamp[:-5] + "Z" if stamp.endswith("+0000") else stamp


def _b(value: bool) -> str:
    return "true" if value else "false"


def _leaf(tag: str, value: Any) -> str:
    if value is None:
        return f'<{tag} xsi:nil="true"/>'
    text = _b(value) if isinstance(value, bool) else str(value)
    return f"<{tag}>{escape(text)}</{tag}>"


@dataclass
class Job:
    """An async request: a retrieve or a deploy, finished when it is made."""

    id: str
    kind: str  # "retrieve" / "deploy"
    created: str
    user_id: str | None
    retrieve: packages.RetrieveOutcome | None = None
    deploy: packages.DeployOutcome | None = None
    zip_bytes: bytes = b""
    canceled: bool = False


class MetadataService:
    """The Metadata API of one app: the calls and the async jobs they made (the newest ``MAX_JOBS``)."""

    def __init__(self, app: OrgApp) -> None:
        self.app = app
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ plumbing

    def _add(self, job: Job) -> None:
        with self._lock:
            self._jobs[job.id] = job
            while len(self._jobs) > MAX_JOBS:
                self._jobs.popitem(last=False)

    def _job(self, job_id: str, kind: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id.strip())
            if job is None and len(job_id.strip()) == 15:
                job = next((j for k, j in self._jobs.items() if k[:15] == job_id.strip()), None)
        if job is None or job.kind != kind:
            raise soap.SoapFault("INVALID_ID_FIELD", f"invalid {kind} id: {job_id.strip() or '(none)'}")
        return job

    def endpoint(self, ctx: RequestContext, version: str, rest: str = "") -> Response:
        try:
            root, user_id = soap.read_envelope(ctx)
            ctx.user_id = user_id
            operation = soap.body_operation(root)
            name = X.local(operation.tag) if operation is not None else "(none)"
            handler = getattr(self, f"op_{name}", None)
            if operation is None or handler is None:
                raise soap.SoapFault("INVALID_OPERATION", f"No operation available for request {{{X.MD}}}{name}, "
                                     "please check the WSDL for the service.", client=True)
            call = X.strip(operation)
            results = handler(ctx, call, version)
            return _ok(name, results)
        except soap.SoapFault as exc:
            return _fault(exc.code, exc.message, client=exc.client)
        except ComponentError as exc:
            return _fault("INVALID_TYPE" if exc.problem.startswith("Unknown type") else "UNKNOWN_EXCEPTION",
                          exc.problem)
        except Exception:  # a bug must not become a 500 without the SOAP shape
            log.exception("metadata call failed")
            return _fault("UNKNOWN_EXCEPTION", "An unexpected error occurred. Please include this ErrorId if you "
                          "contact support: LO-metadata")

    def _store(self, ctx: RequestContext) -> MetadataStore:
        return MetadataStore(ctx.org, ctx.user_id)

    def _user_name(self, ctx: RequestContext, user_id: str | None) -> str:
        rec = ctx.org.get("User", user_id) if user_id else None
        return str(rec.get("Name") or rec.get("Username") or "") if rec else ""

    def _props(self, ctx: RequestContext, p: FileProps, tag: str = "result") -> str:
        return (f"<{tag}>{_leaf('createdById', p.created_by or '')}{_leaf('createdByName', self._user_name(ctx, p.created_by))}"
                f"{_leaf('createdDate', _date(p.created_date))}{_leaf('fileName', p.file_name)}"
                f"{_leaf('fullName', p.full_name)}{_leaf('id', p.id)}"
                f"{_leaf('lastModifiedById', p.modified_by or '')}"
                f"{_leaf('lastModifiedByName', self._user_name(ctx, p.modified_by))}"
                f"{_leaf('lastModifiedDate', _date(p.modified_date))}{_leaf('manageableState', 'unmanaged')}"
                f"{_leaf('type', p.type)}</{tag}>")

    @staticmethod
    def _known_type(name: str) -> str:
        info = type_info(name)
        if info is None:
            raise soap.SoapFault("INVALID_TYPE", f"This type of metadata is not available for this organization: {name}")
        return info.name

    # ------------------------------------------------------------------ describe / list / read

    def op_describeMetadata(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        parts = []
        for info in sorted((t for t in TYPES.values() if t.parent is None), key=lambda t: t.name):
            kids = "".join(_leaf("childXmlNames", c) for c in info.children.values())
            parts.append(f"<metadataObjects>{kids}{_leaf('directoryName', info.directory)}"
                         f"{_leaf('inFolder', info.in_folder)}{_leaf('metaFile', info.meta_file)}"
                         f"{_leaf('suffix', info.suffix)}{_leaf('xmlName', info.name)}</metadataObjects>")
        return ["<result>" + "".join(parts) + "<organizationNamespace></organizationNamespace>"
                "<partialSaveAllowed>true</partialSaveAllowed><testRequired>false</testRequired></result>"]

    def op_listMetadata(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        queries = X.children(call, "queries")
        if len(queries) > 3:
            raise soap.SoapFault("INVALID_TYPE", "listMetadata takes at most 3 queries")
        store = self._store(ctx)
        out = []
        for q in queries:
            type_name = X.text_of(q, "type") or ""
            if not type_name:
                raise soap.SoapFault("INVALID_TYPE", "a ListMetadataQuery needs a type")
            if type_name in FOLDER_TYPES:  # the folders of reports or dashboards: the folders their names use
                held = FOLDER_TYPES[type_name]
                folders = sorted({p.full_name.split("/", 1)[0] for p in store.list(held) if "/" in p.full_name})
                out += [self._props(ctx, FileProps(type_name, f, f"{TYPES[held].directory}/{f}"))
                        for f in folders if f != "unfiled$public"]
                continue
            canonical = self._known_type(type_name)
            folder = X.text_of(q, "folder")
            props = store.list(canonical, folder)
            if canonical == "Settings" and type_name != "Settings":
                member = settings_member(type_name, "")[1]
                props = [p for p in props if p.full_name == member]
            out += [self._props(ctx, p) for p in props]
        return out

    def op_readMetadata(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        type_name = X.text_of(call, "type") or ""
        canonical = self._known_type(type_name)
        store = self._store(ctx)
        records = []
        for el in X.children(call, "fullNames"):
            full_name = (el.text or "").strip()
            member = settings_member(type_name, full_name)[1] if canonical == "Settings" else full_name
            try:
                stored, body = store.read_named(canonical, member)
            except ComponentError:
                body = None
            if body is None:
                continue
            record = ET.Element("records")  # under its own name: a name in another letter case finds it
            record.append(X.leaf("fullName", full_name if canonical == "Settings" else stored))
            record.extend(c for c in body if c.tag != "fullName")
            shown = root_tag(canonical, member) if canonical == "Settings" else canonical
            records.append(X.to_soap(record, "records", shown))
        return ["<result>" + "".join(records) + "</result>"]

    # ------------------------------------------------------------------ CRUD

    def _typed(self, ctx: RequestContext, call: ET.Element) -> list[tuple[str, str, ET.Element]]:
        # xsi:type is dropped by X.strip; read it from the raw request
        root, _ = soap.read_envelope(ctx)
        operation = soap.body_operation(root)
        raw = [el for el in operation if X.local(el.tag) == "metadata"] if operation is not None else []
        out = []
        for el, stripped in zip(raw, X.children(call, "metadata")):
            xsi_type = next((v for k, v in el.attrib.items() if X.local(k) == "type"), "")
            full_name = X.text_of(stripped, "fullName") or ""
            out.append((xsi_type.split(":")[-1], full_name, stripped))
        return out

    def _save(self, ctx: RequestContext, call: ET.Element, mode: str) -> list[str]:
        store = self._store(ctx)
        out = []
        for type_name, full_name, el in self._typed(ctx, call):
            info = type_info(type_name)
            if info is None:
                raise soap.SoapFault("INVALID_TYPE", f"Unknown type: {type_name or '(no xsi:type)'}")
            name = settings_member(type_name, full_name)[1] if info.name == "Settings" else full_name
            body = ET.Element(root_tag(info.name, name) if info.parent is None else info.name)
            body.extend(c for c in el if c.tag != "fullName")
            exists = bool(name) and store.resolve(info.name, name) is not None  # names are unique ignoring case
            error = None
            if not name:
                error = ("REQUIRED_FIELD_MISSING", "Required field is missing: fullName")
            elif mode == "create" and exists:
                error = ("DUPLICATE_DEVELOPER_NAME", f"There is already a {info.name} named {name}.")
            elif mode == "update" and not exists:
                error = ("INVALID_CROSS_REFERENCE_KEY", f"In field: fullName - no {info.name} named {name} found")
            created = False
            if error is None:
                try:
                    created = store.write(info.name, name, body) == "created"
                except ComponentError as exc:
                    error = ("FIELD_INTEGRITY_EXCEPTION", exc.problem)
            tail = _leaf("created", created) if mode == "upsert" else ""
            if error:
                out.append(f"<result>{tail}<errors>{_leaf('message', error[1])}{_leaf('statusCode', error[0])}"
                           f"</errors>{_leaf('fullName', full_name)}<success>false</success></result>")
            else:
                out.append(f"<result>{tail}{_leaf('fullName', full_name)}<success>true</success></result>")
        return out

    def op_createMetadata(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        return self._save(ctx, call, "create")

    def op_updateMetadata(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        return self._save(ctx, call, "update")

    def op_upsertMetadata(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        return self._save(ctx, call, "upsert")

    def op_deleteMetadata(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        canonical = self._known_type(X.text_of(call, "type") or "")
        store = self._store(ctx)
        out = []
        for el in X.children(call, "fullNames"):
            name = (el.text or "").strip()
            try:
                store.delete(canonical, name)
                out.append(f"<result>{_leaf('fullName', name)}<success>true</success></result>")
            except ComponentError as exc:
                out.append(f"<result><errors>{_leaf('message', exc.problem)}"
                           f"{_leaf('statusCode', 'INVALID_CROSS_REFERENCE_KEY')}</errors>{_leaf('fullName', name)}"
                           "<success>false</success></result>")
        return out

    def op_renameMetadata(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        canonical = self._known_type(X.text_of(call, "type") or "")
        old, new = X.text_of(call, "oldFullName") or "", X.text_of(call, "newFullName") or ""
        store = self._store(ctx)
        try:
            with ctx.org.transaction():
                old, body = store.read_named(canonical, old)
                if body is None:
                    raise ComponentError(f"In field: fullName - no {canonical} named {old} found")
                taken = store.resolve(canonical, new)
                if taken is not None and taken != old:  # a new letter case of its own name is a rename too
                    raise ComponentError(f"There is already a {canonical} named {taken}.")
                store.delete(canonical, old)
                store.write(canonical, new, body)
        except ComponentError as exc:
            return [f"<result><errors>{_leaf('message', exc.problem)}{_leaf('statusCode', 'INVALID_CROSS_REFERENCE_KEY')}"
                    f"</errors>{_leaf('fullName', new)}<success>false</success></result>"]
        return [f"<result>{_leaf('fullName', new)}<success>true</success></result>"]

    # ------------------------------------------------------------------ retrieve

    def op_retrieve(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        request = call[0] if len(call) else None  # retrieveRequest (WSDL) or request (jsforce)
        if request is None:
            raise soap.SoapFault("INVALID_XML", "retrieve needs a RetrieveRequest", client=True)
        api_version = X.text_of(request, "apiVersion") or version
        if X.children(request, "packageNames") or X.children(request, "specificFiles"):
            raise soap.SoapFault("INVALID_OPERATION", "packageNames and specificFiles are not supported by this org; "
                                 "retrieve an unpackaged manifest")
        unpackaged = X.children(request, "unpackaged")
        types = packages.parse_package(unpackaged[0]) if unpackaged else {}
        pkg_version = (X.text_of(unpackaged[0], "version") if unpackaged else None) or api_version
        outcome = packages.retrieve(self._store(ctx), types, pkg_version, X.flag(request, "singlePackage"))
        job = Job(ctx.org.ids.new("09S"), "retrieve", values.now(), ctx.user_id, retrieve=outcome)
        self._add(job)
        return [self._async(job, done=False)]

    def _async(self, job: Job, *, done: bool) -> str:
        state = "Completed" if done else "Queued"
        return f"<result>{_leaf('done', done)}{_leaf('id', job.id)}{_leaf('state', state)}</result>"

    def op_checkRetrieveStatus(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        job = self._job(X.text_of(call, "asyncProcessId") or X.text_of(call, "id") or "", "retrieve")
        include_zip = X.flag(call, "includeZip", True)
        r = job.retrieve
        assert r is not None
        props = "".join(self._props(ctx, p, "fileProperties") for p in r.file_properties)
        messages = "".join(f"<messages>{_leaf('fileName', f)}{_leaf('problem', m)}</messages>" for f, m in r.messages)
        zipped = _leaf("zipFile", base64.b64encode(r.zip_bytes).decode("ascii")) if include_zip else ""
        return [f"<result><done>true</done>{props}{_leaf('id', job.id)}{messages}<status>Succeeded</status>"
                f"<success>true</success>{zipped}</result>"]

    # ------------------------------------------------------------------ deploy

    def op_deploy(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        text = X.text_of(call, "ZipFile") or X.text_of(call, "zipFile") or ""
        try:
            data = base64.b64decode("".join(text.split()), validate=True)
        except (binascii.Error, ValueError):
            raise soap.SoapFault("INVALID_XML", "ZipFile is not valid base64", client=True) from None
        options_el = X.children(call, "DeployOptions") or X.children(call, "deployOptions")
        options = packages.DeployOptions.from_element(options_el[0] if options_el else None)
        return [self._run_deploy(ctx, data, options)]

    def _run_deploy(self, ctx: RequestContext, data: bytes, options: packages.DeployOptions) -> str:
        started = values.now()
        outcome = packages.deploy(self._store(ctx), data, options)
        job = Job(ctx.org.ids.new("0Af"), "deploy", started, ctx.user_id, deploy=outcome, zip_bytes=data)
        self._add(job)
        return self._async(job, done=False)

    def op_deployRecentValidation(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        job = self._job(X.text_of(call, "validationId") or "", "deploy")
        d = job.deploy
        assert d is not None
        if not (d.check_only and d.success):
            raise soap.SoapFault("INVALID_ID_FIELD", "the validation is not a successful check-only deploy")
        options = packages.DeployOptions(check_only=False, rollback_on_error=True, ignore_warnings=d.ignore_warnings)
        started = values.now()
        outcome = packages.deploy(self._store(ctx), job.zip_bytes, options)
        new = Job(ctx.org.ids.new("0Af"), "deploy", started, ctx.user_id, deploy=outcome, zip_bytes=job.zip_bytes)
        self._add(new)
        return [f"<result>{escape(new.id)}</result>"]

    def op_checkDeployStatus(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        job = self._job(X.text_of(call, "asyncProcessId") or X.text_of(call, "id") or "", "deploy")
        details = X.flag(call, "includeDetails", False)
        d = job.deploy
        assert d is not None
        when = _date(job.created)
        body = [_leaf("checkOnly", d.check_only), _leaf("completedDate", when), _leaf("createdBy", job.user_id or ""),
                _leaf("createdByName", self._user_name(ctx, job.user_id)), _leaf("createdDate", when)]
        if details:
            parts = []
            for m in d.messages:
                tag = "componentSuccesses" if m.success else "componentFailures"
                problem = _leaf("problem", m.problem) + _leaf("problemType", m.problem_type) if not m.success else ""
                parts.append(f"<{tag}>{_leaf('changed', m.changed)}{_leaf('componentType', m.component_type)}"
                             f"{_leaf('created', m.created)}{_leaf('createdDate', when)}{_leaf('deleted', m.deleted)}"
                             f"{_leaf('fileName', m.file_name)}{_leaf('fullName', m.full_name)}"
                             f"{_leaf('id', m.id) if m.id else ''}{problem}{_leaf('success', m.success)}</{tag}>")
            body.append("<details>" + "".join(parts) + "<runTestResult><numFailures>0</numFailures><numTestsRun>0"
                        "</numTestsRun><totalTime>0.0</totalTime></runTestResult></details>")
        body += [_leaf("done", True)]
        if d.error_message:
            body += [_leaf("errorMessage", d.error_message), _leaf("errorStatusCode", d.error_status_code)]
        status = "Canceled" if job.canceled else d.status
        body += [_leaf("id", job.id), _leaf("ignoreWarnings", d.ignore_warnings), _leaf("lastModifiedDate", when),
                 _leaf("numberComponentErrors", d.errors), _leaf("numberComponentsDeployed", d.deployed),
                 _leaf("numberComponentsTotal", d.total), _leaf("numberTestErrors", 0),
                 _leaf("numberTestsCompleted", 0), _leaf("numberTestsTotal", 0),
                 _leaf("rollbackOnError", d.rollback_on_error), _leaf("runTestsEnabled", False),
                 _leaf("startDate", when), _leaf("status", status), _leaf("success", d.success)]
        return ["<result>" + "".join(body) + "</result>"]

    def op_cancelDeploy(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        job = self._job(X.text_of(call, "String") or X.text_of(call, "asyncProcessId") or
                        (call[0].text if len(call) else "") or "", "deploy")
        return [f"<result>{_leaf('done', True)}{_leaf('id', job.id)}</result>"]

    def op_checkStatus(self, ctx: RequestContext, call: ET.Element, version: str) -> list[str]:
        out = []
        for el in X.children(call, "asyncProcessId"):
            job_id = (el.text or "").strip()
            with self._lock:
                job = self._jobs.get(job_id)
            if job is None:
                raise soap.SoapFault("INVALID_ID_FIELD", f"invalid id: {job_id or '(none)'}")
            out.append(self._async(job, done=True))
        return out


def register(app: OrgApp) -> MetadataService:
    """Add ``POST /services/Soap/m/NN.N[/...]`` (the session id is in the SOAP header); the app's own errors there
    (the daily limit) are Metadata API faults."""
    service = MetadataService(app)
    app.add_route("/services/Soap/m/<version:version>", service.endpoint, ["POST"], auth="none",
                  endpoint="soap.metadata")
    app.add_route("/services/Soap/m/<version:version>/<path:rest>", service.endpoint, ["POST"], auth="none",
                  endpoint="soap.metadata.path")
    app.add_error_renderer("/services/Soap/m/", lambda error: _fault(error.code, error.message))
    return service
