"""Authentication of the org: credentials per data directory, OAuth access tokens and browser sessions.

- ``Credentials``: client id/secret and the admin's password, generated once per data directory and stored in
  ``credentials.json`` (mode 0600). Never logged.
- ``TokenStore``: access tokens (OAuth 2.0 client-credentials and password grants) and browser sessions (cookie
  ``sid``, set by ``/secur/frontdoor.jsp?sid=TOKEN`` or the login page), each with an expiry.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

SESSION_COOKIE = "sid"
DEFAULT_TTL = 12 * 3600.0


@dataclass(frozen=True)
class Credentials:
    """What a client needs to log in (``username`` is the admin user's Username)."""

    client_id: str
    client_secret: str
    username: str
    password: str


def load_or_create_credentials(data_dir: str | Path, username: str) -> Credentials:
    """Read ``credentials.json`` of ``data_dir`` or create it with random secrets (mode 0600)."""
    path = Path(data_dir) / "credentials.json"
    if path.exists():
        raw = json.loads(path.read_text(encoding="utf-8"))
        creds = Credentials(raw["client_id"], raw["client_secret"], raw.get("username") or username, raw["password"])
        if creds.username == username:
            return creds
        creds = Credentials(creds.client_id, creds.client_secret, username, creds.password)
    else:
        creds = Credentials(
            client_id="3MVG9LocalOrg" + secrets.token_urlsafe(24).replace("-", "").replace("_", ""),
            client_secret=secrets.token_hex(32),
            username=username,
            password=secrets.token_urlsafe(18),
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(asdict(creds), fh, indent=2)
    os.chmod(path, 0o600)
    return creds


def same_secret(given: str | None, expected: str) -> bool:
    """Constant-time comparison of a secret."""
    return given is not None and hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


@dataclass
class Grant:
    """A live token or browser session: who it is for and until when."""

    user_id: str
    expires_at: float
    kind: str  # "token" or "session"


class TokenStore:
    """Access tokens and browser sessions with expiry; thread-safe."""

    def __init__(self, org_id: str, ttl: float = DEFAULT_TTL) -> None:
        self.org_id = org_id
        self.ttl = ttl
        self._grants: dict[str, Grant] = {}
        self._lock = threading.Lock()

    def _new(self, user_id: str, kind: str, ttl: float | None) -> str:
        token = f"{self.org_id[:15]}!" + secrets.token_urlsafe(48)
        with self._lock:
            now = time.time()
            for key in [k for k, g in self._grants.items() if g.expires_at <= now]:
                del self._grants[key]
            self._grants[token] = Grant(user_id, now + (self.ttl if ttl is None else ttl), kind)
        return token

    def issue_token(self, user_id: str, ttl: float | None = None) -> str:
        """A new access token for ``user_id``."""
        return self._new(user_id, "token", ttl)

    def open_session(self, user_id: str, ttl: float | None = None) -> str:
        """A new browser session id for ``user_id`` (the value of the ``sid`` cookie)."""
        return self._new(user_id, "session", ttl)

    def check(self, value: str | None, kind: str) -> str | None:
        """The user id of a live token (``kind="token"``) or session (``kind="session"``), else None."""
        if not value:
            return None
        with self._lock:
            grant = self._grants.get(value)
            if grant is None or grant.kind != kind:
                return None
            if grant.expires_at <= time.time():
                del self._grants[value]
                return None
            return grant.user_id

    def revoke(self, value: str) -> None:
        """End a token or session."""
        with self._lock:
            self._grants.pop(value, None)

    def expire_all(self) -> None:
        """End every token and session (for tests of expiry)."""
        with self._lock:
            self._grants.clear()


def signature(identity_url: str, issued_at: str, client_secret: str) -> str:
    """The ``signature`` of a token response: base64 HMAC-SHA256 of id + issued_at with the client secret."""
    mac = hmac.new(client_secret.encode(), (identity_url + issued_at).encode(), hashlib.sha256).digest()
    return base64.b64encode(mac).decode()
