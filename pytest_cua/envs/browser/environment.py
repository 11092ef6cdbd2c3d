"""The browser environment: Chromium through Playwright's sync API, as an ``Environment`` of the episode.

One browser per xdist worker (``connection``); a fresh browser context per task (``contexts``); observations
of the active tab (``observation``); actions carried out by the handlers in ``actions``. ``BrowserEnvironment``
adds the tasks and the rollback: ``begin_task`` starts the task's trace in a fresh context, ``end_task`` saves
its trace and video (``recording``), ``restore`` closes the task's context and opens another one (made in the
background while the task ran when possible), ``residue`` proves that only the fresh tab and the login's
cookies and storage are there.

A failed action is an ``ActionResult(ok=False, error=...)``; only a dead browser raises ``EnvironmentCrash``.

Logging in to an org is the caller's business: give ``login_url`` (a callable returning e.g. the frontdoor
URL with a fresh session id) and ``login_page`` (a callable telling a login page's URL); see ``contexts``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence
from urllib.parse import urljoin

from pytest_cua.actions import Action, ActionResult
from pytest_cua.envs.base import EnvironmentCrash, ProvisioningError, Snapshot
from pytest_cua.envs.browser import actions as handlers
from pytest_cua.envs.browser.actions import ALLOWED_URL_SCHEMES
from pytest_cua.envs.browser.page_scripts import STORAGE_KEYS, storage_keys
from pytest_cua.envs.browser.errors import ActionFailed, short_error
from pytest_cua.envs.browser.observation import BrowserObservation
from pytest_cua.envs.browser.options import BrowserOptions
from pytest_cua.envs.browser.outline import Resolved
from pytest_cua.envs.browser.recording import safe_name
from pytest_cua.redaction import redact

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from pytest_cua.tasks.task import Task


class BrowserEnvironment(BrowserObservation):
    """A Chromium browser for computer-use tasks; see the module docstring."""

    name = "browser"

    def __init__(self, options: BrowserOptions | None = None, *, start_url: str | None = None,
                 login_url: Callable[[], str] | None = None, home_url: str | None = None,
                 login_page: Callable[[str], bool] | None = None,
                 ignore_https_errors: bool = False, artifacts_dir: Path | None = None,
                 worker_id: str = "master", run_id: str = "run", landing_refresh: str | None = None) -> None:
        super().__init__(options, start_url=start_url, login_url=login_url, home_url=home_url,
                         login_page=login_page, ignore_https_errors=ignore_https_errors,
                         artifacts_dir=artifacts_dir, worker_id=worker_id, landing_refresh=landing_refresh)
        self.run_id = run_id

    # --- Environment: tasks and rollback ---------------------------------------------------------------------

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
        self._recording.start_trace(self._context)
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
        stem = safe_name(task.id)
        if self._recording.tracing and self.artifacts_dir is not None:
            path = self.artifacts_dir / "traces" / f"{stem}.zip"
            self._recording.stop_trace(self._context, path)
            if path.exists():
                artifacts["trace"] = str(path)
        else:
            self._recording.stop_trace(self._context, None)
        self._ensure_screencasts()
        if self._recording.screencasts and self.artifacts_dir is not None:
            self._recording.save_videos(self.artifacts_dir / "videos", stem, artifacts)
        self._task_id = None
        self.last_artifacts = dict(artifacts)
        return artifacts

    def snapshot(self) -> Snapshot:
        self._check_alive()
        return Snapshot(self.name, data={"start_url": self.start_url})

    def restore(self, snapshot: Snapshot, scope: Sequence[str] | None = None) -> None:
        """Close every context and open a fresh one at the start (or login) URL; a remote browser whose
        connection dropped (the task it dropped in is an error already) is connected again first."""
        self._recover()
        self._check_alive()
        self._fresh_context()

    def residue(self, snapshot: Snapshot) -> list[str]:
        """Open contexts or tabs beyond the one fresh tab, and cookies of a plain (not logged-in) start."""
        left: list[str] = []
        browser = self.browser
        # the last task's contexts, handed to the background to close after the next first observation: no tab of
        # theirs is the agent's, and the next rollback waits for them to close (anything still open then counts)
        closing = self._closing.contexts if self._closing is not None else []
        spare = self._spare
        if spare is not None and spare.state == "building":
            spare.settle(self._waiter())  # until it is made it cannot be told apart from a stray context
        contexts = [c for c in browser.contexts
                    if not (spare is not None and spare.owns(c)) and not self._foreign(c) and c not in closing]
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
        sessionStorage keys of the fresh tab other than the login's: read as a spare is handed over (on its
        warm-up page of the landing origin just before the landing page opens, or on its booted landing page
        before it is shown afresh, cookies too), else on the landing page. (A login hook whose session is not
        kept logs in afresh every time: what it sets is not known, so not checked.)"""
        assert self._context is not None
        left: list[str] = []
        if self.login_url is not None and self._login.state is None:
            return left
        expected = {(c["name"], c["domain"], c["path"], c["value"]) for c in self.login_cookies()}
        cookies, self._fresh_cookies = self._fresh_cookies, None  # the handover's, once; later checks read anew
        if cookies is None:
            cookies = self._context.cookies()
        extra = sorted({c["name"] for c in cookies if (c["name"], c["domain"], c["path"], c["value"]) not in expected})
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
            stray = sorted(set(local) - self._login.local_storage_keys(origin))
            if stray:
                left.append(f"localStorage left: {', '.join(map(str, stray))[:200]}")
            if session:
                left.append(f"sessionStorage left: {', '.join(map(str, session))[:200]}")
        return left

    def _read_storage_now(self, page: "Page") -> tuple[str, list[str], list[str]]:
        try:
            return storage_keys(page.evaluate(STORAGE_KEYS))
        except Exception:  # noqa: BLE001 - the landing page was still committing: once more when it is there
            page.wait_for_load_state("domcontentloaded")
            return storage_keys(page.evaluate(STORAGE_KEYS))

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

    # --- actions ---------------------------------------------------------------------------------------------

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
        if self._recording.screencasts or self.options.video:
            self._ensure_screencasts()
        if not action.terminal and action.kind not in ("wait", "ask"):
            self._pristine = False
        return result

    def resolve(self, element_id: str) -> Resolved:
        """The frame and locator of an id from the latest observation; ActionFailed when it is gone."""
        return self.outline.resolve(element_id)
