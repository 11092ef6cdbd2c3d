"""simple-salesforce, unchanged, against a running org over real HTTPS on 127.0.0.1."""

from __future__ import annotations

import logging
import threading

import pytest
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import (
    SalesforceExpiredSession, SalesforceGeneralError, SalesforceMalformedRequest, SalesforceResourceNotFound,
)

from pytest_cua.orgs.localorg.server import OrgCredentials, OrgServer


def _code(exc: BaseException) -> str:
    return exc.content[0]["errorCode"]  # type: ignore[attr-defined]


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}


# ------------------------------------------------------------------------------------------------ OAuth

def test_oauth_client_credentials_and_password_grants(creds: OrgCredentials) -> None:
    s = creds.requests_session()
    url = f"{creds.instance_url}/services/oauth2/token"
    r = s.post(url, data={"grant_type": "client_credentials", "client_id": creds.client_id,
                          "client_secret": creds.client_secret}, timeout=30)
    assert r.status_code == 200
    body = r.json()
    assert {"access_token", "instance_url", "token_type", "issued_at", "id", "signature"} <= set(body)
    assert body["instance_url"] == creds.instance_url and body["token_type"] == "Bearer"
    r = s.post(url, data={"grant_type": "password", "client_id": creds.client_id, "client_secret": creds.client_secret,
                          "username": creds.username, "password": creds.password}, timeout=30)
    assert r.status_code == 200 and r.json()["access_token"] != body["access_token"]
    bad = s.post(url, data={"grant_type": "password", "client_id": creds.client_id,
                            "client_secret": creds.client_secret, "username": creds.username,
                            "password": "wrong"}, timeout=30)
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_grant"
    bad = s.post(url, data={"grant_type": "client_credentials", "client_id": creds.client_id,
                            "client_secret": "nope"}, timeout=30)
    assert bad.status_code == 400 and bad.json()["error"] == "invalid_client"
    assert s.get(url, timeout=30).status_code == 405


def test_every_api_route_needs_a_token(creds: OrgCredentials) -> None:
    s = creds.requests_session()
    for path in ("/services/data", "/services/data/v59.0/sobjects", "/services/data/v59.0/query?q=SELECT+Id+FROM+User",
                 "/services/data/v59.0/sobjects/Account/describe", "/services/data/v59.0/tooling/sobjects",
                 "/services/data/v59.0/no/such/route", "/services/oauth2/userinfo"):
        r = s.get(creds.instance_url + path, headers={"Authorization": "Bearer 00Dxx!forged"}, timeout=30)
        assert r.status_code == 401, path
        assert r.json() == [{"message": "Session expired or invalid", "errorCode": "INVALID_SESSION_ID", "fields": []}]


def test_expired_token_raises_expired_session(org_server: OrgServer, creds: OrgCredentials) -> None:
    token = org_server.access_token(ttl=-1)
    sf = Salesforce(instance_url=creds.instance_url, session_id=token, session=creds.requests_session())
    with pytest.raises(SalesforceExpiredSession) as info:
        sf.query("SELECT Id FROM Account")
    assert _code(info.value) == "INVALID_SESSION_ID"


# ------------------------------------------------------------------------------------------------ frontdoor, UI auth

def test_frontdoor_turns_a_token_into_a_session(org_server: OrgServer, creds: OrgCredentials) -> None:
    s = creds.requests_session()
    home = s.get(creds.instance_url + "/", allow_redirects=False, timeout=30)
    assert home.status_code == 302 and home.headers["Location"].startswith("/login")
    token = org_server.access_token()
    r = s.get(f"{creds.instance_url}/secur/frontdoor.jsp", params={"sid": token, "retURL": "/lightning/page/home"},
              allow_redirects=False, timeout=30)
    assert r.status_code == 302 and r.headers["Location"] == "/lightning/page/home"
    assert "sid" in s.cookies
    page = s.get(creds.instance_url + "/", timeout=30)
    assert page.status_code == 200 and "Orla Admin" in page.text
    evil = s.get(f"{creds.instance_url}/secur/frontdoor.jsp", params={"sid": token, "retURL": "https://evil.example/"},
                 allow_redirects=False, timeout=30)
    assert evil.headers["Location"] == "/"
    bad = creds.requests_session().get(f"{creds.instance_url}/secur/frontdoor.jsp", params={"sid": "nope"}, timeout=30)
    assert bad.status_code == 401 and bad.json()[0]["errorCode"] == "INVALID_SESSION_ID"


def test_login_page(creds: OrgCredentials) -> None:
    s = creds.requests_session()
    page = s.get(creds.instance_url + "/login", timeout=30)
    assert page.status_code == 200 and 'name="password"' in page.text
    wrong = s.post(creds.instance_url + "/login", data={"username": creds.username, "password": "x"}, timeout=30)
    assert wrong.status_code == 401 and "sid" not in s.cookies
    ok = s.post(creds.instance_url + "/login", data={"username": creds.username, "password": creds.password,
                                                     "startURL": "/"}, timeout=30)
    assert ok.status_code == 200 and "Logged in as" in ok.text


def test_access_log_never_shows_tokens(org_server: OrgServer, creds: OrgCredentials,
                                       caplog: pytest.LogCaptureFixture) -> None:
    token = org_server.access_token()
    with caplog.at_level(logging.DEBUG, logger="pytest_cua.orgs.localorg"):
        s = creds.requests_session()
        s.get(f"{creds.instance_url}/secur/frontdoor.jsp?sid={token}", allow_redirects=False, timeout=30)
        s.get(f"{creds.instance_url}/services/data/v59.0/sobjects", headers=_headers(token), timeout=30)
    text = caplog.text
    assert "/secur/frontdoor.jsp" in text
    assert token not in text and token.split("!")[1] not in text and "sid=" not in text
    assert creds.password not in text and creds.client_secret not in text


# ------------------------------------------------------------------------------------------------ simple-salesforce

def test_query_and_describe(sf: Salesforce) -> None:
    result = sf.query("SELECT Id, Name, Owner.Name FROM Account WHERE Name LIKE 'A%' ORDER BY Name")
    assert result["totalSize"] == 2 and result["done"] is True
    assert result["records"][0]["Owner"]["Name"] == "Jonah Okafor"
    assert result["records"][0]["attributes"]["url"].startswith("/services/data/v59.0/sobjects/Account/")
    names = {o["name"] for o in sf.describe()["sobjects"]}
    assert {"Account", "Knowledge__kav", "Incident", "UserLogin"} <= names and "ValidationRule" not in names
    d = sf.Account.describe()
    assert d["name"] == "Account" and d["keyPrefix"] == "001"
    assert any(f["name"] == "Industry" and f["type"] == "picklist" for f in d["fields"])
    assert sf.Contact.metadata()["objectDescribe"]["name"] == "Contact"


def test_crud(sf: Salesforce) -> None:
    created = sf.Account.create({"Name": "Wattle & Co", "Industry": "Retail"})
    assert created["success"] is True and created["id"].startswith("001")
    rid = created["id"]
    got = sf.Account.get(rid)
    assert got["Name"] == "Wattle & Co" and got["attributes"]["type"] == "Account"
    assert sf.Account.get(rid[:15])["Id"] == rid
    assert sf.Account.update(rid, {"Phone": "+61 2 5550 1234"}) == 204
    assert sf.Account.get(rid)["Phone"] == "+61 2 5550 1234"
    assert sf.restful(f"sobjects/Account/{rid}", params={"fields": "Name,Phone"})["Name"] == "Wattle & Co"
    assert sf.Account.delete(rid) == 204
    with pytest.raises(SalesforceResourceNotFound) as info:
        sf.Account.get(rid)
    assert _code(info.value) == "NOT_FOUND"


def test_query_all_pages_past_2000_rows(org_server: OrgServer, sf: Salesforce) -> None:
    org_server.org.create_many("Account", [{"Name": f"Bulk Account {i:05d}"} for i in range(2500)])
    first = sf.query("SELECT Id, Name FROM Account WHERE Name LIKE 'Bulk Account%' ORDER BY Name")
    assert first["totalSize"] == 2500 and first["done"] is False and len(first["records"]) == 2000
    assert first["nextRecordsUrl"].startswith("/services/data/v59.0/query/01g")
    rest = sf.query_more(first["nextRecordsUrl"], identifier_is_url=True)
    assert rest["done"] is True and len(rest["records"]) == 500 and "nextRecordsUrl" not in rest
    everything = sf.query_all("SELECT Name FROM Account WHERE Name LIKE 'Bulk Account%' ORDER BY Name")
    assert everything["totalSize"] == 2500
    assert [r["Name"] for r in everything["records"]] == [f"Bulk Account {i:05d}" for i in range(2500)]
    assert sum(1 for _ in sf.query_all_iter("SELECT Id FROM Account WHERE Name LIKE 'Bulk Account%'")) == 2500
    with pytest.raises(SalesforceMalformedRequest) as info:
        sf.query_more("01gLO9999999999-2000")
    assert _code(info.value) == "INVALID_QUERY_LOCATOR"


def test_tooling(sf: Salesforce) -> None:
    created = sf.toolingexecute("sobjects/ValidationRule", method="POST", data={
        "ValidationName": "Needs_industry", "EntityDefinitionId": "Account", "ErrorConditionFormula": "ISBLANK(Industry)",
        "ErrorMessage": "Pick an industry", "ErrorDisplayField": "Industry"})
    assert created["success"] is True
    result = sf.toolingexecute("query/?q=Select+ErrorMessage,Metadata,EntityDefinitionId,ValidationName+From+"
                               "ValidationRule+WHERE+EntityDefinitionId='Account'")
    assert result["totalSize"] == 1 and result["records"][0]["Metadata"]["errorMessage"] == "Pick an industry"
    assert result["records"][0]["attributes"]["url"].startswith("/services/data/v59.0/tooling/sobjects/ValidationRule/")
    with pytest.raises(SalesforceMalformedRequest) as info:
        sf.Account.create({"Name": "No Industry Ltd"})
    assert _code(info.value) == "FIELD_CUSTOM_VALIDATION_EXCEPTION"
    assert info.value.content[0]["fields"] == ["Industry"]  # type: ignore[attr-defined]
    owd = sf.toolingexecute("query?q=SELECT+InternalSharingModel+FROM+EntityDefinition+WHERE+QualifiedApiName='Case'")
    assert owd["records"][0]["InternalSharingModel"] == "ReadWriteTransfer"
    assert any(o["name"] == "ValidationRule" for o in sf.toolingexecute("sobjects")["sobjects"])


@pytest.mark.parametrize(("call", "exc", "code"), [
    (lambda sf: sf.query("SELECT Id FROM Account WHERE"), SalesforceMalformedRequest, "MALFORMED_QUERY"),
    (lambda sf: sf.query("SELECT Nope FROM Account"), SalesforceMalformedRequest, "INVALID_FIELD"),
    (lambda sf: sf.query("SELECT Id FROM Nope"), SalesforceMalformedRequest, "INVALID_TYPE"),
    (lambda sf: sf.Account.get("001LO0000000ZZZ"), SalesforceResourceNotFound, "NOT_FOUND"),
    (lambda sf: sf.Nope.describe(), SalesforceResourceNotFound, "NOT_FOUND"),
    (lambda sf: sf.Account.create({"Industry": "Retail"}), SalesforceMalformedRequest, "REQUIRED_FIELD_MISSING"),
    (lambda sf: sf.Account.create({"Name": "X", "Nope__c": 1}), SalesforceMalformedRequest, "INVALID_FIELD"),
    (lambda sf: sf.Contact.create({"LastName": "X", "AccountId": "001LO0000000ZZZ"}), SalesforceMalformedRequest,
     "INVALID_CROSS_REFERENCE_KEY"),
    (lambda sf: sf.PermissionSetAssignment.create({"AssigneeId": sf.query(
        "SELECT Id FROM User WHERE Alias = 'fbrandt'")["records"][0]["Id"]}), SalesforceMalformedRequest,
     "FIELD_CUSTOM_VALIDATION_EXCEPTION"),
    (lambda sf: sf.User.create({"Username": "admin@harborlight.test", "LastName": "Clone", "Email": "c@example.com",
                                "ProfileId": sf.query("SELECT Id FROM Profile WHERE Name = 'Standard User'")
                                ["records"][0]["Id"]}), SalesforceMalformedRequest, "DUPLICATE_VALUE"),
    (lambda sf: sf.Account.update("003LO0000000001", {"Name": "x"}), SalesforceMalformedRequest, "MALFORMED_ID"),
    (lambda sf: sf.Account.delete("bad-id"), SalesforceResourceNotFound, "NOT_FOUND"),
])
def test_errors_raise_the_usual_exceptions(sf: Salesforce, call, exc, code) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc) as info:
        call(sf)
    assert _code(info.value) == code
    assert isinstance(info.value.content[0]["message"], str)  # type: ignore[attr-defined]


def test_composite_all_or_none(sf: Salesforce, org_server: OrgServer) -> None:
    snap = org_server.org.snapshot()
    body = {"allOrNone": True, "records": [{"attributes": {"type": "Account"}, "Name": "Comp One"},
                                           {"attributes": {"type": "Account"}, "Industry": "Retail"}]}
    result = sf.restful("composite/sobjects", method="POST", json=body)
    assert [r["success"] for r in result] == [False, False]
    assert result[1]["errors"][0]["statusCode"] == "REQUIRED_FIELD_MISSING"
    assert org_server.org.residue(snap) == []
    body["allOrNone"] = False
    result = sf.restful("composite/sobjects", method="POST", json=body)
    assert [r["success"] for r in result] == [True, False]


# ------------------------------------------------------------------------------------------------ bad input

def test_bad_input_gets_salesforce_errors_and_the_server_survives(org_server: OrgServer, creds: OrgCredentials) -> None:
    s = creds.requests_session()
    h = _headers(org_server.access_token())
    base = f"{creds.instance_url}/services/data/v59.0"
    cases = [
        (s.post, f"{base}/sobjects/Account", "{not json", 400, "JSON_PARSER_ERROR"),
        (s.post, f"{base}/sobjects/Account", "[1, 2]", 400, "JSON_PARSER_ERROR"),
        (s.post, f"{base}/sobjects/Account", "", 400, "JSON_PARSER_ERROR"),
        (s.post, f"{base}/sobjects/Account", b"\xff\xfe\x00", 400, "JSON_PARSER_ERROR"),
        (s.post, f"{base}/sobjects/Account", '{"Name": "X", "AnnualRevenue": "lots"}', 400,
         "INVALID_TYPE_ON_FIELD_IN_RECORD"),
        (s.post, f"{base}/sobjects/Nope__c", '{"Name": "X"}', 404, "NOT_FOUND"),
        (s.put, f"{base}/sobjects/Account", "{}", 405, "METHOD_NOT_ALLOWED"),
        (s.delete, f"{base}/query?q=SELECT+Id+FROM+Account", None, 405, "METHOD_NOT_ALLOWED"),
        (s.get, f"{base}/sobjects/Account/%00%01", None, 404, "NOT_FOUND"),
        (s.patch, f"{base}/sobjects/Contact/001LO0000000001", "{}", 400, "MALFORMED_ID"),
        (s.get, f"{base}/query", None, 400, "MALFORMED_QUERY"),
        (s.get, f"{base}/query?q=" + "x" * 5000, None, 400, "MALFORMED_QUERY"),
        (s.get, f"{base}/no/such/thing", None, 404, "NOT_FOUND"),
        (s.post, f"{base}/sobjects/Account", "x" * (10 * 1024 * 1024 + 10), 413, "REQUEST_ENTITY_TOO_LARGE"),
    ]
    for method, url, data, status, code in cases:
        r = method(url, data=data, headers=h, timeout=60)
        assert r.status_code == status, (url[:80], r.text[:200])
        assert r.json()[0]["errorCode"] == code, (url[:80], r.text[:200])
        assert set(r.json()[0]) == {"message", "errorCode", "fields"}
    # garbage that is not TLS, and plain HTTP to the TLS port, do not take the server down
    import socket
    host, port = creds.instance_url.split("//")[1].split(":")
    for junk in (b"\x00" * 64, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"):
        with socket.create_connection((host, int(port)), timeout=5) as raw:
            raw.sendall(junk)
            try:
                raw.recv(64)
            except OSError:
                pass
    r = s.get(f"{base}/sobjects", headers=h, timeout=30)
    assert r.status_code == 200


def test_concurrent_requests_see_consistent_state(org_server: OrgServer, creds: OrgCredentials) -> None:
    token = org_server.access_token()
    errors: list[str] = []

    def work(n: int) -> None:
        sf = Salesforce(instance_url=creds.instance_url, session_id=token, session=creds.requests_session())
        for i in range(10):
            rid = sf.Account.create({"Name": f"Thread {n} Account {i}"})["id"]
            if sf.query(f"SELECT COUNT() FROM Account WHERE Id = '{rid}'")["totalSize"] != 1:
                errors.append(rid)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert org_server.org.query("SELECT COUNT() FROM Account WHERE Name LIKE 'Thread %'")["totalSize"] == 40


def test_version_list_and_limits(sf: Salesforce, creds: OrgCredentials, org_server: OrgServer) -> None:
    assert sf.restful("limits")["DailyApiRequests"]["Max"] > 0
    r = creds.requests_session().get(creds.instance_url + "/services/data", headers=_headers(org_server.access_token()),
                                     timeout=30)
    assert any(v["version"] == "59.0" for v in r.json())


def test_general_error_for_unsupported_method_in_simple_salesforce(sf: Salesforce) -> None:
    with pytest.raises(SalesforceGeneralError) as info:
        sf.restful("sobjects", method="DELETE")
    assert info.value.status == 405  # type: ignore[attr-defined]


def test_composite_update_and_delete_and_identity(sf: Salesforce, org_server: OrgServer, creds: OrgCredentials) -> None:
    a = sf.Account.create({"Name": "Comp Upd A"})["id"]
    b = sf.Account.create({"Name": "Comp Upd B"})["id"]
    result = sf.restful("composite/sobjects", method="PATCH", json={"allOrNone": True, "records": [
        {"attributes": {"type": "Account"}, "Id": a, "Phone": "1"},
        {"attributes": {"type": "Account"}, "Id": b, "Phone": "2"}]})
    assert all(r["success"] for r in result)
    assert org_server.org.get("Account", b)["Phone"] == "2"
    result = sf.restful("composite/sobjects", method="DELETE", params={"ids": f"{a},{b}"})
    assert all(r["success"] for r in result) and org_server.org.get("Account", a) is None
    user_id = org_server.admin_user_id
    r = creds.requests_session().get(f"{creds.instance_url}/id/{org_server.org.org_id}/{user_id}",
                                     headers=_headers(sf.session_id), timeout=30)
    assert r.status_code == 200 and r.json()["username"] == creds.username
    assert sf.User.get_by_custom_id("Username", creds.username)["Id"] == user_id


def test_ui_extensions_register_routes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from werkzeug.wrappers import Response

    from pytest_cua.orgs.localorg.app import OrgApp, RequestContext

    def home(ctx: RequestContext) -> Response:
        return Response(f"custom home for {ctx.user_id}")

    def register(app: OrgApp) -> None:
        app.add_route("/", home, ["GET"], auth="ui")

    with OrgServer(tmp_path, extensions=[register]) as server:
        creds = server.org_credentials
        assert creds is not None
        s = creds.requests_session()
        assert s.get(creds.instance_url + "/", allow_redirects=False, timeout=30).status_code == 302
        s.get(f"{creds.instance_url}/secur/frontdoor.jsp", params={"sid": server.access_token()}, timeout=30)
        assert s.get(creds.instance_url + "/", timeout=30).text == f"custom home for {server.admin_user_id}"


def _tls(creds: OrgCredentials):  # type: ignore[no-untyped-def]
    import socket
    import ssl

    host, port = creds.instance_url.split("//")[1].split(":")
    ctx = ssl.create_default_context(cafile=creds.ca_path)
    raw = socket.create_connection((host, int(port)), timeout=10)
    return ctx.wrap_socket(raw, server_hostname=host)


def _read_response(f) -> tuple[int, dict[str, str], bytes]:  # type: ignore[no-untyped-def]
    status = int(f.readline().split()[1])
    headers = {}
    while True:
        line = f.readline().decode().strip()
        if not line:
            break
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    body = f.read(int(headers.get("content-length", "0")))
    return status, headers, body


def test_keep_alive_chunked_and_unread_bodies(org_server: OrgServer, creds: OrgCredentials) -> None:
    token = org_server.access_token()
    with _tls(creds) as conn:
        f = conn.makefile("rb")
        q = "/services/data/v59.0/query?q=SELECT+COUNT()+FROM+User"
        # 1: unauthenticated POST whose body the app never looks at; 2: chunked POST; 3: GET; all on one connection
        body = b'{"Name": "Chunky Ltd"}'
        conn.sendall(b"POST /services/data/v59.0/sobjects/Account HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nContent-Length: 5000\r\n\r\n" + b"x" * 5000)
        conn.sendall(b"POST /services/data/v59.0/sobjects/Account HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                     + token.encode() + b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     + f"{len(body[:10]):x}\r\n".encode() + body[:10] + b"\r\n"
                     + f"{len(body[10:]):x}\r\n".encode() + body[10:] + b"\r\n0\r\n\r\n")
        conn.sendall(f"GET {q} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        assert _read_response(f)[0] == 401
        status, _, created = _read_response(f)
        assert status == 201 and b'"success":true' in created
        status, _, counted = _read_response(f)
        assert status == 200 and b'"totalSize"' in counted
        conn.sendall(b"POST /services/data/v59.0/sobjects/Account HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n")
        assert _read_response(f)[0] == 400
    assert org_server.org.find("Account", Name="Chunky Ltd")


def test_head_and_oversized_chunked_body(org_server: OrgServer, creds: OrgCredentials) -> None:
    token = org_server.access_token()
    s = creds.requests_session()
    r = s.head(f"{creds.instance_url}/services/data/v59.0/sobjects", headers=_headers(token), timeout=30)
    assert r.status_code == 200 and r.content == b""

    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(11):
            yield b"x" * (1024 * 1024)
    r = s.post(f"{creds.instance_url}/services/data/v59.0/sobjects/Account", data=chunks(), headers=_headers(token),
               timeout=60)
    assert r.status_code == 413 and r.json()[0]["errorCode"] == "REQUEST_ENTITY_TOO_LARGE"
    assert s.get(f"{creds.instance_url}/services/data/v59.0/limits", headers=_headers(token), timeout=30).ok
