"""The shared Playwright driver: Playwright's sync API allows one running instance per thread, so every
browser environment of a thread shares one, counted, and the last to leave stops it."""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    from playwright.sync_api import Playwright

_PLAYWRIGHTS: dict[int, list[Any]] = {}  # thread id -> [Playwright, users]
_PLAYWRIGHTS_LOCK = threading.Lock()
UNRETRIEVED = "Future exception was never retrieved"


class ClosedTargetNoise(logging.Filter):
    """Drops asyncio's "Future exception was never retrieved" for Playwright's ``TargetClosedError``: when
    Chromium goes away, Playwright fails every call in flight, including its own internal ones nobody awaits,
    and asyncio logs each of those at garbage collection, after the run's own report of the crash (an
    environment error naming it). Any other unretrieved exception is still logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.getMessage().startswith(UNRETRIEVED) or not record.exc_info:
            return True
        exc = record.exc_info[1]
        return not (type(exc).__name__ == "TargetClosedError" and type(exc).__module__.startswith("playwright."))


def quiet_closed_targets() -> None:
    """Install ``ClosedTargetNoise`` on asyncio's logger (once)."""
    logger = logging.getLogger("asyncio")
    if not any(isinstance(f, ClosedTargetNoise) for f in logger.filters):
        logger.addFilter(ClosedTargetNoise())


def acquire_playwright(factory: Callable[[], Any]) -> "Playwright":
    """This thread's Playwright (started from ``factory``, e.g. ``sync_playwright``, by the first user)."""
    quiet_closed_targets()
    with _PLAYWRIGHTS_LOCK:
        entry = _PLAYWRIGHTS.get(threading.get_ident())
        if entry is None:
            entry = _PLAYWRIGHTS[threading.get_ident()] = [factory().start(), 0]
        entry[1] += 1
        return entry[0]


@contextlib.contextmanager
def shared_playwright() -> Iterator["Playwright"]:
    """This thread's sync Playwright, shared with every browser environment of the thread (Playwright's
    sync API refuses a second instance in one thread)."""
    from playwright.sync_api import sync_playwright

    pw = acquire_playwright(sync_playwright)
    try:
        yield pw
    finally:
        release_playwright(pw)


def release_playwright(pw: "Playwright") -> None:
    """One user of ``pw`` is done; the last one stops it."""
    with _PLAYWRIGHTS_LOCK:
        for key, entry in list(_PLAYWRIGHTS.items()):
            if entry[0] is pw:
                entry[1] -= 1
                if entry[1] <= 0:
                    del _PLAYWRIGHTS[key]
                    try:
                        pw.stop()
                    except Exception:  # noqa: BLE001
                        pass
                return
