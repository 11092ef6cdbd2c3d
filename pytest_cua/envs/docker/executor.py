#!/usr/bin/env python3
"""pytest-cua's executor: the one process inside a desktop container that touches the display.

It starts Xvfb and a window manager, then serves a JSON-lines protocol on a unix socket inside the container.
The host reaches it through the Docker API alone: it ``exec``s ``executor.py connect`` in the container, a relay
that carries its stdin to the socket and the answers back to its stdout, so the same transport works with a
remote Docker daemon (no bind mount, no network). One request per line, one answer per line::

    -> {"id": 1, "op": "act", "action": {"type": "click", "target": {"x": 10, "y": 20}}}
    <- {"id": 1, "ok": true, "duration_s": 0.05}

Operations: ping, act, screenshot, windows, wait_window, put, get, spawn, run, listing, shutdown, plus those of
the op modules beside this file (``executor_*.py``, each with a dict ``OPS`` of name -> handler taking the
request and returning the answer's fields). Files travel in the messages (``put`` and ``get`` carry their bytes
as base64). The host copies this file and its op modules into the container before it starts
(``pytest_cua.envs.docker.client.executor_bundle``): the image only provides the programs.

Actions arrive as typed action dicts (``pytest_cua.actions.Action.to_dict()``) and are checked against this
file's own whitelist: types, field types and key names. Nothing is ever evaluated. Targets are screen points:
the host resolves an element id of its last observation (``axtree``, from ``executor_axtree.py``) to the
centre of that element's box before it sends the action.

Accessibility: ``serve`` starts a session D-Bus and the AT-SPI bus with accessibility enabled before it
accepts requests, and every program it starts inherits ``DBUS_SESSION_BUS_ADDRESS``; a failure there only
disables the accessibility tree (``ping`` and the ``axtree`` op say why), never screenshots or actions.

Standard library plus pyautogui, Pillow (or mss) and xdotool; it does not import pytest_cua (it runs inside
the image's own Python).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import selectors
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

DISPLAY = os.environ.get("DISPLAY", ":0")
SCREEN = os.environ.get("CUA_SCREEN", "1280x800x24")
SOCKET = "/run/cua/executor.sock"
MAX_FILE_BYTES = 256 << 20  # put / get: a file travels in one message
_LOCK = threading.Lock()  # one input action at a time
_CHILDREN: list[subprocess.Popen] = []
_pyautogui: Any = None

KEY_ALIASES = {
    "return": "enter", "control": "ctrl", "cmd": "win", "meta": "win", "super": "win", "escape": "esc",
    "arrowleft": "left", "arrowright": "right", "arrowup": "up", "arrowdown": "down", "page_up": "pageup",
    "page_down": "pagedown", "pgup": "pageup", "pgdn": "pagedown", "del": "delete", "ins": "insert",
    "spacebar": "space", " ": "space", "option": "alt", "bksp": "backspace",
}
SCROLL_PIXELS_PER_CLICK = 40.0


class ActionRefused(Exception):
    """An action outside the whitelist or with a bad field; the message names the field."""


# --- display -------------------------------------------------------------------------------------------------

def start_display() -> None:
    """Start Xvfb and openbox unless a display already answers; wait for both (bounded)."""
    os.environ["DISPLAY"] = DISPLAY
    Path.home().joinpath(".Xauthority").touch(exist_ok=True)
    number = DISPLAY.lstrip(":").split(".")[0]
    sock = Path(f"/tmp/.X11-unix/X{number}")
    if not _run_ok(["xdpyinfo"]):
        # a container made from a committed snapshot carries the old server's lock and socket: drop them
        for stale in (sock, Path(f"/tmp/.X{number}-lock")):
            stale.unlink(missing_ok=True)
        # -noreset: without it the server resets when its last client leaves (our own probe), and a window
        # manager connecting during that reset fails to open the display
        _spawn(["Xvfb", DISPLAY, "-screen", "0", SCREEN, "-nolisten", "tcp", "-ac", "-noreset",
                "+extension", "RANDR"], "xvfb")
        _wait(lambda: sock.exists() and _run_ok(["xdpyinfo"]), 60, "Xvfb to accept connections")
    if not _run_ok(["wmctrl", "-m"]):
        wm: list[subprocess.Popen] = []

        def wm_up() -> bool:
            if not wm or wm[-1].poll() is not None:  # not started, or died: (re)start it
                _spawn(["openbox", "--sm-disable"], "openbox")
                wm.append(_CHILDREN[-1])
            return _run_ok(["wmctrl", "-m"])

        _wait(wm_up, 60, "openbox to manage the display")


# --- accessibility bus ----------------------------------------------------------------------------------------

ATSPI_LAUNCHER = "/usr/libexec/at-spi-bus-launcher"
RUNTIME_DIR = "/run/cua/xdg"  # XDG_RUNTIME_DIR: the a11y bus socket and other runtime files (not in /root)
A11Y_TIMEOUT_S = 15.0
#: whether the accessibility bus came up, and why not (``ping`` and the axtree op report it)
A11Y: dict[str, Any] = {"enabled": False, "reason": "not started"}


def start_accessibility() -> None:
    """A session D-Bus (unless one is given) and the AT-SPI bus with accessibility on, so GTK 3 (atk-bridge),
    LibreOffice's gtk3 front end and Qt 5 (``QT_ACCESSIBILITY=1``) export their trees. The address goes into
    this process's environment, which every spawned program inherits. Bounded; a failure is recorded in
    ``A11Y`` (the display works without it)."""
    started = time.monotonic()
    try:
        # a container made from a snapshot carries the old buses' sockets: a runtime folder starts empty
        shutil.rmtree(RUNTIME_DIR, ignore_errors=True)
        Path(RUNTIME_DIR).mkdir(parents=True, exist_ok=True, mode=0o700)
        os.environ.setdefault("XDG_RUNTIME_DIR", RUNTIME_DIR)
        if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = _start_session_bus()
        if not Path(ATSPI_LAUNCHER).exists():
            raise RuntimeError(f"{ATSPI_LAUNCHER} is not installed (package at-spi2-core)")
        # the launcher owns org.a11y.Bus on the session bus, starts the a11y bus and the registry, and
        # publishes the a11y bus address on the X root window (AT_SPI_BUS) for programs without the session bus
        _spawn([ATSPI_LAUNCHER, "--launch-immediately", "--a11y=1"], "atspi-bus")
        bus = ["dbus-send", "--session", "--print-reply", "--reply-timeout=2000", "--dest=org.a11y.Bus",
               "/org/a11y/bus"]
        _wait(lambda: _run_ok([*bus, "org.a11y.Bus.GetAddress"]), A11Y_TIMEOUT_S, "the AT-SPI bus (org.a11y.Bus)")
        # IsEnabled is what Qt looks at without QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 (set in the images); GTK 3
        # and LibreOffice export their trees either way. It is reported, not set: setting it makes a process on
        # the bus write GSettings, a dconf file in /root (residue)
        status = subprocess.run([*bus, "org.freedesktop.DBus.Properties.Get", "string:org.a11y.Status",
                                 "string:IsEnabled"], capture_output=True, text=True, timeout=5)
        A11Y.update(enabled=True, reason="", started_s=round(time.monotonic() - started, 3),
                    is_enabled="boolean true" in status.stdout, session_bus=os.environ["DBUS_SESSION_BUS_ADDRESS"])
    except Exception as exc:  # the display works without it: the axtree op says why it is unavailable
        A11Y.update(enabled=False, reason=f"the accessibility bus did not start: {type(exc).__name__}: {exc}")


def _start_session_bus() -> str:
    """Start ``dbus-daemon --session`` (a child of this process, stopped with it); return its address."""
    import select

    log = open("/tmp/cua-dbus.log", "ab")
    # its socket in the runtime folder, not /tmp (what a container writes outside /run/cua is residue)
    proc = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
                             f"--address=unix:dir={RUNTIME_DIR}"],
                            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    _CHILDREN.append(proc)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], A11Y_TIMEOUT_S)
    line = os.read(proc.stdout.fileno(), 4096).decode(errors="replace").strip() if ready else ""
    if not line.startswith(("unix:", "tcp:")):
        raise RuntimeError(f"dbus-daemon --session gave no address (exit status {proc.poll()}, "
                           f"see /tmp/cua-dbus.log): {line[:200]!r}")
    return line.splitlines()[0]


def _spawn(argv: list[str], name: str, cwd: str | None = None, env: dict[str, str] | None = None) -> int:
    log = open(f"/tmp/cua-{name}.log", "ab")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            cwd=cwd or str(Path.home()), env={**os.environ, **(env or {})},
                            start_new_session=True)
    _CHILDREN.append(proc)
    return proc.pid


def _run_ok(argv: list[str]) -> bool:
    try:
        return subprocess.run(argv, capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _wait(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    delay = 0.02
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(delay)
        delay = min(delay * 1.5, 0.25)
    raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")


def gui() -> Any:
    """pyautogui, imported once the display is up (it connects at import)."""
    global _pyautogui
    if _pyautogui is None:
        import pyautogui

        pyautogui.FAILSAFE = False
        pyautogui.PAUSE = 0.01
        _pyautogui = pyautogui
    return _pyautogui


# --- actions ----------------------------------------------------------------------------------------------------

def _point(action: dict, name: str, required: bool = True) -> tuple[int, int] | None:
    value = action.get(name)
    if value is None and not required:
        return None
    if isinstance(value, dict) and set(value) == {"x", "y"}:
        x, y = value["x"], value["y"]
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        x, y = value
    elif isinstance(value, str):
        raise ActionRefused(f"field {name!r}: the executor takes screen points, not element ids ({value!r}); "
                            f"the host resolves an id of its last observation to a point")
    else:
        raise ActionRefused(f"field {name!r} must be a screen point {{'x': .., 'y': ..}}, got {value!r}")
    for v in (x, y):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ActionRefused(f"field {name!r}: coordinates must be numbers, got {v!r}")
    w, h = screen_size()
    if not (0 <= x < w and 0 <= y < h):
        raise ActionRefused(f"field {name!r}: point ({x}, {y}) is outside the screen {w}x{h}")
    return int(round(x)), int(round(y))


def _text(action: dict, name: str) -> str:
    value = action.get(name)
    if not isinstance(value, str):
        raise ActionRefused(f"field {name!r} must be a string, got {value!r}")
    return value


def _number(action: dict, name: str, default: float) -> float:
    value = action.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionRefused(f"field {name!r} must be a number, got {value!r}")
    return float(value)


def key_name(raw: Any) -> str:
    """Normalise a key name (``Enter``, ``Control``, ``ArrowLeft``) and check it against pyautogui's keys."""
    if not isinstance(raw, str) or not raw:
        raise ActionRefused(f"a key must be a non-empty string, got {raw!r}")
    key = raw if len(raw) == 1 else raw.lower()
    key = KEY_ALIASES.get(key.lower() if len(key) > 1 else key, key)
    if key not in gui().KEYBOARD_KEYS:
        raise ActionRefused(f"unknown key {raw!r}")
    return key


def xdotool_type(text: str) -> None:
    """Type text with xdotool (pyautogui's typewrite turns '<' into '>' on some X11 setups)."""
    for i, chunk in enumerate(text.split("\n")):
        if i:
            gui().press("enter")
        if chunk:
            subprocess.run(["xdotool", "type", "--clearmodifiers", "--delay", "8", "--", chunk], check=True,
                           capture_output=True, timeout=60 + len(chunk) * 0.05)


def do_click(a: dict) -> None:
    button = a.get("button", "left")
    if button not in ("left", "right", "middle"):
        raise ActionRefused(f"field 'button' must be left, right or middle, got {button!r}")
    x, y = _point(a, "target")  # type: ignore[misc]
    gui().click(x, y, button=button)


def do_double_click(a: dict) -> None:
    x, y = _point(a, "target")  # type: ignore[misc]
    gui().doubleClick(x, y)


def do_right_click(a: dict) -> None:
    x, y = _point(a, "target")  # type: ignore[misc]
    gui().rightClick(x, y)


def do_move(a: dict) -> None:
    x, y = _point(a, "target")  # type: ignore[misc]
    gui().moveTo(x, y)


DRAG_STEPS = 8  # pointer motion events between press and release
DRAG_HOLD_S = 0.1  # pause after the press and before the release


def do_drag(a: dict) -> None:
    sx, sy = _point(a, "source")  # type: ignore[misc]
    dx, dy = _point(a, "destination")  # type: ignore[misc]
    g = gui()
    g.moveTo(sx, sy)
    g.mouseDown(button="left")
    # held a moment at each point: programs start a drag only after motion past a threshold with the button
    # down, and read the drop where the pointer rests when the button comes up
    time.sleep(DRAG_HOLD_S)
    for step in range(1, DRAG_STEPS + 1):
        g.moveTo(sx + (dx - sx) * step // DRAG_STEPS, sy + (dy - sy) * step // DRAG_STEPS)
        time.sleep(DRAG_HOLD_S / DRAG_STEPS)
    time.sleep(DRAG_HOLD_S)
    g.mouseUp(button="left")


def do_scroll(a: dict) -> None:
    point = _point(a, "target", required=False)
    dx, dy = _number(a, "dx", 0), _number(a, "dy", 0)
    g = gui()
    if point is not None:
        g.moveTo(*point)
    if dy:
        g.scroll(-int(round(dy / SCROLL_PIXELS_PER_CLICK)) or (-1 if dy > 0 else 1))
    if dx:
        g.hscroll(int(round(dx / SCROLL_PIXELS_PER_CLICK)) or (1 if dx > 0 else -1))


def do_type(a: dict) -> None:
    text = _text(a, "text")
    point = _point(a, "target", required=False)
    if point is not None:
        gui().click(*point)
    xdotool_type(text)


def do_fill(a: dict) -> None:
    text = _text(a, "text")
    point = _point(a, "target")
    gui().click(*point)  # type: ignore[misc]
    gui().hotkey("ctrl", "a")
    xdotool_type(text)


def do_clear(a: dict) -> None:
    point = _point(a, "target")
    gui().click(*point)  # type: ignore[misc]
    gui().hotkey("ctrl", "a")
    gui().press("delete")


def do_press(a: dict) -> None:
    gui().press(key_name(a.get("key")))


def do_hotkey(a: dict) -> None:
    keys = a.get("keys")
    if not isinstance(keys, list) or not keys:
        raise ActionRefused(f"field 'keys' must be a non-empty list of key names, got {keys!r}")
    gui().hotkey(*[key_name(k) for k in keys], interval=0.02)


def do_wait(a: dict) -> None:
    seconds = _number(a, "seconds", 1.0)
    if not 0 <= seconds <= 60:
        raise ActionRefused(f"field 'seconds' must be between 0 and 60, got {seconds}")
    time.sleep(seconds)


ACTIONS: dict[str, tuple[Callable[[dict], None], frozenset[str]]] = {
    "click": (do_click, frozenset({"target", "button"})),
    "double_click": (do_double_click, frozenset({"target"})),
    "right_click": (do_right_click, frozenset({"target"})),
    "move": (do_move, frozenset({"target"})),
    "hover": (do_move, frozenset({"target"})),
    "drag": (do_drag, frozenset({"source", "destination"})),
    "scroll": (do_scroll, frozenset({"dx", "dy", "target"})),
    "type": (do_type, frozenset({"text", "target"})),
    "fill": (do_fill, frozenset({"target", "text"})),
    "clear": (do_clear, frozenset({"target"})),
    "press": (do_press, frozenset({"key"})),
    "hotkey": (do_hotkey, frozenset({"keys"})),
    "wait": (do_wait, frozenset({"seconds"})),
}


def act(action: Any) -> None:
    """Validate one action dict against the whitelist and carry it out."""
    if not isinstance(action, dict):
        raise ActionRefused(f"an action must be an object, got {type(action).__name__}")
    kind = action.get("type")
    entry = ACTIONS.get(kind) if isinstance(kind, str) else None
    if entry is None:
        raise ActionRefused(f"action type {kind!r} is not supported on the desktop "
                            f"(supported: {', '.join(sorted(ACTIONS))})")
    handler, fields = entry
    extra = sorted(set(action) - fields - {"type"})
    if extra:
        raise ActionRefused(f"action {kind!r} has no field {extra[0]!r}")
    with _LOCK:
        handler(action)


# --- observations ---------------------------------------------------------------------------------------------

_SIZE: tuple[int, int] | None = None


def screen_size() -> tuple[int, int]:
    global _SIZE
    if _SIZE is None:
        _SIZE = tuple(gui().size())  # type: ignore[assignment]
    return _SIZE  # type: ignore[return-value]


def screenshot_png() -> bytes:
    """The whole screen as PNG (Pillow's ImageGrab on the X display; mss when Pillow lacks XCB)."""
    try:
        from PIL import ImageGrab

        image = ImageGrab.grab(xdisplay=DISPLAY)
    except Exception:
        import mss
        from PIL import Image

        with mss.mss(display=DISPLAY) as grabber:
            raw = grabber.grab(grabber.monitors[0])
            image = Image.frombytes("RGB", raw.size, raw.bgra, "raw", "BGRX")
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def windows() -> dict[str, Any]:
    """Visible top-level windows (wmctrl) and the active window's title."""
    out = subprocess.run(["wmctrl", "-l", "-p"], capture_output=True, text=True, timeout=5)
    items = []
    for line in out.stdout.splitlines():
        parts = line.split(None, 4)
        if len(parts) >= 4:
            items.append({"id": parts[0], "desktop": parts[1], "pid": int(parts[2]) if parts[2].isdigit() else 0,
                          "title": parts[4] if len(parts) > 4 else ""})
    active = subprocess.run(["xdotool", "getactivewindow", "getwindowname"], capture_output=True, text=True,
                            timeout=5)
    return {"windows": items, "active_title": active.stdout.strip() if active.returncode == 0 else ""}


def wait_window(pattern: str, timeout: float) -> dict[str, Any]:
    """Wait until a window whose title matches ``pattern`` (xdotool regex) is mapped; bounded."""
    deadline = time.monotonic() + timeout
    delay = 0.05
    while True:
        found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", pattern], capture_output=True,
                               text=True, timeout=5)
        ids = found.stdout.split()
        if ids:
            name = subprocess.run(["xdotool", "getwindowname", ids[0]], capture_output=True, text=True, timeout=5)
            return {"window": ids[0], "title": name.stdout.strip()}
        if time.monotonic() >= deadline:
            raise TimeoutError(f"no window title matching {pattern!r} after {timeout:.0f} s; "
                               f"open: {[w['title'] for w in windows()['windows']]}")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.5)


def listing(root: str, skip: list[str]) -> dict[str, str]:
    """``{relative path: sha256}`` of every file below ``root`` (symlinks by target), skipping prefixes."""
    out: dict[str, str] = {}
    base = Path(root)
    if not base.exists():
        return out
    for dirpath, dirnames, filenames in os.walk(base):
        rel_dir = os.path.relpath(dirpath, base)
        dirnames[:] = sorted(d for d in dirnames
                             if not any(os.path.normpath(os.path.join(rel_dir, d)).startswith(s) for s in skip))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if any(rel.startswith(s) for s in skip):
                continue
            if path.is_symlink():
                out[rel] = "symlink:" + os.readlink(path)
                continue
            h = hashlib.sha256()
            try:
                with open(path, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
            except OSError as exc:
                out[rel] = f"unreadable:{exc.errno}"
                continue
            out[rel] = h.hexdigest()
    return out


# --- protocol ------------------------------------------------------------------------------------------------

def _data(request: dict[str, Any]) -> bytes:
    """The bytes of a ``put`` (base64 in field ``data``)."""
    data = request.get("data")
    if not isinstance(data, str):
        raise ValueError("field 'data' must be the file's bytes as base64")
    raw = base64.b64decode(data, validate=True)
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"field 'data': {len(raw)} bytes is over the {MAX_FILE_BYTES >> 20} MiB limit")
    return raw


_EXTRA_OPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] | None = None


def extra_ops() -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """The ops of the modules beside this file (``executor_*.py``: a dict ``OPS``), imported once."""
    global _EXTRA_OPS
    if _EXTRA_OPS is None:
        import importlib

        ops: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {}
        here = Path(__file__).resolve().parent
        if str(here) not in sys.path:
            sys.path.insert(0, str(here))
        for path in sorted(here.glob("executor_*.py")):
            ops.update(getattr(importlib.import_module(path.stem), "OPS", {}))
        _EXTRA_OPS = ops
    return _EXTRA_OPS


def handle(request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    started = time.monotonic()
    if op == "ping":
        result: dict[str, Any] = {"display": _run_ok(["xdpyinfo"]), "wm": _run_ok(["wmctrl", "-m"]),
                                  "pid": os.getpid(), "accessibility": dict(A11Y)}
    elif op == "act":
        try:
            act(request.get("action"))
            result = {}
        except ActionRefused as exc:
            return {"ok": False, "error": str(exc), "refused": True}
    elif op == "screenshot":
        result = {"png": base64.b64encode(screenshot_png()).decode("ascii")}
    elif op == "windows":
        result = windows()
    elif op == "wait_window":
        result = wait_window(str(request.get("pattern", "")), float(request.get("timeout", 30)))
    elif op == "put":
        dest = Path(str(request.get("dest")))
        if not dest.is_absolute():
            raise ValueError(f"field 'dest' must be an absolute path, got {request.get('dest')!r}")
        data = _data(request)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
        result = {"bytes": len(data)}
    elif op == "get":
        src = Path(str(request.get("src")))
        if not src.is_absolute():
            raise ValueError(f"field 'src' must be an absolute path, got {request.get('src')!r}")
        if not src.is_file():
            raise FileNotFoundError(f"no file {str(src)!r} in the container")
        if src.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"{str(src)!r} is over the {MAX_FILE_BYTES >> 20} MiB limit of a transfer")
        data = src.read_bytes()
        result = {"data": base64.b64encode(data).decode("ascii"), "bytes": len(data)}
    elif op == "spawn":
        argv = request.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("field 'argv' must be a non-empty list of strings")
        result = {"pid": _spawn(argv, f"app-{len(_CHILDREN)}", cwd=request.get("cwd"), env=request.get("env"))}
    elif op == "run":
        argv = request.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise ValueError("field 'argv' must be a non-empty list of strings")
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=float(request.get("timeout", 60)),
                              cwd=request.get("cwd") or str(Path.home()), env={**os.environ, **(request.get("env") or {})})
        result = {"returncode": proc.returncode, "stdout": proc.stdout[-200_000:], "stderr": proc.stderr[-20_000:]}
    elif op == "listing":
        result = {"files": listing(str(request.get("root", Path.home())), list(request.get("skip", [])))}
    elif op == "shutdown":
        threading.Thread(target=_shutdown, daemon=True).start()
        result = {}
    elif op in extra_ops():
        result = dict(extra_ops()[op](request))
    else:
        raise ValueError(f"unknown op {op!r}")
    result["ok"] = True
    result["duration_s"] = round(time.monotonic() - started, 4)
    return result


class _Handler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        for line in self.rfile:
            if not line.strip():
                continue
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("a request must be a JSON object")
                answer = handle(request)
                answer["id"] = request.get("id")
            except Exception as exc:  # every failure is an answer, never a dead connection
                answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                if isinstance(request, dict):  # type: ignore[possibly-undefined]
                    answer["id"] = request.get("id")
            self.wfile.write(json.dumps(answer).encode() + b"\n")
            self.wfile.flush()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def _shutdown(*_: Any) -> None:
    for proc in reversed(_CHILDREN):
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except OSError:
            pass
    os._exit(0)


def serve(socket_path: str) -> None:
    """Bring up the display, then answer requests on ``socket_path`` until shut down."""
    signal.signal(signal.SIGTERM, _shutdown)
    start_display()
    start_accessibility()
    gui()
    path = Path(socket_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    for p in (path, tmp):
        if p.exists():
            p.unlink()
    server = _Server(str(tmp), _Handler)
    os.chmod(tmp, 0o600)
    os.rename(tmp, path)  # the socket appears only once it accepts: the host's readiness signal
    server.serve_forever()


def relay(socket_path: str, timeout: float) -> int:
    """``executor.py connect``: carry this process's stdin to the executor's socket and its answers to stdout.
    The host runs it with ``docker exec`` over the Docker API and talks through its stdin and stdout. The first
    line out is the relay's own: ``{"relay": "connected"}`` once the executor accepts (it creates its socket
    only when the display is up), or ``{"relay": "error", ...}`` after ``timeout`` seconds."""
    sock, why = connect_unix(socket_path, timeout)
    if sock is None:
        _write_all(1, json.dumps({"relay": "error", "error": f"no executor accepting on {socket_path} "
                                  f"after {timeout:g} s ({why})"}).encode() + b"\n")
        return 1
    _write_all(1, b'{"relay": "connected"}\n')
    return pump(sock, closed_status=1)  # the executor going away is a failure of the relay


def connect_unix(socket_path: str, timeout: float) -> tuple[socket.socket | None, str]:
    """A connection to the unix socket at ``socket_path``, retried (with back-off) until it accepts or
    ``timeout`` seconds pass; ``(None, why)`` then. The executor's relay and the VNC relay use it."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(socket_path)
            return sock, ""
        except OSError as exc:
            sock.close()
            if time.monotonic() >= deadline:
                return None, str(exc)
            time.sleep(delay)
            delay = min(delay * 1.5, 0.2)


def pump(sock: socket.socket, closed_status: int) -> int:
    """Carry this process's stdin to ``sock`` and what ``sock`` sends to stdout until one side closes: 0 when
    stdin ends (the host or viewer went away), ``closed_status`` when the socket's side closes."""
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ, "stdin")
    selector.register(sock, selectors.EVENT_READ, "socket")
    while True:
        for key, _ in selector.select():
            if key.data == "stdin":
                data = os.read(0, 1 << 16)
                if not data:
                    sock.close()
                    return 0
                sock.sendall(data)
            else:
                try:
                    data = sock.recv(1 << 20)
                except OSError:
                    data = b""
                if not data:
                    return closed_status
                _write_all(1, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="executor.py")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="start the display and answer requests on the socket")
    s.add_argument("--socket", default=SOCKET)
    c = sub.add_parser("connect", help="relay stdin and stdout to a serving executor (what the host execs)")
    c.add_argument("--socket", default=SOCKET)
    c.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for the executor to accept")
    args = parser.parse_args(argv)
    if args.command == "serve":
        serve(args.socket)
        return 0
    return relay(args.socket, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
