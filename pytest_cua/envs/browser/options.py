"""Command-line options of the browser environment and their resolution into ``BrowserOptions``.

``add_browser_options(group)`` adds them (the browser providers call it); ``BrowserOptions.from_config``
reads them back (every bad value names the option it came from).

``--headed`` and ``--slowmo`` use the same ``dest`` as playwright-pytest; when that plugin is installed too its
options are reused instead of being added twice.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pytest_cua.envs.base import env_settings
from pytest_cua.redaction import register_secrets
from pytest_cua.observations import DEFAULT_KINDS

if TYPE_CHECKING:
    from pytest_cua.envs.base import EnvContext, EnvSettings

TRACE_MODES = ("off", "on", "retain-on-failure")
DEFAULT_VIEWPORT = (1920, 1080)
DEFAULT_ACTION_TIMEOUT_S = 5.0
DEFAULT_NAVIGATION_TIMEOUT_S = 30.0


class BrowserOptionError(ValueError):
    """A browser option with a bad value; the message names the option."""


@dataclass(frozen=True)
class BrowserOptions:
    """Everything that shapes how the browser is launched and observed."""

    headless: bool = True
    slowmo_ms: float = 0.0
    viewport: tuple[int, int] = DEFAULT_VIEWPORT
    observe: frozenset[str] = DEFAULT_KINDS
    trace: str = "off"
    video: bool = False
    keep_env: bool = False
    action_timeout_s: float = DEFAULT_ACTION_TIMEOUT_S
    navigation_timeout_s: float = DEFAULT_NAVIGATION_TIMEOUT_S
    executable_path: str | None = None
    start_url: str = "about:blank"
    extra_args: tuple[str, ...] = field(default_factory=tuple)
    endpoints: tuple[str, ...] = ()  # --cua-browser-endpoint: remote browsers (ws:// server, http(s):// CDP)

    @classmethod
    def from_context(cls, ctx: "EnvContext") -> "BrowserOptions":
        """The options of an environment a provider creates: the browser's own from the command line, and
        ``--cua-observe`` / ``--keep-env`` as the core plugin parsed them."""
        return cls.from_config(ctx.config, ctx.settings) if ctx.config is not None else cls(
            observe=ctx.settings.observe or DEFAULT_KINDS, keep_env=ctx.settings.keep_env)

    @classmethod
    def from_config(cls, config: Any, settings: "EnvSettings | None" = None) -> "BrowserOptions":
        """Read the options from a pytest ``Config`` (or anything with an ``option`` namespace); ``settings``
        are the options every environment shares (default: parsed from ``config`` by ``env_settings``)."""
        opt = getattr(config, "option", config)
        shared = settings if settings is not None else env_settings(config)

        def get(name: str, default: Any = None) -> Any:
            value = getattr(opt, name, None)
            return default if value is None else value

        trace = get("cua_trace", "off")
        if trace not in TRACE_MODES:
            raise BrowserOptionError(f"--cua-trace: must be one of {', '.join(TRACE_MODES)}, got {trace!r}")
        slowmo = get("slowmo", 0)
        try:
            slowmo = float(slowmo)
        except (TypeError, ValueError):
            raise BrowserOptionError(f"--slowmo: must be a number of milliseconds, got {slowmo!r}") from None
        if slowmo < 0:
            raise BrowserOptionError(f"--slowmo: must not be negative, got {slowmo:g}")
        timeout = get("cua_action_timeout", DEFAULT_ACTION_TIMEOUT_S)
        try:
            timeout = float(timeout)
        except (TypeError, ValueError):
            raise BrowserOptionError(f"--cua-action-timeout: must be seconds, got {timeout!r}") from None
        if timeout <= 0:
            raise BrowserOptionError(f"--cua-action-timeout: must be positive, got {timeout:g}")
        endpoints = parse_endpoints(get("cua_browser_endpoint", None) or _ini(config, "cua_browser_endpoint"))
        headed = bool(get("headed", False))
        if endpoints and headed:
            raise BrowserOptionError(f"--headed cannot show a browser of --cua-browser-endpoint "
                                     f"{show_endpoint(endpoints[0])}: it runs where its server runs; start the "
                                     f"server headed (launch-server config {{\"headless\": false}}) or drop --headed")
        if endpoints and shared.keep_env:
            raise BrowserOptionError(f"--keep-env cannot keep a browser of --cua-browser-endpoint "
                                     f"{show_endpoint(endpoints[0])}: its contexts close when this run disconnects; "
                                     f"drop --keep-env or --cua-browser-endpoint")
        return cls(
            headless=not headed,
            slowmo_ms=slowmo,
            viewport=parse_viewport(get("cua_viewport", None) or DEFAULT_VIEWPORT),
            observe=shared.observe or DEFAULT_KINDS,
            trace=trace,
            video=bool(get("cua_video", False)),
            keep_env=shared.keep_env,
            action_timeout_s=timeout,
            executable_path=get("cua_browser_path", None) or os.environ.get("PYTEST_CUA_CHROMIUM") or None,
            start_url=get("cua_start_url", "about:blank"),
            endpoints=endpoints,
        )

    def endpoint_for(self, worker_id: str) -> str | None:
        """The endpoint of a worker: ``gwN`` takes endpoint N mod their number (``master``: the first)."""
        if not self.endpoints:
            return None
        m = re.fullmatch(r"gw(\d+)", worker_id)
        return self.endpoints[(int(m.group(1)) if m else 0) % len(self.endpoints)]


HEADED_WITHOUT_DISPLAY = ("--headed needs a display but DISPLAY is not set: run under Xvfb, e.g. "
                          "'xvfb-run -a pytest --headed ...', or drop --headed")


def check_browser_config(config: Any) -> None:
    """The browser options checked at ``pytest_configure`` (the providers' ``configure``): a bad value, or
    ``--headed`` without a display, is one usage error before anything runs, not a provisioning error per task."""
    import pytest

    try:
        options = BrowserOptions.from_config(config)
    except ValueError as exc:  # BrowserOptionError and the parsers' errors
        raise pytest.UsageError(str(exc)) from None
    if not options.headless and not options.endpoints and not os.environ.get("DISPLAY"):
        raise pytest.UsageError(HEADED_WITHOUT_DISPLAY)


ENDPOINT_SCHEMES = ("ws://", "wss://", "http://", "https://")
ENDPOINT_OPTION = "--cua-browser-endpoint"


def _ini(config: Any, name: str) -> str:
    try:
        return str(config.getini(name) or "")
    except (AttributeError, ValueError):  # an option namespace, or the key is not registered
        return ""


def parse_endpoints(value: Any) -> tuple[str, ...]:
    """``"ws://h:1/x,http://h:9222"`` to a tuple of URLs; a bad URL names the option and the URL (shown
    without its path, query or user info: they can carry a token)."""
    if not value:
        return ()
    items = value if isinstance(value, (list, tuple)) else str(value).replace("\n", ",").split(",")
    out = []
    for raw in items:
        url = str(raw).strip()
        if not url:
            continue
        if not url.lower().startswith(ENDPOINT_SCHEMES):
            raise BrowserOptionError(f"{ENDPOINT_OPTION}: {show_endpoint(url)!r} is not a browser endpoint: use "
                                     f"ws://HOST:PORT/PATH (a Playwright browser server: 'playwright run-server' "
                                     f"or launch-server) or http://HOST:PORT (a Chrome DevTools endpoint)")
        parts = urlsplit(url)
        try:
            parts.port  # noqa: B018 - raises on a bad port
        except ValueError:
            raise BrowserOptionError(f"{ENDPOINT_OPTION}: {show_endpoint(url)!r} has a bad port") from None
        if not parts.hostname:
            raise BrowserOptionError(f"{ENDPOINT_OPTION}: {show_endpoint(url)!r} names no host")
        out.append(url)
    register_secrets(_url_secrets(u) for u in out)
    return tuple(out)


def _url_secrets(url: str) -> str:
    """The part of an endpoint URL that may be a token (path, query, user info), for redaction."""
    parts = urlsplit(url)
    tail = parts.path.strip("/")
    return tail if len(tail) >= 16 else (parts.query if len(parts.query) >= 16 else "")


def show_endpoint(url: str) -> str:
    """An endpoint as the summary and errors show it: scheme, host and port; a path, query or user info
    (a browser server's secret path, a hosted browser's token) becomes ``/...``."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return url.split("://", 1)[0] + "://..." if "://" in url else "..."
    if not parts.scheme:
        return url[:8] + "..." if len(url) > 8 else url
    hidden = "/..." if (parts.path.strip("/") or parts.query or parts.username) else ""
    return f"{parts.scheme}://{host}{port}{hidden}"


_VIEWPORT = re.compile(r"^\s*(\d{2,5})\s*[xX*]\s*(\d{2,5})\s*$")


def parse_viewport(value: Any, *, source: str = "--cua-viewport") -> tuple[int, int]:
    """``"1280x800"`` (or a ``(w, h)`` pair) to ``(1280, 800)``; the error names ``source``."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        w, h = value
    else:
        m = _VIEWPORT.match(str(value))
        if not m:
            raise BrowserOptionError(f"{source}: must be WIDTHxHEIGHT like 1280x800, got {value!r}")
        w, h = int(m.group(1)), int(m.group(2))
    if not (100 <= int(w) <= 7680 and 100 <= int(h) <= 4320):
        raise BrowserOptionError(f"{source}: {w}x{h} is out of range (100x100 to 7680x4320)")
    return int(w), int(h)


def _add(group: Any, *names: str, **kwargs: Any) -> None:
    try:
        group.addoption(*names, **kwargs)
    except ValueError:
        pass  # already added by another plugin (playwright-pytest's --headed / --slowmo): same dest, reuse it


def add_browser_options(group: Any) -> None:
    """Register the browser environment's options on a pytest option group (``--cua-observe`` and
    ``--keep-env`` are the core plugin's: they apply to every environment)."""
    _add(group, "--headed", action="store_true", dest="headed", default=False,
         help="show the browser window (needs a display: run under xvfb-run when DISPLAY is unset)")
    _add(group, "--slowmo", action="store", dest="slowmo", type=float, default=0, metavar="MS",
         help="slow every browser operation down by MS milliseconds (debugging)")
    _add(group, "--cua-viewport", action="store", dest="cua_viewport", default=None, metavar="WxH",
         help="browser viewport, default 1920x1080")
    _add(group, "--cua-trace", action="store", dest="cua_trace", default="off", choices=TRACE_MODES,
         help="record a Playwright trace: off (default), on, retain-on-failure (attached to Allure)")
    _add(group, "--cua-video", action="store_true", dest="cua_video", default=False,
         help="record a video of every task (attached to Allure)")
    _add(group, "--cua-action-timeout", action="store", dest="cua_action_timeout", type=float,
         default=DEFAULT_ACTION_TIMEOUT_S, metavar="SECONDS",
         help=f"timeout of one browser action (default {DEFAULT_ACTION_TIMEOUT_S:g} s)")
    _add(group, "--cua-browser-path", action="store", dest="cua_browser_path", default=None, metavar="PATH",
         help="Chromium executable to use (default: Playwright's, else the system Chromium)")
    _add(group, "--cua-browser-endpoint", action="store", dest="cua_browser_endpoint", default=None,
         metavar="URL[,URL...]",
         help="use remote browsers instead of launching Chromium: ws:// (a Playwright browser server, e.g. "
              "'playwright run-server') or http(s):// (a Chrome DevTools endpoint); worker gwN takes URL N mod "
              "their number (ini: cua_browser_endpoint)")
    parser = getattr(group, "parser", None)
    if parser is not None:
        try:
            parser.addini("cua_browser_endpoint", "default for --cua-browser-endpoint (URLs, comma separated)",
                          default="")
        except ValueError:
            pass  # added already (the browser and salesforce providers share these options)
    _add(group, "--cua-start-url", action="store", dest="cua_start_url", default=None, metavar="URL",
         help="where the plain browser environment starts each task (default about:blank)")
