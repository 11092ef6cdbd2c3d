"""The browser itself: Chromium launched by Playwright, a detached Chromium reached over CDP (``--keep-env``), or
a remote browser (``--cua-browser-endpoint``, reconnected to the next endpoint when its connection drops).

``BrowserConnection`` holds the process or connection, tells a crash (a dead browser or a dropped connection
is an ``EnvironmentCrash``, never an action's failure) and closes it, or leaves it running with --keep-env and
says how to reach it. The contexts opened in it are the business of the subclass (``contexts``); it is told
when they are gone (``_forget_contexts``), asked for their tabs (``_tab_urls``) and told of the close
(``_release_contexts``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pytest_cua.envs.base import Environment, EnvironmentCrash, ProvisioningError
from pytest_cua.envs.browser.chromium import check_display, find_chromium, launch_args
from pytest_cua.envs.browser.driver import acquire_playwright, release_playwright
from pytest_cua.envs.browser.errors import short_error
from pytest_cua.envs.browser.options import ENDPOINT_OPTION, BrowserOptions, show_endpoint

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Playwright

CONNECT_TIMEOUT_S = 15.0
"""How long connecting to a remote browser (``--cua-browser-endpoint``) may take."""

_Connection = TypeVar("_Connection", bound="BrowserConnection")


class BrowserConnection(Environment):
    """The browser of one worker: launched or connected by ``start``, closed by ``close``."""

    def __init__(self, options: BrowserOptions | None = None, *, worker_id: str = "master") -> None:
        self.options = options or BrowserOptions()
        self.worker_id = worker_id
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._crashed: str | None = None
        self._cdp_process: subprocess.Popen[bytes] | None = None
        self._cdp_endpoint: str | None = None  # the detached --keep-env browser's DevTools endpoint
        self._endpoint: str | None = None  # the --cua-browser-endpoint this environment is connected to
        self.reconnects = 0  # connections made again after a remote browser dropped
        self._user_data_dir: str | None = None
        self._foreign_contexts: list[BrowserContext] = []  # a remote DevTools browser's own (never used)
        self._closed = False

    # --- what the contexts opened in the browser add ---------------------------------------------------------

    def _forget_contexts(self) -> None:
        """The connection was made again: nothing opened through the old one is there any more."""

    def _tab_urls(self) -> list[str]:
        """The URLs of the open tabs (``keep_env_message``)."""
        return []

    def _release_contexts(self, *, leave_running: bool) -> None:
        """The browser is about to close (or, ``leave_running``, to be left running by --keep-env)."""

    # --- lifecycle -------------------------------------------------------------------------------------------

    def start(self: _Connection) -> _Connection:
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

    def _foreign(self, ctx: "BrowserContext") -> bool:
        """A context this environment did not open: the default context of a remote DevTools browser (never
        used: other clients' tabs show up in it)."""
        return bool(self._endpoint) and any(ctx is c for c in self._foreign_contexts)

    def _reconnect(self) -> None:
        """After a dropped connection to a remote browser: connect again (the next endpoints when this one is
        gone). The task the drop happened in is already an error; everything of the old connection goes."""
        old, self._browser = self._browser, None
        self._forget_contexts()
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

    # --- crashes ---------------------------------------------------------------------------------------------

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

    # --- the end ---------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the browser; with --keep-env leave it running and say how to reach it."""
        if self._closed:
            return
        self._closed = True
        leave_running = bool(self.options.keep_env and self._browser is not None)
        self._release_contexts(leave_running=leave_running)
        if leave_running:
            message = self.keep_env_message()
            self._announced = True
            try:
                sys.__stderr__.write(message + "\n")  # type: ignore[union-attr]
            except Exception:  # noqa: BLE001
                pass
            self._stop_playwright()
            return
        try:
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
            if with_tabs:
                for i, url in enumerate(self._tab_urls()):
                    lines.append(f"  tab {i}: {url}")
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
