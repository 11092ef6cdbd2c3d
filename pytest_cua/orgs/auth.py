"""Logging in to an org over its standard APIs: the OAuth flows and the SOAP login a real Salesforce org takes.

``OrgLogin`` holds what one org needs (its secrets are never in ``repr``, logs or reports) and gives access
tokens by one of four ways (``auth``):

- ``client_credentials``: the OAuth client credentials flow (SCUBA's way: ``client_key`` and ``client_secret``
  of the external client app), ``POST {instance}/services/oauth2/token``;
- ``jwt``: the OAuth JWT bearer flow: an RS256 assertion (``iss`` the client key, ``sub`` the username, ``aud``
  login.salesforce.com, or test.salesforce.com for a sandbox) signed with ``private_key_path``;
- ``password``: username, password and security token through simple-salesforce's SOAP login, unchanged, at
  ``{instance}/services/Soap/u/NN.N``;
- ``sf``: the session of a Salesforce CLI alias (``sf org display --target-org ALIAS --json``, the token from
  ``sf org auth show-access-token``), read again when it has expired.

Where the logins come from: ``from_fields`` (an orgs-file entry of kind ``salesforce``, or SCUBA's
``orgs_info.json`` entry as it is: ``instance``, ``client_key``, ``client_secret``, ``username``),
``from_sf_alias`` and ``from_env`` (``PYTEST_CUA_ORG_*``). Every error names where the settings came from.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

AUTHS = ("client_credentials", "jwt", "password", "sf")
JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ENV_PREFIX = "PYTEST_CUA_ORG_"
ENV_FIELDS = ("instance_url", "username", "client_key", "client_secret", "password", "security_token",
              "private_key_path", "auth", "ca_path", "audience")
SECRET_FIELDS = ("client_secret", "password", "security_token")


class OrgLoginError(ValueError):
    """The settings of an org cannot be used, or its login was refused; the message names where they came from."""


@dataclass(frozen=True)
class OrgLogin:
    """How to log in to one org. ``source`` says where the settings came from (for messages)."""

    name: str
    source: str
    instance_url: str
    auth: str
    username: str = ""
    client_key: str = field(default="", repr=False)
    client_secret: str = field(default="", repr=False)
    password: str = field(default="", repr=False)
    security_token: str = field(default="", repr=False)
    private_key_path: str = ""
    ca_path: str = ""
    audience: str = "https://login.salesforce.com"
    sf_alias: str = ""

    # -- what a client needs --------------------------------------------------------------------------
    def requests_session(self) -> Any:
        """A ``requests.Session`` for this org: its CA when ``ca_path`` is set, the system's otherwise; proxies
        and CA bundles of the environment are not consulted when a CA is given."""
        import requests

        session = requests.Session()
        if self.ca_path:
            session.verify = self.ca_path
            session.trust_env = False
        return session

    def secrets(self) -> list[str]:
        return [v for v in (self.client_secret, self.password, self.security_token,
                            self.password + self.security_token if self.password else "") if v]

    def login(self, session: Any = None, api_version: str = "59.0") -> str:
        """A new access token; ``OrgLoginError`` naming the org and the flow when the org refuses."""
        session = session or self.requests_session()
        try:
            if self.auth == "client_credentials":
                return self._token(session, {"grant_type": "client_credentials", "client_id": self.client_key,
                                             "client_secret": self.client_secret})
            if self.auth == "jwt":
                return self._token(session, {"grant_type": JWT_GRANT, "assertion": self.jwt_assertion()})
            if self.auth == "password":
                from simple_salesforce import SalesforceLogin
                from simple_salesforce.exceptions import SalesforceAuthenticationFailed

                try:
                    session_id, _ = SalesforceLogin(username=self.username, password=self.password,
                                                    security_token=self.security_token, session=session,
                                                    scratch_url=self.instance_url, sf_version=api_version)
                except SalesforceAuthenticationFailed as exc:
                    raise OrgLoginError(f"{self.where}: SOAP login of {self.username} refused: {exc.code}") from None
                return str(session_id)
            if self.auth == "sf":
                return sf_org_display(self.sf_alias)["accessToken"]
        except OrgLoginError:
            raise
        except Exception as exc:  # noqa: BLE001 - network and TLS errors name the org, never the secrets
            raise OrgLoginError(f"{self.where}: {self.auth} login at {self.instance_url} failed: "
                                f"{type(exc).__name__}: {_first_line(exc)}") from None
        raise OrgLoginError(f"{self.where}: unknown auth {self.auth!r} (known: {', '.join(AUTHS)})")

    def _token(self, session: Any, data: dict[str, str]) -> str:
        response = session.post(f"{self.instance_url}/services/oauth2/token", data=data, timeout=60)
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.status_code != 200 or "access_token" not in body:
            error = body.get("error") or f"HTTP {response.status_code}"
            raise OrgLoginError(f"{self.where}: the {self.auth} flow was refused: {error}: "
                                f"{body.get('error_description', '')}".rstrip(": "))
        return str(body["access_token"])

    def jwt_assertion(self, lifetime_s: int = 180) -> str:
        import jwt

        try:
            key = Path(self.private_key_path).read_text(encoding="utf-8")
        except OSError as exc:
            raise OrgLoginError(f"{self.where}: private_key_path {self.private_key_path!r} cannot be read: "
                                f"{exc.strerror or exc}") from None
        claims = {"iss": self.client_key, "sub": self.username, "aud": self.audience,
                  "exp": int(time.time()) + lifetime_s}
        return str(jwt.encode(claims, key, algorithm="RS256"))

    @property
    def where(self) -> str:
        return f"org {self.name!r} ({self.source})"

    # -- where logins come from -------------------------------------------------------------------------
    @classmethod
    def from_fields(cls, name: str, fields: Mapping[str, Any], source: str, base: Path | None = None) -> "OrgLogin":
        """An org's login from an orgs-file entry of kind ``salesforce`` or an ``orgs_info.json`` entry
        (``instance`` is read as ``instance_url``, ``client_id`` as ``client_key``). ``auth`` defaults to
        ``jwt`` with a private key, ``client_credentials`` with a client secret, ``password`` with a password."""
        where = f"{source}, entry {name!r}"
        known = set(ENV_FIELDS) | {"kind", "instance", "client_id"}
        unknown = sorted(k for k in fields if k not in known)
        if unknown:
            raise OrgLoginError(f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        bad = sorted(k for k, v in fields.items() if k != "kind" and not isinstance(v, str))
        if bad:
            raise OrgLoginError(f"{where}: field(s) {', '.join(bad)} must be strings")
        f = {k: str(v).strip() for k, v in fields.items() if k != "kind"}
        instance = (f.pop("instance_url", "") or f.pop("instance", "")).rstrip("/")
        f.pop("instance", None)
        client_key = f.pop("client_key", "") or f.pop("client_id", "")
        f.pop("client_id", None)
        if not instance:
            raise OrgLoginError(f"{where}: needs instance_url (or SCUBA's instance), e.g. "
                                f"https://MyDomain.my.salesforce.com")
        if not instance.startswith("https://"):
            raise OrgLoginError(f"{where}: the instance URL must be https://, got {instance!r}")
        auth = f.pop("auth", "") or ("jwt" if f.get("private_key_path") else
                                     "client_credentials" if f.get("client_secret") else
                                     "password" if f.get("password") else "")
        if auth not in AUTHS[:3]:
            raise OrgLoginError(f"{where}: cannot tell how to log in: give auth (client_credentials, jwt or "
                                f"password) and its fields" if not auth else
                                f"{where}: unknown auth {auth!r} (known: client_credentials, jwt, password)")
        needs = {"client_credentials": ("client_key", "client_secret"), "jwt": ("client_key", "username",
                 "private_key_path"), "password": ("username", "password")}[auth]
        have = {**f, "client_key": client_key}
        missing = [k for k in needs if not have.get(k)]
        if missing:
            raise OrgLoginError(f"{where}: auth {auth} needs the field(s) {', '.join(missing)}")
        for key in ("private_key_path", "ca_path"):
            if f.get(key):
                p = Path(f[key]).expanduser()
                if not p.is_absolute() and base is not None:
                    p = base / p
                if not p.is_file():
                    raise OrgLoginError(f"{where}: {key} {str(p)!r} is not a file")
                f[key] = str(p)
        return cls(name=name, source=source, instance_url=instance, auth=auth, client_key=client_key, **f)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "OrgLogin":
        """The org of the ``PYTEST_CUA_ORG_*`` variables (``--cua-org env``)."""
        env = os.environ if environ is None else environ
        fields = {k: env[ENV_PREFIX + k.upper()] for k in ENV_FIELDS if env.get(ENV_PREFIX + k.upper())}
        if not fields:
            raise OrgLoginError(f"--cua-org env: no {ENV_PREFIX}* variable is set (give {ENV_PREFIX}INSTANCE_URL and "
                                f"{ENV_PREFIX}CLIENT_KEY with {ENV_PREFIX}CLIENT_SECRET, or {ENV_PREFIX}USERNAME with "
                                f"{ENV_PREFIX}PASSWORD or {ENV_PREFIX}PRIVATE_KEY_PATH)")
        return cls.from_fields("env", fields, f"the {ENV_PREFIX}* environment variables")

    @classmethod
    def from_sf_alias(cls, alias: str) -> "OrgLogin":
        """The org of a Salesforce CLI alias (``--cua-org sf:ALIAS``); its session comes from ``sf org display``."""
        info = sf_org_display(alias)
        instance = str(info.get("instanceUrl") or "").rstrip("/")
        if not instance.startswith("https://"):
            raise OrgLoginError(f"--cua-org sf:{alias}: sf org display gave no https instance URL ({instance!r})")
        return cls(name=f"sf:{alias}", source=f"Salesforce CLI alias {alias}", instance_url=instance, auth="sf",
                   username=str(info.get("username") or ""), sf_alias=alias,
                   ca_path=os.environ.get("NODE_EXTRA_CA_CERTS", ""))


def sf_org_display(alias: str, sf: str | None = None) -> dict[str, Any]:
    """``sf org display --target-org ALIAS --json``'s result (accessToken, instanceUrl, username, ...); where the
    CLI redacts the token there (recent versions do), it comes from ``sf org auth show-access-token``.
    ``OrgLoginError`` naming the alias when the CLI is missing or refuses."""
    installed = Path("/opt/pytest-cua/sf-cli/bin/sf")  # where scripts/ensure_sf.sh puts it
    exe = sf or os.environ.get("PYTEST_CUA_SF") or shutil.which("sf") or (str(installed) if installed.is_file() else "")
    if not exe:
        raise OrgLoginError(f"--cua-org sf:{alias}: the Salesforce CLI (sf) is not on PATH (install it with "
                            f"scripts/ensure_sf.sh, or set PYTEST_CUA_SF)")
    result = _sf_json(exe, alias, "org", "display")
    token = str(result.get("accessToken") or "")
    if not token or token.startswith("[REDACTED]"):
        result["accessToken"] = str(_sf_json(exe, alias, "org", "auth", "show-access-token").get("accessToken") or "")
    if not result["accessToken"]:
        raise OrgLoginError(f"--cua-org sf:{alias}: the Salesforce CLI gave no access token")
    return result


def _sf_json(exe: str, alias: str, *command: str) -> dict[str, Any]:
    what = f"sf {' '.join(command)}"
    try:
        done = subprocess.run([exe, *command, "--target-org", alias, "--json"], capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OrgLoginError(f"--cua-org sf:{alias}: {what} failed: {exc}") from None
    try:
        body = json.loads(done.stdout or "{}")
    except json.JSONDecodeError:
        body = {}
    result = body.get("result") if isinstance(body, dict) else None
    if done.returncode != 0 or not isinstance(result, dict):
        message = body.get("message") if isinstance(body, dict) else None
        text = " ".join(str(message or (done.stderr or "")[:300] or "no output").split())
        raise OrgLoginError(f"--cua-org sf:{alias}: {what} gave no session (exit {done.returncode}): {text}")
    return result


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else ""
