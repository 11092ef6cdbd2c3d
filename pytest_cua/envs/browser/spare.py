"""A spare browser context made while a task runs, so the next task's fresh context is ready at restore.

Opening a context and its first tab costs ~130-150 ms (Chromium starts a renderer process per context), most
of a per-task reset. Playwright's sync API runs an event listener in a greenlet of its own, and a listener may
block in sync calls (the documented way to e.g. wait for a popup's load in its ``popup`` handler): the
event loop goes on meanwhile, and the listener's calls progress whenever the caller's own sync calls run the
loop. ``SpareContext.build`` is such a listener, attached once to the fresh tab's ``domcontentloaded`` event:
it makes the next context while the task observes and acts, without any Playwright internals.

The spare is a fresh context with the options (and login storage state) it was asked with and one tab, which
opens ``warm_url`` (a page of the landing page's origin answered by a route, never by the server: no request
leaves the browser) so that its renderer is ready (the environment reads the tab's storage there at restore, in
the same call that opens the landing page). Nothing of the running task reaches it: it is another context.

With ``preboot_url`` (the landing page, when the environment knows how to bring a booted page up to date in
place: ``BrowserEnvironment(landing_refresh=...)``) the tab opens the landing page itself instead of the warm-up
page and boots it while the task runs; at restore the environment reads its storage there (whatever the boot
stored is checked as any stray item is) and has the page show the org as the rollback left it with one in-place
navigation, instead of loading and booting the page after the rollback.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, Callable, Hashable

from pytest_cua.envs.browser.page_scripts import CUE

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Route

WAIT_S = 30.0
"""The longest a spare being made is waited for (Chromium makes one in well under a second)."""
WARM_PAGE = "<!doctype html><title>pytest-cua</title>"
WARM_PATH = "/__pytest_cua_fresh_context__"


class SpareContext:
    """A context with one tab, made by ``build`` (an event listener); ``tag`` says what it was made for."""

    def __init__(self, browser: "Browser", options: dict[str, Any], tag: Hashable, *, init_script: str,
                 warm_url: str | None, preboot_url: str | None = None) -> None:
        self._browser = browser
        self._options = options
        self._init_script = init_script
        self.warm_url = warm_url
        self.preboot_url = preboot_url if warm_url else None
        self.booted = False  # the tab opened ``preboot_url`` (else the warm-up page)
        self.tag = tag
        self.state = "wanted"  # -> building -> ready | failed
        self.context: BrowserContext | None = None
        self.page: Page | None = None
        self.error: str | None = None
        self._discarded = False

    def build(self, *_: Any) -> None:
        """Make the context (runs as an event listener: its blocking calls let the task go on)."""
        if self.state != "wanted" or self._discarded:
            return
        self.state = "building"
        try:
            context = self._browser.new_context(**self._options)
            self.context = context
            context.add_init_script(self._init_script)  # before the tab: no round trip to a page
            page = context.new_page()
            if self.preboot_url:
                # the landing page itself, booting in the tab's renderer while the task goes on (no wait: each
                # wait here is a turn of the task's own calls); its storage is read there at restore
                page.evaluate("url => location.assign(url)", self.preboot_url)
                self.booted = True
            elif self.warm_url:
                page.route(self.warm_url, _answer_warm)
                page.goto(self.warm_url, wait_until="domcontentloaded")
                page.unroute(self.warm_url)
            self.page = page
        except Exception as exc:  # noqa: BLE001 - the caller opens a context the ordinary way
            self.error = f"{type(exc).__name__}: {exc}"[:300]
            self.state = "failed"
            self._close()
            return
        self.state = "ready"
        if self._discarded:
            self._close()

    def owns(self, context: "BrowserContext") -> bool:
        return self.context is not None and context is self.context

    def settle(self, waiter: Callable[[], Any] | None) -> None:
        """Let a spare being made finish (``waiter``: a short sync call that runs Playwright's loop)."""
        wait_while(lambda: self.state == "building", waiter)

    def take(self) -> "BrowserContext | None":
        """The ready spare (its one tab at ``warm_url``), or None."""
        if self.state != "ready" or self.context is None or self.page is None or self._discarded:
            return None
        if len(self.context.pages) != 1 or self.page.is_closed():
            self.discard()
            return None
        return self.context

    def discard(self) -> None:
        """Close the spare (now when it is made, else as soon as it is; never when it was never started)."""
        self._discarded = True
        if self.state in ("ready", "failed"):
            self._close()

    def _close(self) -> None:
        if self.context is not None:
            try:
                self.context.close()
            except Exception:  # noqa: BLE001 - already gone
                pass


def start_in_background(page: "Page", spare: "SpareContext | None", closer: "BackgroundClose | None") -> None:
    """Start what is still wanted of ``spare`` (making it) and ``closer`` (closing the last task's contexts) from a
    console message of ``page``: its listeners run while the caller goes on. A tab that went away starts
    nothing: no spare then (the ordinary way at restore), and the next rollback closes the contexts itself."""
    spare = spare if spare is not None and spare.state == "wanted" else None
    closer = closer if closer is not None and closer.state == "wanted" else None
    if (spare is None and closer is None) or page.is_closed():
        return
    try:
        if closer is not None:
            page.once("console", closer.run)
        if spare is not None:
            page.once("console", spare.build)
        page.evaluate(f"() => setTimeout(() => console.debug({json.dumps(CUE)}))")
    except Exception:  # noqa: BLE001 - a tab that went away
        pass


def wait_while(busy: Callable[[], bool], waiter: Callable[[], Any] | None) -> None:
    """Run ``waiter`` (a short sync call that lets Playwright's loop, and so a listener's work, go on) while
    ``busy()``, for at most ``WAIT_S``."""
    deadline = time.monotonic() + WAIT_S
    while busy() and waiter is not None and time.monotonic() < deadline:
        try:
            waiter()
        except Exception:  # noqa: BLE001 - nothing left to wait with
            return


def _answer_warm(route: "Route") -> None:
    route.fulfill(status=200, content_type="text/html", body=WARM_PAGE)


def warm_url_for(url: str | None) -> str | None:
    """The warm-up page of ``url``'s origin (http/https only)."""
    if not url or not url.startswith(("http://", "https://")):
        return None
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{rest.split('/', 1)[0]}{WARM_PATH}"


class BackgroundClose:
    """The last task's contexts, closed by ``run`` (an event listener, like ``SpareContext.build``) after the next
    task's first observation: closing a context keeps the browser and a core busy for tens of milliseconds (its
    renderer's end), which would delay the next task's page. ``contexts`` lists those not closed yet (the residue
    check leaves them out: no tab of theirs is the agent's); ``settle`` closes what is left before the next
    rollback counts contexts, so one is never left behind."""

    def __init__(self, contexts: "list[BrowserContext]") -> None:
        self.contexts = list(contexts)
        self.state = "wanted"  # -> closing -> done

    def run(self, *_: Any) -> None:
        if self.state != "wanted":
            return
        self.state = "closing"
        try:
            for context in list(self.contexts):
                try:
                    context.close()
                except Exception:  # noqa: BLE001 - already gone
                    pass
                self.contexts.remove(context)
        finally:
            self.state = "done"

    def settle(self, waiter: Callable[[], Any] | None) -> None:
        """Wait for a close under way (``waiter``: a short sync call that runs Playwright's loop); one that
        never started is done here, in the caller's own calls."""
        wait_while(lambda: self.state == "closing", waiter)
        if self.state == "wanted":
            self.run()
