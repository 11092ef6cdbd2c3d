"""The browser environment: Chromium through Playwright's sync API.

One browser per xdist worker; a fresh browser context per task. Observations: screenshot, an accessibility
outline with a short id per interactive element (``[e12] button "Save"``), a flattened DOM of those
elements, and set-of-marks (the screenshot with numbered boxes). Ids are written into the page as a data
attribute by ``dom_script.js`` in every frame, and resolved to a frame + locator when an action uses them;
an id stays valid as long as its element stays in the page.

A failed action is an ``ActionResult(ok=False, error=...)``; only a dead browser raises ``EnvironmentCrash``.

Logging in to an org is the caller's business: give ``login_url`` (a callable returning e.g. the frontdoor
URL with a fresh session id) and every fresh context opens that instead of ``start_url``.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from urllib.parse import urljoin
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from pytest_cua import actions as A
from pytest_cua.actions import Action, ActionResult, Point
from pytest_cua.envs.base import EnvContext, Environment, EnvironmentCrash, ProvisioningError, Snapshot
from pytest_cua.envs.browser_options import BrowserOptions
from pytest_cua.observations import Element, Observation
from pytest_cua.redaction import redact, redact_bytes

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Frame, Locator, Page, Playwright

    from pytest_cua.tasks import Task

ID_ATTR = "data-cua-id"
FRAME_ATTR = "data-cua-frame"
SCRIPT = (Path(__file__).with_name("dom_script.js")).read_text(encoding="utf-8")
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

QUIET_FLAGS = ("--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync")
"""Launch flags for a machine without outside network (Chromium otherwise floods refused connections)."""

SYSTEM_CHROMIUM = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser",
                   "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable", "/snap/bin/chromium")
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
ALLOWED_URL_SCHEMES = ("http://", "https://", "about:blank")
MAX_WAIT_S = 60.0
MAX_FRAMES = 20

INSTALL_HINT = ("no Chromium found for the browser environment: install one with 'apt-get install chromium' "
                "(Debian/Ubuntu) or 'playwright install chromium', or point --cua-browser-path / "
                "PYTEST_CUA_CHROMIUM at a Chromium executable")

_KEY_NAMES = {
    "enter": "Enter", "return": "Enter", "tab": "Tab", "esc": "Escape", "escape": "Escape", "space": "Space",
    "backspace": "Backspace", "delete": "Delete", "del": "Delete", "insert": "Insert", "home": "Home",
    "end": "End", "pageup": "PageUp", "pgup": "PageUp", "pagedown": "PageDown", "pgdn": "PageDown",
    "up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight", "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft", "arrowright": "ArrowRight", "ctrl": "Control",
    "control": "Control", "shift": "Shift", "alt": "Alt", "option": "Alt", "meta": "Meta", "cmd": "Meta",
    "command": "Meta", "win": "Meta", "super": "Meta", "capslock": "CapsLock",
}

#: messages about environments left running by --keep-env, for the end-of-session summary
KEPT_ENVIRONMENTS: list[str] = []
ENTER_NAVIGATION_WAIT_S = 0.2  # how long Enter waits for a form submission's navigation to start


def normalize_key(key: str) -> str:
    """Map common key names (``enter``, ``ctrl``, ``pgdn``, ``f5``) to Playwright's key names."""
    k = key.strip()
    low = k.lower()
    if low in _KEY_NAMES:
        return _KEY_NAMES[low]
    if len(low) in (2, 3) and low[0] == "f" and low[1:].isdigit():
        return "F" + low[1:]
    return k


def find_chromium(playwright: "Playwright | None" = None, explicit: str | None = None) -> str | None:
    """The Chromium to launch: ``explicit``, Playwright's own (returns None: launch without a path), the
    system Chromium or one on PATH. Raises ProvisioningError with what to install when there is none."""
    if explicit:
        if not os.path.exists(explicit):
            raise ProvisioningError(f"--cua-browser-path / PYTEST_CUA_CHROMIUM: {explicit!r} does not exist")
        return explicit
    if playwright is not None:
        try:
            own = playwright.chromium.executable_path
        except Exception:  # noqa: BLE001 - a Playwright without a registry entry
            own = ""
        if own and os.path.exists(own):
            return None
    for path in SYSTEM_CHROMIUM:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    for name in PATH_NAMES:
        found = shutil.which(name)
        if found:
            return found
    raise ProvisioningError(INSTALL_HINT)


def launch_args(options: BrowserOptions) -> list[str]:
    args = list(QUIET_FLAGS)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")
    args.extend(options.extra_args)
    return args


def check_display(options: BrowserOptions) -> None:
    if not options.headless and not os.environ.get("DISPLAY"):
        raise ProvisioningError("--headed needs a display but DISPLAY is not set: run under Xvfb, e.g. "
                                "'xvfb-run -a pytest --headed ...', or drop --headed")


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


# Playwright's sync API allows one running instance per thread: environments of one thread share it.
_PLAYWRIGHTS: dict[int, list[Any]] = {}
_PLAYWRIGHTS_LOCK = threading.Lock()


def _acquire_playwright(factory: Callable[[], Any]) -> "Playwright":
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

    pw = _acquire_playwright(sync_playwright)
    try:
        yield pw
    finally:
        _release_playwright(pw)


def _release_playwright(pw: "Playwright") -> None:
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


def find_ffmpeg() -> str | None:
    """An ffmpeg to encode ``--cua-video``: imageio-ffmpeg's bundled binary, one on PATH, or Playwright's own
    (``playwright install ffmpeg``)."""
    try:
        import imageio_ffmpeg

        return str(imageio_ffmpeg.get_ffmpeg_exe())
    except Exception:  # noqa: BLE001 - not installed, or no binary for this platform
        pass
    found = shutil.which("ffmpeg")
    if found:
        return found
    root = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or Path.home() / ".cache" / "ms-playwright")
    for candidate in sorted(root.glob("ffmpeg-*/ffmpeg-linux"), reverse=True):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return None


class _Screencast:
    """A video of one tab from CDP screencast frames, encoded to WebM with ffmpeg at the end.

    Unlike Playwright's own recording it needs no context option (so the task's context stays open for the
    evaluator) and works with any ffmpeg; frames arrive whenever the page repaints, their timestamps set the
    timing."""

    FPS = 5
    MAX_SECONDS = 1800

    MAX_SIZE = (1280, 720)

    def __init__(self, context: "BrowserContext", page: "Page", viewport: tuple[int, int]) -> None:
        self.frames: list[tuple[float, bytes]] = []
        self.error: str | None = None
        vw, vh = viewport
        self.viewport = viewport
        self.scale = min(self.MAX_SIZE[0] / vw, self.MAX_SIZE[1] / vh, 1.0)
        w, h = int(vw * self.scale), int(vh * self.scale)
        self.size = (w - w % 2, h - h % 2)  # what Chrome sends, made even for the encoder
        self.page = page
        self.cdp = context.new_cdp_session(page)
        self.cdp.on("Page.screencastFrame", self._on_frame)
        self.cdp.send("Page.startScreencast", {"format": "jpeg", "quality": 70, "maxWidth": self.MAX_SIZE[0],
                                               "maxHeight": self.MAX_SIZE[1]})
        self.active = True

    def _grab(self) -> None:
        """One frame on demand: a static page sends no screencast frames after the first."""
        try:
            clip = {"x": 0, "y": 0, "width": self.viewport[0], "height": self.viewport[1], "scale": self.scale}
            data = self.cdp.send("Page.captureScreenshot", {"format": "jpeg", "quality": 70, "clip": clip,
                                                            "optimizeForSpeed": True})
            self.frames.append((time.time(), base64.b64decode(data["data"])))
        except Exception:  # noqa: BLE001 - the tab closed meanwhile
            pass

    def _on_frame(self, params: dict[str, Any]) -> None:
        try:
            self.frames.append((float(params["metadata"].get("timestamp") or time.time()),
                                base64.b64decode(params["data"])))
            self.cdp.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]})
        except Exception:  # noqa: BLE001 - the tab closed meanwhile
            pass

    def stop(self) -> None:
        if self.active:
            self._grab()
            self.active = False
            try:
                self.cdp.send("Page.stopScreencast")
                self.cdp.detach()
            except Exception:  # noqa: BLE001 - already gone
                pass

    def encode(self, ffmpeg: str, dest: Path) -> bool:
        """Write the frames as a constant-rate WebM; False when there was nothing to write."""
        self.stop()
        if not self.frames:
            return False
        frames = sorted(self.frames, key=lambda f: f[0])
        start, end = frames[0][0], min(frames[-1][0] + 1.0, frames[0][0] + self.MAX_SECONDS)
        count = max(1, int((end - start) * self.FPS))
        dest.parent.mkdir(parents=True, exist_ok=True)
        w, h = self.size
        proc = subprocess.Popen(
            [ffmpeg, "-y", "-loglevel", "error", "-f", "image2pipe", "-framerate", str(self.FPS), "-c:v", "mjpeg",
             "-i", "-", "-vf", f"crop='min(iw,{w})':'min(ih,{h})':0:0,pad={w}:{h}:0:0",
             "-c:v", "vp8" if "ms-playwright" in ffmpeg else "libvpx", "-b:v", "1M", "-pix_fmt", "yuv420p",
             str(dest)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        index = 0
        try:
            for n in range(count):
                t = start + n / self.FPS
                while index + 1 < len(frames) and frames[index + 1][0] <= t:
                    index += 1
                assert proc.stdin is not None
                proc.stdin.write(frames[index][1])
            proc.stdin.close()  # type: ignore[union-attr]
        except BrokenPipeError:
            pass
        proc.wait(timeout=300)
        if proc.returncode != 0:
            self.error = (proc.stderr.read().decode(errors="replace") if proc.stderr else "")[-500:]
        return proc.returncode == 0 and dest.exists()


@dataclass
class _Resolved:
    """An element id resolved for one action."""

    id: str
    frame: "Frame"
    locator: "Locator"


class BrowserEnvironment(Environment):
    """A Chromium browser for computer-use tasks; see the module docstring."""

    name = "browser"

    def __init__(self, options: BrowserOptions | None = None, *, start_url: str | None = None,
                 login_url: Callable[[], str] | None = None, home_url: str | None = None,
                 ignore_https_errors: bool = False, artifacts_dir: Path | None = None,
                 worker_id: str = "master", run_id: str = "run") -> None:
        self.options = options or BrowserOptions()
        self.start_url = start_url or self.options.start_url
        self.login_url = login_url
        self.home_url = home_url
        self.ignore_https_errors = ignore_https_errors
        self.artifacts_dir = Path(artifacts_dir) if artifacts_dir is not None else None
        self.worker_id = worker_id
        self.run_id = run_id
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._context: BrowserContext | None = None
        self._active = 0
        self._next_id = 1
        self._frames_by_id: dict[str, Frame] = {}
        self._elements: dict[str, Element] = {}
        self._step = 0
        self._last_error: str | None = None
        self._dialogs: list[str] = []
        self._navigations = 0  # main-frame navigation requests seen (a key press may start one a moment later)
        self._commits = 0  # main-frame navigations committed
        self._crashed: str | None = None
        self._tracing = False
        self._pristine = False
        self._cdp_process: subprocess.Popen[bytes] | None = None
        self._cdp_endpoint: str | None = None
        self._user_data_dir: str | None = None
        self._closed = False
        self._task_id: str | None = None
        self.last_artifacts: dict[str, Any] = {}
        self._page_scroll: dict[str, float] = {}
        self._screencasts: list[_Screencast] = []

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
        self._pw = _acquire_playwright(sync_playwright)
        try:
            path = find_chromium(self._pw, self.options.executable_path)
            if self.options.keep_env:
                self._browser = self._launch_detached(path)
            else:
                self._browser = self._pw.chromium.launch(
                    executable_path=path, headless=self.options.headless, slow_mo=self.options.slowmo_ms or None,
                    args=launch_args(self.options), chromium_sandbox=False,
                    env=dict(os.environ))  # the shared driver may predate DISPLAY
        except ProvisioningError:
            self._stop_playwright()
            raise
        except Exception as exc:  # noqa: BLE001 - a launch failure is a provisioning error
            self._stop_playwright()
            raise ProvisioningError(f"Chromium did not start: {short_error(exc, 600)}") from exc
        self._browser.on("disconnected", lambda _b: self._mark_crashed("the browser disconnected"))
        if self.options.keep_env:
            atexit.register(self._announce_kept)
        return self

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
        return self._pw.chromium.connect_over_cdp(self._cdp_endpoint, slow_mo=self.options.slowmo_ms or None)

    def _stop_playwright(self) -> None:
        if self._pw is not None:
            _release_playwright(self._pw)
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
            self._watch_page(page)
            pages = [page]
        self._active = max(0, min(self._active, len(pages) - 1))
        return pages[self._active]

    def close_contexts(self) -> None:
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
        for ctx in list(self._browser.contexts):
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

    def _default_cdp_context(self) -> "BrowserContext | None":
        if self._cdp_endpoint and self._browser is not None and self._browser.contexts:
            return self._browser.contexts[0]
        return None

    def new_context(self, *, url: str | None = None) -> "BrowserContext":
        """Close all contexts and open a fresh one with one tab at ``url`` (or the login / start URL)."""
        browser = self.browser
        self.close_contexts()
        w, h = self.options.viewport
        if self.options.video and not self._cdp_endpoint and find_ffmpeg() is None:
            raise ProvisioningError("--cua-video needs an ffmpeg to encode the video: 'pip install imageio-ffmpeg', "
                                    "'apt-get install ffmpeg' or 'playwright install ffmpeg'; or drop --cua-video")
        if self._cdp_endpoint:
            ctx = self._default_cdp_context() or browser.new_context()
            if not ctx.pages:
                ctx.new_page()
            ctx.pages[0].set_viewport_size({"width": w, "height": h})
        else:
            kwargs: dict[str, Any] = {"viewport": {"width": w, "height": h},
                                      "ignore_https_errors": self.ignore_https_errors}
            ctx = browser.new_context(**kwargs)
        ctx.add_init_script(DIALOG_SCRIPT)
        ctx.set_default_timeout(self.options.action_timeout_s * 1000)
        ctx.set_default_navigation_timeout(self.options.navigation_timeout_s * 1000)
        if not getattr(ctx, "_cua_watched", False):
            ctx.on("page", self._on_new_page)
            ctx._cua_watched = True  # type: ignore[attr-defined]
        self._context = ctx
        self._active = 0
        self._next_id = 1  # a fresh context numbers its elements from e1 again (replays see the same ids)
        self._frames_by_id.clear()
        self._elements.clear()
        self._dialogs.clear()
        self._last_error = None
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        self._watch_page(page)
        # log in first (frontdoor) when there is a login hook, then open the task's own start page
        targets = [self.landing_url()] if (url is None or self.login_url is not None) else []
        if url is not None:
            targets.append(url)
        for target in targets:
            if not target or target == "about:blank":
                continue
            try:
                page.goto(target, wait_until="domcontentloaded")
            except Exception as exc:  # noqa: BLE001
                raise ProvisioningError(f"browser could not open the start page: {short_error(exc)}") from exc
        self._pristine = True
        self._ensure_screencasts()
        return ctx

    def landing_url(self) -> str:
        """Where a fresh context starts: the login URL (fresh session) when given, else the start URL."""
        if self.login_url is not None:
            return self.login_url()
        return self.start_url

    def _on_new_page(self, page: "Page") -> None:
        self._watch_page(page)
        if self._context is not None and page in self._context.pages:
            self._active = self._context.pages.index(page)

    def _watch_page(self, page: "Page") -> None:
        if getattr(page, "_cua_watched", False):
            return
        page._cua_watched = True  # type: ignore[attr-defined]
        page.on("crash", lambda _p: self._mark_crashed("a browser tab crashed"))
        page.on("dialog", self._on_dialog)
        page.on("request", lambda r: self._count_navigation(page, r))
        page.on("framenavigated", lambda f: self._count_commit(page, f))

    def _count_commit(self, page: "Page", frame: Any) -> None:
        if frame == page.main_frame:
            self._commits += 1

    def _count_navigation(self, page: "Page", request: Any) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            self._navigations += 1

    def _ensure_screencasts(self) -> None:
        """--cua-video: record every open tab (a tab is recorded from the first call after it is ready)."""
        if not self.options.video or self._context is None or self._cdp_endpoint:
            return
        recorded = {id(cast.page) for cast in self._screencasts}
        for page in self._context.pages:
            if id(page) not in recorded and not page.is_closed():
                try:
                    self._screencasts.append(_Screencast(self._context, page, self.options.viewport))
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
        """A fresh context for the task (reusing the one restore just opened when it is untouched)."""
        self._check_alive()
        url = task.extra.get("start_url") if isinstance(task.extra.get("start_url"), str) else None
        if url is not None and not url.startswith(ALLOWED_URL_SCHEMES):
            url = urljoin(self.home_url or self.start_url, url)
        reuse = self._pristine and self._context is not None and url is None
        if not reuse:
            self.new_context(url=url)
        self._task_id = task.id
        self.last_artifacts = {}
        self._start_trace()
        self._step = 0
        self._pristine = False

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
        """Close every context and open a fresh one at the start (or login) URL."""
        self._check_alive()
        self.new_context()

    def residue(self, snapshot: Snapshot) -> list[str]:
        """Open contexts or tabs beyond the one fresh tab, and cookies of a plain (not logged-in) start."""
        left: list[str] = []
        browser = self.browser
        contexts = list(browser.contexts)
        if len(contexts) != 1:
            left.append(f"browser contexts open: {len(contexts)} (expected 1)")
        if self._context is not None:
            pages = self._context.pages
            if len(pages) != 1:
                left.append(f"open tabs: {len(pages)} (expected 1): "
                            + ", ".join(redact(p.url)[:80] for p in pages))
            if self.login_url is None:
                cookies = self._context.cookies()
                if cookies:
                    names = sorted({c["name"] for c in cookies})
                    left.append(f"cookies left: {', '.join(names)}")
            if not self._pristine:
                left.append("the browser context was used after restore")
        else:
            left.append("no browser context open")
        return left

    def close(self) -> None:
        """Close the browser; with --keep-env leave it running and remember how to reach it."""
        if self._closed:
            return
        self._closed = True
        if self.options.keep_env and self._browser is not None:
            message = self.keep_env_message()
            KEPT_ENVIRONMENTS.append(message)
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
                obs = Observation(step=self._step, url=redact(self._safe_url()), last_error=self._last_error)
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
        self._step += 1
        obs = Observation(step=self._step, url=redact(page.url), last_error=self._last_error)
        timings: dict[str, float] = {}
        if kinds & {"axtree", "dom", "som"}:
            t0 = time.perf_counter()
            elements, lines = self._collect(page)
            obs.elements = elements
            obs.extra["scroll"] = dict(self._page_scroll)
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
            self._step -= 1
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
                title = active_title if (i == self._active and active_title is not None) else p.title()
            except Exception:  # noqa: BLE001 - navigating
                title = ""
            out.append({"index": i, "url": redact(p.url), "title": redact(title), "active": i == self._active})
        return out

    def _collect(self, page: "Page") -> tuple[dict[str, Element], list[str]]:
        """Run the DOM script in every frame; return the elements by id and the outline lines."""
        self._frames_by_id.clear()
        elements: dict[str, Element] = {}
        outline = self._collect_frame(page.main_frame, "", (0.0, 0.0), elements, depth=0)
        self._elements = elements
        return elements, outline

    def _collect_frame(self, frame: "Frame", path: str, offset: tuple[float, float],
                       elements: dict[str, Element], depth: int) -> list[str]:
        result = json.loads(frame.evaluate(SCRIPT, {"next": self._next_id, "attr": ID_ATTR, "frameAttr": FRAME_ATTR,
                                                    "maxText": 200, "maxLines": 4000}))
        self._next_id = max(self._next_id, int(result["next"]))
        if not path:
            self._page_scroll = {"x": result["scroll"][0], "y": result["scroll"][1],
                                 "page_height": result.get("height", 0)}
        ox, oy = offset
        for item in result["elements"]:
            x, y, w, h = item["bbox"]
            el = Element(id=item["id"], role=item["role"], name=item["name"], tag=item["tag"],
                         bbox=(round(x + ox, 1), round(y + oy, 1), round(w, 1), round(h, 1)),
                         attributes={k: redact(str(v)) if k in ("href", "value") else str(v)
                                     for k, v in item["attributes"].items()}, frame=path)
            elements[el.id] = el
            self._frames_by_id[el.id] = frame
        lines: list[str] = result["lines"]
        if not result["frames"] or depth >= 3:
            return [ln.split(" {{frame:")[0] if "{{frame:" in ln else ln for ln in lines]
        # match child frames to their iframe elements by the key the script wrote
        children: dict[str, Frame] = {}
        for child in frame.child_frames[:MAX_FRAMES]:
            try:
                handle = child.frame_element()
                key = handle.get_attribute(FRAME_ATTR)
                handle.dispose()
            except Exception:  # noqa: BLE001 - detached meanwhile
                continue
            if key:
                children[key] = child
        offsets = {f["key"]: (ox + f["x"], oy + f["y"]) for f in result["frames"]}
        out: list[str] = []
        for ln in lines:
            if "{{frame:" not in ln:
                out.append(ln)
                continue
            head, key = ln.split(" {{frame:", 1)
            key = key.rstrip("}")
            out.append(head)
            child = children.get(key)
            if child is None:
                continue
            indent = len(head) - len(head.lstrip(" "))
            sub_path = f"{path}/{key}" if path else key
            try:
                sub = self._collect_frame(child, sub_path, offsets.get(key, (ox, oy)), elements, depth + 1)
            except Exception as exc:  # noqa: BLE001 - a frame that navigated or is cross-process and closed
                sub = [f"(frame not readable: {short_error(exc, 120)})"]
            out.extend(" " * (indent + 2) + s for s in sub)
        return out

    # --- actions ---------------------------------------------------------------------------------------

    def act(self, action: Action) -> ActionResult:
        """Carry out one action; failures come back as ``ok=False`` with an error for the agent."""
        self._check_alive()
        t0 = time.perf_counter()
        result = ActionResult(action=action)
        try:
            detail = self._dispatch(action)
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
        self._last_error = result.error
        if self._screencasts or self.options.video:
            self._ensure_screencasts()
        if not action.terminal and action.kind not in ("wait", "ask"):
            self._pristine = False
        return result

    def _raise_if_crashed(self, exc: BaseException) -> None:
        text = str(exc)
        gone = self._browser is None or not self._browser.is_connected()
        if self._crashed or gone or "Target crashed" in text or "Browser has been closed" in text \
                or "browser has disconnected" in text.lower():
            why = self._crashed or short_error(exc)
            self._crashed = self._crashed or why
            raise EnvironmentCrash(f"browser environment: {why}") from exc

    def resolve(self, element_id: str) -> _Resolved:
        """The frame and locator of an id from the latest observation; ActionFailed when it is gone."""
        frame = self._frames_by_id.get(element_id)
        if frame is None:
            raise ActionFailed(f"no element {element_id!r} in the latest observation; use an id shown there")
        if frame.is_detached():
            raise ActionFailed(f"element {element_id!r} is gone (its frame was replaced); observe again")
        locator = frame.locator(f'[{ID_ATTR}="{element_id}"]')
        try:
            count = locator.count()
        except Exception as exc:  # noqa: BLE001 - context destroyed by navigation
            raise ActionFailed(f"element {element_id!r} is gone (the page changed); observe again") from exc
        if count == 0:
            raise ActionFailed(f"element {element_id!r} is no longer on the page; observe again")
        return _Resolved(element_id, frame, locator.first)

    def _point_of(self, target: A.Target) -> tuple[float, float]:
        if isinstance(target, Point):
            self._check_point(target)
            return target.x, target.y
        res = self.resolve(target)
        res.locator.scroll_into_view_if_needed(timeout=self.options.action_timeout_s * 1000)
        box = res.locator.bounding_box()
        if box is None:
            raise ActionFailed(f"element {target!r} is not visible")
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def _check_point(self, p: Point) -> None:
        w, h = self.options.viewport
        if not (0 <= p.x < w and 0 <= p.y < h):
            raise ActionFailed(f"point ({p.x:g}, {p.y:g}) is outside the {w}x{h} viewport")

    def _dispatch(self, action: Action) -> dict[str, Any] | None:
        page = self.page
        ms = self.options.action_timeout_s * 1000
        if isinstance(action, (A.Click, A.DoubleClick, A.RightClick)):
            button = "right" if isinstance(action, A.RightClick) else getattr(action, "button", "left")
            if isinstance(action.target, Point):
                self._check_point(action.target)
                before = self._navigations
                if isinstance(action, A.DoubleClick):
                    page.mouse.dblclick(action.target.x, action.target.y)
                else:
                    page.mouse.click(action.target.x, action.target.y, button=button)  # type: ignore[arg-type]
                # a click at a point (a pixel agent's Save) may submit a form: unlike a locator click it does
                # not wait for that navigation, and observing a page mid-commit can block its screenshot
                self._await_navigation_start(page, before)
            else:
                loc = self.resolve(action.target).locator
                if isinstance(action, A.DoubleClick):
                    loc.dblclick(timeout=ms)
                else:
                    loc.click(button=button, timeout=ms)  # type: ignore[arg-type]
            self._settle(page)
        elif isinstance(action, (A.Hover, A.Move)):
            if isinstance(action.target, Point):
                self._check_point(action.target)
                page.mouse.move(action.target.x, action.target.y)
            else:
                self.resolve(action.target).locator.hover(timeout=ms)
        elif isinstance(action, A.Fill):
            if isinstance(action.target, Point):
                self._check_point(action.target)
                page.mouse.click(action.target.x, action.target.y)
                page.keyboard.press("ControlOrMeta+a")
                page.keyboard.press("Delete")
                page.keyboard.insert_text(action.text)
            else:
                self.resolve(action.target).locator.fill(action.text, timeout=ms)
        elif isinstance(action, A.Type):
            if action.target is None:
                page.keyboard.type(action.text)
            elif isinstance(action.target, Point):
                self._check_point(action.target)
                page.mouse.click(action.target.x, action.target.y)
                page.keyboard.type(action.text)
            else:
                self.resolve(action.target).locator.press_sequentially(action.text, timeout=ms)
        elif isinstance(action, A.Clear):
            if isinstance(action.target, Point):
                self._check_point(action.target)
                page.mouse.click(action.target.x, action.target.y)
                page.keyboard.press("ControlOrMeta+a")
                page.keyboard.press("Delete")
            else:
                self.resolve(action.target).locator.clear(timeout=ms)
        elif isinstance(action, A.SelectOption):
            if isinstance(action.target, Point):
                raise ActionFailed("select_option needs an element id of a <select>, not a point")
            chosen = self.resolve(action.target).locator.select_option(action.option, timeout=ms)
            return {"selected": chosen}
        elif isinstance(action, (A.Check, A.Uncheck)):
            want = isinstance(action, A.Check)
            if isinstance(action.target, Point):
                self._check_point(action.target)
                page.mouse.click(action.target.x, action.target.y)
            else:
                loc = self.resolve(action.target).locator
                if want:
                    loc.check(timeout=ms)
                else:
                    loc.uncheck(timeout=ms)
        elif isinstance(action, (A.Press, A.Hotkey)):
            keys = [action.key] if isinstance(action, A.Press) else list(action.keys)
            before = self._navigations
            page.keyboard.press("+".join(normalize_key(k) for k in keys))
            if any(normalize_key(k) == "Enter" for k in keys):
                self._await_navigation_start(page, before)
            self._settle(page)
        elif isinstance(action, A.Scroll):
            return self._scroll(page, action)
        elif isinstance(action, A.Drag):
            self._drag(page, action)
        elif isinstance(action, A.GoTo):
            self._check_url(action.url)
            page.goto(action.url, wait_until="domcontentloaded")
        elif isinstance(action, A.Back):
            before = page.url
            if page.go_back(wait_until="domcontentloaded") is None and page.url == before:
                raise ActionFailed("back: there is no previous page in this tab")
        elif isinstance(action, A.Forward):
            before = page.url
            if page.go_forward(wait_until="domcontentloaded") is None and page.url == before:
                raise ActionFailed("forward: there is no next page in this tab")
        elif isinstance(action, A.NewTab):
            if action.url:
                self._check_url(action.url)
            new = self.context.new_page()
            self._watch_page(new)
            self._active = self.context.pages.index(new)
            if action.url:
                new.goto(action.url, wait_until="domcontentloaded")
            return {"tab": self._active}
        elif isinstance(action, A.SwitchTab):
            pages = self.context.pages
            if not 0 <= action.index < len(pages):
                raise ActionFailed(f"switch_tab: no tab {action.index}; open tabs are 0..{len(pages) - 1}")
            self._active = action.index
            pages[action.index].bring_to_front()
        elif isinstance(action, A.CloseTab):
            pages = self.context.pages
            index = self._active if action.index is None else action.index
            if not 0 <= index < len(pages):
                raise ActionFailed(f"close_tab: no tab {index}; open tabs are 0..{len(pages) - 1}")
            pages[index].close()
            if not self.context.pages:
                blank = self.context.new_page()
                self._watch_page(blank)
            if index < self._active or self._active >= len(self.context.pages):
                self._active = max(0, self._active - 1)
        elif isinstance(action, A.Wait):
            seconds = max(0.0, min(float(action.seconds), MAX_WAIT_S))
            page.wait_for_timeout(seconds * 1000)
        elif action.terminal or isinstance(action, A.Ask):
            return {"handled_by": "episode"}
        else:
            raise ActionFailed(f"the browser environment cannot carry out {action.kind!r}")
        return None

    def _await_navigation_start(self, page: "Page", before: int) -> None:
        """Enter (or a click at a point) may submit a form, and its navigation starts a moment after the key
        press or click returns: wait up to ENTER_NAVIGATION_WAIT_S for it to start, so that ``_settle`` waits
        for the new page, not the old."""
        commits, waited = self._commits, 0.0
        while self._navigations == before and waited < ENTER_NAVIGATION_WAIT_S:
            page.wait_for_timeout(25)  # lets Playwright deliver the request event
            waited += 0.025
        if self._navigations == before:
            return
        waited = 0.0  # it started: wait for the new document to commit (the old one still counts as loaded)
        while self._commits == commits and waited < self.options.navigation_timeout_s:
            page.wait_for_timeout(25)
            waited += 0.025

    def _settle(self, page: "Page") -> None:
        """After a click or key press: if it started a navigation, let the new document load."""
        try:
            page.wait_for_load_state("domcontentloaded", timeout=self.options.navigation_timeout_s * 1000)
        except Exception:  # noqa: BLE001 - a slow page is observed as it is
            pass

    def _scroll(self, page: "Page", action: A.Scroll) -> dict[str, Any]:
        if action.target is not None:
            x, y = self._point_of(action.target)
        else:
            w, h = self.options.viewport
            x, y = w / 2, h / 2
        page.mouse.move(x, y)
        page.mouse.wheel(action.dx, action.dy)
        # wheel does not wait for the scroll: wait two animation frames so the next observation shows it
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return {}

    def _drag(self, page: "Page", action: A.Drag) -> None:
        if isinstance(action.source, str) and isinstance(action.destination, str):
            src, dst = self.resolve(action.source), self.resolve(action.destination)
            if src.frame is dst.frame:
                src.locator.drag_to(dst.locator, timeout=self.options.action_timeout_s * 1000)
                return
        sx, sy = self._point_of(action.source)
        dx, dy = self._point_of(action.destination)
        page.mouse.move(sx, sy)
        page.mouse.down()
        page.mouse.move(dx, dy, steps=8)
        page.mouse.up()

    def _check_url(self, url: str) -> None:
        if not url.startswith(ALLOWED_URL_SCHEMES):
            raise ActionFailed(f"goto: only http(s) URLs are allowed, got {url[:100]!r}")

    def _safe_url(self) -> str:
        try:
            return self.page.url
        except Exception:  # noqa: BLE001
            return ""


class ActionFailed(Exception):
    """An action that could not be carried out; its message goes to the agent."""


# --- rendering -------------------------------------------------------------------------------------------

def render_dom(elements: dict[str, Element]) -> str:
    """The flattened DOM: one line per interactive element, ``[e3] <input type="text" value="x"> Name``."""
    lines = []
    for el in elements.values():
        attrs = []
        for key in ("type", "value", "placeholder", "checked", "href", "options", "disabled", "required",
                    "expanded", "selected"):
            value = el.attributes.get(key)
            if value not in (None, ""):
                attrs.append(f'{key}={json.dumps(value, ensure_ascii=False)}')
        if el.role and el.role != el.tag:
            attrs.insert(0, f'role="{el.role}"')
        frame = f" frame={el.frame}" if el.frame else ""
        attr_text = (" " + " ".join(attrs)) if attrs else ""
        lines.append(f"[{el.id}] <{el.tag}{attr_text}>{el.name}</{el.tag}>{frame}")
    return "\n".join(lines)


_MARK_COLORS = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (70, 140, 140),
                (240, 50, 230), (128, 128, 0), (0, 0, 128), (170, 110, 40))


def draw_marks(png: bytes, elements: dict[str, Element], viewport: tuple[int, int]) -> bytes:
    """Set-of-marks: the screenshot with a numbered box per visible element (the number of ``eN``)."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.open(io.BytesIO(png)).convert("RGB")
    draw = ImageDraw.Draw(image)
    try:
        font: Any = ImageFont.load_default(size=13)
    except TypeError:  # Pillow < 10.1
        font = ImageFont.load_default()
    W, H = image.size
    for i, el in enumerate(elements.values()):
        if el.bbox is None:
            continue
        x, y, w, h = el.bbox
        if w <= 0 or h <= 0 or x + w < 0 or y + h < 0 or x >= W or y >= H:
            continue
        color = _MARK_COLORS[i % len(_MARK_COLORS)]
        draw.rectangle((x, y, x + w, y + h), outline=color, width=2)
        label = el.id[1:] if el.id.startswith("e") else el.id
        tw = draw.textlength(label, font=font)
        lx, ly = max(0, x), max(0, y - 15) if y >= 15 else max(0, y)
        draw.rectangle((lx, ly, lx + tw + 4, ly + 15), fill=color)
        draw.text((lx + 2, ly + 1), label, fill=(255, 255, 255), font=font)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def redact_zip(path: Path) -> None:
    """Rewrite a trace zip with every text member redacted (URLs with sid=, cookies, tokens)."""
    tmp = path.with_suffix(".redacting")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info)
            if not info.filename.endswith((".png", ".jpeg", ".jpg", ".webp", ".webm", ".woff", ".woff2")):
                data = redact_bytes(data)
            dst.writestr(info, data)
    os.replace(tmp, path)


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:120] or "task"


# --- provider --------------------------------------------------------------------------------------------

def create(ctx: EnvContext) -> BrowserEnvironment:
    """The ``browser`` provider: a plain Chromium for one xdist worker, launched now."""
    options = BrowserOptions.from_config(ctx.config) if ctx.config is not None else BrowserOptions()
    reports = Path(ctx.reports_dir) if ctx.reports_dir is not None else Path("reports")
    env = BrowserEnvironment(options, artifacts_dir=reports / "artifacts" / ctx.run_id / ctx.worker_id,
                             worker_id=ctx.worker_id, run_id=ctx.run_id)
    return env.start()


def kept_environment_messages() -> list[str]:
    """Messages about browsers left running by --keep-env in this process (for the terminal summary)."""
    return list(KEPT_ENVIRONMENTS)
