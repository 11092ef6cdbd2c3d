"""``OrgServer``: the org behind HTTPS in a background thread (one per xdist worker).

::

    server = OrgServer(data_dir, host="127.0.0.1", port=0)
    creds = server.start()              # OrgCredentials: instance_url, client_id, ..., ca_path
    token = server.access_token()       # in-process shortcut; or creds.login() over OAuth
    sf = Salesforce(instance_url=creds.instance_url, session_id=token, session=creds.requests_session())
    snap = server.org.snapshot(); ...; server.org.restore(snap)   # in process; over HTTPS: localorg.control
    server.stop()

Extensions (the UI) register routes on ``server.app`` through ``register(app)`` functions: by default the module
``pytest_cua.orgs.localorg.ui`` is used when it exists (it then owns the home page ``/``).
"""

from __future__ import annotations

import importlib
import json
import shutil
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from pytest_cua.orgs.localorg import analytics, api, control, metadata, pages, soap
from pytest_cua.orgs.localorg.app import ApiUsage, OrgApp
from pytest_cua.orgs.localorg.auth import DEFAULT_TTL, TokenStore, load_or_create_credentials
from pytest_cua.orgs.localorg.httpserver import OrgHTTPServer
from pytest_cua.orgs.localorg.seed import admin_user_id, seeded_org
from pytest_cua.orgs.localorg.store import Org
from pytest_cua.orgs.localorg.tls import ensure_tls, server_context

UI_MODULE = "pytest_cua.orgs.localorg.ui"


@dataclass(frozen=True)
class OrgCredentials:
    """How to reach and log in to a running org. ``password`` and ``client_secret`` are secrets: never log them."""

    instance_url: str
    client_id: str
    client_secret: str
    username: str
    password: str
    ca_path: str

    def to_json(self) -> str:
        """One JSON line (what ``pytest-cua org serve`` prints)."""
        return json.dumps(asdict(self))

    def requests_session(self) -> Any:
        """A ``requests.Session`` that trusts the org's CA.

        ``trust_env`` is off: requests lets ``REQUESTS_CA_BUNDLE`` / ``CURL_CA_BUNDLE`` from the environment win
        over ``session.verify``, and proxies from the environment must not see traffic to 127.0.0.1."""
        import requests

        session = requests.Session()
        session.verify = self.ca_path
        session.trust_env = False
        return session

    def login(self, grant: str = "client_credentials", session: Any = None) -> str:
        """An access token from the OAuth endpoint (``client_credentials`` or ``password`` grant)."""
        session = session or self.requests_session()
        data = {"grant_type": grant, "client_id": self.client_id, "client_secret": self.client_secret}
        if grant == "password":
            data.update(username=self.username, password=self.password)
        response = session.post(f"{self.instance_url}/services/oauth2/token", data=data, timeout=30)
        response.raise_for_status()
        return str(response.json()["access_token"])

    def __repr__(self) -> str:  # keep secrets out of logs and tracebacks
        return f"OrgCredentials(instance_url={self.instance_url!r}, username={self.username!r}, ca_path={self.ca_path!r})"


def load_certificate_key(path: str | Path) -> Any:
    """The public key of a PEM certificate (the connected app's certificate of the JWT bearer flow);
    ``ValueError`` naming the file when it is not one."""
    from cryptography import x509

    p = Path(path)
    try:
        return x509.load_pem_x509_certificate(p.read_bytes()).public_key()
    except OSError as exc:
        raise ValueError(f"JWT certificate {p}: cannot be read: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ValueError(f"JWT certificate {p}: not a PEM certificate ({exc})") from None


def _default_extensions() -> list[Callable[[OrgApp], None]]:
    try:
        module = importlib.import_module(UI_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name and UI_MODULE.startswith(exc.name):
            return []
        raise
    register = getattr(module, "register", None)
    return [register] if callable(register) else []


class OrgServer:
    """An org served over HTTPS from a background thread.

    ``data_dir`` holds the TLS files and credentials (a temporary directory, removed on ``stop``, when None);
    ``fixtures`` the schema and seed (default ``<repo>/fixtures/localorg``); ``org`` an existing store to serve
    instead; ``extensions`` functions ``register(app)`` adding routes (default: the UI package when present).
    """

    def __init__(self, data_dir: str | Path | None = None, host: str = "127.0.0.1", port: int = 0, *,
                 fixtures: str | Path | None = None, org: Org | None = None, token_ttl: float = DEFAULT_TTL,
                 extensions: Sequence[Callable[[OrgApp], None]] | None = None,
                 daily_api_requests: int | None = None, jwt_certificate: str | Path | None = None) -> None:
        self._own_dir = data_dir is None
        self.data_dir = Path(tempfile.mkdtemp(prefix="pytest-cua-org-")) if data_dir is None else Path(data_dir)
        self.host = host
        self.port = port
        self.org = org if org is not None else seeded_org(fixtures)
        admin = self.org.default_user_id or admin_user_id(self.org)
        if admin is None:
            raise RuntimeError("the org has no active System Administrator user to log in as")
        self.admin_user_id = admin
        username = self.org.get("User", admin)["Username"]  # type: ignore[index]
        self.credentials = load_or_create_credentials(self.data_dir, username)
        self.tokens = TokenStore(self.org.org_id, ttl=token_ttl)
        self.app = OrgApp(self.org, self.credentials, self.tokens)
        if daily_api_requests is not None:
            self.app.api_usage = ApiUsage(daily_api_requests)
        if jwt_certificate is not None:
            self.app.jwt_public_key = load_certificate_key(jwt_certificate)
        api.register(self.app)
        soap.register(self.app)  # convertLead
        metadata.register(self.app)  # the Metadata API (SOAP /services/Soap/m)
        analytics.register(self.app)  # the Analytics REST API (reports and dashboards)
        exts = list(_default_extensions() if extensions is None else extensions)
        for register in exts:
            register(self.app)
        pages.register(self.app, home_page=not any(r.rule == "/" for r in self.app.url_map.iter_rules()))
        control.register(self.app)  # snapshot/restore/residue over HTTPS; its baseline is the org as of now
        self._server: OrgHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.org_credentials: OrgCredentials | None = None

    @property
    def url(self) -> str:
        """The instance URL (``https://127.0.0.1:<port>``) once started."""
        if self.org_credentials is None:
            raise RuntimeError("the server is not started")
        return self.org_credentials.instance_url

    def start(self) -> OrgCredentials:
        """Bind, serve in a daemon thread and return the credentials."""
        if self._server is not None:
            assert self.org_credentials is not None
            return self.org_credentials
        files = ensure_tls(self.data_dir, self.host)
        server = OrgHTTPServer((self.host, self.port), self.app, server_context(files))
        self._server = server
        port = server.server_port
        shown_host = "127.0.0.1" if self.host in ("0.0.0.0", "") else ("localhost" if self.host == "::" else self.host)
        instance_url = f"https://{shown_host}:{port}"
        self.app.instance_url = instance_url
        c = self.credentials
        self.org_credentials = OrgCredentials(instance_url, c.client_id, c.client_secret, c.username, c.password,
                                              str(files.ca_cert))
        self._thread = threading.Thread(target=server.serve_forever, name=f"localorg:{port}", daemon=True)
        self._thread.start()
        return self.org_credentials

    def access_token(self, user_id: str | None = None, ttl: float | None = None) -> str:
        """Issue an access token directly (in-process; no HTTP round trip)."""
        return self.tokens.issue_token(user_id or self.admin_user_id, ttl)

    def serve_forever(self) -> None:
        """Block until interrupted (used by ``pytest-cua org serve``)."""
        if self._thread is None:
            self.start()
        assert self._thread is not None
        try:
            while self._thread.is_alive():
                self._thread.join(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def stop(self) -> None:
        """Stop serving and release the port (and the temporary data directory); safe to call twice."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> "OrgServer":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
