"""The login session kept between browser contexts.

When a context's login (the environment's ``login_url`` hook, e.g. a frontdoor URL) set a cookie and landed on
another page, its storage state is kept, in memory only (its long values are registered as secrets), so later
contexts start from it at the page the login landed on, without the login hop. ``KeptLogin`` holds that state;
the environment decides when to use it, and forgets it when a page opened with it lands on a login page.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from pytest_cua.redaction import register_secrets

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

SECRET_COOKIE_LENGTH = 16
"""Cookie values of a login at least this long are registered as secrets (session ids are far longer)."""
LOGIN_MAX_AGE_S = 1800.0
"""A kept login session older than this is not reused: the next context logs in again (well before an org's
session timeout, so no task starts with a session about to expire)."""


def same_page(a: str, b: str) -> bool:
    """Whether two URLs name the same page (ignoring the fragment and a trailing slash)."""
    def norm(url: str) -> str:
        return url.split("#", 1)[0].rstrip("/")
    return norm(a) == norm(b)


class KeptLogin:
    """The storage state of the last login that set a cookie, the page it landed on and when; ``generation``
    changes whenever a kept state is forgotten (what was made from an older one is not used)."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None  # never written anywhere
        self.landing: str | None = None
        self.at = 0.0
        self.generation = 0

    def remember(self, ctx: "BrowserContext", page: "Page", login: str) -> bool:
        """Keep the storage state of a context that just logged in, when the login set a cookie and landed
        elsewhere (a login that is only a URL, e.g. ``?sid=`` read by the page, is done again every time).
        True when it was kept."""
        self.forget()
        landed = page.url
        if same_page(landed, login) or not landed.startswith(("http://", "https://")):
            return False
        try:
            state = ctx.storage_state()
        except Exception:  # noqa: BLE001 - log in again next time
            return False
        cookies = state.get("cookies") or []
        if not cookies:
            return False
        # the session id lives in the state: keep it out of everything written (values too short to be
        # a session id would redact ordinary words)
        register_secrets(c.get("value") for c in cookies if len(c.get("value") or "") >= SECRET_COOKIE_LENGTH)
        register_secrets(item.get("value") for origin in state.get("origins") or []
                         for item in origin.get("localStorage") or []
                         if len(item.get("value") or "") >= SECRET_COOKIE_LENGTH)
        self.state = dict(state)
        self.landing = landed
        self.at = time.monotonic()
        return True

    def forget(self) -> None:
        if self.state is not None:
            self.generation += 1
        self.state = None
        self.landing = None

    def current(self, max_age_s: float) -> dict[str, Any] | None:
        """The kept state, or None (none kept, or older than ``max_age_s``: then it is forgotten)."""
        if self.state is None:
            return None
        if time.monotonic() - self.at > max_age_s:
            self.forget()
            return None
        return self.state

    def cookies(self) -> list[dict[str, Any]]:
        """The cookies of the kept state (empty when none is kept)."""
        return list(self.state.get("cookies") or []) if self.state else []

    def local_storage_keys(self, origin: str) -> set[str]:
        """The localStorage keys the kept state holds for ``origin``."""
        return {item["name"] for o in (self.state or {}).get("origins") or []
                if o.get("origin") == origin for item in o.get("localStorage") or []}
