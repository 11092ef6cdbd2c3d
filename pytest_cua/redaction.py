"""Redaction of secrets before anything is written: trajectories, logs, Allure results.

Two mechanisms work together:

* a registry of exact secret values (passwords, tokens, session ids handed out by an org): every
  environment that learns a secret calls ``register_secret(value)``;
* patterns for secrets that show up without being registered: ``sid=...`` in URLs (frontdoor logins),
  ``Authorization: Bearer ...`` headers, ``access_token`` / ``refresh_token`` / ``password`` fields and
  Salesforce session ids (``00D...!...``).

``redact(text)`` handles one string; ``redact_data(obj)`` walks dicts, lists and tuples; ``redact_bytes``
handles text files (trace JSON, HTML) as bytes. The replacement is ``[REDACTED]``.

In a pytest session that collected a CUA suite, the plugin also redacts what pytest writes: ``LOG_FILTER``
on the session's log handlers (caplog, the captured-log sections, ``--log-file``, live logging),
``redact_report`` on every test report (failure text, captured sections, user properties: the terminal and
JUnit), and an allure-commons plugin on every Allure result. Any other session is left alone.
"""

from __future__ import annotations

import logging
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


# --- logs, pytest reports and Allure results --------------------------------------------------------------
#
# These run only in a session that collected a pytest-cua suite (see plugin.py): a project that never uses
# pytest-cua keeps its logs, reports and Allure results exactly as they are.

class RedactingFilter(logging.Filter):
    """A logging filter that redacts a record in place (message with its arguments, traceback text, stack
    text) and always lets it through. Attached to a handler, that handler never writes a secret; the record is
    changed for the handlers after it too."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format string: leave it to the handler
            return True
        cleaned = REDACTOR.redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = REDACTOR.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = REDACTOR.redact(record.stack_info)
        return True


#: The one redacting filter; attaching it twice to a handler is a no-op.
LOG_FILTER = RedactingFilter()


def install_log_redaction(handlers: Iterable[logging.Handler] | None = None) -> list[logging.Handler]:
    """Attach ``LOG_FILTER`` to ``handlers`` (default: the root logger's handlers now present). Returns the
    handlers it was newly attached to, for ``remove_log_redaction``. Idempotent."""
    attached: list[logging.Handler] = []
    for handler in list(logging.getLogger().handlers if handlers is None else handlers):
        if LOG_FILTER not in handler.filters:
            handler.addFilter(LOG_FILTER)
            attached.append(handler)
    return attached


def remove_log_redaction(handlers: Iterable[logging.Handler]) -> None:
    """Detach ``LOG_FILTER`` from ``handlers`` (those ``install_log_redaction`` returned)."""
    for handler in handlers:
        handler.removeFilter(LOG_FILTER)


def session_log_handlers(config: Any) -> list[logging.Handler]:
    """The handlers a pytest session logs to: pytest's own (caplog, the report sections, ``--log-file``,
    live logging) and the root logger's handlers now present."""
    handlers: list[logging.Handler] = list(logging.getLogger().handlers)
    plugin = config.pluginmanager.get_plugin("logging-plugin")
    for name in ("caplog_handler", "report_handler", "log_file_handler", "log_cli_handler"):
        handler = getattr(plugin, name, None)
        if isinstance(handler, logging.Handler) and handler not in handlers:
            handlers.append(handler)
    return handlers


#: the modules whose objects ``redact_in_place`` walks into: pytest's failure representations, Allure's model
_WALKED_MODULES = ("_pytest._code", "allure_commons")


def redact_in_place(obj: Any, _depth: int = 0) -> None:
    """Redact every string attribute of ``obj`` in place, walking lists, tuples and nested objects of
    pytest's failure representation (``ReprEntry``, ``ReprFileLocation``, ...) or Allure's result model."""
    if _depth > 12 or not hasattr(obj, "__dict__"):
        return
    for name, value in list(vars(obj).items()):
        cleaned = _redacted_value(value, _depth + 1)
        if cleaned is not value:
            object.__setattr__(obj, name, cleaned)


def _redacted_value(value: Any, depth: int) -> Any:
    """``value`` with its strings redacted: the same object when nothing changed (lists change in place)."""
    if isinstance(value, str):
        cleaned = REDACTOR.redact(value)
        return value if cleaned == value else cleaned
    if isinstance(value, list):
        for i, item in enumerate(value):
            cleaned = _redacted_value(item, depth)
            if cleaned is not item:
                value[i] = cleaned
        return value
    if isinstance(value, tuple):
        items = tuple(_redacted_value(item, depth) for item in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, dict):
        for key, item in list(value.items()):
            cleaned = _redacted_value(item, depth)
            if cleaned is not item:
                value[key] = cleaned
        return value
    if type(value).__module__.startswith(_WALKED_MODULES):
        redact_in_place(value, depth)
    return value


def _redacted_longrepr(longrepr: Any) -> Any:
    """A report's failure text with secrets redacted, keeping its kind: pytest's representation (redacted in
    place, so the terminal keeps its layout), a skip's ``(path, lineno, reason)`` or a string."""
    if longrepr is None:
        return None
    if isinstance(longrepr, str):
        return REDACTOR.redact(longrepr)
    if isinstance(longrepr, tuple):
        return _redacted_value(longrepr, 0)
    if type(longrepr).__module__.startswith(_WALKED_MODULES):
        redact_in_place(longrepr)
    text = str(longrepr)
    cleaned = REDACTOR.redact(text)
    return longrepr if cleaned == text else cleaned  # a representation the walk did not reach: its text


def redact_report(report: Any) -> None:
    """Redact a pytest ``TestReport`` in place: its failure text, captured sections and user properties.

    Call it from a ``pytest_runtest_makereport`` hook wrapper that runs before the reporters read the
    report (JUnit XML, allure-pytest, the terminal)."""
    longrepr = getattr(report, "longrepr", None)
    if longrepr is not None:
        report.longrepr = _redacted_longrepr(longrepr)
    sections = getattr(report, "sections", None)
    if sections:
        report.sections = [(title, REDACTOR.redact(content)) for title, content in sections]
    props = getattr(report, "user_properties", None)
    if props:
        report.user_properties = [(name, REDACTOR.redact_data(value)) for name, value in props]


def install_allure_redaction() -> Any:
    """Register an allure-commons plugin that redacts every test result and container before allure-pytest's
    file logger writes it (a result's status message comes from the exception itself, ``call.excinfo``, not
    from the redacted report). Returns the plugin for ``remove_allure_redaction``; None without allure."""
    try:
        import allure_commons
    except ImportError:
        return None

    class AllureResultRedactor:
        """Runs first (tryfirst), so the writer after it gets the redacted result."""

        @allure_commons.hookimpl(tryfirst=True)
        def report_result(self, result: Any) -> None:
            redact_in_place(result)

        @allure_commons.hookimpl(tryfirst=True)
        def report_container(self, container: Any) -> None:
            redact_in_place(container)

    plugin = AllureResultRedactor()
    allure_commons.plugin_manager.register(plugin)
    return plugin


def remove_allure_redaction(plugin: Any) -> None:
    """Unregister what ``install_allure_redaction`` registered."""
    if plugin is None:
        return
    import allure_commons

    if allure_commons.plugin_manager.is_registered(plugin):
        allure_commons.plugin_manager.unregister(plugin)
