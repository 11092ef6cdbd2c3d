"""The browser environment: Chromium through Playwright's sync API.

One browser per xdist worker; a fresh browser context per task. Observations: screenshot, an accessibility
outline with a short id per interactive element (``[e12] button "Save"``, see ``outline``), a flattened DOM of
those elements, and set-of-marks (the screenshot with numbered boxes, see ``marks``). Actions are carried out
by the handlers in ``actions``.

A failed action is an ``ActionResult(ok=False, error=...)``; only a dead browser raises ``EnvironmentCrash``.

Logging in to an org is the caller's business: give ``login_url`` (a callable returning e.g. the frontdoor
URL with a fresh session id) and a fresh context opens that instead of ``start_url``. When the login set a
cookie, its storage state is kept (in memory only; its values are registered as secrets) and later contexts
start from it at the page the login landed on, without the login hop; ``login_page`` (a callable telling a
login page's URL) tells when the kept session stopped working, and the context logs in again.

A fresh context per task: ``restore`` closes the task's context and opens another one, made in the background
while the task ran when possible (``spare``); ``residue`` proves that only the fresh tab and the login's
cookies and storage are there.
"""

from __future__ import annotations

import atexit
import base64
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence
from urllib.parse import urljoin

from pytest_cua.actions import Action, ActionResult
from pytest_cua.envs.base import Environment, EnvironmentCrash, ProvisioningError, Snapshot
from pytest_cua.envs.browser import actions as handlers
from pytest_cua.envs.browser.actions import ALLOWED_URL_SCHEMES
from pytest_cua.envs.browser.chromium import check_display, find_chromium, launch_args
from pytest_cua.envs.browser.driver import acquire_playwright, release_playwright
from pytest_cua.envs.browser.errors import ActionFailed, short_error
from pytest_cua.envs.browser.marks import draw_marks
from pytest_cua.envs.browser.options import ENDPOINT_OPTION, BrowserOptions, show_endpoint
from pytest_cua.envs.browser.outline import ElementIndex, Resolved, render_dom
from pytest_cua.envs.browser.spare import WARM_PATH, SpareContext, warm_url_for
from pytest_cua.envs.browser.traces import redact_zip
from pytest_cua.envs.browser.video import Screencast, find_ffmpeg
from pytest_cua.observations import Observation
from pytest_cua.redaction import redact, register_secrets

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright

    from pytest_cua.tasks.task import Task

DIALOG_SCRIPT = """(() => {
  // pytest-cua: alert/confirm/prompt are answered in the page (accept, default text) and recorded, so a
  // click that opens one completes normally; the messages come with the next observation.
  const store = (window.__cuaDialogs = window.__cuaDialogs || []);
  const note = (kind, msg) => { if (store.length < 20) store.push(kind + ": " + String(msg === undefined ? "" : msg).slice(0, 500)); };
  window.alert = (msg) => { note("alert", msg); };
  window.confirm = (msg) => { note("confirm", msg); return true; };
  window.prompt = (msg, def) => { note("prompt", msg); return def === undefined ? "" : String(def); };
})();"""
PAGE_STATE = "() => [document.title, (window.__cuaDialogs || []).splice(0)]"
STORAGE_KEYS = """() => { try { return [location.origin, Object.keys(localStorage), Object.keys(sessionStorage)]; }
  catch (e) { return [location.origin, [], []]; } }"""
STORAGE_THEN_OPEN = """url => { const keys = [location.origin, Object.keys(localStorage), Object.keys(sessionStorage)];
  location.replace(url); return keys; }"""
CONNECT_TIMEOUT_S = 15.0
"""How long connecting to a remote browser (``--cua-browser-endpoint``) may take."""
LANDING_WAIT: Literal["commit"] = "commit"
"""How long opening the landing page with a kept session waits: until the response is committed; the page
renders while the next task starts (the first observation waits for the DOM)."""
SECRET_COOKIE_LENGTH = 16
"""Cookie values of a login at least this long are registered as secrets (session ids are far longer)."""
LOGIN_MAX_AGE_S = 1800.0
"""A kept login session older than this is not reused: the next context logs in again (well before an org's
session timeout, so no task starts with a session about to expire)."""


class BrowserEnvironment(Environment):
    """A Chromium browser for computer-use tasks; see the module docstring."""

    name = "browser"

    def __init__(self, options: BrowserOptions | None = None, *, start_url: str | None = None,
                 login_url: Callable[[], str] | None = None, home_url: str | None = None,
                 login_page: Callable[[str], bool] | None = None,
                 ignore_https_errors: bool = False, artifacts_dir: Path | None = None,
                 worker_id: str = "master", run_id: str = "run") -> None:
        self.options = options or BrowserOptions()
        self.start_url = start_url or self.options.start_url
        self.login_url = login_url
        self.login_page = login_page
        self.login_max_age_s = LOGIN_MAX_AGE_S
        self.spare_contexts = True  # make the next task's context in the background (headless only)
        self.home_url = home_url
        self.ignore_https_errors = ignore_https_errors
        self.artifacts_dir = Path(artifacts_dir) if artifacts_dir is not None else None
        self.worker_id = worker_id
        self.run_id = run_id
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self.active_tab = 0  # index of the active tab (the tab actions in ``actions`` switch it)
        self.outline = ElementIndex()
        self._dialogs: list[str] = []
        self.navigations = 0  # main-frame navigation requests seen (a key press may start one a moment later)
        self.commits = 0  # main-frame navigations committed
        self._crashed: str | None = None
        self._tracing = False
        self._pristine = False
        self._cdp_process: subprocess.Popen[bytes] | None = None
        self._cdp_endpoint: str | None = None  # the detached --keep-env browser's DevTools endpoint
        self._endpoint: str | None = None  # the --cua-browser-endpoint this environment is connected to
        self.reconnects = 0  # connections made again after a remote browser dropped
        self._user_data_dir: str | None = None
        self._closed = False
        self._task_id: str | None = None
        self.last_artifacts: dict[str, Any] = {}
        self._screencasts: list[Screencast] = []
        self._login_state: dict[str, Any] | None = None  # storage state of the login (never written anywhere)
        self._login_landing: str | None = None
        self._login_at = 0.0
        self._login_generation = 0
        self._spare: SpareContext | None = None
        self._fresh_storage: tuple[str, list[str], list[str]] | None = None  # checked before the landing page
        self._foreign_contexts: list[BrowserContext] = []
        self.logins = 0  # logins by ``login_url`` whose session was kept
        self.session_reuses = 0  # fresh contexts opened with the kept session
        self.spares_taken = 0  # fresh contexts made in the background

    # --- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> "BrowserEnvironment":
        """Launch the browser (idempotent)."""
        if self._browser is not None:
            return self
        check_display(self.options)
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            raise ProvisioningError("the browser environment needs Playwright: pip install 'pytest-cua[browser]' "
                                    "(or pip install playwright)") from None
        self._pw = acquire_playwright(sync_playwright)
        try:
            if self.options.endpoints:
                self._browser = self._connect_remote(failover=False)
            else:
                path = find_chromium(self._pw, self.options.executable_path)
                if self.options.keep_env:
                    self._browser = self._launch_detached(path)
                else:
                    self._browser = self._pw.chromium.launch(
                        executable_path=path, headless=self.options.headless,
                        slow_mo=self.options.slowmo_ms or None, args=launch_args(self.options),
                        chromium_sandbox=False, env=dict(os.environ))  # the shared driver may predate DISPLAY
        except ProvisioningError:
            self._stop_playwright()
            raise
        except Exception as exc:  # noqa: BLE001 - a launch failure is a provisioning error
            self._stop_playwright()
            raise ProvisioningError(f"Chromium did not start: {short_error(exc, 600)}") from exc
        self._watch_browser()
        if self.options.keep_env:
            atexit.register(self._announce_kept)
        return self

    def _watch_browser(self) -> None:
        browser = self._browser
        assert browser is not None
        why = (f"the connection to the browser at {ENDPOINT_OPTION} {show_endpoint(self._endpoint)} dropped"
               if self._endpoint else "the browser disconnected")
        browser.on("disconnected", lambda b: self._mark_crashed(why) if b is self._browser else None)

    def _connect(self, endpoint: str) -> "Browser":
        """Connect to a running browser: ``ws://`` a Playwright browser server (``chromium.connect``),
        ``http(s)://`` a DevTools endpoint (``connect_over_cdp``: remote grids, the --keep-env browser)."""
        assert self._pw is not None
        slow_mo = self.options.slowmo_ms or None
        if endpoint.lower().startswith(("ws://", "wss://")):
            return self._pw.chromium.connect(endpoint, timeout=CONNECT_TIMEOUT_S * 1000, slow_mo=slow_mo)
        return self._pw.chromium.connect_over_cdp(endpoint, timeout=CONNECT_TIMEOUT_S * 1000, slow_mo=slow_mo)

    def _connect_remote(self, *, failover: bool) -> "Browser":
        """Connect to this worker's ``--cua-browser-endpoint``; with ``failover`` (a reconnect after a drop)
        to the next ones in order when it does not answer. The error names the option and every URL tried."""
        assigned = self.options.endpoint_for(self.worker_id)
        assert assigned is not None
        order = [assigned]
        if failover:
            i = self.options.endpoints.index(assigned)
            order += [e for e in self.options.endpoints[i + 1:] + self.options.endpoints[:i] if e != assigned]
        errors = []
        for endpoint in order:
            try:
                browser = self._connect(endpoint)
            except Exception as exc:  # noqa: BLE001 - unreachable, refused, not a browser: the next one
                errors.append(f"{show_endpoint(endpoint)}: {short_error(exc, 300)}")
                continue
            self._endpoint = endpoint
            self._foreign_contexts = list(browser.contexts)  # a DevTools browser's default context
            return browser
        raise ProvisioningError(f"{ENDPOINT_OPTION}: no browser answered for worker {self.worker_id}: "
                                + "; ".join(errors) + " (start one with 'playwright launch-server --browser "
                                "chromium' or 'playwright run-server', or check the URL)")

    def _reconnect(self) -> None:
        """After a dropped connection to a remote browser: connect again (the next endpoints when this one is
        gone). The task the drop happened in is already an error; everything of the old connection goes."""
        old, self._browser = self._browser, None
        self._context = None
        self._spare = None
        self._screencasts = []
        self._tracing = False
        self._task_id = None
        self._pristine = False
        if old is not None:
            try:
                old.close()
            except Exception:  # noqa: BLE001 - already gone
                pass
        self._browser = self._connect_remote(failover=True)
        self._crashed = None
        self._watch_browser()
        self.reconnects += 1

    def _recover(self) -> None:
        """Reconnect a remote browser whose connection dropped; an EnvironmentCrash when none answers."""
        if not (self._crashed and self.options.endpoints and not self._closed):
            return
        try:
            self._reconnect()
        except ProvisioningError as exc:
            raise EnvironmentCrash(f"browser environment: {self._crashed}; reconnecting failed: {exc}") from exc

    def _announce_kept(self) -> None:
        """At exit (after pytest's output capture ended): say where the kept browser is, once."""
        if self._cdp_process is None or self._cdp_process.poll() is not None or getattr(self, "_announced", False):
            return
        self._announced = True
        try:
            sys.__stderr__.write(self.keep_env_message(with_tabs=False) + "\n")  # type: ignore[union-attr]
        except Exception:  # noqa: BLE001
            pass

    def _launch_detached(self, path: str | None) -> "Browser":
        """--keep-env: run Chromium as its own process (it outlives this one) and connect over CDP."""
        assert self._pw is not None
        exe = path or self._pw.chromium.executable_path
        self._user_data_dir = tempfile.mkdtemp(prefix=f"pytest-cua-browser-{self.worker_id}-")
        args = [exe, *launch_args(self.options), "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
                f"--user-data-dir={self._user_data_dir}", f"--window-size={self.options.viewport[0]},"
                f"{self.options.viewport[1]}", "about:blank"]
        if self.options.headless:
            args.insert(1, "--headless=new")
        self._cdp_process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                             start_new_session=True)
        port_file = Path(self._user_data_dir) / "DevToolsActivePort"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if port_file.exists() and port_file.read_text().strip():
                break
            if self._cdp_process.poll() is not None:
                raise ProvisioningError(f"Chromium exited at start (code {self._cdp_process.returncode})")
            time.sleep(0.1)
        else:
            raise ProvisioningError("Chromium did not open its DevTools port within 20 s")
        port = port_file.read_text().split()[0]
        self._cdp_endpoint = f"http://127.0.0.1:{port}"
        return self._connect(self._cdp_endpoint)

    def _stop_playwright(self) -> None:
        if self._pw is not None:
            release_playwright(self._pw)
            self._pw = None

    def _mark_crashed(self, why: str) -> None:
        if not self._closed:
            self._crashed = why

    def _check_alive(self) -> None:
        if self._crashed:
            raise EnvironmentCrash(f"browser environment: {self._crashed}")
        if self._browser is None:
            self.start()

    @property
    def browser(self) -> "Browser":
        self._check_alive()
        assert self._browser is not None
        return self._browser

    @property
    def context(self) -> "BrowserContext":
        if self._context is None:
            self.new_context()
        assert self._context is not None
        return self._context

    @property
    def page(self) -> "Page":
        """The active tab."""
        pages = self.context.pages
        if not pages:
            page = self.context.new_page()
            self.watch_page(page)
            pages = [page]
        self.active_tab = max(0, min(self.active_tab, len(pages) - 1))
        return pages[self.active_tab]

    def close_contexts(self, keep: "BrowserContext | None" = None) -> None:
        """Close every context this environment opened (finalizing videos and traces). A task that ended
        without ``end_task`` (its episode broke) keeps its trace: it is the one worth looking at."""
        if self._tracing and self._task_id and self.artifacts_dir is not None and self.options.trace != "off":
            path = self.artifacts_dir / "traces" / f"{_safe_name(self._task_id)}.zip"
            self._stop_trace(path)
            if path.exists():
                self.last_artifacts = {"trace": str(path)}
        else:
            self._stop_trace(None)
        self._task_id = None
        for cast in self._screencasts:
            cast.stop()
        self._screencasts = []
        if self._browser is None:
            return
        spare = self._spare
        if spare is not None and spare.state == "building":
            spare.settle(self._waiter())  # a context half made cannot be told apart from the others
        for ctx in list(self._browser.contexts):
            if (spare is not None and spare.owns(ctx)) or self._foreign(ctx) or ctx is keep:
                continue  # the next task's context; a remote DevTools browser's own default context
            if self.options.keep_env and ctx is self._default_cdp_context():
                for page in list(ctx.pages):
                    page.close()
                ctx.clear_cookies()
                continue
            try:
                ctx.close()
            except Exception:  # noqa: BLE001 - already gone
                pass
        self._context = None

    def _foreign(self, ctx: "BrowserContext") -> bool:
        """A context this environment did not open: the default context of a remote DevTools browser (never
        used: other clients' tabs show up in it)."""
        return bool(self._endpoint) and any(ctx is c for c in self._foreign_contexts)

    def _waiter(self) -> "Callable[[], Any] | None":
        """A short sync call that lets Playwright's loop run (to wait for a spare being made)."""
        for ctx in (self._context, *(self._browser.contexts if self._browser is not None else [])):
            if ctx is not None and ctx.pages and not (self._spare is not None and self._spare.owns(ctx)):
                page = ctx.pages[0]
                return lambda: page.wait_for_timeout(2)
        return None

    def _default_cdp_context(self) -> "BrowserContext | None":
        if self._cdp_endpoint and self._browser is not None and self._browser.contexts:
            return self._browser.contexts[0]
        return None

    def new_context(self, *, url: str | None = None) -> "BrowserContext":
        """Close all contexts and open a fresh one with one tab at ``url`` (or the login / start URL).

        With a login hook, the first context logs in (``login_url``, e.g. a frontdoor URL) and its storage
        state (the session cookie) is kept in memory; later contexts start from that state and open the page
        the login landed on (or ``url``) directly. A session that no longer works (the page lands on the login
        page, see ``login_page``) or is older than ``login_max_age_s`` means a new login in the same context.
        The context is the spare made while the last task ran when there is one (``spare``); its storage is
        checked on its warm-up page (the landing page's origin) before the landing page opens.
        """
        browser = self.browser
        state = self._session_state()
        self._fresh_storage = None
        spare_ctx = None if self._cdp_endpoint else self._take_spare(state)
        landing_started = False
        if spare_ctx is not None and state is not None and url is None and self._login_landing:
            try:  # its storage, read on the warm-up page; then the landing page loads while the old contexts close
                origin, local, session = spare_ctx.pages[0].evaluate(STORAGE_THEN_OPEN, self._login_landing)
                self._fresh_storage = (str(origin), [str(k) for k in local], [str(k) for k in session])
                landing_started = True
            except Exception:  # noqa: BLE001 - opened the ordinary way below (storage: read on the landing page)
                pass
        self.close_contexts(keep=spare_ctx)
        w, h = self.options.viewport
        if self.options.video and not self._cdp_endpoint and find_ffmpeg() is None:
            raise ProvisioningError("--cua-video needs an ffmpeg to encode the video: 'pip install imageio-ffmpeg', "
                                    "'apt-get install ffmpeg' or 'playwright install ffmpeg'; or drop --cua-video")
        if self._cdp_endpoint:
            ctx = self._default_cdp_context() or browser.new_context()
            if not ctx.pages:
                ctx.new_page()
            ctx.pages[0].set_viewport_size({"width": w, "height": h})
            if state is not None:
                ctx.add_cookies(state["cookies"])  # type: ignore[arg-type]
        else:
            ctx = spare_ctx or browser.new_context(**self._context_options(state))
        if spare_ctx is None:  # a spare has it already
            ctx.add_init_script(DIALOG_SCRIPT)
        ctx.set_default_timeout(self.options.action_timeout_s * 1000)
        ctx.set_default_navigation_timeout(self.options.navigation_timeout_s * 1000)
        if not getattr(ctx, "_cua_watched", False):
            ctx.on("page", self.adopt_page)
            ctx._cua_watched = True  # type: ignore[attr-defined]
        self._context = ctx
        self.active_tab = 0  # index of the active tab (the tab actions in ``actions`` switch it)
        self.outline.reset()  # a fresh context numbers its elements from e1 again (replays see the same ids)
        self._dialogs.clear()
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        self.watch_page(page)
        if state is not None:
            target = url or self._login_landing
            assert target is not None
            if landing_started:
                self._wait_landing(page)
            else:
                self._open(page, target, LANDING_WAIT if url is None else "domcontentloaded")
            if self._logged_out(page.url, target):
                self._forget_login()  # expired or revoked: log in again, in this same fresh context
                ctx.clear_cookies()
                state = None
            else:
                self.session_reuses += 1
        if state is None:
            if url is None or self.login_url is not None:
                target = self.landing_url()
                self._open(page, target, "domcontentloaded")
                if self.login_url is not None:
                    self._remember_login(ctx, page, target)
            if url is not None or page.url.endswith(WARM_PATH):
                self._open(page, url or "about:blank", "domcontentloaded")
        self._plan_spare(page)  # after the login: the spare starts from its session
        self._pristine = True
        self._ensure_screencasts()
        return ctx

    def _wait_landing(self, page: "Page") -> None:
        try:
            page.wait_for_url(lambda u: not u.endswith(WARM_PATH), wait_until=LANDING_WAIT)
        except Exception as exc:  # noqa: BLE001
            raise ProvisioningError(f"browser could not open the start page: {short_error(exc)}") from exc

    def _open(self, page: "Page", target: str, wait_until: Any) -> None:
        """Open ``target``; from a spare's warm-up page by ``location.replace``, so the warm-up page leaves
        no history entry (Back from the first page has nowhere to go, as in a context opened afresh)."""
        warm = page.url.endswith(WARM_PATH)
        if (not target or target == "about:blank") and not warm:
            return
        try:
            if warm:
                page.evaluate("url => location.replace(url)", target or "about:blank")
                page.wait_for_url(lambda u: not u.endswith(WARM_PATH), wait_until=wait_until)
            else:
                page.goto(target, wait_until=wait_until)
        except Exception as exc:  # noqa: BLE001
            raise ProvisioningError(f"browser could not open the start page: {short_error(exc)}") from exc

    def _context_options(self, state: dict[str, Any] | None) -> dict[str, Any]:
        w, h = self.options.viewport
        options: dict[str, Any] = {"viewport": {"width": w, "height": h},
                                   "ignore_https_errors": self.ignore_https_errors}
        if state is not None:
            options["storage_state"] = state
        return options

    # --- the login session kept between contexts -------------------------------------------------------

    def _remember_login(self, ctx: "BrowserContext", page: "Page", login: str) -> None:
        """Keep the storage state of a context that just logged in, when the login set a cookie and landed
        elsewhere (a login that is only a URL, e.g. ``?sid=`` read by the page, is done again every time)."""
        self._forget_login()
        landed = page.url
        if _same_page(landed, login) or not landed.startswith(("http://", "https://")):
            return
        try:
            state = ctx.storage_state()
        except Exception:  # noqa: BLE001 - log in again next time
            return
        cookies = state.get("cookies") or []
        if not cookies:
            return
        # the session id lives in the state: keep it out of everything written (values too short to be
        # a session id would redact ordinary words)
        register_secrets(c.get("value") for c in cookies if len(c.get("value") or "") >= SECRET_COOKIE_LENGTH)
        register_secrets(item.get("value") for origin in state.get("origins") or []
                         for item in origin.get("localStorage") or []
                         if len(item.get("value") or "") >= SECRET_COOKIE_LENGTH)
        self._login_state = dict(state)
        self._login_landing = landed
        self._login_at = time.monotonic()
        self.logins += 1

    def _forget_login(self) -> None:
        if self._login_state is not None:
            self._login_generation += 1
        self._login_state = None
        self._login_landing = None

    def _session_state(self) -> dict[str, Any] | None:
        """The kept login state for the next context, or None (no login hook, none kept, or too old)."""
        if self.login_url is None or self._login_state is None:
            return None
        if time.monotonic() - self._login_at > self.login_max_age_s:
            self._forget_login()
            return None
        return self._login_state

    def _logged_out(self, landed: str, target: str) -> bool:
        """Whether a page opened with the kept session landed on a login page instead (the session expired or
        was revoked): the ``login_page`` hook, else any redirect away from the page asked for."""
        if self.login_page is not None:
            return self.login_page(landed)
        return not _same_page(landed, target)

    def login_cookies(self) -> list[dict[str, Any]]:
        """The cookies of the kept login session (empty when none is kept)."""
        return list(self._login_state.get("cookies") or []) if self._login_state else []

    # --- the spare context made while a task runs ------------------------------------------------------

    def _spare_tag(self, state: dict[str, Any] | None) -> tuple[int, bool]:
        return (self._login_generation, state is not None)

    def _plan_spare(self, page: "Page") -> None:
        """Have the next task's context made while this one runs: ``SpareContext.build`` listens for the
        fresh tab's ``domcontentloaded`` and ``load`` (whichever comes first; headless, not --keep-env)."""
        spare = self._spare
        if spare is not None and spare.state != "wanted":
            return
        if spare is not None:
            spare.discard()
            self._spare = None
        if (self._browser is None or self._crashed or self._cdp_endpoint or not self.options.headless
                or self.options.keep_env or not self.spare_contexts):
            return
        state = self._session_state()
        warm = warm_url_for(self._login_landing if state is not None else self.start_url)
        spare = SpareContext(self._browser, self._context_options(state), self._spare_tag(state),
                             init_script=DIALOG_SCRIPT, warm_url=warm)
        self._spare = spare
        page.once("domcontentloaded", spare.build)
        page.once("load", spare.build)

    def _take_spare(self, state: dict[str, Any] | None) -> "BrowserContext | None":
        spare = self._spare
        if spare is None or spare.state == "wanted":
            return None  # never started (the tab never loaded a page): the ordinary way
        if spare.state == "building":
            spare.settle(self._waiter())  # what is left of it is less than a new context
        self._spare = None
        if spare.tag != self._spare_tag(state):
            spare.discard()  # made for another session
            return None
        ctx = spare.take()
        if ctx is not None:
            self.spares_taken += 1
        else:
            spare.discard()
        return ctx

    def landing_url(self) -> str:
        """Where a fresh context starts without a kept session: the login URL (a fresh session) when given,
        else the start URL."""
        if self.login_url is not None:
            return self.login_url()
        return self.start_url

    def adopt_page(self, page: "Page") -> None:
        """A tab the page opened (a popup, a ``target=_blank`` link) is watched and becomes the active tab."""
        self.watch_page(page)
        if self._context is not None and page in self._context.pages:
            self.active_tab = self._context.pages.index(page)

    def watch_page(self, page: "Page") -> None:
        if getattr(page, "_cua_watched", False):
            return
        page._cua_watched = True  # type: ignore[attr-defined]
        page.on("crash", lambda _p: self._mark_crashed("a browser tab crashed"))
        page.on("dialog", self._on_dialog)
        page.on("request", lambda r: self._count_navigation(page, r))
        page.on("framenavigated", lambda f: self._count_commit(page, f))

    def _count_commit(self, page: "Page", frame: Any) -> None:
        if frame == page.main_frame:
            self.commits += 1

    def _count_navigation(self, page: "Page", request: Any) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            self.navigations += 1

    def _ensure_screencasts(self) -> None:
        """--cua-video: record every open tab (a tab is recorded from the first call after it is ready)."""
        if not self.options.video or self._context is None or self._cdp_endpoint:
            return
        recorded = {id(cast.page) for cast in self._screencasts}
        for page in self._context.pages:
            if id(page) not in recorded and not page.is_closed():
                try:
                    self._screencasts.append(Screencast(self._context, page, self.options.viewport))
                except Exception:  # noqa: BLE001 - not attached yet: the next call tries again
                    pass

    def _on_dialog(self, dialog: Any) -> None:
        self._dialogs.append(redact(f"{dialog.type}: {dialog.message}"))
        try:
            if dialog.type == "prompt":
                dialog.accept(dialog.default_value or "")
            else:
                dialog.accept()
        except Exception:  # noqa: BLE001 - the page went away
            pass

    # --- Environment: tasks and rollback ---------------------------------------------------------------

    def begin_task(self, task: "Task") -> None:
        """A fresh context for the task (reusing the one restore just opened when it is untouched). A remote
        browser that dropped since is connected again first (no task ran in it)."""
        self._recover()
        self._check_alive()
        url = task.extra.get("start_url") if isinstance(task.extra.get("start_url"), str) else None
        if url is not None and not url.startswith(ALLOWED_URL_SCHEMES):
            url = urljoin(self.home_url or self.start_url, url)
        if not (self._pristine and self._context is not None and url is None):
            if self._pristine and self._context is not None and url is not None:
                self._open_start_page(url)  # the fresh context restore opened goes to the task's page
            else:
                self._fresh_context(url)
        self._task_id = task.id
        self.last_artifacts = {}
        self._start_trace()
        self._pristine = False

    def _open_start_page(self, url: str) -> None:
        """Open the task's start page in the untouched fresh context (logged in already); a fresh context
        does it when the session turns out gone."""
        assert self._context is not None
        page = self.page
        self._open(page, url, "domcontentloaded")
        if self._session_state() is not None and self._logged_out(page.url, url):
            self._forget_login()
            self.new_context(url=url)
            return
        self.active_tab = 0
        self.outline.reset()
        self._dialogs.clear()

    def end_task(self, task: "Task", *, failed: bool) -> dict[str, Any]:
        """Save the trace (``--cua-trace``) and the video (``--cua-video``); return their paths. The task's
        context stays open (evaluators may read the page); restore closes it."""
        artifacts: dict[str, Any] = {}
        stem = _safe_name(task.id)
        if self._tracing and self.artifacts_dir is not None:
            path = self.artifacts_dir / "traces" / f"{stem}.zip"
            self._stop_trace(path)
            if path.exists():
                artifacts["trace"] = str(path)
        else:
            self._stop_trace(None)
        self._ensure_screencasts()
        if self._screencasts and self.artifacts_dir is not None:
            casts, self._screencasts = self._screencasts, []
            ffmpeg = find_ffmpeg()
            videos = []
            for i, cast in enumerate(casts):
                dest = self.artifacts_dir / "videos" / f"{stem}{'' if i == 0 else f'-tab{i}'}.webm"
                try:
                    if ffmpeg and cast.encode(ffmpeg, dest):
                        videos.append(str(dest))
                    else:
                        artifacts["video_error"] = redact(f"{len(cast.frames)} frame(s); {cast.error or 'no frames'}")
                except Exception as exc:  # noqa: BLE001 - a video is a debugging aid, never a failure
                    cast.stop()
                    artifacts["video_error"] = f"{type(exc).__name__}: {exc}"[:300]
            if videos:
                artifacts["video"] = videos[0]
                if len(videos) > 1:
                    artifacts["videos"] = videos
        self._task_id = None
        self.last_artifacts = dict(artifacts)
        return artifacts

    def _start_trace(self) -> None:
        if self.options.trace == "off" or self._context is None or self._tracing:
            return
        self._context.tracing.start(screenshots=True, snapshots=True, sources=False)
        self._tracing = True

    def _stop_trace(self, path: Path | None) -> None:
        if not self._tracing:
            return
        self._tracing = False
        if self._context is None:
            return
        try:
            if path is None:
                self._context.tracing.stop()
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._context.tracing.stop(path=str(path))
                redact_zip(path)
        except Exception:  # noqa: BLE001 - a trace is a debugging aid, never a failure
            pass

    def snapshot(self) -> Snapshot:
        self._check_alive()
        return Snapshot(self.name, data={"start_url": self.start_url})

    def restore(self, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
        """Close every context and open a fresh one at the start (or login) URL; a remote browser whose
        connection dropped (the task it dropped in is an error already) is connected again first."""
        self._recover()
        self._check_alive()
        self._fresh_context()

    def _fresh_context(self, url: str | None = None) -> None:
        """``new_context``; a remote browser found gone meanwhile is connected again and asked once more."""
        try:
            self.new_context(url=url)
        except ProvisioningError:
            raise
        except Exception as exc:  # noqa: BLE001
            if not self.options.endpoints:
                self._raise_if_crashed(exc)
                raise
            try:
                self._raise_if_crashed(exc)
            except EnvironmentCrash:
                self._recover()
                self.new_context(url=url)
                return
            raise

    def residue(self, snapshot: Snapshot) -> list[str]:
        """Open contexts or tabs beyond the one fresh tab, and cookies of a plain (not logged-in) start."""
        left: list[str] = []
        browser = self.browser
        spare = self._spare
        if spare is not None and spare.state == "building":
            spare.settle(self._waiter())  # until it is made it cannot be told apart from a stray context
        contexts = [c for c in browser.contexts if not (spare is not None and spare.owns(c)) and not self._foreign(c)]
        if len(contexts) != 1 or (self._context is not None and contexts[0] is not self._context):
            left.append(f"browser contexts open: {len(contexts)} (expected 1, the fresh one)")
        if self._context is not None:
            pages = self._context.pages
            if len(pages) != 1:
                left.append(f"open tabs: {len(pages)} (expected 1): "
                            + ", ".join(redact(p.url)[:80] for p in pages))
            left += self._storage_residue(pages)
            if not self._pristine:
                left.append("the browser context was used after restore")
        else:
            left.append("no browser context open")
        return left

    def _storage_residue(self, pages: list["Page"]) -> list[str]:
        """Cookies other than the kept login's (any cookie without a login hook), and localStorage /
        sessionStorage keys of the fresh tab other than the login's: read on the spare's warm-up page (at restore, just before the landing page opens) of the
        landing origin before the landing page opened, else on the landing page. (A login hook whose session
        is not kept logs in afresh every time: what it sets is not known, so not checked.)"""
        assert self._context is not None
        left: list[str] = []
        if self.login_url is not None and self._login_state is None:
            return left
        expected = {(c["name"], c["domain"], c["path"], c["value"]) for c in self.login_cookies()}
        extra = sorted({c["name"] for c in self._context.cookies()
                        if (c["name"], c["domain"], c["path"], c["value"]) not in expected})
        if extra:
            left.append(f"cookies left: {', '.join(extra)}")
        storage = self._fresh_storage
        if storage is None and len(pages) == 1 and pages[0].url.startswith(("http://", "https://")):
            try:
                storage = self._read_storage_now(pages[0])
            except Exception as exc:  # noqa: BLE001 - unproven is not clean
                left.append(f"storage of the fresh tab could not be checked: {short_error(exc)}")
        if storage is not None:
            origin, local, session = storage
            kept = {item["name"] for o in (self._login_state or {}).get("origins") or []
                    if o.get("origin") == origin for item in o.get("localStorage") or []}
            stray = sorted(set(local) - kept)
            if stray:
                left.append(f"localStorage left: {', '.join(map(str, stray))[:200]}")
            if session:
                left.append(f"sessionStorage left: {', '.join(map(str, session))[:200]}")
        return left

    def _read_storage_now(self, page: "Page") -> tuple[str, list[str], list[str]]:
        try:
            origin, local, session = page.evaluate(STORAGE_KEYS)
        except Exception:  # noqa: BLE001 - the landing page was still committing: once more when it is there
            page.wait_for_load_state("domcontentloaded")
            origin, local, session = page.evaluate(STORAGE_KEYS)
        return str(origin), [str(k) for k in local], [str(k) for k in session]

    def close(self) -> None:
        """Close the browser; with --keep-env leave it running and say how to reach it."""
        if self._closed:
            return
        self._closed = True
        self._forget_login()
        self._spare = None  # closing the browser closes it (with --keep-env there is none)
        if self.options.keep_env and self._browser is not None:
            message = self.keep_env_message()
            self._announced = True
            try:
                sys.__stderr__.write(message + "\n")  # type: ignore[union-attr]
            except Exception:  # noqa: BLE001
                pass
            self._stop_playwright()
            return
        try:
            self._stop_trace(None)
            if self._browser is not None:
                self._browser.close()
        except Exception:  # noqa: BLE001 - already dead
            pass
        self._browser = None
        self._stop_playwright()
        if self._cdp_process is not None and self._cdp_process.poll() is None:
            self._cdp_process.terminate()
        if self._user_data_dir:
            shutil.rmtree(self._user_data_dir, ignore_errors=True)

    def keep_env_message(self, *, with_tabs: bool = True) -> str:
        """How to reach the browser left running by --keep-env."""
        lines = [f"pytest-cua --keep-env: browser of worker {self.worker_id} left running"]
        if self._cdp_process is not None:
            lines.append(f"  pid {self._cdp_process.pid}; DevTools endpoint {self._cdp_endpoint}")
            lines.append(f"  connect: playwright chromium.connect_over_cdp('{self._cdp_endpoint}'), "
                         f"or open {self._cdp_endpoint}/json in a browser")
            lines.append(f"  stop it: kill {self._cdp_process.pid}; then remove its profile {self._user_data_dir}")
        try:
            if self._context is not None and with_tabs:
                for i, p in enumerate(self._context.pages):
                    lines.append(f"  tab {i}: {redact(p.url)}")
        except Exception:  # noqa: BLE001
            pass
        return "\n".join(lines)

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "viewport": "x".join(map(str, self.options.viewport)),
                               "headless": self.options.headless}
        if self._browser is not None:
            try:
                out["browser_version"] = self._browser.version
            except Exception:  # noqa: BLE001
                pass
        if self._endpoint:
            out["endpoint"] = show_endpoint(self._endpoint)
            out["reconnects"] = self.reconnects
        if self.options.keep_env and self._cdp_process is not None:
            out["pid"] = self._cdp_process.pid
            out["cdp"] = self._cdp_endpoint
            out["reach"] = f"playwright chromium.connect_over_cdp('{self._cdp_endpoint}'); stop: kill {self._cdp_process.pid}"
        return out

    # --- observation -----------------------------------------------------------------------------------

    def observe(self, kinds: frozenset[str] | None = None) -> Observation:
        """Produce the asked observation kinds (default: the ``--cua-observe`` ones)."""
        self._check_alive()
        kinds = self.options.observe if kinds is None else kinds
        try:
            return self._observe(kinds)
        except EnvironmentCrash:
            raise
        except Exception as exc:  # noqa: BLE001
            self._raise_if_crashed(exc)
            # the page navigated while it was observed: once more after it settles
            try:
                self.page.wait_for_load_state("domcontentloaded", timeout=self.options.action_timeout_s * 1000)
                return self._observe(kinds)
            except Exception as exc2:  # noqa: BLE001
                self._raise_if_crashed(exc2)
                obs = Observation(url=redact(self._safe_url()))
                obs.extra["observe_error"] = short_error(exc2)
                return obs

    def _observe(self, kinds: frozenset[str], _retry: bool = False) -> Observation:
        self._ensure_screencasts()
        page = self.page
        for _ in range(2):
            try:
                page.wait_for_load_state("domcontentloaded", timeout=self.options.action_timeout_s * 1000)
            except Exception:  # noqa: BLE001 - observe whatever is there
                pass
            if self.page is page:
                break
            page = self.page  # a tab opened by the last action became the active one meanwhile
        obs = Observation(url=redact(page.url))
        timings: dict[str, float] = {}
        if kinds & {"axtree", "dom", "som"}:
            t0 = time.perf_counter()
            elements, lines = self.outline.collect(page)
            obs.elements = elements
            obs.extra["scroll"] = dict(self.outline.page_scroll)
            timings["collect_ms"] = (time.perf_counter() - t0) * 1000
            # secrets never reach the agent either: hrefs and values can carry session ids
            if "axtree" in kinds:
                obs.axtree = redact("\n".join(lines))
            if "dom" in kinds:
                obs.dom = redact(render_dom(elements))
        if kinds & {"screenshot", "som"}:
            t0 = time.perf_counter()
            png = self.screenshot()
            timings["screenshot_ms"] = (time.perf_counter() - t0) * 1000
            if "screenshot" in kinds:
                obs.screenshot = png
            if "som" in kinds:
                t0 = time.perf_counter()
                obs.som = draw_marks(png, obs.elements, self.options.viewport)
                timings["som_ms"] = (time.perf_counter() - t0) * 1000
        try:
            title, dialogs = page.evaluate(PAGE_STATE)  # one round trip for the title and dialog messages
            self._dialogs.extend(redact(str(m)) for m in dialogs)
        except Exception:  # noqa: BLE001 - navigating
            title = page.title()
        obs.title = redact(title)
        obs.tabs = self.tabs(active_title=title)
        if self._dialogs:
            obs.extra["dialogs"] = list(self._dialogs)
            self._dialogs.clear()
        obs.extra["timings_ms"] = {k: round(v, 1) for k, v in timings.items()}
        if self.page is not page and not _retry:
            # a tab opened by the last action became active while this one was observed: observe that one
            return self._observe(kinds, _retry=True)
        return obs

    def screenshot(self) -> bytes:
        """A PNG of the active tab's viewport (CDP's fast capture: about half the time of page.screenshot)."""
        page = self.page
        try:
            cdp = getattr(page, "_cua_cdp", None)
            if cdp is None:
                cdp = self.context.new_cdp_session(page)
                page._cua_cdp = cdp  # type: ignore[attr-defined]
            data = cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
            return base64.b64decode(data["data"])
        except Exception:  # noqa: BLE001 - fall back to Playwright's own capture
            return page.screenshot(type="png", timeout=self.options.navigation_timeout_s * 1000)

    def tabs(self, active_title: str | None = None) -> list[dict[str, Any]]:
        """The open tabs: index, url, title and which one is active."""
        out = []
        for i, p in enumerate(self.context.pages):
            try:
                title = active_title if (i == self.active_tab and active_title is not None) else p.title()
            except Exception:  # noqa: BLE001 - navigating
                title = ""
            out.append({"index": i, "url": redact(p.url), "title": redact(title), "active": i == self.active_tab})
        return out

    # --- actions ---------------------------------------------------------------------------------------

    def act(self, action: Action) -> ActionResult:
        """Carry out one action; failures come back as ``ok=False`` with an error for the agent."""
        self._check_alive()
        t0 = time.perf_counter()
        result = ActionResult(action=action)
        try:
            detail = handlers.dispatch(self, action)
            if detail:
                result.detail.update(detail)
        except ActionFailed as exc:
            result.ok, result.error = False, str(exc)
        except EnvironmentCrash:
            raise
        except Exception as exc:  # noqa: BLE001 - every Playwright failure is the action's failure
            self._raise_if_crashed(exc)
            result.ok, result.error = False, f"{action.kind} failed: {short_error(exc)}"
        result.duration_s = time.perf_counter() - t0
        if self._screencasts or self.options.video:
            self._ensure_screencasts()
        if not action.terminal and action.kind not in ("wait", "ask"):
            self._pristine = False
        return result

    def _raise_if_crashed(self, exc: BaseException) -> None:
        text = str(exc)
        gone = not self._connection_alive()
        if gone and self._endpoint and not self._crashed:
            self._crashed = (f"the connection to the browser at {ENDPOINT_OPTION} {show_endpoint(self._endpoint)} "
                             f"dropped")
        if self._crashed or gone or "Target crashed" in text or "Browser has been closed" in text \
                or "browser has disconnected" in text.lower():
            why = self._crashed or short_error(exc)
            self._crashed = self._crashed or why
            raise EnvironmentCrash(f"browser environment: {why}") from exc


    def _connection_alive(self) -> bool:
        """Whether the browser still answers: a remote one is asked (its ``disconnected`` event may come
        after the first call that failed because the connection dropped)."""
        if self._browser is None or not self._browser.is_connected():
            return False
        if not self._endpoint:
            return True
        try:
            self._browser.new_browser_cdp_session().detach()
        except Exception:  # noqa: BLE001 - the connection is gone
            return False
        return True

    def resolve(self, element_id: str) -> Resolved:
        """The frame and locator of an id from the latest observation; ActionFailed when it is gone."""
        return self.outline.resolve(element_id)

    def _safe_url(self) -> str:
        try:
            return self.page.url
        except Exception:  # noqa: BLE001
            return ""



def _same_page(a: str, b: str) -> bool:
    """Whether two URLs name the same page (ignoring the fragment and a trailing slash)."""
    def norm(url: str) -> str:
        return url.split("#", 1)[0].rstrip("/")
    return norm(a) == norm(b)


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:120] or "task"
