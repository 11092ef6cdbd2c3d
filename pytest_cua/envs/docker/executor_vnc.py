#!/usr/bin/env python3
"""VNC for human takeover, inside the desktop container: x11vnc on a unix socket, and a relay to it.

Op (loaded by the executor beside this file, ``OPS``):

    vnc_start {}   -> {"socket": "/run/cua/vnc.sock", "pid": 123, "started": true}

starts x11vnc on the executor's display listening on the unix socket ``VNC_SOCKET`` only: ``-rfbport 0`` and
``-rfbportv6 -1`` leave no TCP port (IPv4 or IPv6) open, so nothing but a process in the container can reach
it; the container has no network anyway (``network_mode none``). No password: the socket is reachable only
through the Docker API, i.e. by whoever may ``docker exec`` in the container. ``-shared -forever`` let
viewers come and go (and several watch at once); ``-noxdamage`` because Xvfb's damage reports lag. Calling it
again while x11vnc runs answers with the running one (``started: false``).

Relay (what the host ``docker exec``s for each viewer connection, ``pytest_cua.envs.docker.takeover``)::

    python3 /opt/cua/executor_vnc.py relay [--socket PATH] [--timeout S]

connects to the socket and carries its stdin to it and the socket's bytes to its stdout, raw (the RFB
protocol, not JSON lines), until either side closes.

Standard library only; it does not import pytest_cua (it runs inside the image's own Python).
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

VNC_SOCKET = "/run/cua/vnc.sock"
VNC_LOG = "/tmp/cua-vnc.log"  # /tmp/cua-*: a file the rollback's residue check expects
START_TIMEOUT_S = 15.0

_PROC: subprocess.Popen | None = None


def vnc_argv(display: str, socket_path: str) -> list[str]:
    """x11vnc's command line: the unix socket only, shared, no password prompt, no rc file."""
    return ["x11vnc", "-display", display, "-unixsock", socket_path, "-rfbport", "0", "-rfbportv6", "-1",
            "-noipv6", "-shared", "-forever", "-nopw", "-noxdamage", "-norc", "-quiet", "-o", VNC_LOG]


def _answers(path: str) -> bool:
    """True when something accepts on the unix socket ``path``."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(2)
    try:
        sock.connect(path)
        return True
    except OSError:
        return False
    finally:
        sock.close()


def vnc_start(request: dict[str, Any]) -> dict[str, Any]:
    """Start x11vnc on the display unless it runs; wait (bounded) until its socket accepts."""
    global _PROC
    socket_path = VNC_SOCKET
    if _PROC is not None and _PROC.poll() is None and _answers(socket_path):
        return {"socket": socket_path, "pid": _PROC.pid, "started": False}
    Path(socket_path).parent.mkdir(parents=True, exist_ok=True)
    Path(socket_path).unlink(missing_ok=True)
    log = open(VNC_LOG, "ab")
    display = os.environ.get("DISPLAY", ":0")
    _PROC = subprocess.Popen(vnc_argv(display, socket_path), stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not (Path(socket_path).exists() and _answers(socket_path)):
        if _PROC.poll() is not None or time.monotonic() > deadline:
            tail = Path(VNC_LOG).read_text(errors="replace")[-600:] if Path(VNC_LOG).exists() else ""
            why = f"exited with status {_PROC.returncode}" if _PROC.poll() is not None else \
                f"its socket did not accept within {START_TIMEOUT_S:g} s"
            raise RuntimeError(f"x11vnc {why}; log {VNC_LOG}: {tail.strip()}")
        time.sleep(0.05)
    os.chmod(socket_path, 0o600)
    return {"socket": socket_path, "pid": _PROC.pid, "started": True}


def vnc_stop(request: dict[str, Any]) -> dict[str, Any]:
    """Stop the x11vnc this executor started (viewers are disconnected)."""
    global _PROC
    proc, _PROC = _PROC, None
    if proc is None or proc.poll() is not None:
        return {"stopped": False}
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
    return {"stopped": True}


OPS = {"vnc_start": vnc_start, "vnc_stop": vnc_stop}


# --- the relay ------------------------------------------------------------------------------------------------

def relay(socket_path: str, timeout: float) -> int:
    """Carry stdin to the VNC socket and its bytes to stdout until one side closes. Nothing is written before
    the first byte from the socket (the RFB greeting), so the stream is the viewer's from the start; a socket
    that does not accept within ``timeout`` seconds ends the relay with status 1 and a message on stderr."""
    from executor import connect_unix, pump  # type: ignore[import-not-found]  # beside this file in /opt/cua

    sock, why = connect_unix(socket_path, timeout)
    if sock is None:
        sys.stderr.write(f"no VNC server accepting on {socket_path} after {timeout:g} s ({why})\n")
        return 1
    return pump(sock, closed_status=0)  # x11vnc closing the connection ends a viewer's session normally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="executor_vnc.py")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("relay", help="carry stdin/stdout to the VNC socket (what the host execs per viewer)")
    r.add_argument("--socket", default=VNC_SOCKET)
    r.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the socket to accept")
    args = parser.parse_args(argv)
    return relay(args.socket, args.timeout)


if __name__ == "__main__":
    sys.exit(main())
