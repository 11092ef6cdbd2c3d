"""The browser contexts of the browser environment: a fresh context per task, its tabs, and the proof that it
is fresh.

``new_context`` closes every context and opens one with one tab at the start URL, or logged in: with a
``login_url`` hook (a callable returning e.g. a frontdoor URL with a fresh session id) a fresh context opens
that instead of ``start_url``; when the login set a cookie its storage state is kept (``login.KeptLogin``) and
later contexts start from it at the page the login landed on, without the login hop; ``login_page`` (a callable
telling a login page's URL) tells when the kept session stopped working, and the context logs in again. The next
task's context is made in the background while a task runs when possible (``spare``); given ``landing_refresh`` (how
a booted landing page is brought up to date in place), the spare boots the landing page itself while the task runs,
and the rollback hands it over after one in-place navigation instead of loading it afresh; the last task's
context then closes after the next task's first observation (``spare.BackgroundClose``), and the next spare is
made from there too, so that neither competes with the way to the agent's first look at the page. Tabs a page opens are
watched and become the active tab; ``alert``/``confirm``/``prompt`` are answered in the page and their messages
kept for the next observation. ``residue`` proves that only the fresh tab and the login's cookies and storage
are there.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from pytest_cua.envs.base import ProvisioningError
from pytest_cua.envs.browser.connection import BrowserConnection
from pytest_cua.envs.browser.errors import short_error
from pytest_cua.envs.browser.login import LOGIN_MAX_AGE_S, KeptLogin, same_page
from pytest_cua.envs.browser.options import BrowserOptions
from pytest_cua.envs.browser.outline import ElementIndex
from pytest_cua.envs.browser.recording import TaskRecording, safe_name
from pytest_cua.envs.browser.page_scripts import (DIALOG_SCRIPT, LANDING_WAIT, REPLACE, STORAGE_KEYS,
                                                   STORAGE_THEN_OPEN, replace_committed, storage_keys)
from pytest_cua.envs.browser.spare import (WARM_PATH, BackgroundClose, SpareContext, start_in_background,
                                           warm_url_for)
from pytest_cua.envs.browser.video import find_ffmpeg
from pytest_cua.redaction import redact

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

class BrowserContexts(BrowserConnection):
    """The browser with the fresh context of the current task; see the module docstring."""

    def __init__(self, options: BrowserOptions | None = None, *, start_url: str | None = None,
                 login_url: Callable[[], str] | None = None, home_url: str | None = None,
                 login_page: Callable[[str], bool] | None = None,
                 ignore_https_errors: bool = False, artifacts_dir: Path | None = None,
                 worker_id: str = "master", landing_refresh: str | None = None) -> None:
        super().__init__(options, worker_id=worker_id)
        #: a JavaScript function ``url => Promise<boolean> | false`` that has a booted page show ``url`` afresh in
        #: place (true: shown; false, or a promise of false: it could not and left the page as it was, which is then
        #: loaded the ordinary way); with it the spare boots the landing page while a task runs (``spare``)
        self.landing_refresh = landing_refresh
        self.start_url = start_url or self.options.start_url
        self.login_url = login_url
        self.login_page = login_page
        self.login_max_age_s = LOGIN_MAX_AGE_S
        self.spare_contexts = True  # make the next task's context in the background (headless only)
        self.home_url = home_url
        self.ignore_https_errors = ignore_https_errors
        self.artifacts_dir = Path(artifacts_dir) if artifacts_dir is not None else None
        self._context: BrowserContext | None = None
        self.active_tab = 0  # index of the active tab (the tab actions in ``actions`` switch it)
        self.outline = ElementIndex()
        self._dialogs: list[str] = []
        # navigation requests seen and navigations committed, of the page and of its frames (a key press may
        # start one a moment later; a Classic Setup page navigates inside its frame)
        self.navigations = 0
        self.commits = 0
        self._recording = TaskRecording(self.options)
        self._pristine = False
        self._task_id: str | None = None
        self.last_artifacts: dict[str, Any] = {}
        self._login = KeptLogin()
        self._spare: SpareContext | None = None
        self._closing: BackgroundClose | None = None  # the last task's contexts, closing in the background
        self._cue_page: "Page | None" = None  # the tab whose first observation starts the background work
        self._fresh_storage: tuple[str, list[str], list[str]] | None = None  # checked before the landing page
        self._fresh_cookies: list[Any] | None = None  # the booted spare's cookies, read as it is handed over
        self.logins = 0  # logins by ``login_url`` whose session was kept
        self.session_reuses = 0  # fresh contexts opened with the kept session
        self.spares_taken = 0  # fresh contexts made in the background
        self.spares_booted = 0  # of them, handed over with the landing page booted and shown afresh in place
        self._taken_booted = False  # the spare just taken has the landing page booted

    # --- BrowserConnection -----------------------------------------------------------------------------------

    def _forget_contexts(self) -> None:
        self._context = None
        self._spare = None
        self._closing = None
        self._cue_page = None
        self._recording.forget()
        self._task_id = None
        self._pristine = False

    def _tab_urls(self) -> list[str]:
        return [redact(p.url) for p in self._context.pages] if self._context is not None else []

    def _release_contexts(self, *, leave_running: bool) -> None:
        self._forget_login()
        self._spare = None  # closing the browser closes it (with --keep-env there is none)
        self._closing = None  # likewise
        if not leave_running:
            self._recording.stop_trace(self._context, None)

    # --- the context and its tabs ----------------------------------------------------------------------------

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

    def close_contexts(self, keep: "BrowserContext | None" = None, *, background: bool = False) -> None:
        """Close every context this environment opened (finalizing videos and traces). A task that ended
        without ``end_task`` (its episode broke) keeps its trace: it is the one worth looking at. With
        ``background``, the contexts close later, in the background (``BackgroundClose``, started after the next
        task's first observation; ``settle_closing`` waits for the end): closing a context keeps the browser
        and a core busy for tens of milliseconds, which would delay the next task's page."""
        self.settle_closing()
        if self._recording.tracing and self._task_id and self.artifacts_dir is not None \
                and self.options.trace != "off":
            path = self.artifacts_dir / "traces" / f"{safe_name(self._task_id)}.zip"
            self._recording.stop_trace(self._context, path)
            if path.exists():
                self.last_artifacts = {"trace": str(path)}
        else:
            self._recording.stop_trace(self._context, None)
        self._task_id = None
        self._recording.stop_screencasts()
        if self._browser is None:
            return
        spare = self._spare
        if spare is not None and spare.state == "building":
            spare.settle(self._waiter())  # a context half made cannot be told apart from the others
        closing = []
        for ctx in list(self._browser.contexts):
            if (spare is not None and spare.owns(ctx)) or self._foreign(ctx) or ctx is keep:
                continue  # the next task's context; a remote DevTools browser's own default context
            if self.options.keep_env and ctx is self._default_cdp_context():
                for page in list(ctx.pages):
                    page.close()
                ctx.clear_cookies()
                continue
            closing.append(ctx)
        closer = BackgroundClose(closing)
        if background and closing:
            self._closing = closer  # closed after the next task's first observation (``after_first_observation``)
        else:
            closer.run()
        self._context = None

    def settle_closing(self) -> None:
        """Let the last task's contexts closing in the background finish (before anything counts contexts)."""
        closer, self._closing = self._closing, None
        if closer is not None:
            closer.settle(self._waiter())

    def _waiter(self) -> "Callable[[], Any] | None":
        """A short sync call that lets Playwright's loop run (to wait for a spare being made, or for contexts
        closing in the background)."""
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
        self._fresh_cookies = None
        spare_ctx = None if self._cdp_endpoint else self._take_spare(state)
        landing_started = False
        refreshing = False
        if spare_ctx is not None and state is not None and url is None and self._login.landing:
            landing = self._login.landing
            if self._taken_booted:  # its storage, read on the booted landing page; then shown afresh in place
                refreshing = self._start_refresh(spare_ctx.pages[0], landing)
                if not refreshing:  # e.g. the session ended while it booted: opened afresh, committed before the
                    # login check (a navigation still under way would cut the new login's short)
                    landing_started = self._reopen_booted(spare_ctx.pages[0], landing)
            if not refreshing and not landing_started:
                try:  # its storage, read on the warm-up page; then the landing page loads while the old contexts close
                    self._fresh_storage = storage_keys(spare_ctx.pages[0].evaluate(STORAGE_THEN_OPEN, landing))
                    landing_started = True
                except Exception:  # noqa: BLE001 - opened the ordinary way below (storage: read on the landing page)
                    pass
        # with the booted landing page refreshing in place, the last task's contexts close after the next task's
        # first observation (the residue check counts them as closing, the next rollback waits for them)
        self.close_contexts(keep=spare_ctx, background=refreshing)
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
                ctx.add_cookies(state["cookies"])
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
            target = url or self._login.landing
            assert target is not None
            if refreshing:
                self._end_refresh(page, target)
            elif landing_started and not self._taken_booted:
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
        self._cue_page = page
        self._pristine = True
        self._ensure_screencasts()
        return ctx

    def _start_refresh(self, page: "Page", landing: str) -> bool:
        """Hand over the spare's booted landing page: read its storage (what the boot stored is checked as any
        stray item is), then start ``landing_refresh`` (the page fetches the landing page as the rollback left
        the org, while the old contexts close). False: not on the landing page (the session ended meanwhile),
        or the page cannot refresh in place: the landing page is loaded the ordinary way."""
        assert self.landing_refresh is not None
        try:
            if page.url == "about:blank":  # still on its way: less is left of it than of a new load
                page.wait_for_url(lambda u: u != "about:blank", wait_until="domcontentloaded")
            else:
                page.wait_for_load_state("domcontentloaded")
            if not same_page(page.url, landing):
                return False
            storage = storage_keys(page.evaluate(STORAGE_KEYS))
            # its cookies now, as its storage: nothing of the last task can reach this context, and the browser
            # answers at once (later, closing the last task's context keeps it busy for tens of milliseconds)
            cookies = page.context.cookies()
            started = page.evaluate(
                "url => { const shown = (" + self.landing_refresh + ")(url); if (!shown) return false; "
                "window.__cuaRefresh = Promise.resolve(shown); return true; }", landing)
        except Exception:  # noqa: BLE001 - the ordinary way
            return False
        if started:
            self._fresh_storage = storage
            self._fresh_cookies = cookies
        return bool(started)

    def _reopen_booted(self, page: "Page", landing: str) -> bool:
        """A booted spare that cannot be refreshed in place: its storage read where it is, the landing page opened
        in place of its history entry and waited for until committed. False: the ordinary way."""
        try:
            storage = storage_keys(page.evaluate(STORAGE_KEYS))
            replace_committed(page, landing)
        except Exception:  # noqa: BLE001
            return False
        self._fresh_storage = storage
        return True

    def _end_refresh(self, page: "Page", landing: str) -> None:
        """Wait for the in-place refresh to show the page; one that could not (the answer was not a page it shows
        in place, e.g. the login page of a session that ended) is replaced by the landing page loaded the ordinary
        way (then checked for a login page as any landing page is)."""
        try:
            shown = page.evaluate("() => window.__cuaRefresh.finally(() => { delete window.__cuaRefresh; })")
        except Exception:  # noqa: BLE001 - the page navigated away meanwhile
            shown = False
        if shown is True:
            self.spares_booted += 1
            return
        self._fresh_cookies = None  # what the landing page loaded below sets is read at the residue check
        try:
            replace_committed(page, landing)
        except Exception as exc:  # noqa: BLE001
            raise ProvisioningError(f"browser could not open the start page: {short_error(exc)}") from exc

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
                page.evaluate(REPLACE, target or "about:blank")
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
        self.commits += 1

    def _count_navigation(self, page: "Page", request: Any) -> None:
        if request.is_navigation_request():
            self.navigations += 1

    def _ensure_screencasts(self) -> None:
        """--cua-video: record every open tab (not of the --keep-env browser)."""
        if not self._cdp_endpoint:
            self._recording.record_tabs(self._context)

    def _on_dialog(self, dialog: Any) -> None:
        self._dialogs.append(redact(f"{dialog.type}: {dialog.message}"))
        try:
            if dialog.type == "prompt":
                dialog.accept(dialog.default_value or "")
            else:
                dialog.accept()
        except Exception:  # noqa: BLE001 - the page went away
            pass

    # --- the login session kept between contexts -------------------------------------------------------------

    def _remember_login(self, ctx: "BrowserContext", page: "Page", login: str) -> None:
        if self._login.remember(ctx, page, login):
            self.logins += 1

    def _forget_login(self) -> None:
        self._login.forget()

    def _session_state(self) -> dict[str, Any] | None:
        """The kept login state for the next context, or None (no login hook, none kept, or too old)."""
        if self.login_url is None:
            return None
        return self._login.current(self.login_max_age_s)

    def _logged_out(self, landed: str, target: str) -> bool:
        """Whether a page opened with the kept session landed on a login page instead (the session expired or
        was revoked): the ``login_page`` hook, else any redirect away from the page asked for."""
        if self.login_page is not None:
            return self.login_page(landed)
        return not same_page(landed, target)

    def login_cookies(self) -> list[dict[str, Any]]:
        """The cookies of the kept login session (empty when none is kept)."""
        return self._login.cookies()

    # --- the spare context made while a task runs ------------------------------------------------------------

    def _spare_tag(self, state: dict[str, Any] | None) -> tuple[int, bool]:
        return (self._login.generation, state is not None)

    def _plan_spare(self, page: "Page") -> None:
        """Have the next task's context made while this one runs: ``SpareContext.build`` listens for the
        fresh tab's ``domcontentloaded`` and ``load`` (whichever comes first; a tab loaded already, such as a booted
        landing page handed over, sends a console message for it; headless, not --keep-env)."""
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
        warm = warm_url_for(self._login.landing if state is not None else self.start_url)
        preboot = self._login.landing if state is not None and self.landing_refresh else None
        spare = SpareContext(self._browser, self._context_options(state), self._spare_tag(state),
                             init_script=DIALOG_SCRIPT, warm_url=warm, preboot_url=preboot)
        self._spare = spare
        page.once("domcontentloaded", spare.build)
        page.once("load", spare.build)
        # the tab may have loaded before these listeners were there (a busy machine, or a booted landing page
        # handed over): no load event will come; the task's first observation starts it then
        # (``after_first_observation``)

    def after_first_observation(self) -> None:
        """The background work left for after the task's first observation, started now from a console message
        of its tab (listeners run while the task goes on): closing the last task's contexts, and making the
        spare where the tab had loaded before the spare's load listeners were there. Neither competes with the
        way to the agent's first look at the page."""
        page, self._cue_page = self._cue_page, None
        if page is None:
            return
        start_in_background(page, self._spare, self._closing)

    def _take_spare(self, state: dict[str, Any] | None) -> "BrowserContext | None":
        spare = self._spare
        self._taken_booted = False
        if spare is not None and spare.state == "building":
            # what is left of it is less than a new context; and a spare discarded while it is being made would
            # close only when its build ends, after the residue check has counted its context as a stray one
            spare.settle(self._waiter())
        if spare is not None and not self.spare_contexts:
            # spares were turned off after this one was planned: never hand it out
            self._spare = None
            spare.discard()
            return None
        if spare is None or spare.state == "wanted":
            return None  # never started (the tab never loaded a page): the ordinary way
        self._spare = None
        if spare.tag != self._spare_tag(state):
            spare.discard()  # made for another session
            return None
        ctx = spare.take()
        if ctx is not None:
            self.spares_taken += 1
            self._taken_booted = spare.booted
        else:
            spare.discard()
        return ctx
