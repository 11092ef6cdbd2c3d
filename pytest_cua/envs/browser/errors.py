"""Errors of browser actions: ``ActionFailed`` (its message goes to the agent) and ``short_error``, a
Playwright error without its long call log."""

from __future__ import annotations

from pytest_cua.redaction import redact


class ActionFailed(Exception):
    """An action that could not be carried out; its message goes to the agent."""


def short_error(exc: BaseException, limit: int = 300) -> str:
    """The first line(s) of a Playwright error, without its long call log."""
    text = str(exc).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("=")]
    head = lines[0] if lines else type(exc).__name__
    for ln in lines[1:4]:
        if ln.startswith("- ") and ("waiting for" in ln or "not" in ln):
            head += f" ({ln[2:]})"
            break
    head = head.replace("Locator.", "").replace("Page.", "").replace("Mouse.", "").replace("Keyboard.", "")
    return redact(head if len(head) <= limit else head[: limit - 3] + "...")
