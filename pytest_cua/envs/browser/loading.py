"""When a page is shown: its document loaded, each frame's too (a Classic Setup page loads in its frame), and no
region of it busy. A single-page application such as Lightning Experience moves between its pages without loading
a document: while it fetches the next page it marks the region being replaced ``aria-busy="true"`` (WAI-ARIA's
way of saying "being updated"; the embedded org's ``<main>`` is so marked, with an SLDS spinner over it). An
action that started such a navigation is over, and the page can be observed, once that mark is gone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from playwright.sync_api import Page

#: the page's main region is being replaced (a client-side navigation under way)
BUSY_JS = """() => !document.querySelector('main[aria-busy="true"], [role="main"][aria-busy="true"]')"""


def wait_until_shown(page: "Page", timeout_ms: float) -> None:
    """Wait (at most ``timeout_ms`` each) for the page's and its frames' documents to load and for its main region
    to be no longer busy; a slow page, or a frame that went away, is observed as it is."""
    try:
        page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
        for frame in page.frames[1:]:
            if not frame.is_detached():
                frame.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
    except Exception:  # noqa: BLE001 - a slow page, or a frame that went away (the router replaced it), is as it is
        pass
    try:  # waited for on its own: a frame that went away is no reason not to wait for the page that replaced it
        wait_for_true(page, BUSY_JS, timeout_ms)
    except Exception:  # noqa: BLE001 - observe whatever is there
        pass


def wait_for_true(page: "Page", predicate_js: str, timeout_ms: float, polling: float | Literal["raf"] = "raf") -> None:
    """Wait until the page's ``predicate_js`` (a function's source) returns true: one evaluation when it already
    does, the common case after an action (a round trip of about a millisecond, where Playwright's
    ``wait_for_function`` costs 5-11 ms even then: it installs a poller and reports on it), else Playwright's
    wait, polling every ``polling`` ms or animation frame. Raises Playwright's timeout error."""
    try:
        if page.evaluate(predicate_js):
            return
    except Exception:  # noqa: BLE001 - a context destroyed by a navigation: wait for the next document
        pass
    page.wait_for_function(predicate_js, timeout=timeout_ms, polling=polling)
