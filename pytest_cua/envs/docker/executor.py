#!/usr/bin/env python3
"""pytest-cua's executor: the one process inside a desktop container that touches the display.

It starts Xvfb and a window manager, then serves a JSON-lines protocol on a unix socket inside the container.
The host reaches it through the Docker API alone: it ``exec``s ``executor.py connect`` in the container, a relay
that carries its stdin to the socket and the answers back to its stdout, so the same transport works with a
remote Docker daemon (no bind mount, no network). One request per line, one answer per line::

    -> {"id": 1, "op": "act", "action": {"type": "click", "target": {"x": 10, "y": 20}}}
    <- {"id": 1, "ok": true, "duration_s": 0.05}

Operations: ping, act, screenshot, windows, wait_window, window_geometry, put, get, spawn, run, listing, shutdown, plus those of
the op modules beside this file (``executor_*.py``, each with a dict ``OPS`` of name -> handler taking the
request and returning the answer's fields). Files travel in the messages (``put`` and ``get`` carry their bytes
as base64). The host copies this file and its op modules into the container before it starts
(``pytest_cua.envs.docker.client.executor_bundle``): the image only provides the programs.

Actions arrive as typed action dicts (``pytest_cua.actions.Action.to_dict()``) and are checked against the
whitelist of ``executor_input.py``, which carries them out. Nothing is ever evaluated.

The display (Xvfb, openbox) and the accessibility bus: ``executor_display.py``. ``serve`` starts a session D-Bus
and the AT-SPI bus with accessibility enabled before it accepts requests, and every program it starts inherits
``DBUS_SESSION_BUS_ADDRESS``; a failure there only disables the accessibility tree (``ping`` and the ``axtree``
op say why), never screenshots or actions.

This file holds the observations of the screen (screenshot, windows, file listings), the protocol and the
relay. Standard library plus Pillow (or mss), xdotool and wmctrl; it does not import pytest_cua (it runs inside
the image's own Python): its sibling modules are imported by their own names, from the folder it runs in.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import selectors
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

# beside this file in /opt/cua (and its folder is on sys.path first when it runs as a script)
from executor_display import (  # type: ignore[import-not-found]  # noqa: F401 - A11Y: read by executor_axtree
    _CHILDREN, A11Y, DISPLAY, _run_ok, _spawn, start_accessibility, start_display)
from executor_input import ActionRefused, act, find_window, gui, screen_size  # type: ignore[import-not-found]  # noqa: F401

SOCKET = "/run/cua/executor.sock"
MAX_FILE_BYTES = 256 << 20  # put / get: a file travels in one message


# --- observations ---------------------------------------------------------------------------------------------

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
        window = find_window(pattern)
        if window is not None:
            name = subprocess.run(["xdotool", "getwindowname", window], capture_output=True, text=True, timeout=5)
            return {"window": window, "title": name.stdout.strip()}
        if time.monotonic() >= deadline:
            raise TimeoutError(f"no window title matching {pattern!r} after {timeout:.0f} s; "
                               f"open: {[w['title'] for w in windows()['windows']]}")
        time.sleep(delay)
        delay = min(delay * 1.5, 0.5)


def window_geometry(window: str) -> dict[str, Any]:
    """Where a window's client area is on the screen: ``{x, y, width, height}`` (X's own answer: xdotool's
    ``getwindowgeometry`` counts a reparented window's decorations twice)."""
    from Xlib import display, error  # type: ignore[import-untyped,import-not-found,unused-ignore]

    screen = display.Display()
    try:
        win = screen.create_resource_object("window", int(window))
        size = win.get_geometry()
        origin = screen.screen().root.translate_coords(win, 0, 0)
        return {"x": origin.x, "y": origin.y, "width": size.width, "height": size.height}
    except (error.BadWindow, error.BadDrawable) as exc:
        raise ValueError(f"window {window!r}: no such window ({type(exc).__name__})") from None
    finally:
        screen.close()


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
    elif op == "window_geometry":
        result = window_geometry(str(request.get("window", "")))
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