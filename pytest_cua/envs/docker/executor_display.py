"""The display of a desktop container, brought up by the executor (``executor.py serve``) before it answers:
Xvfb and openbox, then a session D-Bus and the AT-SPI accessibility bus (``A11Y`` says whether it came up, and
why not); and the programs it starts (``_spawn``: children stopped with the executor).

Copied into each container with the executor (``pytest_cua.envs.docker.client.executor_bundle``). Standard
library only; it does not import pytest_cua (it runs inside the image's own Python).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

DISPLAY = os.environ.get("DISPLAY", ":0")
SCREEN = os.environ.get("CUA_SCREEN", "1280x800x24")
_CHILDREN: list[subprocess.Popen] = []  # every program started, stopped with the executor


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
