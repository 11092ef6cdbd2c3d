"""What never reaches disk: the credential headers and query parameters (forwarded, never stored, never part of
a key), the scrubbing of their values from every file written (``CredentialScrubber``), and the ``redact``
function every stored string passes through (``Redact``, ``redact_strings``)."""

from __future__ import annotations

import threading
from typing import Any, Callable, Sequence
from urllib.parse import parse_qsl, urlsplit

#: Query parameters that carry credentials (Gemini-style ``?key=``): dropped from keys and files.
SECRET_QUERY = frozenset({"key", "api_key", "api-key", "apikey", "access_token", "token"})
#: Request headers whose values are credentials: forwarded, never stored, scrubbed from written files.
AUTH_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization", "x-goog-api-key"})

_MIN_SCRUB_LENGTH = 8
_SCRUBBED = "[REDACTED]"


Redact = Callable[[str], str]
"""A function that masks the secrets of a string (``pytest_cua.redaction.redact``)."""


def identity(text: str) -> str:
    """No redaction: ``text`` as it is."""
    return text


def redact_strings(value: Any, redact: Redact) -> Any:
    """``value`` (parsed JSON) with ``redact`` applied to every string in it."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_strings(v, redact) for v in value]
    if isinstance(value, dict):
        return {k: redact_strings(v, redact) for k, v in value.items()}
    return value


class CredentialScrubber:
    """Credential header and query values seen on requests, scrubbed from every file written (defence in depth:
    they are never stored as such, but an upstream may echo them)."""

    def __init__(self) -> None:
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def remember(self, headers: Sequence[tuple[str, str]], target: str) -> None:
        """Remember the credentials of a request's ``headers`` and of its ``target``'s query."""
        tokens = [(value.split() or [""])[-1] for name, value in headers  # "Bearer sk-..." -> "sk-..."
                  if name.lower() in AUTH_HEADERS]
        tokens += [value for name, value in parse_qsl(urlsplit(target).query)
                   if name.lower() in SECRET_QUERY]
        with self._lock:
            self._secrets.update(t for t in tokens if len(t) >= _MIN_SCRUB_LENGTH)

    def scrub(self, text: str) -> str:
        """``text`` with every remembered credential replaced by ``[REDACTED]``."""
        with self._lock:
            secrets = sorted(self._secrets, key=len, reverse=True)
        for secret in secrets:
            text = text.replace(secret, _SCRUBBED)
        return text
