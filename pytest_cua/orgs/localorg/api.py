"""The REST API routes: ``/services/data/vNN.N/...`` (data and tooling) and the OAuth endpoints.

What simple-salesforce calls: sobjects (describe global), sobjects/<Object> (info, create), .../describe,
.../<id> (get, update, delete), .../<Field>/<value> (get by external id, upsert), query / queryAll (with
``nextRecordsUrl`` paging at 2,000 rows), tooling/query and tooling/sobjects, composite/sobjects, limits.
What the Salesforce CLI (``sf``) calls besides: ``/services/oauth2/userinfo`` and ``sobjects/User/<id>`` (login),
``query?q=...&columns=true`` (the column metadata ``sf data query`` names its CSV columns after; see
``soql/columns.py``) and the Organization query ``SELECT Name, InstanceName, IsSandbox, TrialExpirationDate,
NamespacePrefix, OrganizationType FROM Organization``.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any, cast

from werkzeug.wrappers import Response

from pytest_cua.orgs.localorg import ids
from pytest_cua.orgs.localorg.app import OrgApp, RequestContext, json_response
from pytest_cua.orgs.localorg.auth import same_secret, signature
from pytest_cua.orgs.localorg.errors import OrgError, not_found
from pytest_cua.orgs.localorg.schema import ObjectSchema
from pytest_cua.orgs.localorg.soql.columns import query_columns

BATCH_SIZE = 2000
SUPPORTED_VERSIONS = [f"{v}.0" for v in range(31, 63)]
DATA = "/services/data/v<version:version>"


def _api_object(ctx: RequestContext, name: str, api: str) -> ObjectSchema:
    obj = ctx.org.schema.get(name)
    if obj is None or not _visible(obj, api):
        raise not_found("The requested resource does not exist")
    return obj


def _visible(obj: ObjectSchema, api: str) -> bool:
    return obj.api == "both" or obj.api == api


def _with_attributes(obj: ObjectSchema, rec: dict[str, Any], version: str, api: str) -> dict[str, Any]:
    base = f"/services/data/v{version}/" + ("tooling/" if api == "tooling" else "")
    out: dict[str, Any] = {"attributes": {"type": obj.name, "url": f"{base}sobjects/{obj.name}/{rec.get('Id')}"}}
    out.update(rec)
    return out


# ---------------------------------------------------------------------------------------------- root, describe

def versions(ctx: RequestContext) -> Response:
    return json_response([{"label": f"v{v}", "url": f"/services/data/v{v}", "version": v} for v in SUPPORTED_VERSIONS])


def resources(ctx: RequestContext, version: str) -> Response:
    base = f"/services/data/v{version}"
    return json_response({name: f"{base}/{name}" for name in ("sobjects", "query", "queryAll", "tooling", "composite",
                                                                "limits")})


def describe_global(ctx: RequestContext, version: str, api: str = "data") -> Response:
    objs = [o for o in ctx.org.schema.objects.values() if _visible(o, api)]
    return json_response({"encoding": "UTF-8", "maxBatchSize": 200,
                          "sobjects": [o.describe_global_entry(version) for o in sorted(objs, key=lambda o: o.name)]})


def sobject_root(ctx: RequestContext, version: str, sobject: str, api: str = "data") -> Response:
    obj = _api_object(ctx, sobject, api)
    if ctx.request.method == "POST":
        body = ctx.json_body()
        if not isinstance(body, dict):
            raise OrgError("JSON_PARSER_ERROR", f"Expected a JSON object of {obj.name} fields")
        rid = ctx.org.create(obj.name, body, user_id=ctx.user_id)
        return json_response({"id": rid, "success": True, "errors": []}, status=201,
                             headers={"Location": f"/services/data/v{version}/sobjects/{obj.name}/{rid}"})
    with ctx.org.lock:
        latest = list(ctx.org.table(obj.name).values())[-5:]
    recent = [_with_attributes(obj, {"Id": r["Id"], obj.name_field or "Id": r.get(obj.name_field or "Id")}, version,
                               api) for r in latest]
    return json_response({"objectDescribe": obj.describe_global_entry(version), "recentItems": recent})


def sobject_describe(ctx: RequestContext, version: str, sobject: str, api: str = "data") -> Response:
    obj = _api_object(ctx, sobject, api)
    return json_response(obj.describe(version))


# ---------------------------------------------------------------------------------------------- records

def _record_id(obj: ObjectSchema, record_id: str) -> str:
    """The 18-character id, or NOT_FOUND (404) as Salesforce answers for a malformed id in the URL."""
    try:
        rid = ids.to18(record_id)
    except ids.MalformedId:
        raise not_found(f"Provided external ID field does not exist or is not accessible: {record_id}") from None
    if rid[:3] != obj.key_prefix:
        raise OrgError("MALFORMED_ID", f"{obj.label} ID: id value of incorrect type: {record_id}", ["Id"])
    return rid


def sobject_record(ctx: RequestContext, version: str, sobject: str, record_id: str, api: str = "data") -> Response:
    obj = _api_object(ctx, sobject, api)
    rid = _record_id(obj, record_id)
    method = ctx.request.method
    if method == "GET":
        wanted = ctx.request.args.get("fields")
        fields = [f.strip() for f in wanted.split(",") if f.strip()] if wanted else None
        rec = ctx.org.get(obj.name, rid, fields=fields)
        if rec is None:
            raise not_found("The requested resource does not exist")
        if fields is not None:
            rec = {"Id": rid, **rec}
        return json_response(_with_attributes(obj, rec, version, api))
    if method == "PATCH":
        body = ctx.json_body()
        if not isinstance(body, dict):
            raise OrgError("JSON_PARSER_ERROR", f"Expected a JSON object of {obj.name} fields")
        ctx.org.update(obj.name, rid, body, user_id=ctx.user_id)
        return Response(status=204)
    ctx.org.delete(obj.name, rid)
    return Response(status=204)


def sobject_by_field(ctx: RequestContext, version: str, sobject: str, field: str, value: str,
                     api: str = "data") -> Response:
    obj = _api_object(ctx, sobject, api)
    f = obj.field(field)
    if f is None or not (f.unique or f.type == "id" or f.name.endswith("__c")):
        raise not_found(f"Provided external ID field does not exist or is not accessible: {field}")
    with ctx.org.lock:
        matches = [r for r in ctx.org.table(obj.name).values()
                   if isinstance(r.get(f.name), str) and r[f.name].lower() == value.lower()]
        method = ctx.request.method
        if len(matches) > 1:
            return json_response([f"/services/data/v{version}/sobjects/{obj.name}/{r['Id']}" for r in matches],
                                 status=300)
        if method == "GET":
            if not matches:
                raise not_found("The requested resource does not exist")
            return json_response(_with_attributes(obj, dict(matches[0]), version, api))
        if method == "DELETE":
            if not matches:
                raise not_found("The requested resource does not exist")
            ctx.org.delete(obj.name, matches[0]["Id"])
            return Response(status=204)
        body = ctx.json_body()
        if not isinstance(body, dict):
            raise OrgError("JSON_PARSER_ERROR", f"Expected a JSON object of {obj.name} fields")
        if matches:
            ctx.org.update(obj.name, matches[0]["Id"], body, user_id=ctx.user_id)
            return Response(status=204)
        rid = ctx.org.create(obj.name, {**body, f.name: value}, user_id=ctx.user_id)
        return json_response({"id": rid, "success": True, "errors": [], "created": True}, status=201)


# ---------------------------------------------------------------------------------------------- query

def _batch_size(ctx: RequestContext) -> int:
    options = ctx.request.headers.get("Sforce-Query-Options", "")
    m = re.search(r"batchSize\s*=\s*(\d+)", options)
    if m:
        return max(200, min(BATCH_SIZE, int(m.group(1))))
    return BATCH_SIZE


def _page(ctx: RequestContext, records: list[dict[str, Any]], total: int, path: str, start: int,
          extra: dict[str, Any]) -> Response:
    size = _batch_size(ctx)
    chunk = records[start:start + size]
    body: dict[str, Any] = {"totalSize": total, "done": start + size >= len(records)}
    if not body["done"]:
        cid = ctx.app.store_cursor(records, total, path)
        body["nextRecordsUrl"] = f"{path}/{cid}-{start + size}"
    body.update(extra)
    body["records"] = chunk
    return json_response(body)


def query(ctx: RequestContext, version: str, api: str = "data", all_rows: bool = False) -> Response:
    soql = ctx.request.args.get("q")
    if soql is None or not soql.strip():
        raise OrgError("MALFORMED_QUERY", "A query string has to be specified (parameter q)")
    if (ctx.request.args.get("columns") or "").lower() == "true":
        with ctx.org.lock:
            return json_response(query_columns(ctx.org, soql, api=api, version=version))
    result = ctx.org.query(soql, api=api, version=version, deleted=all_rows)
    path = f"/services/data/v{version}/" + ("tooling/" if api == "tooling" else "") + \
        ("queryAll" if all_rows else "query")
    extra = {k: v for k, v in result.items() if k not in ("totalSize", "done", "records")}
    return _page(ctx, result["records"], result["totalSize"], path, 0, extra)


def query_more(ctx: RequestContext, version: str, locator: str, api: str = "data", all_rows: bool = False) -> Response:
    m = re.match(r"^(01g[A-Za-z0-9]+)-(\d+)$", locator)
    cursor = ctx.app.cursor(m.group(1)) if m else None
    if cursor is None or int(m.group(2)) >= len(cursor["records"]):  # type: ignore[union-attr]
        raise OrgError("INVALID_QUERY_LOCATOR", "invalid query locator", status=400)
    return _page(ctx, cursor["records"], cursor["total"], cursor["path"], int(m.group(2)), {})  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------------------- composite

def composite_sobjects(ctx: RequestContext, version: str) -> Response:
    """sObject collections: POST (create), PATCH (update), DELETE ?ids=... ; ``allOrNone`` honoured."""
    org = ctx.org
    method = ctx.request.method
    if method == "DELETE":
        id_list = [i for i in (ctx.request.args.get("ids") or "").split(",") if i]
        all_or_none = (ctx.request.args.get("allOrNone") or "false").lower() == "true"
        items: list[tuple[str | None, dict[str, Any]]] = [(None, {"Id": i}) for i in id_list]
    else:
        body = ctx.json_body()
        if not isinstance(body, dict) or not isinstance(body.get("records"), list):
            raise OrgError("JSON_PARSER_ERROR", "Expected {\"allOrNone\": ..., \"records\": [...]}")
        all_or_none = bool(body.get("allOrNone", False))
        items = []
        for rec in body["records"]:
            if not isinstance(rec, dict):
                raise OrgError("JSON_PARSER_ERROR", "Each record must be a JSON object")
            attrs = rec.get("attributes") or {}
            items.append((attrs.get("type") if isinstance(attrs, dict) else None,
                          {k: v for k, v in rec.items() if k != "attributes"}))
    if len(items) > 200:
        raise OrgError("EXCEEDED_ID_LIMIT", "record limit reached. cannot submit more than 200 records into this call")
    results: list[dict[str, Any]] = []

    def one(sobject: str | None, fields: dict[str, Any]) -> dict[str, Any]:
        rid = fields.get("Id")
        if method == "POST":
            if not sobject:
                raise OrgError("INVALID_TYPE", "Must send a concrete entity type.")
            new_id = org.create(sobject, fields, user_id=ctx.user_id)
            return {"id": new_id, "success": True, "errors": []}
        found = org.find_record(rid) if isinstance(rid, str) else None
        if found is None:
            raise OrgError("ENTITY_IS_DELETED" if method == "DELETE" else "INVALID_ID_FIELD",
                           f"invalid or deleted record id: {rid}", ["Id"])
        if method == "PATCH":
            org.update(found[0], cast(str, rid), {k: v for k, v in fields.items() if k != "Id"}, user_id=ctx.user_id)
        else:
            org.delete(found[0], cast(str, rid))
        return {"id": found[1]["Id"], "success": True, "errors": []}

    with org.transaction() if all_or_none else org.lock:
        for sobject, fields in items:
            try:
                if all_or_none:
                    results.append(one(sobject, fields))
                else:
                    with org.transaction():
                        results.append(one(sobject, fields))
            except OrgError as err:
                if all_or_none:
                    failure = [{"success": False, "errors": [{"statusCode": err.code, "message": err.message,
                                                              "fields": err.fields}]}]
                    rolled = [{"success": False, "errors": [{"statusCode": "ALL_OR_NONE_OPERATION_ROLLED_BACK",
                                                              "message": "Record rolled back because not all records "
                                                              "were valid and the request was using AllOrNone header",
                                                              "fields": []}]}]
                    n = len(results)
                    body_out = rolled * n + failure + rolled * (len(items) - n - 1)
                    raise _Rollback(body_out) from None
                results.append({"success": False, "errors": [{"statusCode": err.code, "message": err.message,
                                                              "fields": err.fields}]})
    return json_response(results)


class _Rollback(Exception):
    def __init__(self, body: list[dict[str, Any]]) -> None:
        super().__init__("all or none")
        self.body = body


def composite_sobjects_safe(ctx: RequestContext, version: str) -> Response:
    try:
        return composite_sobjects(ctx, version)
    except _Rollback as rb:
        return json_response(rb.body)


MAX_BATCH = 25


def composite_batch(ctx: RequestContext, version: str) -> Response:
    """``POST /composite/batch``: up to 25 independent subrequests (``{"batchRequests": [{"method", "url",
    "richInput"?}], "haltOnError"?}``), each run as its own call with the caller's session; one API request in
    all. Answers ``{"hasErrors", "results": [{"statusCode", "result"}]}``."""
    from werkzeug.test import EnvironBuilder

    from pytest_cua.orgs.localorg.app import OrgRequest

    body = ctx.json_body()
    subs = body.get("batchRequests") if isinstance(body, dict) else None
    if not isinstance(subs, list) or not subs:
        raise OrgError("JSON_PARSER_ERROR", 'Expected {"batchRequests": [{"method": ..., "url": ...}, ...]}')
    if len(subs) > MAX_BATCH:
        raise OrgError("INVALID_BATCH_REQUEST", f"Batch request has more than {MAX_BATCH} subrequests")
    halt = bool(body.get("haltOnError", False))
    results: list[dict[str, Any]] = []
    has_errors = halted = False
    for sub in subs:
        if halted:
            results.append({"statusCode": 412, "result": [{"errorCode": "BATCH_PROCESSING_HALTED",
                                                             "message": "Batch processing halted per request"}]})
            continue
        if not isinstance(sub, dict) or not isinstance(sub.get("url"), str) or not isinstance(sub.get("method"), str):
            raise OrgError("JSON_PARSER_ERROR", "Each subrequest needs a method and a url")
        url = sub["url"].lstrip("/")
        path, _, query_string = (url if url.startswith("services/") else f"services/data/{url}").partition("?")
        builder = EnvironBuilder(path="/" + path, query_string=query_string, method=sub["method"].upper(),
                                 headers=[("Authorization", ctx.request.headers.get("Authorization", ""))],
                                 json=sub.get("richInput") if sub.get("richInput") is not None else None,
                                 base_url=ctx.request.host_url)
        try:
            response = ctx.app.dispatch(OrgRequest(builder.get_environ()), counted=False)
        finally:
            builder.close()
        data = response.get_data()
        try:
            result = json.loads(data) if data else None
        except ValueError:
            result = data.decode("utf-8", "replace")
        results.append({"statusCode": response.status_code, "result": result})
        if response.status_code >= 400:
            has_errors = True
            halted = halt
    return json_response({"hasErrors": has_errors, "results": results})


def limits(ctx: RequestContext, version: str) -> Response:
    """The limits resource: ``DailyApiRequests`` counts this org's calls (``OrgApp.api_usage``); this call and
    the token endpoint do not count."""
    usage = ctx.app.api_usage
    return json_response({"DailyApiRequests": {"Max": usage.max, "Remaining": usage.remaining()},
                          "DataStorageMB": {"Max": 1024, "Remaining": 1024}})


# ---------------------------------------------------------------------------------------------- OAuth

def oauth_token(ctx: RequestContext) -> Response:
    """OAuth 2.0 token endpoint: ``grant_type`` client_credentials, password, or the JWT bearer flow
    (``urn:ietf:params:oauth:grant-type:jwt-bearer``: an RS256 assertion signed with the key of the connected
    app's certificate, ``iss`` the client id, ``sub`` the username, ``aud`` login.salesforce.com,
    test.salesforce.com or the instance URL)."""
    form = ctx.request.form if ctx.request.form else ctx.request.args
    creds = ctx.app.credentials
    grant = form.get("grant_type")
    if grant == JWT_GRANT:
        return _jwt_bearer(ctx, form.get("assertion") or "")
    if grant not in ("client_credentials", "password"):
        return json_response({"error": "unsupported_grant_type", "error_description": "grant type not supported"},
                             status=400)
    client_id = form.get("client_id")
    client_secret = form.get("client_secret")
    if (client_id is None or client_secret is None) and ctx.request.authorization is not None:
        client_id = ctx.request.authorization.username
        client_secret = ctx.request.authorization.password
    if not same_secret(client_id, creds.client_id):
        return json_response({"error": "invalid_client_id", "error_description": "client identifier invalid"},
                             status=400)
    if not same_secret(client_secret, creds.client_secret):
        return json_response({"error": "invalid_client", "error_description": "invalid client credentials"},
                             status=400)
    if grant == "password":
        username = form.get("username") or ""
        if username.lower() != creds.username.lower() or not same_secret(form.get("password"), creds.password):
            return json_response({"error": "invalid_grant", "error_description": "authentication failure"},
                                 status=400)
    return _token_response(ctx)


JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
JWT_AUDIENCES = ("https://login.salesforce.com", "https://test.salesforce.com")


def _jwt_bearer(ctx: RequestContext, assertion: str) -> Response:
    import jwt

    creds = ctx.app.credentials
    key = ctx.app.jwt_public_key
    if key is None:
        return json_response({"error": "invalid_client", "error_description": "the connected app has no "
                              "certificate for the JWT bearer flow"}, status=400)
    instance = ctx.app.instance_url or ctx.request.host_url.rstrip("/")
    try:
        claims = jwt.decode(assertion, key, algorithms=["RS256"], audience=[*JWT_AUDIENCES, instance],
                            options={"require": ["iss", "sub", "aud", "exp"]})
    except jwt.ExpiredSignatureError:
        return json_response({"error": "invalid_grant", "error_description": "expired authorization code"},
                             status=400)
    except jwt.InvalidTokenError:
        return json_response({"error": "invalid_grant", "error_description": "invalid assertion"}, status=400)
    if not same_secret(str(claims.get("iss")), creds.client_id):
        return json_response({"error": "invalid_client_id", "error_description": "client identifier invalid"},
                             status=400)
    if str(claims.get("sub", "")).lower() != creds.username.lower():
        return json_response({"error": "invalid_grant", "error_description": "user hasn't approved this consumer"},
                             status=400)
    return _token_response(ctx)


def _token_response(ctx: RequestContext) -> Response:
    creds = ctx.app.credentials
    org = ctx.org
    user = org.find("User", Username=creds.username)
    if not user:
        return json_response({"error": "invalid_grant", "error_description": "the login user does not exist"},
                             status=400)
    user_id = user[0]["Id"]
    token = ctx.app.tokens.issue_token(user_id)
    instance = ctx.app.instance_url or ctx.request.host_url.rstrip("/")
    identity = f"{instance}/id/{org.org_id}/{user_id}"
    issued = str(int(time.time() * 1000))
    return json_response({"access_token": token, "instance_url": instance, "id": identity, "token_type": "Bearer",
                          "issued_at": issued, "signature": signature(identity, issued, creds.client_secret),
                          "scope": "api web"})


def _user_urls(ctx: RequestContext, user_id: str) -> dict[str, str]:
    base = ctx.app.instance_url or ctx.request.host_url.rstrip("/")
    v = "{version}"
    return {"rest": f"{base}/services/data/v{v}/", "sobjects": f"{base}/services/data/v{v}/sobjects/",
            "query": f"{base}/services/data/v{v}/query/", "search": f"{base}/services/data/v{v}/search/",
            "metadata": f"{base}/services/Soap/m/{v}/{ctx.org.org_id}",
            "partner": f"{base}/services/Soap/u/{v}/{ctx.org.org_id}",
            "tooling_rest": f"{base}/services/data/v{v}/tooling/",
            "profile": f"{base}/{user_id}", "custom_domain": base}


def _login_user(ctx: RequestContext) -> dict[str, Any]:
    user = ctx.org.get("User", ctx.user_id or "")
    if user is None:
        raise OrgError("NOT_FOUND", "Bad_Id", status=404)
    return user


def identity(ctx: RequestContext, org_id: str, user_id: str) -> Response:
    """The identity URL (``id`` of a token response): the Identity Service's shape."""
    if ids.is_id(user_id) is False or ctx.user_id != ids.to18(user_id) or org_id != ctx.org.org_id:
        raise OrgError("NOT_FOUND", "Bad_Id", status=404)
    user = _login_user(ctx)
    base = ctx.app.instance_url or ctx.request.host_url.rstrip("/")
    return json_response({
        "id": f"{base}/id/{ctx.org.org_id}/{user['Id']}", "asserted_user": True, "user_id": user["Id"],
        "organization_id": ctx.org.org_id, "username": user.get("Username"), "nick_name": user.get("CommunityNickname")
        or (user.get("Username") or "").split("@")[0], "display_name": user.get("Name"), "email": user.get("Email"),
        "email_verified": True, "first_name": user.get("FirstName"), "last_name": user.get("LastName"),
        "timezone": user.get("TimeZoneSidKey"), "active": user.get("IsActive"),
        "user_type": str(user.get("UserType") or "Standard").upper(), "language": user.get("LanguageLocaleKey"),
        "locale": user.get("LocaleSidKey"), "utcOffset": 0, "last_modified_date": user.get("LastModifiedDate"),
        "is_app_installed": True, "urls": _user_urls(ctx, user["Id"]),
    })


def userinfo(ctx: RequestContext) -> Response:
    """``/services/oauth2/userinfo``: OpenID Connect's claims plus Salesforce's own (``user_id``, ``urls``, ...)."""
    user = _login_user(ctx)
    base = ctx.app.instance_url or ctx.request.host_url.rstrip("/")
    return json_response({
        "sub": f"{base}/id/{ctx.org.org_id}/{user['Id']}", "user_id": user["Id"],
        "organization_id": ctx.org.org_id, "preferred_username": user.get("Username"),
        "nickname": user.get("CommunityNickname") or (user.get("Username") or "").split("@")[0],
        "name": user.get("Name"), "email": user.get("Email"), "email_verified": True,
        "given_name": user.get("FirstName"), "family_name": user.get("LastName"),
        "zoneinfo": user.get("TimeZoneSidKey"), "profile": f"{base}/{user['Id']}", "address": {},
        "is_salesforce_integration_user": False, "urls": _user_urls(ctx, user["Id"]), "active": user.get("IsActive"),
        "user_type": str(user.get("UserType") or "Standard").upper(), "language": user.get("LanguageLocaleKey"),
        "locale": user.get("LocaleSidKey"), "utcOffset": 0, "updated_at": user.get("LastModifiedDate"),
        # the Identity Service's names, which earlier clients of this org read
        "username": user.get("Username"), "display_name": user.get("Name"),
    })


def register(app: OrgApp) -> None:
    """Add the REST and OAuth routes to ``app``."""
    add = app.add_route
    add("/services/data", versions, ["GET"])
    add(f"{DATA}", resources, ["GET"])
    add(f"{DATA}/limits", limits, ["GET"], endpoint="rest.limits", counted=False)
    for api, prefix in (("data", DATA), ("tooling", f"{DATA}/tooling")):
        def bind(fn: Any, **fixed: Any) -> Any:
            def handler(ctx: RequestContext, **kw: Any) -> Response:
                return fn(ctx, **kw, **fixed)
            handler.__qualname__ = f"{fn.__qualname__}[{','.join(f'{k}={v}' for k, v in fixed.items())}]"
            return handler
        add(f"{prefix}/sobjects", bind(describe_global, api=api), ["GET"])
        add(f"{prefix}/sobjects/<sobject>", bind(sobject_root, api=api), ["GET", "POST"])
        add(f"{prefix}/sobjects/<sobject>/describe", bind(sobject_describe, api=api), ["GET"])
        add(f"{prefix}/sobjects/<sobject>/<record_id>", bind(sobject_record, api=api), ["GET", "PATCH", "DELETE"])
        add(f"{prefix}/sobjects/<sobject>/<field>/<path:value>", bind(sobject_by_field, api=api),
            ["GET", "PATCH", "DELETE"])
        add(f"{prefix}/query", bind(query, api=api), ["GET"])
        add(f"{prefix}/queryAll", bind(query, api=api, all_rows=True), ["GET"])
        add(f"{prefix}/query/<locator>", bind(query_more, api=api), ["GET"])
        add(f"{prefix}/queryAll/<locator>", bind(query_more, api=api, all_rows=True), ["GET"])
    add(f"{DATA}/composite/sobjects", composite_sobjects_safe, ["POST", "PATCH", "DELETE"])
    add(f"{DATA}/composite/batch", composite_batch, ["POST"])
    add("/services/oauth2/token", oauth_token, ["POST"], auth="none", endpoint="oauth.token", counted=False)
    add("/services/oauth2/userinfo", userinfo, ["GET"])
    add("/id/<org_id>/<user_id>", identity, ["GET"])
