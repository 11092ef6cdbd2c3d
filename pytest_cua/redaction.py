"""Redaction of secrets before anything is written: trajectories, logs, Allure results.

Two mechanisms work together:

* a registry of exact secret values (passwords, tokens, session ids handed out by an org): every
  environment that learns a secret calls ``register_secret(value)``;
* patterns for secrets that show up without being registered: ``sid=...`` in URLs (frontdoor logins),
  ``Authorization: Bearer ...`` headers, ``access_token`` / ``refresh_token`` / ``password`` fields and
  Salesforce session ids (``00D...!...``).

``redact(text)`` handles one string; ``redact_data(obj)`` walks dicts, lists and tuples; ``redact_bytes``
handles text files (trace JSON, HTML) as bytes. The replacement is ``[REDACTED]``.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Iterable

REDACTED = "[REDACTED]"
MIN_SECRET_LENGTH = 4  # shorter values would redact ordinary words

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Salesforce session ids / access tokens: org id (00D + 12 or 15 chars) '!' opaque token
    (re.compile(r"\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._\-]{8,}"), REDACTED),
    # sid / session id / tokens in query strings, cookies and form bodies: sid=..., &access_token=...
    (re.compile(r"(?i)(\b(?:sid|session_?id|access_token|refresh_token|id_token|client_secret|password|pwd|"
                r"oauth_token|token)=)[^&\s\"'<>;,#]+"), r"\1" + REDACTED),
    # JSON / dict style: "access_token": "..." (also single quotes)
    (re.compile(r"(?i)([\"']?(?:access_token|refresh_token|id_token|session_?id|sid|client_secret|password|"
                r"security_token|api_key|authorization)[\"']?\s*[:=]\s*[\"'])[^\"']+([\"'])"),
     r"\1" + REDACTED + r"\2"),
    # HTTP headers: Authorization: Bearer xyz / OAuth xyz / Basic xyz
    (re.compile(r"(?i)(\b(?:Bearer|OAuth|Basic)\s+)[A-Za-z0-9._~+/=!\-]{8,}"), r"\1" + REDACTED),
)


class Redactor:
    """A set of registered secret values plus the patterns above. Thread-safe; values are never logged."""

    def __init__(self) -> None:
        self._values: set[str] = set()
        self._lock = threading.Lock()
        self._compiled: re.Pattern[str] | None = None

    def register(self, value: str | None) -> None:
        """Remember ``value`` as a secret (ignored when empty or shorter than ``MIN_SECRET_LENGTH``)."""
        if not value or not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH:
            return
        with self._lock:
            if value not in self._values:
                self._values.add(value)
                self._compiled = None

    def forget_all(self) -> None:
        with self._lock:
            self._values.clear()
            self._compiled = None

    @property
    def count(self) -> int:
        return len(self._values)

    def _values_pattern(self) -> re.Pattern[str] | None:
        with self._lock:
            if self._compiled is None and self._values:
                # longest first so a secret containing another is replaced whole
                ordered = sorted(self._values, key=len, reverse=True)
                variants: list[str] = []
                for v in ordered:
                    variants.append(re.escape(v))
                    quoted = _url_quoted(v)
                    if quoted != v:
                        variants.append(re.escape(quoted))
                self._compiled = re.compile("|".join(variants))
            return self._compiled

    def redact(self, text: str) -> str:
        """Return ``text`` with every registered value and every known secret pattern replaced."""
        if not text:
            return text
        pattern = self._values_pattern()
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        for regex, replacement in _PATTERNS:
            text = regex.sub(replacement, text)
        return text

    def redact_data(self, obj: Any) -> Any:
        """Redact every string inside dicts, lists and tuples (keys included); other values pass through."""
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, dict):
            return {self.redact(k) if isinstance(k, str) else k: self.redact_data(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.redact_data(v) for v in obj]
        if isinstance(obj, tuple):
            return tuple(self.redact_data(v) for v in obj)
        return obj

    def redact_bytes(self, data: bytes) -> bytes:
        """Redact a text payload given as bytes (UTF-8, undecodable bytes kept)."""
        text = data.decode("utf-8", errors="surrogateescape")
        return self.redact(text).encode("utf-8", errors="surrogateescape")


def _url_quoted(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")


#: The process-wide redactor used by trajectories, Allure and logs.
REDACTOR = Redactor()


def register_secret(value: str | None) -> None:
    """Register a secret value with the process-wide redactor."""
    REDACTOR.register(value)


def register_secrets(values: Iterable[str | None]) -> None:
    for value in values:
        REDACTOR.register(value)


def redact(text: str) -> str:
    """Redact one string with the process-wide redactor."""
    return REDACTOR.redact(text)


def redact_data(obj: Any) -> Any:
    """Redact nested data with the process-wide redactor."""
    return REDACTOR.redact_data(obj)


def redact_bytes(data: bytes) -> bytes:
    return REDACTOR.redact_bytes(data)


# --- logs and pytest reports -----------------------------------------------------------------------------

_LOG_FACTORY_INSTALLED = False


def install_log_redaction() -> None:
    """Redact every log record of this process when it is created (message and arguments), so no handler
    (pytest's log capture, allure-pytest's log attachment, a file handler) ever sees a secret. Idempotent."""
    import logging

    global _LOG_FACTORY_INSTALLED
    if _LOG_FACTORY_INSTALLED:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format string: leave it to the handler
            return record
        cleaned = REDACTOR.redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return record

    logging.setLogRecordFactory(factory)
    _LOG_FACTORY_INSTALLED = True


def redact_report(report: Any) -> None:
    """Redact a pytest ``TestReport`` in place: its failure text, captured sections and user properties.

    Call it from a ``pytest_runtest_makereport`` hook wrapper that runs before the reporters read the
    report (JUnit XML, allure-pytest, the terminal)."""
    longrepr = getattr(report, "longrepr", None)
    if longrepr is not None:
        text = str(longrepr)
        cleaned = REDACTOR.redact(text)
        if cleaned != text:
            report.longrepr = cleaned
    sections = getattr(report, "sections", None)
    if sections:
        report.sections = [(title, REDACTOR.redact(content)) for title, content in sections]
    props = getattr(report, "user_properties", None)
    if props:
        report.user_properties = [(name, REDACTOR.redact_data(value)) for name, value in props]
